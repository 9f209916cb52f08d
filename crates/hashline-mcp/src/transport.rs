//! Newline-delimited JSON-RPC over a byte stream (MCP's stdio framing), hardened.
//!
//! rmcp's own stdio transport drops a line that is not JSON without a word, answers a
//! well-formed message of the wrong shape with an `Invalid request` whose id is null (so
//! the client's call with that id never completes), and ends the connection on a
//! notification that arrives before `initialize`. This one answers instead:
//!
//! - a line that is not JSON → `-32700 Parse error` with `"id": null`, and reads on;
//! - a message whose id is not a string or a signed 64-bit integer (a fraction, a bigger
//!   integer, an object, a boolean, null) → `-32600 Invalid request` with `"id": null`;
//! - a message of the wrong shape → `-32600 Invalid request` (or `-32602`) **with the
//!   request's id** when it has one (a request whose params do not fit its method reaches
//!   the handler as a custom request, see `HashlineServer::on_custom_request`);
//! - a line longer than the limit → `-32600` (id null), its bytes skipped unbuffered;
//! - notifications and responses before the handshake → ignored;
//! - a JSON-RPC batch (an array) → in a session of protocol 2025-03-26, whose revision
//!   requires them, its members served and their responses written as one array (see
//!   [`Batches`]); on any other revision `-32600` (id null), later revisions having
//!   removed batching.
//!
//! Reading and writing run on their own tasks: a reader parses lines ahead of the
//! service loop, and a writer gathers every response that is ready into one write.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{
    ClientJsonRpcMessage, ClientNotification, ClientRequest, ErrorData, GetMeta, JsonRpcMessage, ProtocolVersion,
    RequestId, ServerJsonRpcMessage, ServerResult,
};
use rmcp::service::RoleServer;
use rmcp::transport::Transport;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// The default longest accepted message line, in bytes.
pub(crate) const DEFAULT_MAX_LINE: usize = 64 * 1024 * 1024;

/// How many parsed messages may wait for the service loop, and serialized responses for
/// the writer.
const QUEUE: usize = 256;

/// The server side of a newline-delimited JSON-RPC connection.
pub(crate) struct LineTransport {
    incoming: mpsc::Receiver<ClientJsonRpcMessage>,
    outgoing: Option<mpsc::Sender<Vec<u8>>>,
    reader: JoinHandle<()>,
    batches: Arc<Batches>,
}

/// JSON-RPC batches, served only in a session of protocol 2025-03-26 (that revision says a
/// server MUST accept them; 2025-06-18 removed them). The responses to a batch's requests
/// are held until the last one is ready, then written as one array with the errors of its
/// invalid members; a batch of notifications alone gets no answer. A request of a batch
/// that is cancelled (and so gets no response) is no longer waited for.
#[derive(Default)]
struct Batches {
    /// Set once the server answers `initialize` with protocol 2025-03-26.
    on: AtomicBool,
    open: Mutex<Vec<Batch>>,
}

/// One batch whose responses are being gathered.
struct Batch {
    waiting: HashSet<RequestId>,
    /// The members' responses as JSON, each without its newline.
    replies: Vec<Vec<u8>>,
}

impl Batches {
    fn on(&self) -> bool {
        self.on.load(Ordering::Relaxed)
    }

    fn open(&self) -> std::sync::MutexGuard<'_, Vec<Batch>> {
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A response (`json`, without its newline) to request `id`: what to write now (its
    /// line, or its batch's array once it completes the batch), or `None` while its batch
    /// waits for others.
    fn route(&self, id: Option<&RequestId>, json: Vec<u8>) -> Option<Vec<u8>> {
        if self.on()
            && let Some(id) = id
        {
            let mut open = self.open();
            if let Some(at) = open.iter().position(|batch| batch.waiting.contains(id)) {
                open[at].waiting.remove(id);
                open[at].replies.push(json);
                return open[at].waiting.is_empty().then(|| array(open.swap_remove(at).replies));
            }
        }
        Some(line(json))
    }

    /// Request `id` will get no response (cancelled): its batch's array, if that completes it.
    fn forget(&self, id: &RequestId) -> Option<Vec<u8>> {
        let mut open = self.open();
        let at = open.iter().position(|batch| batch.waiting.contains(id))?;
        open[at].waiting.remove(id);
        open[at].waiting.is_empty().then(|| array(open.swap_remove(at).replies))
    }
}

/// JSON texts as one array line.
fn array(replies: Vec<Vec<u8>>) -> Vec<u8> {
    let mut out = b"[".to_vec();
    for (i, reply) in replies.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(&reply);
    }
    out.extend_from_slice(b"]\n");
    out
}

