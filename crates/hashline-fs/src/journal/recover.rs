//! Recovery at session start: takes over every record of a root's journal that no live
//! process holds, rolls its group back or finishes it — when, and only when, hashline
//! wrote the record (see [`super::record`]). Anything else in the journal is left as it
//! is and reported once; nothing in it is opened in a way that can block, and nothing is
//! read without a bound.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use super::record::{self, Entry, MAX_RECORD_BYTES, Rejected, is_id};
use super::{JOURNAL_DIR, Journal, Phase, key, remove_dead_temp, rollback};
use crate::root::{RootDir, open_beneath};
use crate::sys::{self, Handle, HandleRef, Open};

/// What recovery did at a session's start.
#[derive(Debug, Default)]
pub struct Recovery {
    /// Each group whose files were restored to their content before it: the files'
    /// absolute paths.
    pub restored: Vec<Vec<String>>,
    /// What it found in the journal and left alone (names in the journal, or the
    /// journal itself): not written by hashline, or not recoverable.
    pub ignored: Vec<String>,
}

impl Recovery {
    /// Whether recovery restored nothing and ignored nothing.
    pub fn is_empty(&self) -> bool {
        self.restored.is_empty() && self.ignored.is_empty()
    }
}

/// Recovery at session start (see the module docs).
pub fn recover(root: &RootDir) -> Recovery {
    let journal = Journal::new(root);
    let mut out = Recovery::default();
    let jdir = match journal.open(false) {
        Ok(jdir) => jdir,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return out,
        Err(_) => {
            // A symlink, a file, a directory that cannot be opened: not looked into.
            out.ignored.push(format!("{JOURNAL_DIR} itself"));
            return out;
        }
    };
    // Read through its handle (never by path: the directory read is the one opened).
    let names = match sys::list(sys::borrow(&jdir)) {
        Ok(names) => names,
        Err(_) => {
            out.ignored.push(format!("{JOURNAL_DIR} itself"));
            return out;
        }
    };
    for name in names {
        let Some(text) = name.to_str() else {
            out.ignored.push(name.to_string_lossy().into_owned());
            continue;
        };
        match classify(text) {
            Kind::Record(id, phase) => match take_over(root, sys::borrow(&jdir), text, id, phase) {
                Outcome::Live => {}
                Outcome::Ignored => out.ignored.push(text.to_owned()),
                Outcome::Done(restored) => {
                    if !restored.is_empty() {
                        out.restored.push(restored);
                    }
                }
            },
            Kind::Temp => remove_dead_temp(&journal, sys::borrow(&jdir), text),
            // A live group's copy, or one its record no longer names: kept.
            Kind::Copy => {}
            Kind::Foreign => out.ignored.push(text.to_owned()),
        }
    }
    drop(jdir);
    journal.tidy();
    out
}

enum Kind<'a> {
    Record(&'a str, Phase),
    Temp,
    Copy,
    Foreign,
}

/// What a name in the journal is, by hashline's own forms: `<id>.prep|intent|commit`,
/// `.hl<id>.tmp`, `<id>-<n>.old`.
fn classify(name: &str) -> Kind<'_> {
    if let Some((id, phase)) = name.split_once('.')
        && is_id(id)
    {
        return match phase {
            "prep" => Kind::Record(id, Phase::Prep),
            "intent" => Kind::Record(id, Phase::Intent),
            "commit" => Kind::Record(id, Phase::Commit),
            _ => Kind::Foreign,
        };
    }
    if let Some(id) = name.strip_prefix(".hl").and_then(|n| n.strip_suffix(".tmp"))
        && is_id(id)
    {
        return Kind::Temp;
    }
    if let Some((id, n)) = name.strip_suffix(".old").and_then(|n| n.split_once('-'))
        && is_id(id)
        && !n.is_empty()
        && n.bytes().all(|b| b.is_ascii_digit())
    {
        return Kind::Copy;
    }
    Kind::Foreign
}

