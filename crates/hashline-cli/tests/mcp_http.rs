//! `hashline mcp --http` as a child process, driven over raw loopback sockets: a call that
//! used to abort the process (issue 20) leaves the server and every other session serving.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

/// How long any single answer may take before the test calls the server hung.
const PATIENCE: Duration = Duration::from_secs(30);
const VERSION: &str = "2025-06-18";

/// The server process; killed when dropped.
struct Server {
    child: Child,
    addr: SocketAddr,
}

impl Server {
    fn start(root: &std::path::Path) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_hashline"))
            .args(["mcp", "--http", "127.0.0.1:0", "--structured-content", "full", "--root"])
            .arg(root)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn hashline mcp --http");
        let stderr = child.stderr.take().expect("stderr");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                eprintln!("{line}");
                if let Some(rest) = line.strip_prefix("hashline mcp: listening on http://") {
                    let _ = tx.send(rest.trim_end_matches("/mcp").to_owned());
                }
            }
        });
        let addr = rx.recv_timeout(PATIENCE).expect("the server says where it listens");
        Self { child, addr: addr.parse().expect("an address") }
    }

    fn alive(&mut self) -> bool {
        self.child.try_wait().expect("try_wait").is_none()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One HTTP/1.1 POST on a fresh connection: the status, the session header, the JSON reply
/// (the body, or the last `data:` event of a stream).
fn post(addr: SocketAddr, session: Option<&str>, body: &Value) -> (u16, Option<String>, Value) {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream.set_read_timeout(Some(PATIENCE)).expect("timeout");
    let body = body.to_string();
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    if let Some(session) = session {
        head.push_str(&format!("Mcp-Session-Id: {session}\r\nMcp-Protocol-Version: {VERSION}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).expect("write head");
    stream.write_all(body.as_bytes()).expect("write body");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).expect("read the reply");
    parse_response(&raw)
}

fn parse_response(raw: &[u8]) -> (u16, Option<String>, Value) {
    let text = String::from_utf8_lossy(raw);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let header = |name: &str| {
        head.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.trim().eq_ignore_ascii_case(name).then(|| value.trim().to_owned())
        })
    };
    let body = if header("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        dechunk(body)
    } else {
        body.to_owned()
    };
    let json = serde_json::from_str(&body).unwrap_or_else(|_| {
        body.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
            .next_back()
            .unwrap_or(Value::Null)
    });
    (status, header("mcp-session-id"), json)
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let Ok(size) = usize::from_str_radix(size.trim(), 16) else { break };
        if size == 0 || rest.len() < size {
            break;
        }
        out.push_str(&rest[..size]);
        body = rest[size..].strip_prefix("\r\n").unwrap_or(&rest[size..]);
    }
    out
}

/// Opens a session (initialize + initialized) and returns its id.
fn open(addr: SocketAddr) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}});
    let (status, session, reply) = post(addr, None, &init);
    assert_eq!(status, 200, "{reply}");
    let session = session.expect("a session id");
    let (status, _, _) = post(addr, Some(&session), &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    assert_eq!(status, 202);
    session
}

fn call(addr: SocketAddr, session: &str, name: &str, arguments: Value) -> Value {
    let body =
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": name, "arguments": arguments}});
    let (status, _, reply) = post(addr, Some(session), &body);
    assert_eq!(status, 200, "{reply}");
    reply
}

fn error_code(reply: &Value) -> &str {
    reply["result"]["structuredContent"]["error"]["code"].as_str().unwrap_or("")
}

/// Issue 20: one session's `ast_search` with a pattern nested 30,000 deep aborted the
/// whole server (every other session then got "connection refused"). It is that call's
/// coded error now; the other sessions keep working and new ones open.
#[test]
fn a_pattern_nested_thirty_thousand_deep_leaves_every_other_session_serving() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("a.js"), "let a = (x);\n").expect("write");
    let mut server = Server::start(dir.path());
    let (hostile, bystander) = (open(server.addr), open(server.addr));
    let pattern = "(".repeat(30_000) + "x" + &")".repeat(30_000);
    let reply = call(server.addr, &hostile, "ast_search", json!({"pattern": pattern, "lang": "js"}));
    assert_eq!(error_code(&reply), "invalid-pattern", "{}", &reply.to_string()[..300.min(reply.to_string().len())]);
    assert!(server.alive(), "the server died");
    for session in [&bystander, &hostile, &open(server.addr)] {
        let reply = call(server.addr, session, "ast_search", json!({"pattern": "($A)", "lang": "js"}));
        assert_eq!(reply["result"]["isError"], false, "{reply}");
    }
    assert!(server.alive());
}
