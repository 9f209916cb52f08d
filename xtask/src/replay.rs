//! `cargo xtask replay` (SPEC §12): replays real commits through the tools. For every
//! file a commit modified, the pre-image is read through `read`, each hunk of the
//! pre → post line diff becomes an anchored edit built only from anchors the tools
//! showed, and the edits are applied in six modes (see [`Mode`]). Each must give the
//! post-image byte for byte; a mode's result is ok, a mismatch (wrong bytes written), or
//! a refusal (nothing wrong written), counted apart. Files are skipped only for reasons
//! that come from the commit itself, each printed with its reason.

mod cases;
mod drive;
pub(crate) mod git;
pub(crate) mod script;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use hashline::Toolbox;
use hashline::core::{Document, LineNo, looks_binary};

use drive::{Calls, Failure, Workspace};
use git::{Change, Repo};
use script::{Endings, Step, Unscriptable};

/// Files larger than this (either side) are skipped.
const MAX_FILE_BYTES: u64 = 2 * 1024 * 1024;

/// Why a file can be skipped: every reason comes from the commit, none from the tools.
pub const SKIP_REASONS: [&str; 8] = [
    "added",
    "deleted",
    "type change or other status",
    "symlink or submodule",
    "mode change only",
    "over 2 MB",
    "binary",
    "invalid UTF-8 in new lines",
];

/// Besides [`SKIP_REASONS`]: the commit changed only line endings or the BOM, so there
/// is no line to edit.
pub const ENDINGS_ONLY: &str = "only line endings changed";

/// What to replay.
#[derive(Clone, Debug)]
pub struct Options {
    /// The repository.
    pub repo: PathBuf,
    /// How many commits of the first-parent history, counting back from `HEAD`.
    pub commits: usize,
}

/// The ways a file's edits are applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Mode {
    /// All edits in one `edit` call, `literal: true`, in a session.
    Batch,
    /// One `edit` call per hunk, top-down, with the anchors of the first read (stale by
    /// the hunks above), in a session; a refusal is retried once with the rows it gave.
    Several,
    /// All edits in one call without `literal` (the echoed-anchor cleanup is on).
    NoLiteral,
    /// One call per hunk like [`Mode::Several`], without a session (the CLI's
    /// `--stateless`): a wrong result here is a *misplacement*, the documented hazard of
    /// stateless edits, counted apart.
    Stateless,
    /// One call per hunk in a session, each citing the snapshot tag of the view its anchors
    /// were copied from (the read, or the last edit or refusal that showed those rows;
    /// issue 49): anchors follow their lines through a diff, with no window.
    SeveralTagged,
    /// One call per hunk like [`Mode::SeveralTagged`], each in a fresh stateless session,
    /// the calls sharing one snapshot store (`SessionConfig::snapshots`): a stateless
    /// principal that keeps its tags.
    StatelessTagged,
    /// One call per hunk like [`Mode::StatelessTagged`], but the model cites the newest tag
    /// it was shown for the file whatever view each anchor came from (the read's rows with
    /// an edit result's tag, as a model that sees an edit's added anchors alone does): the
    /// views made from a view (protocol §1.5) must keep every edit on its line. A wrong
    /// result is counted as a misplacement.
    StatelessNewest,
}

impl Mode {
    /// Every mode, in report order.
    pub const ALL: [Mode; 7] = [
        Mode::Batch,
        Mode::Several,
        Mode::NoLiteral,
        Mode::Stateless,
        Mode::SeveralTagged,
        Mode::StatelessTagged,
        Mode::StatelessNewest,
    ];

    fn label(self) -> &'static str {
        match self {
            Mode::Batch => "batch",
            Mode::Several => "several calls",
            Mode::NoLiteral => "without literal",
            Mode::Stateless => "stateless",
            Mode::SeveralTagged => "several calls with tags",
            Mode::StatelessTagged => "stateless with tags",
            Mode::StatelessNewest => "stateless, newest tag",
        }
    }

    /// Whether the mode makes one call per hunk (and counts its calls).
    fn per_hunk(self) -> bool {
        !matches!(self, Mode::Batch | Mode::NoLiteral)
    }

    /// Whether the mode cites snapshot tags.
    fn tagged(self) -> bool {
        matches!(self, Mode::SeveralTagged | Mode::StatelessTagged | Mode::StatelessNewest)
    }

    /// Whether the mode calls without a session.
    fn stateless(self) -> bool {
        matches!(self, Mode::Stateless | Mode::StatelessTagged | Mode::StatelessNewest)
    }

    /// Whether a mismatch in this mode fails the replay. Stateless misplacements do not:
    /// without a session the tool cannot tell a moved line from a look-alike that took
    /// its number, by design (SPEC §5.4.2); they are measured and reported, and they are
    /// why the CLI keeps a session by default (docs/decisions/003). With snapshot tags a
    /// stateless call follows its anchors exactly, so there a misplacement fails.
    pub fn mismatch_fails(self) -> bool {
        self != Mode::Stateless
    }
}

