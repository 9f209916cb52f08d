//! `hashline mcp --http` over a real loopback socket: every refusal with its status and
//! JSON-RPC error, and nothing read or written; sessions, idle expiry, graceful shutdown.

mod common;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{Reply, Server, send, send_on};
use hashline_mcp::ServerOptions;
use hashline_mcp::http::{HttpOptions, Tokens, bind_http};
use http::StatusCode;
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const A: &str = "token-a-0123456789abcdef";
const B: &str = "token-b-0123456789abcdef";
const VERSION: &str = "2025-06-18";

fn bearer(token: &str) -> String {
    format!("Bearer {token}")
}

/// Opens a session (initialize + initialized) and returns its id.
async fn open(addr: SocketAddr, token: Option<&str>) -> String {
    let auth = token.map(bearer);
    let mut headers = Vec::new();
    if let Some(auth) = &auth {
        headers.push(("authorization", auth.as_str()));
    }
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}});
    let reply = send(addr, "POST", &headers, init.to_string().into_bytes()).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.json);
    let session = reply.session.expect("a session id");
    headers.push(("mcp-session-id", session.as_str()));
    headers.push(("mcp-protocol-version", VERSION));
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let reply = send(addr, "POST", &headers, note.to_string().into_bytes()).await;
    assert_eq!(reply.status, StatusCode::ACCEPTED);
    session
}

fn call_body(name: &str, args: Value) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": name, "arguments": args}})
        .to_string()
        .into_bytes()
}

/// A `tools/call` with the given token, session and extra headers.
async fn call(
    addr: SocketAddr,
    token: Option<&str>,
    session: Option<&str>,
    extra: &[(&str, &str)],
    body: Vec<u8>,
) -> Reply {
    let auth = token.map(bearer);
    let mut headers: Vec<(&str, &str)> = vec![("mcp-protocol-version", VERSION)];
    if let Some(auth) = &auth {
        headers.push(("authorization", auth));
    }
    if let Some(session) = session {
        headers.push(("mcp-session-id", session));
    }
    headers.extend_from_slice(extra);
    send(addr, "POST", &headers, body).await
}

fn write_args(path: &Path) -> Value {
    json!({"path": path.to_str().expect("utf-8"), "content": "written\n"})
}

fn assert_refused(reply: &Reply, status: StatusCode, code: i64) {
    assert_eq!(reply.status, status, "{}", reply.json);
    assert_eq!(reply.json["error"]["code"], code, "{}", reply.json);
    assert!(reply.json["error"]["message"].as_str().is_some_and(|m| !m.is_empty()));
}

fn tokens(text: &str) -> Tokens {
    Tokens::parse(text, "test").expect("tokens")
}

fn target(dir: &Path) -> PathBuf {
    dir.join("new.txt")
}

#[tokio::test(flavor = "multi_thread")]
async fn no_token_and_a_wrong_token_get_401_and_nothing_is_written() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = Server::start(dir.path(), |o| o.tokens = tokens(A)).await;
    let session = open(server.addr, Some(A)).await;
    let file = target(dir.path());
    for token in [None, Some(B), Some("")] {
        let reply = call(server.addr, token, Some(&session), &[], call_body("write", write_args(&file))).await;
        assert_refused(&reply, StatusCode::UNAUTHORIZED, -32001);
        assert!(!file.exists());
    }
    // Opening a session without the token is refused as well.
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let reply = send(server.addr, "POST", &[], init.to_string().into_bytes()).await;
    assert_refused(&reply, StatusCode::UNAUTHORIZED, -32001);
    assert!(reply.session.is_none());
    // The right token goes through: the refusals above were the token check.
    let reply = call(server.addr, Some(A), Some(&session), &[], call_body("write", write_args(&file))).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.json["result"]["isError"], false, "{}", reply.json);
    assert_eq!(std::fs::read_to_string(&file).expect("written"), "written\n");
}

