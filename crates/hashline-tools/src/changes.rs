//! What the session's edits and writes committed, kept so that a change can be reverted
//! exactly (docs/protocol.md, "Changes and revert").
//!
//! Every successful `edit` and `write` that wrote something is a [`Change`] with an id
//! `c<N>-<tag>`: `N` counts the session's changes from 1, `tag` is the first four hex
//! digits of a SHA-256 over `N` and what the change did (each file's path as shown and
//! the digests of its bytes before and after). An id from another session (an MCP server
//! restarted under the same conversation) is then unknown here unless it names the very
//! same change, rather than naming another one. A change names its files, each file's
//! bytes before (or its absence) and after, as SHA-256 digests of blobs kept in a
//! [`Blobs`] store: in memory for an MCP session, in the CLI's state directory for its
//! per-root session.
//!
//! The log keeps the last [`MAX_CHANGES`] changes and at most [`MAX_CHANGE_BYTES`] of
//! distinct blobs; older changes go first. A change whose own bytes are over the bound is
//! listed but not kept, and reverting it says so. A bound over several logs together (an
//! MCP HTTP server's sessions) drops their oldest changes the same way
//! ([`ChangeLog::drop_oldest_kept`]).

mod blobs;

use std::collections::{BTreeSet, VecDeque};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use blobs::{Blob, Blobs};

/// The most changes a session keeps.
pub const MAX_CHANGES: usize = 100;
/// The most bytes of file content (distinct before and after versions) a session keeps.
pub const MAX_CHANGE_BYTES: u64 = 64 * 1024 * 1024;

/// One committed change.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Change {
    /// `c<N>-<tag>`.
    pub id: String,
    /// `N`: the session's count of changes when this one was made.
    pub seq: u64,
    /// When it was committed, in milliseconds since the Unix epoch.
    pub time: u64,
    /// The tool that made it: `edit`, `write` or `revert`.
    pub tool: String,
    /// For a revert: the change it reverted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverts: Option<String>,
    /// The revert that undid this change, if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverted_by: Option<String>,
    /// Whether its bytes are kept (false: over the bound on its own).
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub kept: bool,
    /// Its files, in the order the call named them.
    pub files: Vec<ChangedFile>,
}

fn yes() -> bool {
    true
}

fn is_true(value: &bool) -> bool {
    *value
}

/// One file of a change.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChangedFile {
    /// The file's real path (the session's key for it).
    pub path: PathBuf,
    /// The path as results showed it.
    pub display: String,
    /// Its bytes before (absent: the change made the file).
    pub before: Option<Blob>,
    /// Its bytes after (absent: the change removed the file).
    pub after: Option<Blob>,
    /// Lines added.
    pub added: u32,
    /// Lines removed.
    pub removed: u32,
    /// The file existed but its bytes before were not read (over the bound on their own):
    /// `before` is absent although the change did not make the file (the change is not kept).
    #[serde(default, skip_serializing_if = "is_false")]
    pub unread: bool,
}

impl ChangedFile {
    /// [`ChangedFile::display`] as a text a model or a terminal reads shows it (every
    /// control, newline and bidi control escaped).
    pub fn shown(&self) -> std::borrow::Cow<'_, str> {
        hashline_core::display::escape_name(&self.display)
    }
}

fn is_false(value: &bool) -> bool {
    !*value
}

impl ChangedFile {
    /// What the change did to the file: `made` (no file had the name before), `removed`
    /// (none has it after) or `changed`.
    pub fn state(&self) -> &'static str {
        match (&self.before, &self.after) {
            (None, _) if !self.unread => "made",
            (_, None) => "removed",
            _ => "changed",
        }
    }
}

