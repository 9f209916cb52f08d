//! The served-lines ledger: for each file, the hash of every row shown to the model.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use hashline_core::{LineHash, LineNo};
use serde::{Deserialize, Serialize};

/// Rows shown to the model for one file: line number → hash.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServedRows {
    /// Line number → hash value (`0..4096`).
    rows: BTreeMap<u32, u16>,
}

impl ServedRows {
    /// The hash shown at a line, if that line was shown.
    pub fn hash_at(&self, line: LineNo) -> Option<LineHash> {
        self.rows.get(&line.get()).and_then(|h| LineHash::from_value(*h))
    }

    /// Number of rows recorded.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether no row is recorded.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

/// Per-file served rows, keyed by the file's resolved (symlink-free) path.
///
/// A row counts as served when a tool showed it: a read, a write, grep and structural
/// search results, and rows in error feedback. A complete view of a file replaces what
/// was recorded for it; a partial view adds to it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ledger {
    files: HashMap<PathBuf, ServedRows>,
}

impl Ledger {
    /// Records rows shown for `path`. With `complete`, they replace earlier rows.
    pub fn record<I>(&mut self, path: &Path, rows: I, complete: bool)
    where
        I: IntoIterator<Item = (LineNo, LineHash)>,
    {
        let entry = self.files.entry(path.to_path_buf()).or_default();
        if complete {
            entry.rows.clear();
        }
        entry.rows.extend(rows.into_iter().map(|(line, hash)| (line.get(), hash.value())));
    }

    /// What was served for `path`.
    pub fn served(&self, path: &Path) -> Option<&ServedRows> {
        self.files.get(path).filter(|rows| !rows.is_empty())
    }

    /// Forgets a file (for example after it was deleted).
    pub fn forget(&mut self, path: &Path) {
        self.files.remove(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(line: u32, text: &str) -> (LineNo, LineHash) {
        (LineNo::new(line).expect("line"), LineHash::of(text.as_bytes()))
    }

    #[test]
    fn partial_views_merge_and_complete_views_replace() {
        let path = Path::new("/w/a.txt");
        let mut ledger = Ledger::default();
        assert!(ledger.served(path).is_none());
        ledger.record(path, [row(1, "a"), row(2, "b")], false);
        ledger.record(path, [row(3, "c")], false);
        assert_eq!(ledger.served(path).map(ServedRows::len), Some(3));
        ledger.record(path, [row(1, "z")], true);
        let served = ledger.served(path).expect("served");
        assert_eq!(served.len(), 1);
        assert_eq!(served.hash_at(LineNo::FIRST), Some(LineHash::of(b"z")));
        ledger.forget(path);
        assert!(ledger.served(path).is_none());
    }

    #[test]
    fn round_trips_through_json() {
        let mut ledger = Ledger::default();
        ledger.record(Path::new("/w/a.txt"), [row(7, "seven")], false);
        let json = serde_json::to_string(&ledger).expect("serialize");
        assert_eq!(serde_json::from_str::<Ledger>(&json).expect("parse"), ledger);
    }
}
