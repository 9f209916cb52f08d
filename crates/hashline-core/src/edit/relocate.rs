//! Verifying anchors against the document, with exact-hash relocation.

use crate::{Anchor, AnchorRef, Document, LineNo};

use super::error::{EditError, Mismatch};

/// The outcome of checking one anchor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Check {
    /// The hash matches at the stated line.
    Exact(LineNo),
    /// The hash matches exactly one line within the window, elsewhere.
    Relocated(LineNo),
    /// No unique match.
    Stale,
}

impl Check {
    pub(crate) fn line(self) -> Option<LineNo> {
        match self {
            Check::Exact(l) | Check::Relocated(l) => Some(l),
            Check::Stale => None,
        }
    }
}

/// Resolves a parsed anchor to a concrete one (bare hashes must be unique).
pub(crate) fn concrete(doc: &Document, edit: usize, anchor: &AnchorRef) -> Result<Anchor, EditError> {
    anchor.resolve(doc).map_err(|err| EditError::invalid_anchor(edit, err))
}

/// Checks `anchor` against `doc`, relocating within `window` lines when allowed.
pub(crate) fn check(doc: &Document, anchor: Anchor, window: usize, relocate: bool) -> Check {
    if doc.line(anchor.line).is_some_and(|l| l.hash() == anchor.hash) {
        return Check::Exact(anchor.line);
    }
    if !relocate {
        return Check::Stale;
    }
    let center = anchor.line.index();
    let low = center.saturating_sub(window);
    let high = center.saturating_add(window).min(doc.line_count().saturating_sub(1));
    let mut found = None;
    for line in doc.lines().skip(low).take((high + 1).saturating_sub(low)) {
        if line.hash() == anchor.hash {
            if found.is_some() {
                return Check::Stale;
            }
            found = Some(line.number);
        }
    }
    found.map_or(Check::Stale, Check::Relocated)
}

/// The mismatch record for an anchor that failed.
pub(crate) fn mismatch(doc: &Document, edit: usize, expected: Anchor) -> Mismatch {
    let current = doc.line(expected.line).map(|l| Anchor::new(l.number, l.hash()));
    Mismatch { edit, expected, current }
}
