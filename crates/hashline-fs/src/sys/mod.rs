//! The backends: which system calls carry each operation. The rest of the crate calls only
//! the functions here and does not know which backend runs.
//!
//! - [`Backend::Linux`] (Linux only, the default there): `openat2(RESOLVE_BENEATH |
//!   RESOLVE_NO_MAGICLINKS)` for confinement, unnamed temporary files (`O_TMPFILE`) linked
//!   into place through `/proc/self/fd`, `fallocate(FALLOC_FL_KEEP_SIZE)` to reserve space
//!   before an in-place write.
//! - [`Backend::Portable`] (every other Unix, macOS among them; selectable on Linux with
//!   `HASHLINE_FS_BACKEND=portable`): a component-by-component `openat` walk with
//!   `O_NOFOLLOW`, named temporary files, and no space reservation (an in-place write
//!   grows the file before it overwrites it, see `crate::journal`). On macOS, durability
//!   goes through `fcntl(F_FULLFSYNC)` and space is reserved with `fcntl(F_PREALLOCATE)`.

use std::fs::File;
use std::io;
use std::os::fd::{BorrowedFd, OwnedFd};
use std::path::Path;
use std::sync::OnceLock;

use rustix::fs::{Mode, OFlags};

#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_vendor = "apple")]
mod macos;
mod unix;

/// The environment variable that selects the backend on Linux: `portable` runs the
/// portable POSIX backend (what macOS runs), anything else or nothing the Linux one.
pub const BACKEND_VAR: &str = "HASHLINE_FS_BACKEND";

/// Which system calls carry the file operations (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// Linux's own calls: `openat2`, `O_TMPFILE` with `/proc/self/fd`, `fallocate`.
    Linux,
    /// Portable POSIX calls only (`openat` walks, named temporary files).
    Portable,
}

impl Backend {
    /// The backend's name, as [`BACKEND_VAR`] takes it.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Linux => "linux",
            Backend::Portable => "portable",
        }
    }
}

/// The backend of this process, chosen once (see [`BACKEND_VAR`]).
pub fn backend() -> Backend {
    static BACKEND: OnceLock<Backend> = OnceLock::new();
    *BACKEND.get_or_init(|| {
        let portable = std::env::var_os(BACKEND_VAR).is_some_and(|v| v == "portable");
        if cfg!(target_os = "linux") && !portable { Backend::Linux } else { Backend::Portable }
    })
}

/// Opens `rel` (relative, only normal components) beneath `dir`; never follows a symlink
/// out of it.
pub(crate) fn open_beneath(dir: BorrowedFd<'_>, rel: &Path, flags: OFlags) -> io::Result<OwnedFd> {
    #[cfg(target_os = "linux")]
    if backend() == Backend::Linux
        && let Some(opened) = linux::open_beneath(dir, rel, flags)
    {
        return opened;
    }
    unix::walk(dir, rel, flags)
}

/// A new file in `dir` without a name, to be linked in with [`link_unnamed`]; `None` where
/// the backend or the file system has none (the caller makes a named one).
pub(crate) fn unnamed_file(dir: BorrowedFd<'_>, mode: Mode) -> io::Result<Option<File>> {
    #[cfg(target_os = "linux")]
    if backend() == Backend::Linux {
        return linux::unnamed_file(dir, mode);
    }
    let _ = (dir, mode);
    Ok(None)
}

/// Gives the unnamed file `file` (from [`unnamed_file`]) the name `name` in `dir`; fails with
/// `EEXIST` when the name is taken.
pub(crate) fn link_unnamed(file: &File, dir: BorrowedFd<'_>, name: &str) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    if backend() == Backend::Linux {
        return linux::link_unnamed(file, dir, name);
    }
    let _ = (file, dir, name);
    Err(io::Error::new(io::ErrorKind::Unsupported, "no unnamed files on this backend"))
}

/// Reserves room for `len` bytes in `file` without changing its size, so that a full disk
/// fails here, before anything is written. `Ok(false)` where it cannot be done (the
/// caller's in-place write then grows the file before it overwrites it).
pub(crate) fn reserve(file: &File, len: u64) -> io::Result<bool> {
    #[cfg(target_os = "linux")]
    if backend() == Backend::Linux {
        return linux::reserve(file, len);
    }
    #[cfg(target_vendor = "apple")]
    return macos::reserve(file, len);
    #[allow(unreachable_code)]
    {
        let _ = (file, len);
        Ok(false)
    }
}

/// Flushes a file's data to the disk (what a rename after it depends on).
pub(crate) fn sync_data(file: &File) -> io::Result<()> {
    #[cfg(target_vendor = "apple")]
    return macos::full_sync(std::os::fd::AsFd::as_fd(file));
    #[allow(unreachable_code)]
    file.sync_data()
}

/// Flushes a file's data and metadata to the disk.
pub(crate) fn sync_all(file: &File) -> io::Result<()> {
    #[cfg(target_vendor = "apple")]
    return macos::full_sync(std::os::fd::AsFd::as_fd(file));
    #[allow(unreachable_code)]
    file.sync_all()
}

/// Flushes a directory's entries (a rename or link in it) to the disk.
pub(crate) fn sync_dir(dir: BorrowedFd<'_>) -> io::Result<()> {
    #[cfg(target_vendor = "apple")]
    return macos::full_sync(dir);
    #[allow(unreachable_code)]
    Ok(rustix::fs::fsync(dir)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_backend_is_the_one_the_environment_asks_for() {
        let asked = std::env::var_os(BACKEND_VAR).is_some_and(|v| v == "portable");
        let expected = if cfg!(target_os = "linux") && !asked { Backend::Linux } else { Backend::Portable };
        assert_eq!(backend(), expected);
        eprintln!("hashline-fs backend: {}", backend().name());
    }
}