fn line(mut json: Vec<u8>) -> Vec<u8> {
    json.push(b'\n');
    json
}

/// The writer task: done once every response handed to the transport is written (or
/// the peer is gone).
pub(crate) struct Flushed(JoinHandle<()>);

impl Flushed {
    /// Waits until the writer is done, at most `timeout` (a peer that stops reading
    /// must not keep the process alive).
    pub(crate) async fn wait(self, timeout: std::time::Duration) {
        let _ = tokio::time::timeout(timeout, self.0).await;
    }
}

impl LineTransport {
    /// Starts the reader and writer tasks (call inside a Tokio runtime). The writer ends
    /// after the transport is closed or dropped and everything sent is written.
    pub(crate) fn new<R, W>(read: R, write: W, max_line: usize) -> (Self, Flushed)
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (outgoing, to_write) = mpsc::channel(QUEUE);
        let (to_serve, incoming) = mpsc::channel(QUEUE);
        let batches = Arc::new(Batches::default());
        let writer = tokio::spawn(write_loop(write, to_write));
        let reader = tokio::spawn(read_loop(read, max_line, to_serve, outgoing.clone(), Arc::clone(&batches)));
        (Self { incoming, outgoing: Some(outgoing), reader, batches }, Flushed(writer))
    }
}

impl Drop for LineTransport {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

impl Transport<RoleServer> for LineTransport {
    type Error = std::io::Error;

    fn send(&mut self, item: ServerJsonRpcMessage) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let id = match &item {
            JsonRpcMessage::Response(response) => {
                if let ServerResult::InitializeResult(init) = &response.result
                    && init.protocol_version == ProtocolVersion::V_2025_03_26
                {
                    self.batches.on.store(true, Ordering::Relaxed);
                }
                Some(response.id.clone())
            }
            JsonRpcMessage::Error(error) => error.id.clone(),
            _ => None,
        };
        let json = encode_json(item);
        let batches = Arc::clone(&self.batches);
        let outgoing = self.outgoing.clone();
        async move {
            let Some(line) = batches.route(id.as_ref(), json?) else { return Ok(()) };
            match outgoing {
                Some(outgoing) => outgoing.send(line).await.map_err(|_| closed()),
                None => Err(closed()),
            }
        }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        self.incoming.recv().await
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.reader.abort();
        self.incoming.close();
        // The writer ends once every sender is gone, after writing what it was given.
        drop(self.outgoing.take());
        Ok(())
    }
}

fn closed() -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::NotConnected, "the connection is closed")
}

/// One message as a line. An error without a request id says `"id": null` (JSON-RPC
/// 2.0), where rmcp would leave the id out.
fn encode(message: ServerJsonRpcMessage) -> std::io::Result<Vec<u8>> {
    encode_json(message).map(line)
}

/// One message as JSON, without a newline.
fn encode_json(message: ServerJsonRpcMessage) -> std::io::Result<Vec<u8>> {
    Ok(match message {
        JsonRpcMessage::Error(error) if error.id.is_none() => {
            serde_json::to_vec(&serde_json::json!({"jsonrpc": "2.0", "id": null, "error": error.error}))?
        }
        message => crate::direct::encode_response(message)?,
    })
}

/// Writes responses as they come, all that are ready in one write, then flushes.
async fn write_loop<W: AsyncWrite + Unpin>(mut write: W, mut lines: mpsc::Receiver<Vec<u8>>) {
    let mut batch = Vec::new();
    while let Some(line) = lines.recv().await {
        // A line alone is written as it is (a read's answer can be hundreds of KB); lines
        // that are ready together are gathered into one write.
        let ready = match lines.try_recv() {
            Ok(more) => {
                batch.clear();
                batch.extend_from_slice(&line);
                batch.extend_from_slice(&more);
                while batch.len() < 1 << 20
                    && let Ok(more) = lines.try_recv()
                {
                    batch.extend_from_slice(&more);
                }
                &batch
            }
            Err(_) => &line,
        };
        if write.write_all(ready).await.is_err() || write.flush().await.is_err() {
            // The peer is gone: nothing more can be delivered.
            break;
        }
    }
    let _ = write.shutdown().await;
}

