//! Opening the files a search reads so that nothing waits and nothing grows without bound:
//! the open is non-blocking (a FIFO without a writer opens at once), the file type is
//! checked through the open handle (not by a separate look-up of the name), and a read
//! stops at the size the file had when it was opened (a file that keeps growing is read
//! to that size, not followed).

use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use rustix::fs::OFlags;

/// The error inside the [`io::Error`] of a file that is not a regular file (a FIFO, a
/// socket or a device): a search reads regular files only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not a regular file (a FIFO, socket or device)")]
pub struct NotRegularFile;

impl NotRegularFile {
    /// Whether `err` says a file was not a regular file.
    pub fn is(err: &io::Error) -> bool {
        err.get_ref().is_some_and(|inner| inner.is::<NotRegularFile>())
    }
}

/// A regular file opened for reading, with the length it had when it was opened.
pub(crate) struct Opened {
    pub(crate) file: File,
    pub(crate) len: u64,
}

impl Opened {
    /// The file's bytes up to the length seen at open, at most `limit` of them.
    pub(crate) fn reader(self, limit: u64) -> io::Take<File> {
        self.file.take(self.len.min(limit))
    }
}

/// Opens `path` for reading without waiting, and checks through the handle that it is a
/// regular file. Anything else fails: a FIFO, socket or device with [`NotRegularFile`]
/// (kind [`io::ErrorKind::InvalidInput`]), a directory with
/// [`io::ErrorKind::IsADirectory`].
pub(crate) fn open_regular(path: &Path) -> io::Result<Opened> {
    let flags = OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
    let file = match OpenOptions::new().read(true).custom_flags(flags.bits() as i32).open(path) {
        Ok(file) => file,
        // A socket (or a device without its driver) cannot be opened at all.
        Err(err) if err.raw_os_error() == Some(rustix::io::Errno::NXIO.raw_os_error()) => {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, NotRegularFile));
        }
        Err(err) => return Err(err),
    };
    let meta = file.metadata()?;
    if meta.is_dir() {
        return Err(io::Error::new(io::ErrorKind::IsADirectory, "is a directory"));
    }
    if !meta.is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, NotRegularFile));
    }
    // A regular file: reads are ordinary blocking reads from here on.
    rustix::fs::fcntl_setfl(&file, rustix::fs::fcntl_getfl(&file)? - OFlags::NONBLOCK)?;
    Ok(Opened { file, len: meta.len() })
}

/// Reads a whole regular file of at most `limit` bytes (its length at open). A larger one
/// fails with [`io::ErrorKind::FileTooLarge`], before any of it is read.
pub(crate) fn read_capped(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let opened = open_regular(path)?;
    if opened.len > limit {
        return Err(io::Error::new(io::ErrorKind::FileTooLarge, format!("larger than {limit} bytes")));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(opened.len).unwrap_or(0));
    opened.reader(limit).read_to_end(&mut bytes)?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::time::{Duration, Instant};

    #[test]
    fn fifos_and_devices_are_refused_at_once() {
        let dir = tempfile::tempdir().expect("tempdir");
        let fifo = dir.path().join("fifo");
        // The mkfifo command, not rustix::fs::mkfifoat: macOS has no mkfifoat.
        let made = std::process::Command::new("mkfifo").args(["-m", "600"]).arg(&fifo).status().expect("mkfifo");
        assert!(made.success(), "mkfifo {fifo:?}");
        let socket = dir.path().join("socket");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).expect("socket");
        let started = Instant::now();
        for path in [fifo.as_path(), &socket, Path::new("/dev/zero"), Path::new("/dev/null")] {
            let err = open_regular(path).err().expect("refused");
            assert!(NotRegularFile::is(&err), "{path:?}: {err}");
            assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        }
        assert!(started.elapsed() < Duration::from_secs(5));
        assert_eq!(open_regular(dir.path()).err().map(|e| e.kind()), Some(io::ErrorKind::IsADirectory));
        assert!(!NotRegularFile::is(&open_regular(&dir.path().join("missing")).err().expect("missing")));
    }

    /// What is appended after the open is not read: a file that keeps growing ends.
    #[test]
    fn a_read_stops_at_the_length_seen_at_open() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("log");
        std::fs::write(&path, "first\n").expect("write");
        let opened = open_regular(&path).expect("open");
        let mut appender = OpenOptions::new().append(true).open(&path).expect("append");
        appender.write_all(b"later\n").expect("append");
        let mut bytes = Vec::new();
        opened.reader(u64::MAX).read_to_end(&mut bytes).expect("read");
        assert_eq!(bytes, b"first\n");
        assert_eq!(read_capped(&path, 12).expect("read"), b"first\nlater\n");
        assert_eq!(read_capped(&path, 11).expect_err("larger").kind(), io::ErrorKind::FileTooLarge);
    }
}
