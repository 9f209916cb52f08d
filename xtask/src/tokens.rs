//! `cargo xtask tokens`: what an agent session costs in tokens, without a model (issue 47).
//!
//! Real commits are replayed as an agent would make them, with each tool set, and what the
//! model is shown (tokens in) and writes (tokens out) is counted with a real tokenizer
//! (o200k_base, from the `tiktoken-rs` package). For every file a commit modified, every hunk
//! gets a read window of the pre-image (the hunk's lines ± 10, windows that touch merged),
//! the same windows for every tool set; then the hunks are applied:
//! - **hashline**: the windows through `read` (offset/limit), one `edit` call per file
//!   built from the anchors those reads showed, and the edit's result. Content-first hosts
//!   (Gemini CLI, opencode) and, since hashline serves no `structuredContent` by default,
//!   structured-first hosts (Claude Code, Codex) show the text: one class. With
//!   `--structured-content full` a structured-first host shows `JSON.stringify` of the
//!   value instead: counted apart, to show why that is not the default.
//! - **str_replace** (Claude Code's Read and Edit): the windows as `N\tline`, one Edit per
//!   hunk whose `old_string` is the hunk's old lines grown by context lines until unique in
//!   the file as it is then, its `new_string` the same context around the new lines, and
//!   the one-sentence result.
//! - **apply_patch** (Codex): the windows as a shell `sed -n` prints them, one patch per
//!   file (three context lines a hunk), and its one-line result.
//!
//! Output tokens are weighted 5 to 1 in the cost (the price ratio of output to input).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use hashline::core::Document;
use hashline::{CallContext, Session, SessionConfig, Toolbox};
use serde_json::{Value, json};
use tiktoken_rs::CoreBPE;

use crate::replay::git::Repo;
use crate::replay::script::{self, Step, Target, Unscriptable};
use crate::replay::{scratch_dir, scratch_name, sides};

/// Lines of context around a hunk in its read window.
const WINDOW_CONTEXT: u32 = 10;
/// Output tokens cost this many input tokens.
const OUT_WEIGHT: u64 = 5;
/// Context lines around an apply_patch hunk.
const PATCH_CONTEXT: usize = 3;

/// The targets of issue 47, as ratios to the str_replace baseline.
const TARGET_COST: f64 = 0.75;
const TARGET_INPUT: f64 = 1.3;
/// The tool definitions a model reads on every turn, in tokens.
const TARGET_DEFINITIONS: usize = 4000;

/// What to measure.
pub struct Options {
    /// The repository.
    pub repo: PathBuf,
    /// Commits of the first-parent history, back from HEAD.
    pub commits: usize,
    /// Fail unless the targets hold.
    pub check: bool,
}

/// Tokens in and out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Tally {
    input: u64,
    output: u64,
}

impl Tally {
    fn cost(self) -> u64 {
        self.input + OUT_WEIGHT * self.output
    }

    fn add(&mut self, other: Tally) {
        self.input += other.input;
        self.output += other.output;
    }
}

/// The tool sets, in report order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Set {
    /// hashline's text (every host, default mode).
    Hashline,
    /// hashline with `--structured-content full` in a structured-first host.
    HashlineJson,
    /// Claude Code's Read and Edit.
    StrReplace,
    /// Codex's shell reads and apply_patch.
    ApplyPatch,
}

impl Set {
    const ALL: [Set; 4] = [Set::Hashline, Set::HashlineJson, Set::StrReplace, Set::ApplyPatch];

    fn label(self) -> &'static str {
        match self {
            Set::Hashline => "hashline (the text: every host, default mode)",
            Set::HashlineJson => "hashline, --structured-content full, structured-first host",
            Set::StrReplace => "str_replace (Claude Code's Read + Edit)",
            Set::ApplyPatch => "apply_patch (Codex: sed -n + one patch a file)",
        }
    }
}

/// One set's totals, with the reads and the edit results apart.
#[derive(Clone, Copy, Debug, Default)]
struct SetTotals {
    all: Tally,
    reads_in: u64,
    results_in: u64,
}

/// One hunk's cost in hashline's text and in the baseline.
struct HunkCost {
    commit: String,
    path: String,
    lines: String,
    hashline: Tally,
    baseline: Tally,
}

/// Counts tokens.
struct Counter {
    bpe: CoreBPE,
}

impl Counter {
    fn new() -> Result<Self> {
        Ok(Self { bpe: tiktoken_rs::o200k_base().context("cannot load the o200k_base tokenizer")? })
    }

