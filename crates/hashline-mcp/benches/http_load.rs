//! A bounded load test of `hashline mcp --http` on loopback: `SESSIONS` concurrent MCP
//! sessions, each reading and editing its own file for `SECS` seconds, one keep-alive
//! connection per session, calls one after the other within a session.
//!
//! Reports calls per second, p50/p95/p99 latency, errors (goal: zero), and the peak
//! resident memory of this process (server and clients together); then checks that every
//! file holds exactly the edits that were reported successful, in order.
//!
//! ```sh
//! cargo bench -p hashline-mcp --bench http_load            # 50 sessions, 30 s
//! SESSIONS=8 SECS=3 cargo bench -p hashline-mcp --bench http_load
//! ```
//!
//! Traffic goes to 127.0.0.1 only (an ephemeral port of an in-process server).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use bytes::Bytes;
use hashline_mcp::http::{HttpOptions, bind_http, serve_http};
use hashline_mcp::{ServerOptions, StructuredContent};
use http::Request;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::TcpStream;

const VERSION: &str = "2025-06-18";

/// What one session did.
#[derive(Default)]
struct Tally {
    latencies: Vec<Duration>,
    errors: usize,
    /// The line each successful edit appended, in order.
    appended: Vec<String>,
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn main() {
    let sessions = env_number("SESSIONS", 50).clamp(1, 200) as usize;
    let secs = env_number("SECS", 30).clamp(1, 120);
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    runtime.block_on(run(sessions, Duration::from_secs(secs)));
}

async fn run(sessions: usize, duration: Duration) {
    let dir = tempfile::tempdir().expect("tempdir");
    let files: Vec<PathBuf> = (0..sessions).map(|i| dir.path().join(format!("s{i}.txt"))).collect();
    for file in &files {
        std::fs::write(file, "head\n").expect("write");
    }
    // The clients take their anchors from the typed value: the structured mode.
    let mut options = HttpOptions::new(ServerOptions {
        roots: vec![dir.path().to_path_buf()],
        structured: StructuredContent::Full,
        ..Default::default()
    });
    options.max_sessions = sessions + 1;
    let listener = bind_http("127.0.0.1:0".parse().expect("addr"), &options).await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(serve_http(listener, options, async {
        let _ = stopped.await;
    }));

    let start = Instant::now();
    let deadline = start + duration;
    let clients: Vec<_> =
        files.iter().enumerate().map(|(i, file)| tokio::spawn(client(addr, i, file.clone(), deadline))).collect();
    let mut tallies = Vec::new();
    for client in clients {
        tallies.push(client.await.expect("client"));
    }
    let elapsed = start.elapsed();
    let _ = stop.send(());
    server.await.expect("server").expect("server ok");

    let mut latencies: Vec<Duration> = tallies.iter().flat_map(|t| t.latencies.iter().copied()).collect();
    latencies.sort();
    let errors: usize = tallies.iter().map(|t| t.errors).sum();
    let edits: usize = tallies.iter().map(|t| t.appended.len()).sum();
    let pct =
        |p: f64| latencies.get(((latencies.len() as f64 - 1.0) * p).round() as usize).copied().unwrap_or_default();
    println!("\nMCP over HTTP, loopback: {sessions} sessions, {:.1} s", elapsed.as_secs_f64());
    println!(
        "  calls: {} ({:.0}/s), edits landed: {edits}, errors: {errors}",
        latencies.len(),
        latencies.len() as f64 / elapsed.as_secs_f64()
    );
    println!("  latency p50 {:.2} ms, p95 {:.2} ms, p99 {:.2} ms", ms(pct(0.50)), ms(pct(0.95)), ms(pct(0.99)));
    if let Some(peak) = peak_memory_kib() {
        println!("  peak resident memory (server and clients): {:.1} MiB", peak as f64 / 1024.0);
    }

    // Every file holds exactly its session's successful edits, in order.
    let mut mismatched = 0;
    for (file, tally) in files.iter().zip(&tallies) {
        let expected: String =
            std::iter::once("head".to_owned()).chain(tally.appended.iter().cloned()).map(|l| l + "\n").collect();
        if std::fs::read_to_string(file).expect("read back") != expected {
            mismatched += 1;
        }
    }
    println!("  files checked: {}, holding exactly the reported edits: {}", files.len(), files.len() - mismatched);
    assert_eq!(mismatched, 0, "a file does not hold exactly the edits reported successful");
    assert_eq!(errors, 0, "calls failed under load");
}

/// One session: read the file, append a line after its last anchor, repeat.
async fn client(addr: SocketAddr, index: usize, file: PathBuf, deadline: Instant) -> Tally {
    let mut tally = Tally::default();
    let stream = TcpStream::connect(addr).await.expect("connect");
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.expect("handshake");
    tokio::spawn(connection);
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "load", "version": "1"}}});
    let (session, _) = post(&mut sender, addr, None, &init).await.expect("initialize");
    let session = session.expect("session id");
    post(&mut sender, addr, Some(&session), &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await
        .expect("initialized");
    let mut id = 1;
    while Instant::now() < deadline {
        id += 1;
        let read = call(&mut sender, addr, &session, id, "read", json!({"path": path_str(&file)}), &mut tally).await;
        let Some(last) = read.and_then(|v| v["lines"].as_array()?.last()?["anchor"].as_str().map(str::to_owned)) else {
            continue;
        };
        id += 1;
        let line = format!("session {index} edit {id}");
        let edit = json!({"path": path_str(&file), "edits": [{"insert_after": {"anchor": last, "new_text": line}}]});
        if call(&mut sender, addr, &session, id, "edit", edit, &mut tally).await.is_some() {
            tally.appended.push(line);
        }
    }
    let _ = sender
        .send_request(
            Request::delete("/mcp")
                .header("host", addr.to_string())
                .header("mcp-session-id", &session)
                .body(Full::new(Bytes::new()))
                .expect("request"),
        )
        .await;
    tally
}

fn path_str(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

/// One timed `tools/call`: its structured value when it succeeded, else counts an error.
async fn call(
    sender: &mut SendRequest<Full<Bytes>>,
    addr: SocketAddr,
    session: &str,
    id: u64,
    name: &str,
    args: Value,
    tally: &mut Tally,
) -> Option<Value> {
    let message =
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": args}});
    let start = Instant::now();
    let reply = post(sender, addr, Some(session), &message).await;
    tally.latencies.push(start.elapsed());
    match reply {
        Some((_, value)) if value["result"]["isError"] == false => Some(value["result"]["structuredContent"].clone()),
        _ => {
            tally.errors += 1;
            None
        }
    }
}

/// Posts one message; the session header and the reply (JSON body or last SSE `data:`).
async fn post(
    sender: &mut SendRequest<Full<Bytes>>,
    addr: SocketAddr,
    session: Option<&str>,
    message: &Value,
) -> Option<(Option<String>, Value)> {
    let mut request = Request::post("/mcp")
        .header("host", addr.to_string())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", VERSION);
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    let request = request.body(Full::new(Bytes::from(message.to_string()))).ok()?;
    let response = sender.send_request(request).await.ok()?;
    if !response.status().is_success() {
        return None;
    }
    let session = response.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::to_owned);
    let body = response.into_body().collect().await.ok()?.to_bytes();
    let text = String::from_utf8_lossy(&body);
    let value = serde_json::from_str(&text).ok().or_else(|| {
        text.lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str(d.trim()).ok())
            .next_back()
    });
    Some((session, value.unwrap_or(Value::Null)))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// `VmHWM` of this process, in KiB (Linux).
fn peak_memory_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
