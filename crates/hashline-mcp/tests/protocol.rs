//! What the MCP revisions ask of a server, over the stdio framing (in process): protocol
//! errors for what is not a tool call's own failure (an unknown tool, a cursor this server
//! never gave).

mod common;

use common::Client;
use serde_json::{Value, json};

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

/// MCP progress: a call whose request carries `_meta.progressToken` gets
/// `notifications/progress` with that token while it runs past a second (the progress
/// growing); a call without one gets none. The call is held by a lock this test takes on
/// the file it writes (hashline takes an exclusive `flock` on a file it replaces).
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_call_with_a_progress_token_gets_progress_notifications() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("locked.txt");
    std::fs::write(&file, "old\n").expect("write");
    let mut client = Client::start(dir.path(), "2025-06-18").await;
    for (id, token) in [("with", Some(json!("tok-1"))), ("without", None)] {
        let held = std::fs::File::open(&file).expect("open");
        held.lock().expect("lock");
        let mut params = json!({"name": "write", "arguments": {"path": "locked.txt", "content": format!("{id}\n")}});
        if let Some(token) = &token {
            params["_meta"] = json!({"progressToken": token});
        }
        client.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})).await;
        // The call waits for the lock: 2.5 s of what the server sends meanwhile.
        let mut seen = Vec::new();
        let until = tokio::time::Instant::now() + std::time::Duration::from_millis(2500);
        while let Ok(line) = tokio::time::timeout_at(until, client.replies.next_line()).await {
            seen.push(serde_json::from_str::<Value>(&line.expect("read").expect("a line")).expect("json"));
        }
        held.unlock().expect("unlock");
        let reply = client.next().await;
        assert_eq!(reply["id"], id, "{reply}");
        assert_eq!(reply["result"]["isError"], false, "{reply}");
        assert!(seen.iter().all(|m| m["method"] == "notifications/progress"), "{seen:?}");
        match token {
            Some(token) => {
                assert!(!seen.is_empty(), "no progress in 2.5 s");
                let progress: Vec<f64> = seen.iter().filter_map(|m| m["params"]["progress"].as_f64()).collect();
                assert!(seen.iter().all(|m| m["params"]["progressToken"] == token), "{seen:?}");
                assert!(progress.windows(2).all(|w| w[0] < w[1]), "{progress:?}");
                assert_eq!(seen[0]["params"], json!({"progressToken": token, "progress": 1.0}), "{seen:?}");
            }
            None => assert!(seen.is_empty(), "{seen:?}"),
        }
    }
    assert_eq!(std::fs::read_to_string(&file).expect("read"), "without\n");
    client.close().await;
}

/// MCP 2025-03-26: implementations "MUST support receiving JSON-RPC batches". In a session of
/// that revision a batch is answered with one array of its requests' responses (any order),
/// its notifications answered by nothing, its invalid members by their errors; an empty one
/// is one `-32600`. Later revisions removed batching: a batch there stays refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batches_are_served_on_protocol_2025_03_26_only() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("a.txt"), "alpha\n").expect("write");
    let batch = json!([
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "id": "read", "method": "tools/call", "params": {"name": "read", "arguments": {"path": "a.txt"}}},
        {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "teleport", "arguments": {}}},
        {"jsonrpc": "2.0", "id": 4, "method": 7},
        "not a message",
    ]);
    let mut client = Client::start(dir.path(), "2025-03-26").await;
    client.send(&batch).await;
    let reply = client.next().await;
    let replies = reply.as_array().unwrap_or_else(|| panic!("not an array: {reply}"));
    let mut by_id: Vec<(String, &Value)> = replies.iter().map(|r| (r["id"].to_string(), r)).collect();
    by_id.sort_by(|a, b| a.0.cmp(&b.0));
    let ids: Vec<&str> = by_id.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, ["\"read\"", "1", "3", "4", "null"], "{reply}");
    assert_eq!(by_id[0].1["result"]["content"][0]["text"], "snapshot: s7fetm0c9\n1:3c8|alpha", "{reply}");
    assert_eq!(by_id[1].1["result"], json!({}), "{reply}");
    assert_eq!(by_id[2].1["error"]["code"], -32602, "{reply}");
    assert_eq!(by_id[3].1["error"]["code"], -32600, "{reply}");
    assert_eq!(by_id[4].1["error"]["code"], -32600, "{reply}");
    // Only notifications: no answer at all; the next request is answered alone.
    client.send(&json!([{"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}])).await;
    let reply = client.request(&json!({"jsonrpc": "2.0", "id": 5, "method": "ping"})).await;
    assert_eq!(reply, json!({"jsonrpc": "2.0", "id": 5, "result": {}}));
    let reply = client.request(&json!([])).await;
    assert_eq!(reply["error"]["code"], -32600, "{reply}");
    client.close().await;

    let mut client = Client::start(dir.path(), "2025-06-18").await;
    let reply = client.request(&batch).await;
    assert_eq!(reply["error"]["code"], -32600, "{reply}");
    assert_eq!(reply["id"], Value::Null, "{reply}");
    insta::assert_snapshot!(reply["error"]["message"].as_str().unwrap_or(""), @"Invalid request: batches are not supported.");
    let reply = client.request(&json!({"jsonrpc": "2.0", "id": 5, "method": "ping"})).await;
    assert_eq!(reply["result"], json!({}), "{reply}");
    client.close().await;
}

/// A request of a batch that is cancelled gets no response: the batch's array is written
/// without it, at the cancellation, not never. The write waits for a lock this test holds.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_with_a_cancelled_request_is_answered_without_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("locked.txt");
    std::fs::write(&file, "old\n").expect("write");
    let mut client = Client::start(dir.path(), "2025-03-26").await;
    let held = std::fs::File::open(&file).expect("open");
    held.lock().expect("lock");
    client
        .send(&json!([
            {"jsonrpc": "2.0", "id": "w", "method": "tools/call", "params": {"name": "write", "arguments": {"path": "locked.txt", "content": "new\n"}}},
            {"jsonrpc": "2.0", "id": "p", "method": "ping"},
        ]))
        .await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    client.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "w"}})).await;
    let reply = client.next().await;
    assert_eq!(reply, json!([{"jsonrpc": "2.0", "id": "p", "result": {}}]));
    held.unlock().expect("unlock");
    let reply = client.request(&json!({"jsonrpc": "2.0", "id": 9, "method": "ping"})).await;
    assert_eq!(reply, json!({"jsonrpc": "2.0", "id": 9, "result": {}}));
    client.close().await;
}
