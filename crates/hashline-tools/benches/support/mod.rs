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
    interleaved_samples(rounds, ops).into_iter().map(median).collect()
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

/// Lines of the generated C file (the size of the file issue 23 measured).
pub const C_LINES: usize = 11_569;

/// A C source of [`C_LINES`] lines as a person writes it: includes, macros, `#ifdef`
/// blocks, structs, enums, and functions with loops, switches, string literals and
/// comments, all valid C (the syntax check finds nothing in it).
pub fn generated_c() -> String {
    let mut lines: Vec<String> = vec![
        "/* Generated for the syntax-check benches: a driver-like C file. */".into(),
        "#include <stdio.h>".into(),
        "#include <stdlib.h>".into(),
        "#include <string.h>".into(),
        String::new(),
        "#define MAX_ITEMS 128".into(),
        "#define CLAMP(x, lo, hi) ((x) < (lo) ? (lo) : ((x) > (hi) ? (hi) : (x)))".into(),
        String::new(),
    ];
    let mut k = 0u32;
    while lines.len() < C_LINES {
        let block: Vec<String> = match k % 4 {
            0 => vec![
                format!("/* Device state {k}: what the driver keeps between calls. */"),
                format!("struct device_{k} {{"),
                "    int id;".into(),
                "    unsigned long flags;".into(),
                "    char name[32];".into(),
                format!("    struct device_{k} *next;"),
                "};".into(),
                String::new(),
                format!("enum state_{k} {{ STATE_{k}_IDLE, STATE_{k}_BUSY = 4, STATE_{k}_DONE }};"),
                String::new(),
            ],
            1 => vec![
                format!("static int probe_{k}(struct device_{} *dev, const char *label)", k - 1),
                "{".into(),
                "    int i, total = 0;".into(),
                "    if (dev == NULL || label == NULL) {".into(),
                "        return -1;".into(),
                "    }".into(),
                "    for (i = 0; i < MAX_ITEMS; i++) {".into(),
                format!("        total += CLAMP(i * {k}, 0, 4096); // bounded step"),
                "    }".into(),
                format!("    snprintf(dev->name, sizeof dev->name, \"dev-%d \\\"%s\\\"\", {k}, label);"),
                "    return total;".into(),
                "}".into(),
                String::new(),
            ],
            2 => vec![
                format!("#ifdef CONFIG_FEATURE_{k}"),
                format!("static const char *names_{k}[] = {{ \"alpha\", \"beta\", \"gamma\" }};"),
                "#else".into(),
                format!("static const char *names_{k}[] = {{ \"none\" }};"),
                "#endif".into(),
                String::new(),
            ],
            _ => vec![
                format!("int handle_{k}(int code, void *arg)"),
                "{".into(),
                "    switch (code) {".into(),
                "    case 0:".into(),
                "        return 0;".into(),
                "    case 1: {".into(),
                "        long *p = (long *)arg;".into(),
                "        while (*p > 0) {".into(),
                "            *p >>= 1;".into(),
                "        }".into(),
                "        break;".into(),
                "    }".into(),
                "    default:".into(),
                format!("        fprintf(stderr, \"unknown code %d in handle_{k}\\n\", code);"),
                "        return -22;".into(),
                "    }".into(),
                "    return 1;".into(),
                "}".into(),
                String::new(),
            ],
        };
        lines.extend(block);
        k += 1;
    }
    lines.truncate(C_LINES);
    // Never end inside a block: close what the last block opened.
    while lines.last().is_some_and(|l| !l.is_empty()) {
        lines.pop();
    }
    let mut pad = 0;
    while lines.len() < C_LINES {
        pad += 1;
        lines.push(format!("/* end of the generated driver, note {pad} */"));
    }
    lines.iter().flat_map(|l| [l.as_str(), "\n"]).collect()
}

/// Every round's wall time of several operations run in turn (as [`interleaved`]), one
/// vector per operation, so that spreads can be reported beside medians.
pub fn interleaved_samples(rounds: usize, ops: &mut [&mut dyn FnMut() -> Duration]) -> Vec<Vec<Duration>> {
    for op in ops.iter_mut() {
        op();
    }
    let mut times: Vec<Vec<Duration>> = ops.iter().map(|_| Vec::with_capacity(rounds)).collect();
    for _ in 0..rounds.max(1) {
        for (op, times) in ops.iter_mut().zip(&mut times) {
            times.push(op());
        }
    }
    times
}

/// Prints `what: ours / reference` as the ratio of the medians, with the spread of the
/// per-round ratios (their 10th to 90th percentile), beside the target.
pub fn spread_line(what: &str, ours: &[Duration], reference: &[Duration], target: f64) {
    let (a, b) = (median(ours.to_vec()), median(reference.to_vec()));
    let ratio = a.as_secs_f64() / b.as_secs_f64().max(f64::EPSILON);
    let mut rounds: Vec<f64> =
        ours.iter().zip(reference).map(|(x, y)| x.as_secs_f64() / y.as_secs_f64().max(f64::EPSILON)).collect();
    rounds.sort_by(f64::total_cmp);
    let at = |q: f64| rounds[((rounds.len() - 1) as f64 * q).round() as usize];
    let verdict = if ratio <= target { "met" } else { "NOT met" };
    println!(
        "  {what:<52} {:>8.3} ms / {:>8.3} ms = {ratio:>5.2}x (rounds p10-p90 {:.2}-{:.2}x)   target ≤ {target}x: {verdict}",
        ms(a),
        ms(b),
        at(0.1),
        at(0.9)
    );
}

/// The load average (1, 5 and 15 minutes), for the record beside a measurement.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".to_owned())
}
