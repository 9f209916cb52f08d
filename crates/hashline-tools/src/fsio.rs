//! File I/O at the edge: loading regular files with coded errors, and the atomic writer
//! of SPEC §7.3.

use std::fs;
use std::io::{self, Read, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use serde_json::json;

use crate::error::{ErrorCode, ToolError};
use crate::paths::ResolvedPath;

/// The largest file the tools load into memory.
pub const MAX_FILE_BYTES: u64 = 256 * 1024 * 1024;

/// How many symlinks the writer follows before giving up.
const MAX_SYMLINK_HOPS: usize = 40;

/// Suffix of the writer's temporary files.
pub const TEMP_SUFFIX: &str = ".hashline-tmp";

/// Whether a write created the file or replaced it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WriteState {
    /// The file did not exist.
    Created,
    /// The file existed and was replaced.
    Overwritten,
}

/// Maps an I/O error while reading `display` to a tool error.
pub fn read_error(err: &io::Error, path: &ResolvedPath) -> ToolError {
    let p = &path.display;
    let error = match err.kind() {
        io::ErrorKind::NotFound => ToolError::new(ErrorCode::FileNotFound, format!("File not found: {p}")),
        io::ErrorKind::IsADirectory => is_directory(p),
        io::ErrorKind::PermissionDenied => {
            ToolError::new(ErrorCode::PermissionDenied, format!("Permission denied — cannot access: {p}"))
        }
        io::ErrorKind::WouldBlock => ToolError::new(
            ErrorCode::FsError,
            format!("File not readable: {p} has no data to read now, and the tools never wait for a file."),
        )
        .with_details(fs_details(err)),
        _ => {
            ToolError::new(ErrorCode::FsError, format!("File not readable: {p} — {err}")).with_details(fs_details(err))
        }
    };
    error.with_path(path.absolute_str())
}

/// Maps an I/O error while writing `display` to a tool error.
pub fn write_error(err: &io::Error, path: &ResolvedPath) -> ToolError {
    let p = &path.display;
    let error = match err.kind() {
        io::ErrorKind::PermissionDenied => {
            ToolError::new(ErrorCode::PermissionDenied, format!("Permission denied — cannot write: {p}"))
        }
        io::ErrorKind::IsADirectory => {
            ToolError::new(ErrorCode::PathIsDirectory, format!("Path is a directory — cannot overwrite: {p}"))
        }
        io::ErrorKind::NotFound => ToolError::new(ErrorCode::FileNotFound, format!("File not found: {p}")),
        io::ErrorKind::StorageFull => {
            ToolError::new(ErrorCode::FsError, format!("No space left on device — cannot write: {p}"))
                .with_details(fs_details(err))
        }
        io::ErrorKind::ReadOnlyFilesystem => {
            ToolError::new(ErrorCode::FsError, format!("Read-only filesystem — cannot write: {p}"))
                .with_details(fs_details(err))
        }
        _ => ToolError::new(ErrorCode::FsError, format!("Error writing {p}: {err}")).with_details(fs_details(err)),
    };
    error.with_path(path.absolute_str())
}

fn is_directory(p: &str) -> ToolError {
    ToolError::new(ErrorCode::PathIsDirectory, format!("Path is a directory: {p}. Use ls to inspect directories."))
        .with_hint(format!("Use ls(\"{p}\") to inspect directories."))
}

fn fs_details(err: &io::Error) -> serde_json::Value {
    json!({ "fsCode": format!("{:?}", err.kind()), "errno": err.raw_os_error(), "fsMessage": err.to_string() })
}

/// Loads a regular file. The open is non-blocking and the type is checked through the
/// handle: directories, FIFOs, sockets and devices are refused, and a special file that
/// looks regular but has no data (`/proc/kmsg`) fails instead of blocking.
pub fn read_regular_file(path: &ResolvedPath) -> Result<Vec<u8>, ToolError> {
    let meta = fs::metadata(&path.absolute).map_err(|err| read_error(&err, path))?;
    check_regular(&meta, path)?;
    let mut file = crate::nonblocking::open_read(&path.absolute).map_err(|err| read_error(&err, path))?;
    let meta = file.metadata().map_err(|err| read_error(&err, path))?;
    check_regular(&meta, path)?;
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    Read::by_ref(&mut file).take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes).map_err(|err| read_error(&err, path))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_large(path));
    }
    Ok(bytes)
}

