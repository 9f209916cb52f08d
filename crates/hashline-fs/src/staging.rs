//! What every commit is made of, shared by the one-file path (`crate::atomic`) and the
//! journal's group commits (`crate::journal`): the member files, the stages a fault hook
//! can stop at, why a commit did not happen, and the short random names of temporary files.

use std::fs::File;
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::sys::{self, HandleRef, Open, errors};
use crate::target::Target;

/// Where a commit stands, for fault-injection hooks (tests and the fault suite).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The new bytes are complete and synced; nothing is committed yet.
    BeforeCommit,
    /// The file holds the new bytes (in a group: before the next file is replaced).
    AfterCommit,
}

/// A hook called at each [`Stage`] with the file's real path; an error aborts the commit
/// (at `BeforeCommit`, nothing is written).
pub type Hook = dyn Fn(Stage, &Path) -> io::Result<()> + Send + Sync;

/// Why a commit did not happen.
#[derive(Debug, thiserror::Error)]
pub enum CommitError {
    /// The file changed since it was read (compare before commit); nothing was written.
    #[error("the file changed since it was read; nothing was written")]
    Changed,
    /// The operating system refused.
    #[error(transparent)]
    Io(io::Error),
}

impl From<io::Error> for CommitError {
    fn from(err: io::Error) -> Self {
        Self::Io(err)
    }
}

/// One file of a commit.
pub struct Member<'a> {
    /// The opened, locked target.
    pub target: &'a Target,
    /// The bytes it had when read (compared before commit when `check` is set).
    pub old: &'a [u8],
    /// The bytes to write.
    pub new: &'a [u8],
    /// Compare before commit (edits); a whole-file `write` does not depend on the old bytes.
    pub check: bool,
    /// Remove the file instead of writing `new` (which is then ignored): a revert of a
    /// change that created it. Always through the journal, so that a group with a removal
    /// is all or none too.
    pub remove: bool,
}

/// A short temporary name, `.hl<8 hex><tag>.tmp`: 15 bytes plus the tag, far under the
/// 255-byte name limit whatever the target's name.
pub(crate) fn temp_name(tag: &str) -> String {
    format!(".hl{}{tag}.tmp", random_hex())
}

/// Eight random hex digits.
pub(crate) fn random_hex() -> String {
    use std::hash::BuildHasher;
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let seed = (std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed), nanos);
    format!("{:08x}", std::collections::hash_map::RandomState::new().hash_one(seed) as u32)
}

/// Creates a new, uniquely named temporary file `.hl<8 hex>.tmp` in `dir`.
pub(crate) fn create_named(dir: HandleRef<'_>, mode: u32) -> io::Result<(File, String)> {
    for _ in 0..16 {
        let name = temp_name("");
        match sys::open_at(dir, name.as_ref(), Open::CreateNew(mode)) {
            Ok(handle) => return Ok((File::from(handle), name)),
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(err) => return Err(err),
        }
    }
    Err(errors::exists())
}
