//! Opening the session's own files (the session file and its lock) so that a directory
//! others may write to (`--session /tmp/s.json`) cannot turn them against the user
//! (docs/protocol.md §8, "Sessions"): no symlink is followed, a lock is created exclusively
//! with mode 0600, and a file that another user owns, or (in a directory others may write
//! to) that group or others may write, is refused: its ledger could let an edit pass
//! without a read, and its lock could be held forever. Every open is non-blocking, so a FIFO or a device cannot hold the call either.

use std::fs::File;
use std::path::Path;

use anyhow::Result;
use hashline::fs::private::{self, PrivateError};

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
    private::open_lock(path).map_err(|err| explain(err, path, Role::Lock))
}

/// Opens the session file at `path` for reading; `None` when there is none.
pub fn open_session(path: &Path) -> Result<Option<File>> {
    private::open_existing(path).map_err(|err| explain(err, path, Role::Session))
}

/// What a refusal says.
fn explain(err: PrivateError, path: &Path, role: Role) -> anyhow::Error {
    let shown = path.display();
    let name = role.name();
    match (err, role) {
        (PrivateError::Symlink, _) => {
            anyhow::anyhow!("refusing the {name} {shown}: it is a symlink (the session's files are never followed)")
        }
        (PrivateError::NotRegular { at_open: false }, Role::Session) => {
            anyhow::anyhow!("cannot read session file {shown}: {NOT_REGULAR}")
        }
        (PrivateError::NotRegular { .. }, _) => anyhow::anyhow!("cannot open the {name} {shown}: {NOT_REGULAR}"),
        (err @ (PrivateError::ForeignOwner { .. } | PrivateError::SharedWritable { .. }), _) => {
            anyhow::anyhow!("refusing the {name} {shown}: {err}")
        }
        (PrivateError::Vanishing, _) => anyhow::anyhow!("cannot open the {name} {shown}: it keeps disappearing"),
        (PrivateError::Io { err, at_open: true }, _) => {
            anyhow::Error::new(err).context(format!("cannot open the {name} {shown}"))
        }
        (PrivateError::Io { err, at_open: false }, _) => {
            anyhow::Error::new(err).context(format!("cannot read the {name} {shown}"))
        }
    }
}

const NOT_REGULAR: &str = "not a regular file (a FIFO, socket or device)";
