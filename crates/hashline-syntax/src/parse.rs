//! Bounded parsing: a file is parsed only when it is small enough, and a parse that runs
//! too long is cancelled.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use hashline_core::Document;
use tree_sitter::{InputEdit, ParseOptions, Parser, Point, Tree};

use crate::error::SyntaxError;
use crate::lang::LanguageId;

/// The bounds of one parse.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseLimits {
    /// Larger sources are not parsed.
    pub max_bytes: usize,
    /// A parse still running after this long is cancelled.
    pub max_time: Duration,
}

impl ParseLimits {
    /// 8 MiB and 2 seconds: far above any source file a person writes (a 10,000-line file
    /// is well under 1 MiB and parses in milliseconds), low enough that a generated or
    /// pathological file cannot stall a tool call.
    pub const DEFAULT: ParseLimits = ParseLimits { max_bytes: 8 * 1024 * 1024, max_time: Duration::from_secs(2) };
}

impl Default for ParseLimits {
    fn default() -> Self {
        ParseLimits::DEFAULT
    }
}

/// A parsed source: its tree, and where the parsed text starts in the document's bytes
/// (after a UTF-8 BOM, which is not part of the text).
#[derive(Clone, Debug)]
pub struct Parsed {
    /// The language it was parsed as.
    pub lang: LanguageId,
    /// The syntax tree. Its byte offsets are relative to the text (after the BOM).
    pub tree: Tree,
    /// Bytes of the document before the text (3 with a BOM, else 0).
    pub text_start: usize,
}

thread_local! {
    /// One parser per language per thread: creating one is cheap, but reusing it keeps its
    /// internal buffers warm.
    static PARSERS: RefCell<HashMap<LanguageId, Parser>> = RefCell::new(HashMap::new());
}

