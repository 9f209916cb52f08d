//! The MCP server in-process: an application that already speaks MCP to its model serves
//! the hashline tools over any pair of async streams (here in-memory pipes; `hashline mcp`
//! uses stdin and stdout).
//!
//! Run with `cargo run -p hashline-mcp --example in_process`.

use hashline_mcp::{HashlineServer, ServerOptions, serve};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let project = tempfile::tempdir()?;
    std::fs::write(project.path().join("notes.txt"), "alpha\nbeta\n")?;
    let server = HashlineServer::new(ServerOptions { roots: vec![project.path().into()], ..Default::default() })?;

    let (mut to_server, server_in) = tokio::io::duplex(1 << 16);
    let (server_out, from_server) = tokio::io::duplex(1 << 16);
    let running = tokio::spawn(serve(server, server_in, server_out));
    let mut replies = BufReader::new(from_server).lines();

    let messages = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "example", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "read", "arguments": {"path": "notes.txt"}}}),
    ];
    for message in messages {
        to_server.write_all(format!("{message}\n").as_bytes()).await?;
    }
    for _ in 0..3 {
        let reply: Value = serde_json::from_str(&replies.next_line().await?.ok_or("a reply")?)?;
        match reply["id"].as_i64() {
            Some(1) => println!("server: {}", reply["result"]["serverInfo"]["name"]),
            Some(2) => {
                let tools = reply["result"]["tools"].as_array().ok_or("tools")?;
                let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
                println!("tools: {names:?}");
            }
            _ => println!("read:\n{}", reply["result"]["content"][0]["text"].as_str().unwrap_or_default()),
        }
    }
    drop(to_server);
    running.await??;
    Ok(())
}
