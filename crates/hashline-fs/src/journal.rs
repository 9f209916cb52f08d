//! Crash-atomic group commits (SPEC §7.3, §7.5): several files at once, or one file with
//! several hard links (written in place), commit through an intent record in
//! `<root>/.hashline-journal/`. The record moves through three names — `<id>.prep`
//! (temporary files, backups and recovery copies being made; no file touched yet),
//! `<id>.intent` (files being replaced), `<id>.commit` (all replaced; cleaning up) — each
//! move an atomic rename. The process holds an exclusive `flock` on the record while it
//! works; recovery at session start takes over records nobody holds and rolls the group
//! back (`prep`, `intent`) or finishes the clean-up (`commit`).

mod key;
mod record;
mod recover;

use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, Write};
use std::path::Path;

use crate::root::RootDir;
use crate::staging::{CommitError, Hook, Member, Stage, random_hex};
use crate::sys::{self, Handle, HandleRef, Open};
use record::{Entry, Record, backup_name, copy_name, temp_name};
pub use recover::{Recovery, recover};

/// The journal's directory name in a root. Every hashline tool refuses paths inside it and
/// no walk enters it.
pub const JOURNAL_DIR: &str = ".hashline-journal";

/// The journal of one root.
pub struct Journal<'r> {
    root: &'r RootDir,
}

impl<'r> Journal<'r> {
    /// The journal of `root`.
    pub fn new(root: &'r RootDir) -> Self {
        Self { root }
    }

    fn open(&self, create: bool) -> io::Result<Handle> {
        if create {
            match sys::make_dir_at(self.root.handle(), JOURNAL_DIR.as_ref(), true) {
                Err(err) if err.kind() != io::ErrorKind::AlreadyExists => return Err(err),
                _ => {}
            }
        }
        sys::open_at(self.root.handle(), JOURNAL_DIR.as_ref(), Open::Dir)
    }

    /// Opens the journal directory, made if missing, and holds it until the returned value
    /// is dropped: a shared `flock` on the root directory, which [`Journal::tidy`] needs
    /// exclusively, so the journal stays while the caller puts a file in it.
    ///
    /// The lock is on the root, not the journal: a lock on the journal can only be taken
    /// after the directory is made and opened, and a tidy between the two removed it again,
    /// so that under steady tidying a commit could lose every try (the race test saw a
    /// commit fail after 64). A tidy holds its lock for one `rmdir`; a lock on the root held
    /// by anything else for longer than [`HOLD_WAIT`] fails the commit rather than hang it.
    fn hold(&self) -> io::Result<Held> {
        self.hold_within(HOLD_WAIT)
    }

    /// [`Journal::hold`], waiting at most `wait` for the root's lock.
    fn hold_within(&self, wait: std::time::Duration) -> io::Result<Held> {
        let lock = self.root_lock()?;
        if !lock_within(&lock, true, wait)? {
            return Err(io::Error::new(io::ErrorKind::WouldBlock, "the journal stayed locked"));
        }
        // Made and opened again if it vanished in between (see [`REMADE`]): while this
        // holds the lock, no tidy can ask for the new one's removal.
        let mut remade = 0;
        let dir = loop {
            match self.open(true) {
                Err(err) if err.kind() == io::ErrorKind::NotFound && remade < REMADE => remade += 1,
                opened => break opened?,
            }
        };
        Ok(Held { dir, _lock: lock })
    }

    /// A new open file description of the root directory, to lock (each holder and tidy
    /// needs its own: locks through one description do not exclude each other).
    fn root_lock(&self) -> io::Result<Handle> {
        sys::dir_lock(self.root.handle())
    }

    /// Links the unnamed temporary file `file` into the journal directory (made if
    /// missing, and held while linking) under a fresh `.hl<8 hex>.tmp`: the directory and
    /// the name.
    pub(crate) fn link_temp(&self, file: &File) -> io::Result<(Held, String)> {
        let jdir = self.hold()?;
        loop {
            let name = crate::staging::temp_name("");
            match sys::link_unnamed(file, jdir.dir(), name.as_str()) {
                Ok(()) => return Ok((jdir, name)),
                Err(err) if err.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(err) => return Err(err),
            }
        }
    }

