//! What the MCP revisions ask of a server, over the stdio framing (in process): protocol
//! errors for what is not a tool call's own failure (an unknown tool, a cursor this server
//! never gave).

use hashline_mcp::{HashlineServer, ServerOptions, serve};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};
use tokio::task::JoinHandle;

/// A client on the other ends of two pipes to a server over `root`.
struct Client {
    to_server: Option<DuplexStream>,
    replies: Lines<BufReader<DuplexStream>>,
    running: JoinHandle<Result<(), hashline_mcp::Error>>,
}

impl Client {
    /// A server over `root`, initialized with protocol `version`.
    async fn start(root: &std::path::Path, version: &str) -> Self {
        let server =
            HashlineServer::new(ServerOptions { roots: vec![root.into()], ..Default::default() }).expect("server");
        let (to_server, server_in) = tokio::io::duplex(1 << 20);
        let (server_out, from_server) = tokio::io::duplex(1 << 20);
        let running = tokio::spawn(serve(server, server_in, server_out));
        let mut client = Self { to_server: Some(to_server), replies: BufReader::new(from_server).lines(), running };
        client
            .send(&json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
                "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "protocol", "version": "1"}}}))
            .await;
        let init = client.next().await;
        assert_eq!(init["result"]["protocolVersion"], version, "{init}");
        client.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
        client
    }

    async fn send_raw(&mut self, line: &str) {
        let to_server = self.to_server.as_mut().expect("open");
        to_server.write_all(line.as_bytes()).await.expect("write");
        to_server.write_all(b"\n").await.expect("write");
    }

    async fn send(&mut self, message: &Value) {
        self.send_raw(&message.to_string()).await;
    }

    /// The next line the server writes, as JSON.
    async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(std::time::Duration::from_secs(30), self.replies.next_line())
            .await
            .expect("an answer within 30 s")
            .expect("read")
            .expect("a line");
        serde_json::from_str(&line).unwrap_or_else(|err| panic!("not JSON: {err}: {line}"))
    }

    async fn request(&mut self, message: &Value) -> Value {
        self.send(message).await;
        self.next().await
    }

    async fn close(mut self) {
        drop(self.to_server.take());
        self.running.await.expect("join").expect("a clean end");
    }
}

/// MCP: "Unknown tools: … SHOULD return a JSON-RPC error", -32602 (invalid params); the
/// conformance suite checks it. Also when the arguments are not an object (the request
/// then reaches the server as a custom request).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_of_an_unknown_tool_is_an_invalid_params_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut client = Client::start(dir.path(), "2025-06-18").await;
    let mut messages = Vec::new();
    for (id, arguments) in [("object", json!({})), ("array", json!([1])), ("none", Value::Null)] {
        let mut params = json!({"name": "teleport"});
        if !arguments.is_null() {
            params["arguments"] = arguments;
        }
        let reply =
            client.request(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})).await;
        assert_eq!(reply["id"], id, "{reply}");
        assert_eq!(reply["error"]["code"], -32602, "{reply}");
        assert!(reply.get("result").is_none(), "{reply}");
        messages.push(reply["error"]["message"].as_str().unwrap_or("").to_owned());
    }
    messages.dedup();
    assert_eq!(messages.len(), 1, "{messages:?}");
    insta::assert_snapshot!(messages[0], @"Unknown tool: teleport. Available tools: read, edit, write, ls, find, grep, ast_search.");
    // The name is the client's text: escaped where the message shows it.
    let reply = client
        .request(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "read\nok:1", "arguments": {}}}))
        .await;
    insta::assert_snapshot!(reply["error"]["message"].as_str().unwrap_or(""), @r"Unknown tool: read\u000aok:1. Available tools: read, edit, write, ls, find, grep, ast_search.");
    // A known tool still answers with its own result, an error one included.
    let reply = client
        .request(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "read", "arguments": {"path": "missing.txt"}}}))
        .await;
    assert_eq!(reply["result"]["isError"], true, "{reply}");
    client.close().await;
}

/// MCP pagination: "Invalid cursors SHOULD result in an error with code -32602". The tools
/// come in one page, so no cursor is one this server gave.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tools_list_cursor_this_server_never_gave_is_an_invalid_params_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut client = Client::start(dir.path(), "2025-06-18").await;
    let list = client.request(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})).await;
    assert_eq!(list["result"]["tools"].as_array().map(Vec::len), Some(7), "{list}");
    assert!(list["result"].get("nextCursor").is_none(), "{list}");
    let mut messages = Vec::new();
    for cursor in ["not-a-cursor", ""] {
        let reply = client
            .request(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"cursor": cursor}}))
            .await;
        assert_eq!(reply["error"]["code"], -32602, "{reply}");
        messages.push(reply["error"]["message"].as_str().unwrap_or("").to_owned());
    }
    messages.dedup();
    assert_eq!(messages.len(), 1, "{messages:?}");
    insta::assert_snapshot!(messages[0], @"Invalid params for tools/list: unknown cursor. Every tool is listed in one page; list them without a cursor.");
    // Without one, or with a null one, the list is whole.
    let list =
        client.request(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"cursor": null}})).await;
    assert_eq!(list["result"]["tools"].as_array().map(Vec::len), Some(7), "{list}");
    client.close().await;
}
