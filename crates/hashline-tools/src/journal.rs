//! Crash-atomic group commits (SPEC §7.3, §7.5): several files at once, or one file with
//! several hard links (written in place), commit through an intent record in
//! `<root>/.hashline-journal/`. The record moves through three names — `<id>.prep`
//! (temporary files, backups and recovery copies being made; no file touched yet),
//! `<id>.intent` (files being replaced), `<id>.commit` (all replaced; cleaning up) — each
//! move an atomic rename. The process holds an exclusive `flock` on the record while it
//! works; recovery at session start takes over records nobody holds and rolls the group
//! back (`prep`, `intent`) or finishes the clean-up (`commit`).

use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use rustix::fs::{AtFlags, FallocateFlags, FlockOperation, Mode, OFlags};
use rustix::io::Errno;
use serde::{Deserialize, Serialize};

use crate::confine::RootDir;
use crate::staging::{CommitError, Hook, Member, Stage, random_hex};

/// The journal directory's name, in the session's first root.
pub const JOURNAL_DIR: &str = ".hashline-journal";

/// The journal of one root.
pub struct Journal<'r> {
    root: &'r RootDir,
}

/// What a group commit plans for one file.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Entry {
    /// The file's directory (absolute, bytes).
    dir: Vec<u8>,
    /// The file's name (bytes).
    name: Vec<u8>,
    /// How the file is replaced.
    how: How,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
enum How {
    /// A temporary file renamed over the name; the old file is kept as a hard link
    /// `backup` in the same directory until the group is committed.
    Rename { temp: String, backup: String },
    /// Written in place (the file has several links); `copy` in the journal holds the
    /// old bytes until the group is committed.
    InPlace { copy: String },
}

#[derive(Debug, Serialize, Deserialize)]
struct Record {
    pid: u32,
    entries: Vec<Entry>,
}

impl Entry {
    fn dir(&self) -> &Path {
        Path::new(OsStr::from_bytes(&self.dir))
    }

    fn name(&self) -> &OsStr {
        OsStr::from_bytes(&self.name)
    }
}

impl<'r> Journal<'r> {
    /// The journal of `root`.
    pub fn new(root: &'r RootDir) -> Self {
        Self { root }
    }

    fn open(&self, create: bool) -> io::Result<OwnedFd> {
        if create {
            match rustix::fs::mkdirat(self.root.fd(), JOURNAL_DIR, Mode::from_raw_mode(0o700)) {
                Ok(()) | Err(Errno::EXIST) => {}
                Err(err) => return Err(err.into()),
            }
        }
        let flags = OFlags::DIRECTORY | OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        Ok(rustix::fs::openat(self.root.fd(), JOURNAL_DIR, flags, Mode::empty())?)
    }

    /// Opens the journal directory, made if missing, and holds it: a shared `flock` on it
    /// that [`Journal::tidy`] respects, so the directory stays while the caller puts a file
    /// in it. A directory that another commit's tidy removed between opening and locking
    /// (no links left) is made again.
    fn hold(&self) -> io::Result<OwnedFd> {
        let mut last = io::Error::from(Errno::NOENT);
        for _ in 0..64 {
            let jdir = match self.open(true) {
                Ok(jdir) => jdir,
                Err(err) if err.kind() == io::ErrorKind::NotFound => {
                    last = err;
                    continue;
                }
                Err(err) => return Err(err),
            };
            rustix::fs::flock(&jdir, FlockOperation::LockShared)?;
            if rustix::fs::fstat(&jdir)?.st_nlink > 0 {
                return Ok(jdir);
            }
        }
        Err(last)
    }

