//! Opening the session's own files (the session file and its lock) so that a directory
//! others may write to (`--session /tmp/s.json`) cannot turn them against the user
//! (docs/protocol.md §8, "Sessions"): no symlink is followed, a lock is created exclusively
//! with mode 0600, and a file that another user owns, or (in a directory others may write
//! to) that group or others may write, is refused: its ledger could let an edit pass
//! without a read, and its lock could be held forever. Every open is non-blocking, so a FIFO or a device cannot hold the call either.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;

use anyhow::{Context, Result};

/// Flags of every open here: the last component is never followed, nothing waits.
const FLAGS: i32 = libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY;

/// What a file is called in messages: `session file` or `session lock`.
#[derive(Clone, Copy)]
pub enum Role {
    /// The ledger (`--session FILE` or the default file).
    Session,
    /// `<file>.lock`.
    Lock,
}

impl Role {
    fn name(self) -> &'static str {
        match self {
            Role::Session => "session file",
            Role::Lock => "session lock",
        }
    }
}

/// Opens (creating it if missing) the lock at `path` for writing.
pub fn open_lock(path: &Path) -> Result<File> {
    // A lock removed between the two opens is made again; more than a few rounds of that
    // is someone playing games.
    for _ in 0..8 {
        let created = OpenOptions::new().write(true).create_new(true).mode(0o600).custom_flags(FLAGS).open(path);
        match created {
            Ok(file) => return Ok(file),
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {}
            Err(err) => return Err(opened(err, path, Role::Lock)),
        }
        match OpenOptions::new().write(true).custom_flags(FLAGS).open(path) {
            Ok(file) => {
                check(&file, path, Role::Lock)?;
                return Ok(file);
            }
            Err(err) if err.kind() == io::ErrorKind::NotFound => continue,
            Err(err) => return Err(opened(err, path, Role::Lock)),
        }
    }
    anyhow::bail!("cannot open the session lock {}: it keeps disappearing", path.display())
}

/// Opens the session file at `path` for reading; `None` when there is none.
pub fn open_session(path: &Path) -> Result<Option<File>> {
    match OpenOptions::new().read(true).custom_flags(FLAGS).open(path) {
        Ok(file) => {
            check(&file, path, Role::Session)?;
            Ok(Some(file))
        }
        Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(opened(err, path, Role::Session)),
    }
}

/// What a failed open means.
fn opened(err: io::Error, path: &Path, role: Role) -> anyhow::Error {
    let shown = path.display();
    match err.raw_os_error() {
        // O_NOFOLLOW on a symlink.
        Some(libc::ELOOP) => {
            anyhow::anyhow!(
                "refusing the {} {shown}: it is a symlink (the session's files are never followed)",
                role.name()
            )
        }
        // A FIFO without a reader, opened for writing without waiting.
        Some(libc::ENXIO) => anyhow::anyhow!("cannot open the {} {shown}: {}", role.name(), NOT_REGULAR),
        _ => anyhow::Error::new(err).context(format!("cannot open the {} {shown}", role.name())),
    }
}

const NOT_REGULAR: &str = "not a regular file (a FIFO, socket or device)";

/// Whether others may put files into the directory of `path`: it is group- or
/// other-writable (like `/tmp`), or another user's. Unknown counts as shared.
fn in_shared_dir(path: &Path, me: u32) -> bool {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::metadata(dir).map_or(true, |meta| meta.mode() & 0o022 != 0 || meta.uid() != me)
}

/// A regular file of this user, checked through the handle; in a shared directory
/// ([`in_shared_dir`]) one that only this user may write, too. (In the user's own
/// directory a group-writable file is the user's choice: locks of earlier versions were
/// made with the umask's mode.)
fn check(file: &File, path: &Path, role: Role) -> Result<()> {
    let shown = path.display();
    let meta = file.metadata().with_context(|| format!("cannot read the {} {shown}", role.name()))?;
    if !meta.is_file() {
        match role {
            Role::Session => anyhow::bail!("cannot read session file {shown}: {NOT_REGULAR}"),
            Role::Lock => anyhow::bail!("cannot open the session lock {shown}: {NOT_REGULAR}"),
        }
    }
    let me = rustix::process::geteuid().as_raw();
    anyhow::ensure!(
        meta.uid() == me,
        "refusing the {} {shown}: owned by uid {}, not by this user (uid {me})",
        role.name(),
        meta.uid()
    );
    anyhow::ensure!(
        meta.mode() & 0o022 == 0 || !in_shared_dir(path, me),
        "refusing the {} {shown}: writable by group or others (mode {:04o})",
        role.name(),
        meta.mode() & 0o7777
    );
    Ok(())
}