/// What one line of input turned out to be.
#[derive(Debug)]
enum Frame {
    /// A message for the service.
    Message(Box<ClientJsonRpcMessage>),
    /// An error to answer with, directly.
    Reply(Box<ServerJsonRpcMessage>),
    /// Nothing to do (a blank line, a malformed notification or response).
    Ignore,
}

/// Reads lines, turns each into a [`Frame`], and routes it.
async fn read_loop<R: AsyncRead + Unpin>(
    read: R,
    max_line: usize,
    to_serve: mpsc::Sender<ClientJsonRpcMessage>,
    outgoing: mpsc::Sender<Vec<u8>>,
    batches: Arc<Batches>,
) {
    let mut reader = BufReader::with_capacity(64 * 1024, read);
    let mut line = Vec::new();
    let mut handshake_seen = false;
    loop {
        line.clear();
        let frame = match read_line(&mut reader, &mut line, max_line).await {
            Ok(LineRead::Line) if batches.on() && is_array(&line) => {
                if serve_batch(&line, &batches, &to_serve, &outgoing).await.is_err() {
                    break;
                }
                continue;
            }
            Ok(LineRead::Line) => decode(&line),
            Ok(LineRead::TooLong) => Frame::Reply(Box::new(JsonRpcMessage::error(
                ErrorData::invalid_request(format!("Message too large: the limit is {max_line} bytes per line."), None),
                None,
            ))),
            Ok(LineRead::Eof) | Err(_) => break,
        };
        match frame {
            Frame::Message(message) => {
                if let Some(done) = cancelled(&message).and_then(|id| batches.forget(id))
                    && outgoing.send(done).await.is_err()
                {
                    break;
                }
                match message.as_ref() {
                    JsonRpcMessage::Request(request) if starts_session(&request.request) => handshake_seen = true,
                    // Before the handshake rmcp accepts only requests; anything else would end it.
                    JsonRpcMessage::Request(_) => {}
                    _ if !handshake_seen => continue,
                    _ => {}
                }
                if to_serve.send(*message).await.is_err() {
                    break;
                }
            }
            Frame::Reply(reply) => {
                let Ok(bytes) = encode(*reply) else { continue };
                if outgoing.send(bytes).await.is_err() {
                    break;
                }
            }
            Frame::Ignore => {}
        }
    }
}

