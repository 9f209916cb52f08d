//! Syntax validation of a change (SPEC §5.4, `syntaxValidate`): the new file's syntax
//! problems that the change introduced, as a warning (`warn`) or a refusal (`block`).

use std::path::Path;

use hashline_core::{Document, LineNo};
use hashline_syntax::{
    Census, IssueKind, LanguageId, LineSpan, ParseLimits, TextEdits, census, introduced, line_list, parse_document,
    proven_clean, reparse_edits,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::{ErrorCode, ToolError};
use crate::map_store::{ContentKey, MapStore};
use crate::tree_cache::{CachedTree, TreeCache, reparse_to_keep};
use crate::warning::{Warning, WarningCode};

/// How a result's syntax is checked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SyntaxMode {
    /// Report new syntax errors as a warning.
    #[default]
    Warn,
    /// Refuse a change that adds syntax errors.
    Block,
    /// No check.
    Off,
}

/// The syntax check's outcome.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SyntaxOutcome {
    /// The mode that ran.
    pub mode: SyntaxMode,
    /// Whether the new file was parsed and checked.
    pub checked: bool,
    /// The language it was checked as (`rust`, `cpp`, ...), when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// Why no check ran, when none did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The problems the change introduced, in the new file's lines (empty when none).
    pub new_problems: Vec<SyntaxProblem>,
}

/// One syntax problem of the new file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SyntaxProblem {
    /// `error` (text the grammar could not place) or `missing` (a token the parser assumed).
    pub kind: ProblemKind,
    /// Its first line in the new file.
    pub start_line: u32,
    /// Its last line in the new file.
    pub end_line: u32,
}

/// The kind of a [`SyntaxProblem`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ProblemKind {
    /// An ERROR node.
    Error,
    /// A MISSING node.
    Missing,
}

impl SyntaxOutcome {
    /// The outcome of no check.
    pub fn unchecked(mode: SyntaxMode, language: Option<LanguageId>, reason: impl Into<String>) -> Self {
        SyntaxOutcome {
            mode,
            checked: false,
            language: language.map(|l| l.name().to_owned()),
            reason: Some(reason.into()),
            new_problems: Vec::new(),
        }
    }

    /// `syntax-regression: lines 3, 7-9`, when the change introduced problems.
    pub fn regression_message(&self) -> Option<String> {
        if self.new_problems.is_empty() {
            return None;
        }
        let spans = self
            .new_problems
            .iter()
            .filter_map(|p| Some(LineSpan { start: LineNo::new(p.start_line)?, end: LineNo::new(p.end_line)? }));
        Some(format!("syntax-regression: lines {}", line_list(spans)))
    }
}

/// What a check may reuse and keep for one file.
#[derive(Clone, Copy, Debug)]
pub struct Memo<'a> {
    /// The session's trees (in-process sessions keep them between calls).
    pub trees: &'a TreeCache,
    /// The file's key (its real path).
    pub key: &'a Path,
    /// The on-disk store of censuses and maps (the CLI's map cache), when there is one.
    pub store: Option<&'a MapStore>,
}

/// The session's trees and store to reuse and keep for one file, if any.
pub type Trees<'a> = Option<Memo<'a>>;

/// The old file's census, and the tree it came from when there is one.
enum Old {
    /// A tree (kept by the session or parsed now) and its census; `true` when parsed now.
    Tree(CachedTree, bool),
    /// Only the census, from the store: the new file is parsed afresh.
    Census(Census),
}

impl Old {
    fn census(&self) -> &Census {
        match self {
            Old::Tree(tree, _) => &tree.census,
            Old::Census(census) => census,
        }
    }
}

