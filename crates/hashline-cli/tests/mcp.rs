//! `hashline mcp` under bad input and load, driven over its real pipes: malformed frames,
//! unknown methods, wrong argument types, a huge argument, 20 concurrent calls, a client
//! that disconnects mid-call. Every answer is checked, and the server must keep serving
//! and exit 0 when its input ends.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long any single answer may take before the test calls the server hung.
const PATIENCE: Duration = Duration::from_secs(30);

struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    replies: Receiver<Value>,
    /// Replies read while waiting for another id.
    early: HashMap<String, Value>,
}

impl Server {
    fn start(root: &Path) -> Self {
        Self::start_with(root, &[])
    }

    /// `hashline mcp --structured-content full` (most tests here check the typed value),
    /// with more arguments; a later `--structured-content` wins.
    fn start_with(root: &Path, extra: &[&std::ffi::OsStr]) -> Self {
        let mut command = Command::new(env!("CARGO_BIN_EXE_hashline"));
        command.args(["mcp", "--structured-content", "full", "--root"]).arg(root).args(extra);
        Self::start_command(command)
    }

    fn start_command(mut command: Command) -> Self {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn hashline mcp");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout");
        let (tx, replies) = channel();
        std::thread::spawn(move || {
            // Frames are read as bytes: each ends in a bare `\n` on every system (a stdout
            // in text mode would end them `\r\n` on Windows, which `lines()` would hide).
            for line in BufReader::new(stdout).split(b'\n') {
                let Ok(line) = line else { break };
                assert!(!line.ends_with(b"\r"), "a frame ends in CRLF: {}", String::from_utf8_lossy(&line));
                let line = String::from_utf8(line).expect("UTF-8 on stdout");
                let value: Value =
                    serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON on stdout: {e}: {line}"));
                if tx.send(value).is_err() {
                    break;
                }
            }
        });
        Self { child, stdin, replies, early: HashMap::new() }
    }

    fn initialized(root: &Path) -> Self {
        Self::initialized_with(root, &[])
    }

    fn initialized_with(root: &Path, extra: &[&std::ffi::OsStr]) -> Self {
        Self::start_with(root, extra).initialize()
    }

    fn initialize(self) -> Self {
        self.initialize_as("robustness")
    }

    /// The handshake, as a client of this `clientInfo.name`.
    fn initialize_as(mut self, client: &str) -> Self {
        let server = &mut self;
        server.send(&json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": client, "version": "1"}}}));
        let init = server.reply("init");
        assert_eq!(init["result"]["serverInfo"]["name"], "hashline");
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        self
    }

    fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write to server");
        stdin.flush().expect("flush");
    }

    fn send(&mut self, message: &Value) {
        self.send_raw(format!("{message}\n").as_bytes());
    }

    fn next(&mut self) -> Value {
        match self.replies.recv_timeout(PATIENCE) {
            Ok(value) => value,
            Err(RecvTimeoutError::Timeout) => panic!("no answer within {PATIENCE:?}"),
            Err(RecvTimeoutError::Disconnected) => panic!("the server closed its output"),
        }
    }

    /// The reply with this id; every id-less reply met on the way is returned too.
    fn reply_collecting(&mut self, id: &str) -> (Value, Vec<Value>) {
        let mut idless = Vec::new();
        if let Some(reply) = self.early.remove(id) {
            return (reply, idless);
        }
        loop {
            let reply = self.next();
            match &reply["id"] {
                Value::Null => idless.push(reply),
                other => {
                    let key = other.as_str().map_or_else(|| other.to_string(), str::to_owned);
                    if key == id {
                        return (reply, idless);
                    }
                    self.early.insert(key, reply);
                }
            }
        }
    }

    fn reply(&mut self, id: &str) -> Value {
        let (reply, idless) = self.reply_collecting(id);
        assert!(idless.is_empty(), "unexpected id-less replies: {idless:?}");
        reply
    }

    fn call(&mut self, id: &str, name: &str, arguments: Value) -> Value {
        self.send(&tool_call(id, name, arguments));
        self.reply(id)
    }

    fn assert_alive(&mut self, id: &str) {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": "ping"}));
        assert_eq!(self.reply(id)["result"], json!({}), "ping {id}");
    }

    /// Closes the server's input and waits for it to exit.
    fn close(mut self) -> ExitStatus {
        drop(self.stdin.take());
        wait_with_deadline(&mut self.child)
    }
}

