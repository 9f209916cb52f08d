//! The errors this crate puts inside an [`io::Error`], so that a caller can tell them from
//! the operating system's own.

use std::io;

/// The error inside the [`io::Error`] (kind [`io::ErrorKind::InvalidInput`]) of a file that
/// is not a regular file (a FIFO, a socket or a device): hashline reads regular files only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not a regular file (a FIFO, socket or device)")]
pub struct NotRegularFile;

impl NotRegularFile {
    /// Whether `err` says a file was not a regular file.
    pub fn is(err: &io::Error) -> bool {
        err.get_ref().is_some_and(|inner| inner.is::<NotRegularFile>())
    }
}

impl From<NotRegularFile> for io::Error {
    fn from(err: NotRegularFile) -> Self {
        io::Error::new(io::ErrorKind::InvalidInput, err)
    }
}

/// The error inside the [`io::Error`] (kind [`io::ErrorKind::FileTooLarge`]) of a file over
/// a read's bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("larger than {limit} bytes")]
pub struct TooLarge {
    /// The bound, in bytes.
    pub limit: u64,
}

impl TooLarge {
    /// Whether `err` says a file was over a read's bound.
    pub fn is(err: &io::Error) -> bool {
        err.get_ref().is_some_and(|inner| inner.is::<TooLarge>())
    }
}

pub(crate) fn too_large(limit: u64) -> io::Error {
    io::Error::new(io::ErrorKind::FileTooLarge, TooLarge { limit })
}

/// Whether an error means "another program holds the file open and shares it with no one"
/// (Windows' sharing and lock violations, met after the open waited about a second).
pub fn is_in_use(err: &io::Error) -> bool {
    crate::sys::errors::is_in_use(err)
}

/// Whether an error means "the path left its root while being opened" (`EXDEV`: a symlink
/// or directory swapped in after the path was checked).
pub fn is_escape(err: &io::Error) -> bool {
    crate::sys::errors::is_escape(err)
}
