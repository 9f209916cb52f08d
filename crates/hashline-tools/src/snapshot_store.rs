//! The snapshots a CLI user was shown, kept between processes (issue 49; not yet used by
//! the tools): one file per snapshot in a private directory of the state directory, never in
//! the project.
//!
//! The directory is a [`PrivateDir`]: opened without following a symlink and checked as the
//! user's own (docs/protocol.md §8, "Shared directories"); its files are read, written and
//! removed relative to its handle. A snapshot is the file `<tag>.snap` holding the exact
//! bytes the tag names; `<tag>.collided` marks a tag shown with two different contents;
//! `<tag>.parent` holds the tag of the snapshot `<tag>` was made from as a partial view and
//! the lines it showed ([`Snapshots::link`](crate::snapshots::Snapshots::link)), a hint only.
//! Everything read back is untrusted: bytes that do not hash to their file's tag, or are
//! over the per-entry cap, are removed and reported ([`Miss::Tampered`]), never used. The
//! bounds are [`StoreLimits`] (by default 64 MiB, 16 MiB per snapshot, 10,000 files); when
//! a snapshot is added beyond them the least recently used files go (a hit refreshes a
//! file's time, at most once an hour). Writes are atomic, so concurrent processes see a
//! snapshot whole or not at all; a lost race costs a fallback, never a wrong line.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use hashline_core::snapshot::{Inserted, Link, Miss, SnapshotTag, StoreLimits, Stored};
use hashline_fs::private::PrivateDir;

/// A file used more recently than this is not rewritten to refresh its time on a hit.
const TOUCH_AFTER: Duration = Duration::from_secs(3600);
/// Temporary files a stopped writer left are removed once older than this.
const STALE_TEMP: Duration = Duration::from_secs(3600);

/// A directory of snapshots (see the module docs).
#[derive(Debug)]
pub struct DiskSnapshots {
    path: PathBuf,
    limits: StoreLimits,
    /// The directory, once opened and checked.
    dir: Option<PrivateDir>,
}

impl DiskSnapshots {
    /// A store in the directory `path` (made, mode 0700, when the first snapshot is kept),
    /// within `limits` ([made consistent](StoreLimits::consistent)).
    pub fn new(path: impl Into<PathBuf>, limits: StoreLimits) -> Self {
        DiskSnapshots { path: path.into(), limits: limits.consistent(), dir: None }
    }

    /// The store's directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Opens the directory (making it when `create`); `None` when it is missing or refused
    /// (a symlink, another user's, shared-writable): then nothing is kept or found.
    fn open(&mut self, create: bool) -> Option<&PrivateDir> {
        if self.dir.is_none() {
            self.dir = PrivateDir::open(&self.path, create).ok().flatten();
        }
        self.dir.as_ref()
    }

    /// Records that `bytes` were shown and returns their tag (see
    /// [`SnapshotStore::insert`](hashline_core::snapshot::SnapshotStore::insert)). A
    /// directory that cannot be written keeps nothing (best effort).
    pub fn insert(&mut self, bytes: &[u8]) -> Inserted {
        let tag = SnapshotTag::of(bytes);
        let stored = self.put(tag, bytes);
        Inserted { tag, stored }
    }

    fn put(&mut self, tag: SnapshotTag, bytes: &[u8]) -> Stored {
        let cap = self.limits.max_entry_bytes;
        let path = self.path.clone();
        let Some(dir) = self.open(true) else { return Stored::Unavailable };
        let (snap, collided) = names(tag);
        if dir.contains(&collided) {
            return Stored::Collided;
        }
        if dir.contains(&snap) {
            match dir.read(&snap, cap as u64) {
                Ok(held) if held == bytes => {
                    touch(dir, &path, &snap, &held);
                    return Stored::Present;
                }
                Ok(held) if tag.matches(&held) => {
                    // Two genuine contents under one tag: neither is trusted again.
                    let _ = dir.write(&collided, b"");
                    let _ = dir.remove(snap.as_ref());
                    return Stored::Collided;
                }
                // Forged, damaged or over the cap: replaced by the genuine bytes below.
                _ => {}
            }
        }
        if bytes.len() > cap {
            return Stored::TooLarge;
        }
        if dir.write(&snap, bytes).is_err() {
            return Stored::Unavailable;
        }
        self.evict(&snap);
        Stored::Added
    }

