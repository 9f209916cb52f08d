//! Path resolution and the root policy.

use std::path::{Component, Path, PathBuf};

use hashline_core::display::escape_name;

use crate::error::{ErrorCode, ToolError};

/// The journal directory's name, in the session's first root (`crate::journal`): reserved
/// in every root.
pub const JOURNAL_DIR: &str = hashline_search::RESERVED_DIR;

/// A path argument, resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResolvedPath {
    /// The path as the model wrote it (after `@` stripping and space normalization):
    /// what messages show. When its lexical form names another place than the path does
    /// (a `..` after a symlink), the real path instead: relative to the working directory
    /// when below it.
    pub display: String,
    /// The absolute path, lexically normalized (`.`/`..` removed), symlinks kept; `real`
    /// when the lexical form names another place (a `..` after a symlink).
    pub absolute: PathBuf,
    /// The absolute path with every existing symlink resolved: what the root policy
    /// checks, and what is opened (relative to [`ResolvedPath::root`], by the kernel).
    pub real: PathBuf,
    /// The root `real` lies below (`/`, or the drive's root on Windows, for an unconfined path
    /// outside every root).
    pub root: PathBuf,
    /// The file's identity key: `real`, or for a second hard-linked name of a file the
    /// session already knows, the name it knows it by (see `Session::resolve`). The
    /// ledger, the mutation locks and the duplicate checks use it.
    pub key: PathBuf,
}

impl ResolvedPath {
    /// [`ResolvedPath::display`] as a text a model or a terminal reads shows it: every
    /// control, newline and bidi control escaped ([`hashline_core::display::escape_name`]).
    pub fn shown(&self) -> std::borrow::Cow<'_, str> {
        hashline_core::display::escape_name(&self.display)
    }

    /// The absolute path as a string (lossy for non-UTF-8 names).
    pub fn absolute_str(&self) -> String {
        self.absolute.to_string_lossy().into_owned()
    }

    /// `real` relative to `root`: what is opened beneath the root's handle (`.` for the
    /// root itself). It holds no `..` and, when resolved, no symlink.
    pub fn rel(&self) -> &Path {
        match self.real.strip_prefix(&self.root) {
            Ok(rel) if !rel.as_os_str().is_empty() => rel,
            _ => Path::new("."),
        }
    }
}

/// What a path argument names: `raw` cleaned ([`clean_input`]), unless cleaning changed it and
/// `raw` as written (without a leading `@`) names an entry that exists — a name holding a
/// Unicode space, such as the U+202F of macOS screenshot names, or a C1 control — which is then
/// used as it is.
fn as_given(raw: &str, base: &Path) -> String {
    let cleaned = clean_input(raw);
    let stripped = raw.strip_prefix('@').unwrap_or(raw);
    let literal = cleaned != stripped
        && !stripped.starts_with('~')
        && !stripped.contains('\0')
        && hashline_fs::lookup::symlink_metadata(&base.join(stripped)).is_ok();
    if literal { stripped.to_owned() } else { cleaned }
}

/// Cleans what a model wrote: a leading `@` is stripped, Unicode spaces become ASCII
/// spaces, `~` and `~/` expand to the home directory.
pub fn clean_input(raw: &str) -> String {
    let raw = raw.strip_prefix('@').unwrap_or(raw);
    let spaced: String =
        raw.chars().map(|c| if c != ' ' && c.is_whitespace() && c != '\n' && c != '\t' { ' ' } else { c }).collect();
    match (spaced.as_str(), std::env::var_os("HOME")) {
        ("~", Some(home)) => home.to_string_lossy().into_owned(),
        (s, Some(home)) if s.starts_with("~/") => {
            format!("{}/{}", home.to_string_lossy().trim_end_matches('/'), &s[2..])
        }
        _ => spaced,
    }
}

pub use hashline_fs::lookup::normalize_lexically;

/// How many symlinks path resolution follows before giving up (then the path is
/// taken as it stands, which the root check still judges).
#[cfg(not(windows))]
const MAX_SYMLINK_HOPS: usize = 40;

