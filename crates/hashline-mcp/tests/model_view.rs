//! What a model is shown of every tool's results, in both kinds of agent host, pinned
//! (issue 47): a content-first host (Gemini CLI, opencode) shows the text blocks; a
//! structured-first host (Claude Code, Codex CLI) shows `JSON.stringify(structuredContent)`
//! when a result has one, else the text. Each tool's success and error result is served
//! over the stdio transport in both server modes, and what each host class shows is
//! snapshotted. In the default mode both classes show the same text; with
//! `--structured-content full` a structured-first host shows the value instead.

use std::fmt::Write as _;

use hashline_mcp::{HashlineServer, ServerOptions, StructuredContent, serve};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};

struct Client {
    to_server: tokio::io::DuplexStream,
    replies: Lines<BufReader<tokio::io::DuplexStream>>,
    next_id: u64,
}

impl Client {
    async fn start(root: &std::path::Path, structured: StructuredContent, client_name: &str) -> Self {
        let options = ServerOptions { roots: vec![root.into()], structured, ..Default::default() };
        let server = HashlineServer::new(options).expect("server");
        let (to_server, server_in) = tokio::io::duplex(1 << 20);
        let (server_out, from_server) = tokio::io::duplex(1 << 20);
        tokio::spawn(serve(server, server_in, server_out));
        let mut client = Self { to_server, replies: BufReader::new(from_server).lines(), next_id: 0 };
        client
            .request(
                "initialize",
                json!({"protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": client_name, "version": "1"}}),
            )
            .await;
        client.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
        client
    }

    async fn send(&mut self, message: Value) {
        self.to_server.write_all(format!("{message}\n").as_bytes()).await.expect("send");
    }

    async fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await;
        loop {
            let line = self.replies.next_line().await.expect("line").expect("a reply");
            let reply: Value = serde_json::from_str(&line).expect("json");
            if reply["id"] == id {
                return reply["result"].clone();
            }
        }
    }

    async fn call(&mut self, name: &str, arguments: Value) -> Value {
        self.request("tools/call", json!({"name": name, "arguments": arguments})).await
    }
}

/// What a content-first host shows: the text blocks.
fn content_first(result: &Value) -> String {
    let texts: Vec<&str> =
        result["content"].as_array().into_iter().flatten().filter_map(|block| block["text"].as_str()).collect();
    texts.join("\n")
}

/// What a structured-first host shows: `JSON.stringify(structuredContent)` when there is
/// one (for a success; Claude Code shows an error's text), else the text.
fn structured_first(result: &Value) -> String {
    match result.get("structuredContent") {
        Some(value) if result["isError"] != true => value.to_string(),
        _ => content_first(result),
    }
}

/// `text` with the workspace's path as `<root>`; on Windows (in JSON, its `\` escaped) the
/// separators of a path below it are written `/`, so that one snapshot serves both.
fn redact(text: &str, root: &str) -> String {
    if !cfg!(windows) {
        return text.replace(root, "<root>");
    }
    let text = text.replace(&root.replace('\\', "\\\\"), "<root>").replace(root, "<root>");
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find("<root>") {
        let (before, from) = rest.split_at(at + "<root>".len());
        out.push_str(before);
        let end = from.find(|c: char| c == '"' || c.is_whitespace() || c == ')' || c == ',').unwrap_or(from.len());
        out.push_str(&from[..end].replace("\\\\", "/").replace('\\', "/"));
        rest = &from[end..];
    }
    out.push_str(rest);
    out
}

/// Every tool, one success and one error each, in a fixed workspace.
fn calls() -> Vec<(&'static str, &'static str, Value)> {
    vec![
        ("read", "ok", json!({"path": "src/lib.rs"})),
        ("read", "error", json!({"path": "missing.rs"})),
        ("grep", "ok", json!({"pattern": "fn "})),
        ("grep", "error", json!({"pattern": "("})),
        ("ast_search", "ok", json!({"pattern": "fn $NAME() {}", "lang": "rust"})),
        ("ast_search", "error", json!({"pattern": "fn $NAME() {}", "lang": "klingon"})),
        ("ls", "ok", json!({})),
        ("ls", "error", json!({"path": "nowhere"})),
        ("find", "ok", json!({"pattern": "*.rs"})),
        ("find", "error", json!({"pattern": "*.rs", "path": "nowhere"})),
        ("write", "ok", json!({"path": "notes.txt", "content": "one\ntwo\n"})),
        ("write", "error", json!({"path": "src", "content": "x"})),
    ]
}

/// Runs the workspace's calls and an edit, a stale edit (refused with fresh rows), in one
/// server; returns the transcript of what each host class was shown.
async fn transcript(structured: StructuredContent) -> String {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join("src")).expect("mkdir");
    std::fs::write(dir.path().join("src/lib.rs"), "fn alpha() {}\n\nfn beta() {}\n").expect("write");
    let mut client = Client::start(dir.path(), structured, "model-view").await;
    let mut out = String::new();
    let root = dir.path().to_string_lossy().into_owned();
    let mut record = |tool: &str, case: &str, result: &Value| {
        let clean = |text: String| redact(&text, &root);
        let text = clean(content_first(result));
        let json = clean(structured_first(result));
        write!(out, "== {tool} {case}\n-- content-first host ({} chars)\n{text}\n", text.chars().count()).unwrap();
        if json == text {
            writeln!(out, "-- structured-first host: the same").unwrap();
        } else {
            write!(out, "-- structured-first host ({} chars)\n{json}\n", json.chars().count()).unwrap();
        }
    };
    let mut anchor = String::new();
    for (tool, case, arguments) in calls() {
        let result = client.call(tool, arguments).await;
        assert_eq!(result["isError"] == true, case == "error", "{tool} {case}: {result}");
        if (tool, case) == ("read", "ok") {
            // The model copies the anchor of line 1 from the rows it was shown.
            let text = content_first(&result);
            anchor =
                text.lines().find(|l| l.starts_with("1:")).and_then(|l| l.split('|').next()).expect("row 1").to_owned();
        }
        record(tool, case, &result);
    }
    let edit =
        json!({"path": "src/lib.rs", "edits": [{"set_line": {"anchor": anchor, "new_text": "fn alpha() { 1 }"}}]});
    let edited = client.call("edit", edit.clone()).await;
    record("edit", "ok", &edited);
    let stale = client.call("edit", edit).await;
    record("edit", "error (the same edit again: its anchor is stale)", &stale);
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_each_host_class_is_shown_by_default() {
    insta::assert_snapshot!(transcript(StructuredContent::Off).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_each_host_class_is_shown_with_structured_content_full() {
    insta::assert_snapshot!(transcript(StructuredContent::Full).await);
}
