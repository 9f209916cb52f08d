//! `cargo xtask replay` (SPEC §12): replays real commits through the tools. For every
//! file a commit modified, the pre-image is read through `read`, each hunk of the
//! pre → post line diff becomes an anchored edit built only from anchors the tools
//! showed, and the edits are applied twice — in one `edit` call, and in one call per
//! hunk with stale anchors (relocated by the tool, or refused and retried with fresh
//! rows). Both must give the post-image byte for byte.

mod drive;
mod git;
mod script;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use hashline::Toolbox;
use hashline::core::{Document, LineNo, looks_binary};

use drive::{Calls, Workspace};
use git::{Change, Repo};
use script::{Endings, Step, Unscriptable};

/// Files larger than this (either side) are skipped.
const MAX_FILE_BYTES: u64 = 2 * 1024 * 1024;

/// What to replay.
#[derive(Clone, Debug)]
pub struct Options {
    /// The repository.
    pub repo: PathBuf,
    /// How many commits of the first-parent history, counting back from `HEAD`.
    pub commits: usize,
}

/// The two ways a file's edits are applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// All edits in one `edit` call.
    Batch,
    /// One `edit` call per hunk, top-down, with the anchors of the first read.
    Several,
}

impl Mode {
    fn label(self) -> &'static str {
        match self {
            Mode::Batch => "batch",
            Mode::Several => "several calls",
        }
    }
}

/// Counts over the whole replay.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    /// Commits replayed (root commits are not).
    pub commits: usize,
    /// Files replayed.
    pub files: usize,
    /// Hunks in those files.
    pub hunks: usize,
    /// Files the one-call mode reproduced.
    pub batch_ok: usize,
    /// Files the one-call mode did not reproduce.
    pub batch_mismatch: usize,
    /// Files the one-call-per-hunk mode reproduced.
    pub several_ok: usize,
    /// Files the one-call-per-hunk mode did not reproduce.
    pub several_mismatch: usize,
    /// Calls whose stale anchors the tool relocated.
    pub relocated: usize,
    /// Calls refused for stale anchors and retried.
    pub retried: usize,
    /// Skipped files by reason.
    pub skipped: BTreeMap<&'static str, usize>,
}

impl Totals {
    fn add(&mut self, other: &Totals) {
        self.commits += other.commits;
        self.files += other.files;
        self.hunks += other.hunks;
        self.batch_ok += other.batch_ok;
        self.batch_mismatch += other.batch_mismatch;
        self.several_ok += other.several_ok;
        self.several_mismatch += other.several_mismatch;
        self.relocated += other.relocated;
        self.retried += other.retried;
        for (reason, n) in &other.skipped {
            *self.skipped.entry(reason).or_default() += n;
        }
    }

    fn skipped_count(&self) -> usize {
        self.skipped.values().sum()
    }
}

/// A file a mode did not reproduce.
#[derive(Clone, Debug)]
pub struct Mismatch {
    /// The commit.
    pub commit: String,
    /// The file.
    pub path: String,
    /// The mode.
    pub mode: Mode,
    /// What went wrong: the first differing line, or the refusal.
    pub detail: String,
}

/// The outcome of a replay.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// The counts.
    pub totals: Totals,
    /// Every mismatch.
    pub mismatches: Vec<Mismatch>,
}

/// Runs the replay, printing a line per commit, the totals and every mismatch; fails
/// when a file was not reproduced.
pub fn main(repo: &Path, commits: usize) -> Result<()> {
    let report = run(&Options { repo: repo.to_path_buf(), commits }, &mut std::io::stdout().lock())?;
    if !report.mismatches.is_empty() {
        bail!("{} file replay(s) did not reproduce the commit", report.mismatches.len());
    }
    Ok(())
}

