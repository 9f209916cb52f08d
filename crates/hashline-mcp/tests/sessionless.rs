//! Protocol 2026-07-28 over stdio (in process) and Streamable HTTP (a loopback socket): no
//! `initialize` and no session, each request carrying its revision, client and capabilities
//! in `_meta`. `server/discover`, and the revision's error rules as the official conformance
//! suite checks them (its `server-stateless` scenario): a removed or unknown method is
//! `-32601` (HTTP 404), a request without its required `_meta` fields `-32602` (HTTP 400), a
//! revision the server does not speak `-32022` (HTTP 400); and no request needs a capability
//! the client did not declare, so none is refused with `-32021` nor asks the client for
//! anything.

mod common;

use common::{Client, Server};
use hashline_mcp::ServerOptions;
use http::StatusCode;
use serde_json::{Value, json};

const MODERN: &str = "2026-07-28";

/// Every revision the server speaks, as `server/discover` lists them.
const REVISIONS: [&str; 5] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"];

/// The request `_meta` of protocol 2026-07-28 with these client capabilities.
fn meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": "sessionless", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

fn request(id: i64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// One server, reached over stdio or over HTTP.
enum Transport {
    Stdio(Client),
    Http(Server),
}

impl Transport {
    /// Both transports, each serving `root`.
    async fn both(root: &std::path::Path) -> [Self; 2] {
        [Self::Stdio(Client::connect(root)), Self::Http(Server::start(root, |_| {}).await)]
    }

    fn name(&self) -> &'static str {
        match self {
            Self::Stdio(_) => "stdio",
            Self::Http(_) => "http",
        }
    }

    /// Sends one request and returns its answer, with the HTTP status over HTTP. Over stdio
    /// the next line the server writes must be that answer: no request or notification of
    /// the server's own comes first.
    async fn ask(&mut self, message: &Value) -> (Option<StatusCode>, Value) {
        self.ask_with(message, &[]).await
    }

    /// As [`Self::ask`], with these HTTP headers besides the standard ones, which are
    /// mirrored from the body as a client of 2026-07-28 sends them (`MCP-Protocol-Version`,
    /// `Mcp-Method`, `Mcp-Name` from a `name`, `uri` or `taskId`); a header given here replaces its standard one.
    async fn ask_with(&mut self, message: &Value, extra: &[(&str, &str)]) -> (Option<StatusCode>, Value) {
        match self {
            Self::Stdio(client) => {
                let reply = client.request(message).await;
                assert_eq!(reply["id"], message["id"], "not the answer to {message}: {reply}");
                (None, reply)
            }
            Self::Http(server) => {
                let version = message["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"]
                    .as_str()
                    .unwrap_or(MODERN)
                    .to_owned();
                let method = message["method"].as_str().unwrap_or_default().to_owned();
                let mut headers: Vec<(&str, &str)> = vec![("mcp-protocol-version", &version), ("mcp-method", &method)];
                let params = &message["params"];
                if let Some(name) = ["name", "uri", "taskId"].iter().find_map(|key| params[key].as_str()) {
                    headers.push(("mcp-name", name));
                }
                headers.retain(|(name, _)| !extra.iter().any(|(other, _)| other.eq_ignore_ascii_case(name)));
                headers.extend_from_slice(extra);
                let reply = common::send(server.addr, "POST", &headers, message.to_string().into_bytes()).await;
                assert!(reply.session.is_none(), "a session id minted for {message}");
                assert!(
                    reply.events.iter().all(|event| event.get("method").is_none()),
                    "a message of the server's own on the stream of {message}: {:?}",
                    reply.events
                );
                (Some(reply.status), reply.json)
            }
        }
    }

    async fn close(self) {
        match self {
            Self::Stdio(client) => client.close().await,
            Self::Http(mut server) => {
                server.stop();
                server.task.await.expect("join").expect("a clean shutdown");
            }
        }
    }
}