/// One file of a change about to be recorded.
#[derive(Debug)]
pub struct NewFile<'a> {
    /// The file's real path (the session's key for it).
    pub path: &'a Path,
    /// The path as results show it.
    pub display: &'a str,
    /// Its bytes before: `None` when the change made the file.
    pub before: Before<'a>,
    /// Its bytes after: `None` when the change removed the file.
    pub after: Option<&'a [u8]>,
    /// Lines added.
    pub added: u32,
    /// Lines removed.
    pub removed: u32,
}

/// A file's bytes before a change.
#[derive(Clone, Copy, Debug)]
pub enum Before<'a> {
    /// No file had the name.
    Absent,
    /// These bytes.
    Bytes(&'a [u8]),
    /// The file existed but its bytes were not loaded (over the bound): the change cannot
    /// be reverted.
    Unknown,
}

/// Why an id names no change that can be reverted.
#[derive(Debug, PartialEq, Eq)]
pub enum Lookup {
    /// Not an id of this session's changes.
    Unknown,
    /// A change of this session past the bound (or over it on its own).
    Expired,
}

/// The part of a change log that outlives a process (the CLI keeps it in its session
/// file; the blobs live in the directory beside it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChangeLogState {
    /// The number the next change gets.
    pub next: u64,
    /// The kept changes, oldest first.
    pub changes: VecDeque<Change>,
    /// The ids of the last [`MAX_EXPIRED_IDS`] changes that left the bound, oldest first.
    #[serde(default)]
    pub expired: VecDeque<String>,
}

impl Default for ChangeLogState {
    fn default() -> Self {
        ChangeLogState { next: 1, changes: VecDeque::new(), expired: VecDeque::new() }
    }
}

/// How many ids of changes past the bound a log remembers (to say "expired" rather than
/// "unknown" for them).
pub const MAX_EXPIRED_IDS: usize = 1000;

/// A session's changes and their bytes.
#[derive(Debug)]
pub struct ChangeLog {
    state: ChangeLogState,
    blobs: Blobs,
    /// Whether anything changed since it was made or loaded (the CLI saves it then).
    touched: bool,
}

impl Default for ChangeLog {
    fn default() -> Self {
        Self::in_memory()
    }
}

impl ChangeLog {
    /// A new log kept in memory.
    ///
    /// ```
    /// use hashline_tools::changes::{Before, ChangeLog, NewFile};
    /// let mut log = ChangeLog::in_memory();
    /// let file = NewFile {
    ///     path: "/w/a.txt".as_ref(),
    ///     display: "a.txt",
    ///     before: Before::Bytes(b"old\n"),
    ///     after: Some(b"new\n"),
    ///     added: 1,
    ///     removed: 1,
    /// };
    /// let id = log.record("edit", None, &[file]);
    /// assert!(id.starts_with("c1-"));
    /// let change = log.find(&id).unwrap();
    /// assert_eq!(log.load(change.files[0].before.as_ref().unwrap()).unwrap(), b"old\n");
    /// ```
    pub fn in_memory() -> Self {
        Self::with(ChangeLogState::default(), Blobs::memory())
    }

    /// A log resumed from `state` (or begun, when `None`), its blobs in the directory
    /// `path`: `dir` when the caller opened and checked it, else made and opened when the
    /// first is stored (see [`Blobs::directory`]).
    pub fn on_disk(
        state: Option<ChangeLogState>,
        path: impl Into<PathBuf>,
        dir: Option<hashline_fs::private::PrivateDir>,
    ) -> Self {
        Self::with(state.unwrap_or_default(), Blobs::directory(path, dir))
    }

    fn with(mut state: ChangeLogState, blobs: Blobs) -> Self {
        state.next = state.next.max(1);
        Self { state, blobs, touched: false }
    }

    /// What outlives the process.
    pub fn state(&self) -> &ChangeLogState {
        &self.state
    }

    /// Whether the log changed since it was made or loaded.
    pub fn touched(&self) -> bool {
        self.touched
    }

    /// The kept changes, oldest first.
    pub fn changes(&self) -> impl DoubleEndedIterator<Item = &Change> {
        self.state.changes.iter()
    }