fn wait_with_deadline(child: &mut Child) -> ExitStatus {
    let deadline = Instant::now() + PATIENCE;
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the server did not exit within {PATIENCE:?} after its input closed");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn tool_call(id: &str, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
}

fn error_code(reply: &Value) -> &str {
    reply["result"]["structuredContent"]["error"]["code"].as_str().unwrap_or("")
}

fn text(reply: &Value) -> &str {
    reply["result"]["content"][0]["text"].as_str().unwrap_or("")
}

/// `hashline-mcp` (the packages' command) with no arguments is `hashline mcp` in the
/// working directory, through the `hashline` beside it; with arguments, `hashline` with them.
#[test]
fn hashline_mcp_alone_serves_mcp_in_the_working_directory() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("a.txt"), "alpha\n").expect("write");
    let mut command = Command::new(env!("CARGO_BIN_EXE_hashline-mcp"));
    command.current_dir(dir.path());
    let mut server = Server::start_command(command).initialize();
    let reply = server.call("r", "read", json!({"path": "a.txt"}));
    assert!(text(&reply).ends_with("|alpha"), "{reply}");
    assert!(server.close().success());
    let version = |program: &str| {
        let out = Command::new(program).arg("--version").output().expect("run");
        assert!(out.status.success());
        String::from_utf8(out.stdout).expect("UTF-8")
    };
    assert_eq!(version(env!("CARGO_BIN_EXE_hashline-mcp")), version(env!("CARGO_BIN_EXE_hashline")));
}

#[test]
fn malformed_frames_get_errors_and_the_server_reads_on() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut server = Server::initialized(dir.path());
    server.send_raw(b"this is not json\n{\"jsonrpc\": \"2.0\", \"id\": 5, \"method\":\n[]\n42\n\n   \n");
    server.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":\"bad-method\",\"method\":17}\n");
    server.send_raw(b"\xff\xfe binary \x00 bytes\n");
    server.send(&json!({"jsonrpc": "2.0", "id": "after", "method": "ping"}));
    let (reply, idless) = server.reply_collecting("after");
    assert_eq!(reply["result"], json!({}));
    let codes: Vec<i64> = idless.iter().map(|r| r["error"]["code"].as_i64().unwrap_or(0)).collect();
    // Two unparsable lines, a batch, a bare number, then the binary line.
    assert_eq!(codes, [-32700, -32700, -32600, -32600, -32700], "{idless:?}");
    let bad = server.reply("bad-method");
    assert_eq!(bad["error"]["code"], -32600);
    assert_eq!(server.close().code(), Some(0));
}

#[test]
fn requests_with_invalid_ids_are_answered_with_a_null_id() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut server = Server::initialized(dir.path());
    let ids = ["1.5", "18446744073709551616", "{\"a\":1}", "true", "null"];
    for id in ids {
        server.send_raw(format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n").as_bytes());
    }
    server.send_raw(b"{not json\n");
    server.send(&json!({"jsonrpc": "2.0", "id": -9_223_372_036_854_775_807_i64, "method": "ping"}));
    server.send(&json!({"jsonrpc": "2.0", "id": "after", "method": "ping"}));
    let (reply, idless) = server.reply_collecting("after");
    assert_eq!(reply["result"], json!({}));
    assert_eq!(idless.len(), ids.len() + 1, "{idless:?}");
    for (reply, expected) in idless.iter().zip([-32600, -32600, -32600, -32600, -32600, -32700]) {
        assert_eq!(reply["error"]["code"], expected, "{reply}");
        assert_eq!(reply.get("id"), Some(&Value::Null), "{reply}");
    }
    assert_eq!(server.reply("-9223372036854775807")["result"], json!({}));
    assert_eq!(server.close().code(), Some(0));
}