/// Whether a line holds a JSON array (a batch): its first byte that is not blank or a BOM.
fn is_array(line: &[u8]) -> bool {
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    line.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[')
}

/// The request a `notifications/cancelled` names.
fn cancelled(message: &ClientJsonRpcMessage) -> Option<&RequestId> {
    match message {
        JsonRpcMessage::Notification(note) => match &note.notification {
            ClientNotification::CancelledNotification(cancel) => cancel.params.request_id.as_ref(),
            _ => None,
        },
        _ => None,
    }
}

/// Serves one batch (protocol 2025-03-26): each member as a line of its own would be, its
/// requests' responses gathered into one array with its members' errors ([`Batches`]).
/// `Err` when the service or the writer is gone.
async fn serve_batch(
    line: &[u8],
    batches: &Batches,
    to_serve: &mpsc::Sender<ClientJsonRpcMessage>,
    outgoing: &mpsc::Sender<Vec<u8>>,
) -> Result<(), ()> {
    let members = match serde_json::from_slice::<Vec<Value>>(line) {
        Ok(members) if !members.is_empty() => members,
        Ok(_) => {
            let error = ErrorData::invalid_request("Invalid request: the batch is empty.".to_owned(), None);
            let reply = encode(JsonRpcMessage::error(error, None)).map_err(drop)?;
            return outgoing.send(reply).await.map_err(drop);
        }
        // Not JSON after all: answered as any such line is.
        Err(_) => {
            let Frame::Reply(reply) = decode(line) else { return Ok(()) };
            return outgoing.send(encode(*reply).map_err(drop)?).await.map_err(drop);
        }
    };
    let mut messages = Vec::new();
    let mut waiting = HashSet::new();
    let mut replies = Vec::new();
    for member in members {
        match decode(&serde_json::to_vec(&member).map_err(drop)?) {
            Frame::Message(message) => {
                if let JsonRpcMessage::Request(request) = message.as_ref() {
                    waiting.insert(request.id.clone());
                }
                messages.push(*message);
            }
            Frame::Reply(reply) => replies.push(encode_json(*reply).map_err(drop)?),
            Frame::Ignore => {}
        }
    }
    if waiting.is_empty() {
        if !replies.is_empty() {
            outgoing.send(array(replies)).await.map_err(drop)?;
        }
    } else {
        // Registered before any member is served, so no response can miss its batch.
        batches.open().push(Batch { waiting, replies });
    }
    for message in messages {
        if let Some(done) = cancelled(&message).and_then(|id| batches.forget(id)) {
            outgoing.send(done).await.map_err(drop)?;
        }
        to_serve.send(message).await.map_err(drop)?;
    }
    Ok(())
}

/// Whether a request opens the session: `initialize`, or a request that carries the
/// inline protocol version (the 2026-07-28 lifecycle).
fn starts_session(request: &ClientRequest) -> bool {
    matches!(request, ClientRequest::InitializeRequest(_)) || request.get_meta().protocol_version().is_some()
}

enum LineRead {
    Line,
    TooLong,
    Eof,
}

/// Reads one `\n`-terminated line (a last line without one counts) into `line`; a line
/// longer than `max_line` is consumed without being kept.
async fn read_line<R: AsyncRead + Unpin>(
    reader: &mut BufReader<R>,
    line: &mut Vec<u8>,
    max_line: usize,
) -> std::io::Result<LineRead> {
    let mut too_long = false;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(match (too_long, line.is_empty()) {
                (true, _) => LineRead::TooLong,
                (false, true) => LineRead::Eof,
                (false, false) => LineRead::Line,
            });
        }
        let newline = memchr(available);
        let take = newline.map_or(available.len(), |at| at + 1);
        if !too_long {
            if line.len() + take > max_line.saturating_add(1) {
                too_long = true;
                line.clear();
            } else {
                line.extend_from_slice(&available[..take]);
            }
        }
        reader.consume(take);
        if newline.is_some() {
            return Ok(if too_long { LineRead::TooLong } else { LineRead::Line });
        }
    }
}

fn memchr(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == b'\n')
}

/// Classifies one line.
fn decode(line: &[u8]) -> Frame {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Frame::Ignore;
    }
    let error = match serde_json::from_slice::<ClientJsonRpcMessage>(line) {
        // A message with an id is never a notification: rmcp's notification type just
        // ignores an id it could not read as a request's.
        Ok(JsonRpcMessage::Notification(notification)) => match serde_json::from_slice::<Value>(line) {
            Ok(value) if value.get("id").is_some() => return id_error(&value),
            _ => return Frame::Message(Box::new(JsonRpcMessage::Notification(notification))),
        },
        Ok(message) => return Frame::Message(Box::new(message)),
        Err(error) => error,
    };
    let Ok(value) = serde_json::from_slice::<Value>(line) else {
        return reply(ErrorData::parse_error(format!("Parse error: {error}."), None), None);
    };
    shape_error(&value, &error)
}

/// A message's `id` member.
enum Id {
    /// No `id`: a notification.
    Absent,
    /// A string, or an integer rmcp can echo (signed 64-bit, also written as `2.0`).
    Valid(RequestId),
    /// Anything else, described.
    Invalid(String),
}

fn request_id(object: &serde_json::Map<String, Value>) -> Id {
    let Some(id) = object.get("id") else { return Id::Absent };
    if let Ok(valid) = serde_json::from_value::<RequestId>(id.clone()) {
        return Id::Valid(valid);
    }
    Id::Invalid(match id {
        Value::Null => "null".to_owned(),
        Value::Bool(_) => "a boolean".to_owned(),
        Value::Number(n) if n.as_f64().is_some_and(|f| f.fract() != 0.0) => format!("a fractional number ({n})"),
        Value::Number(n) => format!("an integer out of range ({n})"),
        Value::String(_) => "a string".to_owned(),
        Value::Array(_) => "an array".to_owned(),
        Value::Object(_) => "an object".to_owned(),
    })
}