    /// Links the unnamed temporary file `file` into the journal directory (made if
    /// missing, and held while linking) under a fresh `.hl<8 hex>.tmp`: the directory and
    /// the name.
    pub(crate) fn link_temp(&self, file: &File) -> io::Result<(OwnedFd, String)> {
        use std::os::fd::AsRawFd;
        let proc = format!("/proc/self/fd/{}", file.as_raw_fd());
        let jdir = self.hold()?;
        loop {
            let name = crate::staging::temp_name("");
            match rustix::fs::linkat(rustix::fs::CWD, proc.as_str(), &jdir, name.as_str(), AtFlags::SYMLINK_FOLLOW) {
                Ok(()) => return Ok((jdir, name)),
                Err(Errno::EXIST) => continue,
                Err(err) => return Err(err.into()),
            }
        }
    }

    /// Removes the journal directory if it is empty and no commit holds it (a commit
    /// working in it holds a shared `flock`; this takes the exclusive one without waiting,
    /// and leaves the directory when it cannot). The caller must not hold it itself.
    ///
    /// The removal goes by name, so the name must still lead to the directory locked: while
    /// this waited for nothing, another tidy may have removed that one and a commit made a
    /// new one and be holding it, still empty, about to link its file there. Only the
    /// locked directory is removed (no one else can remove it while it is locked here, so
    /// the name cannot move between the check and the removal).
    pub fn tidy(&self) {
        let Ok(jdir) = self.open(false) else { return };
        self.tidy_opened(jdir);
    }

    /// [`Journal::tidy`] of a journal directory opened already.
    fn tidy_opened(&self, jdir: OwnedFd) {
        if rustix::fs::flock(&jdir, FlockOperation::NonBlockingLockExclusive).is_err() {
            return;
        }
        let (Ok(held), Ok(named)) =
            (rustix::fs::fstat(&jdir), rustix::fs::statat(self.root.fd(), JOURNAL_DIR, AtFlags::SYMLINK_NOFOLLOW))
        else {
            return;
        };
        if held.st_nlink > 0 && held.st_dev == named.st_dev && held.st_ino == named.st_ino {
            let _ = rustix::fs::unlinkat(self.root.fd(), JOURNAL_DIR, AtFlags::REMOVEDIR);
        }
    }
}

/// Commits a group of files all or none (see the module docs).
pub(crate) fn commit_group(
    journal: &Journal<'_>,
    members: &[Member<'_>],
    hook: &Hook,
) -> Result<(), (usize, CommitError)> {
    let id = random_hex();
    let entries: Vec<Entry> = members
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let dir = m.target.real.parent().unwrap_or(Path::new("/")).as_os_str().as_bytes().to_vec();
            let how = if m.target.snapshot.is_some_and(|s| s.nlink > 1) {
                How::InPlace { copy: format!("{id}-{i}.old") }
            } else {
                How::Rename { temp: format!(".hl{id}{i}.tmp"), backup: format!(".hl{id}{i}.bak") }
            };
            Entry { dir, name: m.target.name.as_bytes().to_vec(), how }
        })
        .collect();
    let record = Record { pid: std::process::id(), entries };
    // The directory is held (another commit's tidy leaves it) until the record is in it.
    let jdir = journal.hold().map_err(|err| (0, err.into()))?;
    let (record_file, prep) = match write_record(jdir.as_fd(), &id, &record) {
        Ok(written) => written,
        Err(err) => {
            drop(jdir);
            journal.tidy();
            return Err((0, err.into()));
        }
    };
    let group = Group { jdir: jdir.as_fd(), members, record: &record };
    let result = group.run(&id, &prep, hook);
    if result.is_err() {
        let _ = rustix::fs::unlinkat(jdir.as_fd(), prep.as_str(), AtFlags::empty());
        let _ = rustix::fs::unlinkat(jdir.as_fd(), format!("{id}.intent").as_str(), AtFlags::empty());
    }
    drop(record_file);
    drop(jdir);
    journal.tidy();
    result
}