/// Parses `text` as `lang` within `limits`, reusing `old` (an earlier tree of this text,
/// already [`Tree::edit`]ed to match it) incrementally when given.
///
/// ```
/// use hashline_syntax::{parse, LanguageId, ParseLimits};
///
/// let tree = parse(LanguageId::Go, b"package main\nfunc main() {}\n", None, ParseLimits::DEFAULT).unwrap();
/// assert_eq!(tree.root_node().kind(), "source_file");
/// assert!(!tree.root_node().has_error());
/// ```
pub fn parse(lang: LanguageId, text: &[u8], old: Option<&Tree>, limits: ParseLimits) -> Result<Tree, SyntaxError> {
    if text.len() > limits.max_bytes {
        return Err(SyntaxError::TooLarge { bytes: text.len(), limit: limits.max_bytes });
    }
    PARSERS.with(|parsers| {
        let mut parsers = parsers.borrow_mut();
        let parser = match parsers.entry(lang) {
            std::collections::hash_map::Entry::Occupied(entry) => entry.into_mut(),
            std::collections::hash_map::Entry::Vacant(entry) => {
                let mut parser = Parser::new();
                parser
                    .set_language(&lang.ts_language())
                    .map_err(|err| SyntaxError::Grammar { lang, message: err.to_string() })?;
                entry.insert(parser)
            }
        };
        let started = Instant::now();
        let mut check = |_: &tree_sitter::ParseState| {
            if started.elapsed() > limits.max_time { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
        };
        let options = ParseOptions::new().progress_callback(&mut check);
        let len = text.len();
        let mut input = |offset: usize, _| if offset < len { &text[offset..] } else { &[][..] };
        let tree = parser.parse_with_options(&mut input, old, Some(options));
        match tree {
            Some(tree) => Ok(tree),
            None => {
                // A cancelled parse leaves state behind; the next parse must start clean.
                parser.reset();
                Err(SyntaxError::TimedOut { lang, limit: limits.max_time })
            }
        }
    })
}

/// Parses a document's text (its bytes after the BOM) as `lang`.
pub fn parse_document(lang: LanguageId, doc: &Document, limits: ParseLimits) -> Result<Parsed, SyntaxError> {
    let text_start = if doc.has_bom() { 3 } else { 0 };
    let tree = parse(lang, &doc.as_bytes()[text_start..], None, limits)?;
    Ok(Parsed { lang, tree, text_start })
}

/// Parses `after`, the document `before` became, reusing `parsed` (the tree of `before`)
/// incrementally: the bytes between the common prefix and the common suffix of the two
/// texts are one tree edit, so only the changed region is parsed again.
pub fn reparse(
    parsed: &Parsed,
    before: &Document,
    after: &Document,
    limits: ParseLimits,
) -> Result<Parsed, SyntaxError> {
    let text_start = if after.has_bom() { 3 } else { 0 };
    if text_start != parsed.text_start {
        return parse_document(parsed.lang, after, limits);
    }
    let old = &before.as_bytes()[parsed.text_start..];
    let new = &after.as_bytes()[text_start..];
    let mut tree = parsed.tree.clone();
    tree.edit(&edit_between(old, new));
    let tree = parse(parsed.lang, new, Some(&tree), limits)?;
    Ok(Parsed { lang: parsed.lang, tree, text_start })
}

/// The one tree edit that turns `old` into `new`: everything between their common prefix
/// and their common suffix.
fn edit_between(old: &[u8], new: &[u8]) -> InputEdit {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let room = old.len().min(new.len()) - prefix;
    let suffix = old.iter().rev().zip(new.iter().rev()).take(room).take_while(|(a, b)| a == b).count();
    let (old_end, new_end) = (old.len() - suffix, new.len() - suffix);
    let start_position = point_at(old, prefix);
    InputEdit {
        start_byte: prefix,
        old_end_byte: old_end,
        new_end_byte: new_end,
        start_position,
        old_end_position: advance(start_position, &old[prefix..old_end]),
        new_end_position: advance(start_position, &new[prefix..new_end]),
    }
}

/// The tree-sitter position (row = `\n`s before it, column = bytes after the last one) of
/// byte `offset` of `text`.
fn point_at(text: &[u8], offset: usize) -> Point {
    advance(Point::new(0, 0), &text[..offset])
}

fn advance(from: Point, bytes: &[u8]) -> Point {
    match memchr::memrchr(b'\n', bytes) {
        Some(last) => Point::new(from.row + memchr::memchr_iter(b'\n', bytes).count(), bytes.len() - last - 1),
        None => Point::new(from.row, from.column + bytes.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_source_over_the_byte_bound_is_not_parsed() {
        let limits = ParseLimits { max_bytes: 10, ..ParseLimits::DEFAULT };
        let err = parse(LanguageId::C, b"int main(void) { return 0; }", None, limits).unwrap_err();
        assert_eq!(err, SyntaxError::TooLarge { bytes: 28, limit: 10 });
        assert_eq!(err.to_string(), "the file has 28 bytes, more than the 10-byte parse limit");
        assert_eq!(err.code(), "too-large");
    }

    #[test]
    fn a_parse_over_the_time_bound_is_cancelled_and_the_parser_recovers() {
        let big = "int f(void) { return 1 + 2 * 3; }\n".repeat(20_000);
        let limits = ParseLimits { max_time: Duration::ZERO, ..ParseLimits::DEFAULT };
        let err = parse(LanguageId::C, big.as_bytes(), None, limits).unwrap_err();
        assert!(matches!(err, SyntaxError::TimedOut { lang: LanguageId::C, .. }), "{err:?}");
        assert_eq!(err.to_string(), "parsing as C took longer than 0 ms");
        let tree = parse(LanguageId::C, b"int x;", None, ParseLimits::DEFAULT).unwrap();
        assert!(!tree.root_node().has_error());
        assert_eq!(tree.root_node().end_byte(), 6);
    }

    #[test]
    fn the_bom_is_not_parsed() {
        let doc = Document::parse(b"\xEF\xBB\xBFfn main() {}\n".to_vec());
        let parsed = parse_document(LanguageId::Rust, &doc, ParseLimits::DEFAULT).unwrap();
        assert_eq!(parsed.text_start, 3);
        assert!(!parsed.tree.root_node().has_error());
    }

    #[test]
    fn reparse_matches_a_fresh_parse_for_every_kind_of_change() {
        let base = "fn a() {}\r\nfn b() {\n    1\n}\nfn c() {}\n";
        for new in [
            "fn a() {}\r\nfn b() {\n    1\n}\nfn c() {}\n",
            "fn a() {}\r\nfn b() {\n    1 + 2\n}\nfn c() {}\n",
            "fn a() {}\r\nfn c() {}\n",
            "fn z() {}\nfn a() {}\r\nfn b() {\n    1\n}\nfn c() {}\n",
            "fn a() {}\r\nfn b() {\n    1\n}\nfn c() {}\nfn d(\n",
            "",
            "\u{feff}fn a() {}\n",
        ] {
            let before = Document::parse(base.as_bytes().to_vec());
            let after = Document::parse(new.as_bytes().to_vec());
            let parsed = parse_document(LanguageId::Rust, &before, ParseLimits::DEFAULT).unwrap();
            let again = reparse(&parsed, &before, &after, ParseLimits::DEFAULT).unwrap();
            let fresh = parse_document(LanguageId::Rust, &after, ParseLimits::DEFAULT).unwrap();
            assert_eq!(again.text_start, fresh.text_start, "{new:?}");
            assert_eq!(again.tree.root_node().to_sexp(), fresh.tree.root_node().to_sexp(), "{new:?}");
        }
    }

    #[test]
    fn an_edited_tree_reparses_incrementally_to_the_same_result() {
        let old_text = b"fn a() {}\nfn b() {}\n";
        let new_text = b"fn a() {}\nfn bb() {}\n";
        let mut old = parse(LanguageId::Rust, old_text, None, ParseLimits::DEFAULT).unwrap();
        old.edit(&tree_sitter::InputEdit {
            start_byte: 14,
            old_end_byte: 14,
            new_end_byte: 15,
            start_position: tree_sitter::Point::new(1, 4),
            old_end_position: tree_sitter::Point::new(1, 4),
            new_end_position: tree_sitter::Point::new(1, 5),
        });
        let incremental = parse(LanguageId::Rust, new_text, Some(&old), ParseLimits::DEFAULT).unwrap();
        let fresh = parse(LanguageId::Rust, new_text, None, ParseLimits::DEFAULT).unwrap();
        assert_eq!(incremental.root_node().to_sexp(), fresh.root_node().to_sexp());
    }
}
