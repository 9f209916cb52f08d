//! The per-user key that authenticates journal records (issue 20): kept in the state
//! directory, outside every root, so that nothing in a tree — a repository's planted
//! `.hashline-journal/`, a file an agent wrote — can make a record recovery acts on.

use std::io::{self, Read, Write};
use std::os::fd::AsFd;
use std::path::Path;
use std::sync::OnceLock;

use rustix::fs::{AtFlags, Mode, OFlags};
use rustix::io::Errno;

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
    let dirfd = rustix::fs::open(dir, OFlags::DIRECTORY | OFlags::RDONLY | OFlags::CLOEXEC, Mode::empty())?;
    match load(dirfd.as_fd()) {
        Err(err) if err.kind() == io::ErrorKind::NotFound => {}
        other => return other,
    }
    let key = fresh();
    let temp = format!("{KEY_FILE}.{}", crate::staging::random_hex());
    let flags = OFlags::CREATE | OFlags::EXCL | OFlags::WRONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let mut file = std::fs::File::from(rustix::fs::openat(&dirfd, temp.as_str(), flags, Mode::from_raw_mode(0o600))?);
    let written = file.write_all(&key).and_then(|()| crate::sys::sync_all(&file));
    let linked =
        written.and_then(|()| match rustix::fs::linkat(&dirfd, temp.as_str(), &dirfd, KEY_FILE, AtFlags::empty()) {
            Ok(()) | Err(Errno::EXIST) => Ok(()),
            Err(err) => Err(err.into()),
        });
    let _ = rustix::fs::unlinkat(&dirfd, temp.as_str(), AtFlags::empty());
    linked?;
    let _ = crate::sys::sync_dir(dirfd.as_fd());
    load(dirfd.as_fd())
}

/// The key file, if it is this user's own regular file of the right size, readable by
/// nobody else.
fn load(dir: std::os::fd::BorrowedFd<'_>) -> io::Result<[u8; KEY_LEN]> {
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let fd = rustix::fs::openat(dir, KEY_FILE, flags, Mode::empty())?;
    let stat = rustix::fs::fstat(&fd)?;
    let own = stat.st_uid == rustix::process::geteuid().as_raw();
    let regular = rustix::fs::FileType::from_raw_mode(stat.st_mode) == rustix::fs::FileType::RegularFile;
    if !own || !regular || stat.st_mode & 0o077 != 0 || stat.st_size != KEY_LEN as i64 {
        return Err(io::Error::other("the journal key is not this user's private key file"));
    }
    let mut key = [0u8; KEY_LEN];
    std::fs::File::from(fd).read_exact(&mut key)?;
    Ok(key)
}

#[cfg(test)]
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
