//! The completed-state views: what a UI shows once a call has returned.

use serde::{Deserialize, Serialize};

use crate::{ContentBlock, FileDiff, ReadFileLine};

/// The view of a completed tool call, tagged by `card`.
///
/// The union is closed: a new card is a new variant that every `match` must consider. A title,
/// when present, replaces the pending one; an absent view means "render the raw content".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "card", rename_all = "lowercase")]
pub enum ToolResultView {
    /// Optional title and content.
    Generic(GenericResultView),
    /// A finished command with its output and exit status.
    Terminal(TerminalResultView),
    /// The applied changes.
    Diff(DiffResultView),
    /// Search hits: matching lines or matching paths.
    Search(SearchResultView),
    /// A numbered window of a file.
    Read(ReadResultView),
}

/// `card: "generic"`: an optional title and content.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct GenericResultView {
    /// Replaces the pending title; omitted keeps it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The content to show; omitted renders the raw result content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Vec<ContentBlock>>,
}

/// `card: "terminal"`: a finished command.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TerminalResultView {
    /// Replaces the pending title; omitted keeps it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The captured stdout and stderr.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// The exit code, present only when the process exited normally.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The signal name (e.g. `SIGTERM`) that ended the process; exclusive with `exit_code`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<String>,
}

/// `card: "diff"`: the applied changes, hunk by hunk in file order, or a whole-file diff when
/// there is no before-image.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct DiffResultView {
    /// Replaces the pending title; omitted keeps it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The applied hunks.
    pub diffs: Vec<FileDiff>,
}

/// `card: "search"`: search hits, told apart by `shape`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "shape", rename_all = "lowercase")]
pub enum SearchResultView {
    /// Matching lines grouped by file.
    Matches(SearchMatchesResultView),
    /// Matching paths.
    Paths(SearchPathsResultView),
}

/// `shape: "matches"`: matching lines grouped by file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SearchMatchesResultView {
    /// Replaces the pending title; omitted keeps it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The files with matches, in result order.
    pub files: Vec<SearchFileMatches>,
    /// Whether matches were left out.
    pub truncated: bool,
    /// The total number of matches found.
    pub total: u64,
}

/// `shape: "paths"`: matching paths.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SearchPathsResultView {
    /// Replaces the pending title; omitted keeps it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The paths, in result order.
    pub paths: Vec<String>,
    /// Whether paths were left out.
    pub truncated: bool,
    /// The total number of paths found.
    pub total: u64,
}

/// The matches in one file.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SearchFileMatches {
    /// The file's path.
    pub path: String,
    /// The matching lines, in file order.
    pub matches: Vec<SearchLineMatch>,
}

/// One matching line.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SearchLineMatch {
    /// The 1-based line number.
    pub line_number: u32,
    /// The line's text.
    pub line: String,
}

/// `card: "read"`: a numbered window of a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ReadResultView {
    /// Replaces the pending title; omitted keeps it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The path the read tool reported (absolute; a bridge may relativize it).
    pub path: String,
    /// The 1-based first line the window requested, kept even when `lines` is empty.
    pub offset: u32,
    /// The window's lines, in file order.
    pub lines: Vec<ReadFileLine>,
    /// The exact line count of the file.
    pub total_lines: u32,
    /// A syntax hint (see [`lang_from_path`](crate::lang_from_path)); omitted means plain text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lang: Option<String>,
    /// The model-facing text, for a UI without the read card.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Vec<ContentBlock>>,
}

impl From<GenericResultView> for ToolResultView {
    fn from(view: GenericResultView) -> Self {
        Self::Generic(view)
    }
}

impl From<TerminalResultView> for ToolResultView {
    fn from(view: TerminalResultView) -> Self {
        Self::Terminal(view)
    }
}

impl From<DiffResultView> for ToolResultView {
    fn from(view: DiffResultView) -> Self {
        Self::Diff(view)
    }
}

impl From<SearchResultView> for ToolResultView {
    fn from(view: SearchResultView) -> Self {
        Self::Search(view)
    }
}

impl From<SearchMatchesResultView> for ToolResultView {
    fn from(view: SearchMatchesResultView) -> Self {
        Self::Search(SearchResultView::Matches(view))
    }
}

impl From<SearchPathsResultView> for ToolResultView {
    fn from(view: SearchPathsResultView) -> Self {
        Self::Search(SearchResultView::Paths(view))
    }
}

impl From<ReadResultView> for ToolResultView {
    fn from(view: ReadResultView) -> Self {
        Self::Read(view)
    }
}
