//! The Windows backend (decision 011): handles, and every open relative to a directory's
//! handle one component at a time (`NtCreateFile` with `RootDirectory`, the NT form of
//! `openat`), never following a reparse point (symbolic link, junction, mount point): one
//! met on the way is an escape. Renames, links and removals go through the handle of the
//! name they change (`NtSetInformationFile` with `RootDirectory` for the new name), so that
//! no path is looked up twice. Locks are byte-range locks on one byte beyond any real
//! file's end. Every open shares reading, writing and deletion with other programs; one
//! that another program holds without sharing is retried for about a second.

use std::borrow::Cow;
use std::ffi::{OsStr, OsString};
use std::fs::{File, OpenOptions};
use std::io;
use std::mem::{offset_of, size_of};
use std::os::windows::ffi::{OsStrExt, OsStringExt};
use std::os::windows::fs::{FileExt, OpenOptionsExt};
use std::os::windows::io::{AsHandle, AsRawHandle, BorrowedHandle, FromRawHandle, OwnedHandle};
use std::path::{Component, Path};
use std::ptr::{null, null_mut};
use std::time::{Duration, Instant};

use windows_sys::Wdk::Foundation::OBJECT_ATTRIBUTES;
use windows_sys::Wdk::Storage::FileSystem::{
    FILE_CREATE, FILE_DELETE_ON_CLOSE, FILE_DIRECTORY_FILE, FILE_DISPOSITION_DELETE,
    FILE_DISPOSITION_IGNORE_READONLY_ATTRIBUTE, FILE_DISPOSITION_INFORMATION, FILE_DISPOSITION_INFORMATION_EX,
    FILE_DISPOSITION_POSIX_SEMANTICS, FILE_LINK_INFORMATION, FILE_NON_DIRECTORY_FILE, FILE_OPEN,
    FILE_OPEN_REPARSE_POINT, FILE_RENAME_INFORMATION, FILE_RENAME_POSIX_SEMANTICS, FILE_RENAME_REPLACE_IF_EXISTS,
    FILE_SYNCHRONOUS_IO_NONALERT, FileDispositionInformation, FileDispositionInformationEx, FileLinkInformation,
    FileRenameInformation, FileRenameInformationEx, NtCreateFile, NtSetInformationFile,
};
use windows_sys::Win32::Foundation::{
    ERROR_ACCESS_DENIED, ERROR_FILE_EXISTS, ERROR_FILE_NOT_FOUND, ERROR_FILENAME_EXCED_RANGE, ERROR_INVALID_FUNCTION,
    ERROR_INVALID_NAME, ERROR_INVALID_PARAMETER, ERROR_LOCK_VIOLATION, ERROR_NO_MORE_FILES, ERROR_NOT_SAME_DEVICE,
    ERROR_NOT_SUPPORTED, ERROR_SHARING_VIOLATION, ERROR_STOPPED_ON_SYMLINK, HANDLE, NTSTATUS, OBJ_CASE_INSENSITIVE,
    RtlNtStatusToDosError, UNICODE_STRING,
};
use windows_sys::Win32::Storage::FileSystem::{
    BY_HANDLE_FILE_INFORMATION, DELETE, FILE_ATTRIBUTE_DIRECTORY, FILE_ATTRIBUTE_NORMAL, FILE_ATTRIBUTE_READONLY,
    FILE_ATTRIBUTE_REPARSE_POINT, FILE_FLAG_BACKUP_SEMANTICS, FILE_FLAG_OPEN_REPARSE_POINT, FILE_FULL_DIR_INFO,
    FILE_GENERIC_READ, FILE_GENERIC_WRITE, FILE_ID_INFO, FILE_INFO_BY_HANDLE_CLASS, FILE_LIST_DIRECTORY,
    FILE_READ_ATTRIBUTES, FILE_SHARE_DELETE, FILE_SHARE_READ, FILE_SHARE_WRITE, FILE_STANDARD_INFO, FILE_TRAVERSE,
    FILE_TYPE_DISK, FILE_WRITE_DATA, FileFullDirectoryInfo, FileFullDirectoryRestartInfo, FileIdInfo, FileStandardInfo,
    GetFileInformationByHandle, GetFileInformationByHandleEx, GetFileType, LOCKFILE_EXCLUSIVE_LOCK,
    LOCKFILE_FAIL_IMMEDIATELY, LockFileEx, SYNCHRONIZE,
};
use windows_sys::Win32::System::IO::{IO_STATUS_BLOCK, OVERLAPPED};

use super::{Kind, Meta, Open};
use crate::target::FileId;

/// An open file or directory.
pub(crate) type Handle = OwnedHandle;
/// A borrowed [`Handle`].
pub(crate) type HandleRef<'a> = BorrowedHandle<'a>;

/// Borrows a handle of anything that has one (a [`Handle`], a [`File`]).
pub(crate) fn borrow(of: &impl AsHandle) -> HandleRef<'_> {
    of.as_handle()
}

/// Every open shares everything with other programs: hashline never keeps an editor,
/// an indexer or a build from a file.
const SHARE_ALL: u32 = FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE;

/// How long an open that another program's unshared handle refuses is retried.
const SHARING_WAIT: Duration = Duration::from_millis(1000);

fn os_error(code: u32) -> io::Error {
    io::Error::from_raw_os_error(code as i32)
}

fn nt_error(status: NTSTATUS) -> io::Error {
    // SAFETY: a pure function of its argument.
    os_error(unsafe { RtlNtStatusToDosError(status) })
}

