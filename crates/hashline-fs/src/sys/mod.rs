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
//! - [`Backend::Windows`]: `NtCreateFile` one component at a time beneath a directory
//!   handle (reparse points refused as escapes), renames, links and removals through the
//!   handle of the name they change, byte-range locks beyond any file's end (decision 011).
//!
//! The rest of the crate is written once, on the types and calls re-exported here
//! ([`Handle`], [`HandleRef`], [`open_at`], [`rename_at`], [`stat`], [`lock`], ...); the
//! crate's boundary test checks that nothing outside this module calls the system.

use std::fs::File;
use std::io;
use std::path::Path;
use std::sync::OnceLock;

use crate::target::FileId;

#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_vendor = "apple")]
mod macos;
#[cfg(unix)]
mod unix;
#[cfg(windows)]
mod windows;

#[cfg(unix)]
use unix as os;
#[cfg(windows)]
use windows as os;

pub(crate) use os::{
    Handle, HandleRef, borrow, create_private_dir, dir_lock, errors, is_private, keep_owner, link_at, list, lock,
    make_dir_at, may_write_at, name_bytes, name_from_bytes, nonblocking, open_at, open_dir_path, owner_and_mode,
    private_mode, read_exact_at, remove_at, remove_dir_at, rename_at, restore_aside, set_blocking, stat, stat_at,
    stat_path, try_lock, write_all_at,
};

#[cfg(windows)]
pub(crate) use os::is_plain_name;

/// Gives the allocator's free memory back to the system, where the allocator keeps it
/// (glibc: each thread's arena).
pub(crate) fn trim_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    linux::trim_heap();
}

/// Whether `name` in `dir` still names the open file `of`, which has not lost its last
/// name meanwhile (removed while held open, Windows lists it until the last handle
/// closes): what an open by name found may have been renamed or removed since.
///
/// `of` must have been opened from a name in `dir`: both are then on `dir`'s file system (a
/// rename cannot leave it), and on Windows only the file numbers are compared — Wine
/// reports volume serial 0 for a handle whose file was renamed after it was opened.
///
/// On Unix the held file must also still have a link: Linux's `rmdir` and `unlink` drop the
/// count before they take the name out of the directory cache, so a look-up in between
/// can find the name leading to the file just removed. (A group commit's record, made in
/// a journal directory another program had just removed, failed with `EPERM` — ext4's
/// answer for a file made in a removed directory — rather than being made again in a new
/// directory: this check, run in that window, is how it can have found the directory
/// still named.)
pub(crate) fn still_named(dir: HandleRef<'_>, name: &std::ffi::OsStr, of: HandleRef<'_>) -> bool {
    let same = stat_at(dir, name).ok().zip(stat(of).ok()).is_some_and(|(named, held)| names_held(&named, &held));
    // Windows lists a file removed while a handle holds it (delete pending) until the last
    // handle closes, with its link count unchanged.
    #[cfg(windows)]
    let same = same && os::removal_pending(of).is_ok_and(|pending| !pending);
    same
}

/// Whether what a name was found to be (`named`) is the held file (`held`), by their
/// metadata (see [`still_named`]): on Unix the same device and inode, and the held file
/// still linked; on Windows the same file number.
fn names_held(named: &Meta, held: &Meta) -> bool {
    named.id.ino == held.id.ino && (cfg!(windows) || (named.id == held.id && held.nlink > 0))
}

/// How a file is opened. Every open: no symlink followed as the last component, no
/// waiting (a FIFO's peer, a device's data), no controlling terminal, not inherited by
/// child processes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Open {
    /// A directory, to open names in, lock or list.
    Dir,
    /// An existing file, for reading.
    Read,
    /// An existing file, for writing in place.
    Write,
    /// A new file, which must not exist yet, for writing, with these permission bits.
    CreateNew(u32),
}

/// What kind of file a handle or name is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// Anything else: a symlink (not followed), FIFO, socket or device.
    Other,
}

