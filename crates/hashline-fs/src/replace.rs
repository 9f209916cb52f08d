//! Replacing a file that is not a tool's target (the CLI's session file, a rendered page, a
//! host's config file) whole: a short-named temporary file in the same directory, renamed
//! over the path, so that a reader sees the old bytes or the new, never a mix.

use std::io::{self, Write};
use std::path::Path;

/// Replaces `path` with `bytes` atomically and durably: the temporary file is synced
/// (`F_FULLFSYNC` on macOS) before the rename, and the directory after it.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    replace(path, bytes, true)
}

/// Like [`write_atomic`] but without syncing: readers see the old or the new bytes, never
/// a mix; after a crash the file may hold the old bytes, or none on a file system that
/// does not order the rename after the data. For caches that a later call can rebuild.
pub fn write_atomic_unsynced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    replace(path, bytes, false)
}

/// A file's new bytes, written and synced beside it with the permissions it has now, not yet
/// in place: several files can be staged and then put in place together, none of them when
/// any staging fails ([`Replacement::commit`] renames it over the path and syncs the
/// directory; dropping it removes the temporary file).
pub struct Replacement {
    temp: tempfile::NamedTempFile,
    path: std::path::PathBuf,
}

/// Stages `bytes` to replace `path` (made if missing; its directory must exist).
pub fn stage_replacement(path: &Path, bytes: &[u8]) -> io::Result<Replacement> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut temp = tempfile::Builder::new().prefix(".hl").suffix(".tmp").tempfile_in(dir)?;
    temp.write_all(bytes)?;
    crate::sys::sync_data(temp.as_file())?;
    if let Ok(meta) = std::fs::metadata(path) {
        std::fs::set_permissions(temp.path(), meta.permissions())?;
    }
    Ok(Replacement { temp, path: path.to_path_buf() })
}

impl Replacement {
    /// Puts the staged bytes in place and syncs the directory.
    pub fn commit(self) -> io::Result<()> {
        let dir = self.path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")).to_path_buf();
        self.temp.persist(&self.path).map_err(|err| err.error)?;
        let dir = crate::sys::open_dir_path(&dir)?;
        crate::sys::sync_dir(crate::sys::borrow(&dir))
    }
}

fn replace(path: &Path, bytes: &[u8], sync: bool) -> io::Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut temp = tempfile::Builder::new().prefix(".hl").suffix(".tmp").tempfile_in(dir)?;
    temp.write_all(bytes)?;
    if sync {
        crate::sys::sync_data(temp.as_file())?;
    }
    temp.persist(path).map_err(|err| err.error)?;
    if sync {
        let dir = crate::sys::open_dir_path(dir)?;
        crate::sys::sync_dir(crate::sys::borrow(&dir))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replaced_file_holds_the_new_bytes_and_no_temporary_file_remains() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("state.json");
        std::fs::write(&path, "old").expect("write");
        write_atomic(&path, b"new").expect("replace");
        write_atomic_unsynced(&dir.path().join("cache"), b"c").expect("replace");
        assert_eq!(std::fs::read(&path).expect("read"), b"new");
        let mut names: Vec<_> =
            std::fs::read_dir(dir.path()).expect("list").map(|e| e.expect("entry").file_name()).collect();
        names.sort();
        assert_eq!(names, ["cache", "state.json"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_staged_replacement_keeps_the_files_permissions_and_lands_only_when_committed() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("config.json");
        std::fs::write(&path, "old").expect("write");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        let staged = stage_replacement(&path, b"new").expect("stage");
        assert_eq!(std::fs::read(&path).expect("read"), b"old");
        staged.commit().expect("commit");
        assert_eq!(std::fs::read(&path).expect("read"), b"new");
        assert_eq!(std::fs::metadata(&path).expect("meta").permissions().mode() & 0o777, 0o600);
        drop(stage_replacement(&path, b"dropped").expect("stage"));
        assert_eq!(std::fs::read(&path).expect("read"), b"new");
        assert_eq!(std::fs::read_dir(dir.path()).expect("list").count(), 1, "no temporary file left");
    }
}
