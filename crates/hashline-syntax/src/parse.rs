//! Bounded parsing: a file is parsed only when it is small enough, and a parse that runs
//! too long is cancelled.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::{ControlFlow, Range};
use std::time::{Duration, Instant};

use hashline_core::{Document, LineNo};
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
/// incrementally: only the text that changed is parsed again.
///
/// `kept` names lines the change kept, as (line in `before`, line in `after`) pairs in
/// `before`'s order (a change map's kept lines). The text between two kept lines is one
/// tree edit when it changed, so a batch of scattered edits costs about its own size, not
/// the file's. Pairs that are out of order or whose lines differ are ignored, so `kept`
/// only has to be a hint: with none, the bytes between the texts' common prefix and common
/// suffix are one edit. The tree is the same as a fresh parse of `after` either way.
///
/// ```
/// use hashline_core::{Document, LineNo};
/// use hashline_syntax::{parse_document, reparse, LanguageId, ParseLimits};
///
/// let before = Document::parse(b"fn a() {}\nfn b() {}\nfn c() {}\n".to_vec());
/// let after = Document::parse(b"fn a() {}\nfn b( {}\nfn c() {}\n".to_vec());
/// let parsed = parse_document(LanguageId::Rust, &before, ParseLimits::DEFAULT).unwrap();
/// let line = |n| LineNo::new(n).unwrap();
/// let kept = [(line(1), line(1)), (line(3), line(3))];
/// let again = reparse(&parsed, &before, &after, kept, ParseLimits::DEFAULT).unwrap();
/// assert!(again.tree.root_node().has_error());
/// ```
pub fn reparse(
    parsed: &Parsed,
    before: &Document,
    after: &Document,
    kept: impl IntoIterator<Item = (LineNo, LineNo)>,
    limits: ParseLimits,
) -> Result<Parsed, SyntaxError> {
    reparse_edits(parsed, after, &TextEdits::between(before, after, kept), limits)
}

/// [`reparse`] with the change's tree edits already found.
pub fn reparse_edits(
    parsed: &Parsed,
    after: &Document,
    edits: &TextEdits,
    limits: ParseLimits,
) -> Result<Parsed, SyntaxError> {
    let text_start = edits.text_start;
    if edits.whole || text_start != parsed.text_start {
        return parse_document(parsed.lang, after, limits);
    }
    let new = &after.as_bytes()[text_start..];
    if new.len() > limits.max_bytes {
        return Err(SyntaxError::TooLarge { bytes: new.len(), limit: limits.max_bytes });
    }
    let mut tree = parsed.tree.clone();
    // Applied last to first, each edit's offsets are still those of the old text.
    for edit in edits.edits.iter().rev() {
        tree.edit(edit);
    }
    let tree = parse(parsed.lang, new, Some(&tree), limits)?;
    Ok(Parsed { lang: parsed.lang, tree, text_start })
}

/// The tree edits that turn one document's text into another's (see [`reparse`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextEdits {
    /// The edits, in text order, in the old text's coordinates (bytes after the BOM).
    pub edits: Vec<InputEdit>,
    /// Where the new document's text starts (3 after a BOM, else 0).
    pub text_start: usize,
    /// See [`TextEdits::whole`].
    whole: bool,
}

impl TextEdits {
    /// The edits from `before` to `after`, with `kept` as in [`reparse`] (none when one of
    /// the two has a BOM and the other not: see [`TextEdits::whole`]).
    pub fn between(before: &Document, after: &Document, kept: impl IntoIterator<Item = (LineNo, LineNo)>) -> Self {
        let text_start = if after.has_bom() { 3 } else { 0 };
        if before.has_bom() != after.has_bom() {
            return TextEdits { edits: Vec::new(), text_start, whole: true };
        }
        TextEdits { edits: edits_between(before, after, text_start, kept), text_start, whole: false }
    }

    /// Whether the texts cannot be related by edits (one has a BOM, the other not): the new
    /// text is then parsed afresh.
    pub fn whole(&self) -> bool {
        self.whole
    }
}