/// What a file is, through its handle or its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Meta {
    /// Its identity.
    pub id: FileId,
    /// Its kind.
    pub kind: Kind,
    /// Its size in bytes.
    pub size: u64,
    /// Its modification time (seconds, nanoseconds).
    pub mtime: (i64, i64),
    /// Its names (hard links).
    pub nlink: u64,
    /// Its permission bits.
    pub mode: u32,
    /// Its owner and group.
    pub owner: (u32, u32),
}

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
    /// Windows' own calls: `NtCreateFile` walks beneath a directory handle, renames and
    /// links by handle, byte-range locks.
    Windows,
}

impl Backend {
    /// The backend's name, as [`BACKEND_VAR`] takes it.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Linux => "linux",
            Backend::Portable => "portable",
            Backend::Windows => "windows",
        }
    }
}

/// The backend of this process, chosen once (see [`BACKEND_VAR`]).
pub fn backend() -> Backend {
    static BACKEND: OnceLock<Backend> = OnceLock::new();
    *BACKEND.get_or_init(|| {
        let portable = std::env::var_os(BACKEND_VAR).is_some_and(|v| v == "portable");
        expected(portable)
    })
}

/// The backend this platform runs, `portable` being asked for or not.
fn expected(portable: bool) -> Backend {
    if cfg!(windows) {
        Backend::Windows
    } else if cfg!(target_os = "linux") && !portable {
        Backend::Linux
    } else {
        Backend::Portable
    }
}

/// Opens `rel` (relative, only normal components) beneath `dir`; never follows a symlink
/// out of it.
pub(crate) fn open_beneath(dir: HandleRef<'_>, rel: &Path, how: Open) -> io::Result<Handle> {
    #[cfg(target_os = "linux")]
    if backend() == Backend::Linux
        && let Some(opened) = linux::open_beneath(dir, rel, how)
    {
        return opened;
    }
    os::walk(dir, rel, how)
}

/// A new file in `dir` without a name, to be linked in with [`link_unnamed`]; `None` where
/// the backend or the file system has none (the caller makes a named one).
pub(crate) fn unnamed_file(dir: HandleRef<'_>, mode: u32) -> io::Result<Option<File>> {
    #[cfg(target_os = "linux")]
    if backend() == Backend::Linux {
        return linux::unnamed_file(dir, mode);
    }
    let _ = (dir, mode);
    Ok(None)
}

/// Gives the unnamed file `file` (from [`unnamed_file`]) the name `name` in `dir`; fails with
/// `EEXIST` when the name is taken.
pub(crate) fn link_unnamed(file: &File, dir: HandleRef<'_>, name: &str) -> io::Result<()> {
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
    return macos::full_sync(borrow(file));
    #[allow(unreachable_code)]
    file.sync_data()
}

/// Flushes a file's data and metadata to the disk.
pub(crate) fn sync_all(file: &File) -> io::Result<()> {
    #[cfg(target_vendor = "apple")]
    return macos::full_sync(borrow(file));
    #[allow(unreachable_code)]
    file.sync_all()
}