/// Resolves every symlink in an absolute `path`, component by component, the way the
/// operating system will: `..` after a symlink goes up from the link's target, and a
/// dangling symlink resolves to where its target would be created. Components after the
/// first missing one are taken lexically (they cannot be symlinks). The path's start (`/`,
/// or on Windows its drive or share and root) is kept, and `..` never climbs above it. On
/// Windows, which takes `..` lexically, `hashline_fs::lookup::real_path` says it.
pub fn resolve_real(path: &Path) -> PathBuf {
    #[cfg(windows)]
    return hashline_fs::lookup::real_path(path);
    #[cfg(not(windows))]
    resolve_real_unix(path)
}

#[cfg(not(windows))]
fn resolve_real_unix(path: &Path) -> PathBuf {
    use std::collections::VecDeque;
    use std::ffi::OsString;
    let mut pending: VecDeque<OsString> = path
        .components()
        .filter(|c| !matches!(c, Component::RootDir | Component::Prefix(_)))
        .map(|c| c.as_os_str().to_owned())
        .collect();
    let mut out = start_of(path);
    let mut hops = 0;
    let mut missing = false;
    while let Some(part) = pending.pop_front() {
        if part == ".." {
            out.pop();
            continue;
        }
        if part == "." {
            continue;
        }
        out.push(&part);
        if missing {
            continue;
        }
        match hashline_fs::lookup::symlink_metadata(&out) {
            Ok(meta) if meta.file_type().is_symlink() && hops < MAX_SYMLINK_HOPS => {
                hops += 1;
                if let Ok(target) = hashline_fs::lookup::read_link(&out) {
                    out.pop();
                    if target.has_root() {
                        out = start_of(&target);
                    }
                    for part in target.components().rev() {
                        if !matches!(part, Component::RootDir | Component::Prefix(_)) {
                            pending.push_front(part.as_os_str().to_owned());
                        }
                    }
                }
            }
            Ok(_) => {}
            Err(_) => missing = true,
        }
    }
    out
}

/// Where an absolute path starts: `/`, or on Windows its prefix (`C:`, `\\server\share`,
/// `\\?\C:`) and root.
fn start_of(path: &Path) -> PathBuf {
    let start: PathBuf =
        path.components().take_while(|c| matches!(c, Component::Prefix(_) | Component::RootDir)).collect();
    if start.as_os_str().is_empty() { PathBuf::from(std::path::MAIN_SEPARATOR_STR) } else { start }
}

/// Resolves `raw` against `base` and checks it against `roots` (when confined).
pub fn resolve(raw: &str, base: &Path, roots: &[PathBuf], confined: bool) -> Result<ResolvedPath, ToolError> {
    let display = as_given(raw, base);
    if display.is_empty() {
        return Err(ToolError::new(ErrorCode::InvalidType, "Invalid path: expected a non-empty string."));
    }
    if display.contains('\0') {
        return Err(ToolError::new(ErrorCode::InvalidType, "Invalid path: a path cannot contain a NUL character."));
    }
    let absolute = normalize_lexically(&base.join(&display));
    // Resolve the path as written (not the lexically normalized one), so that `link/..`
    // follows the link the way the operating system will.
    let real = resolve_real(&base.join(&display));
    let within = roots.iter().filter(|root| real.starts_with(root)).max_by_key(|root| root.as_os_str().len());
    if confined && within.is_none() {
        let allowed =
            roots.iter().map(|r| escape_name(&r.to_string_lossy()).into_owned()).collect::<Vec<_>>().join(", ");
        return Err(ToolError::new(
            ErrorCode::PathOutsideRoot,
            format!(
                "Path is outside the session roots: {} (resolves to {}).",
                escape_name(&display),
                escape_name(&real.to_string_lossy())
            ),
        )
        .with_hint(format!("Use a path inside: {allowed}."))
        .with_path(absolute.to_string_lossy()));
    }
    // The journal of every root is hashline's own: a record an agent could write there
    // would be one recovery acts on (it is authenticated as well; this keeps it out of
    // reach entirely). Checked on the real path, so a symlink to it is refused too.
    let reserved = roots.iter().any(|root| {
        real.strip_prefix(root).is_ok_and(|rel| rel.components().next().is_some_and(|c| c.as_os_str() == JOURNAL_DIR))
    });
    if reserved {
        return Err(ToolError::new(
            ErrorCode::PathReserved,
            format!(
                "Path is reserved for hashline's own journal: {} ({} is never read, written, listed or searched).",
                escape_name(&display),
                JOURNAL_DIR
            ),
        )
        .with_path(absolute.to_string_lossy()));
    }
    let root = within.cloned().unwrap_or_else(|| start_of(&real));
    let (display, absolute) = if lexical_misleads(&display, &absolute, &real) {
        (shown_real(&real, base), real.clone())
    } else {
        (display, absolute)
    };
    Ok(ResolvedPath { display, absolute, key: real.clone(), real, root })
}