/// How one mode did on one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The post-image, byte for byte.
    Ok,
    /// The post-image's lines, with other line endings where the commit itself changed
    /// endings (or mixed them) in a way no anchored edit does.
    OkContents,
    /// Wrong bytes: what differs first.
    Mismatch(String),
    /// The tool refused; nothing wrong was written.
    Refused(String),
}

/// Counts for one mode.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModeTotals {
    /// Reproduced byte for byte.
    pub ok: usize,
    /// Reproduced up to line endings the commit changed.
    pub ok_contents: usize,
    /// Wrong bytes (in stateless mode: misplacements).
    pub mismatch: usize,
    /// Refused.
    pub refused: usize,
    /// One-call-per-hunk modes: calls whose stale anchors the tool re-aimed.
    pub relocated: usize,
    /// One-call-per-hunk modes: edit calls refused (retries included), each one round
    /// trip more than the hunks.
    pub refusals: usize,
    /// One-call-per-hunk modes: whole-file re-reads after a retry refused as ambiguous;
    /// with tags, every read after the first (of the whole file or of lines no result showed).
    pub rereads: usize,
    /// Modes with tags: edit calls whose anchors were last shown in views of different
    /// snapshots.
    pub mixed: usize,
    /// Modes with tags: calls whose tag the store did not hold.
    pub fallbacks: usize,
}

impl ModeTotals {
    fn add(&mut self, other: &ModeTotals) {
        self.ok += other.ok;
        self.ok_contents += other.ok_contents;
        self.mismatch += other.mismatch;
        self.refused += other.refused;
        self.relocated += other.relocated;
        self.refusals += other.refusals;
        self.rereads += other.rereads;
        self.mixed += other.mixed;
        self.fallbacks += other.fallbacks;
    }

    fn count_calls(&mut self, calls: &Calls) {
        self.relocated += calls.relocated;
        self.refusals += calls.refusals;
        self.rereads += calls.rereads;
        self.mixed += calls.mixed;
        self.fallbacks += calls.fallbacks;
    }

    fn count(&mut self, verdict: &Verdict) {
        match verdict {
            Verdict::Ok => self.ok += 1,
            Verdict::OkContents => self.ok_contents += 1,
            Verdict::Mismatch(_) => self.mismatch += 1,
            Verdict::Refused(_) => self.refused += 1,
        }
    }

    fn summary(&self, mode: Mode) -> String {
        let wrong = if mode.stateless() { "misplaced" } else { "mismatch" };
        let endings =
            if self.ok_contents > 0 { format!(" (+{} up to endings)", self.ok_contents) } else { String::new() };
        let calls = if mode.tagged() {
            format!(
                " (calls refused {}, re-reads {}, mixed views {}, fallbacks {}, relocated {})",
                self.refusals, self.rereads, self.mixed, self.fallbacks, self.relocated
            )
        } else if mode.per_hunk() {
            format!(" (calls refused {}, re-reads {}, relocated {})", self.refusals, self.rereads, self.relocated)
        } else {
            String::new()
        };
        format!(
            "{}: ok {}{endings} / {wrong} {} / refused {}{calls}",
            mode.label(),
            self.ok,
            self.mismatch,
            self.refused
        )
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
    /// Per mode.
    pub modes: BTreeMap<Mode, ModeTotals>,
    /// Calls of the one-call-per-hunk modes without tags whose stale anchors the tool
    /// re-aimed.
    pub relocated: usize,
    /// Calls of those modes refused for stale anchors and retried.
    pub retried: usize,
    /// Skipped files by reason.
    pub skipped: BTreeMap<&'static str, usize>,
}

impl Totals {
    fn add(&mut self, other: &Totals) {
        self.commits += other.commits;
        self.files += other.files;
        self.hunks += other.hunks;
        for (mode, totals) in &other.modes {
            self.modes.entry(*mode).or_default().add(totals);
        }
        self.relocated += other.relocated;
        self.retried += other.retried;
        for (reason, n) in &other.skipped {
            *self.skipped.entry(reason).or_default() += n;
        }
    }