/// Asserts a JSON-RPC error with this code and the request's id, and over HTTP this status.
fn assert_error(answer: &(Option<StatusCode>, Value), id: i64, code: i64, status: StatusCode, what: &str) {
    let (got, reply) = answer;
    assert_eq!(reply["id"], id, "{what}: {reply}");
    assert_eq!(reply["error"]["code"], code, "{what}: {reply}");
    assert!(reply.get("result").is_none(), "{what}: {reply}");
    if let Some(got) = got {
        assert_eq!(*got, status, "{what}: {reply}");
    }
}

/// MCP 2026-07-28, versioning: "Servers MUST implement server/discover". It lists every
/// revision served (the sessions of 2025-11-25 and earlier too), the tools capability and
/// nothing else, and names the server in the result's `_meta`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_discover_lists_the_revisions_and_the_tools_capability() {
    let dir = tempfile::tempdir().expect("tempdir");
    for mut transport in Transport::both(dir.path()).await {
        let what = transport.name();
        let (status, reply) = transport.ask(&request(1, "server/discover", json!({"_meta": meta(json!({}))}))).await;
        assert!(status.is_none_or(|status| status == StatusCode::OK), "{what}: {reply}");
        let result = &reply["result"];
        assert_eq!(result["supportedVersions"], json!(REVISIONS), "{what}: {reply}");
        assert_eq!(result["capabilities"], json!({"tools": {}}), "{what}: {reply}");
        assert_eq!(result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "hashline", "{what}: {reply}");
        assert_eq!(result["instructions"], hashline_mcp::INSTRUCTIONS, "{what}");
        transport.close().await;
    }
}

/// MCP 2026-07-28: `initialize`, `ping`, `logging/setLevel`, `resources/subscribe` and
/// `resources/unsubscribe` are gone, and "if the server does not implement the requested
/// RPC method, it MUST respond with 404 Not Found and a JSON-RPC error with code -32601".
/// So is an unknown method, and `tasks/get`: the server declares no tasks extension (SEP-2663
/// keeps `-32021` for a server that declares it, asked by a client that did not).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn removed_and_unknown_methods_are_method_not_found_and_http_404() {
    let dir = tempfile::tempdir().expect("tempdir");
    let methods = [
        ("initialize", json!({})),
        ("ping", json!({})),
        ("logging/setLevel", json!({"level": "info"})),
        ("logging/setLevel", json!({})),
        ("resources/subscribe", json!({"uri": "file:///a.txt"})),
        ("resources/unsubscribe", json!({})),
        ("tasks/get", json!({"taskId": "t-1"})),
        ("unknown/method", json!({})),
    ];
    let mut initialize = Vec::new();
    for mut transport in Transport::both(dir.path()).await {
        for (id, (method, params)) in (1..).zip(&methods) {
            let mut params = params.clone();
            params["_meta"] = meta(json!({}));
            let answer = transport.ask(&request(id, method, params)).await;
            let what = format!("{} {method}", transport.name());
            assert_error(&answer, id, -32601, StatusCode::NOT_FOUND, &what);
            if *method == "initialize" {
                initialize.push(answer.1["error"]["message"].as_str().unwrap_or_default().to_owned());
            }
        }
        transport.close().await;
    }
    initialize.dedup();
    assert_eq!(initialize.len(), 1, "{initialize:?}");
    insta::assert_snapshot!(initialize[0], @"Method not found: initialize. Protocol 2026-07-28 has no initialize: each request carries its protocol version in _meta (server/discover lists the versions this server speaks). An initialize without that _meta opens a session of an earlier version.");
}