#[tokio::test(flavor = "multi_thread")]
async fn another_tokens_session_and_an_unknown_session_get_404() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = Server::start(dir.path(), |o| o.tokens = tokens(&format!("{A}\n{B}\n"))).await;
    let session_a = open(server.addr, Some(A)).await;
    let _session_b = open(server.addr, Some(B)).await;
    let file = target(dir.path());
    let reply = call(server.addr, Some(B), Some(&session_a), &[], call_body("write", write_args(&file))).await;
    assert_refused(&reply, StatusCode::NOT_FOUND, -32002);
    let unknown = "0123456789abcdef0123456789abcdef";
    let reply = call(server.addr, Some(A), Some(unknown), &[], call_body("write", write_args(&file))).await;
    assert_refused(&reply, StatusCode::NOT_FOUND, -32002);
    assert!(!file.exists());
    let reply = call(server.addr, Some(A), Some(&session_a), &[], call_body("write", write_args(&file))).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.json);
    assert!(file.exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn session_ids_are_long_and_distinct() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = Server::start(dir.path(), |_| {}).await;
    let first = open(server.addr, None).await;
    let second = open(server.addr, None).await;
    assert_ne!(first, second);
    // A v4 UUID: 122 random bits.
    assert_eq!(first.len(), 36, "{first}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_foreign_origin_gets_403_and_an_allowed_one_passes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = Server::start(dir.path(), |o| o.allowed_origins = vec!["http://localhost:6274".into()]).await;
    let session = open(server.addr, None).await;
    let file = target(dir.path());
    let foreign = [("origin", "http://evil.example")];
    let reply = call(server.addr, None, Some(&session), &foreign, call_body("write", write_args(&file))).await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
    assert!(!file.exists());
    // A rebound name in `Host` is refused on loopback.
    let rebound = Server::start(dir.path(), |_| {}).await;
    let reply = send(rebound.addr, "POST", &[("host", "evil.example")], call_body("ls", json!({}))).await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
    let allowed = [("origin", "http://localhost:6274")];
    let reply = call(server.addr, None, Some(&session), &allowed, call_body("write", write_args(&file))).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.json);
    assert!(file.exists());
}

