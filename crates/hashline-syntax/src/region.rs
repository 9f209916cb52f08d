//! Proving a changed file clean from a parse of the changed region alone.
//!
//! A file's syntax check reparses the whole file, and tree-sitter's reparse of an edit takes
//! time linear in the file's top-level items (it shifts each of them again). When the old
//! tree is clean, the new file is clean exactly when a fresh parse of it is; [`proven_clean`]
//! answers that from the changed top-level items and one unchanged item on each side, and
//! only answers "clean" when that is certain, so that the verdict is always a fresh parse's.
//!
//! Why a region can stand for the file, for a grammar whose root is a repetition of
//! top-level items and whose lexer is the generated one (no external scanner, whose state
//! could carry over an item's end):
//!
//! - The file is `P R S`: `R` runs from the start of the last unchanged item before the
//!   change (`prev`) to the end of the first unchanged item after it (`next`), or to the
//!   file's start or end where there is none. The old file is `P R' S`, parsed clean.
//! - Up to `prev`'s first token the new file's tokens are the old file's, so the parser
//!   reaches `prev` in the state the old parse did: between two top-level items, with `P`'s
//!   items reduced as before. Between two items a repetition's parser has the same items
//!   to expect whether it is at the file's start or after other items, so `R` is then
//!   parsed as it is when parsed alone — which is done here.
//! - When `R` alone parses without a problem into items that begin with `prev` and end with
//!   `next`, each the same subtree as in the old tree, the parser leaves `R` between two
//!   items, where the old parse left `R'`, and `S` follows: the rest is the old parse of `S`
//!   (clean). The lookahead at `next`'s end (the end of text alone, `S`'s first token in the
//!   file) decides only `next`'s own last reductions, and those gave the old subtree in the
//!   old file, where `S` followed too.
//! - A comment is an extra that may stand anywhere, so it is never taken as `prev` or
//!   `next`: an item made to run on (`case 1:` before a function, an unclosed `/*`) would
//!   swallow it and still look the same.
//! - All of this needs the file's tokens to be those of `P`, `R` and `S` read apart: no
//!   token may run over `R`'s edges. C's tokens end within their line (or at the next `;`,
//!   `}` …), but for the block comment, which runs to the first `*/` after its `/*`. Where
//!   there is none, the lexer reads `/*` as the operators `/` and `*`, or (a preprocessor
//!   argument may begin with `/`) into a token of lower precedence than a comment; text
//!   beyond the part parsed may hold the `*/` that makes it a comment. So every `/*` of the
//!   region must lie inside a comment or a string's content of the region's tree, and every
//!   `/*` of the old file after its last `*/` (only there can one be left open) inside a
//!   comment or a string's content of the old tree.
//!
//! Anything else — a problem in the old tree or the region, a neighbour parsed otherwise, an
//! unsupported grammar — and the caller parses the file as before. The property tests
//! (`tests/region.rs`, and the tools' `syntax_reuse`) compare this verdict with fresh parses
//! of random edits of real files.

use hashline_core::Document;
use tree_sitter::Node;

use crate::lang::LanguageId;
use crate::parse::{ParseLimits, Parsed, TextEdits, parse};

/// Whether [`proven_clean`] may answer for `lang`: a root that is a repetition of
/// top-level items and no external scanner. C's grammar is such (`translation_unit` is
/// `repeat(_top_level_item)`; its crate ships no `scanner.c`).
pub fn region_language(lang: LanguageId) -> bool {
    matches!(lang, LanguageId::C)
}