/// A name's UTF-16 code units, if it is one a file may have here: one component, not a
/// reserved device name (`CON`, `NUL`, `AUX`, `PRN`, `COM1`–`COM9`, `LPT1`–`LPT9`, with
/// any extension), without a character Windows refuses (`<>:"/\|?*` and controls; `:`
/// would name an alternate data stream) and not ending in a dot or a space (Windows would
/// drop them and open another name).
fn checked_name(name: &OsStr) -> io::Result<Vec<u16>> {
    let wide: Vec<u16> = name.encode_wide().collect();
    let bad_unit = |u: &u16| *u < 32 || b"<>:\"/\\|?*".iter().any(|b| u16::from(*b) == *u);
    let ends_badly = wide.last().is_some_and(|u| *u == u16::from(b'.') || *u == u16::from(b' '));
    if wide.is_empty() || wide.iter().any(bad_unit) || ends_badly || is_reserved(name) {
        return Err(os_error(ERROR_INVALID_NAME));
    }
    // NTFS, ReFS and FAT keep at most 255 UTF-16 units a name; said as such, not as a
    // missing file.
    if wide.len() > MAX_NAME_UNITS {
        return Err(os_error(ERROR_FILENAME_EXCED_RANGE));
    }
    Ok(wide)
}

/// Whether `name` means itself to Windows (see [`checked_name`]): a path of such names
/// needs no verbatim `\\?\` form.
pub(crate) fn is_plain_name(name: &OsStr) -> bool {
    checked_name(name).is_ok()
}

/// The longest name a Windows file system keeps, in UTF-16 units.
const MAX_NAME_UNITS: usize = 255;

/// Whether `name` is a device name whatever its extension (`aux.txt` is `AUX`).
pub(crate) fn is_reserved(name: &OsStr) -> bool {
    let Some(name) = name.to_str() else { return false };
    let stem = name.split('.').next().unwrap_or(name).trim_end_matches(' ').to_ascii_uppercase();
    match stem.as_str() {
        "CON" | "PRN" | "AUX" | "NUL" | "CONIN$" | "CONOUT$" => true,
        _ => {
            // By characters: the stem may end in any character (`cafe\u{301}`), and
            // Windows takes the superscript digits as port numbers too.
            let mut chars = stem.chars();
            let digit = chars.next_back();
            matches!(chars.as_str(), "COM" | "LPT") && matches!(digit, Some('1'..='9' | '¹' | '²' | '³'))
        }
    }
}

/// `NtCreateFile` of `name` (UTF-16, relative to `dir`; empty: `dir` itself again),
/// retried while another program's handle refuses to share it.
fn nt_open(dir: HandleRef<'_>, name: &[u16], access: u32, disposition: u32, options: u32) -> io::Result<Handle> {
    let bytes = u16::try_from(name.len() * 2).map_err(|_| os_error(ERROR_INVALID_NAME))?;
    let object = UNICODE_STRING { Length: bytes, MaximumLength: bytes, Buffer: name.as_ptr().cast_mut() };
    let attributes = OBJECT_ATTRIBUTES {
        Length: size_of::<OBJECT_ATTRIBUTES>() as u32,
        RootDirectory: dir.as_raw_handle(),
        ObjectName: &object,
        Attributes: OBJ_CASE_INSENSITIVE,
        SecurityDescriptor: null(),
        SecurityQualityOfService: null(),
    };
    let started = Instant::now();
    let mut pause = Duration::from_millis(5);
    loop {
        let mut handle: HANDLE = null_mut();
        // SAFETY: an all-zero IO_STATUS_BLOCK is its documented initial state.
        let mut status_block: IO_STATUS_BLOCK = unsafe { std::mem::zeroed() };
        // SAFETY: every pointer is to a live local of the right type (the name's buffer
        // outlives the call); a handle is written only on success.
        let status = unsafe {
            NtCreateFile(
                &mut handle,
                access | SYNCHRONIZE,
                &attributes,
                &mut status_block,
                null(),
                FILE_ATTRIBUTE_NORMAL,
                SHARE_ALL,
                disposition,
                options | FILE_SYNCHRONOUS_IO_NONALERT,
                null(),
                0,
            )
        };
        if status >= 0 {
            // SAFETY: NtCreateFile succeeded, so `handle` is an open handle we own.
            return Ok(unsafe { OwnedHandle::from_raw_handle(handle) });
        }
        let err = nt_error(status);
        if err.raw_os_error() != Some(ERROR_SHARING_VIOLATION as i32) || started.elapsed() >= SHARING_WAIT {
            return Err(err);
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(100));
    }
}

/// Opens `name` in `dir` with `access`, a reparse point as itself (never followed).
fn open_name(dir: HandleRef<'_>, name: &OsStr, access: u32, disposition: u32, options: u32) -> io::Result<Handle> {
    if name == "." {
        return nt_open(dir, &[], access, disposition, options | FILE_OPEN_REPARSE_POINT);
    }
    if name == ".." {
        return Err(errors::escape());
    }
    nt_open(dir, &checked_name(name)?, access, disposition, options | FILE_OPEN_REPARSE_POINT)
}

fn attributes(of: HandleRef<'_>) -> io::Result<BY_HANDLE_FILE_INFORMATION> {
    // SAFETY: all-zero is a valid value of this plain struct.
    let mut info: BY_HANDLE_FILE_INFORMATION = unsafe { std::mem::zeroed() };
    // SAFETY: `info` is a live, writable struct of the type the call fills.
    if unsafe { GetFileInformationByHandle(of.as_raw_handle(), &mut info) } == 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(info)
}

/// Opens the directory `path` (absolute, or relative to the working directory).
pub(crate) fn open_dir_path(path: &Path) -> io::Result<Handle> {
    let file =
        OpenOptions::new().read(true).share_mode(SHARE_ALL).custom_flags(FILE_FLAG_BACKUP_SEMANTICS).open(path)?;
    let handle = OwnedHandle::from(file);
    if attributes(borrow(&handle))?.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY == 0 {
        return Err(io::Error::new(io::ErrorKind::NotADirectory, "not a directory"));
    }
    Ok(handle)
}