    /// The bytes of the snapshot `tag`, checked against it. A file that does not hold them is
    /// removed and reported ([`Miss::Tampered`]).
    pub fn get(&mut self, tag: SnapshotTag) -> Result<Arc<[u8]>, Miss> {
        let cap = self.limits.max_entry_bytes as u64;
        let path = self.path.clone();
        let dir = self.open(false).ok_or(Miss::Unknown(tag))?;
        let (snap, collided) = names(tag);
        if dir.contains(&collided) {
            return Err(Miss::Collided(tag));
        }
        if !dir.contains(&snap) {
            return Err(Miss::Unknown(tag));
        }
        match dir.read(&snap, cap) {
            Ok(bytes) if tag.matches(&bytes) => {
                touch(dir, &path, &snap, &bytes);
                Ok(Arc::from(bytes))
            }
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Err(Miss::Unknown(tag)),
            _ => {
                let _ = dir.remove(snap.as_ref());
                Err(Miss::Tampered(tag))
            }
        }
    }

    /// Records `child`'s link (best effort; only while `child` is held): the file
    /// `<child>.parent` holds the parent's tag, then the lines shown and the lines confirmed
    /// (`3-5,9`), one a line.
    pub fn link(&mut self, child: SnapshotTag, link: Link) {
        if child == link.parent {
            return;
        }
        let Some(dir) = self.open(false) else { return };
        let (snap, _) = names(child);
        if dir.contains(&snap) {
            let text = format!("{}\n{}\n{}", link.parent, link.shown, link.confirmed);
            let _ = dir.write(&link_name(child), text.as_bytes());
        }
    }

    /// Records that `tag` was shown as a view of its own: its link, if any, is removed.
    pub fn unlink(&mut self, tag: SnapshotTag) {
        let Some(dir) = self.open(false) else { return };
        let name = link_name(tag);
        if dir.contains(&name) {
            let _ = dir.remove(name.as_ref());
        }
    }

    /// The link of `child`, if a well-formed one is on record. A malformed link file is
    /// removed.
    pub fn link_of(&mut self, child: SnapshotTag) -> Option<Link> {
        let dir = self.open(false)?;
        let name = link_name(child);
        if !dir.contains(&name) {
            return None;
        }
        let held = dir.read(&name, 16 * 1024).ok()?;
        let parsed = std::str::from_utf8(&held).ok().and_then(|text| {
            let mut lines = text.split('\n');
            let (parent, shown, confirmed) = (lines.next()?, lines.next()?, lines.next()?);
            if lines.next().is_some() {
                return None;
            }
            let parent = parent.parse::<SnapshotTag>().ok().filter(|tag| tag.to_string() == parent)?;
            Some(Link { parent, shown: shown.parse().ok()?, confirmed: confirmed.parse().ok()? })
        });
        if parsed.is_none() {
            let _ = dir.remove(name.as_ref());
        }
        parsed.filter(|link| link.parent != child)
    }

