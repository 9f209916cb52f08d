//! `--session FILE`: the session's ledger kept across invocations.

use std::path::Path;

use anyhow::{Context, Result};
use hashline::Session;
use hashline::tools::ledger::Ledger;
use serde::{Deserialize, Serialize};

/// The file's format.
#[derive(Serialize, Deserialize)]
struct SessionFile {
    version: u32,
    ledger: Ledger,
}

/// 2: served rows carry the line numbers they were shown under.
const VERSION: u32 = 2;

/// The largest session file that is loaded.
const MAX_BYTES: u64 = hashline::tools::fsio::MAX_FILE_BYTES;

/// Loads the ledger from `file` into `session`; a missing file starts a new session. The
/// file must be a regular file of at most 256 MiB (checked through the open handle, so a
/// FIFO or device is refused at once rather than waited on or read forever).
pub fn load(file: &Path, session: &Session) -> Result<()> {
    let text = match hashline::tools::nonblocking::read_regular(file, MAX_BYTES) {
        Ok(bytes) => {
            String::from_utf8(bytes).with_context(|| format!("session file {} is not UTF-8", file.display()))?
        }
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(err) => {
            return Err(err).with_context(|| format!("cannot read session file {}", file.display()));
        }
    };
    let state: SessionFile =
        serde_json::from_str(&text).with_context(|| format!("session file {} is not valid", file.display()))?;
    anyhow::ensure!(state.version == VERSION, "session file {} has unknown version {}", file.display(), state.version);
    session.restore_ledger(state.ledger);
    Ok(())
}

/// Saves the session's ledger to `file`.
pub fn save(file: &Path, session: &Session) -> Result<()> {
    let state = SessionFile { version: VERSION, ledger: session.ledger().clone() };
    let text = serde_json::to_string(&state)?;
    hashline::tools::fsio::write_atomic(file, text.as_bytes())
        .map(drop)
        .with_context(|| format!("cannot write session file {}", file.display()))
}