/// Opens the one name `name` in `dir`, never following a reparse point there (one is
/// refused as a symlink is on Unix).
pub(crate) fn open_at(dir: HandleRef<'_>, name: &OsStr, how: Open) -> io::Result<Handle> {
    let (access, disposition, options) = match how {
        Open::Dir => (FILE_LIST_DIRECTORY | FILE_TRAVERSE | FILE_READ_ATTRIBUTES, FILE_OPEN, FILE_DIRECTORY_FILE),
        Open::Read => (FILE_GENERIC_READ, FILE_OPEN, 0),
        Open::Write => (FILE_GENERIC_WRITE | FILE_READ_ATTRIBUTES, FILE_OPEN, FILE_NON_DIRECTORY_FILE),
        Open::CreateNew(_) => {
            (FILE_GENERIC_WRITE | FILE_READ_ATTRIBUTES | DELETE, FILE_CREATE, FILE_NON_DIRECTORY_FILE)
        }
    };
    let handle = open_name(dir, name, access, disposition, options)?;
    // `.` is the directory the handle already holds, checked when it was opened (a root is
    // opened through its links on purpose); Wine marks a directory that is a Unix mount
    // point as a reparse point, and the root of a mounted file system would be refused.
    if name != "." && attributes(borrow(&handle))?.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT != 0 {
        return Err(os_error(ERROR_STOPPED_ON_SYMLINK));
    }
    Ok(handle)
}

/// One open per component, each beneath the one before: a reparse point met on the way
/// fails as an escape (the paths given here are real paths, which hold none).
pub(super) fn walk(dir: HandleRef<'_>, rel: &Path, how: Open) -> io::Result<Handle> {
    let parts: Vec<_> = rel.components().filter(|c| matches!(c, Component::Normal(_))).collect();
    let escape = |err: io::Error| if errors::is_symlink(&err) { errors::escape() } else { err };
    let Some((last, parents)) = parts.split_last() else {
        return open_at(dir, OsStr::new("."), how);
    };
    let mut current: Option<Handle> = None;
    for part in parents {
        let at = current.as_ref().map_or(dir, borrow);
        current = Some(open_at(at, part.as_os_str(), Open::Dir).map_err(escape)?);
    }
    open_at(current.as_ref().map_or(dir, borrow), last.as_os_str(), how).map_err(escape)
}

/// Makes the directory `name` in `dir` (`private` changes nothing here: a new directory
/// takes its parent's access control list); an existing one fails with
/// [`io::ErrorKind::AlreadyExists`].
pub(crate) fn make_dir_at(dir: HandleRef<'_>, name: &OsStr, private: bool) -> io::Result<()> {
    let _ = private;
    open_name(dir, name, FILE_LIST_DIRECTORY, FILE_CREATE, FILE_DIRECTORY_FILE).map(drop)
}

// The two structures `name_information` fills share one layout.
const _: () = assert!(offset_of!(FILE_LINK_INFORMATION, FileName) == offset_of!(FILE_RENAME_INFORMATION, FileName));

/// A `FILE_RENAME_INFORMATION` / `FILE_LINK_INFORMATION` (the same layout) naming
/// `name` beneath `dir`, in a buffer aligned for it.
fn name_information(flags: u32, dir: HandleRef<'_>, name: &[u16]) -> (Vec<u64>, u32) {
    let offset = offset_of!(FILE_RENAME_INFORMATION, FileName);
    let bytes = offset + name.len() * 2;
    let length = bytes.max(size_of::<FILE_RENAME_INFORMATION>());
    let mut buffer = vec![0u64; length.div_ceil(8)];
    let info = buffer.as_mut_ptr().cast::<FILE_RENAME_INFORMATION>();
    // SAFETY: the buffer is 8-byte aligned and holds the header and the name.
    unsafe {
        (*info).Anonymous.Flags = flags;
        (*info).RootDirectory = dir.as_raw_handle();
        (*info).FileNameLength = (name.len() * 2) as u32;
        std::ptr::copy_nonoverlapping(name.as_ptr(), buffer.as_mut_ptr().cast::<u8>().add(offset).cast(), name.len());
    }
    (buffer, length as u32)
}

fn set_information<T>(of: HandleRef<'_>, info: *const T, length: u32, class: i32) -> io::Result<()> {
    // SAFETY: an all-zero IO_STATUS_BLOCK is its documented initial state.
    let mut status_block: IO_STATUS_BLOCK = unsafe { std::mem::zeroed() };
    // SAFETY: `info` points to `length` readable bytes of the class's structure.
    let status = unsafe { NtSetInformationFile(of.as_raw_handle(), &mut status_block, info.cast(), length, class) };
    if status < 0 { Err(nt_error(status)) } else { Ok(()) }
}

/// Whether an information class (or a flag of it) is one this file system or Windows
/// version does not know: the caller falls back to the older form.
fn unsupported(err: &io::Error) -> bool {
    let code = err.raw_os_error().map(|c| c as u32);
    matches!(code, Some(ERROR_INVALID_PARAMETER | ERROR_NOT_SUPPORTED | ERROR_INVALID_FUNCTION))
}