    /// Removes the least recently used files beyond the bounds (never `keep`), and
    /// temporary files a stopped writer left.
    fn evict(&self, keep: &str) {
        let Some(dir) = self.dir.as_ref() else { return };
        let Ok(names) = dir.names() else { return };
        let mut entries: Vec<(SystemTime, u64, OsString)> = Vec::new();
        for name in names {
            let Some(text) = name.to_str() else { continue };
            let Ok(meta) = hashline_fs::lookup::symlink_metadata(&self.path.join(&name)) else { continue };
            let modified = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
            if parse_name(text).is_some() && meta.is_file() {
                if text != keep {
                    entries.push((modified, meta.len(), name));
                }
            } else if text.starts_with('.')
                && text.ends_with(".tmp")
                && modified.elapsed().is_ok_and(|age| age > STALE_TEMP)
            {
                let _ = dir.remove(&name);
            }
        }
        let kept = hashline_fs::lookup::symlink_metadata(&self.path.join(keep)).map_or(0, |m| m.len());
        let mut total: u64 = kept + entries.iter().map(|(_, len, _)| len).sum::<u64>();
        let mut count = entries.len() + 1;
        entries.sort();
        for (_, len, name) in entries {
            if count <= self.limits.max_entries && total <= self.limits.max_bytes as u64 {
                break;
            }
            // Another process may have removed it first.
            let _ = dir.remove(&name);
            count -= 1;
            total -= len;
        }
    }
}

/// The file names of a tag's snapshot and of its collision mark.
fn names(tag: SnapshotTag) -> (String, String) {
    (format!("{tag}.snap"), format!("{tag}.collided"))
}

/// The file name of a tag's link to the snapshot it was made from.
fn link_name(tag: SnapshotTag) -> String {
    format!("{tag}.parent")
}

/// The tag a store file is named after, if the name is one of the store's.
fn parse_name(name: &str) -> Option<SnapshotTag> {
    let stem = name
        .strip_suffix(".snap")
        .or_else(|| name.strip_suffix(".collided"))
        .or_else(|| name.strip_suffix(".parent"))?;
    stem.parse().ok().filter(|tag: &SnapshotTag| tag.to_string() == stem)
}

