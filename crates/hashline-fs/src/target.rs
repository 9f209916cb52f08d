//! Files about to be read or changed, opened beneath a root: a file's identity and what it
//! was when it was opened, the exclusive lock that serializes hashline processes on it,
//! and the compare before commit.

use std::ffi::OsString;
use std::fs::File;
use std::io;
use std::path::Path;
use std::time::SystemTime;

use crate::error::{NotRegularFile, too_large};
use crate::root::{RootDir, create_dirs_beneath, open_beneath};
use crate::sys::{self, Handle, Kind, Meta, Open, errors};

/// The largest file hashline loads into memory.
pub const MAX_FILE_BYTES: u64 = 256 * 1024 * 1024;

/// Files up to this size are compared byte for byte before a commit (larger ones by
/// inode, size and modification time).
pub const COMPARE_BYTES_MAX: u64 = 1024 * 1024;

/// How often opening a target is retried when its name moves to another file while it is
/// being locked.
const LOCK_RETRIES: usize = 8;

/// Whether a write created the file or replaced it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteState {
    /// The file did not exist.
    Created,
    /// The file existed and was replaced.
    Overwritten,
    /// The file existed and was removed ([`crate::Member::remove`]).
    Removed,
}

/// A file's identity: (device, inode) on Unix, (volume serial number, file id) on
/// Windows, whose file ids on ReFS take 128 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FileId {
    /// Device number (volume serial number).
    pub dev: u64,
    /// Inode number (file id).
    pub ino: u128,
}

impl FileId {
    /// The identity of what `path` names now (symlinks followed), if it exists, and how
    /// many names it has: its link count, or 1 for a directory (whose link count counts its
    /// subdirectories' `..`, not names of it).
    pub fn of_path(path: &Path) -> Option<(Self, u64)> {
        let meta = sys::stat_path(path).ok()?;
        let names = match meta.kind {
            Kind::Dir => 1,
            _ => meta.nlink,
        };
        Some((meta.id, names))
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
    /// The modification time, if it is one `SystemTime` can hold.
    pub fn modified(&self) -> Option<SystemTime> {
        let (secs, nanos) = self.mtime;
        let secs = u64::try_from(secs).ok()?;
        let nanos = u32::try_from(nanos).ok()?;
        SystemTime::UNIX_EPOCH.checked_add(std::time::Duration::new(secs, nanos))
    }

    /// The permission bits of a new file written in place of one with `snapshot` (the
    /// old file's, or 0666 less the umask for a new one).
    pub fn mode_for(snapshot: Option<Snapshot>) -> u32 {
        snapshot.map_or(0o666, |s| s.mode & 0o7777)
    }

    fn of(meta: &Meta) -> Self {
        Self { id: meta.id, size: meta.size, mtime: meta.mtime, nlink: meta.nlink, mode: meta.mode, owner: meta.owner }
    }
}

/// Loads the regular file `rel` through the root's handle, without blocking on
/// anything else: a directory fails with [`io::ErrorKind::IsADirectory`], a FIFO, socket
/// or device with [`NotRegularFile`], a file over [`MAX_FILE_BYTES`] with
/// [`crate::TooLarge`], a path that left the root while being opened as [`crate::is_escape`]
/// says.
pub fn read_beneath(root: &RootDir, rel: &Path) -> io::Result<Vec<u8>> {
    read_beneath_stamped(root, rel).map(|(bytes, _)| bytes)
}

/// [`read_beneath`], with the file's modification time as its open handle gave it (no
/// second look-up by name).
pub fn read_beneath_stamped(root: &RootDir, rel: &Path) -> io::Result<(Vec<u8>, Option<SystemTime>)> {
    let handle = open_beneath(root.handle(), rel, Open::Read)?;
    let meta = sys::stat(sys::borrow(&handle))?;
    check_regular(&meta)?;
    let bytes = read_all(&File::from(handle), meta.size)?.ok_or_else(|| too_large(MAX_FILE_BYTES))?;
    Ok((bytes, Snapshot::of(&meta).modified()))
}

/// Reads a whole file from its handle; `None` when it is over [`MAX_FILE_BYTES`].
fn read_all(file: &File, size_hint: u64) -> io::Result<Option<Vec<u8>>> {
    let mut bytes = Vec::with_capacity(usize::try_from(size_hint.min(MAX_FILE_BYTES)).unwrap_or(0));
    io::Read::read_to_end(&mut io::Read::take(file, MAX_FILE_BYTES + 1), &mut bytes)?;
    Ok((bytes.len() as u64 <= MAX_FILE_BYTES).then_some(bytes))
}

fn check_regular(meta: &Meta) -> io::Result<()> {
    match meta.kind {
        Kind::Dir => Err(io::Error::new(io::ErrorKind::IsADirectory, "is a directory")),
        Kind::File if meta.size > MAX_FILE_BYTES => Err(too_large(MAX_FILE_BYTES)),
        Kind::File => Ok(()),
        Kind::Other => Err(NotRegularFile.into()),
    }
}

/// A file about to be changed: its directory and name (opened beneath the root), and
/// when it exists, its open handle holding an exclusive advisory lock (`flock`) that
/// serializes `hashline` processes, plus what it was when it was opened.
#[derive(Debug)]
pub struct Target {
    /// The parent directory.
    pub(crate) dir: Handle,
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
    /// Opens and locks the target `rel` (relative to the root, only normal components)
    /// beneath the root's handle; `real` is its absolute real path (for messages,
    /// hooks and journal records). With `create_parents`, missing parent directories are
    /// created (beneath the root too).
    pub fn open(root: &RootDir, rel: &Path, real: &Path, create_parents: bool) -> io::Result<Self> {
        let root = root.handle();
        let Some(name) = rel.file_name() else {
            return Err(io::Error::new(io::ErrorKind::IsADirectory, "is a directory"));
        };
        let parent = rel.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let dir =
            if create_parents { create_dirs_beneath(root, parent)? } else { open_beneath(root, parent, Open::Dir)? };
        for _ in 0..LOCK_RETRIES {
            let handle = match sys::open_at(sys::borrow(&dir), name, Open::Read) {
                Ok(handle) => handle,
                // A replace that stopped halfway on a file system without atomic replace
                // (Windows' weaker form) left the old bytes aside: back, and again.
                Err(err) if err.kind() == io::ErrorKind::NotFound && sys::restore_aside(sys::borrow(&dir), name)? => {
                    continue;
                }
                Err(err) if err.kind() == io::ErrorKind::NotFound => {
                    return Ok(Self {
                        dir,
                        name: name.to_owned(),
                        file: None,
                        snapshot: None,
                        real: real.to_path_buf(),
                    });
                }
                Err(err) if errors::is_access_denied(&err) => {
                    let meta = sys::stat_at(sys::borrow(&dir), name)?;
                    let snapshot = Some(Snapshot::of(&meta));
                    return Ok(Self { dir, name: name.to_owned(), file: None, snapshot, real: real.to_path_buf() });
                }
                Err(err) => return Err(err),
            };
            let before = sys::stat(sys::borrow(&handle))?;
            if before.kind == Kind::Dir {
                return Err(io::Error::new(io::ErrorKind::IsADirectory, "is a directory"));
            }
            if before.kind == Kind::File {
                sys::lock(sys::borrow(&handle))?;
            }
            let meta = sys::stat(sys::borrow(&handle))?;
            // The name may have moved to another file while we waited for the lock.
            match sys::stat_at(sys::borrow(&dir), name) {
                Ok(now) if now.id == meta.id => {
                    let snapshot = Some(Snapshot::of(&meta));
                    let file = Some(File::from(handle));
                    return Ok(Self { dir, name: name.to_owned(), file, snapshot, real: real.to_path_buf() });
                }
                Ok(_) => continue,
                Err(err) if err.kind() == io::ErrorKind::NotFound => continue,
                Err(err) => return Err(err),
            }
        }
        Err(io::Error::other("the file kept being replaced while it was being opened"))
    }

