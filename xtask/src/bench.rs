//! `cargo xtask bench`: criterion micro-benchmarks (row rendering, the edit engine, the
//! in-process edit tool, symbol maps and the syntax check), then whole-command timings of the release CLI beside reference
//! commands on the same input, interleaved run by run so machine noise hits all alike:
//! `hashline read` beside `cat`, and one anchored durable `hashline edit` beside
//! `hashline read`, `sed -i` and `cp` + `sync`, and an edit followed by the read of its
//! result (an agent's loop). Each ratio is printed beside its target.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

/// What `cargo xtask bench` runs.
pub struct Options<'a> {
    /// Process runs per measured CLI command.
    pub runs: usize,
    /// Runs per command of the search comparisons.
    pub search_runs: usize,
    /// Runs per command of the ast_search comparisons.
    pub ast_runs: usize,
    /// Run the criterion benches first.
    pub criterion: bool,
    /// Only the search comparisons.
    pub search_only: bool,
    /// Skip the search comparisons.
    pub search: bool,
    /// Time this CLI binary instead of building the workspace's release CLI (e.g. another
    /// checkout's build, for a before/after run).
    pub cli: Option<&'a Path>,
}

/// Runs everything (with `search_only`, only the search comparisons of `bench_search`).
pub fn run(options: &Options<'_>) -> Result<()> {
    let Options { runs, search_runs, ast_runs, criterion, search_only, search, cli } = *options;
    let root = workspace_root()?;
    // The benchmarked processes keep their sessions, maps and journal key in a state
    // directory of this run's own (issue 21: they were left under the user's).
    let state = tempfile::tempdir().context("cannot make a state directory for the bench")?;
    // SAFETY: set before any thread of this process starts (xtask is single-threaded here).
    unsafe { std::env::set_var("XDG_STATE_HOME", state.path()) };
    if search_only {
        let cli = release_cli(&root)?;
        return crate::bench_search::run(&root, &cli, search_runs, ast_runs);
    }
    let scratch = tempfile_dir()?;
    let file = scratch.join("ten_k.rs");
    std::fs::write(&file, ten_k_lines()).context("cannot write the bench input")?;
    let cli = match cli {
        Some(cli) => cli.to_path_buf(),
        None => release_cli(&root)?,
    };
    if criterion {
        for args in CRITERION_BENCHES {
            let status = Command::new(cargo())
                .arg("bench")
                .args(*args)
                .env("HASHLINE_BENCH_INPUT", &file)
                // The MCP benches talk to this server binary.
                .env("HASHLINE_BIN", &cli)
                .current_dir(&root)
                .status()
                .context("cannot run cargo bench")?;
            if !status.success() {
                bail!("cargo bench {} failed", args.join(" "));
            }
        }
        criterion_targets(&root, std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0));
    }
    cli_timings(&cli, &scratch, &file, runs)?;
    std::fs::remove_dir_all(&scratch).ok();
    if !search {
        return Ok(());
    }
    crate::bench_search::run(&root, &cli, search_runs, ast_runs)
}

