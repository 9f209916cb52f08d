//! The POSIX calls every Unix backend shares (macOS among them): handles are file
//! descriptors, opens are `openat` relative to a directory's, and the portable walk that
//! confines a path beneath a directory one component at a time.

use std::borrow::Cow;
use std::ffi::{OsStr, OsString};
use std::fs::{File, Metadata, OpenOptions};
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Component, Path};

use rustix::fs::{AtFlags, FileType, FlockOperation, Mode, OFlags, Stat};
use rustix::io::Errno;

use super::{Kind, Meta, Open};
use crate::target::FileId;

/// An open file or directory.
pub(crate) type Handle = OwnedFd;
/// A borrowed [`Handle`].
pub(crate) type HandleRef<'a> = BorrowedFd<'a>;

/// Borrows a handle of anything that has one (a [`Handle`], a [`File`]).
pub(crate) fn borrow(of: &impl AsFd) -> HandleRef<'_> {
    of.as_fd()
}

fn flags(how: Open) -> OFlags {
    let base = OFlags::NOFOLLOW | OFlags::CLOEXEC;
    match how {
        Open::Dir => base | OFlags::DIRECTORY | OFlags::RDONLY,
        Open::Read => base | OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY,
        Open::Write => base | OFlags::WRONLY | OFlags::NONBLOCK | OFlags::NOCTTY,
        Open::CreateNew(_) => base | OFlags::CREATE | OFlags::EXCL | OFlags::WRONLY,
    }
}

fn mode(how: Open) -> Mode {
    match how {
        Open::CreateNew(mode) => Mode::from_raw_mode(raw_mode(mode)),
        _ => Mode::empty(),
    }
}

// `mode_t` is 16 bits on macOS, 32 on Linux.
#[allow(clippy::unnecessary_cast)]
fn raw_mode(mode: u32) -> rustix::fs::RawMode {
    (mode & 0o7777) as rustix::fs::RawMode
}

/// Opens the directory `path` (absolute, or relative to the working directory).
pub(crate) fn open_dir_path(path: &Path) -> io::Result<Handle> {
    Ok(rustix::fs::open(path, OFlags::DIRECTORY | OFlags::RDONLY | OFlags::CLOEXEC, Mode::empty())?)
}

/// A new handle of the directory `dir` to lock (each holder needs its own: locks
/// through one open file description do not exclude each other).
pub(crate) fn dir_lock(dir: HandleRef<'_>) -> io::Result<Handle> {
    open_at(dir, OsStr::new("."), Open::Dir)
}

/// Opens the one name `name` in `dir`, never following a symlink there.
pub(crate) fn open_at(dir: HandleRef<'_>, name: &OsStr, how: Open) -> io::Result<Handle> {
    Ok(rustix::fs::openat(dir, name, flags(how), mode(how))?)
}

/// The flags of an open beneath a directory, for the backends' walks: `how`'s, following
/// what the kernel confines (the last component's `O_NOFOLLOW` is the walk's to add).
pub(super) fn beneath_flags(how: Open) -> (OFlags, Mode) {
    (flags(how) - OFlags::NOFOLLOW, mode(how))
}

/// One `openat` per component, never following a symlink: the paths given here are real
/// paths, which hold none, so a symlink met on the way was swapped in after the path was
/// resolved and fails as an escape (`EXDEV`, as `openat2` says it); a directory swapped
/// meanwhile is already held open.
pub(super) fn walk(dir: HandleRef<'_>, rel: &Path, how: Open) -> io::Result<Handle> {
    walk_components(dir, rel, how).map_err(|err| match err {
        Errno::LOOP => Errno::XDEV.into(),
        err => err.into(),
    })
}

