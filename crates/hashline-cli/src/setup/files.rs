//! Reading and writing host config files safely: a file that cannot be read, is not text,
//! or is read-only is refused and left as it is; a symbolic link is followed only to a file
//! inside the project, the home directory or a host's config directory; every file is
//! replaced whole (a temporary file beside it, renamed over it) with its permissions kept,
//! and nothing is written until every file's new text is known.

use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use hashline::fs::lookup::{self as fs, canonicalize};
use hashline::fs::open::{open_append_regular, read_regular};
use hashline::fs::{NotRegularFile, Replacement, stage_replacement};

/// A config file's largest accepted size (Claude Code's `~/.claude.json` grows with
/// history; 16 MiB is far past any seen).
const MAX_BYTES: u64 = 16 << 20;

/// A file as found: where writes go (the link's target for a symbolic link) and its text.
#[derive(Debug)]
pub struct Found {
    /// The path named in the plan.
    pub path: PathBuf,
    /// Where the bytes are (the same path, or a symbolic link's target).
    pub real: PathBuf,
    /// The text, `None` when there is no file.
    pub text: Option<String>,
}

/// Reads `path` for a change, refusing what must not be changed.
pub fn read(path: &Path, allowed: &[&Path]) -> Result<Found> {
    let real = resolve(path, allowed)?;
    let bytes = match read_regular(&real, MAX_BYTES) {
        Ok(bytes) => bytes,
        Err(err) if err.kind() == ErrorKind::NotFound => return Ok(Found { path: path.into(), real, text: None }),
        Err(err) if NotRegularFile::is(&err) || err.kind() == ErrorKind::IsADirectory => {
            bail!("{} is not a regular file", path.display())
        }
        Err(err) if err.kind() == ErrorKind::FileTooLarge => {
            bail!("{} is larger than {} MiB", path.display(), MAX_BYTES >> 20)
        }
        Err(err) => return Err(err).with_context(|| format!("cannot read {}", path.display())),
    };
    let text = String::from_utf8(bytes).map_err(|_| anyhow!("{} is not UTF-8 text", path.display()))?;
    Ok(Found { path: path.into(), real, text: Some(text) })
}

/// Refuses a file that exists but may not be written (read-only, or its directory is).
pub fn check_writable(found: &Found) -> Result<()> {
    match fs::metadata(&found.real) {
        Ok(meta) if meta.permissions().readonly() => {
            bail!("{} is read-only; make it writable or change it by hand", found.path.display())
        }
        Ok(_) => {
            open_append_regular(&found.real).map(drop).with_context(|| format!("cannot write {}", found.path.display()))
        }
        Err(_) => Ok(()),
    }
}

/// Where `path`'s bytes are: itself, or (for a symbolic link, at any depth) its target, when
/// that is inside one of `allowed`. A path whose directories lead outside them is refused too.
fn resolve(path: &Path, allowed: &[&Path]) -> Result<PathBuf> {
    let roots: Vec<PathBuf> = allowed.iter().filter_map(|d| canonicalize(d).ok()).collect();
    // The nearest existing ancestor, resolved, with the rest of the path after it.
    let mut existing = path.to_path_buf();
    let mut rest = Vec::new();
    let real = loop {
        match canonicalize(&existing) {
            Ok(real) => break real,
            Err(err) if err.kind() == ErrorKind::NotFound && fs::symlink_metadata(&existing).is_ok() => {
                bail!("{} is a symbolic link to a missing file; fix or remove the link", path.display())
            }
            Err(err) if err.kind() == ErrorKind::NotFound => {
                let Some(name) = existing.file_name() else { bail!("{} has no existing directory", path.display()) };
                rest.push(name.to_owned());
                if !existing.pop() {
                    bail!("{} has no existing directory", path.display());
                }
            }
            Err(err) => return Err(err).with_context(|| format!("cannot resolve {}", path.display())),
        }
    };
    let real = rest.iter().rev().fold(real, |p, name| p.join(name));
    if !roots.iter().any(|root| real.starts_with(root)) {
        bail!(
            "{} leads to {}, outside the project, the home directory and the hosts' config directories; \
             nothing was written",
            path.display(),
            real.display()
        );
    }
    Ok(real)
}

/// A file's new bytes, staged beside it.
pub struct Staged {
    replacement: Replacement,
    real: PathBuf,
}

/// Stages `text` for `found` (its directories made), keeping an existing file's permissions.
pub fn stage(found: &Found, text: &str) -> Result<Staged> {
    let dir = found.real.parent().ok_or_else(|| anyhow!("{} has no directory", found.path.display()))?;
    fs::create_dir_all(dir).with_context(|| format!("cannot make {}", dir.display()))?;
    let replacement = stage_replacement(&found.real, text.as_bytes())
        .with_context(|| format!("cannot write in {}", dir.display()))?;
    Ok(Staged { replacement, real: found.real.clone() })
}

impl Staged {
    /// Puts the staged bytes in place.
    pub fn commit(self) -> Result<()> {
        let real = self.real;
        self.replacement.commit().with_context(|| format!("cannot replace {}", real.display()))
    }
}

/// Refuses when `found`'s file is no longer as it was read (a host may rewrite its config
/// meanwhile: Claude Code saves `~/.claude.json` as it runs).
pub fn still(found: &Found) -> Result<()> {
    let now = match read_regular(&found.real, MAX_BYTES) {
        Ok(bytes) => Some(bytes),
        Err(err) if err.kind() == ErrorKind::NotFound => None,
        Err(err) => return Err(err).with_context(|| format!("cannot read {}", found.path.display())),
    };
    if now.as_deref() != found.text.as_deref().map(str::as_bytes) {
        bail!(
            "{} changed while setup ran (a host saving it?); nothing was written, run setup again",
            found.path.display()
        );
    }
    Ok(())
}

/// Removes `found`'s file (its text was all `setup`'s), then each directory up to `stop`
/// that is left empty.
pub fn remove(found: &Found, stop: &[&Path]) -> Result<()> {
    fs::remove_file(&found.real).with_context(|| format!("cannot remove {}", found.path.display()))?;
    let mut dir = found.real.parent();
    while let Some(d) = dir {
        if stop.iter().any(|s| canonicalize(s).is_ok_and(|s| s == d)) || fs::remove_empty_dir(d).is_err() {
            break;
        }
        dir = d.parent();
    }
    Ok(())
}