/// Renames `from` in `from_dir` to `to` in `to_dir`, replacing what `to` names, with POSIX
/// semantics where the file system has them (NTFS since Windows 10 1709: a replaced file
/// still open, by hashline's own lock among others, goes at once).
///
/// Elsewhere (FAT, exFAT, some network shares, Wine) the classic replace refuses a file
/// that is open; then the open file is first renamed aside, to [`aside_name`] beside it
/// (an open file may be renamed), the new one renamed into place, and the old one
/// removed. That is the weaker form decision 011 states: a reader can find no file under
/// the name for that instant, and a crash between the two renames leaves the old bytes
/// under the aside name, which the next open of the name through hashline puts back
/// ([`restore_aside`]).
pub(crate) fn rename_at(from_dir: HandleRef<'_>, from: &OsStr, to_dir: HandleRef<'_>, to: &OsStr) -> io::Result<()> {
    let source = open_name(from_dir, from, DELETE | FILE_READ_ATTRIBUTES, FILE_OPEN, 0)?;
    let name = checked_name(to)?;
    let flags = FILE_RENAME_REPLACE_IF_EXISTS | FILE_RENAME_POSIX_SEMANTICS;
    let (info, length) = name_information(flags, to_dir, &name);
    match set_information(borrow(&source), info.as_ptr(), length, FileRenameInformationEx) {
        Err(err) if unsupported(&err) => {}
        other => return other,
    }
    let classic = |source: HandleRef<'_>, dir: HandleRef<'_>, name: &[u16]| {
        let (info, length) = name_information(1, dir, name);
        set_information(source, info.as_ptr(), length, FileRenameInformation)
    };
    match classic(borrow(&source), to_dir, &name) {
        Err(err) if errors::is_access_denied(&err) => {}
        other => return other,
    }
    // The name is held open: aside, then into place.
    let Ok(old) = open_name(to_dir, to, DELETE | FILE_READ_ATTRIBUTES, FILE_OPEN, FILE_NON_DIRECTORY_FILE) else {
        return Err(errors::access_denied());
    };
    let aside = aside_name(to);
    // A file under the aside name while the name itself exists is a stale leftover.
    let _ = remove_at(to_dir, OsStr::new(&aside));
    classic(borrow(&old), to_dir, &checked_name(OsStr::new(&aside))?)?;
    if let Err(err) = classic(borrow(&source), to_dir, &name) {
        let _ = classic(borrow(&old), to_dir, &name);
        return Err(err);
    }
    // The old file goes through the handle already held, at once: renamed off the aside name
    // (free for the next replace, even while another program keeps the old file open) and
    // marked for removal when its last handle closes. A process stopped after the second
    // rename left the aside for good when this took a fresh open by name (the fault suite's
    // kill -9 rounds under Wine found `.hl<8 hex>.old` beside a file); now the window is
    // these two calls. If either fails, the removal by name below runs, as before.
    // The replace is done: nothing below may fail it.
    let temp = crate::staging::temp_name("");
    let renamed = checked_name(OsStr::new(&temp)).is_ok_and(|temp| classic(borrow(&old), to_dir, &temp).is_ok());
    let marked = renamed && {
        let plain = FILE_DISPOSITION_INFORMATION { DeleteFile: true };
        let length = size_of::<FILE_DISPOSITION_INFORMATION>() as u32;
        set_information(borrow(&old), &plain, length, FileDispositionInformation).is_ok()
    };
    drop(old);
    if !marked {
        let _ = remove_at(to_dir, OsStr::new(if renamed { temp.as_str() } else { aside.as_str() }));
    }
    Ok(())
}

/// The name a file is renamed aside to while it is replaced without POSIX semantics:
/// `.hl<8 hex>.old`, the hex being the xxHash32 of its name (so that the name's next
/// open finds what a crash left).
pub(crate) fn aside_name(name: &OsStr) -> String {
    format!(".hl{:08x}.old", xxhash_rust::xxh32::xxh32(name.as_encoded_bytes(), 0))
}

/// Puts back the old bytes a replace left under [`aside_name`] when it stopped between its
/// two renames, if `name` in `dir` is missing: whether it did.
pub(crate) fn restore_aside(dir: HandleRef<'_>, name: &OsStr) -> io::Result<bool> {
    let aside = aside_name(name);
    match rename_at(dir, OsStr::new(&aside), dir, name) {
        Ok(()) => Ok(true),
        Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(err) => Err(err),
    }
}

/// Gives the file `from` in `from_dir` the further name `to` in `to_dir` (a hard link);
/// a taken name fails with [`io::ErrorKind::AlreadyExists`].
pub(crate) fn link_at(from_dir: HandleRef<'_>, from: &OsStr, to_dir: HandleRef<'_>, to: &OsStr) -> io::Result<()> {
    let source = open_name(from_dir, from, FILE_READ_ATTRIBUTES, FILE_OPEN, FILE_NON_DIRECTORY_FILE)?;
    let (info, length) = name_information(0, to_dir, &checked_name(to)?);
    set_information(borrow(&source), info.as_ptr(), length, FileLinkInformation)
}

/// Removes `name` from `dir` with POSIX semantics (the name goes at once, whoever holds the
/// file open). Where the file system has none (FAT, network shares, Wine), Windows removes
/// a file only when its last handle closes and lists it under its name until then
/// ("delete pending"), where nothing can be made under that name: a file is first renamed
/// to a fresh temporary name of hashline's own, so that the name is free at once as on
/// Unix, and what stays for the holders' time is a temporary file that goes by itself.
fn delete(dir: HandleRef<'_>, name: &OsStr, options: u32) -> io::Result<()> {
    let doomed = open_name(dir, name, DELETE, FILE_OPEN, options)?;
    let flags = FILE_DISPOSITION_DELETE | FILE_DISPOSITION_POSIX_SEMANTICS | FILE_DISPOSITION_IGNORE_READONLY_ATTRIBUTE;
    let ex = FILE_DISPOSITION_INFORMATION_EX { Flags: flags };
    match set_information(
        borrow(&doomed),
        &ex,
        size_of::<FILE_DISPOSITION_INFORMATION_EX>() as u32,
        FileDispositionInformationEx,
    ) {
        Err(err) if unsupported(&err) => {}
        other => return other,
    }
    // A file is renamed aside through a handle that removes it when it closes: a process
    // stopped (kill -9) between the rename and the removal still leaves nothing under the
    // aside name, since the system closes its handles and the last close removes the file.
    // (Renamed through a plain handle, such a file stayed for good: the fault suite found
    // `.hl<8 hex>.tmp` left beside a group's files under Wine.) Where that handle cannot be
    // had (a read-only file), the plain removal below reports why.
    if options & FILE_NON_DIRECTORY_FILE != 0
        && let Ok(closing) = open_name(dir, name, DELETE, FILE_OPEN, options | FILE_DELETE_ON_CLOSE)
    {
        drop(doomed);
        let aside = checked_name(OsStr::new(&crate::staging::temp_name("")))?;
        let (info, info_length) = name_information(0, dir, &aside);
        // Renamed or not, the file goes when `closing` closes: the removal is done.
        let _ = set_information(borrow(&closing), info.as_ptr(), info_length, FileRenameInformation);
        return Ok(());
    }
    let plain = FILE_DISPOSITION_INFORMATION { DeleteFile: true };
    let length = size_of::<FILE_DISPOSITION_INFORMATION>() as u32;
    // A directory is removed where it is: it must be empty, which only the removal tells,
    // and one renamed first and then found full would be left under the other name.
    let moved = options & FILE_NON_DIRECTORY_FILE != 0 && {
        let aside = checked_name(OsStr::new(&crate::staging::temp_name("")))?;
        let (info, info_length) = name_information(0, dir, &aside);
        set_information(borrow(&doomed), info.as_ptr(), info_length, FileRenameInformation).is_ok()
    };
    let removed = set_information(borrow(&doomed), &plain, length, FileDispositionInformation);
    if removed.is_err() && moved {
        // Back under its name, as it was (best effort: the error is the removal's).
        let (info, info_length) = name_information(0, dir, &checked_name(name)?);
        let _ = set_information(borrow(&doomed), info.as_ptr(), info_length, FileRenameInformation);
    }
    removed
}