    /// Makes a named temporary file `.hl<8 hex>.tmp` in the journal (made if missing, and
    /// held until the returned value is dropped) with `mode`, locked at once, for a
    /// commit whose target lies in `target_dir`: `None` where the journal cannot be made
    /// or lies on another file system than `target_dir` (a rename could not move it).
    pub(crate) fn create_temp(&self, mode: u32, target_dir: HandleRef<'_>) -> Option<(Held, File, String)> {
        let held = self.hold().ok()?;
        let same_fs = |a: HandleRef<'_>, b: HandleRef<'_>| {
            sys::stat(a).ok().zip(sys::stat(b).ok()).is_some_and(|(a, b)| a.id.dev == b.id.dev)
        };
        if !same_fs(held.dir(), target_dir) {
            drop(held);
            self.tidy();
            return None;
        }
        if let Ok((file, name)) = crate::staging::create_named(held.dir(), mode) {
            // Until this lock, recovery tells the file from a dead one by the hold.
            if sys::lock(sys::borrow(&file)).is_ok() {
                return Some((held, file, name));
            }
            let _ = sys::remove_at(held.dir(), name.as_ref());
        }
        drop(held);
        self.tidy();
        None
    }

    /// Whether a commit holds the journal now (see [`Journal::hold`]); `None` when that
    /// cannot be told. Holding nothing afterwards.
    pub(crate) fn in_use(&self) -> Option<bool> {
        let lock = self.root_lock().ok()?;
        sys::try_lock(sys::borrow(&lock), false).ok().map(|taken| !taken)
    }

    /// Removes the journal directory if it is empty and no commit holds it (a commit
    /// working in it holds a shared `flock` on the root; this takes the exclusive one,
    /// waiting at most 20 ms (`TIDY_WAIT`), and leaves the directory when it cannot: the last
    /// holder's own tidy removes it). The caller must not hold it itself.
    pub fn tidy(&self) {
        let Ok(lock) = self.root_lock() else { return };
        if !lock_within(&lock, false, TIDY_WAIT).unwrap_or(false) {
            return;
        }
        // Fails, leaving it, while it holds anything (a dead commit's record).
        let _ = sys::remove_dir_at(self.root.handle(), JOURNAL_DIR.as_ref());
    }
}

/// Takes the root's lock through `lock` (shared or exclusive), trying every 200 µs for at
/// most `wait`; whether it was taken.
fn lock_within(lock: &Handle, shared: bool, wait: std::time::Duration) -> io::Result<bool> {
    let deadline = std::time::Instant::now() + wait;
    loop {
        if sys::try_lock(sys::borrow(lock), shared)? {
            return Ok(true);
        }
        if std::time::Instant::now() >= deadline {
            return Ok(false);
        }
        std::thread::sleep(std::time::Duration::from_micros(200));
    }
}

/// How long [`Journal::tidy`] waits for the commits holding the journal to let it go. A
/// commit's own tidy comes after it let its lock go, but a process that starts another
/// program (a test harness, an agent running commands) holds a copy of every open lock
/// between its fork and the other program's start: a tidy that tried once found the lock
/// taken then, and left the empty directory until the next commit.
const TIDY_WAIT: std::time::Duration = std::time::Duration::from_millis(20);

/// How long [`Journal::hold`] waits for the root's lock (a tidy holds it for one `rmdir`).
const HOLD_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// How many times a held journal directory that vanished before anything was put in it is
/// made again. The lock keeps hashline's own tidies off a held directory, but not every
/// removal: where a directory goes only when its last handle closes (Wine, FAT volumes), a
/// tidy's removal asked for before the hold completes whenever another handle on it closes,
/// and another program may remove the empty directory at any time. Each such removal takes
/// a directory nothing is in yet, so the commit starts again from the directory, nothing
/// touched; a few tries outlast any removal that is not a program doing it in a loop.
const REMADE: usize = 8;

/// The journal directory, held (see [`Journal::hold`]).
pub(crate) struct Held {
    dir: Handle,
    _lock: Handle,
}

impl Held {
    /// The journal directory's handle.
    pub(crate) fn dir(&self) -> HandleRef<'_> {
        sys::borrow(&self.dir)
    }
}