/// The tree edits that turn `before`'s text into `after`'s, in text order, in the old
/// text's coordinates: one per changed gap between kept lines, trimmed to the bytes that
/// differ.
fn edits_between(
    before: &Document,
    after: &Document,
    text_start: usize,
    kept: impl IntoIterator<Item = (LineNo, LineNo)>,
) -> Vec<InputEdit> {
    let (old, new) = (before.as_bytes(), after.as_bytes());
    // Gaps as (old range, new range) of document bytes, between the kept lines' contents.
    let mut gaps: Vec<(Range<usize>, Range<usize>)> = Vec::new();
    let (mut old_at, mut new_at) = (text_start, text_start);
    let mut last: Option<(LineNo, LineNo)> = None;
    for (old_line, new_line) in kept {
        if last.is_some_and(|(o, n)| old_line <= o || new_line <= n) {
            continue;
        }
        let (Some(old_range), Some(new_range)) = (before.content_range(old_line), after.content_range(new_line)) else {
            continue;
        };
        if old_range.start < old_at || new_range.start < new_at || old[old_range.clone()] != new[new_range.clone()] {
            continue;
        }
        if old[old_at..old_range.start] != new[new_at..new_range.start] {
            gaps.push((old_at..old_range.start, new_at..new_range.start));
        }
        (old_at, new_at) = (old_range.end, new_range.end);
        last = Some((old_line, new_line));
    }
    if old[old_at..] != new[new_at..] {
        gaps.push((old_at..old.len(), new_at..new.len()));
    }
    // Only the old text is scanned from its start (for where each edit begins); the new
    // text's end positions follow from the new bytes of each edit alone.
    let mut old_points = Points::new(&old[text_start..]);
    gaps.into_iter()
        .map(|(old_gap, new_gap)| {
            let (old_gap, new_gap) = trim(old, new, old_gap, new_gap);
            let (start, old_end) = (old_gap.start - text_start, old_gap.end - text_start);
            let start_position = old_points.at(start);
            let new_end_position = {
                // The new bytes' own rows and last column, from where the edit starts in
                // the old text.
                let inserted = &new[new_gap.clone()];
                let rows = memchr::memchr_iter(b'\n', inserted).count();
                match memchr::memrchr(b'\n', inserted) {
                    None => Point::new(start_position.row, start_position.column + inserted.len()),
                    Some(last) => Point::new(start_position.row + rows, inserted.len() - last - 1),
                }
            };
            InputEdit {
                start_byte: start,
                old_end_byte: old_end,
                new_end_byte: start + new_gap.len(),
                start_position,
                old_end_position: old_points.at(old_end),
                new_end_position,
            }
        })
        .collect()
}

/// The gap without the bytes its two sides share at the start and at the end.
fn trim(old: &[u8], new: &[u8], old_gap: Range<usize>, new_gap: Range<usize>) -> (Range<usize>, Range<usize>) {
    let (a, b) = (&old[old_gap.clone()], &new[new_gap.clone()]);
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let room = a.len().min(b.len()) - prefix;
    let suffix = a.iter().rev().zip(b.iter().rev()).take(room).take_while(|(x, y)| x == y).count();
    (old_gap.start + prefix..old_gap.end - suffix, new_gap.start + prefix..new_gap.end - suffix)
}

/// Tree-sitter positions (row = `\n`s before, column = bytes after the last one) of
/// increasing offsets of one text, found by one forward scan.
struct Points<'a> {
    text: &'a [u8],
    offset: usize,
    row: usize,
    line_start: usize,
}

impl<'a> Points<'a> {
    fn new(text: &'a [u8]) -> Self {
        Points { text, offset: 0, row: 0, line_start: 0 }
    }

