//! `cargo xtask bench`: criterion micro-benchmarks, then whole-command timings of the
//! release CLI beside a reference command on the same input, interleaved run by run so
//! machine noise hits both alike.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

/// Runs everything.
pub fn run(runs: usize, criterion: bool) -> Result<()> {
    let root = workspace_root()?;
    let scratch = tempfile_dir()?;
    let file = scratch.join("ten_k.rs");
    std::fs::write(&file, ten_k_lines()).context("cannot write the bench input")?;
    if criterion {
        let status = Command::new(cargo())
            .args(["bench", "-p", "hashline-core", "--bench", "render"])
            .env("HASHLINE_BENCH_INPUT", &file)
            .current_dir(&root)
            .status()
            .context("cannot run cargo bench")?;
        if !status.success() {
            bail!("cargo bench failed");
        }
    }
    let status = Command::new(cargo())
        .args(["build", "--release", "-p", "hashline-cli"])
        .current_dir(&root)
        .status()
        .context("cannot build the CLI")?;
    if !status.success() {
        bail!("cargo build --release failed");
    }
    let cli = root.join("target/release/hashline");
    let file_arg = file.to_string_lossy().into_owned();
    let root_arg = scratch.to_string_lossy().into_owned();

    println!(
        "\nCLI wall time, {runs} runs each, interleaved (10k-line file, {} bytes):",
        std::fs::metadata(&file)?.len()
    );
    let pairs = measure_pair(
        runs,
        || Command::new("cat").arg(&file_arg).stdout(Stdio::null()).status(),
        || Command::new(&cli).args(["--root", &root_arg, "read", &file_arg]).stdout(Stdio::null()).status(),
    )?;
    report("cat", "hashline read", &pairs);
    std::fs::remove_dir_all(&scratch).ok();
    Ok(())
}

/// Timings of two commands, run alternately.
struct Pair {
    reference: Vec<Duration>,
    ours: Vec<Duration>,
}

fn measure_pair<A, B>(runs: usize, mut reference: A, mut ours: B) -> Result<Pair>
where
    A: FnMut() -> std::io::Result<std::process::ExitStatus>,
    B: FnMut() -> std::io::Result<std::process::ExitStatus>,
{
    let mut pair = Pair { reference: Vec::with_capacity(runs), ours: Vec::with_capacity(runs) };
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        let status = reference()?;
        pair.reference.push(start.elapsed());
        if !status.success() {
            bail!("the reference command failed");
        }
        let start = Instant::now();
        let status = ours()?;
        pair.ours.push(start.elapsed());
        if !status.success() {
            bail!("our command failed");
        }
    }
    Ok(pair)
}

fn report(reference_name: &str, ours_name: &str, pair: &Pair) {
    let (r50, r95) = percentiles(&pair.reference);
    let (o50, o95) = percentiles(&pair.ours);
    println!("  {reference_name:<16} p50 {:>8.3} ms   p95 {:>8.3} ms", ms(r50), ms(r95));
    println!("  {ours_name:<16} p50 {:>8.3} ms   p95 {:>8.3} ms", ms(o50), ms(o95));
    println!("  ratio (p50)      {:.2}x", ms(o50) / ms(r50).max(f64::EPSILON));
}

fn percentiles(samples: &[Duration]) -> (Duration, Duration) {
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
