//! hashline's per-user state directory (the journal key, the CLI's session files, symbol
//! maps): `$XDG_STATE_HOME/hashline` where that is set, else where the platform keeps an
//! application's state — `~/Library/Application Support/hashline` on macOS,
//! `%LOCALAPPDATA%\hashline` on Windows, `~/.local/state/hashline` elsewhere.

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

/// The platforms whose conventions [`state_dir_for`] knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Convention {
    /// macOS: `~/Library/Application Support`.
    Apple,
    /// Linux and other Unix: the XDG base directories, `~/.local/state`.
    Xdg,
    /// Windows: the user's local application data, `%LOCALAPPDATA%` (given as the home).
    Windows,
}

impl Convention {
    /// The convention of the platform this was built for.
    pub fn native() -> Self {
        if cfg!(target_vendor = "apple") {
            Convention::Apple
        } else if cfg!(windows) {
            Convention::Windows
        } else {
            Convention::Xdg
        }
    }
}

/// hashline's per-user state directory of this process (see the module docs); `None`
/// when neither `XDG_STATE_HOME` nor `HOME` (on Windows `LOCALAPPDATA`) is an absolute
/// path.
pub fn state_dir() -> Option<PathBuf> {
    let home = if cfg!(windows) { "LOCALAPPDATA" } else { "HOME" };
    state_dir_for(Convention::native(), std::env::var_os("XDG_STATE_HOME"), std::env::var_os(home))
}

/// The state directory under `convention` for the given `XDG_STATE_HOME` and `HOME`
/// (relative values are ignored, as the XDG specification says).
pub fn state_dir_for(
    convention: Convention,
    xdg_state_home: Option<OsString>,
    home: Option<OsString>,
) -> Option<PathBuf> {
    if let Some(state) = xdg_state_home.map(PathBuf::from).filter(|p| p.is_absolute()) {
        return Some(state.join("hashline"));
    }
    let home = home.map(PathBuf::from).filter(|p| p.is_absolute())?;
    Some(match convention {
        Convention::Apple => home.join("Library/Application Support/hashline"),
        Convention::Xdg => home.join(".local/state/hashline"),
        Convention::Windows => home.join("hashline"),
    })
}

/// Makes `dir` and its missing parents; `dir` itself (when made here) with mode 0700, so
/// that nobody else lists or plants files in it.
pub fn create_private_dir(dir: &Path) -> io::Result<()> {
    if let Some(parent) = dir.parent() {
        std::fs::DirBuilder::new().recursive(true).create(parent)?;
    }
    crate::sys::create_private_dir(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_platform_keeps_state_where_its_applications_do_and_xdg_wins_when_set() {
        // An absolute path on this platform (Windows' have a drive).
        let abs = |path: &str| format!("{}{path}", if cfg!(windows) { "C:" } else { "" });
        let home = Some(OsString::from(abs("/Users/ann")));
        let expect = |path: &str| Some(PathBuf::from(abs(path)));
        assert_eq!(
            state_dir_for(Convention::Apple, None, home.clone()),
            expect("/Users/ann/Library/Application Support/hashline")
        );
        assert_eq!(state_dir_for(Convention::Xdg, None, home.clone()), expect("/Users/ann/.local/state/hashline"));
        assert_eq!(state_dir_for(Convention::Windows, None, home.clone()), expect("/Users/ann/hashline"));
        let xdg = Some(OsString::from(abs("/state")));
        for convention in [Convention::Apple, Convention::Xdg, Convention::Windows] {
            assert_eq!(state_dir_for(convention, xdg.clone(), home.clone()), expect("/state/hashline"));
            assert_eq!(state_dir_for(convention, Some("relative".into()), None), None);
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_private_directory_is_made_0700_with_its_parents() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let state = dir.path().join("Library/Application Support/hashline");
        create_private_dir(&state).expect("made");
        assert_eq!(std::fs::metadata(&state).expect("meta").permissions().mode() & 0o777, 0o700);
        create_private_dir(&state).expect("made again");
    }

    /// On Windows the state lives in the user's `%LOCALAPPDATA%\hashline` (under Wine,
    /// `C:\users\<user>\AppData\Local\hashline`), unless `XDG_STATE_HOME` says otherwise.
    #[cfg(windows)]
    #[test]
    fn windows_keeps_state_in_local_app_data() {
        if std::env::var_os("XDG_STATE_HOME").is_some() {
            eprintln!("SKIPPED: XDG_STATE_HOME is set here, and wins");
            return;
        }
        let local = PathBuf::from(std::env::var_os("LOCALAPPDATA").expect("Windows sets LOCALAPPDATA"));
        assert!(local.is_absolute() && local.ends_with("AppData\\Local"), "{}", local.display());
        assert_eq!(state_dir(), Some(local.join("hashline")));
    }
}