    fn count(&self, text: &str) -> u64 {
        self.bpe.encode_ordinary(text).len() as u64
    }
}

/// `cargo xtask tokens`.
pub fn main(options: &Options) -> Result<()> {
    let counter = Counter::new()?;
    let definitions = definitions(&counter);
    println!(
        "tool definitions (name + description + inputSchema of the seven, as a model reads them): {} bytes, {} tokens (target ≤ {TARGET_DEFINITIONS})",
        definitions.0, definitions.1
    );
    let report = measure(options, &counter)?;
    let failures = report.print(definitions.1)?;
    // A file the replay could not apply is a defect of the measurement (or of hashline).
    if !report.failed.is_empty() {
        bail!("{} files could not be measured (FAILED lines above)", report.failed.len());
    }
    if options.check && !failures.is_empty() {
        bail!("targets not met: {}", failures.join("; "));
    }
    Ok(())
}

/// The tool definitions' bytes and tokens.
fn definitions(counter: &Counter) -> (usize, u64) {
    let mut bytes = 0;
    let mut tokens = 0;
    for tool in Toolbox::new().tools() {
        let definition =
            json!({"name": tool.name, "description": tool.description(), "inputSchema": tool.input_schema()})
                .to_string();
        bytes += definition.len();
        tokens += counter.count(&definition);
    }
    (bytes, tokens)
}

/// What a run measured.
#[derive(Default)]
struct Report {
    repo: String,
    commits: usize,
    files: usize,
    hunks: usize,
    skipped: BTreeMap<&'static str, usize>,
    failed: Vec<String>,
    sets: BTreeMap<Set, SetTotals>,
    hunk_costs: Vec<HunkCost>,
}

fn measure(options: &Options, counter: &Counter) -> Result<Report> {
    let repo = Repo::open(&options.repo)?;
    let mut blobs = repo.blobs()?;
    let toolbox = Toolbox::new();
    let scratch = scratch_dir()?;
    let mut report = Report { repo: options.repo.display().to_string(), ..Report::default() };
    let mut serial = 0usize;
    for commit in repo.first_parent_commits(options.commits)? {
        let Some(parent) = &commit.parent else { continue };
        report.commits += 1;
        for change in repo.changes(parent, &commit.id)? {
            let (pre, post) = match sides(&change, &mut blobs)? {
                Ok(sides) => sides,
                Err(reason) => {
                    *report.skipped.entry(reason).or_default() += 1;
                    continue;
                }
            };
            let (before, after) = (Document::parse(pre.clone()), Document::parse(post.clone()));
            let steps = match script::script(&before, &after) {
                Ok(steps) if !steps.is_empty() => steps,
                Ok(_) => {
                    *report.skipped.entry("only line endings changed").or_default() += 1;
                    continue;
                }
                Err(Unscriptable::InvalidUtf8) => {
                    *report.skipped.entry("invalid UTF-8 in new lines").or_default() += 1;
                    continue;
                }
            };
            serial += 1;
            let root = scratch.path().join(serial.to_string());
            let name = scratch_name(&change.path);
            let short = commit.id[..commit.id.len().min(10)].to_owned();
            match file(&toolbox, counter, &root, &name, &before, &pre, &post, &steps) {
                Ok(costs) => {
                    report.files += 1;
                    report.hunks += steps.len();
                    for (set, totals) in costs.sets {
                        let entry = report.sets.entry(set).or_default();
                        entry.all.add(totals.all);
                        entry.reads_in += totals.reads_in;
                        entry.results_in += totals.results_in;
                    }
                    report.hunk_costs.extend(costs.hunks.into_iter().map(|(lines, hashline, baseline)| HunkCost {
                        commit: short.clone(),
                        path: name.clone(),
                        lines,
                        hashline,
                        baseline,
                    }));
                }
                Err(err) => report.failed.push(format!("{short} {name}: {err}")),
            }
            std::fs::remove_dir_all(&root).ok();
        }
    }
    Ok(report)
}

/// One file's costs: per set, and per hunk (hashline's text, the str_replace baseline).
struct FileCosts {
    sets: Vec<(Set, SetTotals)>,
    hunks: Vec<(String, Tally, Tally)>,
}

/// The pre-image lines (1-based, inclusive) a step's window covers, before context.
fn touched(step: &Step) -> (u32, u32) {
    match step.target {
        Target::Lines { first, last } => (first.0, last.0),
        // An insertion after line `l` sits between `l` and `l + 1`.
        Target::After(line) => (line.0, line.0 + 1),
    }
}