/// Removes the name `name` (not a directory) from `dir`.
pub(crate) fn remove_at(dir: HandleRef<'_>, name: &OsStr) -> io::Result<()> {
    delete(dir, name, FILE_NON_DIRECTORY_FILE)
}

/// Removes the empty directory `name` from `dir`.
pub(crate) fn remove_dir_at(dir: HandleRef<'_>, name: &OsStr) -> io::Result<()> {
    delete(dir, name, FILE_DIRECTORY_FILE)
}

/// Seconds and nanoseconds since the Unix epoch of a `FILETIME` (100 ns since 1601).
fn unix_time(high: u32, low: u32) -> (i64, i64) {
    const EPOCH: i64 = 116_444_736_000_000_000;
    let ticks = ((u64::from(high) << 32) | u64::from(low)) as i64 - EPOCH;
    (ticks.div_euclid(10_000_000), ticks.rem_euclid(10_000_000) * 100)
}

/// What an open handle is.
pub(crate) fn stat(of: HandleRef<'_>) -> io::Result<Meta> {
    let info = attributes(of)?;
    let attrs = info.dwFileAttributes;
    // SAFETY: any handle may be asked its type.
    let disk = unsafe { GetFileType(of.as_raw_handle()) } == FILE_TYPE_DISK;
    let kind = if attrs & FILE_ATTRIBUTE_REPARSE_POINT != 0 || !disk {
        Kind::Other
    } else if attrs & FILE_ATTRIBUTE_DIRECTORY != 0 {
        Kind::Dir
    } else {
        Kind::File
    };
    let id = match by_handle::<FILE_ID_INFO>(of) {
        Ok(id) => FileId { dev: id.VolumeSerialNumber, ino: u128::from_le_bytes(id.FileId.Identifier) },
        Err(_) => {
            let index = (u64::from(info.nFileIndexHigh) << 32) | u64::from(info.nFileIndexLow);
            FileId { dev: u64::from(info.dwVolumeSerialNumber), ino: u128::from(index) }
        }
    };
    let writable = attrs & FILE_ATTRIBUTE_READONLY == 0;
    let mode = match (kind, writable) {
        (Kind::Dir, _) => 0o777,
        (_, true) => 0o666,
        (_, false) => 0o444,
    };
    Ok(Meta {
        id,
        kind,
        size: (u64::from(info.nFileSizeHigh) << 32) | u64::from(info.nFileSizeLow),
        mtime: unix_time(info.ftLastWriteTime.dwHighDateTime, info.ftLastWriteTime.dwLowDateTime),
        nlink: u64::from(info.nNumberOfLinks),
        mode,
        owner: (0, 0),
    })
}

/// Whether the open file `of` has lost its last name while handles hold it: Windows
/// removes a file held open only when the last handle closes (without POSIX semantics:
/// FAT, Wine), and until then its name is still listed ("delete pending").
pub(crate) fn removal_pending(of: HandleRef<'_>) -> io::Result<bool> {
    by_handle::<FILE_STANDARD_INFO>(of).map(|info| info.DeletePending)
}

/// The plain structs `GetFileInformationByHandleEx` fills, each with its class.
trait ByHandle: Sized {
    const CLASS: FILE_INFO_BY_HANDLE_CLASS;
}

impl ByHandle for FILE_ID_INFO {
    const CLASS: FILE_INFO_BY_HANDLE_CLASS = FileIdInfo;
}

impl ByHandle for FILE_STANDARD_INFO {
    const CLASS: FILE_INFO_BY_HANDLE_CLASS = FileStandardInfo;
}

/// What the open file `of` says of itself in `T`'s class.
fn by_handle<T: ByHandle>(of: HandleRef<'_>) -> io::Result<T> {
    // SAFETY: all-zero is a valid value of the plain structs `ByHandle` is implemented for.
    let mut info: T = unsafe { std::mem::zeroed() };
    // SAFETY: `info` is a live, writable struct of the class's type and size.
    let ok = unsafe {
        GetFileInformationByHandleEx(of.as_raw_handle(), T::CLASS, (&raw mut info).cast(), size_of::<T>() as u32)
    } != 0;
    if ok { Ok(info) } else { Err(io::Error::last_os_error()) }
}

/// What the name `name` in `dir` is, a reparse point not followed.
pub(crate) fn stat_at(dir: HandleRef<'_>, name: &OsStr) -> io::Result<Meta> {
    stat(borrow(&open_name(dir, name, FILE_READ_ATTRIBUTES, FILE_OPEN, 0)?))
}

/// What `path` names, links followed.
pub(crate) fn stat_path(path: &Path) -> io::Result<Meta> {
    let file = OpenOptions::new()
        .access_mode(FILE_READ_ATTRIBUTES)
        .share_mode(SHARE_ALL)
        .custom_flags(FILE_FLAG_BACKUP_SEMANTICS)
        .open(path)?;
    stat(borrow(&file))
}

