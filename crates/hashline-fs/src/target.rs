//! Files about to be read or changed, opened beneath a root: a file's identity and what it
//! was when it was opened, the exclusive lock that serializes hashline processes on it,
//! and the compare before commit.

use std::ffi::OsString;
use std::fs::File;
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::time::SystemTime;

use rustix::fs::{AtFlags, FileType, Mode, OFlags, Stat};
use rustix::io::Errno;

use crate::error::{NotRegularFile, too_large};
use crate::root::{RootDir, create_dirs_beneath, open_beneath};

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

    /// The identity of what `path` names now (symlinks followed), if it exists, and how
    /// many names it has: its link count, or 1 for a directory (whose link count counts its
    /// subdirectories' `..`, not names of it).
    pub fn of_path(path: &Path) -> Option<(Self, u64)> {
        let stat = rustix::fs::stat(path).ok()?;
        let names = match rustix::fs::FileType::from_raw_mode(stat.st_mode) {
            rustix::fs::FileType::Directory => 1,
            _ => stat.st_nlink as u64,
        };
        Some((Self::of(&stat), names))
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

    /// The permission bits as a [`Mode`] (`mode_t` is 16 bits on macOS, 32 on Linux).
    // The raw mode's type differs between platforms.
    #[allow(clippy::unnecessary_cast)]
    pub fn permissions(&self) -> Mode {
        Mode::from_raw_mode((self.mode & 0o7777) as rustix::fs::RawMode)
    }

    /// The permission bits of a new file written in place of one with `snapshot` (the
    /// old file's, or 0666 less the umask for a new one).
    pub fn mode_for(snapshot: Option<Snapshot>) -> Mode {
        snapshot.map_or(Mode::from_raw_mode(0o666), |s| s.permissions())
    }

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
    let fd = open_beneath(root.fd(), rel, OFlags::RDONLY | OFlags::NONBLOCK)?;
    let stat = rustix::fs::fstat(&fd)?;
    check_regular(&stat)?;
    let bytes = read_all(&File::from(fd), stat.st_size as u64)?.ok_or_else(|| too_large(MAX_FILE_BYTES))?;
    Ok((bytes, Snapshot::of(&stat).modified()))
}

/// Reads a whole file from its handle; `None` when it is over [`MAX_FILE_BYTES`].
fn read_all(file: &File, size_hint: u64) -> io::Result<Option<Vec<u8>>> {
    let mut bytes = Vec::with_capacity(usize::try_from(size_hint.min(MAX_FILE_BYTES)).unwrap_or(0));
    io::Read::read_to_end(&mut io::Read::take(file, MAX_FILE_BYTES + 1), &mut bytes)?;
    Ok((bytes.len() as u64 <= MAX_FILE_BYTES).then_some(bytes))
}

// `stat` field types differ between platforms.
#[allow(clippy::unnecessary_cast)]
fn check_regular(stat: &Stat) -> io::Result<()> {
    match FileType::from_raw_mode(stat.st_mode) {
        FileType::Directory => Err(io::Error::new(io::ErrorKind::IsADirectory, "is a directory")),
        FileType::RegularFile if stat.st_size as u64 > MAX_FILE_BYTES => Err(too_large(MAX_FILE_BYTES)),
        FileType::RegularFile => Ok(()),
        _ => Err(NotRegularFile.into()),
    }
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
    /// Opens and locks the target `rel` (relative to the root, only normal components)
    /// beneath the root's handle; `real` is its absolute real path (for messages,
    /// hooks and journal records). With `create_parents`, missing parent directories are
    /// created (beneath the root too).
    pub fn open(root: &RootDir, rel: &Path, real: &Path, create_parents: bool) -> io::Result<Self> {
        let root = root.fd();
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
                        real: real.to_path_buf(),
                    });
                }
                Err(Errno::ACCESS) => {
                    let stat = rustix::fs::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW)?;
                    let snapshot = Some(Snapshot::of(&stat));
                    return Ok(Self { dir, name: name.to_owned(), file: None, snapshot, real: real.to_path_buf() });
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
                    return Ok(Self { dir, name: name.to_owned(), file, snapshot, real: real.to_path_buf() });
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
