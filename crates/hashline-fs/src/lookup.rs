//! Look-ups by name that open nothing for reading or writing: a path's metadata, a
//! directory's entries, a canonical path, a symlink's target. Everything outside this
//! crate calls these rather than `std::fs`, so that what a platform does differently
//! (Windows' verbatim `\\?\` paths from `canonicalize`, macOS' case-insensitive names)
//! is handled in one place.

use std::fs::{Metadata, ReadDir};
use std::io;
use std::path::{Path, PathBuf};

use crate::target::FileId;

/// The metadata of what `path` names, symlinks followed.
pub fn metadata(path: &Path) -> io::Result<Metadata> {
    std::fs::metadata(path)
}

/// The metadata of `path` itself (a symlink is not followed).
pub fn symlink_metadata(path: &Path) -> io::Result<Metadata> {
    std::fs::symlink_metadata(path)
}

/// The entries of the directory `path`.
pub fn read_dir(path: &Path) -> io::Result<ReadDir> {
    std::fs::read_dir(path)
}

/// The absolute path of `path` with every symlink, `.` and `..` resolved. On Windows it
/// is given in the form a user writes (`C:\Users\…`, `\\server\share\…`) wherever that
/// names the same file, and as a verbatim `\\?\` path only where it must be one (a name
/// the ordinary form would change, or a path past 260 characters).
pub fn canonicalize(path: &Path) -> io::Result<PathBuf> {
    #[cfg(windows)]
    return dunce::canonicalize(path);
    #[cfg(not(windows))]
    std::fs::canonicalize(path)
}

/// Where the absolute `path` leads on Windows, as Windows itself resolves it: `.` and `..`
/// are taken lexically first (Win32 normalizes a path before the file system sees it, so
/// `link\..\x` is `x` beside `link`), then the deepest part that exists is canonicalized
/// (links followed; the drive letter and every name in the case the file system keeps them,
/// so that `c:\users\ME` and `C:\Users\me` are one path) and the rest appended as written.
#[cfg(windows)]
pub fn real_path(path: &Path) -> PathBuf {
    let mut lexical = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                if lexical.parent().is_some() {
                    lexical.pop();
                }
            }
            other => lexical.push(other),
        }
    }
    let mut existing = lexical.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = canonicalize(existing) {
            let mut out = real;
            out.extend(rest.iter().rev());
            return out;
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_owned());
                existing = parent;
            }
            _ => return dunce::simplified(&lexical).to_path_buf(),
        }
    }
}

/// The target a symlink holds.
pub fn read_link(path: &Path) -> io::Result<PathBuf> {
    std::fs::read_link(path)
}

/// Removes the file (or symlink) `path`.
pub fn remove_file(path: &Path) -> io::Result<()> {
    std::fs::remove_file(path)
}

/// Makes the directory `path` and its missing parents.
pub fn create_dir_all(path: &Path) -> io::Result<()> {
    std::fs::create_dir_all(path)
}

/// The identity (device, inode) of what `path` names now, if it exists, and how many
/// names it has (its link count; 1 for a directory).
pub fn identity(path: &Path) -> Option<(FileId, u64)> {
    FileId::of_path(path)
}

/// A file's modification time in nanoseconds since the epoch, as precise as the file
/// system keeps it (0 before the epoch or where unknown).
pub fn mtime_nanos(meta: &Metadata) -> u128 {
    meta.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).map_or(0, |d| d.as_nanos())
}