/// Checks `after` (the file `path` will hold) against `before` (what it holds now, if
/// anything), following old lines to new ones with `new_line_of`.
///
/// With `trees`, the tree of `before` comes from the cache when the cache holds one for
/// exactly those bytes, and `after` is parsed incrementally from it (afresh when that
/// tree has errors: the verdict is always a fresh parse's). When that kept tree is clean
/// and its grammar allows it (C), a change proven clean from its region alone
/// (`hashline_syntax::proven_clean`) is judged so, and the tree of `after` is reparsed on
/// the parser thread for the next edit ([`TreeCache::follow`]). Else, when the store
/// holds the census of exactly those bytes, that census stands for `before` and `after` is
/// parsed afresh (the census of a fresh parse and of an incremental one are the same); else
/// `before` is parsed. The cache then keeps the tree of what the file will hold: `after`, or
/// `before` when `block` refuses the change; the store keeps the census of every version
/// parsed here that the file holds or will hold, and the symbol map of `after` when it held
/// the map of `before` and the tree of `after` is a fresh parse or has no error (so that it
/// is the map a read would build).
pub fn check(
    mode: SyntaxMode,
    path: &str,
    before: Option<&Document>,
    after: &Document,
    new_line_of: impl Fn(LineNo) -> Option<LineNo>,
    trees: Trees<'_>,
) -> SyntaxOutcome {
    let lang = LanguageId::from_path(path);
    if mode == SyntaxMode::Off {
        return SyntaxOutcome::unchecked(mode, lang, "syntaxValidate is off");
    }
    let Some(lang) = lang else {
        return SyntaxOutcome::unchecked(mode, None, "no syntax checker for this file type");
    };
    let limits = ParseLimits::DEFAULT;
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let store = trees.and_then(|memo| Some((memo.store?, memo.key)));
    // The old bytes' key in the store, hashed once.
    let old_key = store.and(before).map(|doc| ContentKey::of(doc.as_bytes()));
    // The old file: its tree kept by the session for exactly these bytes, else its census
    // stored for exactly these bytes, else parsed now.
    let old = before.and_then(|doc| {
        let cached = trees.and_then(|memo| memo.trees.get(memo.key, lang, doc.as_bytes()));
        if let Some(tree) = cached {
            return Some((doc, Old::Tree(tree, false)));
        }
        if let (Some((store, key)), Some(content)) = (store, old_key)
            && let Some(census) = store.load_census(key, name, content)
            && fits(&census, doc)
        {
            return Some((doc, Old::Census(census)));
        }
        let parsed = parse_document(lang, doc, limits).ok()?;
        let census = census(&parsed.tree, doc, parsed.text_start);
        Some((doc, Old::Tree(CachedTree { parsed, census }, true)))
    });
    // The change as tree edits of the old tree, when there is one.
    let edits = match &old {
        Some((doc, Old::Tree(..))) => Some(TextEdits::between(doc, after, kept_lines(doc, &new_line_of))),
        _ => None,
    };
    if let (Some((doc, Old::Tree(tree, false))), Some(memo), Some(edits)) = (&old, trees, &edits)
        && proven_from_region(tree, doc, after, edits, memo, limits)
    {
        if let Some((store, key)) = store {
            let old = old.as_ref().zip(old_key).map(|((_, old), content)| (old, content));
            remember(store, key, name, old, false, after, None, &Census::default());
        }
        return outcome(mode, lang, &[]);
    }
    let new_parse = match (&old, &edits) {
        // From the kept tree: incremental when clean, else fresh (`reparse_to_keep`).
        (Some((_, Old::Tree(tree, _))), Some(edits)) => reparse_to_keep(&tree.parsed, after, edits, limits),
        // Only the old census, or the old file could not be parsed (then every problem of
        // the new one is new): the new file is parsed afresh.
        _ => parse_document(lang, after, limits).map(|parsed| (parsed, true)),
    };
    let (new_parse, fresh) = match new_parse {
        Ok(parsed) => parsed,
        Err(err) => return SyntaxOutcome::unchecked(mode, Some(lang), format!("not parsed: {err}")),
    };
    let new_census = census(&new_parse.tree, after, new_parse.text_start);
    let new = introduced(old.as_ref().map_or(&Census::default(), |(_, old)| old.census()), &new_census, &new_line_of);
    let refused = mode == SyntaxMode::Block && !new.is_empty();
    if let Some((store, key)) = store {
        let old = old.as_ref().zip(old_key).map(|((_, old), content)| (old, content));
        remember(store, key, name, old, refused, after, Some((&new_parse, fresh)), &new_census);
    }
    if let Some(memo) = trees {
        match old {
            Some((doc, Old::Tree(tree, true))) if refused => memo.trees.put(memo.key, doc.as_bytes(), tree),
            _ if refused => {}
            _ => memo.trees.put(memo.key, after.as_bytes(), CachedTree { parsed: new_parse, census: new_census }),
        }
    }
    outcome(mode, lang, &new)
}

