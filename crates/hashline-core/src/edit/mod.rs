//! The edit engine (SPEC §3, §5.4): pure, no I/O. It takes a [`Document`](crate::Document) and a batch of
//! [`EditOp`]s, validates every anchor and every rule before changing anything, applies
//! the batch in one pass over the original lines, and returns the new document, the
//! change map (old line → new line, for re-mapping anchors), and what happened.
//!
//! ```
//! use hashline_core::edit::{apply, EditOp, EditOptions};
//! use hashline_core::{parse_anchor, Document};
//!
//! let doc = Document::parse(b"alpha\r\nbeta\r\ngamma\r\n".to_vec());
//! let ops = vec![EditOp::SetLine {
//!     anchor: parse_anchor("2:589").unwrap(),
//!     new_text: "BETA\nbeta two".into(),
//!     literal: false,
//! }];
//! let outcome = apply(&doc, &ops, &EditOptions::default()).unwrap();
//! assert_eq!(outcome.document.as_bytes(), b"alpha\r\nBETA\r\nbeta two\r\ngamma\r\n");
//! assert_eq!(outcome.changes.new_line_of(hashline_core::LineNo::new(3).unwrap()).map(|l| l.get()), Some(4));
//! ```

mod apply;
mod changes;
mod error;
mod feedback;
mod newtext;
mod plan;
mod relocate;
mod replace;

pub use apply::{Aim, EditOutcome, Relocation, apply};
pub use changes::ChangeMap;
pub use error::{EditError, Mismatch, REJECTED};
pub use feedback::marked_rows;
pub use newtext::{split_new_text, strip_echoed_anchors, strip_echoed_anchors_with};

use crate::AnchorRef;

/// One edit of a batch. Anchors are as parsed; the engine resolves and verifies them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EditOp {
    /// Replace one line with `new_text` (`""` deletes it, `"\n"` makes it empty).
    SetLine {
        /// The line.
        anchor: AnchorRef,
        /// The replacement lines.
        new_text: String,
        /// Keep `new_text` verbatim (no echoed-anchor cleanup).
        literal: bool,
    },
    /// Replace the inclusive range `start..=end` with `new_text`.
    ReplaceLines {
        /// First line.
        start: AnchorRef,
        /// Last line.
        end: AnchorRef,
        /// The replacement lines.
        new_text: String,
        /// Keep `new_text` verbatim.
        literal: bool,
    },
    /// Insert `new_text` after a line.
    InsertAfter {
        /// The line to insert after.
        anchor: AnchorRef,
        /// The lines to insert.
        new_text: String,
        /// Keep `new_text` verbatim.
        literal: bool,
    },
    /// Replace exact text (after the anchored edits of the batch).
    Replace {
        /// The text to find; must occur exactly once unless `all`.
        old_text: String,
        /// Its replacement.
        new_text: String,
        /// Replace every occurrence.
        all: bool,
        /// When the exact text is absent, match ignoring trailing whitespace, quote and
        /// dash styles and Unicode spaces.
        fuzzy: bool,
    },
    /// Copy the range `start..=end` (of this document, or of `source` when given)
    /// after `after`.
    CopyLines {
        /// First line to copy.
        start: AnchorRef,
        /// Last line to copy.
        end: AnchorRef,
        /// The line to insert after.
        after: AnchorRef,
        /// Another document to copy from (cross-file copy), already read by the caller.
        source: Option<std::sync::Arc<crate::Document>>,
    },
    /// Move the range `start..=end` after `after` (in this document: copy + delete; with
    /// `source`, only the insertion happens here — the caller deletes from the source).
    MoveLines {
        /// First line to move.
        start: AnchorRef,
        /// Last line to move.
        end: AnchorRef,
        /// The line to insert after.
        after: AnchorRef,
        /// The document the lines come from, when it is another file.
        source: Option<std::sync::Arc<crate::Document>>,
    },
}

impl EditOp {
    /// The op's name as edit items spell it (`set_line`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            EditOp::SetLine { .. } => "set_line",
            EditOp::ReplaceLines { .. } => "replace_lines",
            EditOp::InsertAfter { .. } => "insert_after",
            EditOp::Replace { .. } => "replace",
            EditOp::CopyLines { .. } => "copy_lines",
            EditOp::MoveLines { .. } => "move_lines",
        }
    }
}

/// Engine settings.
#[derive(Clone, Copy, Default)]
pub struct EditOptions<'a> {
    /// Disable exact-hash relocation of stale anchors.
    pub no_relocation: bool,
    /// What the caller knows about the anchors it handed out: which current line was
    /// shown to the model as a given `LINE:HASH` (a session tracks rows through its own
    /// edits). Consulted before the hash check at the stated line.
    pub resolver: Option<&'a dyn Fn(crate::Anchor) -> Resolution>,
}

impl std::fmt::Debug for EditOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EditOptions")
            .field("no_relocation", &self.no_relocation)
            .field("resolver", &self.resolver.is_some())
            .finish()
    }
}

/// Which current line an anchor names, by what the model was shown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolution {
    /// The model was never shown this `LINE:HASH` (as far as the caller knows).
    Unknown,
    /// Exactly this current line was shown as `LINE:HASH`.
    Known(crate::LineNo),
    /// Several current lines were shown as `LINE:HASH` (lines moved in between).
    Ambiguous(Vec<crate::LineNo>),
}

/// The relocation window for a batch of `edits` edits: ±min(max(20, 5×edits), 100).
///
/// ```
/// assert_eq!(hashline_core::edit::relocation_window(1), 20);
/// assert_eq!(hashline_core::edit::relocation_window(5), 25);
/// assert_eq!(hashline_core::edit::relocation_window(50), 100);
/// ```
pub fn relocation_window(edits: usize) -> usize {
    edits.saturating_mul(5).clamp(20, 100)
}