fn write_record(jdir: BorrowedFd<'_>, id: &str, record: &Record) -> io::Result<(File, String)> {
    let name = format!("{id}.prep");
    let flags = OFlags::CREATE | OFlags::EXCL | OFlags::WRONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let mut file = File::from(rustix::fs::openat(jdir, name.as_str(), flags, Mode::from_raw_mode(0o600))?);
    rustix::fs::flock(&file, FlockOperation::LockExclusive)?;
    let result = (|| {
        file.write_all(&serde_json::to_vec(record).map_err(io::Error::other)?)?;
        file.sync_all()?;
        rustix::fs::fsync(jdir)?;
        Ok(())
    })();
    if let Err(err) = result {
        let _ = rustix::fs::unlinkat(jdir, name.as_str(), AtFlags::empty());
        return Err(err);
    }
    Ok((file, name))
}

struct Group<'a> {
    jdir: BorrowedFd<'a>,
    members: &'a [Member<'a>],
    record: &'a Record,
}

impl Group<'_> {
    fn run(&self, id: &str, prep: &str, hook: &Hook) -> Result<(), (usize, CommitError)> {
        // Stage prep: everything that can fail for lack of space or permission, before
        // any file is touched.
        for (i, (member, entry)) in self.members.iter().zip(&self.record.entries).enumerate() {
            if let Err(err) = self.prepare(member, entry) {
                rollback(self.jdir, &self.record.entries, Phase::Prep);
                return Err((i, err));
            }
        }
        for (i, (member, entry)) in self.members.iter().zip(&self.record.entries).enumerate() {
            let reserved = matches!(entry.how, How::InPlace { .. });
            let checked = hook(Stage::BeforeCommit, &member.target.real).map_err(CommitError::from).and_then(|()| {
                match member.check && !member.target.unchanged(member.old, reserved)? {
                    true => Err(CommitError::Changed),
                    false => Ok(()),
                }
            });
            if let Err(err) = checked {
                rollback(self.jdir, &self.record.entries, Phase::Prep);
                return Err((i, err));
            }
        }
        let intent = format!("{id}.intent");
        if let Err(err) = advance(self.jdir, prep, &intent) {
            rollback(self.jdir, &self.record.entries, Phase::Prep);
            return Err((0, err.into()));
        }
        // Stage intent: replace the files.
        for (i, (member, entry)) in self.members.iter().zip(&self.record.entries).enumerate() {
            let replaced = replace(member, entry).and_then(|()| hook(Stage::AfterCommit, &member.target.real));
            if let Err(err) = replaced {
                rollback(self.jdir, &self.record.entries, Phase::Intent);
                return Err((i, err.into()));
            }
        }
        for member in self.members {
            let _ = rustix::fs::fsync(&member.target.dir);
        }
        if let Err(err) = advance(self.jdir, &intent, &format!("{id}.commit")) {
            rollback(self.jdir, &self.record.entries, Phase::Intent);
            return Err((0, err.into()));
        }
        // Stage commit: the group is in; clean up.
        rollback(self.jdir, &self.record.entries, Phase::Commit);
        let _ = rustix::fs::unlinkat(self.jdir, format!("{id}.commit").as_str(), AtFlags::empty());
        Ok(())
    }

    fn prepare(&self, member: &Member<'_>, entry: &Entry) -> Result<(), CommitError> {
        let target = member.target;
        match &entry.how {
            How::Rename { temp, backup } => {
                let mode = Mode::from_raw_mode(target.snapshot.map_or(0o666, |s| s.mode));
                // Made under the name the record already holds: a crash from here on leaves
                // it where recovery looks.
                let flags = OFlags::CREATE | OFlags::EXCL | OFlags::WRONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
                let mut file = File::from(rustix::fs::openat(&target.dir, temp.as_str(), flags, mode)?);
                if let Some(snapshot) = target.snapshot {
                    rustix::fs::fchmod(&file, Mode::from_raw_mode(snapshot.mode))?;
                    let _ = rustix::fs::fchown(
                        &file,
                        Some(rustix::fs::Uid::from_raw(snapshot.owner.0)),
                        Some(rustix::fs::Gid::from_raw(snapshot.owner.1)),
                    );
                }
                file.write_all(member.new)?;
                file.sync_data()?;
                if target.exists() {
                    rustix::fs::linkat(&target.dir, &target.name, &target.dir, backup.as_str(), AtFlags::empty())?;
                }
            }
            How::InPlace { copy } => {
                let writer = open_in_place(target)?;
                // Reserve the space first: a full disk fails here, with nothing changed.
                match rustix::fs::fallocate(&writer, FallocateFlags::KEEP_SIZE, 0, member.new.len().max(1) as u64) {
                    Ok(()) | Err(Errno::OPNOTSUPP) | Err(Errno::NOSYS) => {}
                    Err(err) => return Err(err.into()),
                }
                let flags = OFlags::CREATE | OFlags::EXCL | OFlags::WRONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
                let mut file =
                    File::from(rustix::fs::openat(self.jdir, copy.as_str(), flags, Mode::from_raw_mode(0o600))?);
                file.write_all(member.old)?;
                file.sync_all()?;
            }
        }
        Ok(())
    }
}