/// The conformance suite's `localhost-host-valid-accepted`: a request from the server's own
/// loopback origin (`http://localhost:PORT`, the port this server listens on) passes without
/// `--allow-origin`; another port, another scheme or another name does not.
#[tokio::test(flavor = "multi_thread")]
async fn the_servers_own_loopback_origin_passes_and_others_do_not() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = Server::start(dir.path(), |_| {}).await;
    let session = open(server.addr, None).await;
    let port = server.addr.port();
    let other = if port == u16::MAX { port - 1 } else { port + 1 };
    for (origin, host) in [
        (format!("http://localhost:{port}"), format!("localhost:{port}")),
        (format!("http://127.0.0.1:{port}"), format!("127.0.0.1:{port}")),
        (format!("http://[::1]:{port}"), format!("localhost:{port}")),
        (format!("HTTP://LOCALHOST:{port}"), format!("localhost:{port}")),
    ] {
        let headers = [("origin", origin.as_str()), ("host", host.as_str())];
        let reply = call(server.addr, None, Some(&session), &headers, call_body("ls", json!({}))).await;
        assert_eq!(reply.status, StatusCode::OK, "{origin}: {}", reply.json);
        assert_eq!(reply.json["result"]["isError"], false, "{origin}: {}", reply.json);
        // A new session from that origin too.
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}});
        let reply = send(server.addr, "POST", &headers, init.to_string().into_bytes()).await;
        assert_eq!(reply.status, StatusCode::OK, "{origin}: {}", reply.json);
    }
    let file = target(dir.path());
    for origin in [
        format!("http://localhost:{other}"),
        "http://localhost".to_owned(),
        format!("https://localhost:{port}"),
        format!("http://evil.example:{port}"),
        format!("http://localhost.evil.example:{port}"),
        "null".to_owned(),
    ] {
        let headers = [("origin", origin.as_str())];
        let reply = call(server.addr, None, Some(&session), &headers, call_body("write", write_args(&file))).await;
        assert_eq!(reply.status, StatusCode::FORBIDDEN, "{origin}: {}", reply.json);
        assert!(!file.exists(), "{origin}");
    }
    // DNS rebinding: the page's own origin, with a `Host` that is not a loopback name.
    let headers = [("origin", "http://evil.example"), ("host", "evil.example")];
    let reply = call(server.addr, None, Some(&session), &headers, call_body("write", write_args(&file))).await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN, "{}", reply.json);
    let origin = format!("http://localhost:{port}");
    let headers = [("origin", origin.as_str()), ("host", "evil.example")];
    let reply = call(server.addr, None, Some(&session), &headers, call_body("write", write_args(&file))).await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN, "{}", reply.json);
    assert!(!file.exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn an_oversized_body_gets_413_and_nothing_is_written() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = Server::start(dir.path(), |o| o.max_body_bytes = 4096).await;
    let session = open(server.addr, None).await;
    let file = target(dir.path());
    let big = json!({"path": file.to_str().expect("utf-8"), "content": "x".repeat(8192)});
    let reply = call(server.addr, None, Some(&session), &[], call_body("write", big)).await;
    assert_refused(&reply, StatusCode::PAYLOAD_TOO_LARGE, -32006);
    assert!(!file.exists());
    let reply = call(server.addr, None, Some(&session), &[], call_body("write", write_args(&file))).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.json);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_path_outside_the_roots_is_refused_as_over_stdio() {
    let dir = tempfile::tempdir().expect("tempdir");
    let outside = tempfile::tempdir().expect("tempdir");
    std::fs::write(outside.path().join("secret.txt"), "secret\n").expect("write");
    let server = Server::start(dir.path(), |_| {}).await;
    let session = open(server.addr, None).await;
    let secret = outside.path().join("secret.txt");
    let reply = call(server.addr, None, Some(&session), &[], call_body("read", json!({"path": secret}))).await;
    assert_eq!(reply.status, StatusCode::OK);
    let result = &reply.json["result"];
    assert_eq!(result["isError"], true);
    assert_eq!(result["structuredContent"]["error"]["code"], "path-outside-root");
    assert!(!result.to_string().contains("secret\\n"));
    let file = target(outside.path());
    let reply = call(server.addr, None, Some(&session), &[], call_body("write", write_args(&file))).await;
    assert_eq!(reply.json["result"]["structuredContent"]["error"]["code"], "path-outside-root");
    assert!(!file.exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn one_session_too_many_gets_503_until_one_ends() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = Server::start(dir.path(), |o| o.max_sessions = 2).await;
    let first = open(server.addr, None).await;
    let _second = open(server.addr, None).await;
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let reply = send(server.addr, "POST", &[], init.to_string().into_bytes()).await;
    assert_refused(&reply, StatusCode::SERVICE_UNAVAILABLE, -32003);
    assert!(reply.session.is_none());
    let headers = [("mcp-session-id", first.as_str()), ("mcp-protocol-version", VERSION)];
    let reply = send(server.addr, "DELETE", &headers, Vec::new()).await;
    assert!(reply.status.is_success(), "{}", reply.status);
    let _third = open(server.addr, None).await;
    // The ended session is gone.
    let reply = call(server.addr, None, Some(&first), &[], call_body("ls", json!({}))).await;
    assert_refused(&reply, StatusCode::NOT_FOUND, -32002);
}

/// An `initialize` POST with `token`.
async fn initialize(addr: SocketAddr, token: &str) -> Reply {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let auth = bearer(token);
    send(addr, "POST", &[("authorization", auth.as_str())], init.to_string().into_bytes()).await
}

/// Issue 48 H4a: every token shared the one session cap, so a token that opened every free
/// place (an idle session stays 30 minutes) locked every other token out. Now a token holds
/// at most its own cap, and another token can still open a session.
#[tokio::test(flavor = "multi_thread")]
async fn one_token_at_its_cap_leaves_room_for_another() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = Server::start(dir.path(), |o| {
        o.tokens = tokens(&format!("{A}\n{B}\n"));
        o.max_sessions = 3;
        o.max_sessions_per_token = 2;
    })
    .await;
    // Token A takes every place it can.
    let mut opened = Vec::new();
    loop {
        let reply = initialize(server.addr, A).await;
        if reply.status != StatusCode::OK {
            assert_refused(&reply, StatusCode::SERVICE_UNAVAILABLE, -32003);
            assert!(reply.session.is_none());
            let message = reply.json["error"]["message"].as_str().unwrap_or_default();
            assert!(message.contains("token"), "{message}");
            break;
        }
        opened.extend(reply.session);
        assert!(opened.len() <= 3, "token A opened {} sessions", opened.len());
    }
    assert_eq!(opened.len(), 2, "token A holds its own cap");
    // Token B still gets a session, and calls in it.
    let session_b = open(server.addr, Some(B)).await;
    let reply = call(server.addr, Some(B), Some(&session_b), &[], call_body("ls", json!({}))).await;
    assert_eq!(reply.json["result"]["isError"], false, "{}", reply.json);
    // The server's own cap still holds: B's second is one too many for the server.
    let reply = initialize(server.addr, B).await;
    assert_refused(&reply, StatusCode::SERVICE_UNAVAILABLE, -32003);

    // With a single token there is no one else to lock out: only the server's cap applies.
    let single = Server::start(dir.path(), |o| {
        o.tokens = tokens(A);
        o.max_sessions = 3;
        o.max_sessions_per_token = 2;
    })
    .await;
    for _ in 0..3 {
        assert!(initialize(single.addr, A).await.session.is_some());
    }
    assert_refused(&initialize(single.addr, A).await, StatusCode::SERVICE_UNAVAILABLE, -32003);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_idle_session_expires() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = Server::start(dir.path(), |o| o.idle_timeout = Duration::from_millis(300)).await;
    let session = open(server.addr, None).await;
    // Used within the timeout: kept.
    for _ in 0..3 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let reply = call(server.addr, None, Some(&session), &[], call_body("ls", json!({}))).await;
        assert_eq!(reply.status, StatusCode::OK);
    }
    tokio::time::sleep(Duration::from_millis(900)).await;
    let reply = call(server.addr, None, Some(&session), &[], call_body("ls", json!({}))).await;
    assert_refused(&reply, StatusCode::NOT_FOUND, -32002);
}

