//! Opening files so that nothing waits and nothing grows without bound: every open is
//! non-blocking (a FIFO without a writer opens at once), the file type is checked through
//! the open handle (not by a separate look-up of the name), and every read is bounded and
//! stops at the length the file had when it was opened. A FIFO, a socket or a device
//! (`/dev/zero`, `/proc/kmsg`) can then neither hold an open, nor a read, nor fill memory.

use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::path::Path;

use crate::error::{NotRegularFile, too_large};
use crate::sys::{self, errors};

/// Opens `path` for reading without blocking (a FIFO without a writer opens at once, and
/// a read with no data ready fails with [`io::ErrorKind::WouldBlock`] instead of waiting).
pub fn open_read(path: &Path) -> io::Result<File> {
    // No waiting for a FIFO's peer or a device's data, and no terminal becomes the
    // process's controlling terminal.
    sys::nonblocking(OpenOptions::new().read(true), false).open(path)
}

/// A regular file opened for reading, with the length it had when it was opened.
#[derive(Debug)]
pub struct Opened {
    /// The open file (blocking reads from here on: it is a regular file).
    pub file: File,
    /// Its length at open.
    pub len: u64,
    /// Its identity and its names (link count), from the same look-up through the handle
    /// where that look-up gives them (Unix); `None` elsewhere (ask
    /// [`lookup::identity`](crate::lookup::identity)).
    pub identity: Option<(crate::FileId, u64)>,
}

impl Opened {
    /// The file's bytes up to the length seen at open, at most `limit` of them.
    pub fn reader(self, limit: u64) -> io::Take<File> {
        self.file.take(self.len.min(limit))
    }
}

/// Opens `path` for reading without waiting, and checks through the handle that it is a
/// regular file. Anything else fails: a FIFO, socket or device with [`NotRegularFile`]
/// (kind [`io::ErrorKind::InvalidInput`]), a directory with
/// [`io::ErrorKind::IsADirectory`].
pub fn open_regular(path: &Path) -> io::Result<Opened> {
    let file = match open_read(path) {
        Ok(file) => file,
        // A socket (or a device without its driver) cannot be opened at all.
        Err(err) if errors::is_no_peer(&err) => return Err(NotRegularFile.into()),
        Err(err) => return Err(err),
    };
    let (len, identity) = regular_identity(&file)?;
    // A regular file: reads are ordinary blocking reads from here on.
    sys::set_blocking(&file)?;
    Ok(Opened { file, len, identity })
}

/// [`ensure_regular`], and on Unix the file's identity and link count from the same `fstat`
/// (elsewhere that look-up costs more calls than the type check: `None`).
fn regular_identity(file: &File) -> io::Result<(u64, Option<(crate::FileId, u64)>)> {
    #[cfg(unix)]
    let (kind, len, identity) = {
        let meta = sys::stat(sys::borrow(file))?;
        (meta.kind, meta.size, Some((meta.id, meta.nlink)))
    };
    #[cfg(not(unix))]
    let (kind, len, identity) = {
        let meta = file.metadata()?;
        let kind = match () {
            () if meta.is_file() => sys::Kind::File,
            () if meta.is_dir() => sys::Kind::Dir,
            () => sys::Kind::Other,
        };
        (kind, meta.len(), None)
    };
    match kind {
        sys::Kind::File => Ok((len, identity)),
        sys::Kind::Dir => Err(io::Error::new(io::ErrorKind::IsADirectory, "is a directory")),
        sys::Kind::Other => Err(NotRegularFile.into()),
    }
}

/// Opens `path` for appending (created if missing) without blocking, and checks through
/// the handle that it is a regular file.
pub fn open_append_regular(path: &Path) -> io::Result<File> {
    let file = match sys::nonblocking(OpenOptions::new().create(true).append(true), false).open(path) {
        Ok(file) => file,
        // A FIFO without a reader (or a device without its driver) cannot be opened
        // without waiting.
        Err(err) if errors::is_no_peer(&err) => return Err(NotRegularFile.into()),
        Err(err) => return Err(err),
    };
    ensure_regular(&file)?;
    Ok(file)
}

/// Reads a whole regular file of at most `limit` bytes, checked through the handle, up to
/// the length it had at open. Anything else fails: a missing file with
/// [`io::ErrorKind::NotFound`], a FIFO, socket or device with [`NotRegularFile`], a larger
/// file with [`io::ErrorKind::FileTooLarge`] before any of it is read.
pub fn read_regular(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    read_regular_stamped(path, limit).map(|(bytes, _)| bytes)
}

/// [`read_regular`], with the file's modification time as its open handle gave it (no
/// second look-up by name).
pub fn read_regular_stamped(path: &Path, limit: u64) -> io::Result<(Vec<u8>, Option<std::time::SystemTime>)> {
    let opened = open_regular(path)?;
    if opened.len > limit {
        return Err(too_large(limit));
    }
    let modified = opened.file.metadata().and_then(|meta| meta.modified()).ok();
    let mut bytes = Vec::with_capacity(usize::try_from(opened.len).unwrap_or(0));
    opened.reader(limit).read_to_end(&mut bytes)?;
    Ok((bytes, modified))
}