#[test]
fn unknown_methods_and_wrong_argument_types_are_answered_with_their_ids() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("a.txt"), "alpha\nbeta\n").expect("write");
    let mut server = Server::initialized(dir.path());

    server.send(&json!({"jsonrpc": "2.0", "id": "unknown", "method": "files/teleport", "params": {}}));
    let reply = server.reply("unknown");
    assert_eq!(reply["error"]["code"], -32601);
    // A notification with an unknown method gets no answer at all.
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/whatever"}));

    // Arguments that are not an object reach the tool, which says so as a tool error.
    for (id, arguments) in [("array", json!(["a.txt"])), ("string", json!("a.txt")), ("number", json!(3))] {
        let reply = server.call(id, "read", arguments);
        assert_eq!(reply["result"]["isError"], true, "{reply}");
        assert_eq!(error_code(&reply), "invalid-type", "{reply}");
    }
    // Wrong types inside the object: tool errors too.
    let reply = server.call("path-type", "read", json!({"path": ["a.txt"]}));
    assert_eq!(reply["result"]["isError"], true);
    assert_eq!(error_code(&reply), "invalid-type");
    let reply = server.call("null-path", "read", json!({"path": null}));
    assert_eq!(error_code(&reply), "invalid-null");
    // An unknown tool is a protocol error (MCP), with its id.
    let reply = server.call("no-tool", "teleport", json!({}));
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    // A tools/call without a usable name is a protocol error, with its id.
    server.send(&json!({"jsonrpc": "2.0", "id": "no-name", "method": "tools/call", "params": {"arguments": {}}}));
    assert_eq!(server.reply("no-name")["error"]["code"], -32602);
    server.send(&json!({"jsonrpc": "2.0", "id": "name-type", "method": "tools/call", "params": {"name": 5}}));
    assert_eq!(server.reply("name-type")["error"]["code"], -32602);

    let reply = server.call("ok", "read", json!({"path": "a.txt"}));
    assert_eq!(rows(text(&reply)), "1:3c8|alpha\n2:589|beta");
    assert_eq!(server.close().code(), Some(0));
}

#[test]
fn huge_arguments_are_handled() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut server = Server::initialized(dir.path());
    let big_line = "x".repeat(5 * 1024 * 1024);

    // A 5 MB path: a plain tool error.
    let reply = server.call("huge-path", "read", json!({"path": big_line}));
    assert_eq!(reply["result"]["isError"], true, "{}", text(&reply));

    // 5 MB of content in one call: written whole.
    let content = "0123456789abcdef\n".repeat(5 * 1024 * 1024 / 17);
    let reply = server.call("huge-write", "write", json!({"path": "big.txt", "content": content}));
    assert_eq!(reply["result"]["isError"], false, "{}", text(&reply));
    assert_eq!(std::fs::read_to_string(dir.path().join("big.txt")).expect("read back"), content);

    let reply = server.call("read-big", "read", json!({"path": "big.txt", "offset": 100, "limit": 2}));
    assert_eq!(reply["result"]["structuredContent"]["lines"][0]["anchor"].as_str().map(|a| &a[..4]), Some("100:"));
    server.assert_alive("after-huge");
    assert_eq!(server.close().code(), Some(0));
}

#[test]
fn twenty_concurrent_calls_are_answered_by_id() {
    let dir = tempfile::tempdir().expect("tempdir");
    for i in 0..10 {
        std::fs::write(dir.path().join(format!("r{i}.txt")), format!("read me {i}\nline two\n")).expect("write");
        std::fs::write(dir.path().join(format!("e{i}.txt")), format!("edit me {i}\nline two\n")).expect("write");
    }
    let mut server = Server::initialized(dir.path());
    // The edits need anchors this session showed.
    let mut first_anchor = Vec::new();
    for i in 0..10 {
        let reply = server.call(&format!("pre{i}"), "read", json!({"path": format!("e{i}.txt")}));
        first_anchor
            .push(reply["result"]["structuredContent"]["lines"][0]["anchor"].as_str().expect("anchor").to_owned());
    }

    // Twenty requests in one write, reads and edits interleaved.
    let mut batch = String::new();
    for (i, anchor) in first_anchor.iter().enumerate() {
        batch += &format!("{}\n", tool_call(&format!("read-{i}"), "read", json!({"path": format!("r{i}.txt")})));
        let edit = json!({"set_line": {"anchor": anchor, "new_text": format!("edited {i}")}});
        batch += &format!(
            "{}\n",
            tool_call(&format!("edit-{i}"), "edit", json!({"path": format!("e{i}.txt"), "edits": [edit]}))
        );
    }
    server.send_raw(batch.as_bytes());

    for i in 0..10 {
        let read = server.reply(&format!("read-{i}"));
        assert_eq!(read["result"]["isError"], false, "{read}");
        assert!(rows(text(&read)).starts_with("1:"), "{read}");
        assert!(text(&read).contains(&format!("|read me {i}\n")), "read-{i} got another file: {}", text(&read));
        let value = &read["result"]["structuredContent"];
        assert!(value["path"].as_str().is_some_and(|p| p.ends_with(&format!("r{i}.txt"))));

        let edit = server.reply(&format!("edit-{i}"));
        assert_eq!(edit["result"]["isError"], false, "{edit}");
        assert!(text(&edit).starts_with(&format!("Edited e{i}.txt")), "{}", text(&edit));
        let on_disk = std::fs::read_to_string(dir.path().join(format!("e{i}.txt"))).expect("read back");
        assert_eq!(on_disk, format!("edited {i}\nline two\n"));
    }
    server.assert_alive("after-burst");
    assert_eq!(server.close().code(), Some(0));
}