/// Commits a group of files all or none (see the module docs).
pub(crate) fn commit_group(
    journal: &Journal<'_>,
    members: &[Member<'_>],
    hook: &Hook,
) -> Result<(), (usize, CommitError)> {
    let id = random_hex();
    let root = journal.root.path();
    let entries: Vec<Entry> = members
        .iter()
        .map(|m| {
            let parent = m.target.real.parent().unwrap_or(Path::new("/"));
            let (other, dir) = match parent.strip_prefix(root) {
                Ok(rel) => (None, sys::name_bytes(rel.as_os_str()).into_owned()),
                Err(_) => (Some(sys::name_bytes(parent.as_os_str()).into_owned()), Vec::new()),
            };
            let in_place = !m.remove && m.target.snapshot.is_some_and(|s| s.nlink > 1);
            let created = (!m.remove && !m.target.exists()).then(|| record::digest_hex(m.new));
            let name = sys::name_bytes(&m.target.name).into_owned();
            Entry { root: other, dir, name, in_place, remove: m.remove, created }
        })
        .collect();
    let record = Record { pid: std::process::id(), entries };
    let bytes = record::encode(key::key(), root, &id, &record);
    let (jdir, record_file, prep) = hold_and_write(journal, &id, &bytes).map_err(|err| (0, journal_failed(err)))?;
    let dirs: Vec<HandleRef<'_>> = members.iter().map(|m| sys::borrow(&m.target.dir)).collect();
    let group = Group { jdir: jdir.dir(), members, record: &record, record_file: &record_file, id: &id, dirs: &dirs };
    let result = group.run(&id, &prep, hook);
    if result.is_err() {
        let _ = sys::remove_at(jdir.dir(), prep.as_ref());
        let _ = sys::remove_at(jdir.dir(), format!("{id}.intent").as_ref());
    }
    drop(record_file);
    drop(jdir);
    journal.tidy();
    result
}

/// A failure of the journal's own files (the directory, the record): reported against the
/// group's first file, so a name the journal lost must not read as that file missing.
fn journal_failed(err: io::Error) -> CommitError {
    match err.kind() {
        io::ErrorKind::NotFound => {
            CommitError::Io(io::Error::other(format!("the edit's journal entry in {JOURNAL_DIR} went missing ({err})")))
        }
        _ => CommitError::Io(err),
    }
}

/// Holds the journal directory (another commit's tidy leaves it) and puts the group's record
/// in it as `<id>.prep`: locked, written and synced before its name appears (an unnamed file
/// linked into place), so that a recovery never finds a live commit's record unlocked: the
/// lock tells live from dead. Where unnamed files cannot be linked here (the portable
/// backend, Windows), the record is made under its name and locked at once; a recovery in
/// between finds it empty and new, and leaves it as a live one.
///
/// A directory that vanished before the record was named in it is made again (see
/// [`REMADE`]), and a record already written and synced is linked into the new one as it is
/// (still locked): only the link is tried again, not the sync, whose time a removal would
/// otherwise hit every time.
fn hold_and_write(journal: &Journal<'_>, id: &str, bytes: &[u8]) -> io::Result<(Held, File, String)> {
    let name = format!("{id}.prep");
    let mut unnamed: Option<File> = None;
    let mut remade = 0;
    loop {
        let jdir = journal.hold()?;
        #[cfg(test)]
        tests::another_program_removes_it(journal);
        let placed = match unnamed.take() {
            Some(file) => name_record(file, jdir.dir(), &name),
            None => write_record(jdir.dir(), &name, bytes),
        };
        let err = match placed {
            Ok(file) => return Ok((jdir, file, name)),
            Err((left, err)) => {
                unnamed = left;
                err
            }
        };
        // Removed from under the record: `ENOENT`, or `EPERM` from Linux's `O_TMPFILE`.
        let vanished = err.kind() == io::ErrorKind::NotFound
            || !sys::still_named(journal.root.handle(), JOURNAL_DIR.as_ref(), jdir.dir());
        drop(jdir);
        journal.tidy();
        match vanished {
            false => return Err(err),
            true if remade == REMADE => return Err(io::Error::new(io::ErrorKind::NotFound, err)),
            true => remade += 1,
        }
    }
}

/// What a failed placing of the record leaves: the record, written, synced and locked but
/// named nowhere, to link elsewhere; or nothing (any name it had removed).
type Unplaced = (Option<File>, io::Error);

/// Makes, locks, writes and syncs the record `name` in `jdir` (see [`hold_and_write`]).
fn write_record(jdir: HandleRef<'_>, name: &str, bytes: &[u8]) -> Result<File, Unplaced> {
    let unnamed = sys::unnamed_file(jdir, 0o600).map_err(|err| (None, err))?;
    let write = |mut file: &File| -> io::Result<()> {
        sys::lock(sys::borrow(file))?;
        file.write_all(bytes)?;
        crate::sys::sync_all(file)
    };
    match unnamed {
        Some(file) => match write(&file) {
            Ok(()) => name_record(file, jdir, name),
            Err(err) => Err((None, err)),
        },
        None => {
            let file =
                File::from(sys::open_at(jdir, name.as_ref(), Open::CreateNew(0o600)).map_err(|err| (None, err))?);
            match write(&file).and_then(|()| crate::sys::sync_dir(jdir)) {
                Ok(()) => Ok(file),
                Err(err) => {
                    let _ = sys::remove_at(jdir, name.as_ref());
                    Err((None, err))
                }
            }
        }
    }
}

/// Links the written record `file` into `jdir` as `name` and syncs the directory.
fn name_record(file: File, jdir: HandleRef<'_>, name: &str) -> Result<File, Unplaced> {
    if let Err(err) = crate::sys::link_unnamed(&file, jdir, name) {
        return Err((Some(file), err));
    }
    if let Err(err) = crate::sys::sync_dir(jdir) {
        let _ = sys::remove_at(jdir, name.as_ref());
        return Err((None, err));
    }
    Ok(file)
}

struct Group<'a> {
    jdir: HandleRef<'a>,
    members: &'a [Member<'a>],
    record: &'a Record,
    /// The record's file, open and locked.
    record_file: &'a File,
    id: &'a str,
    /// Each member's directory, held.
    dirs: &'a [HandleRef<'a>],
}