/// The read windows (1-based, inclusive) and, for each step, its window's index.
fn windows(steps: &[Step], total: u32) -> (Vec<(u32, u32)>, Vec<usize>) {
    let mut windows: Vec<(u32, u32)> = Vec::new();
    let mut of_step = Vec::with_capacity(steps.len());
    for step in steps {
        let (first, last) = touched(step);
        let start = first.saturating_sub(WINDOW_CONTEXT).max(1);
        let end = (last + WINDOW_CONTEXT).min(total.max(1));
        match windows.last_mut() {
            Some(window) if start <= window.1 + 1 => window.1 = window.1.max(end),
            _ => windows.push((start, end)),
        }
        of_step.push(windows.len() - 1);
    }
    (windows, of_step)
}

#[allow(clippy::too_many_arguments)]
fn file(
    toolbox: &Toolbox,
    counter: &Counter,
    root: &Path,
    name: &str,
    before: &Document,
    pre: &[u8],
    post: &[u8],
    steps: &[Step],
) -> Result<FileCosts> {
    let lines: Vec<String> = before.lines().map(|l| String::from_utf8_lossy(l.content).into_owned()).collect();
    let total = lines.len() as u32;
    let (windows, of_step) = windows(steps, total);
    let per_window = |window: usize| of_step.iter().filter(|&&w| w == window).count() as u64;

    // hashline: the windows through `read`, one `edit` built from what they showed.
    let path = root.join(name);
    std::fs::create_dir_all(path.parent().unwrap_or(root))?;
    std::fs::write(&path, pre)?;
    let session = Session::new(SessionConfig::builder().root(root.to_path_buf()).build())
        .map_err(|err| anyhow::anyhow!("cannot open a session: {}", err.message))?;
    let arg = name.to_owned();
    let ctx = CallContext::top_level();
    let mut anchors: BTreeMap<u32, String> = BTreeMap::new();
    let (mut text, mut structured) = (SetTotals::default(), SetTotals::default());
    let mut window_text_in = Vec::with_capacity(windows.len());
    let mut window_out = Vec::with_capacity(windows.len());
    for &(start, end) in &windows {
        // A window the budget cuts (long lines) is read on from where the read says, as an
        // agent does, until its last line was shown.
        let (mut window_in, mut window_calls_out, mut offset) = (0, 0, start);
        while offset <= end {
            let args = json!({"path": arg, "offset": offset, "limit": end - offset + 1});
            let result = toolbox.execute(&session, "read", args.clone(), &ctx);
            if result.is_error {
                bail!("read refused: {}", result.text());
            }
            let value = result.ptc_value();
            for line in value["lines"].as_array().into_iter().flatten() {
                if let (Some(n), Some(anchor)) = (line["line"].as_u64(), line["anchor"].as_str()) {
                    anchors.insert(n as u32, anchor.to_owned());
                }
            }
            let (shown, json) = (counter.count(&result.text()), counter.count(&value.to_string()));
            let out = counter.count(&args.to_string());
            text.reads_in += shown;
            structured.reads_in += json;
            text.all.add(Tally { input: shown, output: out });
            structured.all.add(Tally { input: json, output: out });
            window_in += shown;
            window_calls_out += out;
            let shown_end = value["range"]["endLine"].as_u64().unwrap_or(u64::from(end)) as u32;
            if shown_end < offset {
                bail!("read of line {offset} showed no line");
            }
            offset = shown_end + 1;
        }
        window_text_in.push(window_in);
        window_out.push(window_calls_out);
    }
    let mut items = Vec::with_capacity(steps.len());
    let mut item_out = Vec::with_capacity(steps.len());
    for step in steps {
        let wanted: Vec<String> = step
            .anchor_lines()
            .iter()
            .map(|line| anchors.get(&line.0).cloned().with_context(|| format!("no read showed line {}", line.0)))
            .collect::<Result<_>>()?;
        let item = step.item(&wanted, false);
        item_out.push(counter.count(&item.to_string()));
        items.push(item);
    }
    let args = json!({"path": arg, "edits": items});
    let result = toolbox.execute(&session, "edit", args.clone(), &ctx);
    if result.is_error {
        bail!("edit refused: {}", result.text());
    }
    let written = std::fs::read(&path)?;
    if !script::same_contents(&written, post) {
        bail!("the edit did not give the post-image");
    }
    let call_out = counter.count(&args.to_string());
    let (shown, json) = (counter.count(&result.text()), counter.count(&result.ptc_value().to_string()));
    text.results_in += shown;
    structured.results_in += json;
    text.all.add(Tally { input: shown, output: call_out });
    structured.all.add(Tally { input: json, output: call_out });
    // What the call costs beyond its items (path, braces), shared by the hunks.
    let call_overhead = call_out.saturating_sub(item_out.iter().sum());
    let hunks = steps.len() as u64;

    // The baselines read the same windows.
    let mut replace = SetTotals::default();
    let mut patch = SetTotals::default();
    let mut window_replace_in = Vec::with_capacity(windows.len());
    for &(start, end) in &windows {
        let shown: Vec<String> =
            (start..=end).filter_map(|n| lines.get(n as usize - 1).map(|line| format!("{n}\t{line}"))).collect();
        let read = counter.count(&shown.join("\n"));
        let read_out = counter.count(
            &json!({"file_path": format!("/project/{name}"), "offset": start, "limit": end - start + 1}).to_string(),
        );
        replace.reads_in += read;
        replace.all.add(Tally { input: read, output: read_out });
        window_replace_in.push((read, read_out));
        let raw: Vec<&str> = (start..=end).filter_map(|n| lines.get(n as usize - 1).map(String::as_str)).collect();
        let sed = counter.count(&raw.join("\n"));
        let sed_out =
            counter.count(&json!({"command": ["bash", "-lc", format!("sed -n '{start},{end}p' {name}")]}).to_string());
        patch.reads_in += sed;
        patch.all.add(Tally { input: sed, output: sed_out });
    }
    let edits = str_replace_edits(&lines, steps);
    let result_in = counter.count(&format!("The file /project/{name} has been updated successfully."));
    let mut hunk_costs = Vec::with_capacity(steps.len());
    for (i, edit) in edits.iter().enumerate() {
        let out = counter.count(&edit.to_string());
        replace.results_in += result_in;
        replace.all.add(Tally { input: result_in, output: out });
        let window = of_step[i];
        let share = per_window(window);
        let hashline = Tally {
            input: window_text_in[window] / share + shown / hunks,
            output: window_out[window] / share + item_out[i] + call_overhead / hunks,
        };
        let (read_in, read_out) = window_replace_in[window];
        let baseline = Tally { input: read_in / share + result_in, output: read_out / share + out };
        let (first, last) = touched(&steps[i]);
        hunk_costs.push((format!("{first}-{last}"), hashline, baseline));
    }
    let patch_text = apply_patch(name, &lines, steps);
    let patch_result = counter.count(&format!("Success. Updated the following files:\nM {name}\n"));
    patch.results_in += patch_result;
    patch.all.add(Tally { input: patch_result, output: counter.count(&patch_text) });

    Ok(FileCosts {
        sets: vec![
            (Set::Hashline, text),
            (Set::HashlineJson, structured),
            (Set::StrReplace, replace),
            (Set::ApplyPatch, patch),
        ],
        hunks: hunk_costs,
    })
}

