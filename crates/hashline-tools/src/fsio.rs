//! File I/O at the edge: loading regular files with coded errors, and the atomic writer
//! of SPEC §7.3.

use std::ffi::OsString;
use std::fs::File;
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::fs::FileExt;
use std::path::Path;

use rustix::fs::{AtFlags, FileType, OFlags, Stat};
use rustix::io::Errno;

use serde_json::json;

use crate::confine::{create_dirs_beneath, open_beneath};
use crate::error::{ErrorCode, ToolError};
use crate::paths::ResolvedPath;

/// The largest file the tools load into memory.
pub const MAX_FILE_BYTES: u64 = 256 * 1024 * 1024;

/// Files up to this size are compared byte for byte before a commit (larger ones by
/// inode, size and modification time).
const COMPARE_BYTES_MAX: u64 = 1024 * 1024;

/// How often opening a target is retried when its name moves to another file while it is
/// being locked.
const LOCK_RETRIES: usize = 8;

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
        _ if crate::confine::is_escape(err) => escaped(p),
        io::ErrorKind::PermissionDenied => {
            ToolError::new(ErrorCode::PermissionDenied, format!("Permission denied — cannot access: {p}"))
                .with_details(fs_details(err))
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
        _ if crate::confine::is_escape(err) => escaped(p),
        io::ErrorKind::PermissionDenied => {
            ToolError::new(ErrorCode::PermissionDenied, format!("Permission denied — cannot write: {p}"))
                .with_details(fs_details(err))
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

/// A path that left its root while being opened (a symlink or directory swapped in
/// after the check): the kernel refused to follow it.
fn escaped(p: &str) -> ToolError {
    ToolError::new(
        ErrorCode::PathOutsideRoot,
        format!("Path is outside the session roots: {p} (it changed while being opened and now leads outside)."),
    )
}

/// `{fsCode, errno, fsMessage}` of an OS error.
pub fn fs_details(err: &io::Error) -> serde_json::Value {
    json!({ "fsCode": format!("{:?}", err.kind()), "errno": err.raw_os_error(), "fsMessage": err.to_string() })
}

/// Writes a file that is not a tool's target (the CLI's session file) atomically: a
/// short-named temporary file in the same directory, synced, renamed over the path.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    replace(path, bytes, true)
}

/// Like [`write_atomic`] but without syncing: readers see the old or the new bytes, never
/// a mix; after a crash the file may hold the old bytes, or none on a file system that
/// does not order the rename after the data. For caches that a later call can rebuild
/// (the CLI's default session file).
pub fn write_atomic_unsynced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    replace(path, bytes, false)
}

fn replace(path: &Path, bytes: &[u8], sync: bool) -> io::Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut temp = tempfile::Builder::new().prefix(".hl").suffix(".tmp").tempfile_in(dir)?;
    io::Write::write_all(&mut temp, bytes)?;
    if sync {
        temp.as_file().sync_data()?;
    }
    temp.persist(path).map_err(|err| err.error)?;
    Ok(())
}

/// A file's identity: (device, inode).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FileId {
    /// Device number.
    pub dev: u64,
    /// Inode number.
    pub ino: u64,
}

impl FileId {
    // `stat` field types differ between platforms.
    #[allow(clippy::unnecessary_cast)]
    pub(crate) fn of(stat: &Stat) -> Self {
        Self { dev: stat.st_dev as u64, ino: stat.st_ino as u64 }
    }

    /// The identity of what `path` names now (symlinks followed), if it exists.
    pub fn of_path(path: &Path) -> Option<(Self, u64)> {
        let stat = rustix::fs::stat(path).ok()?;
        Some((Self::of(&stat), stat.st_nlink as u64))
    }
}

/// What a file was when it was read: compared again just before a commit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Snapshot {
    /// Identity.
    pub id: FileId,
    /// Size in bytes.
    pub size: u64,
    /// Modification time (seconds, nanoseconds).
    pub mtime: (i64, i64),
    /// Hard links.
    pub nlink: u64,
    /// Permission bits.
    pub mode: u32,
    /// Owner and group.
    pub owner: (u32, u32),
}

impl Snapshot {
    // `stat` field types differ between platforms.
    #[allow(clippy::unnecessary_cast)]
    fn of(stat: &Stat) -> Self {
        Self {
            id: FileId::of(stat),
            size: stat.st_size as u64,
            mtime: (stat.st_mtime as i64, stat.st_mtime_nsec as i64),
            nlink: stat.st_nlink as u64,
            mode: stat.st_mode as u32 & 0o7777,
            owner: (stat.st_uid, stat.st_gid),
        }
    }
}

