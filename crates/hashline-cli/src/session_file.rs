//! The CLI's session across invocations (docs/decisions/003-cli-session-default.md).
//!
//! By default every lone call keeps one session per root, in a file outside the project:
//! `$XDG_STATE_HOME/hashline/sessions/<root name>-<hash of the canonical root>.json`
//! (`~/.local/state/...` when `XDG_STATE_HOME` is unset). `--session FILE` names the file
//! instead; `--stateless` keeps none. A call holds an exclusive advisory lock on
//! `<file>.lock` from loading to saving, so concurrent `hashline` processes on one root
//! take turns instead of losing each other's rows. A damaged default file is replaced by
//! a fresh session with a note on standard error; a damaged `--session` file (which may
//! be the user's own) is an error.
//!
//! Beside the sessions, `$XDG_STATE_HOME/hashline/maps/<root name>-<hash>/` holds the root's
//! symbol-map cache ([`default_map_dir`]; docs/protocol.md, "The CLI's map cache").

use std::fs::File;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use hashline::Session;
use hashline::tools::changes::{ChangeLog, ChangeLogState};
use hashline::tools::ledger::Ledger;
use serde::{Deserialize, Serialize};

use crate::private_file;

/// The file's format.
#[derive(Deserialize)]
struct SessionFile {
    version: u32,
    ledger: Ledger,
    /// The session's changes (their bytes are in the directory beside the file); absent
    /// in files written before change ids.
    #[serde(default)]
    changes: Option<ChangeLogState>,
}

/// The file's format as written. The ledger writes its files in path order, so that equal
/// ledgers are equal texts.
#[derive(Serialize)]
struct SessionFileOut<'a> {
    version: u32,
    ledger: &'a Ledger,
    #[serde(skip_serializing_if = "Option::is_none")]
    changes: Option<&'a ChangeLogState>,
}

/// The text a session file holds for `ledger` and `changes`.
fn file_text(ledger: &Ledger, changes: Option<&ChangeLogState>) -> serde_json::Result<String> {
    serde_json::to_string(&SessionFileOut { version: VERSION, ledger, changes })
}

/// The directory beside a session file that keeps its changes' bytes: `<file>.changes`.
pub fn changes_dir(file: &Path) -> PathBuf {
    let mut dir = file.as_os_str().to_owned();
    dir.push(".changes");
    PathBuf::from(dir)
}

/// 2: served rows carry the line numbers they were shown under. 3: a file's rows are one
/// string (`<line>:<hashes>` segments) instead of an object per row; version 2 is still
/// read, and written again as 3. A version 3 file may also hold the session's changes
/// (`changes`; a build from before change ids ignores them).
const VERSION: u32 = 3;

/// The versions this build reads.
const READS: [u32; 2] = [2, VERSION];

/// A session file larger than this is not ours (or not healthy): it is not read.
const MAX_BYTES: u64 = hashline::fs::MAX_FILE_BYTES;

/// A session file in use: locked from [`Persisted::open`] until dropped.
pub struct Persisted {
    file: PathBuf,
    /// Whether the user named the file (`--session`): then a damaged file is an error.
    explicit: bool,
    /// The text loaded, to skip saving an unchanged ledger.
    loaded: Option<String>,
    /// `<file>.changes`, opened and checked while the lock is held (`None`: none yet).
    changes: Option<hashline::fs::private::PrivateDir>,
    _lock: File,
}

/// The default session file for a working root, or `None` when the system names no
/// state directory (no `XDG_STATE_HOME`, no `HOME`).
pub fn default_file(root: &Path) -> Option<PathBuf> {
    Some(state_dir()?.join("sessions").join(format!("{}.json", root_name(root))))
}

/// The default directory of a working root's symbol-map cache (beside its session file),
/// or `None` when the system names no state directory.
pub fn default_map_dir(root: &Path) -> Option<PathBuf> {
    Some(state_dir()?.join("maps").join(root_name(root)))
}

/// The directory of the snapshots the user was shown (one store for every root: tags are
/// content-addressed), or `None` when the system names no state directory.
pub fn default_snapshot_dir() -> Option<PathBuf> {
    Some(state_dir()?.join("snapshots"))
}

/// Creates the state directory (`$XDG_STATE_HOME/hashline`) with mode 0700 if it is
/// missing, so that what is kept in it is the user's alone. Best effort: a directory that
/// cannot be made is reported by whoever writes in it.
pub fn create_state_dir() {
    if let Some(dir) = state_dir() {
        let _ = create_private_dir(&dir);
    }
}

/// Creates `dir` and its missing parents with mode 0700 (existing ones are left as they are).
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    if let Some(state) = state_dir()
        && dir.starts_with(&state)
        && !state.exists()
    {
        hashline::fs::state::create_private_dir(&state)?;
    }
    hashline::fs::state::create_private_dir(dir)
}

/// `$XDG_STATE_HOME/hashline`, else `~/.local/state/hashline` (absolute paths only): the
/// library's, where the journal key lives too.
fn state_dir() -> Option<PathBuf> {
    hashline::fs::state_dir()
}

