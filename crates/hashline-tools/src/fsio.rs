//! File I/O at the tools' edge: what `hashline-fs` reports, as tool errors with stable
//! codes (SPEC §6), and the write state a result shows.

use hashline_fs::{MAX_FILE_BYTES, NotRegularFile, RootDir, Target, TooLarge};
use serde_json::json;
use std::io;

use crate::error::{ErrorCode, ToolError};
use crate::paths::ResolvedPath;

/// Whether a write created the file or replaced it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WriteState {
    /// The file did not exist.
    Created,
    /// The file existed and was replaced.
    Overwritten,
    /// The file existed and was removed (a revert of the change that made it; a `write`
    /// never reports it).
    Removed,
}

impl From<hashline_fs::WriteState> for WriteState {
    fn from(state: hashline_fs::WriteState) -> Self {
        match state {
            hashline_fs::WriteState::Created => WriteState::Created,
            hashline_fs::WriteState::Overwritten => WriteState::Overwritten,
            hashline_fs::WriteState::Removed => WriteState::Removed,
        }
    }
}

/// Maps an I/O error while reading `display` to a tool error.
pub fn read_error(err: &io::Error, path: &ResolvedPath) -> ToolError {
    let p = &path.shown();
    let error = match err.kind() {
        io::ErrorKind::NotFound => ToolError::new(ErrorCode::FileNotFound, format!("File not found: {p}")),
        io::ErrorKind::IsADirectory => is_directory(p),
        _ if TooLarge::is(err) => return too_large(path),
        _ if NotRegularFile::is(err) => return not_regular(path),
        _ if hashline_fs::is_escape(err) => escaped(p),
        _ if hashline_fs::is_in_use(err) => {
            in_use(p, "read", "Try again once it lets go.").with_details(fs_details(err))
        }
        io::ErrorKind::PermissionDenied => {
            ToolError::new(ErrorCode::PermissionDenied, format!("Permission denied — cannot access: {p}"))
                .with_details(fs_details(err))
        }
        io::ErrorKind::WouldBlock => ToolError::new(
            ErrorCode::FsError,
            format!("File not readable: {p} has no data to read now, and the tools never wait for a file."),
        )
        .with_details(fs_details(err)),
        _ => {
            ToolError::new(ErrorCode::FsError, format!("File not readable: {p} — {err}")).with_details(fs_details(err))
        }
    };
    error.with_path(path.absolute_str())
}

/// Maps an I/O error while writing `display` to a tool error.
pub fn write_error(err: &io::Error, path: &ResolvedPath) -> ToolError {
    let p = &path.shown();
    let error = match err.kind() {
        _ if hashline_fs::is_escape(err) => escaped(p),
        _ if hashline_fs::is_in_use(err) => in_use(p, "write", "Nothing was written.").with_details(fs_details(err)),
        io::ErrorKind::PermissionDenied => {
            ToolError::new(ErrorCode::PermissionDenied, format!("Permission denied — cannot write: {p}"))
                .with_details(fs_details(err))
        }
        io::ErrorKind::IsADirectory => {
            ToolError::new(ErrorCode::PathIsDirectory, format!("Path is a directory — cannot overwrite: {p}"))
        }
        io::ErrorKind::NotFound => ToolError::new(ErrorCode::FileNotFound, format!("File not found: {p}")),
        io::ErrorKind::StorageFull => {
            ToolError::new(ErrorCode::FsError, format!("No space left on device — cannot write: {p}"))
                .with_details(fs_details(err))
        }
        io::ErrorKind::ReadOnlyFilesystem => {
            ToolError::new(ErrorCode::FsError, format!("Read-only filesystem — cannot write: {p}"))
                .with_details(fs_details(err))
        }
        _ => ToolError::new(ErrorCode::FsError, format!("Error writing {p}: {err}")).with_details(fs_details(err)),
    };
    error.with_path(path.absolute_str())
}