#[test]
fn concurrent_edits_of_one_file_are_serialized() {
    let dir = tempfile::tempdir().expect("tempdir");
    let lines: Vec<String> = (0..20).map(|i| format!("line {i}")).collect();
    std::fs::write(dir.path().join("shared.txt"), lines.join("\n") + "\n").expect("write");
    let mut server = Server::initialized(dir.path());
    let read = server.call("read", "read", json!({"path": "shared.txt"}));
    let anchors: Vec<String> = read["result"]["structuredContent"]["lines"]
        .as_array()
        .expect("lines")
        .iter()
        .map(|l| l["anchor"].as_str().expect("anchor").to_owned())
        .collect();
    // Twenty edits of twenty different lines of one file, all at once: each one lands.
    let mut batch = String::new();
    for (i, anchor) in anchors.iter().enumerate() {
        let edit = json!({"set_line": {"anchor": anchor, "new_text": format!("LINE {i}")}});
        batch += &format!("{}\n", tool_call(&format!("e{i}"), "edit", json!({"path": "shared.txt", "edits": [edit]})));
    }
    server.send_raw(batch.as_bytes());
    for i in 0..anchors.len() {
        let reply = server.reply(&format!("e{i}"));
        assert_eq!(reply["result"]["isError"], false, "e{i}: {}", text(&reply));
    }
    let expected: Vec<String> = (0..20).map(|i| format!("LINE {i}")).collect();
    assert_eq!(std::fs::read_to_string(dir.path().join("shared.txt")).expect("read"), expected.join("\n") + "\n");
    assert_eq!(server.close().code(), Some(0));
}

#[test]
fn a_client_that_disconnects_mid_call_leaves_a_clean_exit() {
    let dir = tempfile::tempdir().expect("tempdir");
    for i in 0..100 {
        std::fs::write(dir.path().join(format!("f{i}.txt")), "x\n").expect("write");
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_hashline"))
        .args(["mcp", "--root"])
        .arg(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn hashline mcp");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut requests = format!(
        "{}\n{}\n",
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    );
    let content = "y\n".repeat(256 * 1024);
    for i in 0..4 {
        requests += &format!(
            "{}\n",
            tool_call(&format!("w{i}"), "write", json!({"path": format!("w{i}.txt"), "content": content}))
        );
        requests += &format!("{}\n", tool_call(&format!("f{i}"), "find", json!({"pattern": "*.txt"})));
    }
    stdin.write_all(requests.as_bytes()).expect("send");
    let mut first = String::new();
    stdout.read_line(&mut first).expect("initialize answer");
    assert!(first.contains("\"serverInfo\""), "{first}");
    // Gone without waiting for the calls: both pipes closed.
    drop(stdin);
    drop(stdout);
    let status = wait_with_deadline(&mut child);
    assert_eq!(status.code(), Some(0), "{status:?}");
    // Whatever was written is whole; no temporary file is left behind.
    for entry in std::fs::read_dir(dir.path()).expect("list") {
        let path = entry.expect("entry").path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
        assert!(name.starts_with('f') || name.starts_with('w'), "stray file {name}");
        if name.starts_with('w') {
            assert_eq!(std::fs::read_to_string(&path).expect("read"), content, "{name}");
        }
    }
}

#[test]
fn input_that_ends_early_is_a_clean_exit() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Nothing at all.
    assert_eq!(Server::start(dir.path()).close().code(), Some(0));
    // Garbage, then the end: answered, then a clean exit.
    let mut server = Server::start(dir.path());
    server.send_raw(b"garbage\n");
    assert_eq!(server.next()["error"]["code"], -32700);
    assert_eq!(server.close().code(), Some(0));
    // A notification before initialize is ignored, not fatal.
    let mut server = Server::start(dir.path());
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    server.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}));
    assert_eq!(server.next()["result"]["serverInfo"]["name"], "hashline");
    assert_eq!(server.close().code(), Some(0));
}