/// The root's name in the state directory (see [`file_name`]).
fn root_name(root: &Path) -> String {
    let canonical = hashline::fs::lookup::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    file_name(&canonical)
}

/// `<root name>-<16 hex digits of xxh3 over the canonical path>`: readable, and one name
/// per root however long its path.
fn file_name(canonical: &Path) -> String {
    let name: String = canonical
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        .skip_while(|c| *c == '.')
        .take(40)
        .collect();
    let hash = xxhash_rust::xxh3::xxh3_64(canonical.as_os_str().as_encoded_bytes());
    let name = if name.is_empty() { "root".to_owned() } else { name };
    format!("{name}-{hash:016x}")
}

impl Persisted {
    /// Opens (creating its directory for the default file) and locks `file`.
    pub fn open(file: PathBuf, explicit: bool) -> Result<Self> {
        if !explicit && let Some(dir) = file.parent() {
            create_private_dir(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        }
        let mut lock_path = file.clone().into_os_string();
        lock_path.push(".lock");
        let lock = private_file::open_lock(Path::new(&lock_path))?;
        lock.lock().with_context(|| format!("cannot lock {}", Path::new(&lock_path).display()))?;
        let changes = private_file::open_changes(&changes_dir(&file))?;
        Ok(Self { file, explicit, loaded: None, changes, _lock: lock })
    }

    /// Loads the ledger into `session`; a missing file starts a new session.
    pub fn load(&mut self, session: &Session) -> Result<()> {
        let loaded = match self.read() {
            Ok(loaded) => loaded,
            Err(err) if self.explicit => return Err(err),
            Err(err) => {
                eprintln!("hashline: {err:#}; starting a new session");
                None
            }
        };
        let changes = match loaded {
            Some((ledger, changes, text)) => {
                session.restore_ledger(ledger);
                self.loaded = Some(text);
                changes
            }
            None => None,
        };
        session.restore_changes(ChangeLog::on_disk(changes, changes_dir(&self.file), self.changes.take()));
        Ok(())
    }

    /// The ledger and changes in the file and the file's text; `None` when there is no file.
    fn read(&self) -> Result<Option<(Ledger, Option<ChangeLogState>, String)>> {
        let file = &self.file;
        // Opened without blocking or following a symlink, and checked through the handle:
        // a FIFO or a device is refused at once rather than waited on or read forever, and
        // a file another user owns or may write is refused rather than trusted.
        let Some(handle) = private_file::open_session(file)? else { return Ok(None) };
        let expected = handle.metadata().map(|m| m.len()).unwrap_or(0);
        let bytes = hashline::fs::open::read_bounded(handle, MAX_BYTES, expected)
            .with_context(|| format!("cannot read session file {}", file.display()))?;
        let text = String::from_utf8(bytes).with_context(|| format!("session file {} is damaged", file.display()))?;
        let state: SessionFile =
            serde_json::from_str(&text).with_context(|| format!("session file {} is damaged", file.display()))?;
        anyhow::ensure!(
            READS.contains(&state.version),
            "session file {} has unknown version {}",
            file.display(),
            state.version
        );
        Ok(Some((state.ledger, state.changes, text)))
    }

    /// Saves the session's ledger (atomically; nothing when it did not change), then
    /// lets go of it without freeing it row by row: the process is about to exit.
    ///
    /// The default file is not synced: it is a cache of what was shown, and a crash that
    /// loses the last save (or, on a file system that does not order the rename after the
    /// data, leaves it empty) only makes the next call start from the previous session
    /// or a fresh one — edits are refused (`file-not-read`), never misplaced. A file the
    /// user named with `--session` is synced before the rename, as before.
    pub fn save(&self, session: &Session) -> Result<()> {
        let ledger = std::mem::take(&mut *session.ledger());
        let changes = session.changes();
        // A ledger nothing touched is what was loaded (or empty): not even serialized (for
        // a session that served rows of thousands of files, that was most of a `find`).
        let unchanged = !changes.touched()
            && match &self.loaded {
                None => ledger.paths().next().is_none(),
                Some(_) => !ledger.touched(),
            };
        let kept = changes.state();
        let kept = (kept.next > 1).then_some(kept);
        let text = if unchanged { None } else { Some(file_text(&ledger, kept)?) };
        drop(changes);
        std::mem::forget(ledger);
        let Some(text) = text else { return Ok(()) };
        if self.loaded.as_deref() == Some(text.as_str()) {
            return Ok(());
        }
        let written = if self.explicit {
            hashline::fs::write_atomic(&self.file, text.as_bytes())
        } else {
            hashline::fs::write_atomic_unsynced(&self.file, text.as_bytes())
        };
        written.with_context(|| format!("cannot write session file {}", self.file.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_file_per_canonical_root_named_for_people() {
        let a = file_name(Path::new("/home/u/my project"));
        assert!(a.starts_with("myproject-") && a.len() == "myproject-".len() + 16, "{a}");
        assert_ne!(a, file_name(Path::new("/home/v/my project")));
        assert_eq!(a, file_name(Path::new("/home/u/my project")));
        assert!(file_name(Path::new("/")).starts_with("root-"));
        assert!(file_name(Path::new("/tmp/.hidden")).starts_with("hidden-"));
    }
}
