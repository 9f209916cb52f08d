//! Opening the session's own files (the session file, its lock and its undo store) so that
//! a directory others may write to (`--session /tmp/s.json`) cannot turn them against the
//! user (docs/protocol.md §8, "Sessions"): no symlink is followed, a lock is created
//! exclusively with mode 0600, and a file or directory that another user owns, or (in a
//! directory others may write to) that group or others may write, is refused: its ledger
//! could let an edit pass without a read, its lock could be held forever, and its undo store
//! could take the user's file versions elsewhere or lose them. Every open is non-blocking,
//! so a FIFO or a device cannot hold the call either.

use std::fs::File;
use std::path::Path;

use anyhow::Result;
use hashline::fs::private::{self, PrivateDir, PrivateError};

/// What a file is called in messages: `session file`, `session lock` or `session changes
/// directory`.
#[derive(Clone, Copy)]
pub enum Role {
    /// The ledger (`--session FILE` or the default file).
    Session,
    /// `<file>.lock`.
    Lock,
    /// `<file>.changes`, the kept bytes of the session's changes.
    Changes,
}

impl Role {
    fn name(self) -> &'static str {
        match self {
            Role::Session => "session file",
            Role::Lock => "session lock",
            Role::Changes => "session changes directory",
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

/// Opens the session's changes directory at `path` if there is one (it is made when the
/// first change is kept). A name taken by a file keeps nothing, as a full disk would (the
/// undo then says the bytes are gone): nothing is written or removed through it.
pub fn open_changes(path: &Path) -> Result<Option<PrivateDir>> {
    match PrivateDir::open(path, false) {
        Err(PrivateError::NotDirectory) => Ok(None),
        opened => opened.map_err(|err| explain(err, path, Role::Changes)),
    }
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
        (PrivateError::NotDirectory, _) => anyhow::anyhow!("refusing the {name} {shown}: not a directory"),
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
