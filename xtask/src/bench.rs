//! `cargo xtask bench`: criterion micro-benchmarks (row rendering, the edit engine, the
//! in-process edit tool, symbol maps and the syntax check), then whole-command timings of
//! the release CLI beside a reference command on the same input, interleaved run by run so
//! machine noise hits both alike:
//! `hashline read` beside `cat`, and one anchored `hashline edit` beside `hashline read`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

/// Runs everything (with `search_only`, only the search comparisons of `bench_search`).
pub fn run(runs: usize, search_runs: usize, ast_runs: usize, criterion: bool, search_only: bool) -> Result<()> {
    let root = workspace_root()?;
    if search_only {
        let cli = release_cli(&root)?;
        return crate::bench_search::run(&root, &cli, search_runs, ast_runs);
    }
    let scratch = tempfile_dir()?;
    let file = scratch.join("ten_k.rs");
    std::fs::write(&file, ten_k_lines()).context("cannot write the bench input")?;
    if criterion {
        for args in CRITERION_BENCHES {
            let status = Command::new(cargo())
                .arg("bench")
                .args(*args)
                .env("HASHLINE_BENCH_INPUT", &file)
                .current_dir(&root)
                .status()
                .context("cannot run cargo bench")?;
            if !status.success() {
                bail!("cargo bench {} failed", args.join(" "));
            }
        }
    }
    let cli = release_cli(&root)?;
    let file_arg = file.to_string_lossy().into_owned();
    let root_arg = scratch.to_string_lossy().into_owned();

    println!(
        "\nCLI wall time, {runs} runs each, interleaved (10k-line file, {} bytes):",
        std::fs::metadata(&file)?.len()
    );
    let cat = || timed(Command::new("cat").arg(&file_arg));
    let read = || timed(Command::new(&cli).args(["--root", &root_arg, "read", &file_arg]));
    let pair = measure_pair(runs, cat, read)?;
    report("cat", "hashline read", &pair);
    target("read p50", percentiles(&pair.ours).0, READ_TARGET);

    // One anchored edit beside a read of the same file; every edit starts from the pristine
    // bytes (restored outside the timed region), so every run does the same work.
    let pristine = scratch.join("ten_k.pristine");
    std::fs::copy(&file, &pristine).context("cannot keep a pristine copy")?;
    let edits = one_edit(&std::fs::read(&file)?, EDIT_LINE)?;
    println!("\nCLI wall time, {runs} runs each, interleaved (one set_line at line {EDIT_LINE}, atomic write):");
    let read_restored = || {
        std::fs::copy(&pristine, &file).context("cannot restore the bench input")?;
        read()
    };
    let edit = || timed(Command::new(&cli).args(["--root", &root_arg, "edit", &file_arg, "--edits", &edits]));
    let pair = measure_pair(runs, read_restored, edit)?;
    report("hashline read", "hashline edit", &pair);
    target("edit p50", percentiles(&pair.ours).0, EDIT_TARGET);
    std::fs::remove_dir_all(&scratch).ok();
    crate::bench_search::run(&root, &cli, search_runs, ast_runs)
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
];

/// SPEC §11: a CLI read of a 10k-line file.
const READ_TARGET: Duration = Duration::from_millis(2);
/// SPEC §11: one anchored CLI edit of a 10k-line file.
const EDIT_TARGET: Duration = Duration::from_millis(5);
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

fn target(what: &str, measured: Duration, target: Duration) {
    let verdict = if measured <= target { "met" } else { "NOT met" };
    println!("  target           {what} {:.3} ms vs ≤ {:.0} ms: {verdict}", ms(measured), ms(target));
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
