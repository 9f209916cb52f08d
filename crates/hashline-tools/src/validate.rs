//! Syntax validation of a change (SPEC §5.4, `syntaxValidate`): the new file's syntax
//! problems that the change introduced, as a warning (`warn`) or a refusal (`block`).

use hashline_core::{Document, LineNo};
use hashline_syntax::{
    IssueKind, LanguageId, LineSpan, ParseLimits, census, introduced, line_list, parse_document, reparse,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::{ErrorCode, ToolError};
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

/// Checks `after` (the file `path` will hold) against `before` (what it holds now, if
/// anything), following old lines to new ones with `new_line_of`.
pub fn check(
    mode: SyntaxMode,
    path: &str,
    before: Option<&Document>,
    after: &Document,
    new_line_of: impl Fn(LineNo) -> Option<LineNo>,
) -> SyntaxOutcome {
    let lang = LanguageId::from_path(path);
    if mode == SyntaxMode::Off {
        return SyntaxOutcome::unchecked(mode, lang, "syntaxValidate is off");
    }
    let Some(lang) = lang else {
        return SyntaxOutcome::unchecked(mode, None, "no syntax checker for this file type");
    };
    let limits = ParseLimits::DEFAULT;
    let (old_census, new_parse) = match before.map(|doc| (doc, parse_document(lang, doc, limits))) {
        Some((doc, Ok(old))) => {
            let old_census = census(&old.tree, doc, old.text_start);
            (old_census, reparse(&old, doc, after, limits))
        }
        // The old file could not be parsed: every problem of the new one is new.
        Some((_, Err(_))) | None => (hashline_syntax::Census::default(), parse_document(lang, after, limits)),
    };
    let new_parse = match new_parse {
        Ok(parsed) => parsed,
        Err(err) => return SyntaxOutcome::unchecked(mode, Some(lang), format!("not parsed: {err}")),
    };
    let new_census = census(&new_parse.tree, after, new_parse.text_start);
    let new = introduced(&old_census, &new_census, new_line_of);
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

/// `new_line_of` for a line diff: lines outside the changes move by the changes' net size.
pub fn line_map_of(changes: &[crate::diff::Change]) -> impl Fn(LineNo) -> Option<LineNo> + '_ {
    move |old: LineNo| {
        let index = old.index() as u32;
        let mut shift: i64 = 0;
        for (before, after) in changes {
            if index < before.start {
                break;
            }
            if index < before.end {
                return None;
            }
            shift += i64::from(after.end - after.start) - i64::from(before.end - before.start);
        }
        LineNo::new(u32::try_from(i64::from(old.get()) + shift).ok()?)
    }
}