/// The outcome of a check that ran: `new` is what the change introduced.
fn outcome(mode: SyntaxMode, lang: LanguageId, new: &[hashline_syntax::SyntaxIssue]) -> SyntaxOutcome {
    SyntaxOutcome {
        mode,
        checked: true,
        language: Some(lang.name().to_owned()),
        reason: None,
        new_problems: new
            .iter()
            .map(|issue| SyntaxProblem {
                kind: match issue.kind {
                    IssueKind::Error => ProblemKind::Error,
                    IssueKind::Missing => ProblemKind::Missing,
                },
                start_line: issue.lines.start.get(),
                end_line: issue.lines.end.get(),
            })
            .collect(),
    }
}

/// Whether `after` is proven clean from the changed region of `before`'s clean tree, kept
/// by the session (`hashline_syntax::proven_clean`, for the grammars it answers for). Then
/// the tree of `after` is reparsed on the parser thread for the next edit (here, when that
/// thread is busy), and kept.
fn proven_from_region(
    tree: &CachedTree,
    before: &Document,
    after: &Document,
    edits: &TextEdits,
    memo: Memo<'_>,
    limits: ParseLimits,
) -> bool {
    if !proven_clean(&tree.parsed, before, after, edits, limits) {
        return false;
    }
    if !memo.trees.follow(memo.key, tree.clone(), after.as_bytes().to_vec(), edits.clone())
        && let Ok(parsed) = reparse_edits(&tree.parsed, after, edits, limits)
        && !parsed.tree.root_node().has_error()
    {
        memo.trees.put(memo.key, after.as_bytes(), CachedTree { parsed, census: Census::default() });
    }
    true
}

/// Whether a stored census can be of `doc`: every issue on its lines (the store's key
/// already names the bytes; this guards against a census of another line model).
fn fits(census: &Census, doc: &Document) -> bool {
    let lines = doc.line_count().max(1);
    census.issues.iter().all(|issue| (issue.lines.end.get() as usize) <= lines)
}

/// Keeps in the store what the next process may reuse: the old file's census when it was
/// parsed here (first, so that the newer version is the one written last), and, unless the
/// change is refused, the new file's census — and its map when the store held the old
/// version's map (the file's map is in use: a read or a symbol call built it), so that the
/// next read of the map does not parse again. Failures are ignored: the value is built again
/// next time.
#[allow(clippy::too_many_arguments)]
fn remember(
    store: &MapStore,
    key: &Path,
    name: &str,
    old: Option<(&Old, ContentKey)>,
    refused: bool,
    after: &Document,
    new_parse: Option<(&hashline_syntax::Parsed, bool)>,
    new_census: &Census,
) {
    if let Some((Old::Tree(tree, true), content)) = old {
        let _ = store.store_census(key, name, content, &tree.census);
    }
    if refused {
        return;
    }
    let content = ContentKey::of(after.as_bytes());
    let _ = store.store_census(key, name, content, new_census);
    // The map a read would build: from a fresh tree, or an incremental one without errors
    // (error recovery may shape an ERROR node's insides differently when it reuses subtrees).
    // (Without a tree of the new file, none is built: the next read builds it.)
    let Some((new_parse, fresh)) = new_parse else { return };
    let in_use = old.is_some_and(|(_, content)| store.has_map(key, name, content));
    if in_use && (fresh || !new_parse.tree.root_node().has_error()) {
        let map = hashline_symbols::map_parsed(new_parse, after);
        let _ = store.store(key, name, content, &map);
    }
}

/// The (old, new) pairs of the lines a change kept that begin or end a run of kept lines
/// (a line whose neighbour above or below was not kept beside it), in the old file's
/// order: the tree edits lie between runs, and the reparse compares the bytes of each run
/// whole instead of line by line.
fn kept_lines<'a>(
    before: &Document,
    new_line_of: &'a impl Fn(LineNo) -> Option<LineNo>,
) -> impl Iterator<Item = (LineNo, LineNo)> + 'a {
    let lines = before.line_count();
    let beside = move |old: usize, new: LineNo, step: isize| {
        let (Some(old), Some(new)) = (old.checked_add_signed(step), new.index().checked_add_signed(step)) else {
            return false;
        };
        old < lines && new_line_of(LineNo::from_index(old)) == Some(LineNo::from_index(new))
    };
    (0..lines).filter_map(move |old| {
        let new = new_line_of(LineNo::from_index(old))?;
        (!beside(old, new, -1) || !beside(old, new, 1)).then_some((LineNo::from_index(old), new))
    })
}