#[test]
fn calls_are_logged_with_their_request_ids() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("a.txt"), "alpha\n").expect("write");
    let log = dir.path().join("session.jsonl");
    let mut server = Server::initialized_with(dir.path(), &["--log".as_ref(), log.as_os_str()]);
    server.call("first", "read", json!({"path": "a.txt"}));
    server.call("second", "read", json!({"path": "missing.txt"}));
    assert_eq!(server.close().code(), Some(0));
    let events: Vec<Value> = std::fs::read_to_string(&log)
        .expect("log")
        .lines()
        .map(|line| serde_json::from_str(line).expect("event"))
        .collect();
    let kinds: Vec<(&str, &str)> =
        events.iter().map(|e| (e["type"].as_str().unwrap_or(""), e["callId"].as_str().unwrap_or(""))).collect();
    assert_eq!(
        kinds,
        [
            ("session", ""),
            ("tool/call", "first"),
            ("tool/result", "first"),
            ("tool/call", "second"),
            ("tool/result", "second")
        ]
    );
    assert_eq!(rows(events[2]["result"]["content"][0]["text"].as_str().unwrap_or_default()), "1:3c8|alpha");
    assert_eq!(events[4]["result"]["error"]["code"], "file-not-found");
}

/// Issue 20: an `ast_search` pattern nested 30,000 deep overflowed the stack and aborted
/// the server. It is a coded error now, and the same connection serves on.
#[test]
fn a_pattern_nested_thirty_thousand_deep_is_refused_and_the_server_serves_on() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("a.js"), "let a = (x);\n").expect("write");
    let mut server = Server::initialized(dir.path());
    let pattern = "(".repeat(30_000) + "x" + &")".repeat(30_000);
    let reply = server.call("deep", "ast_search", json!({"pattern": pattern, "lang": "js"}));
    assert_eq!(error_code(&reply), "invalid-pattern", "{}", &text(&reply)[..text(&reply).len().min(300)]);
    let reply = server.call("after", "ast_search", json!({"pattern": "($A)", "lang": "js"}));
    assert_eq!(reply["result"]["isError"], false, "{reply}");
    assert!(text(&reply).contains("let a = (x);"), "{reply}");
    server.assert_alive("ping");
    assert!(server.close().success());
}

/// Fifty files of sixty 200-character matches each: grep's records run past its text's
/// 50 KB budget.
fn grep_past_the_budget() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for file in 0..50 {
        let body: String = (0..60).map(|n| format!("needle {file} {n} {}\n", "x".repeat(200))).collect();
        std::fs::write(dir.path().join(format!("f{file:02}.txt")), body).expect("write");
    }
    dir
}

