//! What the benches share: the 10k-line input `cargo xtask bench` writes, and the
//! interleaved ratio measurement printed beside each SPEC §11 target.

use std::time::{Duration, Instant};

/// The lines of the file named by `HASHLINE_BENCH_INPUT` (`cargo xtask bench` writes a
/// 10k-line file and sets it), else the same 10k-line text generated here.
pub fn ten_k_lines() -> String {
    match std::env::var_os("HASHLINE_BENCH_INPUT") {
        Some(path) => std::fs::read_to_string(path).expect("HASHLINE_BENCH_INPUT names a readable UTF-8 file"),
        None => generated_ten_k(),
    }
}

/// xtask's bench input: 2,000 functions of five lines at varied indentation.
fn generated_ten_k() -> String {
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

/// Median wall times of several operations run in turn, round by round (so that machine
/// noise hits all alike), `rounds` times after one warm-up round. Each operation times
/// its own measured part (set-up outside it is not counted).
pub fn interleaved(rounds: usize, ops: &mut [&mut dyn FnMut() -> Duration]) -> Vec<Duration> {
    for op in ops.iter_mut() {
        op();
    }
    let mut times: Vec<Vec<Duration>> = ops.iter().map(|_| Vec::with_capacity(rounds)).collect();
    for _ in 0..rounds.max(1) {
        for (op, times) in ops.iter_mut().zip(&mut times) {
            times.push(op());
        }
    }
    times.into_iter().map(median).collect()
}

/// Times one call.
pub fn timed(op: impl FnOnce()) -> Duration {
    let start = Instant::now();
    op();
    start.elapsed()
}

/// Whether the bench runs as a benchmark (`cargo bench`), not as a test of itself.
pub fn benchmarking() -> bool {
    std::env::args().any(|a| a == "--bench")
}

/// The median of some timings.
pub fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// Prints `what: ratio (ours / reference) beside the target`.
pub fn ratio_line(what: &str, ours: Duration, reference: Duration, reference_name: &str, target: f64) {
    let ratio = ours.as_secs_f64() / reference.as_secs_f64().max(f64::EPSILON);
    let verdict = if ratio <= target { "met" } else { "NOT met" };
    println!(
        "  {what:<44} {:>9.3} ms / {reference_name} {:>9.3} ms = {ratio:>5.2}x   target ≤ {target}x: {verdict}",
        ms(ours),
        ms(reference)
    );
}

/// Prints `what: time beside the target`.
pub fn time_line(what: &str, ours: Duration, target: Duration) {
    let verdict = if ours <= target { "met" } else { "NOT met" };
    println!("  {what:<44} {:>9.4} ms   target ≤ {} ms: {verdict}", ms(ours), ms(target));
}

/// Milliseconds.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