/// Flushes a directory's entries (a rename or link in it) to the disk. On Windows
/// nothing is done: NTFS journals its metadata, and the call would need write access
/// to the directory, which a reader may lack.
pub(crate) fn sync_dir(dir: HandleRef<'_>) -> io::Result<()> {
    #[cfg(target_vendor = "apple")]
    return macos::full_sync(dir);
    #[cfg(all(unix, not(target_vendor = "apple")))]
    return Ok(rustix::fs::fsync(dir)?);
    #[cfg(windows)]
    {
        let _ = dir;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_backend_is_the_one_the_environment_asks_for() {
        let asked = std::env::var_os(BACKEND_VAR).is_some_and(|v| v == "portable");
        assert_eq!(backend(), expected(asked));
        if cfg!(windows) {
            assert_eq!((expected(false), expected(true)), (Backend::Windows, Backend::Windows));
        } else if cfg!(target_os = "linux") {
            assert_eq!((expected(false), expected(true)), (Backend::Linux, Backend::Portable));
        } else {
            assert_eq!((expected(false), expected(true)), (Backend::Portable, Backend::Portable));
        }
        eprintln!("hashline-fs backend: {}", backend().name());
    }

    /// The look-up that finds a name still leading to a file whose last link was just
    /// dropped (Linux's `unlink` and `rmdir` drop the count before the name leaves the
    /// directory cache) does not call the held file still named on Unix; the same metadata
    /// with the link kept does. That window cannot be made to open on demand, so the rule is
    /// checked on the metadata the two `stat`s give.
    #[test]
    fn a_held_file_with_no_link_left_is_not_still_named() {
        let dir = tempfile::tempdir().expect("tempdir");
        let d = open_dir_path(dir.path()).expect("dir");
        let held = open_at(borrow(&d), std::ffi::OsStr::new("r"), Open::CreateNew(0o600)).expect("create");
        let meta = stat(borrow(&held)).expect("stat");
        assert!(names_held(&meta, &meta), "linked: still named");
        let unlinked = Meta { nlink: 0, ..meta };
        assert_eq!(names_held(&meta, &unlinked), cfg!(windows), "no link left: named only on Windows");
        let other = Meta { id: FileId { ino: meta.id.ino + 1, ..meta.id }, ..meta };
        assert!(!names_held(&other, &meta), "another file");
        let elsewhere = Meta { id: FileId { dev: meta.id.dev + 1, ..meta.id }, ..meta };
        assert_eq!(names_held(&elsewhere, &meta), cfg!(windows), "another device: only Windows compares numbers alone");
    }

    /// A file opened by name and then renamed, or removed while held (which Windows keeps
    /// listing until the last handle closes), is no longer what its old name means.
    #[test]
    fn a_name_names_a_held_file_until_it_is_renamed_or_removed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let d = open_dir_path(dir.path()).expect("dir");
        let d = borrow(&d);
        let name = |n: &str| std::ffi::OsString::from(n);
        let held = open_at(d, &name("r.intent"), Open::CreateNew(0o600)).expect("create");
        assert!(still_named(d, &name("r.intent"), borrow(&held)));
        rename_at(d, &name("r.intent"), d, &name("r.commit")).expect("rename");
        assert!(!still_named(d, &name("r.intent"), borrow(&held)), "renamed away");
        assert!(still_named(d, &name("r.commit"), borrow(&held)));
        std::fs::write(dir.path().join("r.intent"), "another file").expect("write");
        assert!(!still_named(d, &name("r.intent"), borrow(&held)), "another file under the old name");
        remove_at(d, &name("r.commit")).expect("remove");
        assert!(!still_named(d, &name("r.commit"), borrow(&held)), "removed while held");
        drop(held);
        // A fresh handle: Wine lists what a handle's first listing found, every time.
        let fresh = open_dir_path(dir.path()).expect("dir");
        assert_eq!(list(borrow(&fresh)).expect("list"), [name("r.intent")], "the removed one is gone once let go");
    }

    /// A removed file nobody holds leaves nothing in its directory, under its name or any
    /// other (on Windows without POSIX removal it is renamed aside through a handle that
    /// removes it when closed), and its name can be taken again at once.
    #[test]
    fn a_removed_file_leaves_no_name_behind() {
        let dir = tempfile::tempdir().expect("tempdir");
        let d = open_dir_path(dir.path()).expect("dir");
        let name = std::ffi::OsString::from("gone.txt");
        for round in 0..3 {
            drop(open_at(borrow(&d), &name, Open::CreateNew(0o600)).expect("create"));
            remove_at(borrow(&d), &name).expect("remove");
            let fresh = open_dir_path(dir.path()).expect("dir");
            assert_eq!(list(borrow(&fresh)).expect("list"), Vec::<std::ffi::OsString>::new(), "round {round}");
        }
    }
}
