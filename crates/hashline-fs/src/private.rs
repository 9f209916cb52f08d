//! Opening a user's private files (the CLI's session file and its lock) and directories
//! (its undo store, [`PrivateDir`]) so that a directory others may write to cannot turn
//! them against the user: no symlink is followed, a file is created exclusively with mode
//! 0600 (a directory with 0700), and one that another user owns, or (in a directory others
//! may write to) that group or others may write, is refused. Every open is non-blocking, so
//! a FIFO or a device cannot hold the call either.

use std::ffi::{OsStr, OsString};
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;

use crate::sys::{self, Open, errors};

/// Why a private file was refused or could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum PrivateError {
    /// The name is a symlink (never followed).
    #[error("it is a symlink")]
    Symlink,
    /// A FIFO, socket or device; `at_open` when the open itself could not be made without
    /// waiting (a FIFO without a reader), else found through the handle.
    #[error("not a regular file (a FIFO, socket or device)")]
    NotRegular {
        /// Whether the open failed (rather than the check through the handle).
        at_open: bool,
    },
    /// Another user owns it.
    #[error("owned by uid {owner}, not by this user (uid {me})")]
    ForeignOwner {
        /// Its owner.
        owner: u32,
        /// This process's effective user.
        me: u32,
    },
    /// Group or others may write it, in a directory others may put files into.
    #[error("writable by group or others (mode {mode:04o})")]
    SharedWritable {
        /// Its permission bits.
        mode: u32,
    },
    /// Not a directory (where a directory was expected).
    #[error("not a directory")]
    NotDirectory,
    /// A lock that was removed every time it was about to be opened.
    #[error("it keeps disappearing")]
    Vanishing,
    /// The open failed (`at_open`) or the handle's metadata could not be read.
    #[error("{err}")]
    Io {
        /// The operating system's error.
        err: io::Error,
        /// Whether the open failed (rather than the look at the handle).
        at_open: bool,
    },
}

/// Options of every open here: the last component is never followed, nothing waits.
fn options() -> OpenOptions {
    let mut options = OpenOptions::new();
    sys::nonblocking(&mut options, true);
    options
}

fn open_failed(err: io::Error) -> PrivateError {
    if errors::is_symlink(&err) {
        PrivateError::Symlink
    } else if errors::is_no_peer(&err) {
        // A FIFO without a reader, opened for writing without waiting.
        PrivateError::NotRegular { at_open: true }
    } else {
        PrivateError::Io { err, at_open: true }
    }
}

/// Opens (creating it, 0600, if missing) the lock file at `path` for writing.
pub fn open_lock(path: &Path) -> Result<File, PrivateError> {
    // A lock removed between the two opens is made again; more than a few rounds of that
    // is someone playing games.
    for _ in 0..8 {
        let created = sys::private_mode(options().write(true).create_new(true)).open(path);
        match created {
            Ok(file) => return Ok(file),
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {}
            Err(err) => return Err(open_failed(err)),
        }
        match options().write(true).open(path) {
            Ok(file) => {
                check(&file, path)?;
                return Ok(file);
            }
            Err(err) if err.kind() == io::ErrorKind::NotFound => continue,
            Err(err) => return Err(open_failed(err)),
        }
    }
    Err(PrivateError::Vanishing)
}

/// Opens the private file at `path` for reading; `None` when there is none.
pub fn open_existing(path: &Path) -> Result<Option<File>, PrivateError> {
    match options().read(true).open(path) {
        Ok(file) => {
            check(&file, path)?;
            Ok(Some(file))
        }
        Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(open_failed(err)),
    }
}

/// A private directory (the CLI's undo store), opened without following a symlink and
/// checked through its handle as [`open_existing`] checks a file; its files are read,
/// written and removed relative to that handle, so a name swapped for a symlink after the
/// check leads nowhere else.
#[derive(Debug)]
pub struct PrivateDir {
    handle: File,
}