/// The CLI's wall times, interleaved run by run: `hashline read` beside `cat`; then one
/// anchored durable `hashline edit` beside `hashline read`, `sed -i` of the same line (no
/// sync) and `cp` + `sync` of the file (the cost of writing it durably by hand). Every
/// write starts from the pristine bytes, restored outside the timed region.
fn cli_timings(cli: &Path, scratch: &Path, file: &Path, runs: usize) -> Result<()> {
    let file_arg = file.to_string_lossy().into_owned();
    let root_arg = scratch.to_string_lossy().into_owned();
    println!(
        "\nCLI wall time, {runs} runs each, interleaved (10k-line file, {} bytes; load average {}):",
        std::fs::metadata(file)?.len(),
        load_average()
    );
    let read_command = || {
        let mut command = Command::new(cli);
        command.args(["--root", &root_arg, "read", &file_arg]);
        command
    };
    let text = scratch.join("ten_k.txt");
    std::fs::copy(file, &text).context("cannot write the .txt copy")?;
    let text_arg = text.to_string_lossy().into_owned();
    let mut cat = || timed(Command::new("cat").arg(&file_arg));
    let mut read = || timed(&mut read_command());
    let mut read_text = || timed(Command::new(cli).args(["--root", &root_arg, "read", &text_arg]));
    let times = measure_interleaved(runs, &mut [&mut cat, &mut read, &mut read_text])?;
    report_set(&["cat", "hashline read", "hashline read .txt"], &times);
    target_ratio("hashline read / cat", &times[1], &times[0], READ_TARGET);
    ratio_line("read of the .txt copy (no structural map) / cat", &times[2], &times[0]);

    let pristine = scratch.join("ten_k.pristine");
    std::fs::copy(file, &pristine).context("cannot keep a pristine copy")?;
    let restore = |to: &Path| std::fs::copy(&pristine, to).map(drop).context("cannot restore the bench input");
    let edits = one_edit(&std::fs::read(file)?, EDIT_LINE)?;
    let sed_script = format!("{EDIT_LINE}s/.*/let edited = 1;/");
    let copy = scratch.join("ten_k.copy.rs");
    let copy_arg = copy.to_string_lossy().into_owned();
    let pristine_arg = pristine.to_string_lossy().into_owned();
    // The same bytes as plain text: no structural map, no syntax check.
    let text = scratch.join("ten_k.txt");
    let text_arg = text.to_string_lossy().into_owned();
    println!(
        "\nCLI wall time, {runs} runs each, interleaved (one set_line at line {EDIT_LINE}; load average {}):",
        load_average()
    );
    let run_cli = |args: &[&str]| timed(Command::new(cli).args(["--root", &root_arg]).args(args));
    // Untimed, before each edit: a read of the rows around the edited line, so that the
    // session has seen the row the anchor names as it is now (the full read shows only
    // the first 50 KB, and the previous round's edit left its own row in the ledger).
    let window = format!("{}", EDIT_LINE - 2);
    let show_row = |path: &str| run_cli(&["read", path, "--offset", &window, "--limit", "5"]).map(drop);
    let mut read = || {
        restore(file)?;
        run_cli(&["read", &file_arg])
    };
    let mut edit = || {
        restore(file)?;
        show_row(&file_arg)?;
        run_cli(&["edit", &file_arg, "--edits", &edits])
    };
    let mut sed = || {
        restore(file)?;
        timed(Command::new("sed").args(["-i", &sed_script, &file_arg]))
    };
    let mut cp_sync = || {
        std::fs::remove_file(&copy).ok();
        let cp = timed(Command::new("cp").args([&pristine_arg, &copy_arg]))?;
        Ok(cp + timed(Command::new("sync").arg(&copy_arg))?)
    };
    let mut read_text = || {
        restore(&text)?;
        run_cli(&["read", &text_arg])
    };
    let mut edit_text = || {
        restore(&text)?;
        show_row(&text_arg)?;
        run_cli(&["edit", &text_arg, "--edits", &edits])
    };
    // An agent's loop on the code file: its full read (untimed), the edit, then the full read
    // of what the edit wrote (both timed): what the edit keeps for the next call shows here.
    // A copy of its own, so that its versions do not displace the other commands' cache
    // entries.
    let looped = scratch.join("ten_k.loop.rs");
    let looped_arg = looped.to_string_lossy().into_owned();
    let mut edit_read = || {
        restore(&looped)?;
        run_cli(&["read", &looped_arg])?;
        show_row(&looped_arg)?;
        Ok(run_cli(&["edit", &looped_arg, "--edits", &edits])? + run_cli(&["read", &looped_arg])?)
    };
    let times = measure_interleaved(
        runs,
        &mut [&mut read, &mut edit, &mut sed, &mut cp_sync, &mut read_text, &mut edit_text, &mut edit_read],
    )?;
    report_set(
        &[
            "hashline read",
            "hashline edit",
            "sed -i (no sync)",
            "cp + sync",
            "hashline read .txt",
            "hashline edit .txt",
            "edit + read after it",
        ],
        &times,
    );
    target_ratio("hashline edit / hashline read", &times[1], &times[0], EDIT_TARGET);
    ratio_line("hashline edit / sed -i", &times[1], &times[2]);
    ratio_line("hashline edit / cp + sync", &times[1], &times[3]);
    ratio_line("cp + sync / sed -i (the cost of one sync)", &times[3], &times[2]);
    ratio_line("edit / read of the .txt copy (no syntax check, no map)", &times[5], &times[4]);
    ratio_line("edit + the read after it (an agent's loop) / hashline read", &times[6], &times[0]);
    Ok(())
}