fn walk_components(dir: HandleRef<'_>, rel: &Path, how: Open) -> Result<Handle, Errno> {
    let (flags, mode) = beneath_flags(how);
    let parts: Vec<_> = rel.components().filter(|c| matches!(c, Component::Normal(_))).collect();
    let Some((last, parents)) = parts.split_last() else {
        return rustix::fs::openat(dir, ".", flags, Mode::empty());
    };
    let mut current: Option<Handle> = None;
    for part in parents {
        let at = current.as_ref().map_or(dir, AsFd::as_fd);
        let next = rustix::fs::openat(at, part.as_os_str(), step_flags(), Mode::empty())?;
        current = Some(next);
    }
    let at = current.as_ref().map_or(dir, AsFd::as_fd);
    rustix::fs::openat(at, last.as_os_str(), flags | OFlags::NOFOLLOW, mode)
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

/// Makes the directory `name` in `dir` (mode 0700 when `private`, else 0777 less the
/// umask); an existing one fails with [`io::ErrorKind::AlreadyExists`].
pub(crate) fn make_dir_at(dir: HandleRef<'_>, name: &OsStr, private: bool) -> io::Result<()> {
    let mode = if private { 0o700 } else { 0o777 };
    Ok(rustix::fs::mkdirat(dir, name, Mode::from_raw_mode(mode))?)
}

/// Renames `from` in `from_dir` to `to` in `to_dir`, replacing what `to` names.
pub(crate) fn rename_at(from_dir: HandleRef<'_>, from: &OsStr, to_dir: HandleRef<'_>, to: &OsStr) -> io::Result<()> {
    Ok(rustix::fs::renameat(from_dir, from, to_dir, to)?)
}

/// Gives the file `from` in `from_dir` the further name `to` in `to_dir` (a hard link);
/// a taken name fails with [`io::ErrorKind::AlreadyExists`].
pub(crate) fn link_at(from_dir: HandleRef<'_>, from: &OsStr, to_dir: HandleRef<'_>, to: &OsStr) -> io::Result<()> {
    Ok(rustix::fs::linkat(from_dir, from, to_dir, to, AtFlags::empty())?)
}

/// Nothing to put back: a rename here replaces its target atomically (see the Windows
/// backend's `restore_aside`).
pub(crate) fn restore_aside(dir: HandleRef<'_>, name: &OsStr) -> io::Result<bool> {
    let _ = (dir, name);
    Ok(false)
}

/// Removes the name `name` (not a directory) from `dir`.
pub(crate) fn remove_at(dir: HandleRef<'_>, name: &OsStr) -> io::Result<()> {
    Ok(rustix::fs::unlinkat(dir, name, AtFlags::empty())?)
}

/// Removes the empty directory `name` from `dir`.
pub(crate) fn remove_dir_at(dir: HandleRef<'_>, name: &OsStr) -> io::Result<()> {
    Ok(rustix::fs::unlinkat(dir, name, AtFlags::REMOVEDIR)?)
}

// `stat` field types differ between platforms.
#[allow(clippy::unnecessary_cast)]
fn meta(stat: &Stat) -> Meta {
    let kind = match FileType::from_raw_mode(stat.st_mode) {
        FileType::RegularFile => Kind::File,
        FileType::Directory => Kind::Dir,
        _ => Kind::Other,
    };
    Meta {
        id: FileId { dev: stat.st_dev as u64, ino: stat.st_ino as u128 },
        kind,
        size: stat.st_size as u64,
        mtime: (stat.st_mtime as i64, stat.st_mtime_nsec as i64),
        nlink: stat.st_nlink as u64,
        mode: stat.st_mode as u32 & 0o7777,
        owner: (stat.st_uid, stat.st_gid),
    }
}

/// What an open handle is.
pub(crate) fn stat(of: HandleRef<'_>) -> io::Result<Meta> {
    Ok(meta(&rustix::fs::fstat(of)?))
}

/// What the name `name` in `dir` is, a symlink not followed.
pub(crate) fn stat_at(dir: HandleRef<'_>, name: &OsStr) -> io::Result<Meta> {
    Ok(meta(&rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)?))
}

/// What `path` names, symlinks followed.
pub(crate) fn stat_path(path: &Path) -> io::Result<Meta> {
    Ok(meta(&rustix::fs::stat(path)?))
}

/// This process's effective user, and a file's owner and permission bits: `None` where
/// files have no POSIX owner.
pub(crate) fn owner_and_mode(meta: &Metadata) -> Option<(u32, u32, u32)> {
    Some((rustix::process::geteuid().as_raw(), meta.uid(), meta.mode() & 0o7777))
}

/// Whether this user owns the file `meta` describes and only this user may read it.
pub(crate) fn is_private(meta: &Meta) -> bool {
    meta.owner.0 == rustix::process::geteuid().as_raw() && meta.mode & 0o077 == 0
}

/// Takes the exclusive lock on `of`, waiting for it.
pub(crate) fn lock(of: HandleRef<'_>) -> io::Result<()> {
    Ok(rustix::fs::flock(of, FlockOperation::LockExclusive)?)
}

/// Takes the lock on `of` (shared or exclusive) if nobody holds it against that:
/// `Ok(false)` when someone does.
pub(crate) fn try_lock(of: HandleRef<'_>, shared: bool) -> io::Result<bool> {
    let op = if shared { FlockOperation::NonBlockingLockShared } else { FlockOperation::NonBlockingLockExclusive };
    match rustix::fs::flock(of, op) {
        Ok(()) => Ok(true),
        Err(Errno::WOULDBLOCK) => Ok(false),
        Err(err) => Err(err.into()),
    }
}

/// Gives `file` the permission bits `mode` and, where this process may, the owner
/// `owner` (without the privilege, the owner stays this user).
pub(crate) fn keep_owner(file: &File, mode: u32, owner: (u32, u32)) -> io::Result<()> {
    rustix::fs::fchmod(file, Mode::from_raw_mode(raw_mode(mode)))?;
    let _ =
        rustix::fs::fchown(file, Some(rustix::fs::Uid::from_raw(owner.0)), Some(rustix::fs::Gid::from_raw(owner.1)));
    Ok(())
}