    /// The position of `offset` (not below any earlier one asked for).
    fn at(&mut self, offset: usize) -> Point {
        let offset = offset.clamp(self.offset, self.text.len());
        for newline in memchr::memchr_iter(b'\n', &self.text[self.offset..offset]) {
            self.row += 1;
            self.line_start = self.offset + newline + 1;
        }
        self.offset = offset;
        Point::new(self.row, offset - self.line_start)
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
            let again = reparse(&parsed, &before, &after, [], ParseLimits::DEFAULT).unwrap();
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

    /// A small deterministic generator (xorshift), so the cases are the same every run.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    /// Lines of Rust-like text, some of them broken, with every kind of terminator.
    fn random_line(rng: &mut Rng, k: usize, broken: bool) -> String {
        let text = match rng.below(if broken { 9 } else { 5 }) {
            0 => format!("fn f_{k}() {{ let v = {k}; }}"),
            1 => String::new(),
            2 => format!("/// doc {k} é"),
            3 => format!("struct S{k} {{ a: u8 }}"),
            4 => format!("const C{k}: &str = \"s\\\"{k}\";"),
            5 => format!("fn open_{k}() {{"),
            6 => "}".to_owned(),
            7 => format!("    let broken_{k} = ;"),
            _ => format!("    call_{k}(1,"),
        };
        let end = match rng.below(10) {
            0 => "\r\n",
            1 => "\r",
            _ => "\n",
        };
        text + end
    }

    /// Applies the edits to the old text, last to first, checking every position against
    /// the text as it is at that moment, and that the result is the new text.
    fn check_edits(before: &Document, after: &Document, kept: impl IntoIterator<Item = (LineNo, LineNo)>) {
        let start = if before.has_bom() { 3 } else { 0 };
        let edits = edits_between(before, after, start, kept);
        let new = &after.as_bytes()[start..];
        let mut text = before.as_bytes()[start..].to_vec();
        let mut shift = 0i64;
        let shifts: Vec<i64> = edits
            .iter()
            .map(|e| {
                let at = shift;
                shift += e.new_end_byte as i64 - e.old_end_byte as i64;
                at
            })
            .collect();
        let point = |t: &[u8], o: usize| advance_for_test(&t[..o]);
        for (e, &at) in edits.iter().zip(&shifts).rev() {
            assert_eq!(e.start_position, point(&text, e.start_byte), "{e:?}");
            assert_eq!(e.old_end_position, point(&text, e.old_end_byte), "{e:?}");
            let from = (e.start_byte as i64 + at) as usize;
            let to = (e.new_end_byte as i64 + at) as usize;
            text.splice(e.start_byte..e.old_end_byte, new[from..to].iter().copied());
            assert_eq!(e.new_end_position, point(&text, e.new_end_byte), "{e:?}");
        }
        assert_eq!(text, new);
    }

    fn advance_for_test(bytes: &[u8]) -> Point {
        let rows = bytes.iter().filter(|&&b| b == b'\n').count();
        let column = bytes.len() - bytes.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        Point::new(rows, column)
    }

    #[test]
    fn reparse_with_kept_lines_matches_a_fresh_parse() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let mut clean = 0;
        for case in 0..80 {
            // Half the cases are valid Rust (top-level items only), half are broken.
            let broken = case % 2 == 1;
            let count = 1 + rng.below(120) as usize;
            let old: Vec<String> = (0..count).map(|k| random_line(&mut rng, k, broken)).collect();
            // Keep, replace, delete or insert before each old line; remember what was kept.
            let mut new: Vec<String> = Vec::new();
            let mut kept = Vec::new();
            for (i, line) in old.iter().enumerate() {
                match rng.below(10) {
                    0 => new.push(random_line(&mut rng, 1000 + i, broken)),
                    1 => {}
                    2 => {
                        new.push(random_line(&mut rng, 2000 + i, broken));
                        kept.push((LineNo::from_index(i), LineNo::from_index(new.len())));
                        new.push(line.clone());
                    }
                    _ => {
                        kept.push((LineNo::from_index(i), LineNo::from_index(new.len())));
                        new.push(line.clone());
                    }
                }
            }
            if rng.below(4) == 0 {
                // A wrong hint (a pair whose lines differ, one out of order) is ignored.
                kept.insert(0, (LineNo::from_index(count - 1), LineNo::from_index(0)));
                kept.push((LineNo::FIRST, LineNo::FIRST));
            }
            let prefix = if case % 7 == 0 { "\u{feff}" } else { "" };
            let last_cut = case % 5 == 0;
            let join = |lines: &[String]| {
                let mut text = format!("{prefix}{}", lines.concat());
                if last_cut && text.ends_with('\n') {
                    text.pop();
                }
                text
            };
            let before = Document::parse(join(&old).into_bytes());
            let after = Document::parse(join(&new).into_bytes());
            let kept: Vec<_> = kept
                .into_iter()
                .filter(|&(o, n)| o.index() < before.line_count() && n.index() < after.line_count())
                .collect();
            for lang in [LanguageId::Rust, LanguageId::C] {
                let parsed = parse_document(lang, &before, ParseLimits::DEFAULT).unwrap();
                let again = reparse(&parsed, &before, &after, kept.iter().copied(), ParseLimits::DEFAULT).unwrap();
                let fresh = parse_document(lang, &after, ParseLimits::DEFAULT).unwrap();
                check_edits(&before, &after, kept.iter().copied());
                let issues = |p: &Parsed| crate::census(&p.tree, &after, p.text_start).issues;
                assert_eq!(issues(&again), issues(&fresh), "case {case} {lang}");
                // Error recovery may build an ERROR node's insides differently when it
                // reuses old subtrees (tree-sitter does not promise otherwise); a tree
                // without errors is the same.
                if !fresh.tree.root_node().has_error() {
                    clean += 1;
                    assert_eq!(again.tree.root_node().to_sexp(), fresh.tree.root_node().to_sexp(), "case {case}");
                }
                assert_eq!(again.tree.root_node().end_position(), fresh.tree.root_node().end_position(), "case {case}");
            }
        }
        assert!(clean >= 20, "only {clean} error-free cases");
    }

    #[test]
    fn scattered_changes_are_separate_tree_edits() {
        let old = "fn a() {}\nfn b() {}\nfn c() {}\nfn d() {}\n";
        let new = "fn a() {}\nfn bb() {}\nfn c() {}\nfn dd() {}\n";
        let (before, after) = (Document::parse(old.as_bytes().to_vec()), Document::parse(new.as_bytes().to_vec()));
        let line = |n| LineNo::new(n).unwrap();
        let edits = edits_between(&before, &after, 0, [(line(1), line(1)), (line(3), line(3))]);
        let spans: Vec<_> =
            edits.iter().map(|e| (e.start_byte, e.old_end_byte, e.new_end_byte, e.start_position.row)).collect();
        assert_eq!(spans, vec![(14, 14, 15, 1), (34, 34, 35, 3)]);
        // Without hints, one edit from the first difference to the last.
        let one = edits_between(&before, &after, 0, []);
        assert_eq!(
            one.iter().map(|e| (e.start_byte, e.old_end_byte, e.new_end_byte)).collect::<Vec<_>>(),
            vec![(14, 33, 35)]
        );
    }
}