    fn skipped_count(&self) -> usize {
        self.skipped.values().sum()
    }

    /// The counts of one mode.
    pub fn mode(&self, mode: Mode) -> ModeTotals {
        self.modes.get(&mode).cloned().unwrap_or_default()
    }

    /// What the one-call-per-hunk modes without tags did with stale anchors.
    fn stale_summary(&self) -> String {
        format!(
            "stale anchors in the one-call-per-hunk modes without tags: relocated {}, refused-then-retried {}",
            self.relocated, self.retried
        )
    }

    fn modes_summary(&self) -> String {
        Mode::ALL.iter().map(|&m| self.mode(m).summary(m)).collect::<Vec<_>>().join("; ")
    }

    /// Refused calls and re-reads per 1,000 hunks of each one-call-per-hunk mode, without
    /// and with tags side by side.
    fn rates(&self) -> String {
        let per = |n: usize| if self.hunks == 0 { 0.0 } else { n as f64 * 1000.0 / self.hunks as f64 };
        let modes: Vec<String> =
            [Mode::Several, Mode::SeveralTagged, Mode::Stateless, Mode::StatelessTagged, Mode::StatelessNewest]
                .into_iter()
                .map(|m| {
                    let t = self.mode(m);
                    format!("{} {:.2} / {:.2}", m.label(), per(t.refusals), per(t.rereads))
                })
                .collect();
        format!("per 1,000 hunks, calls refused / re-reads: {}", modes.join("; "))
    }

    /// The lines of the final summary.
    fn write_summary(&self, out: &mut dyn Write) -> Result<()> {
        for mode in Mode::ALL {
            writeln!(out, "  {}", self.mode(mode).summary(mode))?;
        }
        writeln!(out, "  {}", self.rates())?;
        writeln!(out, "  {}", self.stale_summary())?;
        Ok(())
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
    /// Whether the tool refused (rather than writing wrong bytes).
    pub refused: bool,
}

/// A file not replayed.
#[derive(Clone, Debug)]
pub struct Skip {
    /// The commit.
    pub commit: String,
    /// The file.
    pub path: String,
    /// Why.
    pub reason: &'static str,
}

/// The outcome of a replay.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// The counts.
    pub totals: Totals,
    /// Every file a mode did not reproduce (refusals included).
    pub mismatches: Vec<Mismatch>,
    /// Every skipped file.
    pub skips: Vec<Skip>,
}

impl Report {
    /// What fails the replay: wrong bytes or a refusal in a session mode, and any skip
    /// whose reason is not one of the commit-side reasons.
    pub fn failures(&self) -> Vec<String> {
        let mut failures: Vec<String> = self
            .mismatches
            .iter()
            .filter(|m| m.mode.mismatch_fails())
            .map(|m| format!("{} {} [{}]", m.commit, m.path, m.mode.label()))
            .collect();
        failures.extend(
            self.skips
                .iter()
                .filter(|s| !SKIP_REASONS.contains(&s.reason) && s.reason != ENDINGS_ONLY)
                .map(|s| format!("{} {}: unexplained skip ({})", s.commit, s.path, s.reason)),
        );
        failures
    }
}

/// Runs the replay, printing a line per commit, the totals, every skip and every
/// mismatch; fails on a mismatch or refusal in a session mode, or an unexplained skip.
pub fn main(repo: &Path, commits: usize) -> Result<()> {
    let report = run(&Options { repo: repo.to_path_buf(), commits }, &mut std::io::stdout().lock())?;
    let failures = report.failures();
    if !failures.is_empty() {
        bail!("{} file replay(s) failed: {}", failures.len(), failures.join(", "));
    }
    Ok(())
}

/// `cargo xtask replay --cases <dir>`: replays every minimized case below `dir` (see
/// [`cases`]); fails like [`main`].
pub fn main_cases(dir: &Path) -> Result<()> {
    let report = cases::run_all(dir, &mut std::io::stdout().lock())?;
    let failures = report.failures();
    if !failures.is_empty() {
        bail!("{} case replay(s) failed: {}", failures.len(), failures.join(", "));
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
            if let FileOutcome::Skipped(reason) = outcome {
                report.skips.push(Skip { commit: commit.id.clone(), path: path.clone(), reason });
            }
            for (mode, detail, refused) in outcome.tally(&mut totals) {
                report.mismatches.push(Mismatch {
                    commit: commit.id.clone(),
                    path: path.clone(),
                    mode,
                    detail,
                    refused,
                });
            }
        }
        writeln!(
            out,
            "{short} {}: {} files, {} hunks; {} (relocated {}, retried {}); skipped {}",
            commit.subject,
            totals.files,
            totals.hunks,
            totals.modes_summary(),
            totals.relocated,
            totals.retried,
            totals.skipped_count()
        )?;
        report.totals.add(&totals);
    }
    let t = &report.totals;
    writeln!(out, "replayed {} commits, {} files, {} hunks", t.commits, t.files, t.hunks)?;
    t.write_summary(out)?;
    let reasons: Vec<String> = t.skipped.iter().map(|(reason, n)| format!("{reason}: {n}")).collect();
    writeln!(
        out,
        "  skipped {} files{}",
        t.skipped_count(),
        if reasons.is_empty() { String::new() } else { format!(" ({})", reasons.join(", ")) }
    )?;
    for s in &report.skips {
        writeln!(out, "SKIP {} {}: {}", s.commit, s.path, s.reason)?;
    }
    for m in &report.mismatches {
        let kind = match (m.refused, m.mode.stateless()) {
            (true, _) => "REFUSED",
            (false, true) => "MISPLACED",
            (false, false) => "MISMATCH",
        };
        writeln!(out, "{kind} {} {} [{}]: {}", m.commit, m.path, m.mode.label(), m.detail)?;
    }
    Ok(report)
}