fn open_in_place(target: &crate::fsio::Target) -> io::Result<File> {
    let flags = OFlags::WRONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let fd = rustix::fs::openat(&target.dir, &target.name, flags, Mode::empty())?;
    let same =
        target.snapshot.is_some_and(|s| rustix::fs::fstat(&fd).is_ok_and(|now| crate::fsio::FileId::of(&now) == s.id));
    if !same {
        return Err(io::Error::other("the file was replaced while it was being written"));
    }
    Ok(File::from(fd))
}

fn replace(member: &Member<'_>, entry: &Entry) -> io::Result<()> {
    let target = member.target;
    match &entry.how {
        How::Rename { temp, .. } => Ok(rustix::fs::renameat(&target.dir, temp.as_str(), &target.dir, &target.name)?),
        How::InPlace { .. } => {
            let file = open_in_place(target)?;
            file.write_all_at(member.new, 0)?;
            file.set_len(member.new.len() as u64)?;
            file.sync_all()
        }
    }
}

fn advance(jdir: BorrowedFd<'_>, from: &str, to: &str) -> io::Result<()> {
    rustix::fs::renameat(jdir, from, jdir, to)?;
    rustix::fs::fsync(jdir)?;
    Ok(())
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Prep,
    Intent,
    Commit,
}

/// Undoes (`Prep`, `Intent`) or finishes (`Commit`) a group; idempotent. Returns the
/// files whose old content was put back.
fn rollback(jdir: BorrowedFd<'_>, entries: &[Entry], phase: Phase) -> Vec<PathBuf> {
    let mut restored = Vec::new();
    for entry in entries {
        let dir = rustix::fs::open(entry.dir(), OFlags::DIRECTORY | OFlags::RDONLY | OFlags::CLOEXEC, Mode::empty());
        match &entry.how {
            How::Rename { temp, backup } => {
                let Ok(dir) = dir else { continue };
                let _ = rustix::fs::unlinkat(&dir, temp.as_str(), AtFlags::empty());
                if phase == Phase::Intent && rustix::fs::renameat(&dir, backup.as_str(), &dir, entry.name()).is_ok() {
                    restored.push(entry.dir().join(entry.name()));
                }
                let _ = rustix::fs::unlinkat(&dir, backup.as_str(), AtFlags::empty());
            }
            How::InPlace { copy } => {
                if phase == Phase::Intent
                    && let Ok(dir) = dir
                    && restore_copy(jdir, copy, dir.as_fd(), entry.name()).is_ok()
                {
                    restored.push(entry.dir().join(entry.name()));
                }
                let _ = rustix::fs::unlinkat(jdir, copy.as_str(), AtFlags::empty());
            }
        }
    }
    restored
}