#[test]
fn the_defaults_are_the_documented_ones() {
    let options = HttpOptions::new(ServerOptions::default());
    assert_eq!(options.max_body_bytes, 16 * 1024 * 1024);
    assert_eq!((options.max_sessions, options.max_sessions_per_token), (64, 16));
    assert_eq!(options.max_undo_bytes, 256 * 1024 * 1024);
    assert_eq!(options.idle_timeout, Duration::from_secs(30 * 60));
    assert_eq!(options.drain_timeout, Duration::from_secs(30));
    assert_eq!((options.header_timeout, options.body_timeout), (Duration::from_secs(10), Duration::from_secs(30)));
    assert!(!options.tokens.required() && options.allowed_origins.is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_token_only_loopback_is_served() {
    let options = HttpOptions::new(ServerOptions::default());
    let err = bind_http("0.0.0.0:0".parse().expect("addr"), &options).await.expect_err("refused");
    assert!(err.to_string().contains("token"), "{err}");
}

#[tokio::test(flavor = "multi_thread")]
async fn shutdown_lets_a_call_in_flight_finish_and_refuses_new_ones() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut server = Server::start(dir.path(), |_| {}).await;
    let session = open(server.addr, None).await;
    let file = target(dir.path());

    // A keep-alive connection, ready before the shutdown.
    let stream = TcpStream::connect(server.addr).await.expect("connect");
    let (mut idle_conn, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.expect("handshake");
    tokio::spawn(connection);
    let reply =
        send_on(&mut idle_conn, server.addr, "POST", &[("mcp-session-id", &session)], call_body("ls", json!({}))).await;
    assert_eq!(reply.status, StatusCode::OK);

    // A write whose body is still on its way when the shutdown starts.
    let body = call_body("write", write_args(&file));
    let (head, tail) = body.split_at(body.len() / 2);
    let mut slow = TcpStream::connect(server.addr).await.expect("connect");
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, \
         text/event-stream\r\nMcp-Session-Id: {session}\r\nMcp-Protocol-Version: {VERSION}\r\nContent-Length: \
         {}\r\nConnection: close\r\n\r\n",
        server.addr,
        body.len()
    );
    slow.write_all(request.as_bytes()).await.expect("head");
    slow.write_all(head).await.expect("half");
    tokio::time::sleep(Duration::from_millis(200)).await;

    server.stop();
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!server.task.is_finished(), "the shutdown must wait for the call in flight");
    // A new call is not started.
    let other = dir.path().join("other.txt");
    let reply = send_on(
        &mut idle_conn,
        server.addr,
        "POST",
        &[("mcp-session-id", &session)],
        call_body("write", write_args(&other)),
    )
    .await;
    assert_refused(&reply, StatusCode::SERVICE_UNAVAILABLE, -32004);
    assert!(!other.exists());

    // The call in flight finishes, whole.
    slow.write_all(tail).await.expect("rest");
    let mut answer = String::new();
    slow.read_to_string(&mut answer).await.expect("answer");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("\"isError\":false"), "{answer}");
    assert_eq!(std::fs::read_to_string(&file).expect("written"), "written\n");
    tokio::time::timeout(Duration::from_secs(10), &mut server.task).await.expect("stopped").expect("join").expect("ok");
}