/// Loads a regular file through the root's handle. Directories, FIFOs, sockets and
/// devices are refused without blocking on them.
pub fn read_regular_file(root: BorrowedFd<'_>, path: &ResolvedPath) -> Result<Vec<u8>, ToolError> {
    let fd = open_beneath(root, path.rel(), OFlags::RDONLY | OFlags::NONBLOCK).map_err(|err| read_error(&err, path))?;
    let stat = rustix::fs::fstat(&fd).map_err(|err| read_error(&err.into(), path))?;
    check_regular(&stat, path)?;
    read_all(&File::from(fd), stat.st_size as u64).map_err(|err| read_error(&err, path))?.ok_or_else(|| too_large(path))
}

/// Reads a whole file from its handle; `None` when it is over [`MAX_FILE_BYTES`].
fn read_all(file: &File, size_hint: u64) -> io::Result<Option<Vec<u8>>> {
    let mut bytes = Vec::with_capacity(usize::try_from(size_hint.min(MAX_FILE_BYTES)).unwrap_or(0));
    io::Read::read_to_end(&mut io::Read::take(file, MAX_FILE_BYTES + 1), &mut bytes)?;
    Ok((bytes.len() as u64 <= MAX_FILE_BYTES).then_some(bytes))
}

fn check_regular(stat: &Stat, path: &ResolvedPath) -> Result<(), ToolError> {
    match FileType::from_raw_mode(stat.st_mode) {
        FileType::Directory => Err(is_directory(&path.display).with_path(path.absolute_str())),
        FileType::RegularFile if stat.st_size as u64 > MAX_FILE_BYTES => Err(too_large(path)),
        FileType::RegularFile => Ok(()),
        _ => Err(ToolError::new(
            ErrorCode::FsError,
            format!(
                "Not a regular file: {} (a FIFO, socket or device). The tools only read regular files.",
                path.display
            ),
        )
        .with_path(path.absolute_str())),
    }
}

fn too_large(path: &ResolvedPath) -> ToolError {
    ToolError::new(
        ErrorCode::FileTooLarge,
        format!("File too large: {} is over {} MiB.", path.display, MAX_FILE_BYTES / (1024 * 1024)),
    )
    .with_hint("Use grep to find what you need in it.")
    .with_path(path.absolute_str())
}

/// A file about to be changed: its directory and name (opened beneath the root), and
/// when it exists, its open handle holding an exclusive advisory lock (`flock`) that
/// serializes `hashline` processes, plus what it was when it was opened.
#[derive(Debug)]
pub struct Target {
    /// The parent directory.
    pub dir: OwnedFd,
    /// The file's name in it.
    pub name: OsString,
    /// The open, locked file (absent for a new file, or one this user cannot read).
    pub file: Option<File>,
    /// What the file was when it was locked (absent for a new file).
    pub snapshot: Option<Snapshot>,
    /// The file's absolute real path (for messages, hooks and recovery records).
    pub real: std::path::PathBuf,
}

