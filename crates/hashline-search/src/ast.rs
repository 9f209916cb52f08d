//! Structural search: `ast-grep-core` patterns over the grammars of `hashline-syntax`'s
//! language registry (compiled and bounded here; files are searched in `ast_files`), and
//! every match located on hashline's line model.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use ast_grep_core::matcher::{PatternBuilder, PatternNode};
use ast_grep_core::tree_sitter::{LanguageExt, StrDoc, TSLanguage};
use ast_grep_core::{Language, Pattern, PatternError};
use hashline_core::{Document, LineNo};
use hashline_syntax::{LanguageId, ParseLimits};

use crate::ast_bounds::{MAX_PATTERN_BYTES, MAX_PATTERN_DEPTH, deeper_than, repeats_metavariable};
use crate::scan::{HitKind, HitLine};

/// A registry language as an `ast-grep-core` language (same grammar, same tree-sitter).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AstLanguage(pub LanguageId);

impl AstLanguage {
    /// The character metavariables are written with while the pattern is parsed: grammars
    /// whose identifiers cannot hold `$` get another identifier character, as ast-grep's own
    /// language table does.
    fn expando(self) -> char {
        self.0.spec().metavariable
    }
}

impl Language for AstLanguage {
    fn kind_to_id(&self, kind: &str) -> u16 {
        self.get_ts_language().id_for_node_kind(kind, true)
    }

    fn field_to_id(&self, field: &str) -> Option<u16> {
        self.get_ts_language().field_id_for_name(field).map(|f| f.get())
    }

    fn build_pattern(&self, builder: &PatternBuilder) -> Result<Pattern, PatternError> {
        builder.build(|src| StrDoc::try_new(src, *self))
    }

    fn expando_char(&self) -> char {
        self.expando()
    }

    fn pre_process_pattern<'q>(&self, query: &'q str) -> Cow<'q, str> {
        let expando = self.expando();
        if expando == '$' || !query.contains('$') {
            return Cow::Borrowed(query);
        }
        Cow::Owned(with_expando(query, expando))
    }
}

impl LanguageExt for AstLanguage {
    fn get_ts_language(&self) -> TSLanguage {
        self.0.ts_language()
    }
}

/// Rewrites the `$` of metavariables (`$NAME`, `$_`, `$$$REST`, `$$$`) to `expando`; other
/// dollars stay.
fn with_expando(query: &str, expando: char) -> String {
    let mut out = String::with_capacity(query.len() + 8);
    let mut dollars = 0usize;
    let flush = |out: &mut String, dollars: usize, metavar: bool| {
        let sigil = if metavar { expando } else { '$' };
        out.extend(std::iter::repeat_n(sigil, dollars));
    };
    for c in query.chars() {
        if c == '$' {
            dollars += 1;
            continue;
        }
        flush(&mut out, dollars, dollars > 0 && (c.is_ascii_uppercase() || c == '_' || dollars == 3));
        dollars = 0;
        out.push(c);
    }
    flush(&mut out, dollars, dollars == 3);
    out
}

/// Why a structural pattern cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AstPatternError {
    /// The pattern is empty or blank.
    #[error("the pattern is empty")]
    Empty,
    /// The pattern does not parse in the language (the message says why).
    #[error("{0}")]
    Parse(String),
    /// The pattern parses but is not one node (no AST root, several roots, ...).
    #[error("{0}")]
    Shape(String),
    /// The pattern is longer than [`MAX_PATTERN_BYTES`].
    #[error("the pattern has {bytes} bytes, more than the {limit}-byte limit")]
    TooLarge {
        /// The pattern's length.
        bytes: usize,
        /// The bound.
        limit: usize,
    },
    /// The pattern's syntax tree nests deeper than [`MAX_PATTERN_DEPTH`] levels.
    #[error("the pattern nests more than {limit} levels deep as {language}")]
    TooDeep {
        /// The bound.
        limit: usize,
        /// The language it was parsed as.
        language: &'static str,
    },
    /// The pattern could not be parsed within the parse bounds (too large, too slow).
    #[error("the pattern could not be parsed as {language}: {reason}")]
    Unbounded {
        /// The language.
        language: &'static str,
        /// Which bound it passed.
        reason: String,
    },
}