/// What the outcome means for the change: in `block` mode a regression is the
/// `syntax-regression` error (nothing is written); in `warn` mode it is a warning.
pub fn judge(outcome: &SyntaxOutcome, display: &str, after: &Document) -> Result<Option<Warning>, ToolError> {
    let Some(message) = outcome.regression_message() else { return Ok(None) };
    let language = outcome.language.as_deref().and_then(LanguageId::from_name).map_or("", LanguageId::display_name);
    if outcome.mode == SyntaxMode::Block {
        let shown = problem_lines(outcome, after);
        return Err(ToolError::new(
            ErrorCode::SyntaxRegression,
            format!(
                "Edit rejected — nothing was written. {message} — the change would add {language} syntax errors to {display} (errors the file already had are not counted). The rejected text there:\n{shown}"
            ),
        )
        .with_hint("Fix the new text and retry, or pass syntaxValidate: \"warn\" to write it anyway."));
    }
    Ok(Some(Warning::new(
        WarningCode::SyntaxRegression,
        format!(
            "{message} — the change added {language} syntax errors (it was written; errors the file already had are not counted)"
        ),
    )))
}

/// At most this many lines of the rejected result are shown.
const MAX_SHOWN: usize = 12;

/// The lines of the rejected result that hold the new problems, as `LINE| text` (no
/// anchors: the text is not on disk).
fn problem_lines(outcome: &SyntaxOutcome, after: &Document) -> String {
    let mut numbers: Vec<u32> = outcome.new_problems.iter().flat_map(|p| p.start_line..=p.end_line).collect();
    numbers.sort_unstable();
    numbers.dedup();
    let mut rows: Vec<String> = numbers
        .iter()
        .take(MAX_SHOWN)
        .filter_map(|&n| after.line(LineNo::new(n)?))
        .map(|l| format!("{}| {}", l.number, String::from_utf8_lossy(l.content)))
        .collect();
    if numbers.len() > MAX_SHOWN {
        rows.push(format!("… {} more lines", numbers.len() - MAX_SHOWN));
    }
    rows.join("\n")
}

