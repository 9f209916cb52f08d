//! The pending-state views: what a UI shows while a call runs.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{ContentBlock, FileDiff, FileLocation, ToolCallKind};

/// The view of a pending tool call, tagged by `card`.
///
/// The union is closed: a new card is a new variant that every `match` must consider. A
/// result-only card (read, search) has no call-side variant; its pending state is a
/// [`GenericCallView`] with the matching [`ToolCallKind`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "card", rename_all = "lowercase")]
pub enum ToolCallView {
    /// A titled card with optional input, content and locations.
    Generic(GenericCallView),
    /// A command about to run.
    Terminal(TerminalCallView),
    /// A file change derived from the call's arguments.
    Diff(DiffCallView),
}

/// `card: "generic"`: a titled card for any call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct GenericCallView {
    /// A short, always visible label for the call.
    pub title: String,
    /// The icon and treatment category.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<ToolCallKind>,
    /// The salient input for the detail view: a string renders as is, anything else as JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_input: Option<Value>,
    /// UI-facing content shown with the pending call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Vec<ContentBlock>>,
    /// The files the call touches; omitted when it touches none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locations: Option<Vec<FileLocation>>,
}

impl GenericCallView {
    /// A generic view with only a title.
    pub fn new(title: impl Into<String>) -> Self {
        Self { title: title.into(), kind: None, raw_input: None, content: None, locations: None }
    }
}

/// `card: "terminal"`: a command about to run. Display only; a UI never executes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TerminalCallView {
    /// The command; it is the card header.
    pub title: String,
    /// A one-line summary rendered above the card.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The working directory; relative values resolve against the session workspace, and an
    /// omitted one means the workspace itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
}

/// `card: "diff"`: the change a call is about to make, derived from its arguments only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct DiffCallView {
    /// The card title, e.g. `Write foo.txt`.
    pub title: String,
    /// The argument-derived changes, one per file.
    pub diffs: Vec<FileDiff>,
    /// The files the call touches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locations: Option<Vec<FileLocation>>,
}

impl From<GenericCallView> for ToolCallView {
    fn from(view: GenericCallView) -> Self {
        Self::Generic(view)
    }
}

impl From<TerminalCallView> for ToolCallView {
    fn from(view: TerminalCallView) -> Self {
        Self::Terminal(view)
    }
}

impl From<DiffCallView> for ToolCallView {
    fn from(view: DiffCallView) -> Self {
        Self::Diff(view)
    }
}