impl From<PatternError> for AstPatternError {
    fn from(err: PatternError) -> Self {
        // Messages quote the pattern as parsed: show the metavariables as the model wrote them.
        let message = err.to_string().replace(['µ', '\u{10000}'], "$");
        match err {
            PatternError::Parse(_) => AstPatternError::Parse(message),
            _ => AstPatternError::Shape(message),
        }
    }
}

/// Refuses a pattern whose tree (as `ast-grep-core` will parse it for `lang`) nests deeper
/// than [`MAX_PATTERN_DEPTH`]: compiling, matching and dropping a pattern recurse once per
/// level. The parse itself is bounded like the syntax check's.
fn check_depth(pattern: &str, lang: LanguageId) -> Result<(), AstPatternError> {
    let ast_lang = AstLanguage(lang);
    let source = ast_lang.pre_process_pattern(pattern);
    let tree = hashline_syntax::parse(lang, source.as_bytes(), None, ParseLimits::DEFAULT)
        .map_err(|err| AstPatternError::Unbounded { language: lang.display_name(), reason: err.to_string() })?;
    if deeper_than(tree.root_node(), MAX_PATTERN_DEPTH) {
        return Err(AstPatternError::TooDeep { limit: MAX_PATTERN_DEPTH, language: lang.display_name() });
    }
    Ok(())
}

