//! The served-lines ledger: for each file, every row shown to the model — its hash, and
//! the line numbers it was shown under (a row keeps its names when our own edits move
//! it, so an anchor from before an edit still finds its line).

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use hashline_core::{LineHash, LineNo};
use serde::{Deserialize, Serialize};

mod entry;
mod rows;
mod rows_text;

use entry::Entry;
use rows::MAX_NAMES;
pub use rows::{Names, ServedIndex, ServedRow, ServedRows};

/// Per-file served rows, keyed by the file's resolved (symlink-free) path.
///
/// A row counts as served when a tool showed it: a read, a write, grep and structural
/// search results, and rows in error feedback. A complete view of a file replaces what
/// was recorded for it; a partial view adds to it.
///
/// Serialised as `{"files": {"<path>": <rows>}}`, the files in the byte order of their
/// paths (so that equal ledgers are equal texts) and files without rows left out. A
/// deserialized ledger checks every file's rows at once but decodes them only when they are
/// used, and writes the rows it did not change back as it read them (the CLI loads its
/// session on every call).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Ledger {
    /// By the paths' bytes (keys are resolved paths, so equal bytes are equal paths): a
    /// session file is written in that order, so it is read back in one pass, without
    /// hashing or parsing into components thousands of paths.
    #[serde(serialize_with = "serialize_files", deserialize_with = "deserialize_files")]
    files: BTreeMap<OsString, Entry>,
    /// Whether anything was recorded or forgotten since the ledger was made (or
    /// deserialized): an untouched ledger need not be written back.
    #[serde(skip)]
    touched: bool,
}

impl PartialEq for Ledger {
    fn eq(&self, other: &Self) -> bool {
        shown(&self.files).eq(shown(&other.files))
    }
}

/// The files that hold rows.
fn shown(files: &BTreeMap<OsString, Entry>) -> impl Iterator<Item = (&Path, &Entry)> {
    files.iter().filter(|(_, entry)| !entry.is_empty()).map(|(path, entry)| (Path::new(path), entry))
}

fn serialize_files<S: serde::Serializer>(files: &BTreeMap<OsString, Entry>, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_map(shown(files))
}

/// The files as written, collected and then sorted: a stable sort, so that of two entries
/// for one path the later one stays, as inserting them would.
fn deserialize_files<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<BTreeMap<OsString, Entry>, D::Error> {
    struct FilesVisitor;
    impl<'de> serde::de::Visitor<'de> for FilesVisitor {
        type Value = BTreeMap<OsString, Entry>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object of files and their served rows")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut files = Vec::with_capacity(map.size_hint().unwrap_or(0).min(1 << 12));
            while let Some((path, entry)) = map.next_entry::<PathBuf, Entry>()? {
                files.push((path.into_os_string(), entry));
            }
            Ok(files.into_iter().collect())
        }
    }
    deserializer.deserialize_map(FilesVisitor)
}

impl Eq for Ledger {}

impl Ledger {
    /// Whether anything was recorded for (or forgotten of) any file since this ledger was
    /// made or deserialized. A ledger that was not touched holds what it was made from, so
    /// a caller that keeps it elsewhere (the CLI's session file) need not write it back.
    pub fn touched(&self) -> bool {
        self.touched
    }

    /// Records rows shown for `path` as it is (a refusal's rows, search results). With
    /// `complete`, they replace earlier rows; otherwise they add names and take none away:
    /// a name an earlier view gave another row keeps that meaning too, so an anchor both
    /// rows were shown under is ambiguous (refused) rather than moved to the newer row.
    pub fn record<I>(&mut self, path: &Path, rows: I, complete: bool)
    where
        I: IntoIterator<Item = (LineNo, LineHash)>,
    {
        if complete {
            self.replace(path, rows);
            return;
        }
        // Rows shown again exactly as recorded leave the ledger as it was (the CLI then
        // does not serialize its session to find it unchanged).
        let (entry, new_file) = self.entry_rows(path);
        let changed = entry.show_all(rows.into_iter().map(|(line, hash)| (line.get(), hash.value())));
        self.touched |= changed || new_file;
    }

