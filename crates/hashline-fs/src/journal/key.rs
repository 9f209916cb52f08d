//! The per-user key that authenticates journal records (issue 20): kept in the state
//! directory, outside every root, so that nothing in a tree — a repository's planted
//! `.hashline-journal/`, a file an agent wrote — can make a record recovery acts on.

use std::io::{self, Read, Write};
use std::path::Path;
use std::sync::OnceLock;

use crate::sys::{self, HandleRef, Kind, Open};

/// The key's length in bytes.
const KEY_LEN: usize = 32;

/// The key's file name in the state directory.
const KEY_FILE: &str = "journal.key";

/// The key of this user, read from (or made in) the state directory once per process.
/// Where no state directory can hold it, a key of this process alone: its records can
/// then be recovered by no later process, and are reported as not hashline's.
pub(crate) fn key() -> &'static [u8; KEY_LEN] {
    static KEY: OnceLock<[u8; KEY_LEN]> = OnceLock::new();
    KEY.get_or_init(|| crate::state::state_dir().and_then(|dir| load_or_make(&dir).ok()).unwrap_or_else(fresh))
}

fn fresh() -> [u8; KEY_LEN] {
    let mut key = [0u8; KEY_LEN];
    if getrandom::fill(&mut key).is_err() {
        // No system randomness: the standard library's per-process random hash keys.
        use std::hash::BuildHasher;
        for (i, chunk) in key.chunks_mut(8).enumerate() {
            let word = std::collections::hash_map::RandomState::new().hash_one((i, std::process::id()));
            chunk.copy_from_slice(&word.to_le_bytes());
        }
    }
    key
}

/// Reads the key file, or makes it: written whole and synced under a temporary name,
/// then linked into place (never replacing one another process made first).
fn load_or_make(dir: &Path) -> io::Result<[u8; KEY_LEN]> {
    // Private like the CLI's state directory: nobody else lists or plants files in it.
    crate::state::create_private_dir(dir)?;
    let handle = sys::open_dir_path(dir)?;
    let dir = sys::borrow(&handle);
    match load(dir) {
        Err(err) if err.kind() == io::ErrorKind::NotFound => {}
        other => return other,
    }
    let key = fresh();
    let temp = format!("{KEY_FILE}.{}", crate::staging::random_hex());
    let mut file = std::fs::File::from(sys::open_at(dir, temp.as_ref(), Open::CreateNew(0o600))?);
    let written = file.write_all(&key).and_then(|()| crate::sys::sync_all(&file));
    let linked = written.and_then(|()| match sys::link_at(dir, temp.as_ref(), dir, KEY_FILE.as_ref()) {
        Err(err) if err.kind() != io::ErrorKind::AlreadyExists => Err(err),
        _ => Ok(()),
    });
    let _ = sys::remove_at(dir, temp.as_ref());
    linked?;
    let _ = sys::sync_dir(dir);
    load(dir)
}

/// The key file, if it is this user's own regular file of the right size, readable by
/// nobody else.
fn load(dir: HandleRef<'_>) -> io::Result<[u8; KEY_LEN]> {
    let fd = sys::open_at(dir, KEY_FILE.as_ref(), Open::Read)?;
    let meta = sys::stat(sys::borrow(&fd))?;
    if meta.kind != Kind::File || !sys::is_private(&meta) || meta.size != KEY_LEN as u64 {
        return Err(io::Error::other("the journal key is not this user's private key file"));
    }
    let mut key = [0u8; KEY_LEN];
    std::fs::File::from(fd).read_exact(&mut key)?;
    Ok(key)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_made_once_and_read_back_and_a_foreign_one_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let state = dir.path().join("state/hashline");
        let made = load_or_make(&state).expect("made");
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&state).expect("dir").permissions().mode() & 0o777;
        assert_eq!(mode, 0o700, "the key's directory is private");
        assert_eq!(load_or_make(&state).expect("again"), made, "the same key on the next start");
        let path = state.join(KEY_FILE);
        assert_eq!(std::fs::metadata(&path).expect("meta").len(), KEY_LEN as u64);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        assert!(load_or_make(&state).is_err(), "a key others can read is no key");
        std::fs::remove_file(&path).expect("rm");
        std::os::unix::fs::symlink(dir.path().join("elsewhere"), &path).expect("symlink");
        assert!(load_or_make(&state).is_err(), "a symlinked key file is not followed");
        assert!(!dir.path().join("elsewhere").exists());
    }
}
