//! What the protocol costs (issue 23): one MCP `read` of a 1,400-line window and one MCP
//! `edit` (syntax check on, after a read in the session) of an 11,570-line C file over a warm
//! stdio connection to `hashline mcp`, each beside the same tool called in process
//! (`Toolbox::execute` on a stateful session, as the server runs it, without the protocol);
//! and the MCP edit with the check on beside the same edit with the check off.
//!
//! Every round runs each of the six calls once, in turn (A B C … A B C …), so machine noise
//! hits all alike; the figures are medians with the p10–p90 spread, and the ratios are of
//! medians. Targets: MCP read ≤ 1.3× the in-process read; MCP edit with the check on ≤ 1.5×
//! the same MCP edit with the check off.
//!
//! ```sh
//! cargo build --release -p hashline-cli
//! cargo bench -p hashline-mcp --bench mcp_calls
//! ```
//!
//! `HASHLINE_BIN` points at another binary; `ROUNDS` sets the rounds (default 200); `SETTLE_MS`
//! pauses (uncounted) after each call; `CALLS=read`
//! runs only the reads; `STRUCTURED=full` serves `structuredContent` too (the server's
//! default is the text alone).

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout};
use std::time::{Duration, Instant};

use hashline::core::LineHash;
use hashline::{CallContext, Session, SessionConfig, ToolResult, Toolbox};
use serde_json::{Value, json};

mod support;

/// The file's functions (ten lines each).
const FUNCTIONS: usize = 1157;
/// The read window.
const WINDOW: (u32, u32) = (2001, 1400);
/// The line every edit replaces (`\tint x = a + b;` of a function).
const EDIT_LINE: usize = 5005;
/// The target ratios.
const READ_TARGET: f64 = 1.3;
const CHECK_TARGET: f64 = 1.5;

fn main() {
    let binary = support::server_binary();
    let rounds: usize = std::env::var("ROUNDS").ok().and_then(|n| n.parse().ok()).unwrap_or(200);
    // `CALLS=read`: only the reads (e.g. to profile the server's read path).
    let reads_only = std::env::var("CALLS").is_ok_and(|calls| calls == "read");
    // `SETTLE_MS=n`: a pause of n ms (not counted) after each call, so that no call is
    // timed while the work another left on a background thread (the parser thread's
    // reparse after a checked edit) still runs.
    let settle = Duration::from_millis(std::env::var("SETTLE_MS").ok().and_then(|n| n.parse().ok()).unwrap_or(0));
    let pause = || {
        if !settle.is_zero() {
            std::thread::sleep(settle);
        }
    };

    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().canonicalize().expect("root");
    let text = c_file();
    let names = ["read.c", "mcp_on.c", "mcp_off.c", "local_on.c", "local_off.c"];
    for name in names {
        std::fs::write(root.join(name), &text).expect("write");
    }
    let lines = text.lines().count();
    let mut mcp = Mcp::start(&binary, &root);
    let local = Local::new(&root);

    // Each edit file is read around the edited line first, as an agent would.
    let before: Vec<String> = text.lines().map(str::to_owned).collect();
    let mut files = [
        EditFile::new(&root, "mcp_on.c", "warn", &before),
        EditFile::new(&root, "mcp_off.c", "off", &before),
        EditFile::new(&root, "local_on.c", "warn", &before),
        EditFile::new(&root, "local_off.c", "off", &before),
    ];
    let around = |name: &str| json!({"path": name, "offset": EDIT_LINE - 10, "limit": 20});
    mcp.call("read", around("mcp_on.c"));
    mcp.call("read", around("mcp_off.c"));
    local.call("read", around("local_on.c"));
    local.call("read", around("local_off.c"));
    let window = json!({"path": "read.c", "offset": WINDOW.0, "limit": WINDOW.1});
    let (bytes, _) = mcp.call("read", window.clone());

    println!(
        "hashline mcp {} — a {lines}-line C file ({} bytes); the read response is {bytes} bytes; {rounds} rounds; load average {}",
        binary.display(),
        text.len(),
        load_average()
    );
    // Warm-up: a few rounds not counted.
    let mut samples: Vec<Vec<Duration>> = (0..7).map(|_| Vec::with_capacity(rounds)).collect();
    for round in 0..rounds + 5 {
        let mut times = [Duration::ZERO; 7];
        times[0] = mcp.call("read", window.clone()).1;
        pause();
        times[1] = local.call("read", window.clone());
        pause();
        if !reads_only {
            times[2] = mcp.call("edit", files[0].next()).1;
            pause();
            times[3] = local.call("edit", files[2].next());
            pause();
            times[4] = mcp.call("edit", files[1].next()).1;
            pause();
            times[5] = local.call("edit", files[3].next());
            pause();
        }
        times[6] = local.call_then("read", window.clone(), |result| result.to_json().len());
        pause();
        if round >= 5 {
            for (sample, time) in samples.iter_mut().zip(times) {
                sample.push(time);
            }
        }
    }
    let labels = [
        "MCP read, 1,400-line window",
        "in-process read, same window",
        "MCP edit, check on",
        "in-process edit, check on",
        "MCP edit, check off",
        "in-process edit, check off",
        "in-process read + its JSON",
    ];
    let medians: Vec<f64> = samples.iter_mut().map(|s| spread(s).1).collect();
    for (label, sample) in labels.iter().zip(samples.iter_mut()) {
        let (p10, p50, p90) = spread(sample);
        println!("{label:>30}: p50 {p50:>8.1} µs   p10–p90 {p10:.1}–{p90:.1} µs");
    }
    let verdict = |ratio: f64, target: f64| if ratio <= target { "met" } else { "NOT met" };
    let read_ratio = medians[0] / medians[1];
    let check_ratio = medians[2] / medians[4];
    println!(
        "  MCP read / in-process read: {read_ratio:.2}× (target ≤ {READ_TARGET}×: {})",
        verdict(read_ratio, READ_TARGET)
    );
    println!(
        "  in-process read + its JSON (`ToolResult::to_json`, the CLI's --json) / in-process read: {:.2}×",
        medians[6] / medians[1]
    );
    println!("  MCP edit (check on) / in-process edit (check on): {:.2}×", medians[2] / medians[3]);
    println!("  MCP edit (check off) / in-process edit (check off): {:.2}×", medians[4] / medians[5]);
    println!(
        "  MCP edit check on / check off: {check_ratio:.2}× (target ≤ {CHECK_TARGET}×: {})",
        verdict(check_ratio, CHECK_TARGET)
    );
    println!("  load average after: {}", load_average());
    mcp.stop();
}