/// A structural query: the pattern compiled for each language it may run on.
pub struct AstQuery {
    patterns: Vec<(LanguageId, Pattern)>,
    /// Only this language's files (`None`: every file of a registry language).
    only: Option<LanguageId>,
    /// Words of the pattern that every match holds as written (see [`pattern_words`]): a
    /// file without one of them is not parsed.
    words: Vec<memchr::memmem::Finder<'static>>,
    /// Each language's operator tokens of the pattern (see [`pattern_tokens`]), as `words`.
    tokens: Vec<(LanguageId, Vec<memchr::memmem::Finder<'static>>)>,
    /// The pattern repeats a metavariable: matching compares subtrees of the file.
    pub(crate) compares: bool,
}

/// How many of a pattern's words the prefilter looks for in each file.
const MAX_PREFILTER_WORDS: usize = 8;

/// The identifier-like words of a pattern outside its metavariables (`$X`, `$$$ARGS`,
/// `$_`: a word right after `$` is skipped). A match holds every token of its pattern
/// as written (ast-grep's default `smart` strictness matches every pattern node, a leaf by
/// its text), so a file that lacks one of these words has no match.
fn pattern_words(pattern: &str) -> Vec<String> {
    let mut words: Vec<&str> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut chars = pattern.char_indices().peekable();
    let mut after_dollar = false;
    while let Some((start, c)) = chars.next() {
        if c.is_ascii_alphanumeric() || c == '_' {
            let mut end = start + c.len_utf8();
            while let Some(&(i, n)) = chars.peek() {
                if !(n.is_ascii_alphanumeric() || n == '_') {
                    break;
                }
                end = i + n.len_utf8();
                chars.next();
            }
            // A word glued to a non-ASCII identifier character is not a whole token.
            let glued = |c: Option<char>| c.is_some_and(|c| !c.is_ascii() && c.is_alphanumeric());
            let whole = !glued(pattern[..start].chars().next_back()) && !glued(pattern[end..].chars().next());
            if !after_dollar && whole && seen.insert(&pattern[start..end]) {
                words.push(&pattern[start..end]);
            }
            after_dollar = false;
        } else {
            after_dollar = c == '$';
        }
    }
    // Each file is scanned once per word: the longest few (the rarest, most likely) do.
    words.sort_by_key(|w| std::cmp::Reverse(w.len()));
    words.truncate(MAX_PREFILTER_WORDS);
    words.sort_by_key(|w| pattern.find(w));
    words.into_iter().map(str::to_owned).collect()
}

/// How many of a pattern's operator tokens the prefilter looks for in each file. A look-up
/// stops at the token's first occurrence and a token absent from a file costs one pass of
/// `memchr` over it: next to a parse, both are free (a 3.3 MB Rust file without a `+`: the
/// whole search 1.7–1.9 s, a `grep -c +` of it under 10 ms).
const MAX_PREFILTER_TOKENS: usize = 3;

/// Single-character tokens found in nearly every file of code: looked for after the others.
const COMMON_PUNCTUATION: &str = "(),;.{}=:";

/// The operator tokens (`==`, `->`, `+`, …) that a compiled pattern holds: anonymous leaves
/// of ASCII punctuation whose text is their kind's name (the grammar's literal token). Under
/// ast-grep's `smart` strictness every leaf of a pattern must meet a node of its kind, and a
/// node of such a kind is that text in the file; a leaf whose text is not its kind's name
/// (an alias, a grammar's odd span) is left out. The longest come first, then single
/// characters, those in [`COMMON_PUNCTUATION`] last: most Rust files hold no `+` at all
/// (two thirds of the bench's sub-corpus), every one a `(`. Not found: a match whose
/// operator is a zero-width token that error recovery inserted.
fn pattern_tokens(lang: LanguageId, pattern: &Pattern) -> Vec<String> {
    let mut found = std::collections::BTreeSet::new();
    operator_tokens(&pattern.node, &lang.ts_language(), &mut found);
    let mut tokens: Vec<String> = found.into_iter().collect();
    tokens.sort_by_key(|t| (std::cmp::Reverse(t.len()), COMMON_PUNCTUATION.contains(t.as_str())));
    tokens.truncate(MAX_PREFILTER_TOKENS);
    tokens
}

/// The operator tokens below `node` (see [`pattern_tokens`]).
fn operator_tokens(node: &PatternNode, language: &TSLanguage, out: &mut std::collections::BTreeSet<String>) {
    match node {
        PatternNode::Terminal { text, is_named: false, kind_id } => {
            if !text.is_empty()
                && text.bytes().all(|b| b.is_ascii_punctuation())
                && language.node_kind_for_id(*kind_id) == Some(text.as_str())
            {
                out.insert(text.clone());
            }
        }
        PatternNode::Internal { children, .. } => {
            children.iter().for_each(|child| operator_tokens(child, language, out));
        }
        PatternNode::Terminal { .. } | PatternNode::MetaVar { .. } => {}
    }
}

impl AstQuery {
    /// Compiles `pattern` for `lang`, or (without `lang`) for every registry language it
    /// parses in. Fails when it compiles for none; the error is the first language's.
    /// A language's `also_searches` (TypeScript: TSX) are searched too, each with its grammar.
    pub fn new(pattern: &str, lang: Option<LanguageId>) -> Result<Self, AstPatternError> {
        if pattern.trim().is_empty() {
            return Err(AstPatternError::Empty);
        }
        if pattern.len() > MAX_PATTERN_BYTES {
            return Err(AstPatternError::TooLarge { bytes: pattern.len(), limit: MAX_PATTERN_BYTES });
        }
        let candidates: Vec<LanguageId> = match lang {
            Some(lang) => std::iter::once(lang).chain(lang.spec().also_searches.iter().copied()).collect(),
            None => LanguageId::ALL.to_vec(),
        };
        let mut patterns = Vec::new();
        let mut first_error = None;
        for lang in candidates {
            match check_depth(pattern, lang) {
                // Nesting that deep is refused outright: a language whose grammar reads the
                // pattern as flat text (HTML) would otherwise make it "usable" elsewhere.
                Err(err @ AstPatternError::TooDeep { .. }) => return Err(err),
                Err(err) => {
                    first_error.get_or_insert(err);
                    continue;
                }
                Ok(()) => {}
            }
            match Pattern::try_new(pattern, AstLanguage(lang)) {
                Ok(compiled) if compiled.has_error() => {
                    first_error.get_or_insert(AstPatternError::Parse(format!(
                        "the pattern has syntax errors as {}",
                        lang.display_name()
                    )));
                }
                Ok(compiled) => patterns.push((lang, compiled)),
                Err(err) => {
                    first_error.get_or_insert(AstPatternError::from(err));
                }
            }
        }
        let usable = match lang {
            Some(lang) => patterns.iter().any(|(p, _)| *p == lang),
            None => !patterns.is_empty(),
        };
        let finders = |words: Vec<String>| {
            words.into_iter().map(|w| memchr::memmem::Finder::new(w.as_bytes()).into_owned()).collect::<Vec<_>>()
        };
        let words = finders(pattern_words(pattern));
        let tokens =
            patterns.iter().map(|(lang, compiled)| (*lang, finders(pattern_tokens(*lang, compiled)))).collect();
        match first_error {
            Some(err) if !usable => Err(err),
            _ => Ok(Self { patterns, only: lang, words, tokens, compares: repeats_metavariable(pattern) }),
        }
    }