fn check_regular(meta: &fs::Metadata, path: &ResolvedPath) -> Result<(), ToolError> {
    if meta.is_dir() {
        return Err(is_directory(&path.display).with_path(path.absolute_str()));
    }
    if !meta.is_file() {
        return Err(ToolError::new(
            ErrorCode::FsError,
            format!(
                "Not a regular file: {} (a FIFO, socket or device). The tools only read regular files.",
                path.display
            ),
        )
        .with_path(path.absolute_str()));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(too_large(path));
    }
    Ok(())
}

fn too_large(path: &ResolvedPath) -> ToolError {
    ToolError::new(
        ErrorCode::FileTooLarge,
        format!("File too large: {} is over {} MiB.", path.display, MAX_FILE_BYTES / (1024 * 1024)),
    )
    .with_hint("Use grep to find what you need in it.")
    .with_path(path.absolute_str())
}

/// Follows a chain of symlinks to the path that is finally written. A missing final
/// target is returned as is (the write creates it).
pub fn final_target(path: &Path) -> io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_SYMLINK_HOPS {
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = fs::read_link(&current)?;
                current = match current.parent() {
                    Some(parent) if link.is_relative() => parent.join(link),
                    _ => link,
                };
            }
            Ok(_) => return Ok(current),
            Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(current),
            Err(err) => return Err(err),
        }
    }
    Err(io::Error::other(format!("too many levels of symbolic links: {}", path.display())))
}

/// Writes `bytes` to `path` atomically (SPEC §7.3): through a temporary file in the same
/// directory, renamed over the target. Symlinks are followed (the link stays a link);
/// a target with several hard links is written in place so every name sees the change;
/// permission bits (and, where allowed, ownership) are kept; a new file gets the umask
/// default; the temporary file is removed on any failure.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<WriteState> {
    write_atomic_with(path, bytes, |_| Ok(()))
}

