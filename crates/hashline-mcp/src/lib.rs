//! # hashline-mcp
//!
//! The hash-anchored file tools of [`hashline`] as a Model Context Protocol server over
//! stdio (`hashline mcp`), built on the official Rust SDK, `rmcp`.
//!
//! - **The registry is the only list**: every tool of [`hashline::Toolbox`] is served with
//!   its description, input and output JSON Schemas, and annotations (`readOnlyHint`,
//!   `destructiveHint`, `idempotentHint`, `openWorldHint`).
//! - **Results**: text blocks become MCP text content, image reads MCP image content, and a
//!   tool failure is an `isError: true` result, never a JSON-RPC error (an unknown tool, or a
//!   `tools/list` cursor, is no tool's failure: `-32602`). By default that is
//!   all a result holds, and no tool lists an `outputSchema`: hosts that find a
//!   `structuredContent` show their model its JSON instead of the text (Claude Code, Codex),
//!   so the text alone is what reaches every model as written. With
//!   [`StructuredContent::Full`] (`hashline mcp --structured-content full`),
//!   `structuredContent` is the tool's `ptcValue` (an error's with `error.code`) and each
//!   tool lists its output schema, for programs and code-mode hosts.
//! - **One session per connection**, stateful (read-before-edit gate and served-lines
//!   guard on). Its roots: [`ServerOptions::roots`] when given; else the client's
//!   `file://` roots (`roots/list`) when it declares the `roots` capability; else the
//!   process working directory.
//! - **Every revision**: 2024-11-05 to 2025-11-25 open that session with `initialize`; a
//!   request of 2026-07-28 names its revision, client and capabilities in its `_meta` and is
//!   served without one (`server/discover` lists the revisions; a method that revision removed,
//!   `initialize` among them, is `-32601`, over HTTP 404). Such a request asks nothing of the
//!   client and needs no capability it did not declare.
//! - **Concurrency**: each call runs on a thread of its own (its worker thread, whose other
//!   tasks move to the runtime meanwhile), so calls on one connection run in parallel; the
//!   session serializes mutations of one file.
//! - **Robust framing**: a line that is not JSON gets a `-32700` parse error with
//!   `"id": null`; a request whose id is not a string or a signed 64-bit integer (a
//!   fraction, a larger integer, an object, a boolean, null) gets `-32600` with
//!   `"id": null`; a request of the wrong shape an error with its own id; and the server
//!   reads on. `tools/call` with non-object arguments reaches the tool, which answers
//!   `invalid-type`.
//! - **Cancellation**: `notifications/cancelled` for an `edit` or `write` that has not
//!   committed yet stops it before it writes anything (its result, logged with code
//!   `cancelled`, gets no reply); one that has committed stays written. A cancelled
//!   `ast_search` stops its walk and match soon after, not only its reply.
//! - **Batches**: a JSON-RPC batch is served (one array of responses) in a session of
//!   protocol 2025-03-26, which requires them, over stdio and HTTP, and refused on later
//!   revisions (`-32600` over stdio, 415 over HTTP).
//! - **Progress**: a call whose request carries `_meta.progressToken` gets
//!   `notifications/progress` with it every second while it runs.
//!
//! ```
//! use hashline_mcp::{serve, HashlineServer, ServerOptions};
//! use serde_json::{json, Value};
//! use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
//!
//! # #[tokio::main] async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! std::fs::write(dir.path().join("notes.txt"), "alpha\nbeta\n")?;
//! let server = HashlineServer::new(ServerOptions { roots: vec![dir.path().into()], ..Default::default() })?;
//!
//! // A client on the other ends of two pipes.
//! let (mut to_server, server_in) = tokio::io::duplex(1 << 16);
//! let (server_out, from_server) = tokio::io::duplex(1 << 16);
//! let running = tokio::spawn(serve(server, server_in, server_out));
//! let mut replies = BufReader::new(from_server).lines();
//!
//! for message in [
//!     json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
//!         "protocolVersion": "2025-06-18", "capabilities": {},
//!         "clientInfo": {"name": "example", "version": "1"}}}),
//!     json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
//!     json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
//!         "params": {"name": "read", "arguments": {"path": "notes.txt"}}}),
//! ] {
//!     to_server.write_all(format!("{message}\n").as_bytes()).await?;
//! }
//! let init: Value = serde_json::from_str(&replies.next_line().await?.unwrap())?;
//! assert_eq!(init["result"]["serverInfo"]["name"], "hashline");
//! let read: Value = serde_json::from_str(&replies.next_line().await?.unwrap())?;
//! assert_eq!(read["result"]["content"][0]["text"], "snapshot: snm8kqa8k\n1:3c8|alpha\n2:589|beta");
//! // The text is the result: no structuredContent unless ServerOptions::structured asks for it.
//! assert!(read["result"].get("structuredContent").is_none());
//!
//! drop(to_server); // end of input: the server finishes cleanly
//! running.await??;
//! # Ok(()) }
//! ```
#![warn(missing_docs)]

mod direct;
mod error;
pub mod hosts;
pub mod http;
mod roots;
mod server;
mod transport;
mod undo;

#[cfg(feature = "fuzzing")]
pub mod fuzzing {
    //! What the fuzz targets drive (feature `fuzzing`; not a stable API).

    /// What the transport does with one input line, as JSON.
    #[derive(Debug)]
    pub enum LineOutcome {
        /// Passed on to the service: the message as parsed.
        Message(serde_json::Value),
        /// Answered at once: the reply line exactly as written.
        Reply(Vec<u8>),
        /// Nothing to do.
        Ignore,
    }

    /// Classifies one input line (its `\n` included or not).
    pub fn classify_line(line: &[u8]) -> LineOutcome {
        crate::transport::classify(line)
    }
}

use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::service::ServerInitializeError;
use tokio::io::{AsyncRead, AsyncWrite};

pub use error::Error;
pub use server::{HashlineServer, INSTRUCTIONS, ServerOptions, StructuredContent};

/// How long the end of a connection may take to write its last responses.
const FLUSH_TIMEOUT: Duration = Duration::from_secs(5);

/// Serves one MCP connection over a byte stream pair (newline-delimited JSON-RPC) until
/// the client closes its end. Returns `Ok` on a clean end, including a client that goes
/// away before or during the handshake.
pub async fn serve<R, W>(mut server: HashlineServer, read: R, write: W) -> Result<(), Error>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    // This transport writes `structuredContent` straight from the typed value.
    server.write_structured_directly();
    let (transport, flushed) = transport::LineTransport::new(read, write, transport::DEFAULT_MAX_LINE);
    let outcome = match server.serve(transport).await {
        Ok(running) => running.waiting().await.map(drop).map_err(Error::Service),
        Err(ServerInitializeError::ConnectionClosed(_)) => Ok(()),
        Err(err) => Err(Error::Handshake(Box::new(err))),
    };
    flushed.wait(FLUSH_TIMEOUT).await;
    outcome
}

/// Serves one MCP connection over the process's standard input and output (call inside
/// a multi-threaded Tokio runtime). Nothing else may write to standard output.
pub async fn serve_stdio(server: HashlineServer) -> Result<(), Error> {
    let (read, write) = rmcp::transport::stdio_pipes();
    serve(server, read, write).await
}