/// Replays the commits and reports, writing the progress and summary to `out`.
pub fn run(options: &Options, out: &mut dyn Write) -> Result<Report> {
    let repo = Repo::open(&options.repo)?;
    let mut blobs = repo.blobs()?;
    let toolbox = Toolbox::new();
    let scratch = scratch_dir()?;
    let mut report = Report::default();
    let mut serial = 0usize;
    for commit in repo.first_parent_commits(options.commits)? {
        let short = &commit.id[..commit.id.len().min(10)];
        let Some(parent) = &commit.parent else {
            writeln!(out, "{short} {}: root commit, skipped", commit.subject)?;
            continue;
        };
        let mut totals = Totals { commits: 1, ..Totals::default() };
        for change in repo.changes(parent, &commit.id)? {
            serial += 1;
            let root = scratch.path().join(serial.to_string());
            let path = String::from_utf8_lossy(&change.path).into_owned();
            let outcome = replay_change(&toolbox, &root, &change, &mut blobs)?;
            std::fs::remove_dir_all(&root).ok();
            for (mode, detail) in outcome.tally(&mut totals) {
                report.mismatches.push(Mismatch { commit: commit.id.clone(), path: path.clone(), mode, detail });
            }
        }
        writeln!(
            out,
            "{short} {}: {} files, {} hunks; batch ok {} / mismatch {}; several calls ok {} / mismatch {} (relocated {}, retried {}); skipped {}",
            commit.subject,
            totals.files,
            totals.hunks,
            totals.batch_ok,
            totals.batch_mismatch,
            totals.several_ok,
            totals.several_mismatch,
            totals.relocated,
            totals.retried,
            totals.skipped_count()
        )?;
        report.totals.add(&totals);
    }
    let t = &report.totals;
    let reasons: Vec<String> = t.skipped.iter().map(|(reason, n)| format!("{reason}: {n}")).collect();
    writeln!(
        out,
        "replayed {} commits, {} files, {} hunks (batch: ok {} / mismatch {}; several calls: ok {} / mismatch {}, relocated {}, refused-then-retried {}); skipped {} files{}",
        t.commits,
        t.files,
        t.hunks,
        t.batch_ok,
        t.batch_mismatch,
        t.several_ok,
        t.several_mismatch,
        t.relocated,
        t.retried,
        t.skipped_count(),
        if reasons.is_empty() { String::new() } else { format!(" ({})", reasons.join(", ")) }
    )?;
    for m in &report.mismatches {
        writeln!(out, "MISMATCH {} {} [{}]: {}", m.commit, m.path, m.mode.label(), m.detail)?;
    }
    Ok(report)
}