/// Reads an opened file whole if it is a regular file of at most `limit` bytes, checked
/// through the handle, and only up to the length it had then (a file growing meanwhile
/// is read as it was). Fails as [`read_regular`] does.
pub fn read_opened_regular(file: File, limit: u64) -> io::Result<Vec<u8>> {
    let len = ensure_regular(&file)?;
    if len > limit {
        return Err(too_large(limit));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.take(len).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Reads from `file` to its end, at most `limit` bytes (`expected` is a capacity hint).
pub fn read_bounded(file: File, limit: u64, expected: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::with_capacity(usize::try_from(expected.min(limit)).unwrap_or(0));
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_large(limit));
    }
    Ok(bytes)
}

/// The file's length, if the handle is a regular file; a directory fails with
/// [`io::ErrorKind::IsADirectory`], anything else with [`NotRegularFile`].
pub fn ensure_regular(file: &File) -> io::Result<u64> {
    regular_identity(file).map(|(len, _)| len)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(unix)]
    use std::time::{Duration, Instant};

    /// An opened regular file reads as any file does: only `O_NONBLOCK` is cleared, the
    /// access mode and the other status flags are what a plain open gives.
    #[cfg(unix)]
    #[test]
    fn an_opened_regular_file_has_the_flags_of_a_plain_open() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("a.txt");
        std::fs::write(&path, "text\n").expect("write");
        let plain = rustix::fs::fcntl_getfl(File::open(&path).expect("open")).expect("flags");
        let opened = open_regular(&path).expect("opened");
        let flags = rustix::fs::fcntl_getfl(&opened.file).expect("flags");
        assert!(!flags.contains(rustix::fs::OFlags::NONBLOCK));
        assert_eq!(flags, plain);
        let mut text = String::new();
        opened.reader(u64::MAX).read_to_string(&mut text).expect("read");
        assert_eq!(text, "text\n");
    }

    #[cfg(unix)]
    fn fifo(dir: &Path) -> std::path::PathBuf {
        let path = dir.join("fifo");
        let status = std::process::Command::new("mkfifo").arg(&path).status().expect("mkfifo");
        assert!(status.success());
        path
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_at_once_for_reading_and_appending() {
        let dir = tempfile::tempdir().expect("tempdir");
        let fifo = fifo(dir.path());
        let started = Instant::now();
        let err = read_regular(&fifo, 1024).expect_err("fifo");
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput, "{err}");
        // No reader: a non-blocking open for writing fails at once (ENXIO).
        assert_eq!(open_append_regular(&fifo).expect_err("fifo").kind(), io::ErrorKind::InvalidInput);
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[cfg(unix)]
    #[test]
    fn devices_are_refused_and_reads_are_bounded() {
        let err = read_regular(Path::new("/dev/zero"), 1024).expect_err("device");
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        assert!(NotRegularFile::is(&err), "{err}");
        let zero = open_read(Path::new("/dev/zero")).expect("open");
        let err = read_bounded(zero, 4096, 0).expect_err("endless");
        assert_eq!(err.kind(), io::ErrorKind::FileTooLarge);
        assert_eq!(read_regular(Path::new("/dev/null"), 1).expect_err("device").kind(), io::ErrorKind::InvalidInput);
    }

    #[test]
    fn regular_files_read_whole_within_the_limit() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("a");
        std::fs::write(&path, "alpha").expect("write");
        assert_eq!(read_regular(&path, 5).expect("read"), b"alpha");
        assert_eq!(read_regular(&path, 4).expect_err("big").kind(), io::ErrorKind::FileTooLarge);
        assert_eq!(read_regular(dir.path(), 4).expect_err("dir").kind(), io::ErrorKind::IsADirectory);
        assert!(open_append_regular(&dir.path().join("log")).is_ok());
    }

    #[cfg(unix)]
    #[test]
    fn fifos_sockets_and_devices_are_refused_at_once_and_named_so() {
        let dir = tempfile::tempdir().expect("tempdir");
        let fifo = fifo(dir.path());
        let socket = dir.path().join("socket");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).expect("socket");
        let started = Instant::now();
        for path in [fifo.as_path(), &socket, Path::new("/dev/zero"), Path::new("/dev/null")] {
            let err = open_regular(path).expect_err("refused");
            assert!(NotRegularFile::is(&err), "{path:?}: {err}");
            assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        }
        assert!(started.elapsed() < Duration::from_secs(5));
        assert_eq!(open_regular(dir.path()).err().map(|e| e.kind()), Some(io::ErrorKind::IsADirectory));
        assert!(!NotRegularFile::is(&open_regular(&dir.path().join("missing")).expect_err("missing")));
    }

    /// What is appended after the open is not read: a file that keeps growing ends.
    #[test]
    fn a_read_stops_at_the_length_seen_at_open() {
        use std::io::Write;
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("log");
        std::fs::write(&path, "first\n").expect("write");
        let opened = open_regular(&path).expect("open");
        let mut appender = OpenOptions::new().append(true).open(&path).expect("append");
        appender.write_all(b"later\n").expect("append");
        let mut bytes = Vec::new();
        opened.reader(u64::MAX).read_to_end(&mut bytes).expect("read");
        assert_eq!(bytes, b"first\n");
        assert_eq!(read_regular(&path, 12).expect("read"), b"first\nlater\n");
        assert_eq!(read_regular(&path, 11).expect_err("larger").kind(), io::ErrorKind::FileTooLarge);
    }
}