impl Group<'_> {
    fn run(&self, id: &str, prep: &str, hook: &Hook) -> Result<(), (usize, CommitError)> {
        // Stage prep: everything that can fail for lack of space or permission, before
        // any file is touched.
        for (i, (member, entry)) in self.members.iter().zip(&self.record.entries).enumerate() {
            if let Err(err) = self.prepare(i, member, entry) {
                self.rollback(Phase::Prep);
                return Err((i, err));
            }
        }
        for (i, (member, entry)) in self.members.iter().zip(&self.record.entries).enumerate() {
            let reserved = entry.in_place;
            let checked = hook(Stage::BeforeCommit, &member.target.real).map_err(CommitError::from).and_then(|()| {
                match member.check && !member.target.unchanged(member.old, reserved)? {
                    true => Err(CommitError::Changed),
                    false => Ok(()),
                }
            });
            if let Err(err) = checked {
                self.rollback(Phase::Prep);
                return Err((i, err));
            }
        }
        let intent = format!("{id}.intent");
        if let Err(err) = advance(self.jdir, self.record_file, prep, &intent) {
            self.rollback(Phase::Prep);
            return Err((0, journal_failed(err)));
        }
        // Stage intent: replace the files.
        for (i, (member, entry)) in self.members.iter().zip(&self.record.entries).enumerate() {
            let replaced = replace(&temp_name(self.id, i), member, entry)
                .and_then(|()| hook(Stage::AfterCommit, &member.target.real));
            if let Err(err) = replaced {
                self.rollback(Phase::Intent);
                return Err((i, err.into()));
            }
        }
        for member in self.members {
            let _ = sys::sync_dir(sys::borrow(&member.target.dir));
        }
        if let Err(err) = advance(self.jdir, self.record_file, &intent, &format!("{id}.commit")) {
            self.rollback(Phase::Intent);
            return Err((0, journal_failed(err)));
        }
        // Stage commit: the group is in; clean up.
        self.rollback(Phase::Commit);
        let _ = sys::remove_at(self.jdir, format!("{id}.commit").as_ref());
        Ok(())
    }

    fn rollback(&self, phase: Phase) {
        let dirs = self.dirs.iter().map(|d| Some(*d));
        rollback(self.jdir, self.id, &self.record.entries, dirs, phase);
    }

    fn prepare(&self, i: usize, member: &Member<'_>, entry: &Entry) -> Result<(), CommitError> {
        let target = member.target;
        let (temp, backup, copy) = (temp_name(self.id, i), backup_name(self.id, i), copy_name(self.id, i));
        if entry.remove {
            // Nothing to write: the old file is kept as a backup link until the group is in.
            if !target.exists() {
                return Err(sys::errors::not_found().into());
            }
            let dir = sys::borrow(&target.dir);
            sys::link_at(dir, &target.name, dir, backup.as_ref())?;
            return Ok(());
        }
        match entry.in_place {
            false => {
                let mode = crate::target::Snapshot::mode_for(target.snapshot);
                // Made under the name the record already holds: a crash from here on leaves
                // it where recovery looks.
                let dir = sys::borrow(&target.dir);
                let mut file = File::from(sys::open_at(dir, temp.as_ref(), Open::CreateNew(mode))?);
                if let Some(snapshot) = target.snapshot {
                    sys::keep_owner(&file, snapshot.mode, snapshot.owner)?;
                }
                file.write_all(member.new)?;
                sys::sync_data(&file)?;
                if target.exists() {
                    sys::link_at(dir, &target.name, dir, backup.as_ref())?;
                }
            }
            true => {
                let writer = open_in_place(target)?;
                // Reserve the space first where the backend can: a full disk fails here, with
                // nothing changed. Elsewhere the write in place grows the file before it
                // overwrites anything (see `replace`), and a full disk fails there, rolled
                // back from the copy made next.
                sys::reserve(&writer, member.new.len() as u64)?;
                let mut file = File::from(sys::open_at(self.jdir, copy.as_ref(), Open::CreateNew(0o600))?);
                file.write_all(member.old)?;
                sys::sync_all(&file)?;
            }
        }
        Ok(())
    }
}

