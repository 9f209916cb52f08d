//! The portable POSIX backend: what every Unix has (macOS among them).

use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Component, Path};

use rustix::fs::{Mode, OFlags};
use rustix::io::Errno;

/// One `openat` per component, never following a symlink: the paths given here are real
/// paths, which hold none, so a symlink met on the way was swapped in after the path was
/// resolved and fails as an escape (`EXDEV`, as `openat2` says it); a directory swapped
/// meanwhile is already held open.
pub(crate) fn walk(dir: BorrowedFd<'_>, rel: &Path, flags: OFlags) -> io::Result<OwnedFd> {
    walk_components(dir, rel, flags).map_err(|err| match err {
        Errno::LOOP => Errno::XDEV.into(),
        err => err.into(),
    })
}

fn walk_components(dir: BorrowedFd<'_>, rel: &Path, flags: OFlags) -> Result<OwnedFd, Errno> {
    let parts: Vec<_> = rel.components().filter(|c| matches!(c, Component::Normal(_))).collect();
    let Some((last, parents)) = parts.split_last() else {
        return rustix::fs::openat(dir, ".", flags | OFlags::CLOEXEC, Mode::empty());
    };
    let mut current: Option<OwnedFd> = None;
    for part in parents {
        let at = current.as_ref().map_or(dir, AsFd::as_fd);
        let next = rustix::fs::openat(at, part.as_os_str(), step_flags(), Mode::empty())?;
        current = Some(next);
    }
    let at = current.as_ref().map_or(dir, AsFd::as_fd);
    rustix::fs::openat(at, last.as_os_str(), flags | OFlags::NOFOLLOW | OFlags::CLOEXEC, Mode::from_raw_mode(0o666))
}

/// How a directory on the way is opened: only to look up the next name in it (`O_PATH`
/// on Linux, which needs no read permission; elsewhere read-only).
fn step_flags() -> OFlags {
    let base = OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    #[cfg(target_os = "linux")]
    if super::backend() == super::Backend::Linux {
        return base | OFlags::PATH;
    }
    base | OFlags::RDONLY
}
