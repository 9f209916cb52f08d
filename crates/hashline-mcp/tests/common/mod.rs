//! What the MCP test programs share: a server over stdio pipes and its client, and a server
//! on a loopback socket with a small HTTP client.
#![allow(dead_code, reason = "each test program uses a part of it")]

use std::net::SocketAddr;
use std::path::Path;

use bytes::Bytes;
use hashline_mcp::http::{HttpOptions, bind_http, serve_http};
use hashline_mcp::{HashlineServer, ServerOptions, StructuredContent, serve};
use http::{Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};
use tokio::net::TcpStream;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// A client on the other ends of two pipes to a server (the stdio framing, in process).
pub struct Client {
    to_server: Option<DuplexStream>,
    /// What the server writes, line by line.
    pub replies: Lines<BufReader<DuplexStream>>,
    running: JoinHandle<Result<(), hashline_mcp::Error>>,
}

impl Client {
    /// A server over `root`, nothing sent yet (protocol 2026-07-28 has no `initialize`).
    pub fn connect(root: &Path) -> Self {
        Self::connect_with(ServerOptions { roots: vec![root.into()], ..Default::default() })
    }

    /// A server with these options, nothing sent yet.
    pub fn connect_with(options: ServerOptions) -> Self {
        let server = HashlineServer::new(options).expect("server");
        let (to_server, server_in) = tokio::io::duplex(1 << 20);
        let (server_out, from_server) = tokio::io::duplex(1 << 20);
        let running = tokio::spawn(serve(server, server_in, server_out));
        Self { to_server: Some(to_server), replies: BufReader::new(from_server).lines(), running }
    }

    /// A server over `root`, initialized with protocol `version`.
    pub async fn start(root: &Path, version: &str) -> Self {
        let mut client = Self::connect(root);
        client
            .send(&json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
                "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "protocol", "version": "1"}}}))
            .await;
        let init = client.next().await;
        assert_eq!(init["result"]["protocolVersion"], version, "{init}");
        client.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
        client
    }

    pub async fn send_raw(&mut self, line: &str) {
        let to_server = self.to_server.as_mut().expect("open");
        to_server.write_all(line.as_bytes()).await.expect("write");
        to_server.write_all(b"\n").await.expect("write");
    }

    pub async fn send(&mut self, message: &Value) {
        self.send_raw(&message.to_string()).await;
    }

    /// The next line the server writes, as JSON.
    pub async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(std::time::Duration::from_secs(30), self.replies.next_line())
            .await
            .expect("an answer within 30 s")
            .expect("read")
            .expect("a line");
        serde_json::from_str(&line).unwrap_or_else(|err| panic!("not JSON: {err}: {line}"))
    }

    pub async fn request(&mut self, message: &Value) -> Value {
        self.send(message).await;
        self.next().await
    }

    pub async fn close(mut self) {
        drop(self.to_server.take());
        self.running.await.expect("join").expect("a clean end");
    }
}

/// `serve_http` on a loopback port of its own.
pub struct Server {
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    pub task: JoinHandle<Result<(), hashline_mcp::Error>>,
}

impl Server {
    /// Serves `root` (structured content on), `tune` adjusting the options first.
    pub async fn start(root: &Path, tune: impl FnOnce(&mut HttpOptions)) -> Self {
        let mut options = HttpOptions::new(ServerOptions {
            roots: vec![root.to_path_buf()],
            structured: StructuredContent::Full,
            ..ServerOptions::default()
        });
        tune(&mut options);
        let listener = bind_http("127.0.0.1:0".parse().expect("addr"), &options).await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let (stop, stopped) = oneshot::channel();
        let task = tokio::spawn(serve_http(listener, options, async {
            let _ = stopped.await;
        }));
        Self { addr, stop: Some(stop), task }
    }

    /// Triggers the graceful shutdown.
    pub fn stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// A reply: status, session header, body as JSON (the `data:` of an event stream).
pub struct Reply {
    pub status: StatusCode,
    pub session: Option<String>,
    pub json: Value,
    /// Every JSON `data:` event of a stream, in order (the body alone when it is JSON).
    pub events: Vec<Value>,
}

pub async fn send(addr: SocketAddr, method: &str, headers: &[(&str, &str)], body: Vec<u8>) -> Reply {
    let stream = TcpStream::connect(addr).await.expect("connect");
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.expect("handshake");
    tokio::spawn(connection);
    send_on(&mut sender, addr, method, headers, body).await
}

pub async fn send_on(
    sender: &mut hyper::client::conn::http1::SendRequest<Full<Bytes>>,
    addr: SocketAddr,
    method: &str,
    headers: &[(&str, &str)],
    body: Vec<u8>,
) -> Reply {
    let mut request = Request::builder().method(method).uri("/mcp");
    if !headers.iter().any(|(name, _)| name.eq_ignore_ascii_case("host")) {
        request = request.header("host", addr.to_string());
    }
    request =
        request.header("content-type", "application/json").header("accept", "application/json, text/event-stream");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response =
        sender.send_request(request.body(Full::new(Bytes::from(body))).expect("request")).await.expect("send");
    let status = response.status();
    let session = response.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::to_owned);
    let bytes = response.into_body().collect().await.expect("body").to_bytes();
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let events = match serde_json::from_str::<Value>(&text) {
        Ok(value) => vec![value],
        Err(_) => text
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
            .collect(),
    };
    Reply { status, session, json: parse_reply(&text), events }
}

/// The JSON body, or the last JSON `data:` event of a stream; `Null` when neither.
pub fn parse_reply(text: &str) -> Value {
    if let Ok(value) = serde_json::from_str(text) {
        return value;
    }
    text.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
        .next_back()
        .unwrap_or(Value::Null)
}
