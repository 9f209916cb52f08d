//! The change map: where each original line went.

use crate::LineNo;

/// Maps original lines to their lines in the edited document. A line that was replaced
/// or deleted maps to nothing; an untouched line maps to where it moved.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChangeMap {
    /// Index = original 0-based line; value = new 0-based line.
    old_to_new: Vec<Option<u32>>,
}

impl ChangeMap {
    pub(crate) fn new(old_to_new: Vec<Option<u32>>) -> Self {
        Self { old_to_new }
    }

    /// The map of a document with `lines` lines whose lines `kept` (original, new; 0-based,
    /// both increasing) survived unchanged; every other line was replaced or deleted. A
    /// pair past `lines` is ignored.
    pub fn from_kept(lines: usize, kept: impl IntoIterator<Item = (u32, u32)>) -> Self {
        let mut old_to_new = vec![None; lines];
        for (old, new) in kept {
            if let Some(slot) = old_to_new.get_mut(old as usize) {
                *slot = Some(new);
            }
        }
        Self { old_to_new }
    }

    /// The identity map of a document with `lines` lines.
    pub fn identity(lines: usize) -> Self {
        Self { old_to_new: (0..lines as u32).map(Some).collect() }
    }

    /// Where original line `old` is now, if it survived unchanged.
    pub fn new_line_of(&self, old: LineNo) -> Option<LineNo> {
        self.old_to_new.get(old.index()).copied().flatten().map(|n| LineNo::from_index(n as usize))
    }

    /// `self` then `next`.
    pub fn then(&self, next: &ChangeMap) -> ChangeMap {
        ChangeMap {
            old_to_new: self
                .old_to_new
                .iter()
                .map(|mid| mid.and_then(|m| next.old_to_new.get(m as usize).copied().flatten()))
                .collect(),
        }
    }

    /// Number of original lines.
    pub fn len(&self) -> usize {
        self.old_to_new.len()
    }

    /// Whether the map is empty.
    pub fn is_empty(&self) -> bool {
        self.old_to_new.is_empty()
    }

    /// Pairs of (original, new) for every line that survived unchanged.
    pub fn kept(&self) -> impl Iterator<Item = (LineNo, LineNo)> + '_ {
        self.old_to_new
            .iter()
            .enumerate()
            .filter_map(|(old, new)| new.map(|n| (LineNo::from_index(old), LineNo::from_index(n as usize))))
    }
}