impl PrivateDir {
    /// Opens the directory `path` (made with mode 0700 when missing and `create`); `None`
    /// when it is missing and not made. Refused as a private file is: a symlink, another
    /// user's, or (in a directory others may write to) one that group or others may write.
    pub fn open(path: &Path, create: bool) -> Result<Option<Self>, PrivateError> {
        let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let Some(name) = path.file_name() else {
            return Err(PrivateError::NotDirectory);
        };
        let at_open = |err| PrivateError::Io { err, at_open: true };
        let parent = sys::open_dir_path(parent).map_err(at_open)?;
        let parent = sys::borrow(&parent);
        let handle = match sys::open_at(parent, name, Open::Dir) {
            Err(err) if err.kind() == io::ErrorKind::NotFound && create => {
                match sys::make_dir_at(parent, name, true) {
                    Err(err) if err.kind() != io::ErrorKind::AlreadyExists => return Err(at_open(err)),
                    _ => {}
                }
                sys::open_at(parent, name, Open::Dir)
            }
            other => other,
        };
        let handle = match handle {
            Ok(handle) => File::from(handle),
            Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(err) => {
                // `O_NOFOLLOW | O_DIRECTORY` on a symlink fails as a symlink (`ELOOP`) or as
                // not a directory (`ENOTDIR`, Linux), by platform: the name says which.
                let symlink = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
                let kind = sys::stat_at(parent, name).ok().map(|m| m.kind);
                return Err(match kind {
                    _ if symlink || errors::is_symlink(&err) => PrivateError::Symlink,
                    Some(sys::Kind::File | sys::Kind::Other) => PrivateError::NotDirectory,
                    _ => at_open(err),
                });
            }
        };
        let meta = handle.metadata().map_err(|err| PrivateError::Io { err, at_open: false })?;
        if !meta.is_dir() {
            return Err(PrivateError::NotDirectory);
        }
        check_owner(&meta, path)?;
        Ok(Some(PrivateDir { handle }))
    }

    fn dir(&self) -> sys::HandleRef<'_> {
        sys::borrow(&self.handle)
    }

    /// Whether the name `name` is taken in the directory.
    pub fn contains(&self, name: &str) -> bool {
        sys::stat_at(self.dir(), name.as_ref()).is_ok()
    }

    /// Writes `bytes` as the file `name` (mode 0600): to a new temporary file, renamed over
    /// `name`. Not synced: what the directory keeps is a convenience (the CLI's undo store).
    pub fn write(&self, name: &str, bytes: &[u8]) -> io::Result<()> {
        let temp = format!(".{name}.{}.tmp", crate::staging::random_hex());
        let mut file = File::from(sys::open_at(self.dir(), temp.as_ref(), Open::CreateNew(0o600))?);
        let written =
            file.write_all(bytes).and_then(|()| sys::rename_at(self.dir(), temp.as_ref(), self.dir(), name.as_ref()));
        if written.is_err() {
            let _ = sys::remove_at(self.dir(), temp.as_ref());
        }
        written
    }

    /// Reads the regular file `name`, up to `limit` bytes (more fails as too large).
    pub fn read(&self, name: &str, limit: u64) -> io::Result<Vec<u8>> {
        let file = File::from(sys::open_at(self.dir(), name.as_ref(), Open::Read)?);
        crate::open::read_opened_regular(file, limit)
    }

    /// The names in the directory, sorted.
    pub fn names(&self) -> io::Result<Vec<OsString>> {
        sys::list(self.dir())
    }

    /// Removes the file `name`.
    pub fn remove(&self, name: &OsStr) -> io::Result<()> {
        sys::remove_at(self.dir(), name)
    }
}

/// Whether others may put files into the directory of `path`: it is group- or
/// other-writable (like `/tmp`), or another user's. Unknown counts as shared.
fn in_shared_dir(path: &Path) -> bool {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let owned = std::fs::metadata(dir).ok().map(|meta| sys::owner_and_mode(&meta));
    match owned {
        None => true,
        Some(None) => false,
        Some(Some((me, owner, mode))) => mode & 0o022 != 0 || owner != me,
    }
}

