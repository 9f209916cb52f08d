//! Look-ups by name that open nothing for reading or writing: a path's metadata, a
//! directory's entries, a canonical path, a symlink's target. Everything outside this
//! crate calls these rather than `std::fs`, so that what a platform does differently
//! (Windows' verbatim `\\?\` paths from `canonicalize`, macOS' case-insensitive names)
//! is handled in one place.

use std::fs::{Metadata, ReadDir};
use std::io;
use std::path::{Path, PathBuf};

use crate::target::FileId;

/// The metadata of what `path` names, symlinks followed.
pub fn metadata(path: &Path) -> io::Result<Metadata> {
    std::fs::metadata(path)
}

/// The metadata of `path` itself (a symlink is not followed).
pub fn symlink_metadata(path: &Path) -> io::Result<Metadata> {
    std::fs::symlink_metadata(path)
}

/// The entries of the directory `path`.
pub fn read_dir(path: &Path) -> io::Result<ReadDir> {
    std::fs::read_dir(path)
}

/// The absolute path of `path` with every symlink, `.` and `..` resolved. On Windows it
/// is given in the form a user writes (`C:\Users\…`, `\\server\share\…`) wherever that
/// names the same file, and as a verbatim `\\?\` path only where it must be one (a name
/// the ordinary form would change, or a path past 260 characters).
pub fn canonicalize(path: &Path) -> io::Result<PathBuf> {
    #[cfg(windows)]
    return std::fs::canonicalize(path).map(|real| ordinary(&real));
    #[cfg(not(windows))]
    std::fs::canonicalize(path)
}

/// `path` with `.` removed and `..` taken lexically: a `..` at the root (`/`, `C:\`,
/// `\\server\share\`) stays there, one at the start of a relative path is kept.
///
/// ```
/// use std::path::{Path, PathBuf};
/// use hashline_fs::lookup::normalize_lexically;
///
/// assert_eq!(normalize_lexically(Path::new("/a/./b/../../../c")), PathBuf::from("/c"));
/// assert_eq!(normalize_lexically(Path::new("../a/./b/..")), PathBuf::from("../a"));
/// assert_eq!(normalize_lexically(Path::new("../../a")), PathBuf::from("../../a"));
/// ```
pub fn normalize_lexically(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => match out.components().next_back() {
                Some(std::path::Component::Normal(_)) => {
                    out.pop();
                }
                // At the root it stays there; ahead of a relative path it is kept.
                Some(std::path::Component::RootDir) => {}
                _ if out.has_root() => {}
                _ => out.push(component),
            },
            other => out.push(other),
        }
    }
    out
}

/// Where the absolute `path` leads on Windows, as Windows itself resolves it: `.` and `..`
/// are taken lexically first (Win32 normalizes a path before the file system sees it, so
/// `link\..\x` is `x` beside `link`), then the deepest part that exists is canonicalized
/// (links followed; the drive letter and every name in the case the file system keeps them,
/// so that `c:\users\ME` and `C:\Users\me` are one path) and the rest appended as written;
/// in the form a user writes, unless a verbatim `\\?\` path names what that form would change.
#[cfg(windows)]
pub fn real_path(path: &Path) -> PathBuf {
    let lexical = normalize_lexically(path);
    let verbatim = matches!(path.components().next(), Some(std::path::Component::Prefix(p)) if p.kind().is_verbatim());
    let mut existing = lexical.as_path();
    let mut rest: Vec<std::ffi::OsString> = Vec::new();
    loop {
        if let Ok(real) = canonicalize(existing) {
            // A verbatim path names what the ordinary form would change (`trailing.`): kept.
            if verbatim && rest.iter().any(|name| !crate::sys::is_plain_name(name)) {
                return lexical;
            }
            let mut out = real;
            out.extend(rest.iter().rev());
            return out;
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_owned());
                existing = parent;
            }
            _ => return ordinary(&lexical),
        }
    }
}