impl Target {
    /// Opens and locks the target of `path` beneath `root`; with `create_parents`,
    /// missing parent directories are created (beneath the root too).
    pub fn open(root: BorrowedFd<'_>, path: &ResolvedPath, create_parents: bool) -> io::Result<Self> {
        let rel = path.rel();
        let Some(name) = rel.file_name() else {
            return Err(io::Error::new(io::ErrorKind::IsADirectory, "is a directory"));
        };
        let parent = rel.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let dir = if create_parents {
            create_dirs_beneath(root, parent)?
        } else {
            open_beneath(root, parent, OFlags::DIRECTORY | OFlags::RDONLY)?
        };
        for _ in 0..LOCK_RETRIES {
            let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
            let fd = match rustix::fs::openat(&dir, name, flags, rustix::fs::Mode::empty()) {
                Ok(fd) => fd,
                Err(Errno::NOENT) => {
                    return Ok(Self {
                        dir,
                        name: name.to_owned(),
                        file: None,
                        snapshot: None,
                        real: path.real.clone(),
                    });
                }
                Err(Errno::ACCESS) => {
                    let stat = rustix::fs::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW)?;
                    let snapshot = Some(Snapshot::of(&stat));
                    return Ok(Self { dir, name: name.to_owned(), file: None, snapshot, real: path.real.clone() });
                }
                Err(err) => return Err(err.into()),
            };
            let stat = rustix::fs::fstat(&fd)?;
            if FileType::from_raw_mode(stat.st_mode) == FileType::Directory {
                return Err(io::Error::new(io::ErrorKind::IsADirectory, "is a directory"));
            }
            if FileType::from_raw_mode(stat.st_mode) == FileType::RegularFile {
                rustix::fs::flock(&fd, rustix::fs::FlockOperation::LockExclusive)?;
            }
            let stat = rustix::fs::fstat(&fd)?;
            // The name may have moved to another file while we waited for the lock.
            match rustix::fs::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW) {
                Ok(now) if FileId::of(&now) == FileId::of(&stat) => {
                    let snapshot = Some(Snapshot::of(&stat));
                    let file = Some(File::from(fd));
                    return Ok(Self { dir, name: name.to_owned(), file, snapshot, real: path.real.clone() });
                }
                Ok(_) | Err(Errno::NOENT) => continue,
                Err(err) => return Err(err.into()),
            }
        }
        Err(io::Error::other("the file kept being replaced while it was being opened"))
    }

    /// Whether the file exists.
    pub fn exists(&self) -> bool {
        self.snapshot.is_some()
    }

    /// Loads the file's bytes through its handle for an edit: the errors of a read.
    pub fn load(&self, path: &ResolvedPath) -> Result<Vec<u8>, ToolError> {
        if !self.is_regular() {
            return Err(ToolError::new(
                ErrorCode::FsError,
                format!(
                    "Not a regular file: {} (a FIFO, socket or device). The tools only read regular files.",
                    path.display
                ),
            )
            .with_path(path.absolute_str()));
        }
        self.read().map_err(|err| read_error(&err, path))?.ok_or_else(|| too_large(path))
    }

    /// Whether the target is a regular file (or absent).
    pub fn is_regular(&self) -> bool {
        self.file.as_ref().is_none_or(|f| f.metadata().is_ok_and(|m| m.is_file()))
    }

    /// Reads the whole file through its handle; `None` when it is over [`MAX_FILE_BYTES`].
    pub fn read(&self) -> io::Result<Option<Vec<u8>>> {
        match &self.file {
            Some(file) => {
                let mut bytes = Vec::new();
                let size = self.snapshot.map_or(0, |s| s.size);
                if size > MAX_FILE_BYTES {
                    return Ok(None);
                }
                bytes.resize(size as usize, 0);
                file.read_exact_at(&mut bytes, 0)?;
                Ok(Some(bytes))
            }
            None if self.exists() => Err(Errno::ACCESS.into()),
            None => Err(Errno::NOENT.into()),
        }
    }

    /// Refuses a file the user could not write with an ordinary open: no write bit at all,
    /// or `access(W_OK)` fails (`EACCES`).
    pub fn check_writable(&self) -> io::Result<()> {
        let Some(snapshot) = self.snapshot else { return Ok(()) };
        if snapshot.mode & 0o222 == 0 {
            return Err(Errno::ACCESS.into());
        }
        rustix::fs::accessat(&self.dir, &self.name, rustix::fs::Access::WRITE_OK, AtFlags::EACCESS)?;
        Ok(())
    }

    /// Compare before commit: whether the file is still the one read as `old` — the same
    /// inode under the same name, size and modification time, and for files up to 1 MiB,
    /// the same bytes. With `reserved` (space was reserved in the file, which moves its
    /// modification time) the time is not compared.
    pub fn unchanged(&self, old: &[u8], reserved: bool) -> io::Result<bool> {
        let (Some(file), Some(snapshot)) = (&self.file, self.snapshot) else {
            return Ok(!self.exists());
        };
        let now = Snapshot::of(&rustix::fs::fstat(file.as_fd())?);
        let same_time = reserved || now.mtime == snapshot.mtime;
        if (now.id, now.size) != (snapshot.id, snapshot.size) || !same_time || now.size != old.len() as u64 {
            return Ok(false);
        }
        match rustix::fs::statat(&self.dir, &self.name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(named) if FileId::of(&named) == snapshot.id => {}
            Ok(_) | Err(Errno::NOENT) => return Ok(false),
            Err(err) => return Err(err.into()),
        }
        if now.size <= COMPARE_BYTES_MAX {
            let mut bytes = vec![0; now.size as usize];
            file.read_exact_at(&mut bytes, 0)?;
            return Ok(bytes == old);
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn io_errors_map_to_codes() {
        let path = ResolvedPath {
            display: "a.txt".into(),
            absolute: "/w/a.txt".into(),
            real: "/w/a.txt".into(),
            root: "/w".into(),
            key: "/w/a.txt".into(),
        };
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