/// Whether the lexical form of a path names another place than the path does: a `..` after
/// a symlink (`link/../x` goes up from the link's target, not from `link`'s directory).
/// Then results report the real path, so that the path they give is the file they touched
/// and one that a later call accepts.
fn lexical_misleads(display: &str, absolute: &Path, real: &Path) -> bool {
    Path::new(display).components().any(|c| c == Component::ParentDir) && resolve_real(absolute) != real
}

/// `real` as messages show it: relative to `base` when below it, else absolute.
fn shown_real(real: &Path, base: &Path) -> String {
    match hashline_search::shown_path(real, base) {
        rel if rel.is_empty() => real.to_string_lossy().into_owned(),
        shown => shown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_cleanup() {
        assert_eq!(clean_input("@src/lib.rs"), "src/lib.rs");
        assert_eq!(clean_input("a\u{a0}b.txt"), "a b.txt");
        if let Some(home) = std::env::var_os("HOME") {
            let home = home.to_string_lossy().trim_end_matches('/').to_owned();
            assert_eq!(clean_input("~/x"), format!("{home}/x"));
        }
    }

    #[test]
    fn a_name_that_exists_as_written_is_not_cleaned() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("shot\u{202f}1.png"), "x").expect("file");
        assert_eq!(as_given("shot\u{202f}1.png", dir.path()), "shot\u{202f}1.png");
        assert_eq!(as_given("@shot\u{202f}1.png", dir.path()), "shot\u{202f}1.png");
        assert_eq!(as_given("other\u{a0}2.png", dir.path()), "other 2.png");
    }

    #[test]
    fn lexical_normalization() {
        assert_eq!(normalize_lexically(Path::new("/a/./b/../c")), PathBuf::from("/a/c"));
        assert_eq!(normalize_lexically(Path::new("/../x")), PathBuf::from("/x"));
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_resolve_like_the_operating_system() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canonical");
        std::fs::create_dir_all(root.join("a/b")).expect("mkdir");
        std::os::unix::fs::symlink("a/b", root.join("lb")).expect("symlink");
        std::os::unix::fs::symlink("/nowhere/file", root.join("dangling")).expect("symlink");
        std::os::unix::fs::symlink("loop", root.join("loop")).expect("symlink");
        assert_eq!(resolve_real(&root.join("lb/../x")), root.join("a/x"));
        assert_eq!(resolve_real(&root.join("dangling")), PathBuf::from("/nowhere/file"));
        assert_eq!(resolve_real(&root.join("missing/../y")), root.join("y"));
        assert_eq!(resolve_real(&root.join("loop")), root.join("loop"));
    }

    #[test]
    fn empty_and_nul_paths_are_refused() {
        let root = PathBuf::from("/");
        for bad in ["", "@", "a\0b"] {
            let err = resolve(bad, &root, std::slice::from_ref(&root), true).expect_err(bad);
            assert_eq!(err.code, ErrorCode::InvalidType);
        }
    }
}