/// The answer to a message whose `id` cannot be a request's (or that has an id but is
/// otherwise a notification).
fn id_error(value: &Value) -> Frame {
    let Some(object) = value.as_object() else { return Frame::Ignore };
    let is_response = object.contains_key("result") || object.contains_key("error");
    match request_id(object) {
        Id::Invalid(_) if is_response => Frame::Ignore,
        Id::Invalid(what) => reply(
            ErrorData::invalid_request(
                format!(
                    "Invalid request: the id must be a string or an integer from -2^63 to 2^63-1, received {what}."
                ),
                None,
            ),
            None,
        ),
        Id::Valid(id) => reply(
            ErrorData::invalid_request("Invalid request: a request needs a valid method and params.".to_owned(), None),
            Some(id),
        ),
        Id::Absent => Frame::Ignore,
    }
}

/// The answer to a well-formed JSON value that is not a valid client message.
fn shape_error(value: &Value, error: &serde_json::Error) -> Frame {
    let Some(object) = value.as_object() else {
        let what = if value.is_array() { "batches are not supported" } else { "expected a JSON-RPC object" };
        return reply(ErrorData::invalid_request(format!("Invalid request: {what}."), None), None);
    };
    let id = match request_id(object) {
        Id::Invalid(_) => return id_error(value),
        Id::Valid(id) => Some(id),
        Id::Absent => None,
    };
    let method = object.get("method").and_then(Value::as_str);
    let version_ok = object.get("jsonrpc").and_then(Value::as_str) == Some("2.0");
    match (id, method) {
        (Some(id), Some(method)) if version_ok => {
            reply(ErrorData::invalid_params(format!("Invalid params for {method}: {error}."), None), Some(id))
        }
        (Some(id), Some(_)) => reply(
            ErrorData::invalid_request("Invalid request: \"jsonrpc\" must be \"2.0\".".to_owned(), None),
            Some(id),
        ),
        // A malformed notification gets no answer; a malformed response has no one to go to.
        (None, Some(_)) => Frame::Ignore,
        (Some(_), None) if object.contains_key("result") || object.contains_key("error") => Frame::Ignore,
        (id, None) => reply(ErrorData::invalid_request(format!("Invalid request: {error}."), None), id),
    }
}

fn reply(error: ErrorData, id: Option<RequestId>) -> Frame {
    Frame::Reply(Box::new(JsonRpcMessage::error(error, id)))
}

/// One line as the fuzz targets see it.
#[cfg(feature = "fuzzing")]
pub(crate) fn classify(line: &[u8]) -> crate::fuzzing::LineOutcome {
    use crate::fuzzing::LineOutcome;
    match decode(line) {
        Frame::Message(message) => LineOutcome::Message(serde_json::to_value(message.as_ref()).unwrap_or(Value::Null)),
        Frame::Reply(reply) => LineOutcome::Reply(encode(*reply).unwrap_or_default()),
        Frame::Ignore => LineOutcome::Ignore,
    }
}

