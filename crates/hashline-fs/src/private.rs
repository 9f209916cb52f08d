//! Opening a user's private files (the CLI's session file and its lock) so that a
//! directory others may write to cannot turn them against the user: no symlink is
//! followed, a file is created exclusively with mode 0600, and a file that another user
//! owns, or (in a directory others may write to) that group or others may write, is
//! refused. Every open is non-blocking, so a FIFO or a device cannot hold the call either.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::Path;

use crate::sys::{self, errors};

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
    let Some((me, owner, mode)) = sys::owner_and_mode(&meta) else { return Ok(()) };
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
}
