//! `cargo xtask replay --cases <dir>`: replays minimized cases. Each folder of `<dir>` holds
//! `min-pre` and `min-post`, one file's pre- and post-image; the file is named by the part
//! of the folder's name after its second `-` (`<project>-<commit>-<file>`). Each case
//! becomes a two-commit git repository in a temporary directory, whose last commit is
//! replayed like any other (see [`super::run`]).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use super::{Options, Report, run};

/// One case folder.
#[derive(Clone, Debug)]
pub struct Case {
    /// The folder's name.
    pub name: String,
    /// The folder.
    pub dir: PathBuf,
}

impl Case {
    /// The file the case commits: the folder name after `<project>-<commit>-`, or `file`.
    pub fn file_name(&self) -> &str {
        self.name.splitn(3, '-').nth(2).filter(|n| !n.is_empty() && !n.starts_with('.')).unwrap_or("file")
    }
}

/// Every case folder below `dir` (those holding `min-pre`), by name.
pub fn discover(dir: &Path) -> Result<Vec<Case>> {
    let entries = std::fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))?;
    let mut cases = Vec::new();
    for entry in entries {
        let entry = entry.with_context(|| format!("cannot list {}", dir.display()))?;
        let path = entry.path();
        if path.join("min-pre").is_file() {
            let name = entry.file_name().to_string_lossy().into_owned();
            cases.push(Case { name, dir: path });
        }
    }
    cases.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(cases)
}

/// Builds the two-commit repository of `case` in `into` (an empty directory).
pub fn build(case: &Case, into: &Path) -> Result<()> {
    let read = |part: &str| {
        let path = case.dir.join(part);
        std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))
    };
    let (pre, post) = (read("min-pre")?, read("min-post")?);
    let git = |args: &[&str]| -> Result<()> {
        let output = Command::new("git")
            .arg("-C")
            .arg(into)
            .args(["-c", "user.name=Replay", "-c", "user.email=replay@example.invalid"])
            .args(["-c", "core.autocrlf=false", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"])
            .args(args)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .context("cannot run git")?;
        if !output.status.success() {
            bail!("git {} failed: {}", args.join(" "), String::from_utf8_lossy(&output.stderr).trim());
        }
        Ok(())
    };
    let file = into.join(case.file_name());
    git(&["init", "-q"])?;
    for (bytes, message) in [(&pre, "pre-image"), (&post, "post-image")] {
        std::fs::write(&file, bytes).with_context(|| format!("cannot write {}", file.display()))?;
        git(&["add", "-A"])?;
        git(&["commit", "-q", "--allow-empty", "-m", message])?;
    }
    Ok(())
}

/// Replays every case below `dir`, writing each case's report and the totals to `out`.
pub fn run_all(dir: &Path, out: &mut dyn Write) -> Result<Report> {
    let cases = discover(dir)?;
    if cases.is_empty() {
        bail!("no replay case (a folder with min-pre and min-post) in {}", dir.display());
    }
    let mut all = Report::default();
    for case in &cases {
        writeln!(out, "== case {}", case.name)?;
        let scratch = tempfile::tempdir().context("cannot create a scratch directory")?;
        build(case, scratch.path())?;
        let report = run(&Options { repo: scratch.path().to_path_buf(), commits: 1 }, out)?;
        all.totals.add(&report.totals);
        all.mismatches.extend(report.mismatches.into_iter().map(|mut m| {
            m.commit = case.name.clone();
            m
        }));
        all.skips.extend(report.skips.into_iter().map(|mut s| {
            s.commit = case.name.clone();
            s
        }));
    }
    let t = &all.totals;
    writeln!(out, "== {} cases: {} files, {} hunks", cases.len(), t.files, t.hunks)?;
    t.write_summary(out)?;
    Ok(all)
}
