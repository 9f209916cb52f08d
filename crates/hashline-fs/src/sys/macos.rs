//! macOS specifics: `fcntl(F_FULLFSYNC)` for durability (a plain `fsync` there does not
//! reach the disk's platter or flash, only the drive's cache) and `fcntl(F_PREALLOCATE)`
//! to reserve space. Built and linted in CI for both Mac architectures; nothing here can
//! run on the Linux machines that test the rest of the portable backend.

use std::fs::File;
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd};

use rustix::io::Errno;

/// `fcntl(F_FULLFSYNC)`, falling back to `fsync` on a file system that does not support
/// it (some network and FUSE file systems).
pub(super) fn full_sync(fd: BorrowedFd<'_>) -> io::Result<()> {
    match rustix::fs::fcntl_fullfsync(fd) {
        Ok(()) => Ok(()),
        Err(Errno::NOTSUP | Errno::INVAL | Errno::NOTTY) => Ok(rustix::fs::fsync(fd)?),
        Err(err) => Err(err.into()),
    }
}

/// `fcntl(F_PREALLOCATE)` of the bytes `len` needs beyond the file's allocation, from its
/// physical end, all or nothing, without changing its size; `Ok(false)` where the file
/// system does not support it.
pub(super) fn reserve(file: &File, len: u64) -> io::Result<bool> {
    let size = file.metadata()?.len();
    let Some(more) = len.checked_sub(size).filter(|more| *more > 0) else { return Ok(true) };
    let Ok(length) = libc::off_t::try_from(more) else { return Err(Errno::FBIG.into()) };
    let mut store = libc::fstore_t {
        fst_flags: libc::F_ALLOCATEALL,
        fst_posmode: libc::F_PEOFPOSMODE,
        fst_offset: 0,
        fst_length: length,
        fst_bytesalloc: 0,
    };
    // SAFETY: F_PREALLOCATE reads and writes the `fstore_t` it is given, which lives for
    // the call; the descriptor is open for the call's duration (borrowed from `file`).
    let ret = unsafe { libc::fcntl(file.as_fd().as_raw_fd(), libc::F_PREALLOCATE, &mut store) };
    if ret != -1 {
        return Ok(true);
    }
    let err = io::Error::last_os_error();
    match err.raw_os_error() {
        Some(libc::ENOTSUP) | Some(libc::EINVAL) => Ok(false),
        _ => Err(err),
    }
}