/// A handle to lock for the directory `dir` (byte-range locks cannot be taken on a
/// directory here): a lock file in the state directory named by the directory's
/// identity, so that every process locking that directory locks the same file.
pub(crate) fn dir_lock(dir: HandleRef<'_>) -> io::Result<Handle> {
    let id = stat(dir)?.id;
    let Some(state) = crate::state::state_dir() else {
        return Err(io::Error::new(io::ErrorKind::NotFound, "no state directory for the journal's lock"));
    };
    let locks = state.join("locks");
    crate::state::create_private_dir(&locks)?;
    let path = locks.join(format!("{:016x}-{:032x}.lock", id.dev, id.ino));
    let file =
        OpenOptions::new().read(true).write(true).create(true).truncate(false).share_mode(SHARE_ALL).open(path)?;
    Ok(file.into())
}

/// Whether this user owns the file and only this user may read it: on Windows the
/// state directory's access control list (the user's profile) says so, not a mode.
pub(crate) fn is_private(meta: &Meta) -> bool {
    let _ = meta;
    true
}

/// The lock's byte: the last one a file can have, beyond any real file's end, so that the
/// mandatory lock keeps no program from reading or writing the file, only hashline's own
/// lockers from each other.
fn lock_range(flags: u32, of: HandleRef<'_>) -> io::Result<bool> {
    // SAFETY: all-zero is a valid OVERLAPPED; only its offset is set.
    let mut at: OVERLAPPED = unsafe { std::mem::zeroed() };
    at.Anonymous.Anonymous.Offset = u32::MAX;
    at.Anonymous.Anonymous.OffsetHigh = i32::MAX as u32;
    // SAFETY: the handle is open and synchronous; `at` lives for the call.
    if unsafe { LockFileEx(of.as_raw_handle(), flags, 0, 1, 0, &mut at) } != 0 {
        return Ok(true);
    }
    let err = io::Error::last_os_error();
    match err.raw_os_error().map(|c| c as u32) {
        Some(ERROR_LOCK_VIOLATION) if flags & LOCKFILE_FAIL_IMMEDIATELY != 0 => Ok(false),
        _ => Err(err),
    }
}

/// Takes the exclusive lock on `of`, waiting for it.
pub(crate) fn lock(of: HandleRef<'_>) -> io::Result<()> {
    lock_range(LOCKFILE_EXCLUSIVE_LOCK, of).map(drop)
}

/// Takes the lock on `of` (shared or exclusive) if nobody holds it against that:
/// `Ok(false)` when someone does.
pub(crate) fn try_lock(of: HandleRef<'_>, shared: bool) -> io::Result<bool> {
    let kind = if shared { 0 } else { LOCKFILE_EXCLUSIVE_LOCK };
    lock_range(kind | LOCKFILE_FAIL_IMMEDIATELY, of)
}

/// Keeps a replaced file's permissions: nothing to do here (a read-only file was refused
/// before; a new file takes its directory's access control list).
pub(crate) fn keep_owner(file: &File, mode: u32, owner: (u32, u32)) -> io::Result<()> {
    let _ = (file, mode, owner);
    Ok(())
}

/// Whether this user may write the file `name` in `dir` (an open for writing data).
pub(crate) fn may_write_at(dir: HandleRef<'_>, name: &OsStr) -> io::Result<()> {
    open_name(dir, name, FILE_WRITE_DATA, FILE_OPEN, FILE_NON_DIRECTORY_FILE).map(drop)
}