/// [`write_atomic`] with a hook that runs just before the change is committed (after
/// the temporary file is complete); an error from it aborts the write. Tests use it to
/// simulate failures.
pub fn write_atomic_with<F>(path: &Path, bytes: &[u8], before_commit: F) -> io::Result<WriteState>
where
    F: FnOnce(&Path) -> io::Result<()>,
{
    let target = final_target(path)?;
    let existing = match fs::metadata(&target) {
        Ok(meta) if meta.is_dir() => {
            return Err(io::Error::new(io::ErrorKind::IsADirectory, "is a directory"));
        }
        Ok(meta) => Some(meta),
        Err(err) if err.kind() == io::ErrorKind::NotFound => None,
        Err(err) => return Err(err),
    };
    if existing.as_ref().is_some_and(|m| m.nlink() > 1) {
        before_commit(&target)?;
        let mut file = fs::OpenOptions::new().write(true).truncate(true).open(&target)?;
        file.write_all(bytes)?;
        file.sync_data()?;
        return Ok(WriteState::Overwritten);
    }
    let dir = match target.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mode = existing.as_ref().map_or(0o666, |m| m.permissions().mode() & 0o7777);
    let mut temp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(TEMP_SUFFIX)
        .permissions(fs::Permissions::from_mode(if existing.is_some() { 0o600 } else { 0o666 }))
        .tempfile_in(&dir)?;
    if let Some(meta) = &existing {
        temp.as_file().set_permissions(fs::Permissions::from_mode(mode))?;
        // Keeping the owner needs privileges; without them the owner is already ours.
        let _ = std::os::unix::fs::fchown(temp.as_file(), Some(meta.uid()), Some(meta.gid()));
    }
    temp.write_all(bytes)?;
    // The data must be on disk before the rename makes it the file (old or new, never a mix).
    temp.as_file().sync_data()?;
    before_commit(temp.path())?;
    temp.persist(&target).map_err(|err| err.error)?;
    Ok(if existing.is_some() { WriteState::Overwritten } else { WriteState::Created })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_files(dir: &Path) -> Vec<String> {
        fs::read_dir(dir)
            .expect("read_dir")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(TEMP_SUFFIX))
            .collect()
    }

    #[test]
    fn keeps_mode_0640() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("f.txt");
        fs::write(&file, "old").expect("write");
        fs::set_permissions(&file, fs::Permissions::from_mode(0o640)).expect("chmod");
        assert_eq!(write_atomic(&file, b"new").expect("write"), WriteState::Overwritten);
        assert_eq!(fs::read(&file).expect("read"), b"new");
        assert_eq!(fs::metadata(&file).expect("meta").permissions().mode() & 0o7777, 0o640);
    }

    #[test]
    fn new_file_gets_umask_default_and_parent_must_exist() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("new.txt");
        assert_eq!(write_atomic(&file, b"x").expect("write"), WriteState::Created);
        let mode = fs::metadata(&file).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode & 0o600, 0o600, "owner can read and write: {mode:o}");
        assert_eq!(mode & 0o111, 0, "not executable: {mode:o}");
        let err = write_atomic(&dir.path().join("no/such/dir.txt"), b"x").expect_err("no parent");
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
    }

    #[test]
    fn symlink_stays_a_link_and_its_target_changes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let target = dir.path().join("real.txt");
        let link = dir.path().join("link.txt");
        fs::write(&target, "old").expect("write");
        std::os::unix::fs::symlink("real.txt", &link).expect("symlink");
        write_atomic(&link, b"new").expect("write");
        assert!(fs::symlink_metadata(&link).expect("meta").file_type().is_symlink());
        assert_eq!(fs::read(&target).expect("read"), b"new");
    }

    #[test]
    fn dangling_symlink_creates_its_target() {
        let dir = tempfile::tempdir().expect("tempdir");
        let link = dir.path().join("link.txt");
        std::os::unix::fs::symlink("made.txt", &link).expect("symlink");
        assert_eq!(write_atomic(&link, b"x").expect("write"), WriteState::Created);
        assert_eq!(fs::read(dir.path().join("made.txt")).expect("read"), b"x");
    }

    #[test]
    fn symlink_loops_are_errors() {
        let dir = tempfile::tempdir().expect("tempdir");
        let a = dir.path().join("a");
        std::os::unix::fs::symlink("b", &a).expect("symlink");
        std::os::unix::fs::symlink("a", dir.path().join("b")).expect("symlink");
        assert!(write_atomic(&a, b"x").is_err());
    }

    #[test]
    fn hard_links_all_see_the_change() {
        let dir = tempfile::tempdir().expect("tempdir");
        let one = dir.path().join("one.txt");
        let two = dir.path().join("two.txt");
        fs::write(&one, "old").expect("write");
        fs::hard_link(&one, &two).expect("link");
        write_atomic(&one, b"new").expect("write");
        assert_eq!(fs::read(&two).expect("read"), b"new");
        assert_eq!(fs::metadata(&one).expect("meta").ino(), fs::metadata(&two).expect("meta").ino());
    }

    #[test]
    fn failed_write_keeps_old_bytes_and_leaves_no_temp_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("f.txt");
        fs::write(&file, "old bytes").expect("write");
        let err = write_atomic_with(&file, b"new bytes", |temp| {
            assert!(temp.exists(), "the temporary file is complete before the commit");
            Err(io::Error::other("simulated failure"))
        })
        .expect_err("must fail");
        assert_eq!(err.to_string(), "simulated failure");
        assert_eq!(fs::read(&file).expect("read"), b"old bytes");
        assert!(temp_files(dir.path()).is_empty(), "{:?}", temp_files(dir.path()));
    }

    #[test]
    fn directory_target_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let err = write_atomic(dir.path(), b"x").expect_err("dir");
        assert_eq!(err.kind(), io::ErrorKind::IsADirectory);
    }

    #[test]
    fn io_errors_map_to_codes() {
        let path = ResolvedPath { display: "a.txt".into(), absolute: "/w/a.txt".into(), real: "/w/a.txt".into() };
        let cases = [
            (io::ErrorKind::NotFound, ErrorCode::FileNotFound, ErrorCode::FileNotFound),
            (io::ErrorKind::PermissionDenied, ErrorCode::PermissionDenied, ErrorCode::PermissionDenied),
            (io::ErrorKind::IsADirectory, ErrorCode::PathIsDirectory, ErrorCode::PathIsDirectory),
            (io::ErrorKind::StorageFull, ErrorCode::FsError, ErrorCode::FsError),
            (io::ErrorKind::Other, ErrorCode::FsError, ErrorCode::FsError),
        ];
        for (kind, on_read, on_write) in cases {
            let err = io::Error::new(kind, "boom");
            assert_eq!(read_error(&err, &path).code, on_read, "{kind:?}");
            assert_eq!(write_error(&err, &path).code, on_write, "{kind:?}");
        }
        let denied = read_error(&io::Error::from(io::ErrorKind::PermissionDenied), &path);
        assert_eq!(denied.message, "Permission denied — cannot access: a.txt");
    }
}