/// Runs every command once per round, in order, `runs` rounds; each returns the wall time
/// of its timed part. The times, command by command.
fn measure_interleaved(
    runs: usize,
    commands: &mut [&mut dyn FnMut() -> Result<Duration>],
) -> Result<Vec<Vec<Duration>>> {
    let mut times = vec![Vec::with_capacity(runs); commands.len()];
    for _ in 0..runs.max(1) {
        for (command, samples) in commands.iter_mut().zip(&mut times) {
            samples.push(command()?);
        }
    }
    Ok(times)
}

fn report_set(names: &[&str], times: &[Vec<Duration>]) {
    for (name, samples) in names.iter().zip(times) {
        let (p50, p95) = percentiles(samples);
        println!("  {name:<20} p50 {:>8.3} ms   p95 {:>8.3} ms", ms(p50), ms(p95));
    }
}

fn ratio_of(ours: &[Duration], reference: &[Duration]) -> f64 {
    ms(percentiles(ours).0) / ms(percentiles(reference).0).max(f64::EPSILON)
}

fn ratio_line(what: &str, ours: &[Duration], reference: &[Duration]) {
    println!("  ratio (p50)          {:.2}x   {what}", ratio_of(ours, reference));
}

/// Prints a p50 ratio beside its SPEC §11 target.
fn target_ratio(what: &str, ours: &[Duration], reference: &[Duration], target: f64) {
    let ratio = ratio_of(ours, reference);
    let verdict = if ratio <= target { "met" } else { "NOT met" };
    println!("  ratio (p50)          {ratio:.2}x   {what}   target ≤ {target:.1}x: {verdict}");
}

/// The 1-, 5- and 15-minute load averages (`/proc/loadavg`), or `unknown`.
pub(crate) fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|text| text.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| "unknown".to_owned())
}

/// Builds the release CLI and returns its path.
fn release_cli(root: &Path) -> Result<PathBuf> {
    let status = Command::new(cargo())
        .args(["build", "--release", "-p", "hashline-cli"])
        .current_dir(root)
        .status()
        .context("cannot build the CLI")?;
    if !status.success() {
        bail!("cargo build --release failed");
    }
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    Ok(target.join("release/hashline"))
}

/// `cargo bench` arguments of each criterion bench, run with `HASHLINE_BENCH_INPUT` set.
const CRITERION_BENCHES: &[&[&str]] = &[
    &["-p", "hashline-core", "--bench", "render", "--bench", "edit"],
    &["-p", "hashline-tools", "--bench", "edit_tool"],
    // SPEC §11 symbol and syntax targets; prints its ratios after the criterion figures.
    &["-p", "hashline-tools", "--bench", "symbols_syntax"],
    // Not criterion: the bounded MCP-over-HTTP load test (loopback; SESSIONS, SECS).
    &["-p", "hashline-mcp", "--bench", "http_load"],
    // Not criterion: what the protocol costs, MCP read and edit beside the in-process tool
    // (issue 23; ROUNDS).
    &["-p", "hashline-mcp", "--bench", "mcp_calls"],
];

/// SPEC §11: a CLI read of a 10k-line file, as a multiple of `cat` of it.
const READ_TARGET: f64 = 1.5;
/// SPEC §11: one durable anchored CLI edit of a 10k-line file, as a multiple of the CLI's
/// read of it.
const EDIT_TARGET: f64 = 2.0;
/// The 1-based line the timed edit replaces (mid-file).
const EDIT_LINE: usize = 5_000;

/// The `--edits` argument of one `set_line` on `line` (1-based), anchored by the hash of
/// that line of `bytes` as a read would show it.
fn one_edit(bytes: &[u8], line: usize) -> Result<String> {
    let doc = hashline::core::Document::parse(bytes.to_vec());
    let number = hashline::core::LineNo::new(u32::try_from(line)?).context("line numbers start at 1")?;
    let shown = doc.line(number).context("the bench input is shorter than the edited line")?;
    let anchor = hashline::core::Anchor::new(shown.number, shown.hash());
    let edits = serde_json::json!([{ "set_line": { "anchor": anchor.to_string(), "new_text": "let edited = 1;" } }]);
    Ok(edits.to_string())
}