fn open_in_place(target: &crate::target::Target) -> io::Result<File> {
    let handle = sys::open_at(sys::borrow(&target.dir), &target.name, Open::Write)?;
    let same = target.snapshot.is_some_and(|s| sys::stat(sys::borrow(&handle)).is_ok_and(|now| now.id == s.id));
    if !same {
        return Err(io::Error::other("the file was replaced while it was being written"));
    }
    Ok(File::from(handle))
}

fn replace(temp: &str, member: &Member<'_>, entry: &Entry) -> io::Result<()> {
    let target = member.target;
    if entry.remove {
        return sys::remove_at(sys::borrow(&target.dir), &target.name);
    }
    match entry.in_place {
        false => {
            let dir = sys::borrow(&target.dir);
            sys::rename_at(dir, temp.as_ref(), dir, &target.name)
        }
        true => {
            let file = open_in_place(target)?;
            // The growth first, past the old end: where no space could be reserved, a full
            // disk fails here with every old byte still in place.
            let old_len = member.old.len().min(member.new.len());
            sys::write_all_at(&file, &member.new[old_len..], old_len as u64)?;
            sys::write_all_at(&file, &member.new[..old_len], 0)?;
            file.set_len(member.new.len() as u64)?;
            sys::sync_all(&file)
        }
    }
}

/// Renames the record `record` from `from` to `to`, if `from` still names it: one that
/// another program removed (which Windows may only mark, leaving the name listed while
/// this handle holds it) or replaced would leave a crash nothing to recover from.
fn advance(jdir: HandleRef<'_>, record: &File, from: &str, to: &str) -> io::Result<()> {
    if !sys::still_named(jdir, from.as_ref(), sys::borrow(record)) {
        return Err(sys::errors::not_found());
    }
    sys::rename_at(jdir, from.as_ref(), jdir, to.as_ref())?;
    sys::sync_dir(jdir)?;
    Ok(())
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Prep,
    Intent,
    Commit,
}

/// Undoes (`Prep`, `Intent`) or finishes (`Commit`) the group `id`; idempotent. `dirs`
/// holds each entry's directory (`None`: it could not be opened beneath its root).
/// Returns the indices of the files whose old content was put back.
fn rollback<'d>(
    jdir: HandleRef<'_>,
    id: &str,
    entries: &[Entry],
    dirs: impl Iterator<Item = Option<HandleRef<'d>>>,
    phase: Phase,
) -> Vec<usize> {
    let mut restored = Vec::new();
    for (i, (entry, dir)) in entries.iter().zip(dirs).enumerate() {
        let Some(name) = entry.name() else { continue };
        match entry.in_place {
            false => {
                let Some(dir) = dir else { continue };
                let (temp, backup) = (temp_name(id, i), backup_name(id, i));
                let _ = sys::remove_at(dir, temp.as_ref());
                if phase == Phase::Intent && sys::rename_at(dir, backup.as_ref(), dir, name).is_ok() {
                    restored.push(i);
                } else if phase == Phase::Intent
                    && let Some(digest) = &entry.created
                    && holds(dir, name, digest)
                    && sys::remove_at(dir, name).is_ok()
                {
                    // A file the group made: gone again, as before the group.
                    restored.push(i);
                }
                let _ = sys::remove_at(dir, backup.as_ref());
            }
            true => {
                let copy = copy_name(id, i);
                if phase == Phase::Intent
                    && let Some(dir) = dir
                    && restore_copy(jdir, &copy, dir, name).is_ok()
                {
                    restored.push(i);
                }
                let _ = sys::remove_at(jdir, copy.as_ref());
            }
        }
    }
    restored
}