/// docs/protocol.md §4.6: with `--structured-content full` the model may be given grep's
/// records as well as its text, so every record is served, also those past the text's
/// budget; an anchor only a record carries edits the file with no `read` (the default mode
/// and the CLI's text mode refuse it: see the next test, and hashline-tools'
/// `text_mode_shows_the_same_text_and_serves_only_the_rows_it_shows`).
#[test]
fn grep_records_past_the_text_budget_are_served_with_structured_content() {
    let dir = grep_past_the_budget();
    let mut server = Server::initialized(dir.path());
    let found = server.call("grep", "grep", json!({"pattern": "needle", "limit": 100_000}));
    assert_eq!(found["result"]["isError"], false, "{}", text(&found));
    let records = found["result"]["structuredContent"]["records"].as_array().expect("records");
    // Above 50 matches, 10 a file: 500 records, whose rows of 200 characters pass the 50 KB budget.
    assert_eq!(records.len(), 500);
    let last = records.last().expect("a record");
    let (path, anchor) = (last["path"].as_str().expect("path"), last["anchor"].as_str().expect("anchor"));
    let name = Path::new(path).file_name().expect("name").to_string_lossy().into_owned();
    let shown = text(&found);
    assert!(!shown.contains(&format!("{name}:")), "the text shows {name}, which should lie past its budget");

    let edit = json!({"path": path, "edits": [{"set_line": {"anchor": anchor, "new_text": "edited"}}]});
    let edited = server.call("edit", "edit", edit);
    assert_eq!(edited["result"]["isError"], false, "{}", text(&edited));
    let line: usize = anchor.split(':').next().and_then(|l| l.parse().ok()).expect("line");
    let after = std::fs::read_to_string(path).expect("read back");
    assert_eq!(after.lines().nth(line - 1), Some("edited"));
    assert_eq!(server.close().code(), Some(0));
}

/// By default a result is its text alone (issue 47): no `structuredContent`, no tool with an
/// `outputSchema`, and only the rows the text shows are served, so an anchor of a grep
/// record past the text's budget, which the model never saw, does not edit an unread file.
#[test]
fn by_default_results_are_their_text_and_only_shown_rows_are_served() {
    let dir = grep_past_the_budget();
    let mut server = Server::start_with(dir.path(), &["--structured-content".as_ref(), "off".as_ref()]).initialize();
    server.send(&json!({"jsonrpc": "2.0", "id": "list", "method": "tools/list"}));
    let listed = server.reply("list");
    let tools = listed["result"]["tools"].as_array().expect("tools");
    assert_eq!(tools.len(), 7);
    for tool in tools {
        assert!(tool.get("outputSchema").is_none(), "{} lists an outputSchema", tool["name"]);
        assert!(tool["inputSchema"].is_object(), "{}", tool["name"]);
    }

    let found = server.call("grep", "grep", json!({"pattern": "needle", "limit": 100_000}));
    assert_eq!(found["result"]["isError"], false, "{}", text(&found));
    assert!(found["result"].get("structuredContent").is_none(), "{found}");
    let shown = text(&found);
    assert!(shown.contains("f00.txt:>>1:"), "{}", &shown[..shown.len().min(400)]);
    assert!(!shown.contains("f49.txt:"), "f49.txt should lie past the text's budget");

    // The last file's rows were never shown: its anchors do not edit it.
    let path = dir.path().join("f49.txt");
    let first = std::fs::read_to_string(&path).expect("read");
    // Its first row as a stateless CLI read shows it: a valid anchor this server never served.
    let row = Command::new(env!("CARGO_BIN_EXE_hashline"))
        .args(["--stateless", "read", "--limit", "1"])
        .arg(&path)
        .current_dir(dir.path())
        .output()
        .expect("hashline read");
    let row = String::from_utf8(row.stdout).expect("UTF-8");
    let anchor = rows(&row).split('|').next().expect("a row").to_owned();
    assert!(anchor.starts_with("1:"), "{row}");
    let edit = json!({"path": path, "edits": [{"set_line": {"anchor": anchor, "new_text": "edited"}}]});
    let refused = server.call("edit", "edit", edit);
    assert_eq!(refused["result"]["isError"], true, "{}", text(&refused));
    assert!(text(&refused).contains("read"), "{}", text(&refused));
    assert!(refused["result"].get("structuredContent").is_none(), "{refused}");
    assert_eq!(std::fs::read_to_string(&path).expect("read back"), first);

    // Shown rows are served as before: an anchor of f00.txt edits it with no read.
    let line = shown.lines().find(|l| l.starts_with("f00.txt:>>1:")).expect("f00's first row");
    let anchor = &line["f00.txt:>>".len()..line.find('|').expect("a row")];
    let edit = json!({"path": "f00.txt", "edits": [{"set_line": {"anchor": anchor, "new_text": "edited"}}]});
    let edited = server.call("edit", "edit", edit);
    assert_eq!(edited["result"]["isError"], false, "{}", text(&edited));
    assert_eq!(server.close().code(), Some(0));
}