    /// Records a committed change and returns its id. Its bytes are stored; when they
    /// cannot be (a full disk), reverting it later says they are gone.
    pub fn record(&mut self, tool: &str, reverts: Option<&str>, files: &[NewFile<'_>]) -> String {
        let seq = self.state.next;
        self.state.next += 1;
        let known = files.iter().all(|f| !matches!(f.before, Before::Unknown));
        let size: u64 = files
            .iter()
            .map(|f| {
                let before = match f.before {
                    Before::Bytes(bytes) => bytes.len() as u64,
                    _ => 0,
                };
                before + f.after.map_or(0, |a| a.len() as u64)
            })
            .sum();
        let kept = known && size <= MAX_CHANGE_BYTES;
        let mut changed = Vec::with_capacity(files.len());
        for file in files {
            let mut keep = |bytes: &[u8]| match kept {
                true => self.blobs.store(bytes),
                false => Blob::of(bytes),
            };
            let unread = matches!(file.before, Before::Unknown);
            let before = match file.before {
                Before::Bytes(bytes) => Some(keep(bytes)),
                Before::Absent | Before::Unknown => None,
            };
            let after = file.after.map(&mut keep);
            changed.push(ChangedFile {
                path: file.path.to_path_buf(),
                display: file.display.to_owned(),
                before,
                after,
                added: file.added,
                removed: file.removed,
                unread,
            });
        }
        let id = id_of(seq, &changed, known);
        if let Some(reverted) = reverts
            && let Some(change) = self.state.changes.iter_mut().find(|c| c.id == reverted)
        {
            change.reverted_by = Some(id.clone());
        }
        self.state.changes.push_back(Change {
            id: id.clone(),
            seq,
            time: now_millis(),
            tool: tool.to_owned(),
            reverts: reverts.map(str::to_owned),
            reverted_by: None,
            kept,
            files: changed,
        });
        self.evict();
        self.touched = true;
        id
    }

    /// The change `id` names, if it is kept.
    pub fn find(&self, id: &str) -> Result<&Change, Lookup> {
        let id = id.trim();
        match self.state.changes.iter().find(|c| c.id == id) {
            Some(change) if change.kept => Ok(change),
            Some(_) => Err(Lookup::Expired),
            None if self.state.expired.iter().any(|e| e == id) => Err(Lookup::Expired),
            None => Err(Lookup::Unknown),
        }
    }

    /// The latest change in effect ([`ChangeLog::in_effect`]): what `hashline undo` without
    /// an id reverts.
    pub fn latest_undoable(&self) -> Option<&Change> {
        self.state.changes.iter().rev().find(|c| self.in_effect(c))
    }

    /// Whether what `change` did is still in effect: it was not reverted, and it is an edit
    /// or write, or a revert that made a change again (a revert of a revert of it, and so
    /// on). A revert that undid a change is not: it and that change cancel, so reverting it
    /// would only make that change again.
    pub fn in_effect(&self, change: &Change) -> bool {
        change.reverted_by.is_none() && self.revert_depth(change).is_multiple_of(2)
    }

    /// How many reverts deep `change` is: 0 for an edit or write, 1 for a revert of one, 2
    /// for a revert of that revert, ... (a revert whose change is no longer kept counts 1
    /// over it).
    fn revert_depth(&self, change: &Change) -> usize {
        let mut depth = 0;
        let mut at = change;
        while let Some(id) = &at.reverts {
            depth += 1;
            // Each revert names an earlier change, so the walk ends.
            match self.state.changes.iter().find(|c| &c.id == id && c.seq < at.seq) {
                Some(earlier) => at = earlier,
                None => break,
            }
        }
        depth
    }

    /// The changes after `change` that touched `path` and are in effect
    /// ([`ChangeLog::in_effect`]), newest first: what stands in the way of reverting it.
    pub fn standing_after(&self, change: &Change, path: &Path) -> Vec<&Change> {
        let later = self.state.changes.iter().rev().filter(|c| c.seq > change.seq && self.in_effect(c));
        later.filter(|c| c.files.iter().any(|f| f.path == path)).collect()
    }

    /// The bytes of a blob of a kept change (checked against its digest).
    pub fn load(&self, blob: &Blob) -> std::io::Result<Vec<u8>> {
        self.blobs.load(blob)
    }

    /// When the oldest change whose bytes are kept was committed (milliseconds since the
    /// Unix epoch); `None` when no change's bytes are kept.
    pub fn oldest_kept_time(&self) -> Option<u64> {
        self.state.changes.iter().find(|c| c.kept).map(|c| c.time)
    }

    /// Drops the oldest change whose bytes are kept (and the older ones before it, whose
    /// bytes are not), as the log's own bound does: reverting it then answers
    /// `change-expired`. For a bound over several logs together (an MCP HTTP server's
    /// sessions). Returns the dropped change's id; `None` when no change's bytes are kept.
    ///
    /// ```
    /// use hashline_tools::changes::{Before, ChangeLog, Lookup, NewFile};
    /// let mut log = ChangeLog::in_memory();
    /// let file = |after: &'static [u8]| NewFile {
    ///     path: "/w/a.txt".as_ref(), display: "a.txt", before: Before::Absent,
    ///     after: Some(after), added: 1, removed: 0,
    /// };
    /// let first = log.record("write", None, &[file(b"one\n")]);
    /// let second = log.record("write", None, &[file(b"two\n")]);
    /// assert_eq!(log.kept_bytes(), 8);
    /// assert_eq!(log.drop_oldest_kept().as_deref(), Some(first.as_str()));
    /// assert_eq!(log.find(&first).err(), Some(Lookup::Expired));
    /// assert!(log.find(&second).is_ok());
    /// assert_eq!(log.kept_bytes(), 4);
    /// ```
    pub fn drop_oldest_kept(&mut self) -> Option<String> {
        self.oldest_kept_time()?;
        loop {
            let oldest = self.expire_front()?;
            if oldest.kept {
                self.retain_named();
                self.touched = true;
                return Some(oldest.id);
            }
        }
    }

    /// Moves the oldest change to the expired ids, and returns it.
    fn expire_front(&mut self) -> Option<Change> {
        let oldest = self.state.changes.pop_front()?;
        self.state.expired.push_back(oldest.id.clone());
        if self.state.expired.len() > MAX_EXPIRED_IDS {
            self.state.expired.pop_front();
        }
        Some(oldest)
    }

    /// Drops the oldest changes beyond the bounds, then every blob no change names.
    fn evict(&mut self) {
        loop {
            let over_count = self.state.changes.len() > MAX_CHANGES;
            if !over_count && self.kept_bytes() <= MAX_CHANGE_BYTES {
                break;
            }
            if self.expire_front().is_none() {
                break;
            }
        }
        self.retain_named();
    }

    /// Drops every blob no kept change names.
    fn retain_named(&mut self) {
        let named: BTreeSet<&str> = self
            .state
            .changes
            .iter()
            .filter(|c| c.kept)
            .flat_map(|c| c.files.iter())
            .flat_map(|f| f.before.iter().chain(f.after.iter()))
            .map(|b| b.sha256.as_str())
            .collect();
        self.blobs.retain(&named);
    }

    /// The bytes of the distinct blobs the kept changes name: what the log holds (in
    /// memory, for a log made by [`ChangeLog::in_memory`]).
    pub fn kept_bytes(&self) -> u64 {
        let mut seen = BTreeSet::new();
        let blobs = self.state.changes.iter().filter(|c| c.kept).flat_map(|c| c.files.iter());
        blobs
            .flat_map(|f| f.before.iter().chain(f.after.iter()))
            .filter(|b| seen.insert(b.sha256.as_str()))
            .map(|b| b.len)
            .sum()
    }
}

/// `c<N>-<tag>`: the tag is the first four hex digits of a SHA-256 over `N` and, per
/// file, its path as shown and the digests of its bytes before and after (`-` for none).
fn id_of(seq: u64, files: &[ChangedFile], known: bool) -> String {
    let mut text = format!("{seq}{}", if known { "" } else { "?" });
    for file in files {
        let digest = |blob: &Option<Blob>| blob.as_ref().map_or("-", |b| b.sha256.as_str()).to_owned();
        text.push_str(&format!("\0{}\0{}\0{}", file.display, digest(&file.before), digest(&file.after)));
    }
    let tag = Blob::of(text.as_bytes()).sha256;
    format!("c{seq}-{}", &tag[..4])
}

fn now_millis() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file<'a>(path: &'a str, before: Before<'a>, after: Option<&'a [u8]>) -> NewFile<'a> {
        NewFile { path: Path::new(path), display: path, before, after, added: 1, removed: 1 }
    }

    #[test]
    fn ids_count_up_and_only_this_logs_tag_finds_them() {
        let mut log = ChangeLog::in_memory();
        let first = log.record("edit", None, &[file("/a", Before::Bytes(b"1"), Some(b"2"))]);
        let second = log.record("write", None, &[file("/b", Before::Absent, Some(b"new"))]);
        assert!(first.starts_with("c1-") && second.starts_with("c2-") && first.len() == 7, "{first} {second}");
        assert_eq!(log.find(&second).map(|c| c.tool.as_str()), Ok("write"));
        assert_eq!(log.find(&format!(" {second}\n")).map(|c| c.seq), Ok(2), "spaces around are ignored");
        // The same change in another log has the same id; another change with the same
        // number has another.
        let mut other = ChangeLog::in_memory();
        assert_eq!(other.record("edit", None, &[file("/a", Before::Bytes(b"1"), Some(b"2"))]), first);
        assert_ne!(other.record("write", None, &[file("/b", Before::Absent, Some(b"other"))]), second);
        let wrong_tag = format!("c1-{}", if first.ends_with("0000") { "0001" } else { "0000" });
        for unknown in ["c3-0000", "c0-0000", wrong_tag.as_str(), "c1", "", "c1-00ff-x"] {
            assert_eq!(log.find(unknown).err(), Some(Lookup::Unknown), "{unknown}");
        }
        assert_eq!(log.latest_undoable().map(|c| c.seq), Some(2));
    }

    #[test]
    fn past_the_count_bound_the_oldest_expire_and_their_blobs_go() {
        let mut log = ChangeLog::in_memory();
        let contents: Vec<Vec<u8>> = (0..=MAX_CHANGES + 1).map(|i| format!("v{i}").into_bytes()).collect();
        let ids: Vec<String> = contents
            .windows(2)
            .map(|pair| log.record("edit", None, &[file("/a", Before::Bytes(&pair[0]), Some(&pair[1]))]))
            .collect();
        let (first, last) = (&ids[0], &ids[ids.len() - 1]);
        assert_eq!(log.changes().count(), MAX_CHANGES);
        assert_eq!(log.find(first).err(), Some(Lookup::Expired));
        assert!(log.find(last).is_ok());
        assert_eq!(log.blobs.len(), MAX_CHANGES + 1, "a chain of edits shares each version");
    }

    /// docs/protocol.md §4.10: the ids of the last 1,000 changes past the bound say
    /// `change-expired`; older ones are forgotten (`change-unknown`).
    #[test]
    fn the_last_thousand_expired_ids_are_remembered() {
        let mut log = ChangeLog::in_memory();
        let contents: Vec<Vec<u8>> =
            (0..MAX_CHANGES + MAX_EXPIRED_IDS + 3).map(|i| i.to_string().into_bytes()).collect();
        let ids: Vec<String> = contents
            .windows(2)
            .map(|pair| log.record("edit", None, &[file("/a", Before::Bytes(&pair[0]), Some(&pair[1]))]))
            .collect();
        assert_eq!(log.state().expired.len(), MAX_EXPIRED_IDS);
        assert_eq!(log.find(&ids[0]).err(), Some(Lookup::Unknown), "forgotten");
        assert_eq!(log.find(&ids[1]).err(), Some(Lookup::Unknown), "forgotten");
        assert_eq!(log.find(&ids[2]).err(), Some(Lookup::Expired));
        assert_eq!(log.find(&ids[ids.len() - MAX_CHANGES - 1]).err(), Some(Lookup::Expired));
        assert!(log.find(&ids[ids.len() - MAX_CHANGES]).is_ok());
    }

    #[test]
    fn a_change_over_the_byte_bound_is_listed_but_not_kept() {
        let mut log = ChangeLog::in_memory();
        let small = log.record("edit", None, &[file("/small", Before::Bytes(b"a"), Some(b"b"))]);
        let big = vec![b'x'; MAX_CHANGE_BYTES as usize / 2 + 1];
        let id = log.record("write", None, &[file("/big", Before::Bytes(&big), Some(&big[1..]))]);
        assert_eq!(log.find(&id).err(), Some(Lookup::Expired));
        assert!(log.find(&small).is_ok(), "the earlier change stays");
        let unknown = log.record("write", None, &[file("/huge", Before::Unknown, Some(b"x"))]);
        assert_eq!(log.find(&unknown).err(), Some(Lookup::Expired));
    }

    #[test]
    fn a_revert_marks_the_change_and_undo_skips_both() {
        let mut log = ChangeLog::in_memory();
        let edit = log.record("edit", None, &[file("/a", Before::Bytes(b"1"), Some(b"2"))]);
        let revert = log.record("revert", Some(&edit), &[file("/a", Before::Bytes(b"2"), Some(b"1"))]);
        assert_eq!(log.find(&edit).expect("kept").reverted_by.as_deref(), Some(revert.as_str()));
        assert!(log.latest_undoable().is_none());
        let change = log.find(&edit).expect("kept").clone();
        assert!(log.standing_after(&change, Path::new("/a")).is_empty(), "the edit and its revert cancel");
    }

    /// A revert of a revert makes the change again: it is in effect, and `undo` takes it;
    /// a revert that undid a change never is (hostile-testing UX1).
    #[test]
    fn a_redo_is_in_effect_and_an_undo_is_not() {
        let mut log = ChangeLog::in_memory();
        let first = log.record("edit", None, &[file("/a", Before::Bytes(b"0"), Some(b"1"))]);
        let edit = log.record("edit", None, &[file("/a", Before::Bytes(b"1"), Some(b"2"))]);
        let undo = log.record("revert", Some(&edit), &[file("/a", Before::Bytes(b"2"), Some(b"1"))]);
        assert_eq!(log.latest_undoable().map(|c| c.id.as_str()), Some(first.as_str()));
        let redo = log.record("revert", Some(&undo), &[file("/a", Before::Bytes(b"1"), Some(b"2"))]);
        let standing = |log: &ChangeLog| {
            let first = log.find(&first).expect("kept").clone();
            log.standing_after(&first, Path::new("/a")).iter().map(|c| c.id.clone()).collect::<Vec<_>>()
        };
        assert_eq!(standing(&log), std::slice::from_ref(&redo));
        assert_eq!(log.latest_undoable().map(|c| c.id.as_str()), Some(redo.as_str()));
        let undo_again = log.record("revert", Some(&redo), &[file("/a", Before::Bytes(b"2"), Some(b"1"))]);
        assert!(standing(&log).is_empty());
        assert!(!log.in_effect(log.find(&undo_again).expect("kept")));
        assert_eq!(log.latest_undoable().map(|c| c.id.as_str()), Some(first.as_str()));
    }
}
