//! The shared vocabulary of the view union: call kinds, locations, diffs, lines and content
//! blocks.

use serde::{Deserialize, Serialize};

/// The icon and treatment category of a tool call (ACP `ToolKind` minus `think`/`switch_mode`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum ToolCallKind {
    /// Reads a file or other resource.
    Read,
    /// Changes a file.
    Edit,
    /// Deletes a file.
    Delete,
    /// Moves or renames a file.
    Move,
    /// Searches for files or text.
    Search,
    /// Runs a command.
    Execute,
    /// Fetches remote content.
    Fetch,
    /// Anything else (the default).
    #[default]
    Other,
}

/// A follow-along location: a file the call operates on, optionally with a focus line.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FileLocation {
    /// The model-facing path the tool operated on.
    pub path: String,
    /// The 1-based focus line (for example a read's offset).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

impl FileLocation {
    /// A location without a focus line.
    pub fn new(path: impl Into<String>) -> Self {
        Self { path: path.into(), line: None }
    }

    /// A location focused on the 1-based `line`.
    pub fn at(path: impl Into<String>, line: u32) -> Self {
        Self { path: path.into(), line: Some(line) }
    }
}

/// One file change or hunk.
///
/// `oldText` is always serialized: `null` means a new file, an overwrite seen at call time (no
/// prior content), or a pure insertion hunk.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct FileDiff {
    /// The path of the changed file.
    pub path: String,
    /// The old side of the hunk, or `None` when there is no old side.
    #[cfg_attr(feature = "schema", schemars(required))]
    pub old_text: Option<String>,
    /// The new side of the hunk.
    pub new_text: String,
    /// The 1-based line where the hunk starts in the old file (0 when the old side is empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_start: Option<u32>,
    /// The 1-based line where the hunk starts in the new file (0 when the new side is empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_start: Option<u32>,
}

impl FileDiff {
    /// A whole-file diff without start lines: `old_text` becomes `new_text`.
    pub fn whole_file(path: impl Into<String>, old_text: Option<String>, new_text: impl Into<String>) -> Self {
        Self { path: path.into(), old_text, new_text: new_text.into(), old_start: None, new_start: None }
    }
}

/// One numbered line of a file window.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ReadFileLine {
    /// The file's own 1-based line number (a window keeps the file's numbering).
    pub number: u32,
    /// The line's text, without its terminator.
    pub text: String,
    /// The line's anchor hash: 3 lowercase hex digits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
}

/// A content block as the model sees it, tagged by `type`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "type", rename_all = "lowercase", rename_all_fields = "camelCase")]
pub enum ContentBlock {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// An image.
    Image {
        /// The image bytes, base64-encoded.
        data: String,
        /// The image's MIME type, e.g. `image/png`.
        mime_type: String,
    },
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text { text: text.into() }
    }

    /// The text of a text block, `None` for any other block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Self::Text { text } => Some(text),
            Self::Image { .. } => None,
        }
    }
}