/// Whether `name` in `dir` is a regular file holding the bytes whose SHA-256 is `digest`.
fn holds(dir: HandleRef<'_>, name: &OsStr, digest: &str) -> bool {
    let Ok(handle) = sys::open_at(dir, name, Open::Read) else { return false };
    crate::open::read_opened_regular(File::from(handle), crate::target::MAX_FILE_BYTES)
        .is_ok_and(|bytes| record::digest_hex(&bytes) == digest)
}

/// Writes the old bytes kept in the journal's `copy` back into `name` (a regular file
/// both, opened without blocking or following a symlink, read up to the size it had).
fn restore_copy(jdir: HandleRef<'_>, copy: &str, dir: HandleRef<'_>, name: &OsStr) -> io::Result<()> {
    let old = File::from(sys::open_at(jdir, copy.as_ref(), Open::Read)?);
    // A copy is of a file the tools loaded, so never over their bound.
    let bytes = crate::open::read_opened_regular(old, crate::target::MAX_FILE_BYTES)?;
    let file = File::from(sys::open_at(dir, name, Open::Write)?);
    crate::open::ensure_regular(&file)?;
    sys::write_all_at(&file, &bytes, 0)?;
    file.set_len(bytes.len() as u64)?;
    sys::sync_all(&file)
}

