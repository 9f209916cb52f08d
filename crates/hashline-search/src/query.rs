//! What to look for: a pattern and how to read it, compiled once for every thread.

use grep_regex::{RegexMatcher, RegexMatcherBuilder};

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
    /// no match spans a line end (a pattern that needs one is refused).
    pub fn compile(&self) -> Result<CompiledQuery, QueryError> {
        if self.pattern.is_empty() {
            return Err(QueryError::Empty);
        }
        let matcher = RegexMatcherBuilder::new()
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
}