/// `path` in the form a user writes (`C:\…`, `\\server\share\…`, `\` between names) if it
/// is a verbatim one (`\\?\C:\…`, `\\?\UNC\server\share\…`) or one written with `/`, that names the same file so written, at
/// any length (the standard library lengthens a long path itself when it opens it); as it
/// is where a name would change (a trailing dot or space, a device name, `/` in a name).
#[cfg(windows)]
fn ordinary(path: &Path) -> PathBuf {
    use std::path::{Component, Prefix};
    let mut components = path.components();
    let plain = |name: &std::ffi::OsStr| crate::sys::is_plain_name(name);
    let start = match components.next() {
        Some(Component::Prefix(prefix)) => match prefix.kind() {
            Prefix::VerbatimDisk(drive) | Prefix::Disk(drive) => format!("{}:", char::from(drive)),
            Prefix::VerbatimUNC(server, share) | Prefix::UNC(server, share) if plain(server) && plain(share) => {
                format!(r"\\{}\{}", server.display(), share.display())
            }
            _ => return path.to_path_buf(),
        },
        _ => return path.to_path_buf(),
    };
    let mut out = PathBuf::from(format!("{start}\\"));
    for component in components {
        match component {
            Component::RootDir => {}
            Component::Normal(name) if plain(name) => out.push(name),
            _ => return path.to_path_buf(),
        }
    }
    out
}

/// The target a symlink holds.
pub fn read_link(path: &Path) -> io::Result<PathBuf> {
    std::fs::read_link(path)
}

/// Removes the file (or symlink) `path`.
pub fn remove_file(path: &Path) -> io::Result<()> {
    std::fs::remove_file(path)
}

/// Removes the directory `path` if it is empty (fails otherwise).
pub fn remove_empty_dir(path: &Path) -> io::Result<()> {
    std::fs::remove_dir(path)
}

/// Makes the directory `path` and its missing parents.
pub fn create_dir_all(path: &Path) -> io::Result<()> {
    std::fs::create_dir_all(path)
}

/// The identity (device, inode) of what `path` names now, if it exists, and how many
/// names it has (its link count; 1 for a directory).
pub fn identity(path: &Path) -> Option<(FileId, u64)> {
    FileId::of_path(path)
}

/// A file's modification time in nanoseconds since the epoch, as precise as the file
/// system keeps it (0 before the epoch or where unknown).
pub fn mtime_nanos(meta: &Metadata) -> u128 {
    meta.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).map_or(0, |d| d.as_nanos())
}

#[cfg(all(test, windows))]
mod tests {
    use super::*;

    /// Paths past 260 characters and UNC paths come out in the form a user writes; only a
    /// name the ordinary form would change keeps a path verbatim.
    #[test]
    fn long_and_unc_paths_are_in_the_form_a_user_writes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = canonicalize(dir.path()).expect("root");
        let deep: PathBuf = (0..10).map(|i| format!("a-directory-name-of-thirty-{i:02}")).collect();
        let file = root.join(deep).join("f.txt");
        std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
        std::fs::write(&file, "f").expect("write");
        assert!(file.as_os_str().len() > 300, "{}", file.display());
        // Wine's GetFinalPathNameByHandleW fails past 260 characters (ERROR_MORE_DATA);
        // Windows gives the verbatim form, which must come out ordinary.
        match canonicalize(&file) {
            Ok(canonical) => assert_eq!(canonical, file, "past 260 characters, not verbatim"),
            Err(err) => eprintln!("NOTE: this system cannot canonicalize a path past 260 characters ({err})"),
        }
        assert_eq!(real_path(&file), file);
        let verbatim = PathBuf::from(format!(r"\\?\{}", file.display()));
        assert_eq!(real_path(&verbatim), file, "a verbatim spelling is the same path");
        for (given, real) in [
            (r"\\?\UNC\server\share\a\x.txt", r"\\server\share\a\x.txt"),
            (r"\\server\share\a\..\..\..\x.txt", r"\\server\share\x.txt"),
            (r"//server/share/x.txt", r"\\server\share\x.txt"),
            (r"\\?\C:\nowhere\trailing.", r"\\?\C:\nowhere\trailing."),
            (r"\\?\C:\nowhere\aux.txt", r"\\?\C:\nowhere\aux.txt"),
        ] {
            assert_eq!(real_path(Path::new(given)), PathBuf::from(real), "{given}");
        }
    }
}