/// A file another program holds open sharing nothing (Windows), after the open waited.
fn in_use(p: &str, doing: &str, then: &str) -> ToolError {
    ToolError::new(
        ErrorCode::FileBusy,
        format!(
            "File in use — cannot {doing}: {p} is held open by another program that shares it with no one (an editor, an indexer, a virus scanner); waited 1 s. {then}"
        ),
    )
}

fn is_directory(p: &str) -> ToolError {
    ToolError::new(ErrorCode::PathIsDirectory, format!("Path is a directory: {p}. Use ls to inspect directories."))
        .with_hint(format!("Use ls(\"{p}\") to inspect directories."))
}

/// A path that left its root while being opened (a symlink or directory swapped in
/// after the check): the kernel refused to follow it.
fn escaped(p: &str) -> ToolError {
    ToolError::new(
        ErrorCode::PathOutsideRoot,
        format!("Path is outside the session roots: {p} (it changed while being opened and now leads outside)."),
    )
}

/// `{fsCode, errno, fsMessage}` of an OS error.
pub fn fs_details(err: &io::Error) -> serde_json::Value {
    json!({ "fsCode": format!("{:?}", err.kind()), "errno": err.raw_os_error(), "fsMessage": err.to_string() })
}

/// Loads a regular file through the root's handle, with the read errors of a tool.
/// Directories, FIFOs, sockets and devices are refused without blocking on them.
/// With the modification time its open handle gave.
pub fn read_regular_file(
    root: &RootDir,
    path: &ResolvedPath,
) -> Result<(Vec<u8>, Option<std::time::SystemTime>), ToolError> {
    hashline_fs::read_beneath_stamped(root, path.rel()).map_err(|err| read_error(&err, path))
}

/// Loads an opened target's bytes for an edit, with the read errors of a tool.
pub fn load_target(target: &Target, path: &ResolvedPath) -> Result<Vec<u8>, ToolError> {
    target.load().map_err(|err| read_error(&err, path))
}

fn not_regular(path: &ResolvedPath) -> ToolError {
    ToolError::new(
        ErrorCode::FsError,
        format!("Not a regular file: {} (a FIFO, socket or device). The tools only read regular files.", path.shown()),
    )
    .with_path(path.absolute_str())
}

fn too_large(path: &ResolvedPath) -> ToolError {
    ToolError::new(
        ErrorCode::FileTooLarge,
        format!("File too large: {} is over {} MiB.", path.shown(), MAX_FILE_BYTES / (1024 * 1024)),
    )
    .with_hint("Use grep to find what you need in it.")
    .with_path(path.absolute_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn io_errors_map_to_codes() {
        let path = ResolvedPath {
            display: "a.txt".into(),
            absolute: "/w/a.txt".into(),
            real: "/w/a.txt".into(),
            root: "/w".into(),
            key: "/w/a.txt".into(),
        };
        let cases = [
            (io::ErrorKind::NotFound, ErrorCode::FileNotFound, ErrorCode::FileNotFound),
            (io::ErrorKind::PermissionDenied, ErrorCode::PermissionDenied, ErrorCode::PermissionDenied),
            (io::ErrorKind::IsADirectory, ErrorCode::PathIsDirectory, ErrorCode::PathIsDirectory),
            (io::ErrorKind::StorageFull, ErrorCode::FsError, ErrorCode::FsError),
            (io::ErrorKind::Other, ErrorCode::FsError, ErrorCode::FsError),
        ];
        for (kind, on_read, on_write) in cases {
            let err = io::Error::new(kind, "boom");
            assert_eq!(read_error(&err, &path).code, on_read, "{kind:?}");
            assert_eq!(write_error(&err, &path).code, on_write, "{kind:?}");
        }
        let denied = read_error(&io::Error::from(io::ErrorKind::PermissionDenied), &path);
        assert_eq!(denied.message, "Permission denied — cannot access: a.txt");
    }
}
