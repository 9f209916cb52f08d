//! Why a batch was refused: a code, a message a model can act on, and the rows shown.

use crate::{Anchor, LineNo};

/// The first sentence of every refusal (SPEC §4.2).
pub const REJECTED: &str = "Edit rejected — nothing was written.";

/// One anchor whose hash no longer matches and could not be relocated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// Index of the edit in the batch.
    pub edit: usize,
    /// The anchor as given.
    pub expected: Anchor,
    /// The line's current anchor (when the line still exists).
    pub current: Option<Anchor>,
}

/// A refused batch. Nothing was changed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct EditError {
    /// The stable error code (`hash-mismatch`, `overlapping-edit`, ...).
    pub code: &'static str,
    /// The full message, fresh rows included where anchors are involved.
    pub message: String,
    /// Anchors that did not match (for `hash-mismatch`).
    pub mismatches: Vec<Mismatch>,
    /// Every line shown as a row in the message: they count as served.
    pub shown: Vec<LineNo>,
    /// The edit the error is about, when it is about one.
    pub edit: Option<usize>,
}

impl EditError {
    pub(crate) fn new(code: &'static str, edit: Option<usize>, message: impl Into<String>) -> Self {
        Self { code, message: message.into(), mismatches: Vec::new(), shown: Vec::new(), edit }
    }

    /// `invalid-anchor`.
    pub(crate) fn invalid_anchor(edit: usize, message: impl std::fmt::Display) -> Self {
        Self::new("invalid-anchor", Some(edit), format!("{REJECTED} edits[{edit}]: {message}"))
    }

    /// `invalid-edit-variant`.
    pub(crate) fn variant(edit: usize, message: impl std::fmt::Display) -> Self {
        Self::new("invalid-edit-variant", Some(edit), format!("{REJECTED} edits[{edit}]: {message}"))
    }

    /// `overlapping-edit`.
    pub(crate) fn overlap(message: impl std::fmt::Display) -> Self {
        Self::new(
            "overlapping-edit",
            None,
            format!(
                "{REJECTED} Overlapping anchored edits are not allowed: {message}. Keep dependent changes in separate calls."
            ),
        )
    }
}