/// Issue 47 item 3: a result fits what the host that connected shows at once, known by the
/// `clientInfo.name` of its `initialize`; hashline cuts it at a row with its own note (an
/// explicit `limit` too), where the host would have cut its middle or diverted it. An
/// unknown client gets the smallest known host's budget; `--budget` sets one for all.
#[test]
fn a_result_fits_the_budget_of_the_host_that_connected() {
    let dir = tempfile::tempdir().expect("tempdir");
    let body: String =
        (1..=3000).map(|n| format!("fn item_{n}() -> usize {{ {n} }} // {}\n", "x".repeat(30))).collect();
    std::fs::write(dir.path().join("big.rs"), body).expect("write");
    for n in 0..600 {
        std::fs::write(dir.path().join(format!("note_{n:03}.txt")), format!("needle {n} {}\n", "y".repeat(40)))
            .expect("write");
    }
    let hosts = [
        ("claude-code", 43 * 1024),
        ("codex-mcp-client", 10_000),
        ("gemini-cli-mcp-client", 35 * 1024),
        ("opencode", 44 * 1024),
        ("copilot-cli", 16 * 1024),
        ("an-agent-no-one-measured", 10_000),
    ];
    for (client, budget) in hosts {
        let mut server =
            Server::start_with(dir.path(), &["--structured-content".as_ref(), "off".as_ref()]).initialize_as(client);
        for (id, arguments) in
            [("whole", json!({"path": "big.rs"})), ("limit", json!({"path": "big.rs", "offset": 10, "limit": 2500}))]
        {
            let read = server.call(id, "read", arguments);
            let shown = text(&read);
            assert!(shown.len() <= budget, "{client} {id}: {} bytes over {budget}", shown.len());
            assert!(shown.len() > budget * 3 / 4, "{client} {id}: only {} of {budget} bytes", shown.len());
            assert!(
                shown.contains("at this client's 2000-line / "),
                "{client} {id}: {}",
                shown.lines().filter(|l| l.starts_with('[')).collect::<Vec<_>>().join(" / ")
            );
            assert!(shown.contains("Use offset="), "{client} {id}");
            // Whole rows: the last row before the note is complete.
            let is_row = |l: &&str| {
                l.split_once('|')
                    .and_then(|(anchor, _)| anchor.split_once(':'))
                    .is_some_and(|(line, hash)| line.chars().all(|c| c.is_ascii_digit()) && hash.len() == 3)
            };
            let last_row = shown.lines().rev().find(is_row).expect("rows");
            assert!(last_row.ends_with("// xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"), "{client} {id}: {last_row}");
        }
        let found = server.call("grep", "grep", json!({"pattern": "needle", "limit": 3000}));
        let shown = text(&found);
        assert!(shown.len() <= budget, "{client} grep: {} bytes over {budget}", shown.len());
        assert!(shown.contains("at this client's"), "{client} grep");
        let listed = server.call("find", "find", json!({"pattern": "*"}));
        assert!(text(&listed).len() <= budget, "{client} find");
        assert_eq!(server.close().code(), Some(0));
    }

    // `--budget` sets every result's, whatever the client.
    let mut server = Server::start_with(
        dir.path(),
        &["--structured-content".as_ref(), "off".as_ref(), "--budget".as_ref(), "50KB".as_ref()],
    )
    .initialize_as("codex-mcp-client");
    let read = server.call("whole", "read", json!({"path": "big.rs"}));
    let shown = text(&read);
    assert!(shown.len() > 40 * 1024 && shown.len() <= 50 * 1024, "{}", shown.len());
    // 50 KB is the SPEC's budget: its note is the plain one.
    assert!(shown.contains("[Output truncated: showing "), "{}", &shown[shown.len() - 300..]);
    assert_eq!(server.close().code(), Some(0));
}

/// A `--budget` the server cannot use is refused before it serves.
#[test]
fn a_budget_out_of_bounds_is_refused_at_start() {
    for bad in ["1", "ten", "2MB", "0"] {
        let out = Command::new(env!("CARGO_BIN_EXE_hashline"))
            .args(["mcp", "--budget", bad])
            .stdin(Stdio::null())
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--budget"), "{bad}: {err}");
    }
}