/// MCP 2026-07-28, per-request fields: "A request missing any required field is malformed;
/// the server MUST reject it with JSON-RPC error code -32602 (Invalid params). On HTTP, the
/// response status MUST be 400 Bad Request." `clientInfo` is not required: a request
/// without it is served.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_without_its_required_meta_is_invalid_params_and_http_400() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("a.txt"), "alpha\n").expect("write");
    let full = meta(json!({}));
    let without = |key: &str| {
        let mut meta = full.clone();
        meta.as_object_mut().expect("object").remove(key);
        meta
    };
    for mut transport in Transport::both(dir.path()).await {
        let what = transport.name();
        let malformed = [
            request(1, "server/discover", json!({})),
            request(2, "server/discover", json!({"_meta": without("io.modelcontextprotocol/protocolVersion")})),
            request(3, "server/discover", json!({"_meta": without("io.modelcontextprotocol/clientCapabilities")})),
            request(
                4,
                "tools/call",
                json!({"name": "read", "arguments": {"path": "a.txt"},
                    "_meta": without("io.modelcontextprotocol/clientCapabilities")}),
            ),
        ];
        for message in &malformed {
            let id = message["id"].as_i64().unwrap_or_default();
            let answer = transport.ask(message).await;
            assert_error(&answer, id, -32602, StatusCode::BAD_REQUEST, &format!("{what} {message}"));
        }
        let served = request(
            5,
            "tools/call",
            json!({"name": "read", "arguments": {"path": "a.txt"}, "_meta": without("io.modelcontextprotocol/clientInfo")}),
        );
        let (status, reply) = transport.ask(&served).await;
        assert!(status.is_none_or(|status| status == StatusCode::OK), "{what}: {reply}");
        assert_eq!(reply["result"]["content"][0]["text"], "snapshot: s7fetm0c9\n1:3c8|alpha", "{what}: {reply}");
        transport.close().await;
    }
}

/// MCP 2026-07-28, versioning: a revision the server does not speak gets an
/// `UnsupportedProtocolVersionError` (`-32022`) listing the ones it does and echoing the one
/// asked for; on HTTP with 400. Over HTTP an `MCP-Protocol-Version` header that differs from
/// the `_meta` is a `HeaderMismatch` (`-32020`, 400).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revision_the_server_does_not_speak_is_refused_with_the_ones_it_does() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut unknown = meta(json!({}));
    unknown["io.modelcontextprotocol/protocolVersion"] = json!("1900-01-01");
    for mut transport in Transport::both(dir.path()).await {
        let what = transport.name();
        let answer = transport.ask(&request(1, "server/discover", json!({"_meta": unknown}))).await;
        assert_error(&answer, 1, -32022, StatusCode::BAD_REQUEST, what);
        assert_eq!(answer.1["error"]["data"], json!({"supported": REVISIONS, "requested": "1900-01-01"}), "{what}");
        if matches!(transport, Transport::Http(_)) {
            let message = request(2, "server/discover", json!({"_meta": unknown}));
            let answer = transport.ask_with(&message, &[("mcp-protocol-version", MODERN)]).await;
            assert_error(&answer, 2, -32020, StatusCode::BAD_REQUEST, "header mismatch");
        }
        transport.close().await;
    }
}

/// MCP 2026-07-28: "A server MUST NOT rely on capabilities the client has not declared. If
/// processing a request requires a capability the client did not include in
/// io.modelcontextprotocol/clientCapabilities, the server MUST return a
/// MissingRequiredClientCapabilityError (-32021)". No request of hashline's needs one: every
/// tool runs for a client that declares none, and the server asks nothing of the client (no
/// `roots/list`, even from a client that declares `roots`: the roots are the server's).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_request_needs_a_capability_the_client_did_not_declare() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("a.txt"), "alpha\n").expect("write");
    for mut transport in Transport::both(dir.path()).await {
        let what = transport.name();
        for capabilities in [json!({}), json!({"roots": {}})] {
            let new_file = format!("{what}-{}.txt", capabilities.as_object().map_or(0, serde_json::Map::len));
            let calls = [
                ("read", json!({"path": "a.txt"})),
                ("ls", json!({})),
                ("find", json!({"pattern": "*.txt"})),
                ("grep", json!({"pattern": "alpha"})),
                ("write", json!({"path": new_file, "content": "beta\n"})),
            ];
            for (id, (name, arguments)) in (1..).zip(&calls) {
                let params = json!({"name": name, "arguments": arguments, "_meta": meta(capabilities.clone())});
                let (status, reply) = transport.ask(&request(id, "tools/call", params)).await;
                assert!(status.is_none_or(|status| status == StatusCode::OK), "{what} {name}: {reply}");
                assert_eq!(reply["result"]["isError"], false, "{what} {name} ({capabilities}): {reply}");
            }
        }
        let (_, list) = transport.ask(&request(9, "tools/list", json!({"_meta": meta(json!({}))}))).await;
        assert_eq!(list["result"]["tools"].as_array().map(Vec::len), Some(7), "{what}: {list}");
        transport.close().await;
    }
    // Over stdio without `--root` a session of 2025-11-25 asks a client that declares `roots`
    // for them; a request of 2026-07-28 is answered without asking (the working directory).
    let mut transport = Transport::Stdio(Client::connect_with(ServerOptions::default()));
    let params = json!({"name": "ls", "arguments": {}, "_meta": meta(json!({"roots": {"listChanged": true}}))});
    let (_, reply) = transport.ask(&request(1, "tools/call", params)).await;
    assert_eq!(reply["result"]["isError"], false, "{reply}");
    transport.close().await;
}