    /// Records the rows of a `read` of `path`: the one view that settles names. With
    /// `complete`, they replace earlier rows; otherwise they supersede older rows shown
    /// under the same `LINE:HASH` (the model asked to see those lines afresh).
    pub fn record_read<I>(&mut self, path: &Path, rows: I, complete: bool)
    where
        I: IntoIterator<Item = (LineNo, LineHash)>,
    {
        if complete {
            self.replace(path, rows);
            return;
        }
        self.touched = true;
        let entry = self.rows_mut(path);
        let mut shown: Vec<(u32, u16)> = rows.into_iter().map(|(line, hash)| (line.get(), hash.value())).collect();
        entry.show_all(shown.iter().copied());
        shown.sort_unstable();
        shown.dedup();
        entry.supersede(&shown);
    }

    /// A whole view of `path`: each row named only by its line.
    fn replace<I>(&mut self, path: &Path, rows: I)
    where
        I: IntoIterator<Item = (LineNo, LineHash)>,
    {
        self.touched = true;
        // Built in one pass (the rows come in line order; of two for one line, the later
        // one stays, as `show` does).
        let rows = ServedRows::from_rows(
            rows.into_iter()
                .map(|(line, hash)| (line.get(), ServedRow { hash: hash.value(), names: Names::only(line.get()) })),
        );
        self.files.insert(path.as_os_str().to_owned(), Entry::Rows(rows));
    }

    /// After our own edit of `path`: rows that survived move to their new lines with their
    /// names (`moved`: old → new), other rows are forgotten, then the rows the result
    /// showed are recorded. These do not supersede: a model may still use the anchors
    /// of its earlier view, and an anchor two rows were shown under stays ambiguous
    /// until a view of the file (a read or a refusal's rows) settles it.
    pub fn carry<M, F>(&mut self, path: &Path, moved: M, fresh: F)
    where
        M: IntoIterator<Item = (LineNo, LineNo)>,
        F: IntoIterator<Item = (LineNo, LineHash)>,
    {
        self.touched = true;
        let entry = self.rows_mut(path);
        let old = std::mem::take(entry);
        *entry =
            ServedRows::from_rows(moved.into_iter().filter_map(|(from, to)| Some((to.get(), old.get(from.get())?))));
        entry.show_all(fresh.into_iter().map(|(line, hash)| (line.get(), hash.value())));
    }

    /// What was served for `path`.
    pub fn served(&self, path: &Path) -> Option<&ServedRows> {
        self.files.get(path.as_os_str()).filter(|entry| !entry.is_empty()).map(Entry::rows)
    }

    /// Every file with rows recorded, in path order.
    pub fn paths(&self) -> impl Iterator<Item = &Path> {
        self.files.iter().filter(|(_, entry)| !entry.is_empty()).map(|(path, _)| Path::new(path))
    }

    /// `path`'s rows, to change (made empty when there are none).
    fn rows_mut(&mut self, path: &Path) -> &mut ServedRows {
        self.entry_rows(path).0
    }

    /// [`Ledger::rows_mut`], and whether the file had no entry before.
    fn entry_rows(&mut self, path: &Path) -> (&mut ServedRows, bool) {
        let key = path.as_os_str();
        let new = !self.files.contains_key(key);
        if new {
            self.files.insert(key.to_owned(), Entry::default());
        }
        (self.files.get_mut(key).map(Entry::rows_mut).unwrap_or_else(|| unreachable!("inserted above")), new)
    }