/// A regular file of this user, checked through the handle; in a shared directory
/// ([`in_shared_dir`]) one that only this user may write, too. (In the user's own
/// directory a group-writable file is the user's choice.) Where files have no POSIX
/// owner and mode, only the type is checked.
fn check(file: &File, path: &Path) -> Result<(), PrivateError> {
    let meta = file.metadata().map_err(|err| PrivateError::Io { err, at_open: false })?;
    if !meta.is_file() {
        return Err(PrivateError::NotRegular { at_open: false });
    }
    check_owner(&meta, path)
}

/// Owned by this user, and, in a shared directory, writable by nobody else.
fn check_owner(meta: &std::fs::Metadata, path: &Path) -> Result<(), PrivateError> {
    let Some((me, owner, mode)) = sys::owner_and_mode(meta) else { return Ok(()) };
    if owner != me {
        return Err(PrivateError::ForeignOwner { owner, me });
    }
    if mode & 0o022 != 0 && in_shared_dir(path) {
        return Err(PrivateError::SharedWritable { mode });
    }
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_lock_is_made_0600_and_symlinks_fifos_and_shared_writable_files_are_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let lock = dir.path().join("s.lock");
        open_lock(&lock).expect("made");
        assert_eq!(std::fs::metadata(&lock).expect("meta").permissions().mode() & 0o777, 0o600);
        open_lock(&lock).expect("opened again");
        assert!(open_existing(&dir.path().join("none")).expect("no file").is_none());
        std::os::unix::fs::symlink(&lock, dir.path().join("link")).expect("symlink");
        assert!(matches!(open_existing(&dir.path().join("link")), Err(PrivateError::Symlink)));
        let fifo = dir.path().join("fifo");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo").success());
        assert!(matches!(open_lock(&fifo), Err(PrivateError::NotRegular { at_open: true })));
        assert!(matches!(open_existing(&fifo), Err(PrivateError::NotRegular { at_open: false })));
        let shared = tempfile::tempdir().expect("tempdir");
        std::fs::set_permissions(shared.path(), std::fs::Permissions::from_mode(0o777)).expect("chmod");
        let file = shared.path().join("s.json");
        std::fs::write(&file, "{}").expect("write");
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o666)).expect("chmod");
        assert!(matches!(open_existing(&file), Err(PrivateError::SharedWritable { mode: 0o666 })));
    }

    #[test]
    fn a_private_directory_is_made_0700_and_symlinks_files_and_shared_writable_ones_are_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = dir.path().join("s.changes");
        assert!(PrivateDir::open(&store, false).expect("none").is_none(), "not made unless asked");
        let opened = PrivateDir::open(&store, true).expect("made").expect("opened");
        assert_eq!(std::fs::metadata(&store).expect("meta").permissions().mode() & 0o777, 0o700);
        opened.write("a.blob", b"one").expect("write");
        opened.write("a.blob", b"two").expect("replace");
        assert!(opened.contains("a.blob") && !opened.contains("b.blob"));
        assert_eq!(opened.read("a.blob", 3).expect("read"), b"two");
        assert_eq!(opened.names().expect("names"), [OsString::from("a.blob")], "no temporary file left");
        opened.remove(OsStr::new("a.blob")).expect("remove");
        assert!(opened.names().expect("names").is_empty());
        let victim = tempfile::tempdir().expect("victim");
        let link = dir.path().join("link.changes");
        std::os::unix::fs::symlink(victim.path(), &link).expect("symlink");
        for create in [false, true] {
            assert!(matches!(PrivateDir::open(&link, create), Err(PrivateError::Symlink)));
        }
        let file = dir.path().join("file.changes");
        std::fs::write(&file, "").expect("write");
        assert!(matches!(PrivateDir::open(&file, true), Err(PrivateError::NotDirectory)));
        let shared = tempfile::tempdir().expect("tempdir");
        std::fs::set_permissions(shared.path(), std::fs::Permissions::from_mode(0o1777)).expect("chmod");
        let open = shared.path().join("s.changes");
        std::fs::create_dir(&open).expect("mkdir");
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).expect("chmod");
        assert!(matches!(PrivateDir::open(&open, false), Err(PrivateError::SharedWritable { mode: 0o777 })));
    }
}