    /// Whether the bytes of a file of `lang` may hold a match (they hold every word of the
    /// pattern and every operator token of its form in `lang`).
    pub(crate) fn may_match(&self, lang: LanguageId, bytes: &[u8]) -> bool {
        let tokens = self.tokens.iter().filter(|(l, _)| *l == lang).flat_map(|(_, tokens)| tokens);
        self.words.iter().chain(tokens).all(|word| word.find(bytes).is_some())
    }

    /// The pattern and language for a file, by its extension.
    pub(crate) fn for_path(&self, path: &Path) -> Option<(LanguageId, &Pattern)> {
        let by_extension = LanguageId::from_path(&path.to_string_lossy())?;
        let wanted = match (self.only, by_extension) {
            (Some(only), found) if only != found && !only.spec().also_searches.contains(&found) => return None,
            (_, found) => found,
        };
        self.patterns.iter().find(|(lang, _)| *lang == wanted).map(|(lang, pattern)| (*lang, pattern))
    }
}

/// The matches of one file, each as the 1-based lines it spans.
pub struct AstFileHits {
    /// The file.
    pub path: PathBuf,
    /// The language it was searched as.
    pub language: LanguageId,
    /// Every match, in source order: first and last line.
    pub matches: Vec<(LineNo, LineNo)>,
    /// The file as searched (for the rows of the matched lines); empty when
    /// `document_kept` is false.
    pub document: Document,
    /// The file lies past the first [`AstLimits::keep_documents`](crate::AstLimits) matches
    /// in path order when false: its text was not kept.
    pub document_kept: bool,
}

impl AstFileHits {
    /// The lines of `range` as anchored hit lines (all marked as matches).
    pub fn lines(&self, range: (LineNo, LineNo)) -> Vec<HitLine> {
        self.document
            .lines_in(range.0.index()..range.1.index() + 1)
            .map(|line| HitLine {
                line: line.number,
                hash: line.hash(),
                content: line.content.to_vec(),
                kind: HitKind::Match,
                measured: None,
            })
            .collect()
    }
}

/// Merges match line ranges (sorted by start) that overlap or leave a gap of at most one
/// line between them.
pub fn merge_ranges(matches: &[(LineNo, LineNo)]) -> Vec<(LineNo, LineNo)> {
    let mut sorted = matches.to_vec();
    sorted.sort();
    let mut merged: Vec<(LineNo, LineNo)> = Vec::new();
    for (start, end) in sorted {
        match merged.last_mut() {
            Some(last) if start.get() <= last.1.get() + 2 => last.1 = last.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(n: u32) -> LineNo {
        LineNo::new(n).expect("line")
    }

    #[test]
    fn expando_rewrites_metavariables_only() {
        assert_eq!(with_expando("$X.unwrap()", 'µ'), "µX.unwrap()");
        assert_eq!(with_expando("f($$$ARGS, $_, $$$)", 'µ'), "f(µµµARGS, µ_, µµµ)");
        assert_eq!(with_expando("\"$x\" + $", 'µ'), "\"$x\" + $");
    }

    #[test]
    fn pattern_words_skip_metavariables() {
        assert_eq!(pattern_words("$X.unwrap()"), ["unwrap"]);
        assert_eq!(pattern_words("fn $NAME($$$ARGS) -> Result<$$$T> { $$$BODY }"), ["fn", "Result"]);
        assert_eq!(pattern_words("impl $T for $U { $$$ITEMS }"), ["impl", "for"]);
        assert_eq!(pattern_words("f($_, 1, $$$)"), ["f", "1"]);
        assert_eq!(pattern_words("\"$x\" + $"), Vec::<String>::new());
        assert_eq!(pattern_words("héllo(a)"), ["a"]);
        let many = pattern_words("f(a, bb, ccc, a, dddd, e, ffffff, g, hh, iii, jjjj, kkkkk)");
        assert_eq!(many, ["bb", "ccc", "dddd", "ffffff", "hh", "iii", "jjjj", "kkkkk"]);
        let query = AstQuery::new("$X.unwrap()", Some(LanguageId::Rust)).expect("pattern");
        assert!(query.may_match(LanguageId::Rust, b"fn a() { b.unwrap(); }"));
        assert!(!query.may_match(LanguageId::Rust, b"fn a() { b.expect(\"\"); }"));
    }

    #[test]
    fn pattern_tokens_are_the_operators_of_each_language() {
        let tokens = |pattern: &str, lang: LanguageId| {
            let query = AstQuery::new(pattern, Some(lang)).expect("pattern");
            let (_, compiled) = query.patterns.iter().find(|(l, _)| *l == lang).expect("compiled");
            pattern_tokens(lang, compiled)
        };
        assert_eq!(tokens("$A == $B", LanguageId::Rust), ["=="]);
        assert_eq!(tokens("$A === $B", LanguageId::TypeScript), ["==="]);
        // The longest first, then single characters, the common ones last.
        assert_eq!(tokens("fn $NAME($$$ARGS) -> Result<$$$T> { $$$BODY }", LanguageId::Rust), ["->", "<", ">"]);
        assert_eq!(tokens("$X.unwrap()", LanguageId::Rust), ["(", ")", "."]);
        assert_eq!(tokens("$A + $B", LanguageId::Rust), ["+"]);
        assert_eq!(tokens("$A::$B($C == $D, $E != $F, $G >>= $H)", LanguageId::Rust), [">>=", "!=", "::"]);
        // A file without the one operator of the pattern is not parsed.
        let query = AstQuery::new("$A + $B", Some(LanguageId::Rust)).expect("pattern");
        assert!(query.may_match(LanguageId::Rust, b"fn a() -> u8 { b + c }"));
        assert!(!query.may_match(LanguageId::Rust, b"fn a() -> u8 { b - c }"));
        // A language that reads the pattern otherwise asks for nothing of the others' files.
        let query = AstQuery::new("$A == $B", None).expect("pattern");
        assert!(query.may_match(LanguageId::Rust, b"fn a() -> bool { b == c }"));
        assert!(!query.may_match(LanguageId::Rust, b"fn a() -> bool { b != c }"));
        assert!(query.patterns.iter().any(|(lang, compiled)| pattern_tokens(*lang, compiled).is_empty()));
    }

    #[test]
    fn ranges_merge_when_overlapping_or_one_line_apart() {
        let merged = merge_ranges(&[(line(1), line(2)), (line(4), line(4)), (line(7), line(9)), (line(8), line(8))]);
        assert_eq!(merged, [(line(1), line(4)), (line(7), line(9))]);
    }

    #[test]
    fn bad_patterns_are_refused() {
        assert_eq!(AstQuery::new("  ", None).err(), Some(AstPatternError::Empty));
        assert!(matches!(
            AstQuery::new("fn (", Some(LanguageId::Rust)),
            Err(AstPatternError::Parse(_) | AstPatternError::Shape(_))
        ));
    }

    #[test]
    fn typescript_covers_tsx_files() {
        let query = AstQuery::new("console.log($A)", Some(LanguageId::TypeScript)).expect("pattern");
        assert_eq!(query.for_path(Path::new("a.tsx")).map(|(l, _)| l), Some(LanguageId::Tsx));
        assert_eq!(query.for_path(Path::new("a.ts")).map(|(l, _)| l), Some(LanguageId::TypeScript));
        assert!(query.for_path(Path::new("a.js")).is_none());
    }
}