/// How one changed file went.
#[derive(Debug)]
pub enum FileOutcome {
    /// Not replayed, for this reason.
    Skipped(&'static str),
    /// Replayed in every mode.
    Replayed {
        /// Hunks in the file.
        hunks: usize,
        /// The verdict of each mode, in [`Mode::ALL`] order.
        verdicts: Vec<(Mode, Verdict)>,
        /// What each one-call-per-hunk mode saw.
        calls: BTreeMap<Mode, Calls>,
    },
}

impl FileOutcome {
    /// The verdict of one mode.
    #[cfg(test)]
    pub fn verdict(&self, mode: Mode) -> Option<&Verdict> {
        match self {
            FileOutcome::Replayed { verdicts, .. } => verdicts.iter().find(|(m, _)| *m == mode).map(|(_, v)| v),
            FileOutcome::Skipped(_) => None,
        }
    }

    /// Adds the outcome to `totals`; returns what went wrong, per mode (`true`: refused).
    fn tally(self, totals: &mut Totals) -> Vec<(Mode, String, bool)> {
        let (hunks, verdicts, calls) = match self {
            FileOutcome::Skipped(reason) => {
                *totals.skipped.entry(reason).or_default() += 1;
                return Vec::new();
            }
            FileOutcome::Replayed { hunks, verdicts, calls } => (hunks, verdicts, calls),
        };
        totals.files += 1;
        totals.hunks += hunks;
        for calls in calls.iter().filter(|(m, _)| !m.tagged()).map(|(_, c)| c) {
            totals.relocated += calls.relocated;
            totals.retried += calls.retried;
        }
        // The call that erred is the last; the few before it set the scene.
        let trace = |calls: &Calls| {
            let skip = calls.trace.len().saturating_sub(3);
            let more = if skip > 0 { format!("{skip} more, then ") } else { String::new() };
            format!("[calls: {more}{}]", calls.trace[skip..].join("; "))
        };
        let mut wrong = Vec::new();
        for (mode, calls) in &calls {
            totals.modes.entry(*mode).or_default().count_calls(calls);
        }
        for (mode, verdict) in verdicts {
            totals.modes.entry(mode).or_default().count(&verdict);
            let (detail, refused) = match verdict {
                Verdict::Ok | Verdict::OkContents => continue,
                Verdict::Mismatch(detail) => (detail, false),
                Verdict::Refused(detail) => (detail, true),
            };
            let detail = match calls.get(&mode) {
                Some(calls) => format!("{detail} {}", trace(calls)),
                None => detail,
            };
            wrong.push((mode, detail, refused));
        }
        wrong
    }
}

/// A file's bytes before and after a commit.
pub(crate) type Sides = (Vec<u8>, Vec<u8>);

/// The two sides of a changed path that a replay can take (a modified regular text file of
/// at most [`MAX_FILE_BYTES`] each side), or why not: one of [`SKIP_REASONS`].
pub(crate) fn sides(change: &Change, blobs: &mut git::Blobs) -> Result<Result<Sides, &'static str>> {
    match change.status {
        b'M' => {}
        b'A' => return Ok(Err("added")),
        b'D' => return Ok(Err("deleted")),
        _ => return Ok(Err("type change or other status")),
    }
    if !change.is_regular() {
        return Ok(Err("symlink or submodule"));
    }
    if change.old_blob == change.new_blob {
        return Ok(Err("mode change only"));
    }
    let (Some(pre), Some(post)) =
        (blobs.get(&change.old_blob, MAX_FILE_BYTES)?, blobs.get(&change.new_blob, MAX_FILE_BYTES)?)
    else {
        return Ok(Err("over 2 MB"));
    };
    if looks_binary(&pre) || looks_binary(&post) {
        return Ok(Err("binary"));
    }
    Ok(Ok((pre, post)))
}

