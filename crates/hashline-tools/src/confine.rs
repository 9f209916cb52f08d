//! Confinement by the kernel (SPEC §7.4): every file is opened relative to a directory
//! handle of its root, so that what the root policy checked is what is opened. On Linux
//! with `openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)`; elsewhere (or on a kernel
//! without `openat2`) by a component-by-component `openat` walk with `O_NOFOLLOW`.

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
/// fallback walk, where the resolved path held none).
pub fn open_beneath(dir: BorrowedFd<'_>, rel: &Path, flags: OFlags) -> io::Result<OwnedFd> {
    if rel.components().any(|c| !matches!(c, Component::Normal(_) | Component::CurDir)) {
        return Err(Errno::XDEV.into());
    }
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use rustix::fs::ResolveFlags;
        // openat2 refuses a mode unless a file may be created.
        let mode = if flags.contains(OFlags::CREATE) || flags.contains(OFlags::TMPFILE) {
            Mode::from_raw_mode(0o666)
        } else {
            Mode::empty()
        };
        match rustix::fs::openat2(
            dir,
            rel,
            flags | OFlags::CLOEXEC,
            mode,
            ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS,
        ) {
            Err(Errno::NOSYS) | Err(Errno::PERM) => {}
            other => return other.map_err(Into::into),
        }
    }
    walk(dir, rel, flags)
}

/// The portable fallback: one `openat` per component, never following a symlink.
fn walk(dir: BorrowedFd<'_>, rel: &Path, flags: OFlags) -> io::Result<OwnedFd> {
    let parts: Vec<_> = rel.components().filter(|c| matches!(c, Component::Normal(_))).collect();
    let Some((last, parents)) = parts.split_last() else {
        return Ok(rustix::fs::openat(dir, ".", flags | OFlags::CLOEXEC, Mode::empty())?);
    };
    let mut current: Option<OwnedFd> = None;
    for part in parents {
        let at = current.as_ref().map_or(dir, AsFd::as_fd);
        let next = rustix::fs::openat(
            at,
            part.as_os_str(),
            OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        current = Some(next);
    }
    let at = current.as_ref().map_or(dir, AsFd::as_fd);
    Ok(rustix::fs::openat(
        at,
        last.as_os_str(),
        flags | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o666),
    )?)
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

/// Whether an error means "the path left its root while being opened".
pub fn is_escape(err: &io::Error) -> bool {
    err.raw_os_error() == Some(Errno::XDEV.raw_os_error())
}

#[cfg(test)]
mod tests {
    use super::*;

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
            assert!(is_escape(&err) || err.raw_os_error() == Some(Errno::LOOP.raw_os_error()), "{bad}: {err}");
        }
        assert!(open_beneath(root.fd(), Path::new("a/in.txt"), OFlags::RDONLY).is_ok());
        let made = create_dirs_beneath(root.fd(), Path::new("x/y")).expect("mkdirs");
        assert!(rustix::fs::fstat(&made).is_ok());
        assert!(base.join("r/x/y").is_dir());
    }
}
