//! Small-file `read` calls per second over one stdio connection to `hashline mcp`, with
//! latency percentiles (SPEC §11: ≥ 5,000 reads/s).
//!
//! The client is plain Rust over the child's pipes, so its own cost stays small: one
//! thread writes pre-serialized requests, another reads responses and checks each id.
//!
//! - **pipelined**: up to `WINDOW` requests in flight; throughput, and latency under load.
//! - **one at a time**: the next request leaves when the previous answer is in; the
//!   round trip of one call.
//!
//! Build the server first, then run:
//!
//! ```sh
//! cargo build --release -p hashline-cli
//! cargo bench -p hashline-mcp --bench stdio_read
//! ```
//!
//! `HASHLINE_BIN` points at another binary; `READS` sets the pipelined call count;
//! `STRUCTURED=full` serves `structuredContent` too (the server's default is the text alone).

use std::io::{BufRead, BufReader, Write};
use std::process::{ChildStdin, ChildStdout};
use std::sync::mpsc::sync_channel;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

mod support;

/// Small files the reads cycle through.
const FILES: usize = 64;
/// Requests in flight at once in the pipelined run.
const WINDOW: usize = 64;

fn main() {
    let binary = support::server_binary();
    let reads: usize = std::env::var("READS").ok().and_then(|n| n.parse().ok()).unwrap_or(50_000);

    let dir = tempfile::tempdir().expect("tempdir");
    for i in 0..FILES {
        let text: String = (0..20).map(|line| format!("fn item_{i}_{line}() -> usize {{ {line} }}\n")).collect();
        std::fs::write(dir.path().join(format!("f{i}.rs")), text).expect("write");
    }

    let (mut child, mut stdin, mut stdout) = support::start(&binary, dir.path());
    println!("hashline mcp {} — small-file reads ({FILES} files of 20 lines)", binary.display());

    pipelined(&mut stdin, &mut stdout, 2_000, 1_000_000); // warm-up
    let loaded = pipelined(&mut stdin, &mut stdout, reads, 2_000_000);
    report(&format!("pipelined, {WINDOW} in flight"), reads, &loaded);
    let single = one_at_a_time(&mut stdin, &mut stdout, 5_000, 3_000_000);
    report("one at a time", 5_000, &single);

    drop(stdin);
    let status = child.wait().expect("wait");
    assert!(status.success(), "server exit: {status:?}");
}

fn request(id: usize) -> Vec<u8> {
    let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "read", "arguments": {"path": format!("f{}.rs", id % FILES)}}});
    format!("{call}\n").into_bytes()
}

/// The id of a response, after checking it is a successful read of the right file.
fn check(line: &str) -> usize {
    let value: Value = serde_json::from_str(line).expect("response JSON");
    let id = value["id"].as_u64().expect("numeric id") as usize;
    let result = &value["result"];
    assert_eq!(result["isError"], false, "{line}");
    let text = result["content"][0]["text"].as_str().expect("text");
    let first = text.lines().next().unwrap_or_default();
    assert!(first.ends_with(&format!("|fn item_{}_0() -> usize {{ 0 }}", id % FILES)), "id {id} answered with {first}");
    id
}

/// Sends `count` reads with ids from `first`, keeping `WINDOW` in flight; returns each
/// call's latency.
fn pipelined(stdin: &mut ChildStdin, stdout: &mut BufReader<ChildStdout>, count: usize, first: usize) -> Timing {
    let requests: Vec<Vec<u8>> = (first..first + count).map(request).collect();
    let sent_at: Vec<std::sync::OnceLock<Instant>> = (0..count).map(|_| std::sync::OnceLock::new()).collect();
    // One token per answer lets the writer keep exactly WINDOW requests in flight.
    let (answered, tokens) = sync_channel::<()>(count);
    let start = Instant::now();
    let mut latencies = vec![Duration::ZERO; count];
    std::thread::scope(|scope| {
        let sent_at = &sent_at;
        scope.spawn(move || {
            for (i, bytes) in requests.iter().enumerate() {
                if i >= WINDOW {
                    tokens.recv().expect("reader alive");
                }
                let _ = sent_at[i].set(Instant::now());
                stdin.write_all(bytes).expect("send");
                stdin.flush().expect("flush");
            }
        });
        let mut line = String::new();
        for _ in 0..count {
            line.clear();
            stdout.read_line(&mut line).expect("answer");
            let done = Instant::now();
            let index = check(&line) - first;
            latencies[index] = done - *sent_at[index].get().expect("sent before answered");
            let _ = answered.send(());
        }
    });
    Timing { wall: start.elapsed(), latencies }
}

/// Sends `count` reads one after the other.
fn one_at_a_time(stdin: &mut ChildStdin, stdout: &mut BufReader<ChildStdout>, count: usize, first: usize) -> Timing {
    let start = Instant::now();
    let mut latencies = Vec::with_capacity(count);
    let mut line = String::new();
    for id in first..first + count {
        let bytes = request(id);
        let sent = Instant::now();
        stdin.write_all(&bytes).expect("send");
        stdin.flush().expect("flush");
        line.clear();
        stdout.read_line(&mut line).expect("answer");
        latencies.push(sent.elapsed());
        assert_eq!(check(&line), id);
    }
    Timing { wall: start.elapsed(), latencies }
}

struct Timing {
    wall: Duration,
    latencies: Vec<Duration>,
}

fn report(name: &str, count: usize, timing: &Timing) {
    let mut sorted = timing.latencies.clone();
    sorted.sort_unstable();
    let at = |p: f64| sorted[((sorted.len() as f64 * p) as usize).min(sorted.len() - 1)];
    let micros = |d: Duration| d.as_secs_f64() * 1e6;
    println!(
        "{name:>26}: {count} reads in {:.2} s = {:>8.0} reads/s   p50 {:>7.1} µs   p95 {:>7.1} µs   p99 {:>7.1} µs",
        timing.wall.as_secs_f64(),
        count as f64 / timing.wall.as_secs_f64(),
        micros(at(0.50)),
        micros(at(0.95)),
        micros(at(0.99)),
    );
}