/// Runs a command (output discarded) and returns its wall time; fails when it fails.
pub(crate) fn timed(command: &mut Command) -> Result<Duration> {
    let start = Instant::now();
    let status = command.stdout(Stdio::null()).status().context("cannot start a measured command")?;
    let elapsed = start.elapsed();
    if !status.success() {
        bail!("{command:?} failed with {status}");
    }
    Ok(elapsed)
}

/// Timings of two commands, run alternately.
pub(crate) struct Pair {
    pub reference: Vec<Duration>,
    pub ours: Vec<Duration>,
}

/// Runs `reference` then `ours`, `runs` times; each returns the wall time of its timed part.
pub(crate) fn measure_pair<A, B>(runs: usize, mut reference: A, mut ours: B) -> Result<Pair>
where
    A: FnMut() -> Result<Duration>,
    B: FnMut() -> Result<Duration>,
{
    let mut pair = Pair { reference: Vec::with_capacity(runs), ours: Vec::with_capacity(runs) };
    for _ in 0..runs.max(1) {
        pair.reference.push(reference()?);
        pair.ours.push(ours()?);
    }
    Ok(pair)
}

pub(crate) fn report(reference_name: &str, ours_name: &str, pair: &Pair) {
    let (r50, r95) = percentiles(&pair.reference);
    let (o50, o95) = percentiles(&pair.ours);
    println!("  {reference_name:<16} p50 {:>8.3} ms   p95 {:>8.3} ms", ms(r50), ms(r95));
    println!("  {ours_name:<16} p50 {:>8.3} ms   p95 {:>8.3} ms", ms(o50), ms(o95));
    println!("  ratio (p50)      {:.2}x   {ours_name} / {reference_name}", ms(o50) / ms(r50).max(f64::EPSILON));
}

pub(crate) fn percentiles(samples: &[Duration]) -> (Duration, Duration) {
    let mut sorted = samples.to_vec();
    sorted.sort();
    let at = |q: f64| sorted[((sorted.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.95))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// A 10k-line source-like text with varied lengths and indentation.
fn ten_k_lines() -> String {
    let mut out = String::new();
    for i in 0..10_000u32 {
        let indent = "    ".repeat((i % 4) as usize);
        match i % 5 {
            0 => out.push_str(&format!("{indent}fn item_{i}(value: u32) -> Result<u32, Error> {{\n")),
            1 => out.push_str(&format!("{indent}let total = value.checked_mul({i}).ok_or(Error::Overflow)?;\n")),
            2 => out.push_str(&format!("{indent}// explains step {i} of the computation in a sentence\n")),
            3 => out.push('\n'),
            _ => out.push_str(&format!("{indent}}}\n")),
        }
    }
    out
}

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned())
}

fn workspace_root() -> Result<PathBuf> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().map(Path::to_path_buf).context("xtask has no parent directory")
}

fn tempfile_dir() -> Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("hashline-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).context("cannot create a scratch directory")?;
    Ok(dir)
}

/// Issue 12's in-process targets from the criterion run just made (its median estimates in
/// `target/criterion/`; the benches ran one after the other, not interleaved): row rendering
/// in bytes per second, and the whole `edit` tool beside the engine alone (both from the
/// `edit_tool` bench binary, one invocation: the `--json` line, MCP's value, `execute`
/// alone, and the text-only call); and a 20-row window of a 2^20-line file by the lazy
/// line index beside the same window after splitting the document, and the full read.
fn criterion_targets(root: &Path, input_bytes: u64) {
    println!("\nIn-process targets (criterion medians of the run above; {input_bytes} bytes of input):");
    for line in target_lines(&root.join("target/criterion"), input_bytes) {
        println!("  {line}");
    }
}