/// The head of an `initialize` POST (no session) whose body is `len` bytes.
fn initialize_head(addr: SocketAddr, len: usize) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {len}\r\n\r\n"
    )
}

/// Reads what the server sends on `stream` until it closes it, at most `within`: the bytes,
/// and whether it closed.
async fn read_until_closed(stream: &mut (impl AsyncReadExt + Unpin), within: Duration) -> (Vec<u8>, bool) {
    let mut got = Vec::new();
    let closed = tokio::time::timeout(within, async {
        let mut buf = [0u8; 4096];
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await
    .is_ok();
    (got, closed)
}

/// Issue 20: an `initialize` whose body arrived at 1 byte/s held the lock that opening a
/// session takes, so every other client's `initialize` waited for it (past a 30 s client
/// timeout), and the slow connection was never closed. Now the body is read before any
/// lock, other clients open sessions and call tools meanwhile, and the slow request gets
/// 408 and its connection is closed once the body timeout passes.
#[tokio::test(flavor = "multi_thread")]
async fn a_body_sent_at_one_byte_a_second_holds_no_one_up_and_is_cut_off() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("a.txt"), "alpha\n").expect("write");
    let body_timeout = Duration::from_secs(4);
    let server = Server::start(dir.path(), |o| o.body_timeout = body_timeout).await;
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "slow", "version": "1"}}})
    .to_string();
    let slow = TcpStream::connect(server.addr).await.expect("connect");
    let (mut slow_read, mut slow_write) = slow.into_split();
    slow_write.write_all(initialize_head(server.addr, init.len()).as_bytes()).await.expect("head");
    let started = std::time::Instant::now();
    let dribble = tokio::spawn(async move {
        for byte in init.into_bytes() {
            if slow_write.write_all(&[byte]).await.is_err() {
                break;
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    });
    // Let the slow request reach the server before the others start.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let others = tokio::time::timeout(Duration::from_secs(10), async {
        let (a, b) = tokio::join!(open(server.addr, None), open(server.addr, None));
        for session in [&a, &b] {
            let reply = call(server.addr, None, Some(session), &[], call_body("read", json!({"path": "a.txt"}))).await;
            assert_eq!(reply.json["result"]["isError"], false, "{}", reply.json);
        }
    })
    .await;
    assert!(others.is_ok(), "two other clients could not initialize and call within 10 s beside a slow body");
    let (answer, closed) = read_until_closed(&mut slow_read, body_timeout + Duration::from_secs(10)).await;
    dribble.abort();
    assert!(closed, "the slow connection is still open {:?} after it started", started.elapsed());
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("-32005"), "{answer}");
}