enum Outcome {
    /// A live process holds it (or it is gone).
    Live,
    /// Not hashline's, or not one recovery may act on: left as it is.
    Ignored,
    /// Rolled back or finished; the files put back, as paths to show.
    Done(Vec<String>),
}

fn take_over(root: &RootDir, jdir: HandleRef<'_>, name: &str, id: &str, phase: Phase) -> Outcome {
    let fd = match sys::open_at(jdir, name.as_ref(), Open::Read) {
        Ok(handle) => File::from(handle),
        // Renamed to its next phase, or removed, since the listing: its process is alive
        // (or another recovery took it).
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Outcome::Live,
        Err(_) => return Outcome::Ignored,
    };
    if crate::open::ensure_regular(&fd).is_err() {
        return Outcome::Ignored;
    }
    // A live process holds its record's lock.
    match sys::try_lock(sys::borrow(&fd), false) {
        Ok(true) => {}
        Ok(false) => return Outcome::Live,
        Err(_) => return Outcome::Ignored,
    }
    // The phase is the name's, and a live commit renames its record on, and removes it,
    // before it lets the lock go: a record taken after that is one that finished, not a
    // dead one (opened under a name it has left since; or removed while this handle held
    // it, which Windows still lists until the handle closes). Its phase then is not the
    // name's: rolling back "intent" would put back a finished commit's old files.
    if !sys::still_named(jdir, name.as_ref(), sys::borrow(&fd)) {
        return Outcome::Live;
    }
    // The lock is held (through this description) until the record is gone, so that
    // another session's recovery leaves it.
    let held = match fd.try_clone() {
        Ok(dup) => dup,
        Err(_) => return Outcome::Ignored,
    };
    let Ok(bytes) = crate::open::read_opened_regular(held, MAX_RECORD_BYTES) else {
        return Outcome::Ignored;
    };
    // Where the journal cannot make unnamed files (the portable backend, macOS), a record
    // is created under its name and locked just after, while its commit holds the
    // journal: found empty while a commit holds it, it may be that one's; found empty when
    // none does, its process died before it wrote a byte, and it goes.
    if bytes.is_empty() {
        return match Journal::new(root).in_use() {
            Some(false) => {
                let _ = sys::remove_at(jdir, name.as_ref());
                Outcome::Done(Vec::new())
            }
            _ => Outcome::Live,
        };
    }
    let record = match record::decode(key::key(), root.path(), id, &bytes) {
        Ok(record) => record,
        Err(Rejected::NotAuthentic | Rejected::BadEntry) => return Outcome::Ignored,
    };
    let dirs: Vec<Option<Handle>> = record.entries.iter().map(|entry| open_dir(root, entry)).collect();
    let restored = rollback(jdir, id, &record.entries, dirs.iter().map(|d| d.as_ref().map(sys::borrow)), phase);
    let shown = restored
        .into_iter()
        .map(|i| {
            let entry = &record.entries[i];
            let rel = entry.dir().unwrap_or(Path::new("")).join(entry.name().unwrap_or_default());
            match entry.root().flatten() {
                Some(other) => other.join(rel),
                None => rel,
            }
        })
        .map(|p: PathBuf| p.to_string_lossy().into_owned())
        .collect();
    let _ = sys::remove_at(jdir, name.as_ref());
    drop(fd);
    Outcome::Done(shown)
}

/// The entry's directory, opened beneath its root's handle (no symlink out, no `..`).
fn open_dir(root: &RootDir, entry: &Entry) -> Option<Handle> {
    let rel = entry.dir()?;
    let rel = if rel.as_os_str().is_empty() { Path::new(".") } else { rel };
    match entry.root()? {
        None => open_beneath(root.handle(), rel, Open::Dir).ok(),
        Some(other) => {
            let other = RootDir::open(other).ok()?;
            open_beneath(other.handle(), rel, Open::Dir).ok()
        }
    }
}