/// Reads exactly `buf.len()` bytes of `file` from `offset`.
pub(crate) fn read_exact_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> io::Result<()> {
    while !buf.is_empty() {
        match file.seek_read(buf, offset) {
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
    Ok(())
}

/// Writes all of `buf` into `file` at `offset`.
pub(crate) fn write_all_at(file: &File, mut buf: &[u8], mut offset: u64) -> io::Result<()> {
    while !buf.is_empty() {
        match file.seek_write(buf, offset) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => {
                buf = &buf[n..];
                offset += n as u64;
            }
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
    Ok(())
}

/// The names in the directory `dir` (without `.` and `..`), sorted.
pub(crate) fn list(dir: HandleRef<'_>) -> io::Result<Vec<OsString>> {
    let mut names = Vec::new();
    let mut buffer = vec![0u64; 8192];
    let mut class = FileFullDirectoryRestartInfo;
    loop {
        // SAFETY: the buffer is live, writable and 8-byte aligned for the entries.
        let ok = unsafe {
            GetFileInformationByHandleEx(
                dir.as_raw_handle(),
                class,
                buffer.as_mut_ptr().cast(),
                (buffer.len() * 8) as u32,
            )
        };
        if ok == 0 {
            let err = io::Error::last_os_error();
            if err.raw_os_error() == Some(ERROR_NO_MORE_FILES as i32) {
                break;
            }
            return Err(err);
        }
        class = FileFullDirectoryInfo;
        let base = buffer.as_ptr().cast::<u8>();
        let mut at = 0usize;
        loop {
            // SAFETY: `at` is the offset of an entry the call wrote inside the buffer.
            let (next, length, name) = unsafe {
                let entry = base.add(at);
                let next = entry.add(offset_of!(FILE_FULL_DIR_INFO, NextEntryOffset)).cast::<u32>().read_unaligned();
                let length = entry.add(offset_of!(FILE_FULL_DIR_INFO, FileNameLength)).cast::<u32>().read_unaligned();
                (next, length as usize / 2, entry.add(offset_of!(FILE_FULL_DIR_INFO, FileName)).cast::<u16>())
            };
            // SAFETY: the entry's name holds `length` code units inside the buffer.
            let wide: Vec<u16> = (0..length).map(|i| unsafe { name.add(i).read_unaligned() }).collect();
            let name = OsString::from_wide(&wide);
            if name != "." && name != ".." {
                names.push(name);
            }
            if next == 0 {
                break;
            }
            at += next as usize;
        }
    }
    names.sort();
    Ok(names)
}

/// Nothing to undo: Windows has no non-blocking opens of regular files.
pub(crate) fn set_blocking(file: &File) -> io::Result<()> {
    let _ = file;
    Ok(())
}

/// Makes a path open of `options` share everything and open a directory too (to report
/// it as one); with `nofollow`, a reparse point as the last component is opened as itself.
/// (Windows has no FIFOs; a device is refused by its name or its handle's type.)
pub(crate) fn nonblocking(options: &mut OpenOptions, nofollow: bool) -> &mut OpenOptions {
    let flags =
        if nofollow { FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT } else { FILE_FLAG_BACKUP_SEMANTICS };
    options.share_mode(SHARE_ALL).custom_flags(flags)
}

/// Nothing to add: a new file takes its directory's access control list.
pub(crate) fn private_mode(options: &mut OpenOptions) -> &mut OpenOptions {
    options
}

/// Makes the directory `dir` (its parent must exist); it takes its parent's access
/// control list (under `%LOCALAPPDATA%`, the user's alone). An existing one is left.
pub(crate) fn create_private_dir(dir: &Path) -> io::Result<()> {
    std::fs::DirBuilder::new().recursive(true).create(dir)
}

/// This process's user, a file's owner and its permission bits: Windows files have no
/// POSIX owner or mode.
pub(crate) fn owner_and_mode(meta: &std::fs::Metadata) -> Option<(u32, u32, u32)> {
    let _ = meta;
    None
}

/// A name's bytes, as a journal record keeps them (UTF-8 for every name that is valid
/// Unicode).
pub(crate) fn name_bytes(name: &OsStr) -> Cow<'_, [u8]> {
    Cow::Borrowed(name.as_encoded_bytes())
}

/// A name from the bytes [`name_bytes`] gave; `None` for a name that was not valid
/// Unicode (recovery then leaves that entry alone).
pub(crate) fn name_from_bytes(bytes: &[u8]) -> Option<&OsStr> {
    std::str::from_utf8(bytes).ok().map(OsStr::new)
}

/// The errors the crate tells apart, by the codes Windows gives them.
pub(crate) mod errors {
    use std::io;

    use super::{
        ERROR_ACCESS_DENIED, ERROR_FILE_EXISTS, ERROR_FILE_NOT_FOUND, ERROR_LOCK_VIOLATION, ERROR_NOT_SAME_DEVICE,
        ERROR_SHARING_VIOLATION, ERROR_STOPPED_ON_SYMLINK, os_error,
    };

    fn is(err: &io::Error, code: u32) -> bool {
        err.raw_os_error() == Some(code as i32)
    }

    /// A path that left its directory while being opened (a reparse point or `..`).
    pub(crate) fn escape() -> io::Error {
        os_error(ERROR_NOT_SAME_DEVICE)
    }

    /// Whether `err` is [`escape`]'s.
    pub(crate) fn is_escape(err: &io::Error) -> bool {
        is(err, ERROR_NOT_SAME_DEVICE)
    }

    /// Whether another program's handle shares the file with no one, or locks the bytes.
    pub(crate) fn is_in_use(err: &io::Error) -> bool {
        is(err, ERROR_SHARING_VIOLATION) || is(err, ERROR_LOCK_VIOLATION)
    }

    /// Whether a rename or link failed because its two places are on different volumes.
    pub(crate) fn is_cross_device(err: &io::Error) -> bool {
        is(err, ERROR_NOT_SAME_DEVICE)
    }

    /// Whether an open failed for want of a peer: never here (no FIFOs).
    pub(crate) fn is_no_peer(err: &io::Error) -> bool {
        let _ = err;
        false
    }

    /// Whether an open refused a reparse point.
    pub(crate) fn is_symlink(err: &io::Error) -> bool {
        is(err, ERROR_STOPPED_ON_SYMLINK)
    }

    /// Access denied.
    pub(crate) fn access_denied() -> io::Error {
        os_error(ERROR_ACCESS_DENIED)
    }

    /// Whether `err` is [`access_denied`]'s.
    pub(crate) fn is_access_denied(err: &io::Error) -> bool {
        is(err, ERROR_ACCESS_DENIED)
    }

    /// No such file.
    pub(crate) fn not_found() -> io::Error {
        os_error(ERROR_FILE_NOT_FOUND)
    }

    /// A name that cannot be made unique.
    pub(crate) fn exists() -> io::Error {
        os_error(ERROR_FILE_EXISTS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch() -> (tempfile::TempDir, Handle) {
        let dir = tempfile::tempdir().expect("tempdir");
        let handle = open_dir_path(dir.path()).expect("dir");
        (dir, handle)
    }

    #[test]
    fn names_windows_gives_another_meaning_are_refused() {
        for bad in [
            "CON",
            "nul",
            "aux.txt",
            "Com1",
            "lpt9.tar.gz",
            "prn .md",
            "COM¹.txt",
            "lpt³",
            "a.",
            "a ",
            "a:b",
            "a*b",
            "a\\b",
            "a/b",
            "",
        ] {
            let err = checked_name(OsStr::new(bad)).expect_err(bad);
            assert_eq!(err.raw_os_error(), Some(ERROR_INVALID_NAME as i32), "{bad}");
        }
        for good in [
            "console.txt",
            "com10",
            "lpt",
            "con-fig",
            ".hashline-journal",
            ".hl0000beef.tmp",
            "naïve.rs",
            "cafe\u{301}",
            "é",
            "COM⁴",
        ] {
            assert!(checked_name(OsStr::new(good)).is_ok(), "{good}");
        }
        let err = checked_name(OsStr::new(&"n".repeat(256))).expect_err("256 units");
        assert_eq!(err.raw_os_error(), Some(ERROR_FILENAME_EXCED_RANGE as i32));
        assert!(checked_name(OsStr::new(&"é".repeat(255))).is_ok(), "255 units, 510 bytes");
        let (dir, handle) = scratch();
        std::fs::write(dir.path().join("plain.txt"), "p").unwrap();
        let err = open_at(borrow(&handle), OsStr::new("aux.txt"), Open::Read).expect_err("a device name");
        assert_eq!(err.raw_os_error(), Some(ERROR_INVALID_NAME as i32));
        assert!(open_at(borrow(&handle), OsStr::new("plain.txt"), Open::Read).is_ok());
    }

    /// Without POSIX rename semantics (Wine, FAT), a file held open is renamed aside and
    /// the new one put in its place; the holder keeps reading the old bytes, and no aside
    /// name remains once the holder lets go.
    #[test]
    fn a_file_held_open_is_replaced_and_nothing_is_left_aside() {
        let (dir, handle) = scratch();
        let d = borrow(&handle);
        std::fs::write(dir.path().join("f.txt"), "old").unwrap();
        std::fs::write(dir.path().join("new"), "new").unwrap();
        let held = File::from(open_at(d, OsStr::new("f.txt"), Open::Read).expect("held"));
        rename_at(d, OsStr::new("new"), d, OsStr::new("f.txt")).expect("replaced while open");
        assert_eq!(std::fs::read_to_string(dir.path().join("f.txt")).unwrap(), "new");
        let mut old = vec![0; 3];
        read_exact_at(&held, &mut old, 0).expect("the holder reads on");
        assert_eq!(old, b"old");
        drop(held);
        assert_eq!(list(d).unwrap(), [OsString::from("f.txt")]);
    }

    /// What a replace that stopped between its two renames leaves (the old bytes aside, no
    /// file under the name) is put back by the next open of the name.
    #[test]
    fn a_replace_stopped_halfway_is_put_back_at_the_next_open() {
        let (dir, handle) = scratch();
        let root = crate::RootDir::open(dir.path()).expect("root");
        std::fs::write(dir.path().join(aside_name(OsStr::new("f.txt"))), "old").unwrap();
        let target = crate::Target::open(&root, Path::new("f.txt"), &dir.path().join("f.txt"), false).expect("open");
        assert!(target.exists());
        assert_eq!(target.load().expect("load"), b"old");
        assert_eq!(list(borrow(&handle)).unwrap(), [OsString::from("f.txt")]);
    }

    /// The lock sits beyond any real file's end: it keeps hashline's lockers apart and
    /// nobody's reads or writes.
    #[test]
    fn locks_exclude_lockers_and_nobody_else() {
        let (dir, handle) = scratch();
        std::fs::write(dir.path().join("f.txt"), "bytes").unwrap();
        let first = open_at(borrow(&handle), OsStr::new("f.txt"), Open::Read).unwrap();
        let second = open_at(borrow(&handle), OsStr::new("f.txt"), Open::Read).unwrap();
        lock(borrow(&first)).expect("lock");
        assert!(!try_lock(borrow(&second), false).unwrap(), "a second locker waits");
        assert!(!try_lock(borrow(&second), true).unwrap(), "a shared one too");
        assert_eq!(std::fs::read_to_string(dir.path().join("f.txt")).unwrap(), "bytes", "a reader does not");
        std::fs::write(dir.path().join("f.txt"), "other").expect("nor a writer");
        drop(first);
        assert!(try_lock(borrow(&second), false).unwrap(), "free once the holder closes");
    }

    /// Another program's handle that shares nothing is waited for about a second, then
    /// refused as a sharing violation.
    #[test]
    fn a_file_another_program_holds_unshared_is_waited_for_then_refused() {
        let (dir, handle) = scratch();
        let path = dir.path().join("f.txt");
        std::fs::write(&path, "bytes").unwrap();
        let unshared = OpenOptions::new().read(true).share_mode(0).open(&path).expect("unshared");
        let started = Instant::now();
        let err = open_at(borrow(&handle), OsStr::new("f.txt"), Open::Read).expect_err("held");
        assert_eq!(err.raw_os_error(), Some(ERROR_SHARING_VIOLATION as i32));
        assert!(started.elapsed() >= SHARING_WAIT, "{:?}", started.elapsed());
        std::thread::scope(|scope| {
            scope.spawn(move || {
                std::thread::sleep(Duration::from_millis(200));
                drop(unshared);
            });
            assert!(open_at(borrow(&handle), OsStr::new("f.txt"), Open::Read).is_ok(), "opened once let go");
        });
    }

    /// A symbolic link met on the way is an escape, wherever it points (where this system
    /// lets the test make one).
    #[test]
    fn a_symbolic_link_on_the_way_is_an_escape() {
        let (dir, handle) = scratch();
        std::fs::create_dir(dir.path().join("real")).unwrap();
        std::fs::write(dir.path().join("real/f.txt"), "f").unwrap();
        let made = std::os::windows::fs::symlink_dir(dir.path().join("real"), dir.path().join("link"));
        // Wine 8.0 reports success and makes nothing.
        if let Err(err) = made.and_then(|()| std::fs::symlink_metadata(dir.path().join("link"))) {
            eprintln!("SKIPPED: this system does not let the test make a symbolic link ({err})");
            return;
        }
        let err = walk(borrow(&handle), Path::new("link/f.txt"), Open::Read).expect_err("through a link");
        assert!(errors::is_escape(&err), "{err}");
        assert!(walk(borrow(&handle), Path::new("real/f.txt"), Open::Read).is_ok());
    }

    #[test]
    fn links_and_removals_go_through_handles() {
        let (dir, handle) = scratch();
        let d = borrow(&handle);
        std::fs::write(dir.path().join("a"), "a").unwrap();
        link_at(d, OsStr::new("a"), d, OsStr::new("b")).expect("link");
        let err = link_at(d, OsStr::new("a"), d, OsStr::new("b")).expect_err("taken");
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(stat_at(d, OsStr::new("b")).unwrap().nlink, 2);
        assert_eq!(stat_at(d, OsStr::new("a")).unwrap().id, stat_at(d, OsStr::new("b")).unwrap().id);
        remove_at(d, OsStr::new("a")).expect("remove");
        make_dir_at(d, OsStr::new("sub"), true).expect("mkdir");
        assert_eq!(make_dir_at(d, OsStr::new("sub"), true).expect_err("exists").kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(list(d).unwrap(), [OsString::from("b"), OsString::from("sub")]);
        remove_dir_at(d, OsStr::new("sub")).expect("rmdir");
        assert_eq!(stat(d).unwrap().kind, Kind::Dir);
    }
}