/// Refreshes a file's time (by writing its bytes again) when it was last written over an
/// hour ago, so that eviction sees it as recently used.
fn touch(dir: &PrivateDir, path: &Path, name: &str, bytes: &[u8]) {
    let modified = hashline_fs::lookup::symlink_metadata(&path.join(name)).and_then(|m| m.modified());
    if modified.ok().and_then(|m| m.elapsed().ok()).is_some_and(|age| age > TOUCH_AFTER) {
        let _ = dir.write(name, bytes);
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use hashline_core::snapshot::ShownLines;
    use std::os::unix::fs::PermissionsExt;

    fn store(dir: &Path, max_bytes: usize, max_entry_bytes: usize, max_entries: usize) -> DiskSnapshots {
        DiskSnapshots::new(dir.join("snapshots"), StoreLimits { max_bytes, max_entry_bytes, max_entries })
    }

    fn file(dir: &Path, tag: SnapshotTag, ext: &str) -> PathBuf {
        dir.join("snapshots").join(format!("{tag}.{ext}"))
    }

    /// Makes a file look last used `secs` seconds ago.
    fn age(path: &Path, secs: u64) {
        let file = std::fs::File::options().write(true).open(path).expect("open");
        file.set_modified(SystemTime::now() - Duration::from_secs(secs)).expect("set time");
    }

    #[test]
    fn a_link_is_kept_beside_a_held_snapshot_and_a_malformed_one_is_removed_unused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut snaps = store(dir.path(), 1000, 1000, 10);
        let read = snaps.insert(b"a\nb\n").tag;
        let edited = snaps.insert(b"a\nx\nb\n").tag;
        let never = SnapshotTag::of(b"never shown");
        let link =
            |parent| Link { parent, shown: ShownLines::from_lines([2, 3, 7]), confirmed: ShownLines::from_lines([7]) };
        snaps.link(edited, link(read));
        snaps.link(never, link(read));
        snaps.link(read, link(read));
        let kept = std::fs::read_to_string(file(dir.path(), edited, "parent")).expect("kept");
        assert_eq!(kept, format!("{read}\n2-3,7\n7"));
        assert!(!file(dir.path(), never, "parent").exists(), "no link for a snapshot not held");
        let mut later = store(dir.path(), 1000, 1000, 10);
        assert_eq!(later.link_of(edited), Some(link(read)));
        assert_eq!(later.link_of(read), None);
        later.unlink(edited);
        assert_eq!(later.link_of(edited), None);
        let planted_links = [
            "not a tag",
            "",
            &format!("{read}\n1"),
            &format!("{read}\n3-2\n"),
            &format!("{read}\n5,4\n"),
            &format!("{read}\n1\n1\n1"),
            &format!("{edited}\n1\n"),
        ];
        for planted in planted_links {
            std::fs::write(file(dir.path(), edited, "parent"), planted).expect("plant");
            assert_eq!(later.link_of(edited), None, "{planted:?}");
        }
    }

    #[test]
    fn a_snapshot_is_kept_as_its_bytes_in_a_private_file_and_read_back_checked() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut snaps = store(dir.path(), 1000, 1000, 10);
        let bytes = b"\xEF\xBB\xBFone\r\ntwo\rthree";
        let shown = snaps.insert(bytes);
        assert_eq!(shown.stored, Stored::Added);
        let path = file(dir.path(), shown.tag, "snap");
        assert_eq!(std::fs::read(&path).expect("kept"), bytes);
        assert_eq!(std::fs::metadata(&path).expect("meta").permissions().mode() & 0o777, 0o600);
        assert_eq!(std::fs::metadata(dir.path().join("snapshots")).expect("dir").permissions().mode() & 0o777, 0o700);
        assert_eq!(snaps.insert(bytes).stored, Stored::Present);
        // Another process, the same directory.
        let mut later = store(dir.path(), 1000, 1000, 10);
        assert_eq!(later.get(shown.tag).as_deref(), Ok(&bytes[..]));
        let never = SnapshotTag::of(b"never shown");
        assert_eq!(later.get(never), Err(Miss::Unknown(never)));
    }

    #[test]
    fn an_altered_or_planted_file_is_removed_and_reported_never_used() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut snaps = store(dir.path(), 1000, 100, 10);
        let tag = snaps.insert(b"alpha\n").tag;
        std::fs::write(file(dir.path(), tag, "snap"), b"ALPHA\n").expect("alter");
        assert_eq!(snaps.get(tag), Err(Miss::Tampered(tag)));
        assert!(!file(dir.path(), tag, "snap").exists());
        assert_eq!(snaps.get(tag), Err(Miss::Unknown(tag)));
        // Planted over the cap: refused unread.
        std::fs::write(file(dir.path(), tag, "snap"), vec![b'x'; 101]).expect("plant");
        assert_eq!(snaps.get(tag), Err(Miss::Tampered(tag)));
        // A symlink planted under a snapshot's name is not followed, and goes.
        let target = dir.path().join("target");
        std::fs::write(&target, b"alpha\n").expect("target");
        std::os::unix::fs::symlink(&target, file(dir.path(), tag, "snap")).expect("symlink");
        assert_eq!(snaps.get(tag), Err(Miss::Tampered(tag)));
        assert!(std::fs::symlink_metadata(file(dir.path(), tag, "snap")).is_err());
        assert!(target.exists());
        // Planted before the genuine bytes were shown: they take its place.
        std::fs::write(file(dir.path(), tag, "snap"), b"planted\n").expect("plant");
        assert_eq!(snaps.insert(b"alpha\n").stored, Stored::Added);
        assert_eq!(snaps.get(tag).as_deref(), Ok(&b"alpha\n"[..]));
    }

    #[test]
    fn a_symlinked_or_shared_directory_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let elsewhere = dir.path().join("elsewhere");
        std::fs::create_dir(&elsewhere).expect("dir");
        std::os::unix::fs::symlink(&elsewhere, dir.path().join("snapshots")).expect("symlink");
        let mut snaps = store(dir.path(), 1000, 1000, 10);
        let shown = snaps.insert(b"x\n");
        assert_eq!(shown.stored, Stored::Unavailable);
        assert_eq!(snaps.get(shown.tag), Err(Miss::Unknown(shown.tag)));
        assert_eq!(std::fs::read_dir(&elsewhere).expect("list").count(), 0, "nothing written through the link");
        // In a directory others may write to, a store directory others may write is not ours.
        let shared = tempfile::tempdir().expect("tempdir");
        std::fs::set_permissions(shared.path(), std::fs::Permissions::from_mode(0o777)).expect("chmod");
        std::fs::create_dir(shared.path().join("snapshots")).expect("dir");
        std::fs::set_permissions(shared.path().join("snapshots"), std::fs::Permissions::from_mode(0o777))
            .expect("chmod");
        let mut planted = store(shared.path(), 1000, 1000, 10);
        assert_eq!(planted.insert(b"x\n").stored, Stored::Unavailable);
        assert_eq!(std::fs::read_dir(shared.path().join("snapshots")).expect("list").count(), 0);
    }

    #[test]
    fn the_least_recently_used_go_first_within_the_bounds() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut snaps = store(dir.path(), 30, 20, 100);
        let a = snaps.insert(b"aaaaaaaaaa").tag;
        age(&file(dir.path(), a, "snap"), 300);
        let b = snaps.insert(b"bbbbbbbbbb").tag;
        age(&file(dir.path(), b, "snap"), 200);
        let c = snaps.insert(b"cccccccccc").tag;
        age(&file(dir.path(), c, "snap"), 100);
        // A hit on `a`, last written over an hour ago, refreshes it: `b` is now the oldest.
        age(&file(dir.path(), a, "snap"), 2 * 3600);
        assert!(snaps.get(a).is_ok());
        std::fs::write(dir.path().join("snapshots").join("notes.txt"), "not ours").expect("write");
        let stale = dir.path().join("snapshots").join(".sxxxxxxxx.snap.0123abcd.tmp");
        std::fs::write(&stale, "half").expect("write");
        age(&stale, 2 * 3600);
        let d = snaps.insert(b"dddddddddd").tag;
        let kept: Vec<bool> = [a, b, c, d].iter().map(|t| file(dir.path(), *t, "snap").exists()).collect();
        assert_eq!(kept, [true, false, true, true]);
        assert!(dir.path().join("snapshots").join("notes.txt").exists(), "other files are left alone");
        assert!(!stale.exists(), "what a stopped writer left goes");
        assert_eq!(snaps.insert(&[b'x'; 21]).stored, Stored::TooLarge);
        // The count bound holds too.
        let mut few = store(dir.path(), 1000, 20, 2);
        few.insert(b"e");
        let names = std::fs::read_dir(dir.path().join("snapshots")).expect("list").count();
        assert_eq!(names, 3, "two snapshots and notes.txt");
    }

    #[test]
    fn two_contents_under_one_tag_are_remembered_across_processes() {
        // Two texts whose tags are equal (a birthday search over `line <n>\n`).
        let twins: [&[u8]; 2] = [b"line 486860\n", b"line 932457\n"];
        let dir = tempfile::tempdir().expect("tempdir");
        let mut snaps = store(dir.path(), 1000, 1000, 10);
        let tag = snaps.insert(twins[0]).tag;
        assert_eq!(snaps.insert(twins[1]), Inserted { tag, stored: Stored::Collided });
        assert!(file(dir.path(), tag, "collided").exists());
        assert!(!file(dir.path(), tag, "snap").exists());
        let mut later = store(dir.path(), 1000, 1000, 10);
        assert_eq!(later.get(tag), Err(Miss::Collided(tag)));
        assert_eq!(later.insert(twins[0]).stored, Stored::Collided);
    }

    #[test]
    fn only_canonical_names_are_the_stores() {
        let tag = SnapshotTag::of(b"x");
        assert_eq!(parse_name(&format!("{tag}.snap")), Some(tag));
        assert_eq!(parse_name(&format!("{tag}.collided")), Some(tag));
        assert_eq!(parse_name(&format!("{}.snap", tag.to_string().to_uppercase())), None);
        assert_eq!(parse_name("notes.txt"), None);
        assert_eq!(parse_name(".s00000000.snap.0123abcd.tmp"), None);
    }
}
