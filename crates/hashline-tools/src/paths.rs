//! Path resolution and the root policy.

use std::path::{Component, Path, PathBuf};

use crate::error::{ErrorCode, ToolError};

/// A path argument, resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResolvedPath {
    /// The path as the model wrote it (after `@` stripping and space normalization):
    /// what messages show.
    pub display: String,
    /// The absolute path, lexically normalized (`.`/`..` removed), symlinks kept.
    pub absolute: PathBuf,
    /// The absolute path with every existing symlink resolved: what the root policy
    /// checks and what the ledger and mutation locks key on.
    pub real: PathBuf,
}

impl ResolvedPath {
    /// The absolute path as a string (lossy for non-UTF-8 names).
    pub fn absolute_str(&self) -> String {
        self.absolute.to_string_lossy().into_owned()
    }
}

/// Cleans what a model wrote: a leading `@` is stripped, Unicode spaces become ASCII
/// spaces, `~` and `~/` expand to the home directory.
pub fn clean_input(raw: &str) -> String {
    let raw = raw.strip_prefix('@').unwrap_or(raw);
    let spaced: String = raw
        .chars()
        .map(|c| if c != ' ' && c.is_whitespace() && c != '\n' && c != '\t' { ' ' } else { c })
        .collect();
    match (spaced.as_str(), std::env::var_os("HOME")) {
        ("~", Some(home)) => home.to_string_lossy().into_owned(),
        (s, Some(home)) if s.starts_with("~/") => {
            format!("{}/{}", home.to_string_lossy().trim_end_matches('/'), &s[2..])
        }
        _ => spaced,
    }
}

/// Removes `.` and resolves `..` lexically (`..` at the root stays at the root).
pub fn normalize_lexically(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push(component);
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// Resolves every symlink of the longest existing prefix of `path` and appends the rest
/// (which does not exist, so cannot hold symlinks).
pub fn resolve_real(path: &Path) -> PathBuf {
    let mut existing = path.to_path_buf();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = existing.canonicalize() {
            let mut out = real;
            for part in rest.iter().rev() {
                out.push(part);
            }
            return normalize_lexically(&out);
        }
        match (existing.file_name().map(ToOwned::to_owned), existing.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                existing = parent.to_path_buf();
            }
            _ => return normalize_lexically(path),
        }
    }
}

/// Resolves `raw` against `base` and checks it against `roots` (when confined).
pub fn resolve(raw: &str, base: &Path, roots: &[PathBuf], confined: bool) -> Result<ResolvedPath, ToolError> {
    let display = clean_input(raw);
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
    if confined && !roots.iter().any(|root| real.starts_with(root)) {
        let allowed = roots.iter().map(|r| r.display().to_string()).collect::<Vec<_>>().join(", ");
        return Err(ToolError::new(
            ErrorCode::PathOutsideRoot,
            format!("Path is outside the session roots: {display} (resolves to {}).", real.display()),
        )
        .with_hint(format!("Use a path inside: {allowed}."))
        .with_path(absolute.to_string_lossy()));
    }
    Ok(ResolvedPath { display, absolute, real })
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
    fn lexical_normalization() {
        assert_eq!(normalize_lexically(Path::new("/a/./b/../c")), PathBuf::from("/a/c"));
        assert_eq!(normalize_lexically(Path::new("/../x")), PathBuf::from("/x"));
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
