//! The `hashline` binary on hostile input: patterns that blow up matchers, bytes that are
//! not UTF-8, special files in place of the session or the log, and readers that go away.
//! Nothing may panic, block or grow without bound.

use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// Longest a call here may take before it counts as blocked.
const PATIENCE: Duration = Duration::from_secs(20);

/// A state directory (`XDG_STATE_HOME`) for this test binary's calls, so that their
/// sessions are not kept in the user's own.
fn state_home() -> &'static Path {
    static STATE: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    STATE.get_or_init(|| tempfile::tempdir().expect("state dir")).path()
}

fn hashline(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hashline"));
    command
        .env("XDG_STATE_HOME", state_home())
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// Waits for `child` at most [`PATIENCE`]; kills it and fails the test if it blocks.
fn finish(mut child: Child, what: &str) -> (ExitStatus, String, String) {
    let started = Instant::now();
    // Drained while the child runs, so that output larger than a pipe cannot stall it.
    let drain = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as Box<dyn std::io::Read + Send>));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as Box<dyn std::io::Read + Send>));
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return (status, stdout.join().expect("stdout"), stderr.join().expect("stderr"));
        }
        if started.elapsed() > PATIENCE {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} blocked for {PATIENCE:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn run(dir: &Path, args: &[&str], stdin: &[u8]) -> (ExitStatus, String, String) {
    let mut child = hashline(dir, args).spawn().expect("spawn");
    let mut input = child.stdin.take().expect("stdin");
    // The child may exit before reading everything: that is its answer, not an error here.
    let _ = input.write_all(stdin);
    drop(input);
    finish(child, &args.join(" "))
}

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("a.txt"), "alpha\nbeta\n").expect("write");
    dir
}

fn results(stdout: &str) -> Vec<Value> {
    stdout.lines().map(|line| serde_json::from_str(line).expect("result line")).collect()
}

fn code(result: &Value) -> &str {
    result["details"]["ptcValue"]["error"]["code"].as_str().unwrap_or("ok")
}

#[cfg(unix)]
fn mkfifo(path: &Path) {
    assert!(Command::new("mkfifo").arg(path).status().expect("mkfifo").success());
}

#[test]
fn a_huge_pattern_is_an_invalid_pattern_and_the_batch_goes_on() {
    let dir = workspace();
    let text = "lorem ipsum ".repeat(400_000 / 12);
    let mut input = String::new();
    for request in [
        json!({"tool": "find", "args": {"pattern": text}}),
        json!({"tool": "ls", "args": {"glob": "*".repeat(87_000)}}),
        json!({"tool": "find", "args": {"pattern": text, "regex": true}}),
        json!({"tool": "read", "args": {"path": "a.txt"}}),
    ] {
        input.push_str(&format!("{request}\n"));
    }
    let (status, stdout, stderr) = run(dir.path(), &["batch"], input.as_bytes());
    assert!(!stderr.contains("panicked"), "{stderr}");
    let codes: Vec<String> = results(&stdout).iter().map(|r| code(r).to_owned()).collect();
    assert_eq!(codes, ["invalid-pattern", "invalid-pattern", "invalid-pattern", "ok"]);
    assert_eq!(status.code(), Some(1));
}

#[test]
fn a_line_that_is_not_utf8_gets_invalid_type_and_the_batch_goes_on() {
    let dir = workspace();
    let mut input = b"{\"tool\":\"read\",\"args\":{\"path\":\"a\xff.txt\"}}\n".to_vec();
    input.extend_from_slice(b"{\"tool\":\"read\",\"args\":{\"path\":\"a.txt\"}}\n");
    let (status, stdout, stderr) = run(dir.path(), &["batch"], &input);
    assert_eq!(stderr, "");
    let results = results(&stdout);
    assert_eq!(results.len(), 2);
    assert_eq!(code(&results[0]), "invalid-type");
    assert_eq!(results[0]["details"]["ptcValue"]["tool"], "batch");
    assert_eq!(results[0]["content"][0]["text"], "Invalid batch line: not valid UTF-8 (invalid byte at offset 32).");
    assert_eq!(code(&results[1]), "ok");
    assert_eq!(status.code(), Some(1));
}

#[cfg(unix)]
#[test]
fn special_files_as_session_or_log_are_refused_at_once() {
    let dir = workspace();
    let fifo = dir.path().join("fifo");
    mkfifo(&fifo);
    let fifo = fifo.to_str().expect("utf-8 path");
    for (flag, file) in [("--session", "/dev/zero"), ("--session", fifo), ("--log", fifo), ("--log", "/dev/zero")] {
        let (status, stdout, stderr) = run(dir.path(), &[flag, file, "read", "a.txt"], b"");
        assert_eq!(status.code(), Some(2), "{flag} {file}: {stdout}{stderr}");
        assert!(stderr.starts_with("hashline: cannot "), "{flag} {file}: {stderr}");
        assert!(stderr.contains("not a regular file"), "{flag} {file}: {stderr}");
    }
    // A FIFO or device as the file to read is refused the same way.
    let (status, _, stderr) = run(dir.path(), &["--unconfined", "read", fifo], b"");
    assert_eq!(status.code(), Some(1));
    assert!(stderr.starts_with("Not a regular file:"), "{stderr}");
}