/// One Edit call's arguments per step, applied in order to the file as it is then: the
/// old lines (none for an insertion) grown by a line of context on each side until the
/// `old_string` occurs once in the file, the same context around the new lines.
fn str_replace_edits(pre: &[String], steps: &[Step]) -> Vec<Value> {
    let mut current: Vec<String> = pre.to_vec();
    let mut shift: i64 = 0;
    let mut edits = Vec::with_capacity(steps.len());
    for step in steps {
        // 0-based, half-open range of the current lines the step replaces.
        let (start, end) = match step.target {
            Target::Lines { first, last } => {
                let at = (i64::from(first.0) - 1 + shift).max(0) as usize;
                (at, at + (last.0 - first.0 + 1) as usize)
            }
            Target::After(line) => {
                let at = (i64::from(line.0) + shift).max(0) as usize;
                (at, at)
            }
        };
        let end = end.min(current.len());
        let start = start.min(end);
        let new_lines: Vec<String> = if step.new_text.is_empty() {
            Vec::new()
        } else {
            step.new_text.strip_suffix('\n').unwrap_or(&step.new_text).split('\n').map(str::to_owned).collect()
        };
        let whole = current.join("\n");
        let mut context = 0usize;
        let (old_string, new_string) = loop {
            let (from, to) = (start.saturating_sub(context), (end + context).min(current.len()));
            let old = current[from..to].join("\n");
            let unique = !old.is_empty() && whole.matches(old.as_str()).count() == 1;
            let everything = from == 0 && to == current.len();
            if unique || everything {
                let mut new: Vec<String> = current[from..start].to_vec();
                new.extend(new_lines.iter().cloned());
                new.extend(current[end..to].iter().cloned());
                break (old, new.join("\n"));
            }
            context += 1;
        };
        edits.push(json!({"file_path": "/project/file", "old_string": old_string, "new_string": new_string}));
        current.splice(start..end, new_lines);
        shift += step.delta;
    }
    edits
}