/// A client that never finishes its request's headers is disconnected after the header
/// timeout.
#[tokio::test(flavor = "multi_thread")]
async fn headers_that_never_end_are_cut_off() {
    let dir = tempfile::tempdir().expect("tempdir");
    let header_timeout = Duration::from_secs(2);
    let server = Server::start(dir.path(), |o| o.header_timeout = header_timeout).await;
    let mut stream = TcpStream::connect(server.addr).await.expect("connect");
    stream.write_all(b"POST /mcp HTTP/1.1\r\nHost: x\r\n").await.expect("part of the head");
    let (_, closed) = read_until_closed(&mut stream, header_timeout + Duration::from_secs(10)).await;
    assert!(closed, "a connection with unfinished headers is still open");
    // An idle connection that sends nothing at all is closed too.
    let mut idle = TcpStream::connect(server.addr).await.expect("connect");
    let (_, closed) = read_until_closed(&mut idle, header_timeout + Duration::from_secs(10)).await;
    assert!(closed, "an idle connection is still open");
    // So is a keep-alive connection that goes quiet after a request.
    let mut quiet = TcpStream::connect(server.addr).await.expect("connect");
    let body = call_body("ls", json!({}));
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: none\r\nContent-Length: {}\r\n\r\n",
        server.addr,
        body.len()
    );
    quiet.write_all(head.as_bytes()).await.expect("head");
    quiet.write_all(&body).await.expect("body");
    let (answer, closed) = read_until_closed(&mut quiet, header_timeout + Duration::from_secs(10)).await;
    assert!(String::from_utf8_lossy(&answer).starts_with("HTTP/1.1 404"), "{}", String::from_utf8_lossy(&answer));
    assert!(closed, "a quiet keep-alive connection is still open");
}

/// A `tools/call` of protocol 2026-07-28: no `initialize`, no session, the protocol named in
/// the request's `_meta`.
#[cfg(unix)]
fn sessionless_call_body(name: &str, args: Value) -> Vec<u8> {
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "sessionless", "version": "1"},
    });
    json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": name, "arguments": args, "_meta": meta}})
        .to_string()
        .into_bytes()
}