/// How one changed file went.
#[derive(Debug)]
pub enum FileOutcome {
    /// Not replayed, for this reason.
    Skipped(&'static str),
    /// Replayed in both modes.
    Replayed {
        /// Hunks in the file.
        hunks: usize,
        /// The one-call mode: `Err` describes the mismatch.
        batch: Result<(), String>,
        /// The one-call-per-hunk mode.
        several: Result<(), String>,
        /// What the one-call-per-hunk mode saw.
        calls: Calls,
    },
}

impl FileOutcome {
    /// Adds the outcome to `totals`; returns the mismatches.
    fn tally(self, totals: &mut Totals) -> Vec<(Mode, String)> {
        let (hunks, batch, several, calls) = match self {
            FileOutcome::Skipped(reason) => {
                *totals.skipped.entry(reason).or_default() += 1;
                return Vec::new();
            }
            FileOutcome::Replayed { hunks, batch, several, calls } => (hunks, batch, several, calls),
        };
        totals.files += 1;
        totals.hunks += hunks;
        totals.relocated += calls.relocated;
        totals.retried += calls.retried;
        let mut mismatches = Vec::new();
        match batch {
            Ok(()) => totals.batch_ok += 1,
            Err(detail) => {
                totals.batch_mismatch += 1;
                mismatches.push((Mode::Batch, detail));
            }
        }
        match several {
            Ok(()) => totals.several_ok += 1,
            Err(detail) => {
                totals.several_mismatch += 1;
                // The call that erred is the last; the few before it set the scene.
                let skip = calls.trace.len().saturating_sub(3);
                let trace = calls.trace[skip..].join("; ");
                let more = if skip > 0 { format!("{skip} more, then ") } else { String::new() };
                mismatches.push((Mode::Several, format!("{detail} [calls: {more}{trace}]")));
            }
        }
        mismatches
    }
}

/// Replays one changed path of a commit.
fn replay_change(toolbox: &Toolbox, root: &Path, change: &Change, blobs: &mut git::Blobs) -> Result<FileOutcome> {
    let skip = |reason| Ok(FileOutcome::Skipped(reason));
    match change.status {
        b'M' => {}
        b'A' => return skip("added"),
        b'D' => return skip("deleted"),
        _ => return skip("type change or other status"),
    }
    if !change.is_regular() {
        return skip("symlink or submodule");
    }
    if change.old_blob == change.new_blob {
        return skip("mode change only");
    }
    let (Some(pre), Some(post)) =
        (blobs.get(&change.old_blob, MAX_FILE_BYTES)?, blobs.get(&change.new_blob, MAX_FILE_BYTES)?)
    else {
        return skip("over 2 MB");
    };
    if looks_binary(&pre) || looks_binary(&post) {
        return skip("binary");
    }
    let name = scratch_name(&change.path);
    let workspace = Workspace::create(toolbox, root, &name)?;
    Ok(replay_file(&workspace, &pre, &post))
}

/// Replays one file: plans the edits from the diff and runs both modes.
pub fn replay_file(workspace: &Workspace<'_>, pre: &[u8], post: &[u8]) -> FileOutcome {
    let (before, after) = (Document::parse(pre.to_vec()), Document::parse(post.to_vec()));
    let endings = script::endings(&before, &after);
    if endings == Endings::Changed {
        return FileOutcome::Skipped("line-ending change");
    }
    let steps = match script::script(&script::contents(&before), &script::contents(&after)) {
        Ok(steps) => steps,
        Err(Unscriptable::InvalidUtf8) => return FileOutcome::Skipped("invalid UTF-8 in new lines"),
    };
    if steps.is_empty() {
        // The same lines: only bytes between them changed.
        return FileOutcome::Skipped("line-ending change");
    }
    check(workspace, pre, post, &steps, endings == Endings::Mixed)
}

/// Applies `steps` to `pre` in both modes and requires `post`. With `mixed_endings`, a
/// result that differs from `post` only in line endings is a skip.
pub fn check(workspace: &Workspace<'_>, pre: &[u8], post: &[u8], steps: &[Step], mixed_endings: bool) -> FileOutcome {
    let mut calls = Calls::default();
    let batch = workspace.batch(pre, steps);
    let several = workspace.several(pre, steps, &mut calls);
    let endings_only = |got: &Result<Vec<u8>, String>| {
        got.as_ref().is_ok_and(|bytes| bytes.as_slice() != post && script::same_contents(bytes, post))
    };
    if mixed_endings && (endings_only(&batch) || endings_only(&several)) {
        return FileOutcome::Skipped("line-ending change");
    }
    let verdict = |got: Result<Vec<u8>, String>| match got {
        Ok(bytes) if bytes == post => Ok(()),
        Ok(bytes) => Err(first_difference(post, &bytes)),
        Err(refused) => Err(refused),
    };
    FileOutcome::Replayed { hunks: steps.len(), batch: verdict(batch), several: verdict(several), calls }
}

/// The scratch directory: in memory where the system has one (`/dev/shm`), as every
/// edit syncs its file to disk.
fn scratch_dir() -> Result<tempfile::TempDir> {
    let builder = {
        let mut builder = tempfile::Builder::new();
        builder.prefix("hashline-replay-");
        builder
    };
    let shm = Path::new("/dev/shm");
    let in_memory = if shm.is_dir() { builder.tempdir_in(shm).ok() } else { None };
    match in_memory {
        Some(dir) => Ok(dir),
        None => builder.tempdir().context("cannot create a scratch directory"),
    }
}

/// The workspace name for a repository path: the path itself when the tools take it
/// verbatim, else a neutral name with the same extension.
fn scratch_name(path: &[u8]) -> String {
    match std::str::from_utf8(path) {
        Ok(text)
            if !text.chars().any(|c| c.is_control() || (c.is_whitespace() && c != ' '))
                && !text.split('/').any(|part| part.is_empty() || part == "." || part == "..") =>
        {
            text.to_owned()
        }
        _ => {
            let lossy = String::from_utf8_lossy(path);
            let extension = Path::new(lossy.as_ref())
                .extension()
                .and_then(|e| e.to_str())
                .filter(|e| e.chars().all(|c| c.is_ascii_alphanumeric()));
            extension.map_or_else(|| "file".to_owned(), |e| format!("file.{e}"))
        }
    }
}

/// Where two files first differ, both sides shown.
fn first_difference(expected: &[u8], got: &[u8]) -> String {
    let (want, have) = (Document::parse(expected.to_vec()), Document::parse(got.to_vec()));
    if want.has_bom() != have.has_bom() {
        return format!("BOM: expected {}, got {}", want.has_bom(), have.has_bom());
    }
    let show = |doc: &Document, index: usize| {
        doc.line(LineNo::from_index(index)).map_or_else(
            || "<no line>".to_owned(),
            |l| {
                format!(
                    "{:?}",
                    format!(
                        "{}{}",
                        String::from_utf8_lossy(l.content),
                        String::from_utf8_lossy(l.terminator.as_bytes())
                    )
                )
            },
        )
    };
    let lines = want.line_count().max(have.line_count());
    (0..lines)
        .find(|&i| {
            let (a, b) = (want.line(LineNo::from_index(i)), have.line(LineNo::from_index(i)));
            a.map(|l| (l.content, l.terminator)) != b.map(|l| (l.content, l.terminator))
        })
        .map_or_else(
            || format!("bytes differ ({} expected, {} got)", expected.len(), got.len()),
            |i| format!("line {}: expected {}, got {}", i + 1, show(&want, i), show(&have, i)),
        )
}