/// Shared by tests: the JSON of a frame's reply, as written.
#[cfg(test)]
fn reply_json(frame: &Frame) -> Option<Value> {
    match frame {
        Frame::Reply(reply) => serde_json::from_slice(&encode((**reply).clone()).ok()?).ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn frame(line: &str) -> Frame {
        decode(line.as_bytes())
    }

    #[test]
    fn a_line_that_is_not_json_is_a_parse_error() {
        let reply = reply_json(&frame("{not json")).expect("reply");
        assert_eq!(reply["error"]["code"], -32700);
        // JSON-RPC 2.0: an error without a request id carries `"id": null`, not no id.
        assert_eq!(reply.get("id"), Some(&Value::Null), "{reply}");
        let bytes = encode(JsonRpcMessage::error(ErrorData::parse_error("x", None), None)).expect("encode");
        assert!(String::from_utf8_lossy(&bytes).starts_with(r#"{"jsonrpc":"2.0","id":null,"error":"#));
    }

    #[test]
    fn requests_with_invalid_ids_get_invalid_request_with_a_null_id() {
        for id in ["1.5", "18446744073709551616", "9223372036854775808", "{\"a\":1}", "true", "null", "[1]"] {
            let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
            let reply = reply_json(&frame(&line)).unwrap_or_else(|| panic!("no reply for id {id}"));
            assert_eq!(reply["error"]["code"], -32600, "{id}: {reply}");
            assert_eq!(reply.get("id"), Some(&Value::Null), "{id}: {reply}");
            let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"read"}}}}"#);
            assert!(reply_json(&frame(&line)).is_some_and(|r| r["error"]["code"] == -32600), "{id}");
            let line = format!(r#"{{"jsonrpc":"2.0","id":{id}}}"#);
            assert!(reply_json(&frame(&line)).is_some_and(|r| r["error"]["code"] == -32600), "{id}");
        }
        let reply = reply_json(&frame(r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#)).expect("reply");
        insta::assert_snapshot!(reply["error"]["message"].as_str().unwrap_or(""), @"Invalid request: the id must be a string or an integer from -2^63 to 2^63-1, received a fractional number (1.5).");
        // Valid ids pass: strings, integers in the signed 64-bit range, integers written as floats.
        for id in ["\"x\"", "-9223372036854775808", "9223372036854775807", "0", "2.0"] {
            let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
            assert!(matches!(frame(&line), Frame::Message(_)), "{id}");
        }
    }

    #[test]
    fn a_request_of_the_wrong_shape_is_answered_with_its_id() {
        let reply = reply_json(&frame(r#"{"jsonrpc":"2.0","id":7,"method":7}"#)).expect("reply");
        assert_eq!(reply["error"]["code"], -32600);
        assert_eq!(reply["id"], 7);
        let reply = reply_json(&frame(r#"{"jsonrpc":"1.0","id":"x","method":"ping"}"#)).expect("reply");
        assert_eq!(reply["error"]["code"], -32600);
        assert_eq!(reply["id"], "x");
        let reply = reply_json(&frame(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#)).expect("reply");
        assert_eq!(reply["error"]["code"], -32600);
        let reply = reply_json(&frame("42")).expect("reply");
        assert_eq!(reply["error"]["code"], -32600);
    }

    #[test]
    fn malformed_notifications_and_blank_lines_are_ignored() {
        assert!(matches!(frame(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":7}"#), Frame::Ignore));
        assert!(matches!(frame("   \r\n"), Frame::Ignore));
    }

    #[test]
    fn a_valid_message_passes_unchanged() {
        let line =
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","arguments":{"path":"a"}}}"#;
        assert!(matches!(frame(line), Frame::Message(_)));
        assert!(matches!(frame("\u{feff}{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\r\n"), Frame::Message(_)));
    }

    async fn run(input: &'static [u8], max_line: usize) -> (Vec<Value>, Vec<Value>) {
        let (server_out, mut client_in) = tokio::io::duplex(1 << 16);
        let (mut transport, flushed) = LineTransport::new(input, server_out, max_line);
        let mut received = Vec::new();
        while let Some(message) = transport.receive().await {
            received.push(serde_json::to_value(&message).expect("json"));
        }
        transport.close().await.expect("close");
        flushed.wait(std::time::Duration::from_secs(5)).await;
        let mut written = Vec::new();
        tokio::io::AsyncReadExt::read_to_end(&mut client_in, &mut written).await.expect("read");
        let replies = written
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).expect("reply json"))
            .collect();
        (received, replies)
    }

    #[tokio::test]
    async fn the_stream_goes_on_after_bad_lines() {
        let input = concat!(
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            "\n",
            "garbage\n",
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":2,"method":["tools/list"]}"#,
            "\n",
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            "\n",
            "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n",
            r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#
        );
        let (received, replies) = run(input.as_bytes(), 2000).await;
        let methods: Vec<&str> = received.iter().filter_map(|m| m["method"].as_str()).collect();
        // The notification before `initialize` is dropped; the last line needs no newline.
        assert_eq!(methods, ["initialize", "notifications/initialized", "ping"]);
        let codes: Vec<(i64, Value)> =
            replies.iter().map(|r| (r["error"]["code"].as_i64().unwrap_or(0), r["id"].clone())).collect();
        assert_eq!(codes, [(-32700, Value::Null), (-32600, json!(2)), (-32700, Value::Null)]);
    }

    #[tokio::test]
    async fn an_oversized_line_is_refused_and_skipped() {
        let input = concat!(
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
            "\n"
        );
        let (received, replies) = run(input.as_bytes(), 64).await;
        assert_eq!(received.len(), 1);
        assert_eq!(received[0]["id"], 2);
        assert_eq!(replies.len(), 1);
        assert_eq!(replies[0]["error"]["code"], -32600);
    }
}
