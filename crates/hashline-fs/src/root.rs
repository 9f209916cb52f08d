//! Confinement by the kernel: every file is opened relative to a directory handle of its
//! root, so that what a path policy checked is what is opened. On Linux with
//! `openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)`; with the portable backend (or on a
//! kernel without `openat2`) by a component-by-component `openat` walk with `O_NOFOLLOW`.

use std::io;
use std::path::{Component, Path, PathBuf};

use crate::sys::{self, Handle, HandleRef, Open, errors};

/// An open directory handle of a session root.
#[derive(Debug)]
pub struct RootDir {
    path: PathBuf,
    handle: Handle,
}

impl RootDir {
    /// Opens the root directory `path` (absolute, symlinks resolved).
    pub fn open(path: &Path) -> io::Result<Self> {
        Ok(Self { path: path.to_path_buf(), handle: sys::open_dir_path(path)? })
    }

    /// The root's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the root's path no longer leads to the directory its handle holds: renamed
    /// or removed, and maybe another directory put at its path. A session that goes on
    /// would act on two directories (files opened through the handle, walks by the path),
    /// so its tools refuse instead.
    pub fn moved(&self) -> bool {
        match (sys::stat(self.handle()), sys::stat_path(&self.path)) {
            (Ok(held), Ok(now)) => held.id != now.id,
            (Ok(_), Err(_)) => true,
            // The handle cannot be asked: nothing is known to have moved.
            (Err(_), _) => false,
        }
    }

    /// The root's handle.
    pub(crate) fn handle(&self) -> HandleRef<'_> {
        sys::borrow(&self.handle)
    }
}

/// Opens `rel` (relative, without `..`) beneath the directory `dir`. A path that would
/// leave `dir` (`..`, a symlink out, or any symlink met by the portable walk, where the
/// resolved path held none) fails as [`crate::is_escape`] tells.
pub(crate) fn open_beneath(dir: HandleRef<'_>, rel: &Path, how: Open) -> io::Result<Handle> {
    if rel.components().any(|c| !matches!(c, Component::Normal(_) | Component::CurDir)) {
        return Err(errors::escape());
    }
    sys::open_beneath(dir, rel, how)
}

/// Opens the directory `rel` beneath `dir`, creating missing directories one by one
/// (each created and opened beneath its parent's handle).
pub(crate) fn create_dirs_beneath(dir: HandleRef<'_>, rel: &Path) -> io::Result<Handle> {
    match open_beneath(dir, rel, Open::Dir) {
        Err(err) if err.kind() == io::ErrorKind::NotFound => {}
        other => return other,
    }
    let mut current = open_beneath(dir, Path::new("."), Open::Dir)?;
    for part in rel.components().filter(|c| matches!(c, Component::Normal(_))) {
        let part = Path::new(part.as_os_str());
        current = match open_beneath(sys::borrow(&current), part, Open::Dir) {
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                match sys::make_dir_at(sys::borrow(&current), part.as_os_str(), false) {
                    Err(err) if err.kind() != io::ErrorKind::AlreadyExists => return Err(err),
                    _ => {}
                }
                open_beneath(sys::borrow(&current), part, Open::Dir)?
            }
            other => other?,
        };
    }
    Ok(current)
}

#[cfg(all(test, unix))]
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
            let err = open_beneath(root.handle(), Path::new(bad), Open::Read).expect_err(bad);
            assert!(is_escape(&err), "{bad}: {err}");
        }
        assert!(open_beneath(root.handle(), Path::new("a/in.txt"), Open::Read).is_ok());
        let made = create_dirs_beneath(root.handle(), Path::new("x/y")).expect("mkdirs");
        assert_eq!(sys::stat(sys::borrow(&made)).expect("stat").kind, sys::Kind::Dir);
        assert!(base.join("r/x/y").is_dir());
    }
}