/// `new_line_of` for a line diff: lines outside the changes move by the net size of the
/// changes before them (found by binary search: a check asks for every line).
pub fn line_map_of(changes: &[crate::diff::Change]) -> impl Fn(LineNo) -> Option<LineNo> + '_ {
    // The net shift of the lines after each change.
    let shifts: Vec<i64> = changes
        .iter()
        .scan(0i64, |shift, (before, after)| {
            *shift += i64::from(after.end - after.start) - i64::from(before.end - before.start);
            Some(*shift)
        })
        .collect();
    move |old: LineNo| {
        let index = old.index() as u32;
        let passed = changes.partition_point(|(before, _)| before.end <= index);
        if changes.get(passed).is_some_and(|(before, _)| before.start <= index) {
            return None;
        }
        let shift = passed.checked_sub(1).map_or(0, |last| shifts[last]);
        LineNo::new(u32::try_from(i64::from(old.get()) + shift).ok()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A C file of `n` functions, function `changed` returning `body`.
    fn c_file(n: usize, changed: usize, body: &str) -> Document {
        let text: String = (0..n)
            .map(|i| match i == changed {
                true => format!("int f{i}(int x)\n{{\n    return {body};\n}}\n\n"),
                false => format!("int f{i}(int x)\n{{\n    return x + {i};\n}}\n\n"),
            })
            .collect();
        Document::parse(text.into_bytes())
    }

    #[test]
    fn a_clean_c_edit_is_judged_from_its_region_and_its_tree_is_reparsed_on_the_parser_thread() {
        // The parser thread is held busy, so that the reparse is seen queued.
        let (release, hold) = std::sync::mpsc::channel::<()>();
        assert!(crate::tree_cache::submit(Box::new(move || {
            let _ = hold.recv();
        })));
        let trees = TreeCache::default();
        let key = Path::new("/r/a.c");
        let before = c_file(40, 20, "x + 20");
        let parsed = parse_document(LanguageId::C, &before, ParseLimits::DEFAULT).unwrap();
        let found = census(&parsed.tree, &before, parsed.text_start);
        trees.put(key, before.as_bytes(), CachedTree { parsed, census: found });
        let memo = Some(Memo { trees: &trees, key, store: None });
        let same = |old: LineNo| Some(old).filter(|l| l.get() != 103);
        let after = c_file(40, 20, "x * 2");
        let outcome = check(SyntaxMode::Warn, "a.c", Some(&before), &after, same, memo);
        assert!(outcome.checked && outcome.new_problems.is_empty(), "{outcome:?}");
        assert_eq!(trees.parsing(), 1, "judged without a parse of the file; its tree is queued");
        // With the parser thread's queue full, the next file's tree is reparsed in the call.
        assert!(trees.prefetch(Path::new("/r/other.c"), LanguageId::C, before.as_bytes().to_vec()));
        let key_b = Path::new("/r/b.c");
        let parsed = parse_document(LanguageId::C, &before, ParseLimits::DEFAULT).unwrap();
        let found = census(&parsed.tree, &before, parsed.text_start);
        trees.put(key_b, before.as_bytes(), CachedTree { parsed, census: found });
        let memo_b = Some(Memo { trees: &trees, key: key_b, store: None });
        let outcome = check(SyntaxMode::Warn, "b.c", Some(&before), &after, same, memo_b);
        assert!(outcome.checked && outcome.new_problems.is_empty(), "{outcome:?}");
        assert_eq!(trees.parsing(), 2, "nothing more queued");
        assert!(trees.get(key_b, LanguageId::C, after.as_bytes()).is_some(), "kept at once");
        release.send(()).expect("the holding job waits");
        let tree = trees.get(key, LanguageId::C, after.as_bytes()).expect("the queued reparse is waited for");
        let fresh = parse_document(LanguageId::C, &after, ParseLimits::DEFAULT).unwrap();
        assert_eq!(tree.parsed.tree.root_node().to_sexp(), fresh.tree.root_node().to_sexp());
        while trees.parsing() > 0 {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        // From that tree, a change that breaks the file is not proven clean: the file is
        // reparsed here and the problem found where a fresh parse finds it.
        let broken = c_file(40, 20, "x *");
        let outcome = check(SyntaxMode::Warn, "a.c", Some(&after), &broken, same, memo);
        assert_eq!(outcome.regression_message().as_deref(), Some("syntax-regression: lines 103"));
        assert_eq!(trees.parsing(), 0);
    }

    #[test]
    fn the_kept_lines_hint_names_only_the_ends_of_kept_runs() {
        // Ten lines: 5 replaced, two lines inserted after 8 (old 9-10 move down by two).
        let before = Document::parse((1..=10).map(|n| format!("{n}\n")).collect::<String>().into_bytes());
        let map = |old: LineNo| match old.get() {
            5 => None,
            n if n >= 9 => LineNo::new(n + 2),
            n => Some(old).filter(|_| n > 0),
        };
        let pairs: Vec<(u32, u32)> = kept_lines(&before, &map).map(|(o, n)| (o.get(), n.get())).collect();
        assert_eq!(pairs, vec![(1, 1), (4, 4), (6, 6), (8, 8), (9, 11), (10, 12)]);
    }

    #[test]
    fn the_line_map_of_a_diff_follows_every_kind_of_change() {
        // Old 0-1 kept, 2-3 replaced by three lines, 4 kept, two lines inserted before
        // old 5, 5-6 kept, 7 deleted, 8 kept.
        let changes = vec![(2..4, 2..5), (5..5, 6..8), (7..8, 10..10)];
        let map = line_map_of(&changes);
        let got: Vec<Option<u32>> = (1..=9).map(|n| map(LineNo::new(n).unwrap()).map(LineNo::get)).collect();
        assert_eq!(got, vec![Some(1), Some(2), None, None, Some(6), Some(9), Some(10), None, Some(11)]);
        let none: Vec<crate::diff::Change> = Vec::new();
        assert_eq!(line_map_of(&none)(LineNo::new(7).unwrap()), LineNo::new(7));
    }
}