/// The CPU time the process `pid` has used so far (all its threads, user and system), from
/// `/proc/<pid>/stat` (in USER_HZ ticks, 100 a second on Linux).
#[cfg(target_os = "linux")]
fn cpu_time(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("/proc/<pid>/stat");
    // Past the name in parentheses (which may hold spaces): state is field 3, utime 14, stime 15.
    let fields: Vec<&str> = stat[stat.rfind(')').expect("stat") + 1..].split_whitespace().collect();
    let ticks: u64 = fields[11].parse::<u64>().expect("utime") + fields[12].parse::<u64>().expect("stime");
    Duration::from_millis(ticks * 10)
}

/// Issue 49: `notifications/cancelled` for an `ast_search` dropped its reply but the search
/// ran on to its end, every core busy for seconds. It stops now: over the second after the
/// cancellation settles, the server's CPU time grows by under 100 ms.
#[test]
#[cfg_attr(not(target_os = "linux"), ignore = "reads the server's CPU time from /proc (Linux only)")]
fn a_cancelled_ast_search_stops_its_work() {
    #[cfg(target_os = "linux")]
    {
        let dir = tempfile::tempdir().expect("tempdir");
        // Enough files that the search runs for many seconds (each has matches).
        let body: String =
            (0..40).map(|n| format!("fn f{n}(x: u32) -> u32 {{ let y = x + {n}; y * 2 + x }}\n")).collect();
        for d in 0..40 {
            let sub = dir.path().join(format!("d{d}"));
            std::fs::create_dir(&sub).expect("mkdir");
            for f in 0..100 {
                std::fs::write(sub.join(format!("f{f}.rs")), &body).expect("write");
            }
        }
        let log = dir.path().join("session.jsonl");
        let mut server = Server::initialized_with(dir.path(), &["--log".as_ref(), log.as_os_str()]);
        let pid = server.child.id();
        server.send(&tool_call("slow", "ast_search", json!({"pattern": "$A + $B"})));
        // The search is under way: the log has the call, and the server is busy.
        let started = Instant::now();
        while !std::fs::read_to_string(&log).unwrap_or_default().contains("\"slow\"") {
            assert!(started.elapsed() < PATIENCE, "the call never started");
            std::thread::sleep(Duration::from_millis(10));
        }
        // (On a loaded machine the server may get little CPU: what counts is that it uses some.)
        let busy = cpu_time(pid);
        while cpu_time(pid) < busy + Duration::from_millis(200) {
            assert!(started.elapsed() < PATIENCE, "the search is not running");
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(!std::fs::read_to_string(&log).unwrap_or_default().contains("tool/result"), "it ended already");
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": "slow", "reason": "test"}}));
        // Settled: the work in hand when the flag rose (a file's match) is done.
        std::thread::sleep(Duration::from_millis(500));
        let before = cpu_time(pid);
        std::thread::sleep(Duration::from_secs(1));
        let used = cpu_time(pid).saturating_sub(before);
        assert!(used < Duration::from_millis(100), "the cancelled search used {used:?} of CPU in the next second");
        // The server serves on; the cancelled call gets no reply, and its result is logged.
        server.assert_alive("after");
        assert!(server.early.is_empty(), "{:?}", server.early);
        assert_eq!(server.close().code(), Some(0));
        let result = std::fs::read_to_string(&log)
            .expect("log")
            .lines()
            .map(|line| serde_json::from_str::<Value>(line).expect("event"))
            .find(|event| event["type"] == "tool/result" && event["callId"] == "slow")
            .expect("the cancelled call's result is logged");
        assert_eq!(result["result"]["error"]["code"], "cancelled", "{result}");
        insta::assert_snapshot!(result["result"]["content"][0]["text"].as_str().unwrap_or(""), @"Ast_search cancelled: the client cancelled the call, and the search stopped before its end.");
    }
}

/// A read's text without its first line, the `snapshot: s…` tag (every read names one).
fn rows(text: &str) -> &str {
    let rest = text.strip_prefix("snapshot: s").unwrap_or_else(|| panic!("no snapshot line first: {text}"));
    &rest[rest.find('\n').map_or(rest.len(), |at| at + 1)..]
}
