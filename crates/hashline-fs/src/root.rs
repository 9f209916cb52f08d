//! Confinement by the kernel: every file is opened relative to a directory handle of its
//! root, so that what a path policy checked is what is opened. On Linux with
//! `openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)`; with the portable backend (or on a
//! kernel without `openat2`) by a component-by-component `openat` walk with `O_NOFOLLOW`.

use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Component, Path, PathBuf};

use rustix::fs::{Mode, OFlags};
use rustix::io::Errno;

/// An open directory handle of a session root.
#[derive(Debug)]
pub struct RootDir {
    path: PathBuf,
    fd: OwnedFd,
}

impl RootDir {
    /// Opens the root directory `path` (absolute, symlinks resolved).
    pub fn open(path: &Path) -> io::Result<Self> {
        let fd = rustix::fs::open(path, OFlags::DIRECTORY | OFlags::RDONLY | OFlags::CLOEXEC, Mode::empty())?;
        Ok(Self { path: path.to_path_buf(), fd })
    }

    /// The root's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The root's handle.
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

/// Opens `rel` (relative, without `..`) beneath the directory `dir`. A path that would
/// leave `dir` fails with `EXDEV` (from `openat2`) or `ELOOP` (a symlink met by the
/// portable walk, where the resolved path held none); see [`is_escape`].
pub fn open_beneath(dir: BorrowedFd<'_>, rel: &Path, flags: OFlags) -> io::Result<OwnedFd> {
    if rel.components().any(|c| !matches!(c, Component::Normal(_) | Component::CurDir)) {
        return Err(Errno::XDEV.into());
    }
    crate::sys::open_beneath(dir, rel, flags)
}

/// Opens the directory `rel` beneath `dir`, creating missing directories one by one
/// (each created and opened beneath its parent's handle).
pub fn create_dirs_beneath(dir: BorrowedFd<'_>, rel: &Path) -> io::Result<OwnedFd> {
    let flags = OFlags::DIRECTORY | OFlags::RDONLY;
    match open_beneath(dir, rel, flags) {
        Err(err) if err.raw_os_error() == Some(Errno::NOENT.raw_os_error()) => {}
        other => return other,
    }
    let mut current = open_beneath(dir, Path::new("."), flags)?;
    for part in rel.components().filter(|c| matches!(c, Component::Normal(_))) {
        let part = Path::new(part.as_os_str());
        current = match open_beneath(current.as_fd(), part, flags) {
            Err(err) if err.raw_os_error() == Some(Errno::NOENT.raw_os_error()) => {
                match rustix::fs::mkdirat(current.as_fd(), part, Mode::from_raw_mode(0o777)) {
                    Ok(()) | Err(Errno::EXIST) => {}
                    Err(err) => return Err(err.into()),
                }
                open_beneath(current.as_fd(), part, flags)?
            }
            other => other?,
        };
    }
    Ok(current)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::is_escape;

    #[test]
    fn symlinks_out_and_dotdot_are_refused_by_the_kernel() {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = dir.path().canonicalize().expect("canonical");
        std::fs::create_dir_all(base.join("r/a")).expect("mkdir");
        std::fs::write(base.join("secret"), "s").expect("write");
        std::fs::write(base.join("r/a/in.txt"), "i").expect("write");
        std::os::unix::fs::symlink("../secret", base.join("r/out")).expect("symlink");
        std::os::unix::fs::symlink(base.join("secret"), base.join("r/abs")).expect("symlink");
        let root = RootDir::open(&base.join("r")).expect("root");
        for bad in ["out", "abs", "../secret", "a/../../secret"] {
            let err = open_beneath(root.fd(), Path::new(bad), OFlags::RDONLY).expect_err(bad);
            assert!(is_escape(&err), "{bad}: {err}");
        }
        assert!(open_beneath(root.fd(), Path::new("a/in.txt"), OFlags::RDONLY).is_ok());
        let made = create_dirs_beneath(root.fd(), Path::new("x/y")).expect("mkdirs");
        assert!(rustix::fs::fstat(&made).is_ok());
        assert!(base.join("r/x/y").is_dir());
    }
}