/// Issue 49: with no session, state travels in snapshot tags. A read's tag serves a later
/// request's edit (over HTTP a request is served by a session of its own, which has read
/// nothing), landing on the line meant however far another program moved it; without the tag
/// the same edit is refused by the read gate over HTTP.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_then_an_edit_by_its_snapshot_tag_lands_and_its_undo_works_without_a_session() {
    for index in 0..2 {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("far.txt");
        std::fs::write(&file, "keep\ntarget\nend\n").expect("write");
        let mut transport = Transport::both(dir.path()).await.into_iter().nth(index).expect("transport");
        let name = transport.name();
        let call = |id: i64, tool: &str, args: Value| {
            request(id, "tools/call", json!({"name": tool, "arguments": args, "_meta": meta(json!({}))}))
        };
        let (_, read) = transport.ask(&call(1, "read", json!({"path": "far.txt"}))).await;
        let text = read["result"]["content"][0]["text"].as_str().unwrap_or_default().to_owned();
        let tag = text.lines().next().and_then(|l| l.strip_prefix("snapshot: ")).expect("a tag").to_owned();
        let header: String = (0..300).map(|i| format!("header {i}\n")).collect();
        std::fs::write(&file, format!("{header}keep\ntarget\nend\n")).expect("write");
        let anchor = format!("2:{}", hashline::core::LineHash::of(b"target"));
        let edits = json!([{"set_line": {"anchor": anchor, "new_text": "TARGET"}}]);
        if name == "http" {
            let (_, refused) = transport.ask(&call(2, "edit", json!({"path": "far.txt", "edits": edits}))).await;
            assert_eq!(refused["result"]["isError"], true, "{name}: {refused}");
        }
        let args = json!({"path": "far.txt", "snapshot": tag, "edits": edits});
        let (_, edited) = transport.ask(&call(3, "edit", args)).await;
        assert_eq!(edited["result"]["isError"], false, "{name}: {edited}");
        assert_eq!(std::fs::read_to_string(&file).expect("read"), format!("{header}keep\nTARGET\nend\n"), "{name}");
        // The undo the result offers works in a later request: a principal's sessionless
        // requests share one session over HTTP (found by the third-party clients lane:
        // FastMCP's and the AI SDK's revert was `change-unknown`), the connection's over stdio.
        let text = edited["result"]["content"][0]["text"].as_str().unwrap_or_default().to_owned();
        let id = text.lines().find_map(|l| l.strip_prefix("Change ")?.split(' ').next()).expect("a change id");
        let (_, reverted) = transport.ask(&call(4, "edit", json!({"revert": id}))).await;
        assert_eq!(reverted["result"]["isError"], false, "{name}: {reverted}");
        assert_eq!(std::fs::read_to_string(&file).expect("read"), format!("{header}keep\ntarget\nend\n"), "{name}");
        transport.close().await;
    }
}