    /// Whether the file exists.
    pub fn exists(&self) -> bool {
        self.snapshot.is_some()
    }

    /// Loads the file's bytes through its handle for an edit: a FIFO, socket or device
    /// fails with [`NotRegularFile`], a file over [`MAX_FILE_BYTES`] with [`crate::TooLarge`],
    /// one this user cannot read with `EACCES`, a missing one with `ENOENT`.
    pub fn load(&self) -> io::Result<Vec<u8>> {
        if !self.is_regular() {
            return Err(NotRegularFile.into());
        }
        self.read()?.ok_or_else(|| too_large(MAX_FILE_BYTES))
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
                sys::read_exact_at(file, &mut bytes, 0)?;
                Ok(Some(bytes))
            }
            None if self.exists() => Err(errors::access_denied()),
            None => Err(errors::not_found()),
        }
    }

    /// Refuses a file the user could not write with an ordinary open: no write bit at all,
    /// or `access(W_OK)` fails (`EACCES`).
    pub fn check_writable(&self) -> io::Result<()> {
        let Some(snapshot) = self.snapshot else { return Ok(()) };
        if snapshot.mode & 0o222 == 0 {
            return Err(errors::access_denied());
        }
        sys::may_write_at(sys::borrow(&self.dir), &self.name)
    }

    /// Compare before commit: whether the file is still the one read as `old` — the same
    /// inode under the same name, size and modification time, and for files up to 1 MiB,
    /// the same bytes. With `reserved` (space was reserved in the file, which moves its
    /// modification time) the time is not compared.
    pub fn unchanged(&self, old: &[u8], reserved: bool) -> io::Result<bool> {
        let (Some(file), Some(snapshot)) = (&self.file, self.snapshot) else {
            return Ok(!self.exists());
        };
        let now = Snapshot::of(&sys::stat(sys::borrow(file))?);
        let same_time = reserved || now.mtime == snapshot.mtime;
        if (now.id, now.size) != (snapshot.id, snapshot.size) || !same_time || now.size != old.len() as u64 {
            return Ok(false);
        }
        match sys::stat_at(sys::borrow(&self.dir), &self.name) {
            Ok(named) if named.id == snapshot.id => {}
            Ok(_) => return Ok(false),
            Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(false),
            Err(err) => return Err(err),
        }
        if now.size <= COMPARE_BYTES_MAX {
            let mut bytes = vec![0; now.size as usize];
            sys::read_exact_at(file, &mut bytes, 0)?;
            return Ok(bytes == old);
        }
        Ok(true)
    }
}
