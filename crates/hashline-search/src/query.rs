//! What to look for: a pattern and how to read it, compiled once for every thread.

use grep_regex::{RegexMatcher, RegexMatcherBuilder};

/// The longest pattern a query compiles, in bytes (16 KiB): a longer one is refused before
/// it is parsed.
pub const MAX_PATTERN_BYTES: usize = 16 * 1024;

/// The most memory the compiled program of a pattern may take (10 MiB, the regex crate's
/// own default): a pattern whose program is larger is refused.
pub const MATCHER_SIZE_LIMIT: usize = 10 * (1 << 20);

/// The most memory each searching thread's lazy DFA may take (10 MiB): past it the DFA
/// clears its cache or falls back to slower engines, never grows.
pub const DFA_SIZE_LIMIT: usize = 10 * (1 << 20);

/// A text query: the pattern and how to read it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Query {
    /// The pattern: a regular expression (Rust `regex` syntax), or a literal string.
    pub pattern: String,
    /// Match `pattern` as a literal string.
    pub literal: bool,
    /// Ignore case (Unicode simple case folding).
    pub ignore_case: bool,
    /// Lines of context to return before and after every match.
    pub context: u32,
}

impl Query {
    /// A case-sensitive regular expression query without context.
    pub fn new(pattern: impl Into<String>) -> Self {
        Self { pattern: pattern.into(), literal: false, ignore_case: false, context: 0 }
    }

    /// The same query as a literal string.
    pub fn literal(mut self, yes: bool) -> Self {
        self.literal = yes;
        self
    }

    /// The same query, ignoring case.
    pub fn ignore_case(mut self, yes: bool) -> Self {
        self.ignore_case = yes;
        self
    }

    /// The same query with `lines` of context around every match.
    pub fn context(mut self, lines: u32) -> Self {
        self.context = lines;
        self
    }

    /// Compiles the pattern. Lines end at `\n`, `\r\n` or a bare `\r` for `^` and `$`, and
    /// no match spans a line end (a pattern that needs one is refused). A pattern over
    /// [`MAX_PATTERN_BYTES`], or whose program would be over [`MATCHER_SIZE_LIMIT`], is
    /// refused.
    pub fn compile(&self) -> Result<CompiledQuery, QueryError> {
        if self.pattern.is_empty() {
            return Err(QueryError::Empty);
        }
        if self.pattern.len() > MAX_PATTERN_BYTES {
            return Err(QueryError::TooLong { len: self.pattern.len() });
        }
        let matcher = RegexMatcherBuilder::new()
            .size_limit(MATCHER_SIZE_LIMIT)
            .dfa_size_limit(DFA_SIZE_LIMIT)
            .case_insensitive(self.ignore_case)
            .fixed_strings(self.literal)
            .multi_line(true)
            .crlf(true)
            .build(&self.pattern)
            .map_err(|err| QueryError::Invalid(self.syntax_error().unwrap_or_else(|| err.to_string())))?;
        Ok(CompiledQuery { matcher, context: self.context as usize })
    }
}

impl Query {
    /// The regex parser's own message for a malformed pattern (the matcher's message shows
    /// the pattern as it wraps it).
    fn syntax_error(&self) -> Option<String> {
        if self.literal {
            return None;
        }
        regex_syntax::ParserBuilder::new().build().parse(&self.pattern).err().map(|err| err.to_string())
    }
}

/// A compiled query, shared by every searching thread.
#[derive(Clone, Debug)]
pub struct CompiledQuery {
    pub(crate) matcher: RegexMatcher,
    pub(crate) context: usize,
}

impl CompiledQuery {
    /// Lines of context around every match.
    pub fn context(&self) -> usize {
        self.context
    }
}

/// Why a pattern cannot be searched for.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    /// The pattern is the empty string.
    #[error("the pattern is empty")]
    Empty,
    /// The pattern is longer than [`MAX_PATTERN_BYTES`].
    #[error("the pattern is {len} bytes long; the limit is {MAX_PATTERN_BYTES} bytes")]
    TooLong {
        /// Its length in bytes.
        len: usize,
    },
    /// The regular expression does not compile (the message says why).
    #[error("{0}")]
    Invalid(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_and_empty_patterns_are_refused() {
        assert_eq!(Query::new("").compile().err(), Some(QueryError::Empty));
        assert!(matches!(Query::new("(unclosed").compile(), Err(QueryError::Invalid(_))));
        assert!(Query::new("(unclosed").literal(true).compile().is_ok());
        assert!(matches!(Query::new("a\nb").compile(), Err(QueryError::Invalid(_))));
    }

    #[test]
    fn oversized_patterns_and_programs_are_refused_quickly() {
        let started = std::time::Instant::now();
        let long = "a".repeat(MAX_PATTERN_BYTES + 1);
        assert_eq!(Query::new(&long).compile().err(), Some(QueryError::TooLong { len: MAX_PATTERN_BYTES + 1 }));
        assert_eq!(Query::new(&long).literal(true).compile().err(), Some(QueryError::TooLong { len: long.len() }));
        assert!(Query::new("a".repeat(MAX_PATTERN_BYTES)).literal(true).compile().is_ok());
        let Err(QueryError::Invalid(message)) = Query::new(r"\w{1000}").compile() else {
            panic!("a program over the size limit compiled")
        };
        assert!(message.contains("size limit"), "{message}");
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
    }
}