/// The lines [`criterion_targets`] prints, from the estimates under `dir`.
fn target_lines(dir: &Path, input_bytes: u64) -> Vec<String> {
    let median = |bench: &str| -> Option<f64> {
        let text = std::fs::read_to_string(dir.join(bench).join("new/estimates.json")).ok()?;
        let value: serde_json::Value = serde_json::from_str(&text).ok()?;
        value["median"]["point_estimate"].as_f64().filter(|ns| *ns > 0.0)
    };
    let mut lines = Vec::new();
    for (bench, what, target) in [
        ("render/render_parsed_10k_lines", "row rendering, render only", 1.0),
        ("render/parse_and_render_10k_lines", "row rendering, parse + render", 0.7),
    ] {
        lines.push(match median(bench) {
            Some(ns) => {
                let rate = input_bytes as f64 / ns;
                let verdict = if rate >= target { "met" } else { "NOT met" };
                format!("{what:<44} {rate:>7.3} GB/s   target ≥ {target:.1} GB/s: {verdict}")
            }
            None => format!("{what:<44} (no criterion estimate for {bench})"),
        });
    }
    // The engine as measured in the tool's own bench binary, in the same invocation.
    let engine = median("edit_tool/engine_apply_1000_edits_100k_lines");
    for (bench, what) in [
        ("edit_tool/tool_1000_edits_100k_lines_syntax_off_json_line", "edit tool (--json line) / engine, 1000 edits"),
        ("edit_tool/tool_1000_edits_100k_lines_syntax_off_mcp", "edit tool (MCP value) / engine, 1000 edits"),
        ("edit_tool/tool_1000_edits_100k_lines_syntax_off", "edit tool (execute) / engine, 1000 edits"),
        ("edit_tool/tool_1000_edits_100k_lines_syntax_off_text_only", "edit tool (text only) / engine, 1000 edits"),
    ] {
        lines.push(match (median(bench), engine) {
            (Some(tool), Some(engine)) => {
                let ratio = tool / engine;
                let verdict = if ratio <= 2.0 { "met" } else { "NOT met" };
                format!(
                    "{what:<46} {ratio:>7.2}x   ({:.2} ms / {:.2} ms, the tool's durable write included)   target ≤ 2.0x: {verdict}",
                    tool / 1e6,
                    engine / 1e6
                )
            }
            _ => format!("{what:<46} (no criterion estimate for {bench} or the engine)"),
        });
    }
    // A window of a large file beside the reads that split the whole document (issue 21;
    // one bench invocation, `render`'s `window` group).
    let lazy = median("window/lazy_index_20_rows_of_1m_lines");
    for (bench, what) in [
        ("window/parsed_document_20_rows_of_1m_lines", "20-row window: split document / lazy index"),
        ("window/full_read_1m_lines", "full read / 20-row window by lazy index"),
    ] {
        lines.push(match (median(bench), lazy) {
            (Some(other), Some(lazy)) => {
                format!("{what:<46} {:>7.1}x   ({:.2} ms / {:.2} ms)", other / lazy, other / 1e6, lazy / 1e6)
            }
            _ => format!("{what:<46} (no criterion estimate for {bench} or the lazy window)"),
        });
    }
    lines
}

#[cfg(test)]
mod target_tests {
    use super::target_lines;

    #[test]
    fn targets_are_read_from_criterion_medians() {
        let dir = tempfile::tempdir().expect("tempdir");
        let put = |bench: &str, ns: f64| {
            let at = dir.path().join(bench).join("new");
            std::fs::create_dir_all(&at).expect("mkdir");
            std::fs::write(at.join("estimates.json"), format!(r#"{{"median": {{"point_estimate": {ns}}}}}"#))
                .expect("write");
        };
        put("render/render_parsed_10k_lines", 250_000.0);
        put("render/parse_and_render_10k_lines", 1_000_000.0);
        put("edit_tool/engine_apply_1000_edits_100k_lines", 10e6);
        put("edit_tool/tool_1000_edits_100k_lines_syntax_off_json_line", 50e6);
        put("edit_tool/tool_1000_edits_100k_lines_syntax_off_text_only", 15e6);
        put("window/lazy_index_20_rows_of_1m_lines", 2e6);
        put("window/parsed_document_20_rows_of_1m_lines", 13e6);
        let lines = target_lines(dir.path(), 500_000);
        assert!(lines[0].contains("2.000 GB/s") && lines[0].ends_with(": met"), "{lines:?}");
        assert!(lines[1].contains("0.500 GB/s") && lines[1].ends_with("NOT met"), "{lines:?}");
        assert!(lines[2].contains("5.00x") && lines[2].ends_with("NOT met"), "{lines:?}");
        assert!(lines[3].contains("no criterion estimate"), "{lines:?}");
        assert!(lines[5].contains("1.50x") && lines[5].ends_with(": met"), "{lines:?}");
        assert!(lines[6].contains("6.5x") && lines[6].ends_with("(13.00 ms / 2.00 ms)"), "{lines:?}");
        assert!(lines[7].contains("no criterion estimate"), "{lines:?}");
    }
}
