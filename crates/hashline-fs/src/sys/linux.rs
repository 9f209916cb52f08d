//! The Linux fast paths: `openat2`, unnamed temporary files linked through
//! `/proc/self/fd`, `fallocate`.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::path::Path;

use rustix::fs::{AtFlags, FallocateFlags, Mode, OFlags, ResolveFlags};
use rustix::io::Errno;

use super::{Handle, HandleRef, Open};

/// `openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)`; `None` on a kernel without it (or
/// a sandbox that forbids it), where the portable walk takes over.
pub(super) fn open_beneath(dir: HandleRef<'_>, rel: &Path, how: Open) -> Option<io::Result<Handle>> {
    // openat2 refuses a mode unless a file may be created (and `beneath_flags` gives one
    // only then).
    let (flags, mode) = super::unix::beneath_flags(how);
    let resolve = ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS;
    match rustix::fs::openat2(dir, rel, flags, mode, resolve) {
        Err(Errno::NOSYS) | Err(Errno::PERM) => None,
        other => Some(other.map_err(Into::into)),
    }
}

/// `malloc_trim(0)`: every glibc arena's free memory back to the system.
#[cfg(target_env = "gnu")]
pub(super) fn trim_heap() {
    // SAFETY: `malloc_trim` takes no pointer and touches only the allocator's free chunks,
    // under each arena's lock: any thread may call it at any time.
    unsafe { libc::malloc_trim(0) };
}

/// Whether `/proc/self/fd` can link an unnamed temporary file into place.
fn proc_fd_usable() -> bool {
    static USABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *USABLE.get_or_init(|| Path::new("/proc/self/fd").is_dir())
}

/// `O_TMPFILE` in `dir`, where the file system has it and `/proc` can link it later.
pub(super) fn unnamed_file(dir: HandleRef<'_>, mode: u32) -> io::Result<Option<File>> {
    let mode = Mode::from_raw_mode(mode & 0o7777);
    if !proc_fd_usable() {
        return Ok(None);
    }
    match rustix::fs::openat(dir, ".", OFlags::TMPFILE | OFlags::WRONLY | OFlags::CLOEXEC, mode) {
        Ok(fd) => Ok(Some(File::from(fd))),
        Err(Errno::OPNOTSUPP | Errno::ISDIR | Errno::INVAL | Errno::NOENT) => Ok(None),
        Err(err) => Err(err.into()),
    }
}

/// Links an `O_TMPFILE` file under `name` in `dir`.
pub(super) fn link_unnamed(file: &File, dir: HandleRef<'_>, name: &str) -> io::Result<()> {
    let proc = format!("/proc/self/fd/{}", file.as_raw_fd());
    Ok(rustix::fs::linkat(rustix::fs::CWD, proc.as_str(), dir, name, AtFlags::SYMLINK_FOLLOW)?)
}

/// `fallocate(FALLOC_FL_KEEP_SIZE)`; `Ok(false)` on a file system without it.
pub(super) fn reserve(file: &File, len: u64) -> io::Result<bool> {
    match rustix::fs::fallocate(file, FallocateFlags::KEEP_SIZE, 0, len.max(1)) {
        Ok(()) => Ok(true),
        Err(Errno::OPNOTSUPP) | Err(Errno::NOSYS) => Ok(false),
        Err(err) => Err(err.into()),
    }
}
