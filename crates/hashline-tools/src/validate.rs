//! Syntax validation of a change (SPEC §5.4, `syntaxValidate`): the new file's syntax
//! problems that the change introduced, as a warning (`warn`) or a refusal (`block`).

use std::path::Path;

use hashline_core::{Document, LineNo};
use hashline_syntax::{
    Census, IssueKind, LanguageId, LineSpan, ParseLimits, census, introduced, line_list, parse_document, reparse,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::{ErrorCode, ToolError};
use crate::tree_cache::{CachedTree, TreeCache};
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

/// The session's trees to reuse and keep for one file: the cache and the file's key.
pub type Trees<'a> = Option<(&'a TreeCache, &'a Path)>;

/// Checks `after` (the file `path` will hold) against `before` (what it holds now, if
/// anything), following old lines to new ones with `new_line_of`.
///
/// With `trees`, the tree of `before` comes from the cache when the cache holds one for
/// exactly those bytes (else `before` is parsed), `after` is parsed incrementally from it,
/// and the cache then keeps the tree of what the file will hold: `after`, or `before` when
/// `block` refuses the change.
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
    // The old file's tree: kept by the session for exactly these bytes, or parsed now.
    let old = before.and_then(|doc| {
        let cached = trees.and_then(|(cache, key)| cache.get(key, lang, doc.as_bytes()));
        let tree = cached.map(|tree| (tree, true)).or_else(|| {
            let parsed = parse_document(lang, doc, limits).ok()?;
            let census = census(&parsed.tree, doc, parsed.text_start);
            Some((CachedTree { parsed, census }, false))
        });
        tree.map(|(tree, was_cached)| (doc, tree, was_cached))
    });
    let new_parse = match &old {
        Some((doc, tree, _)) => reparse(&tree.parsed, doc, after, kept_lines(doc, &new_line_of), limits),
        // The old file could not be parsed: every problem of the new one is new.
        None => parse_document(lang, after, limits),
    };
    let new_parse = match new_parse {
        Ok(parsed) => parsed,
        Err(err) => return SyntaxOutcome::unchecked(mode, Some(lang), format!("not parsed: {err}")),
    };
    let new_census = census(&new_parse.tree, after, new_parse.text_start);
    let new =
        introduced(old.as_ref().map_or(&Census::default(), |(_, tree, _)| &tree.census), &new_census, &new_line_of);
    if let Some((cache, key)) = trees {
        match old {
            Some((doc, tree, false)) if mode == SyntaxMode::Block && !new.is_empty() => {
                cache.put(key, doc.as_bytes(), tree);
            }
            _ if mode == SyntaxMode::Block && !new.is_empty() => {}
            _ => cache.put(key, after.as_bytes(), CachedTree { parsed: new_parse, census: new_census }),
        }
    }
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

/// The (old, new) pairs of the lines a change kept, in the old file's order.
fn kept_lines<'a>(
    before: &Document,
    new_line_of: &'a impl Fn(LineNo) -> Option<LineNo>,
) -> impl Iterator<Item = (LineNo, LineNo)> + 'a {
    (0..before.line_count()).map(LineNo::from_index).filter_map(|old| new_line_of(old).map(|new| (old, new)))
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