    /// Forgets a file (for example after it was deleted).
    pub fn forget(&mut self, path: &Path) {
        self.touched = true;
        self.files.remove(path.as_os_str());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hashline_core::Anchor;
    use hashline_core::edit::Resolution;

    fn row(line: u32, text: &str) -> (LineNo, LineHash) {
        (LineNo::new(line).expect("line"), LineHash::of(text.as_bytes()))
    }

    /// The CLI writes its session file back only when the ledger was touched: every call
    /// that changes what the ledger holds must say so.
    #[test]
    fn every_change_touches_the_ledger_and_loading_does_not() {
        let path = Path::new("/w/a.txt");
        let fresh = Ledger::default();
        assert!(!fresh.touched());
        let changes: [&dyn Fn(&mut Ledger); 6] = [
            &|l| l.record(path, [row(1, "a")], false),
            &|l| l.record(path, [row(1, "a")], true),
            &|l| l.record_read(path, [row(1, "a")], false),
            &|l| l.record_read(path, [row(1, "a")], true),
            &|l| l.carry(path, [], [row(1, "a")]),
            &|l| l.forget(path),
        ];
        for (i, change) in changes.iter().enumerate() {
            let mut ledger = Ledger::default();
            change(&mut ledger);
            assert!(ledger.touched(), "change {i} did not touch the ledger");
        }
        let mut ledger = Ledger::default();
        ledger.record(path, [row(1, "a")], false);
        let loaded: Ledger = serde_json::from_str(&serde_json::to_string(&ledger).expect("json")).expect("parse");
        assert!(!loaded.touched(), "a loaded ledger holds what it was loaded from");
        assert_eq!(loaded, ledger);
        // Rows shown again as they were recorded change nothing (a repeated grep); another
        // hash or another row does.
        let mut again = loaded.clone();
        again.record(path, [row(1, "a")], false);
        assert!(!again.touched(), "the same row again touched the ledger");
        assert_eq!(again, ledger);
        for (i, other) in [row(1, "b"), row(2, "a")].into_iter().enumerate() {
            let mut changed = loaded.clone();
            changed.record(path, [row(1, "a"), other], false);
            assert!(changed.touched(), "row {i} changed the ledger without touching it");
            assert_ne!(changed, ledger);
        }
        let mut other_file = loaded.clone();
        other_file.record(Path::new("/w/b.txt"), [], false);
        assert!(other_file.touched(), "a new file's entry");
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
    fn rows_keep_their_names_when_an_edit_moves_them() {
        let path = Path::new("/w/a.txt");
        let mut ledger = Ledger::default();
        ledger.record(path, [row(1, "a"), row(2, "}"), row(3, "}")], true);
        let anchor =
            |line: u32, text: &str| Anchor::new(LineNo::new(line).expect("line"), LineHash::of(text.as_bytes()));
        // An edit inserted one line at the top; rows 1-3 moved to 2-4; the result showed 1-3.
        let moved = (1..=3).map(|n| (LineNo::new(n).expect("n"), LineNo::new(n + 1).expect("n")));
        ledger.carry(path, moved, [row(1, "new"), row(2, "a"), row(3, "}")]);
        let served = ledger.served(path).expect("served");
        assert_eq!(
            served.resolve(anchor(3, "}")),
            Resolution::Ambiguous(vec![LineNo::new(3).expect("3"), LineNo::new(4).expect("4")])
        );
        assert_eq!(served.resolve(anchor(1, "a")), Resolution::Known(LineNo::new(2).expect("2")));
        assert_eq!(served.resolve(anchor(9, "a")), Resolution::Unknown);
    }

    #[test]
    fn a_later_view_supersedes_a_name_two_rows_share() {
        let path = Path::new("/w/a.txt");
        let mut ledger = Ledger::default();
        ledger.record(path, [row(1, "a"), row(2, "}"), row(3, "}")], true);
        let anchor =
            |line: u32, text: &str| Anchor::new(LineNo::new(line).expect("line"), LineHash::of(text.as_bytes()));
        let moved = (1..=3).map(|n| (LineNo::new(n).expect("n"), LineNo::new(n + 1).expect("n")));
        ledger.carry(path, moved, [row(1, "new"), row(2, "a"), row(3, "}")]);
        // A partial read showing line 3 as `3:}` settles what `3:}` names.
        ledger.record_read(path, [row(3, "}")], false);
        let served = ledger.served(path).expect("served");
        assert_eq!(served.resolve(anchor(3, "}")), Resolution::Known(LineNo::new(3).expect("3")));
        assert_eq!(served.resolve(anchor(2, "}")), Resolution::Known(LineNo::new(3).expect("3")));
        assert_eq!(served.resolve(anchor(4, "}")), Resolution::Unknown, "line 4 was never shown as 4");
    }

    #[test]
    fn a_row_shown_under_many_numbers_keeps_its_oldest_name() {
        // The oldest name is the read's: an anchor copied from it must still find the row.
        let mut names = Names::only(1);
        for line in 2..=6 {
            names.push(line);
        }
        assert_eq!(names.as_slice(), [1, 4, 5, 6]);
        names.push(4);
        assert_eq!(names.as_slice(), [1, 5, 6, 4]);
    }

    #[test]
    fn refusal_rows_add_names_and_only_a_read_settles_them() {
        let path = Path::new("/w/a.txt");
        let mut ledger = Ledger::default();
        ledger.record(path, [row(1, "a"), row(2, ""), row(3, ""), row(4, "b")], true);
        let anchor =
            |line: u32, text: &str| Anchor::new(LineNo::new(line).expect("line"), LineHash::of(text.as_bytes()));
        let at = |n: u32| LineNo::new(n).expect("n");
        // One line inserted at the top: the blank rows move to 3 and 4.
        ledger.carry(path, (1..=4).map(|n| (at(n), at(n + 1))), [row(1, "new")]);
        // A refusal shows the blank now at 3 as `3:`; the blank first read as `3:` keeps
        // that name too.
        ledger.record(path, [row(2, "a"), row(3, "")], false);
        let served = ledger.served(path).expect("served");
        assert_eq!(served.resolve(anchor(3, "")), Resolution::Ambiguous(vec![at(3), at(4)]));
        assert_eq!(served.resolve(anchor(2, "")), Resolution::Known(at(3)));
        // A read of line 3 settles `3:`: it names line 3 alone.
        ledger.record_read(path, [row(3, "")], false);
        assert_eq!(ledger.served(path).expect("served").resolve(anchor(3, "")), Resolution::Known(at(3)));
    }

    /// docs/protocol.md ("The session file is JSON"): files are written in the byte order
    /// of their paths (`a-b/x` before `a/x`, which components would order the other way),
    /// files without rows are left out, and a file read in any order, with a path twice,
    /// keeps the later entry.
    #[test]
    fn files_are_written_in_byte_order_and_read_in_any_order() {
        let mut ledger = Ledger::default();
        for path in ["/w/a/x", "/w/a-b/x", "/w/B"] {
            ledger.record(Path::new(path), [row(1, "a")], false);
        }
        ledger.record(Path::new("/w/empty"), [], false);
        let json = serde_json::to_string(&ledger).expect("serialize");
        assert_eq!(json, r#"{"files":{"/w/B":"1:456","/w/a-b/x":"1:456","/w/a/x":"1:456"}}"#);
        let shuffled = r#"{"files":{"/w/a/x":"1:456","/w/B":"1:000","/w/a-b/x":"1:456","/w/B":"1:456"}}"#;
        let parsed: Ledger = serde_json::from_str(shuffled).expect("parse");
        assert_eq!(parsed, ledger);
        assert_eq!(serde_json::to_string(&parsed).expect("serialize"), json);
    }

    #[test]
    fn round_trips_through_json() {
        let mut ledger = Ledger::default();
        ledger.record(Path::new("/w/a.txt"), [row(7, "seven")], false);
        let json = serde_json::to_string(&ledger).expect("serialize");
        assert_eq!(serde_json::from_str::<Ledger>(&json).expect("parse"), ledger);
        let out_of_order = r#"{"files":{"/f":{"rows":{"9":{"hash":1,"names":[9]},"2":{"hash":2,"names":[2]},"9":{"hash":3,"names":[9]}}}}}"#;
        let parsed: Ledger = serde_json::from_str(out_of_order).expect("parse");
        let rows = parsed.served(Path::new("/f")).expect("rows");
        assert_eq!(rows.len(), 2);
        assert_eq!(rows.hash_at(LineNo::new(9).expect("line")).map(LineHash::value), Some(3));
    }
}
