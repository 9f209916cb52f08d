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

/// The absolute path of `path` with every symlink, `.` and `..` resolved.
pub fn canonicalize(path: &Path) -> io::Result<PathBuf> {
    std::fs::canonicalize(path)
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