/// Codex's patch for the file: one `@@` hunk per step with three lines of context on each
/// side (from the pre-image); steps whose contexts would meet share one hunk, the lines
/// between them shown once as context.
fn apply_patch(name: &str, pre: &[String], steps: &[Step]) -> String {
    let ranges: Vec<(usize, usize)> = steps
        .iter()
        .map(|step| match step.target {
            Target::Lines { first, last } => (first.0 as usize - 1, last.0 as usize),
            Target::After(line) => (line.0 as usize, line.0 as usize),
        })
        .map(|(start, end)| (start.min(pre.len()), end.min(pre.len())))
        .collect();
    let meets = |gap: usize| gap <= 2 * PATCH_CONTEXT;
    let mut patch = format!("*** Begin Patch\n*** Update File: {name}\n");
    let context = |patch: &mut String, lines: &[String]| {
        for line in lines {
            patch.push_str(&format!(" {line}\n"));
        }
    };
    for (i, (step, &(start, end))) in steps.iter().zip(&ranges).enumerate() {
        match i.checked_sub(1).map(|p| ranges[p].1) {
            Some(previous_end) if meets(start.saturating_sub(previous_end)) => {
                context(&mut patch, &pre[previous_end.min(start)..start]);
            }
            _ => {
                patch.push_str("@@\n");
                context(&mut patch, &pre[start.saturating_sub(PATCH_CONTEXT)..start]);
            }
        }
        for line in &pre[start..end] {
            patch.push_str(&format!("-{line}\n"));
        }
        if !step.new_text.is_empty() {
            for line in step.new_text.strip_suffix('\n').unwrap_or(&step.new_text).split('\n') {
                patch.push_str(&format!("+{line}\n"));
            }
        }
        let joins_next = ranges.get(i + 1).is_some_and(|&(next, _)| meets(next.saturating_sub(end)));
        if !joins_next {
            context(&mut patch, &pre[end..(end + PATCH_CONTEXT).min(pre.len())]);
        }
    }
    patch.push_str("*** End Patch");
    patch
}