/// Issue 48 H5: a call without a session (protocol 2026-07-28) held the lock that opening a
/// session takes for as long as it ran, so another token's `initialize` waited for it (30 s
/// behind a 31 s ast_search). Here the sessionless `write` waits for a lock this test holds
/// on its file, so it is still running when the other token's `initialize` is answered.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread")]
async fn a_sessionless_call_in_flight_holds_up_no_other_clients_initialize() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("locked.txt");
    std::fs::write(&file, "old\n").expect("write");
    let log_path = dir.path().join("calls.jsonl");
    let log = hashline::tools::log::LogWriter::to_file(&log_path).expect("log");
    let server = Server::start(dir.path(), |o| {
        o.tokens = tokens(&format!("{A}\n{B}\n"));
        o.server.log = Some(std::sync::Arc::new(log));
    })
    .await;
    // hashline takes an exclusive `flock` on a file it replaces: this one waits for ours.
    let held = std::fs::File::open(&file).expect("open");
    held.lock().expect("lock");
    let addr = server.addr;
    let args = json!({"path": "locked.txt", "content": "new\n"});
    let slow = tokio::spawn(async move {
        let auth = bearer(A);
        let headers = [
            ("authorization", auth.as_str()),
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "write"),
        ];
        send(addr, "POST", &headers, sessionless_call_body("write", args)).await
    });
    // The call has started once the log has it.
    let started = tokio::time::timeout(Duration::from_secs(20), async {
        while !std::fs::read_to_string(&log_path).unwrap_or_default().contains("locked.txt") {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    assert!(started.is_ok(), "the sessionless call never started");
    let opened = tokio::time::timeout(Duration::from_secs(10), open(addr, Some(B))).await;
    assert!(!slow.is_finished(), "the sessionless call cannot finish while its file is locked");
    assert!(opened.is_ok(), "another token's initialize waited for a sessionless call in flight");
    held.unlock().expect("unlock");
    let reply = tokio::time::timeout(Duration::from_secs(20), slow).await.expect("the call ends").expect("join");
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.json);
    assert_eq!(reply.json["result"]["isError"], false, "{}", reply.json);
    assert_eq!(std::fs::read_to_string(&file).expect("read"), "new\n");
}

/// The change id an edit or write result names.
fn change_id(reply: &Reply) -> String {
    let id = reply.json["result"]["structuredContent"]["changeId"].as_str();
    id.unwrap_or_else(|| panic!("no change id: {}", reply.json)).to_owned()
}

/// Issue 48 H3: each session's changes (what `revert` restores) stayed in memory as long as
/// the session did, so idle sessions with big writes grew the server without a bound (16
/// sessions x six 15 MB writes: 1.2 GiB). Now all sessions' kept changes share one bound;
/// past it the oldest changes, across sessions, are dropped first.
#[tokio::test(flavor = "multi_thread")]
async fn all_sessions_changes_share_one_bound_and_the_oldest_go_first() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = Server::start(dir.path(), |o| o.max_undo_bytes = 1000).await;
    let mut changes = Vec::new();
    // 400 bytes each: the third goes past 1,000, and only the first session's change goes.
    for fill in ["a", "b", "c"] {
        let session = open(server.addr, None).await;
        let name = format!("{fill}.txt");
        let content = format!("{}\n", fill.repeat(399));
        let args = json!({"path": name, "content": content});
        let reply = call(server.addr, None, Some(&session), &[], call_body("write", args)).await;
        assert_eq!(reply.json["result"]["isError"], false, "{}", reply.json);
        changes.push((session, name, change_id(&reply)));
    }
    let revert = |id: &str| call_body("edit", json!({"revert": id}));
    let (first_session, first_file, first_id) = &changes[0];
    let reply = call(server.addr, None, Some(first_session), &[], revert(first_id)).await;
    let result = &reply.json["result"];
    assert_eq!(result["isError"], true, "{}", reply.json);
    assert_eq!(result["structuredContent"]["error"]["code"], "change-expired", "{}", reply.json);
    assert!(dir.path().join(first_file).exists(), "nothing was written");
    // The later ones, in their own sessions, are kept.
    for (session, file, id) in changes[1..].iter().rev() {
        let reply = call(server.addr, None, Some(session), &[], revert(id)).await;
        assert_eq!(reply.json["result"]["isError"], false, "{}", reply.json);
        assert!(!dir.path().join(file).exists(), "the revert of the write that made {file} removed it");
    }
}

/// MCP progress over HTTP: a call with `_meta.progressToken` that runs past a second gets
/// `notifications/progress` with that token on its own response stream, before its result.
/// The call waits for a lock this test holds on the file it writes.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread")]
async fn a_long_call_with_a_progress_token_streams_progress_before_its_result() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("locked.txt");
    std::fs::write(&file, "old\n").expect("write");
    let server = Server::start(dir.path(), |_| {}).await;
    let session = open(server.addr, None).await;
    let held = std::fs::File::open(&file).expect("open");
    held.lock().expect("lock");
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "write", "arguments": {"path": "locked.txt", "content": "new\n"}, "_meta": {"progressToken": 42}}});
    let addr = server.addr;
    let slow = tokio::spawn(async move { call(addr, None, Some(&session), &[], body.to_string().into_bytes()).await });
    tokio::time::sleep(Duration::from_millis(2500)).await;
    held.unlock().expect("unlock");
    let reply = tokio::time::timeout(Duration::from_secs(20), slow).await.expect("the call ends").expect("join");
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.json);
    let (result, progress) = reply.events.split_last().expect("events");
    assert_eq!(result["id"], 7, "{result}");
    assert_eq!(result["result"]["isError"], false, "{result}");
    assert!(!progress.is_empty(), "no progress: {:?}", reply.events);
    for event in progress {
        assert_eq!(event["method"], "notifications/progress", "{event}");
        assert_eq!(event["params"]["progressToken"], 42, "{event}");
    }
}