fn restore_copy(jdir: BorrowedFd<'_>, copy: &str, dir: BorrowedFd<'_>, name: &OsStr) -> io::Result<()> {
    let old = File::from(rustix::fs::openat(jdir, copy, OFlags::RDONLY | OFlags::CLOEXEC, Mode::empty())?);
    let mut bytes = Vec::new();
    io::Read::read_to_end(&mut &old, &mut bytes)?;
    let file =
        File::from(rustix::fs::openat(dir, name, OFlags::WRONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC, Mode::empty())?);
    file.write_all_at(&bytes, 0)?;
    file.set_len(bytes.len() as u64)?;
    file.sync_all()
}

/// Removes a one-file commit's temporary file that its process left in the journal when
/// it stopped between linking and renaming it (a live commit holds its `flock`).
fn remove_dead_temp(jdir: BorrowedFd<'_>, name: &str) {
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let Ok(fd) = rustix::fs::openat(jdir, name, flags, Mode::empty()) else { return };
    if rustix::fs::flock(&fd, FlockOperation::NonBlockingLockExclusive).is_ok() {
        let _ = rustix::fs::unlinkat(jdir, name, AtFlags::empty());
    }
}

/// Recovery at session start: takes over every record of `root`'s journal that no live
/// process holds, rolls its group back or finishes it, and returns one notice per group
/// whose files were restored.
pub fn recover(root: &RootDir) -> Vec<String> {
    let journal = Journal::new(root);
    let Ok(jdir) = journal.open(false) else { return Vec::new() };
    let Ok(listing) = std::fs::read_dir(root.path().join(JOURNAL_DIR)) else { return Vec::new() };
    let mut notices = Vec::new();
    for item in listing.filter_map(Result::ok) {
        let name = item.file_name();
        let Some(name) = name.to_str() else { continue };
        let phase = match Path::new(name).extension().and_then(OsStr::to_str) {
            Some("prep") => Phase::Prep,
            Some("intent") => Phase::Intent,
            Some("commit") => Phase::Commit,
            Some("tmp") => {
                remove_dead_temp(jdir.as_fd(), name);
                continue;
            }
            _ => continue,
        };
        let Ok(fd) =
            rustix::fs::openat(&jdir, name, OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC, Mode::empty())
        else {
            continue;
        };
        // A live process holds its record's lock.
        if rustix::fs::flock(&fd, FlockOperation::NonBlockingLockExclusive).is_err() {
            continue;
        }
        let mut text = Vec::new();
        let parsed = io::Read::read_to_end(&mut File::from(fd), &mut text)
            .ok()
            .and_then(|_| serde_json::from_slice::<Record>(&text).ok());
        if let Some(record) = parsed {
            let restored = rollback(jdir.as_fd(), &record.entries, phase);
            if !restored.is_empty() {
                let shown: Vec<String> = restored
                    .iter()
                    .map(|p| p.strip_prefix(root.path()).unwrap_or(p).to_string_lossy().into_owned())
                    .collect();
                notices.push(format!(
                    "[Recovered an interrupted edit: {} restored to the content before it (the process making it stopped before it finished). Re-run read to refresh.]",
                    shown.join(", ")
                ));
            }
        }
        let _ = rustix::fs::unlinkat(&jdir, name, AtFlags::empty());
    }
    drop(jdir);
    journal.tidy();
    notices
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The interleaving behind a failed commit (`File not found`) in the race test: a tidy
    /// opens the directory; another tidy removes it; a commit makes a new one and holds it,
    /// still empty; the first tidy takes its lock on the old one and removes by name.
    #[test]
    fn a_tidy_removes_only_the_directory_it_locked() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = crate::confine::RootDir::open(dir.path()).expect("root");
        let journal = Journal::new(&root);
        let opened = journal.open(true).expect("make and open");
        std::fs::remove_dir(dir.path().join(JOURNAL_DIR)).expect("the other tidy");
        let held = journal.hold().expect("a commit makes it again and holds it");
        journal.tidy_opened(opened);
        assert!(dir.path().join(JOURNAL_DIR).is_dir(), "the held directory stays");
        drop(held);
        journal.tidy();
        assert!(!dir.path().join(JOURNAL_DIR).exists(), "and goes once no one holds it");
    }
}