#[test]
fn stdin_that_never_ends_is_cut_at_the_limit() {
    let dir = workspace();
    let mut command = hashline(dir.path(), &["call", "read", "-"]);
    command.stdin(std::fs::File::open("/dev/zero").expect("/dev/zero"));
    let (status, _, stderr) = finish(command.spawn().expect("spawn"), "call read - < /dev/zero");
    assert_eq!(status.code(), Some(2));
    assert!(stderr.starts_with("hashline: cannot read arguments from standard input"), "{stderr}");
}

#[cfg(target_os = "linux")]
#[test]
fn reading_proc_kmsg_does_not_block() {
    // /proc/kmsg looks like an empty regular file and blocks a plain read until the
    // kernel logs something; only root may open it.
    let kmsg = Path::new("/proc/kmsg");
    if std::fs::File::open(kmsg).is_err() {
        println!("SKIPPED reading_proc_kmsg_does_not_block: /proc/kmsg cannot be opened (needs root)");
        return;
    }
    let dir = workspace();
    let (status, stdout, stderr) = run(dir.path(), &["--unconfined", "--json", "read", "/proc/kmsg"], b"");
    // Either there was something to read, or it fails at once: never a wait.
    if status.code() == Some(1) {
        let result: Value = serde_json::from_str(&stdout).expect("json");
        assert_eq!(code(&result), "fs-error", "{stdout}{stderr}");
        assert_eq!(
            result["content"][0]["text"],
            "File not readable: /proc/kmsg has no data to read now, and the tools never wait for a file."
        );
    } else {
        assert_eq!(status.code(), Some(0), "{stderr}");
    }
}

#[test]
fn call_and_tools_end_quietly_when_the_reader_goes_away() {
    let dir = workspace();
    for args in [&["tools"][..], &["call", "read", r#"{"path":"a.txt"}"#], &["--json", "read", "a.txt"]] {
        let mut child = hashline(dir.path(), args).spawn().expect("spawn");
        // The reader is gone before the child writes anything.
        drop(child.stdout.take());
        drop(child.stdin.take());
        let (status, _, stderr) = finish(child, &args.join(" "));
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert_eq!(status.code(), Some(0), "{args:?}: {stderr}");
    }
}

/// A source file nesting 100,000 modules (generated or hostile): every tool that maps or
/// checks it answers, and none overflows the stack (read by symbol and an edit adding a
/// syntax error used to abort the process).
#[test]
fn a_file_nested_100k_deep_gets_answers_not_a_crash() {
    const LEVELS: usize = 100_000;
    let dir = workspace();
    let source =
        (0..LEVELS).map(|i| format!("mod m{i} {{\n")).collect::<String>() + "fn x() {}\n" + &"}\n".repeat(LEVELS);
    std::fs::write(dir.path().join("deep.rs"), &source).expect("write");
    let x = LEVELS + 1;
    let calls = [
        ("read", json!({"path": "deep.rs", "symbol": "x"})),
        ("read", json!({"path": "deep.rs", "map": true})),
        ("read", json!({"path": "deep.rs", "symbol": "m5", "bundle": "local"})),
        ("grep", json!({"pattern": "fn x", "path": "deep.rs", "scope": "symbol"})),
        ("ast_search", json!({"pattern": "fn $X() {}", "path": "deep.rs"})),
        (
            "edit",
            json!({"path": "deep.rs", "syntaxValidate": "block", "edits": [{"set_line": {"anchor": format!("{x}:79a"), "new_text": "fn x( {}"}}]}),
        ),
        (
            "edit",
            json!({"path": "deep.rs", "edits": [{"replace_symbol": {"symbol": "x", "new_body": "fn x() { 1 }"}}]}),
        ),
    ];
    for (tool, args) in calls {
        let (status, stdout, stderr) =
            run(dir.path(), &["--stateless", "call", tool, "-"], args.to_string().as_bytes());
        assert!(status.code().is_some(), "{tool} {args}: killed by {status:?}: {stderr}");
        let result: Value =
            serde_json::from_str(&stdout).unwrap_or_else(|_| panic!("{tool} {args}: {stdout} {stderr}"));
        assert!(result["content"][0]["text"].is_string(), "{tool}: {result}");
        if tool == "edit" && args["syntaxValidate"] == "block" {
            assert_eq!(code(&result), "syntax-regression", "{result}");
        } else {
            assert_eq!(result["isError"], false, "{tool} {args}: {stdout}");
        }
    }
    let after = std::fs::read_to_string(dir.path().join("deep.rs")).expect("read");
    assert_eq!(after, source.replace("fn x() {}", "fn x() { 1 }"));
}

/// Windows' devices (`NUL`, `CON`, `\\.\CON`) as the session file, the log or the file to
/// read: refused at once, never read or written.
#[cfg(windows)]
#[test]
fn windows_devices_as_session_log_or_file_are_refused_at_once() {
    let dir = workspace();
    for (flag, file) in [("--session", "NUL"), ("--log", "NUL"), ("--session", "\\\\.\\CON"), ("--log", "CON")] {
        let (status, stdout, stderr) = run(dir.path(), &[flag, file, "read", "a.txt"], b"");
        assert_eq!(status.code(), Some(2), "{flag} {file}: {stdout}{stderr}");
        assert!(stderr.starts_with("hashline: cannot "), "{flag} {file}: {stderr}");
    }
    for file in ["NUL", "CON", "\\\\.\\CON", "aux.txt"] {
        let (status, stdout, stderr) = run(dir.path(), &["--unconfined", "read", file], b"");
        assert_eq!(status.code(), Some(1), "{file}: {stdout}{stderr}");
    }
}