/// MCP 2025-03-26 over HTTP: a POST whose body is a batch, in a session of that revision, is
/// answered with one JSON array of its requests' responses (any order), and a batch of
/// notifications alone with 202. In a session of a later revision (which removed batching)
/// a batch stays refused, and nothing of it is run.
#[tokio::test(flavor = "multi_thread")]
async fn batches_are_served_in_sessions_of_protocol_2025_03_26_only() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("a.txt"), "alpha\n").expect("write");
    let server = Server::start(dir.path(), |_| {}).await;
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "old", "version": "1"}}});
    let reply = send(server.addr, "POST", &[], init.to_string().into_bytes()).await;
    assert_eq!(reply.json["result"]["protocolVersion"], "2025-03-26", "{}", reply.json);
    let session = reply.session.expect("session");
    let headers = [("mcp-session-id", session.as_str())];
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(send(server.addr, "POST", &headers, note.to_string().into_bytes()).await.status, StatusCode::ACCEPTED);
    let batch = json!([
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "read", "arguments": {"path": "a.txt"}}},
        {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "teleport", "arguments": {}}},
    ]);
    let reply = send(server.addr, "POST", &headers, batch.to_string().into_bytes()).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.json);
    let replies = reply.json.as_array().unwrap_or_else(|| panic!("not an array: {}", reply.json));
    let mut ids: Vec<i64> = replies.iter().filter_map(|r| r["id"].as_i64()).collect();
    ids.sort_unstable();
    assert_eq!(ids, [1, 2, 3], "{}", reply.json);
    let by_id = |id: i64| replies.iter().find(|r| r["id"] == id).expect("reply");
    assert_eq!(by_id(1)["result"], json!({}));
    assert_eq!(by_id(2)["result"]["content"][0]["text"], "snapshot: s7fetm0c9\n1:3c8|alpha");
    assert_eq!(by_id(3)["error"]["code"], -32602);
    // A member that is not a message gets its error, id null, beside the others' replies.
    let mixed = json!(["not a message", {"jsonrpc": "2.0", "id": 4, "method": "ping"}]);
    let reply = send(server.addr, "POST", &headers, mixed.to_string().into_bytes()).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.json);
    let replies = reply.json.as_array().unwrap_or_else(|| panic!("not an array: {}", reply.json));
    assert_eq!(replies.len(), 2, "{}", reply.json);
    let invalid = replies.iter().find(|r| r["id"].is_null()).expect("the invalid member's error");
    assert_eq!(invalid["error"]["code"], -32600, "{}", reply.json);
    insta::assert_snapshot!(invalid["error"]["message"].as_str().unwrap_or(""), @"Invalid request: fail to deserialize request body unrecognized JSON-RPC message (415).");
    assert!(replies.iter().any(|r| r["id"] == 4 && r["result"] == json!({})), "{}", reply.json);
    let reply = send(server.addr, "POST", &headers, b"[]".to_vec()).await;
    assert_refused(&reply, StatusCode::BAD_REQUEST, -32600);
    let notes = json!([{"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}]);
    let reply = send(server.addr, "POST", &headers, notes.to_string().into_bytes()).await;
    assert_eq!(reply.status, StatusCode::ACCEPTED, "{}", reply.json);

    let session = open(server.addr, None).await;
    let headers = [("mcp-session-id", session.as_str()), ("mcp-protocol-version", VERSION)];
    let write = json!([{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "write", "arguments": {"path": "b.txt", "content": "b\n"}}}]);
    let reply = send(server.addr, "POST", &headers, write.to_string().into_bytes()).await;
    assert!(reply.status.is_client_error(), "{} {}", reply.status, reply.json);
    assert!(!dir.path().join("b.txt").exists());
}