impl Report {
    /// Prints the report; returns the targets not met.
    fn print(&self, definitions: u64) -> Result<Vec<String>> {
        println!(
            "{}: {} commits, {} files, {} hunks (skipped: {})",
            self.repo,
            self.commits,
            self.files,
            self.hunks,
            self.skipped.iter().map(|(r, n)| format!("{r} {n}")).collect::<Vec<_>>().join(", ")
        );
        for failed in &self.failed {
            println!("FAILED {failed}");
        }
        let base = self.sets.get(&Set::StrReplace).copied().unwrap_or_default();
        let ratio = |a: u64, b: u64| if b == 0 { f64::NAN } else { a as f64 / b as f64 };
        println!(
            "| tool set | input tokens (reads; edit results) | output tokens | cost (in + 5 × out) | × str_replace: in / out / cost |"
        );
        println!("|---|---|---|---|---|");
        for set in Set::ALL {
            let t = self.sets.get(&set).copied().unwrap_or_default();
            println!(
                "| {} | {} ({}; {}) | {} | {} | {:.2} / {:.2} / {:.2} |",
                set.label(),
                t.all.input,
                t.reads_in,
                t.results_in,
                t.all.output,
                t.all.cost(),
                ratio(t.all.input, base.all.input),
                ratio(t.all.output, base.all.output),
                ratio(t.all.cost(), base.all.cost())
            );
        }
        let ours = self.sets.get(&Set::Hashline).copied().unwrap_or_default();
        println!(
            "hashline's reads {:.2}× str_replace's, its edit results {:.2}×",
            ratio(ours.reads_in, base.reads_in),
            ratio(ours.results_in, base.results_in)
        );
        let mut worst: Vec<&HunkCost> = self.hunk_costs.iter().collect();
        worst.sort_by(|a, b| {
            ratio(b.hashline.cost(), b.baseline.cost()).total_cmp(&ratio(a.hashline.cost(), a.baseline.cost()))
        });
        println!("the ten hunks where hashline costs most beside str_replace (cost, in + 5 × out):");
        for hunk in worst.iter().take(10) {
            println!(
                "  {} {} lines {}: {} vs {} ({:.2}×; in {} vs {}, out {} vs {})",
                hunk.commit,
                hunk.path,
                hunk.lines,
                hunk.hashline.cost(),
                hunk.baseline.cost(),
                ratio(hunk.hashline.cost(), hunk.baseline.cost()),
                hunk.hashline.input,
                hunk.baseline.input,
                hunk.hashline.output,
                hunk.baseline.output
            );
        }
        let mut failures = Vec::new();
        let cost = ratio(ours.all.cost(), base.all.cost());
        let input = ratio(ours.all.input, base.all.input);
        for (what, value, target, holds) in [
            ("cost-weighted tokens × str_replace", cost, TARGET_COST, cost <= TARGET_COST),
            ("input tokens × str_replace", input, TARGET_INPUT, input <= TARGET_INPUT),
            (
                "tool definitions, tokens",
                definitions as f64,
                TARGET_DEFINITIONS as f64,
                definitions as usize <= TARGET_DEFINITIONS,
            ),
        ] {
            let verdict = if holds { "holds" } else { "NOT MET" };
            println!("target: {what} {value:.2} ≤ {target}: {verdict}");
            if !holds {
                failures.push(format!("{what} {value:.2} > {target}"));
            }
        }
        if self.commits < 200 {
            println!("note: {} commits, fewer than the 200 the targets are stated for", self.commits);
        }
        Ok(failures)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::script::OldLine;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_owned).collect()
    }

    #[test]
    fn an_old_string_grows_until_it_is_unique() {
        let pre = lines("a\nx\nb\nx\nc");
        let step =
            Step { target: Target::Lines { first: OldLine(4), last: OldLine(4) }, new_text: "y\n".into(), delta: 0 };
        let edits = str_replace_edits(&pre, &[step]);
        assert_eq!(edits[0]["old_string"], "b\nx\nc");
        assert_eq!(edits[0]["new_string"], "b\ny\nc");
    }

    #[test]
    fn later_edits_see_the_earlier_ones() {
        let pre = lines("a\nb\nc\nd");
        let steps = [
            Step { target: Target::After(OldLine(1)), new_text: "new\n".into(), delta: 1 },
            Step { target: Target::Lines { first: OldLine(3), last: OldLine(3) }, new_text: "C\n".into(), delta: 0 },
        ];
        let edits = str_replace_edits(&pre, &steps);
        // The insertion needs one line of context; the old line `c` is unique as it is.
        assert_eq!(edits[0]["old_string"], "a\nb");
        assert_eq!(edits[0]["new_string"], "a\nnew\nb");
        assert_eq!(edits[1]["old_string"], "c");
        assert_eq!(edits[1]["new_string"], "C");
    }

    #[test]
    fn windows_merge_where_they_touch() {
        let step = |line| Step {
            target: Target::Lines { first: OldLine(line), last: OldLine(line) },
            new_text: String::new(),
            delta: -1,
        };
        let (windows, of_step) = windows(&[step(5), step(20), step(80)], 100);
        assert_eq!(windows, vec![(1, 30), (70, 90)]);
        assert_eq!(of_step, vec![0, 0, 1]);
    }

    #[test]
    fn near_hunks_share_one_patch_hunk() {
        let pre = lines("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20");
        let set = |line, text: &str| Step {
            target: Target::Lines { first: OldLine(line), last: OldLine(line) },
            new_text: format!("{text}\n"),
            delta: 0,
        };
        let patch = apply_patch("f", &pre, &[set(4, "four"), set(8, "eight"), set(18, "x")]);
        assert_eq!(
            patch,
            "*** Begin Patch\n*** Update File: f\n@@\n 1\n 2\n 3\n-4\n+four\n 5\n 6\n 7\n-8\n+eight\n 9\n 10\n 11\n\
             @@\n 15\n 16\n 17\n-18\n+x\n 19\n 20\n*** End Patch"
        );
    }

    #[test]
    fn a_patch_has_context_and_both_sides() {
        let pre = lines("1\n2\n3\n4\n5\n6\n7\n8");
        let step =
            Step { target: Target::Lines { first: OldLine(5), last: OldLine(5) }, new_text: "five\n".into(), delta: 0 };
        let patch = apply_patch("f.txt", &pre, &[step]);
        assert_eq!(
            patch,
            "*** Begin Patch\n*** Update File: f.txt\n@@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n*** End Patch"
        );
    }
}