/// Replays one changed path of a commit.
fn replay_change(toolbox: &Toolbox, root: &Path, change: &Change, blobs: &mut git::Blobs) -> Result<FileOutcome> {
    let (pre, post) = match sides(change, blobs)? {
        Ok(sides) => sides,
        Err(reason) => return Ok(FileOutcome::Skipped(reason)),
    };
    let name = scratch_name(&change.path);
    let workspace = Workspace::create(toolbox, root, &name)?;
    Ok(replay_file(&workspace, &pre, &post))
}

/// Replays one file: plans the edits from the diff and runs every mode.
pub fn replay_file(workspace: &Workspace<'_>, pre: &[u8], post: &[u8]) -> FileOutcome {
    let (before, after) = (Document::parse(pre.to_vec()), Document::parse(post.to_vec()));
    let steps = match script::script(&before, &after) {
        Ok(steps) => steps,
        Err(Unscriptable::InvalidUtf8) => return FileOutcome::Skipped("invalid UTF-8 in new lines"),
    };
    if steps.is_empty() {
        // The same lines: only bytes between them changed.
        return FileOutcome::Skipped(ENDINGS_ONLY);
    }
    let exact = script::endings(&before, &after) == Endings::Reproducible;
    check(workspace, pre, post, &steps, exact)
}

/// Applies `steps` to `pre` in every mode and requires `post`. Unless `exact` (the
/// commit's line endings are ones anchored edits produce), a result with the post-image's
/// lines but other endings counts as [`Verdict::OkContents`]; the judgement of endings
/// comes from the commit alone, never from what the tool wrote.
pub fn check(workspace: &Workspace<'_>, pre: &[u8], post: &[u8], steps: &[Step], exact: bool) -> FileOutcome {
    let mut calls: BTreeMap<Mode, Calls> = BTreeMap::new();
    let verdict = |got: Result<Vec<u8>, Failure>| match got {
        Ok(bytes) if bytes == post => Verdict::Ok,
        Ok(bytes) if !exact && script::same_contents(&bytes, post) => Verdict::OkContents,
        Ok(bytes) => Verdict::Mismatch(first_difference(post, &bytes)),
        Err(Failure::Refused(refusal)) => Verdict::Refused(refusal),
        Err(Failure::Wrong(wrong)) => Verdict::Mismatch(wrong),
    };
    let mut verdicts = Vec::with_capacity(Mode::ALL.len());
    for mode in Mode::ALL {
        let seen = calls.entry(mode).or_default();
        let got = match mode {
            Mode::Batch => workspace.batch(pre, steps, true),
            Mode::NoLiteral => workspace.batch(pre, steps, false),
            Mode::Several => workspace.several(pre, steps, true, seen),
            Mode::Stateless => workspace.several(pre, steps, false, seen),
            Mode::SeveralTagged => workspace.several_tagged(pre, steps, true, false, seen),
            Mode::StatelessTagged => workspace.several_tagged(pre, steps, false, false, seen),
            Mode::StatelessNewest => workspace.several_tagged(pre, steps, false, true, seen),
        };
        verdicts.push((mode, verdict(got)));
    }
    calls.retain(|mode, _| mode.per_hunk());
    FileOutcome::Replayed { hunks: steps.len(), verdicts, calls }
}

/// The scratch directory: in memory where the system has one (`/dev/shm`), as every
/// edit syncs its file to disk.
pub(crate) fn scratch_dir() -> Result<tempfile::TempDir> {
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
pub(crate) fn scratch_name(path: &[u8]) -> String {
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