/// A C file of `FUNCTIONS` ten-line functions.
fn c_file() -> String {
    let mut text = String::from("#include <stdio.h>\n\n");
    for i in 0..FUNCTIONS {
        text.push_str(&format!(
            "static int func_{i}(int a, int b)\n{{\n\tint x = a + b;\n\tif (x > {i}) {{\n\t\treturn x - {i};\n\t}}\n\t/* {i} */\n\treturn x;\n}}\n\n"
        ));
    }
    text
}

/// A file every edit of which replaces `EDIT_LINE`, alternating between two texts.
struct EditFile {
    name: String,
    mode: &'static str,
    line: String,
    flip: bool,
}

impl EditFile {
    fn new(root: &Path, name: &str, mode: &'static str, lines: &[String]) -> Self {
        assert!(root.join(name).is_file());
        let line = lines[EDIT_LINE - 1].clone();
        assert_eq!(line, "\tint x = a + b;", "the edited line");
        Self { name: name.to_owned(), mode, line, flip: false }
    }

    /// The next edit's arguments (its anchor names the line as the previous edit left it).
    fn next(&mut self) -> Value {
        let anchor = format!("{EDIT_LINE}:{}", String::from_utf8_lossy(&LineHash::of(self.line.as_bytes()).hex()));
        self.flip = !self.flip;
        self.line = if self.flip { "\tint x = b + a;".to_owned() } else { "\tint x = a + b;".to_owned() };
        json!({"path": self.name, "syntaxValidate": self.mode,
            "edits": [{"set_line": {"anchor": anchor, "new_text": self.line}}]})
    }
}

/// The tools in this process, on a stateful session as the server keeps one.
struct Local {
    toolbox: Toolbox,
    session: Session,
}

impl Local {
    fn new(root: &Path) -> Self {
        let session =
            Session::new(SessionConfig::builder().root(root.to_path_buf()).stateful(true).build()).expect("session");
        Self { toolbox: Toolbox::new(), session }
    }

    fn call(&self, tool: &str, args: Value) -> Duration {
        self.call_then(tool, args, |_| 0)
    }

    /// The call and what `then` does with its result, timed together.
    fn call_then(&self, tool: &str, args: Value, then: impl Fn(&ToolResult) -> usize) -> Duration {
        let start = Instant::now();
        let result = self.toolbox.execute(&self.session, tool, args, &CallContext::top_level());
        std::hint::black_box(then(&result));
        let elapsed = start.elapsed();
        assert!(!result.is_error, "{tool}: {}", result.text());
        std::hint::black_box(result);
        elapsed
    }
}

/// A `hashline mcp` child over its pipes.
struct Mcp {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
    line: Vec<u8>,
}

impl Mcp {
    fn start(binary: &Path, root: &Path) -> Self {
        let (child, stdin, stdout) = support::start(binary, root);
        Self { child, stdin, stdout, next_id: 1, line: Vec::new() }
    }

    /// One call, one at a time: the response's size and the round trip (request written to
    /// the response's last byte read). The response is checked after the clock stops.
    fn call(&mut self, tool: &str, args: Value) -> (usize, Duration) {
        let id = self.next_id;
        self.next_id += 1;
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": args}});
        let bytes = format!("{request}\n").into_bytes();
        self.line.clear();
        let start = Instant::now();
        self.stdin.write_all(&bytes).expect("send");
        self.stdin.flush().expect("flush");
        self.stdout.read_until(b'\n', &mut self.line).expect("answer");
        let elapsed = start.elapsed();
        let value: Value = serde_json::from_slice(&self.line).expect("response JSON");
        assert_eq!(value["id"], id, "answer to the call");
        assert_eq!(value["result"]["isError"], false, "{tool}: {}", value["result"]["content"][0]["text"]);
        let structured = &value["result"]["structuredContent"];
        match support::structured().as_str() {
            "full" => assert!(structured.is_object(), "{tool}: structuredContent is an object"),
            _ => assert!(structured.is_null(), "{tool}: no structuredContent by default"),
        }
        (self.line.len(), elapsed)
    }

    fn stop(mut self) {
        drop(self.stdin);
        let status = self.child.wait().expect("wait");
        assert!(status.success(), "server exit: {status:?}");
    }
}

/// p10, p50 and p90 in microseconds.
fn spread(samples: &mut [Duration]) -> (f64, f64, f64) {
    samples.sort_unstable();
    let at = |p: f64| samples[((samples.len() as f64 * p) as usize).min(samples.len() - 1)].as_secs_f64() * 1e6;
    (at(0.10), at(0.50), at(0.90))
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".to_owned())
}