/// Whether a fresh parse of `after` is certainly free of errors and missing tokens, known
/// from a parse of the changed region alone; `false` when that cannot be told this way
/// (then parse the file).
///
/// `parsed` is the clean tree of `before`, `edits` the change from it to `after`
/// ([`TextEdits::between`]).
///
/// ```
/// use hashline_core::Document;
/// use hashline_syntax::{parse_document, proven_clean, LanguageId, ParseLimits, TextEdits};
///
/// // Twenty functions; the change is in the tenth.
/// let text = |body: &str| {
///     (0..20).map(|i| if i == 10 { format!("int f{i}(void) {{ {body} }}\n") } else { format!("int f{i}(void) {{ return {i}; }}\n") }).collect::<String>()
/// };
/// let before = Document::parse(text("return 10;").into_bytes());
/// let parsed = parse_document(LanguageId::C, &before, ParseLimits::DEFAULT).unwrap();
/// let clean = Document::parse(text("return 2 + 2;").into_bytes());
/// let edits = TextEdits::between(&before, &clean, []);
/// assert!(proven_clean(&parsed, &before, &clean, &edits, ParseLimits::DEFAULT));
/// // A broken region is not proven clean (the file is parsed to find where).
/// let broken = Document::parse(text("return 2 +;").into_bytes());
/// let edits = TextEdits::between(&before, &broken, []);
/// assert!(!proven_clean(&parsed, &before, &broken, &edits, ParseLimits::DEFAULT));
/// ```
pub fn proven_clean(
    parsed: &Parsed,
    before: &Document,
    after: &Document,
    edits: &TextEdits,
    limits: ParseLimits,
) -> bool {
    let root = parsed.tree.root_node();
    if !region_language(parsed.lang) || edits.whole() || edits.text_start != parsed.text_start || root.has_error() {
        return false;
    }
    let (Some(first), Some(last)) = (edits.edits.first(), edits.edits.last()) else {
        // Nothing changed: the old tree is the new one.
        return true;
    };
    let (from, to) = (first.start_byte, last.old_end_byte);
    let shift = edits.edits.iter().map(|e| e.new_end_byte as isize - e.old_end_byte as isize).sum::<isize>();
    // The unchanged neighbours: the last item ending before the change and the first
    // starting after it (an item the change touches at its edge is changed).
    // One pass, nothing kept but the two (a file may hold millions of items).
    let (mut prev, mut next) = (None, None);
    let mut cursor = root.walk();
    for item in root.children(&mut cursor).filter(|n| !n.is_extra()) {
        if item.end_byte() < from {
            prev = Some(item);
        } else if item.start_byte() > to {
            next = Some(item);
            break;
        }
    }
    let new_text = &after.as_bytes()[edits.text_start..];
    let Some(old_text) = before.as_bytes().get(parsed.text_start..) else { return false };
    let start = prev.map_or(0, |n| n.start_byte());
    let Some(end) = next.map_or(Some(new_text.len()), |n| n.end_byte().checked_add_signed(shift)) else {
        return false;
    };
    // A region of most of the file is parsed faster incrementally.
    if end > new_text.len() || start >= end || (end - start) * 2 > new_text.len() {
        return false;
    }
    let Ok(tree) = parse(parsed.lang, &new_text[start..end], None, limits) else { return false };
    let region = tree.root_node();
    if region.has_error() || region.kind_id() != root.kind_id() {
        return false;
    }
    // A block comment's opener split into `/` and `*` (no `*/` after it in the text parsed)
    // may close in the file: in the region, or before it in the old file.
    if !openers_whole(&new_text[start..end], 0, region) || !openers_whole(old_text, last_closer(old_text), root) {
        return false;
    }
    let mut cursor = region.walk();
    let (mut first, mut last) = (None, None);
    for item in region.children(&mut cursor).filter(|n| !n.is_extra()) {
        first = first.or(Some(item));
        last = Some(item);
    }
    // Offsets in the region are the new text's less `start`; the old tree's `next` lies
    // `shift` bytes off its place in the new text.
    let start_at = start as isize;
    let same_first = prev.is_none_or(|prev| first.is_some_and(|n| same_subtree(prev, start_at, n, 0)));
    let same_last = next.is_none_or(|next| last.is_some_and(|n| same_subtree(next, start_at - shift, n, 0)));
    same_first && same_last
}

/// Whether every `/*` of `text` from `from` on lies inside a comment or a string's content
/// in `tree`. Elsewhere it may be read otherwise in the file: split into the operators `/`
/// and `*`, or taken into a preprocessor argument (a token of lower precedence than a
/// comment), when no `*/` follows it in `text` — and text beyond `text` may hold one.
fn openers_whole(text: &[u8], from: usize, tree: Node) -> bool {
    memchr::memmem::find_iter(&text[from.min(text.len())..], b"/*").all(|at| {
        let at = from + at;
        tree.descendant_for_byte_range(at, at + 2)
            .is_some_and(|n| n.child_count() == 0 && matches!(n.kind(), "comment" | "string_content"))
    })
}

/// Where the text after the last `*/` begins (0 when there is none): a `/*` before it is
/// closed by it or by an earlier one, so the lexer never reads it as `/` and `*`.
fn last_closer(text: &[u8]) -> usize {
    memchr::memmem::rfind(text, b"*/").map_or(0, |at| at + 2)
}

/// Whether two subtrees have the same nodes (kind, extra or missing, and span relative to
/// `a_at` and `b_at`) in the same shape.
fn same_subtree(a: Node, a_at: isize, b: Node, b_at: isize) -> bool {
    let (mut x, mut y) = (a.walk(), b.walk());
    loop {
        if !same_node(x.node(), a_at, y.node(), b_at) {
            return false;
        }
        let down = x.goto_first_child();
        if down != y.goto_first_child() {
            return false;
        }
        if down {
            continue;
        }
        // A leaf: on to the next sibling, up as far as needed (the two cursors stay at the
        // same depth: every step above is taken by both or by neither).
        loop {
            let across = x.goto_next_sibling();
            if across != y.goto_next_sibling() {
                return false;
            }
            if across {
                break;
            }
            if !x.goto_parent() {
                return true;
            }
            y.goto_parent();
        }
    }
}

fn same_node(a: Node, a_at: isize, b: Node, b_at: isize) -> bool {
    let at = |n: usize, from: isize| n as isize - from;
    a.kind_id() == b.kind_id()
        && a.is_extra() == b.is_extra()
        && a.is_missing() == b.is_missing()
        && at(a.start_byte(), a_at) == at(b.start_byte(), b_at)
        && at(a.end_byte(), a_at) == at(b.end_byte(), b_at)
}