/// Removes a one-file commit's temporary file that its process left in the journal when
/// it stopped before renaming it (a live commit holds its `flock`; one made under its
/// name, by the portable backend, is unlocked and empty for an instant after it is made,
/// while its commit holds the journal).
fn remove_dead_temp(journal: &Journal<'_>, jdir: HandleRef<'_>, name: &str) {
    let Ok(handle) = sys::open_at(jdir, name.as_ref(), Open::Read) else { return };
    if !sys::try_lock(sys::borrow(&handle), false).unwrap_or(false) {
        return;
    }
    let empty = sys::stat(sys::borrow(&handle)).is_ok_and(|meta| meta.size == 0);
    if !empty || journal.in_use() == Some(false) {
        let _ = sys::remove_at(jdir, name.as_ref());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    thread_local! {
        /// How many of this thread's next group commits find their held journal directory
        /// removed by another program before they put their record in it ...
        // It is `const`: clippy 1.96 says otherwise for Windows targets (see
        // hashline-search's `rules.rs`).
        #[allow(clippy::missing_const_for_thread_local)]
        static REMOVALS: Cell<usize> = const { Cell::new(0) };
        /// ... and how many times a group commit held the directory.
        #[allow(clippy::missing_const_for_thread_local)]
        static HOLDS: Cell<usize> = const { Cell::new(0) };
    }

    /// [`hold_and_write`]'s seam: another program removes the held directory (as one may,
    /// heeding no lock) while [`REMOVALS`] says so.
    pub(super) fn another_program_removes_it(journal: &Journal<'_>) {
        HOLDS.set(HOLDS.get() + 1);
        if REMOVALS.get() > 0 {
            REMOVALS.set(REMOVALS.get() - 1);
            sys::remove_dir_at(journal.root.handle(), JOURNAL_DIR.as_ref()).expect("the empty directory removed");
        }
    }

    /// docs/protocol.md: a group commit whose held journal directory vanished before its
    /// record was in it makes it again and starts over, up to 8 times; after that it fails
    /// with the record gone missing, nothing left behind.
    #[test]
    #[cfg_attr(
        windows,
        ignore = "Wine removes a directory held open only when its last handle closes, and files can still be made in it until then"
    )]
    fn a_group_makes_a_removed_journal_again_up_to_eight_times() {
        let (dir, root) = scratch_root();
        let journal = Journal::new(&root);
        let record = Record { pid: std::process::id(), entries: Vec::new() };
        let bytes = record::encode(key::key(), root.path(), "0123abcd", &record);
        // Removed once: made again, and the record is in the new directory.
        REMOVALS.set(1);
        HOLDS.set(0);
        let (jdir, file, name) = hold_and_write(&journal, "0123abcd", &bytes).expect("made again");
        assert_eq!(HOLDS.get(), 2);
        assert!(dir.path().join(JOURNAL_DIR).join(&name).is_file(), "the record is named in the new directory");
        let _ = sys::remove_at(jdir.dir(), name.as_ref());
        drop((jdir, file));
        journal.tidy();
        // Removed every time: 1 + 8 tries, then the record gone missing.
        REMOVALS.set(usize::MAX);
        HOLDS.set(0);
        let err = hold_and_write(&journal, "4567cdef", &bytes).err().expect("no directory kept");
        REMOVALS.set(0);
        assert_eq!(HOLDS.get(), 9, "the first try and 8 more");
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
        let shown = journal_failed(err).to_string();
        assert!(shown.contains("the edit's journal entry in .hashline-journal went missing"), "{shown}");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert!(left.is_empty(), "nothing left behind: {left:?}");
    }

    /// A scratch directory and the root opened on it.
    fn scratch_root() -> (tempfile::TempDir, RootDir) {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = RootDir::open(dir.path()).expect("root");
        (dir, root)
    }

    /// The interleaving behind failed commits (`File not found`) in the race test: a commit
    /// makes and holds the journal, still empty, about to put its file there, while other
    /// commits' tidies run; none may remove it until it is let go.
    #[test]
    fn a_tidy_leaves_the_journal_while_a_commit_holds_it() {
        let (dir, root) = scratch_root();
        let journal = Journal::new(&root);
        let held = journal.hold().expect("a commit makes it and holds it");
        let second = journal.hold().expect("another commit holds it too");
        journal.tidy();
        assert!(dir.path().join(JOURNAL_DIR).is_dir(), "the held directory stays");
        drop(held);
        journal.tidy();
        assert!(dir.path().join(JOURNAL_DIR).is_dir(), "while anyone holds it");
        drop(second);
        journal.tidy();
        assert!(!dir.path().join(JOURNAL_DIR).exists(), "and goes once no one holds it");
    }

    /// A commit waits for a tidy (which holds the lock for one `rmdir`) and then makes the
    /// journal again, but gives up on a lock held for longer.
    #[test]
    fn a_commit_waits_for_a_tidy_but_not_forever() {
        let (_dir, root) = scratch_root();
        let journal = Journal::new(&root);
        let tidying = journal.root_lock().unwrap();
        assert!(sys::try_lock(sys::borrow(&tidying), false).unwrap());
        std::thread::scope(|scope| {
            let commit = scope.spawn(|| journal.hold().map(|held| sys::stat(held.dir()).unwrap().nlink));
            std::thread::sleep(std::time::Duration::from_millis(50));
            assert!(!commit.is_finished(), "the commit waits for the tidy");
            drop(tidying);
            assert!(commit.join().unwrap().unwrap() > 0, "and holds a live journal");
        });
        let stuck = journal.root_lock().unwrap();
        assert!(sys::try_lock(sys::borrow(&stuck), false).unwrap());
        let started = std::time::Instant::now();
        let err = journal.hold_within(std::time::Duration::from_millis(100)).err().expect("no hold");
        assert_eq!(err.kind(), io::ErrorKind::WouldBlock);
        assert!(started.elapsed() >= std::time::Duration::from_millis(100));
    }

    /// A copy of a commit's lock that outlives the commit for a moment (a process starting
    /// another program holds one between its fork and the program's start) does not leave
    /// the empty journal behind: the tidy waits for it (it tried once, and the directory
    /// stayed until the next commit: 3 runs in 40 of a test program that starts others).
    #[test]
    fn a_tidy_waits_for_a_lock_let_go_a_moment_later() {
        let (dir, root) = scratch_root();
        let journal = Journal::new(&root);
        drop(journal.hold().expect("the journal made"));
        assert!(dir.path().join(JOURNAL_DIR).is_dir());
        let copy = journal.root_lock().unwrap();
        assert!(sys::try_lock(sys::borrow(&copy), true).unwrap());
        std::thread::scope(|scope| {
            scope.spawn(move || {
                std::thread::sleep(std::time::Duration::from_millis(1));
                drop(copy);
            });
            journal.tidy();
        });
        assert!(!dir.path().join(JOURNAL_DIR).exists(), "the tidy removed it once the copy went");
        // A lock held past the wait leaves it, and the tidy returns.
        drop(journal.hold().expect("made again"));
        let stuck = journal.root_lock().unwrap();
        assert!(sys::try_lock(sys::borrow(&stuck), true).unwrap());
        journal.tidy();
        assert!(dir.path().join(JOURNAL_DIR).is_dir(), "left to the holder's own tidy");
    }

    /// The interleaving behind the other failed commit (`File not found`, 90 of 360 edits
    /// in one CI run): a session starting while a commit had made its record but not yet
    /// locked or written it took the record for a dead one and removed it. The record's
    /// name now appears once it is locked and written; one that cannot be read or does not
    /// verify is not hashline's to act on: it stays, reported.
    #[test]
    fn a_live_commits_record_stays_and_an_unreadable_one_is_reported() {
        let (dir, root) = scratch_root();
        let journal = Journal::new(&root);
        let record = Record { pid: std::process::id(), entries: Vec::new() };
        let bytes = record::encode(key::key(), root.path(), "0123abcd", &record);
        let (jdir, file, name) = hold_and_write(&journal, "0123abcd", &bytes).expect("the record");
        let path = dir.path().join(JOURNAL_DIR).join(&name);
        let listed: Vec<_> =
            std::fs::read_dir(dir.path().join(JOURNAL_DIR)).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(listed, [std::ffi::OsString::from(&name)], "nothing but the record");
        let other = File::open(&path).unwrap();
        assert!(!sys::try_lock(sys::borrow(&other), false).unwrap(), "it is locked");
        assert!(recover(&root).is_empty());
        assert!(path.exists(), "a live commit's record stays");
        drop(file);
        drop(other);
        drop(jdir);
        assert!(recover(&root).is_empty(), "a dead empty group: nothing to restore");
        assert!(!path.exists(), "its record goes");
        assert!(!dir.path().join(JOURNAL_DIR).exists(), "and the journal with it");
        std::fs::create_dir(dir.path().join(JOURNAL_DIR)).unwrap();
        std::fs::write(&path, b"{\"pid\":").unwrap();
        let recovery = recover(&root);
        assert_eq!(recovery.ignored, [name]);
        assert!(recovery.restored.is_empty());
        assert!(path.exists(), "a record hashline cannot verify stays");
    }

    /// A record or temporary file the portable backend made under its name and has not
    /// locked yet is empty (the full suite's journal race saw recovery report such a record
    /// as not hashline's): while a commit holds the journal it is left alone as a live one;
    /// when none does, its process died before writing a byte, and it goes unreported.
    #[test]
    fn an_empty_record_or_temp_is_left_while_a_commit_holds_the_journal_and_goes_after() {
        let (dir, root) = scratch_root();
        let journal = Journal::new(&root);
        let held = journal.hold().expect("a commit holds the journal");
        let record = dir.path().join(JOURNAL_DIR).join("0123abcd.prep");
        let temp = dir.path().join(JOURNAL_DIR).join(".hl0123abcd.tmp");
        std::fs::write(&record, b"").unwrap();
        std::fs::write(&temp, b"").unwrap();
        assert!(recover(&root).is_empty(), "neither is taken nor reported");
        assert!(record.exists() && temp.exists());
        drop(held);
        assert!(recover(&root).is_empty(), "a dead empty one: nothing to restore or report");
        assert!(!dir.path().join(JOURNAL_DIR).exists(), "both gone, and the journal with them");
    }

    /// protocol §4.9 step 6: a recovery copy is written back only into a regular file,
    /// opened without blocking or following a symlink (a FIFO or a symlink planted under
    /// the file's name after the crash is refused at once, its target untouched).
    #[cfg(unix)]
    #[test]
    fn a_copy_is_restored_only_into_a_regular_file() {
        let (dir, root) = scratch_root();
        let jdir = Journal::new(&root).hold().expect("journal");
        std::fs::write(dir.path().join(JOURNAL_DIR).join("0123abcd-0.old"), "old\n").unwrap();
        let status = std::process::Command::new("mkfifo").arg(dir.path().join("pipe")).status().expect("mkfifo");
        assert!(status.success());
        std::fs::write(dir.path().join("target"), "keep\n").unwrap();
        std::os::unix::fs::symlink(dir.path().join("target"), dir.path().join("link")).unwrap();
        std::fs::write(dir.path().join("plain"), "new\n").unwrap();
        let started = std::time::Instant::now();
        for name in ["pipe", "link"] {
            assert!(restore_copy(jdir.dir(), "0123abcd-0.old", root.handle(), OsStr::new(name)).is_err(), "{name}");
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(5), "nothing blocked");
        assert_eq!(std::fs::read(dir.path().join("target")).unwrap(), b"keep\n");
        restore_copy(jdir.dir(), "0123abcd-0.old", root.handle(), OsStr::new("plain")).expect("a regular file");
        assert_eq!(std::fs::read(dir.path().join("plain")).unwrap(), b"old\n");
    }
}