/// Whether this user may write the file `name` in `dir` (`access(W_OK)`, effective ids).
pub(crate) fn may_write_at(dir: HandleRef<'_>, name: &OsStr) -> io::Result<()> {
    Ok(rustix::fs::accessat(dir, name, rustix::fs::Access::WRITE_OK, AtFlags::EACCESS)?)
}

/// Reads exactly `buf.len()` bytes of `file` from `offset`.
pub(crate) fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    file.read_exact_at(buf, offset)
}

/// Writes all of `buf` into `file` at `offset`.
pub(crate) fn write_all_at(file: &File, buf: &[u8], offset: u64) -> io::Result<()> {
    file.write_all_at(buf, offset)
}

/// The names in the directory `dir` (without `.` and `..`), sorted.
pub(crate) fn list(dir: HandleRef<'_>) -> io::Result<Vec<OsString>> {
    let mut names = Vec::new();
    for entry in rustix::fs::Dir::read_from(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_bytes();
        if name != b"." && name != b".." {
            names.push(OsStr::from_bytes(name).to_owned());
        }
    }
    names.sort();
    Ok(names)
}

/// Makes reads of a regular file opened for reading by [`nonblocking`] ordinary blocking
/// reads. Of the status flags `F_SETFL` sets, such a file has only `O_NONBLOCK` (no append,
/// async, direct or no-atime), so setting none clears it without asking for them first: one
/// system call per file a search opens, not two.
pub(crate) fn set_blocking(file: &File) -> io::Result<()> {
    Ok(rustix::fs::fcntl_setfl(file, OFlags::empty())?)
}

/// Makes a path open of `options` wait for nothing (a FIFO's peer, a device's data) and
/// take no controlling terminal; with `nofollow`, a symlink as the last component fails.
pub(crate) fn nonblocking(options: &mut OpenOptions, nofollow: bool) -> &mut OpenOptions {
    let mut flags = OFlags::NONBLOCK | OFlags::NOCTTY;
    if nofollow {
        flags |= OFlags::NOFOLLOW;
    }
    options.custom_flags(flags.bits() as i32)
}

/// Makes a file created by `options` private to this user (mode 0600).
pub(crate) fn private_mode(options: &mut OpenOptions) -> &mut OpenOptions {
    options.mode(0o600)
}

/// Makes the directory `dir` (its parent must exist) private to this user (mode 0700);
/// an existing one is left as it is.
pub(crate) fn create_private_dir(dir: &Path) -> io::Result<()> {
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)
}

/// A name's bytes, as a journal record keeps them.
pub(crate) fn name_bytes(name: &OsStr) -> Cow<'_, [u8]> {
    Cow::Borrowed(name.as_bytes())
}

/// A name from the bytes [`name_bytes`] gave.
pub(crate) fn name_from_bytes(bytes: &[u8]) -> Option<&OsStr> {
    Some(OsStr::from_bytes(bytes))
}

/// The errors the crate tells apart, by the numbers POSIX gives them.
pub(crate) mod errors {
    use std::io;

    use rustix::io::Errno;

    fn is(err: &io::Error, errno: Errno) -> bool {
        err.raw_os_error() == Some(errno.raw_os_error())
    }

    /// A path that left its directory while being opened (`EXDEV`, as `openat2` says it).
    pub(crate) fn escape() -> io::Error {
        Errno::XDEV.into()
    }

    /// Whether `err` is [`escape`]'s.
    pub(crate) fn is_escape(err: &io::Error) -> bool {
        is(err, Errno::XDEV)
    }

    /// Whether a rename or link failed because its two places are on different file
    /// systems (or mounts).
    pub(crate) fn is_cross_device(err: &io::Error) -> bool {
        is(err, Errno::XDEV)
    }

    /// Whether an open failed because a FIFO has no peer or a device no driver (`ENXIO`).
    pub(crate) fn is_no_peer(err: &io::Error) -> bool {
        is(err, Errno::NXIO)
    }

    /// Whether an open refused to follow a symlink (`ELOOP` from `O_NOFOLLOW`).
    pub(crate) fn is_symlink(err: &io::Error) -> bool {
        is(err, Errno::LOOP)
    }

    /// Permission denied (`EACCES`).
    pub(crate) fn access_denied() -> io::Error {
        Errno::ACCESS.into()
    }

    /// Whether another program holds the file so that it cannot be opened: never on Unix,
    /// whose opens share everything.
    pub(crate) fn is_in_use(err: &io::Error) -> bool {
        let _ = err;
        false
    }

    /// Whether `err` is [`access_denied`]'s.
    pub(crate) fn is_access_denied(err: &io::Error) -> bool {
        is(err, Errno::ACCESS)
    }

    /// No such file (`ENOENT`).
    pub(crate) fn not_found() -> io::Error {
        Errno::NOENT.into()
    }

    /// A name that cannot be made unique (`EEXIST`).
    pub(crate) fn exists() -> io::Error {
        Errno::EXIST.into()
    }
}
