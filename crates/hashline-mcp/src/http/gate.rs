//! The checks in front of rmcp's Streamable HTTP service: shutdown, bearer token, session
//! ownership and the session counts (the server's, and each token's); the sessions' idle
//! clock; the count of requests in flight (for a graceful shutdown).

use std::collections::HashMap;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{HeaderValue, Method, Request, Response, StatusCode, header};
use http_body::{Body, Frame, SizeHint};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use rmcp::transport::streamable_http_server::SessionManager;
use rmcp::transport::streamable_http_server::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use super::auth::Tokens;
use crate::HashlineServer;

/// A response body as rmcp builds them.
pub(crate) type HttpBody = BoxBody<Bytes, Infallible>;

/// The MCP session header.
const SESSION_HEADER: &str = "mcp-session-id";

/// JSON-RPC error codes of the refusals (server-defined range, see docs/protocol.md).
pub(crate) mod code {
    /// No bearer token, or not a known one (HTTP 401).
    pub const UNAUTHORIZED: i64 = -32001;
    /// The session id is unknown, ended, or belongs to another token (HTTP 404).
    pub const SESSION_NOT_FOUND: i64 = -32002;
    /// The server, or the token, already holds its most sessions (HTTP 503).
    pub const TOO_MANY_SESSIONS: i64 = -32003;
    /// The server is shutting down (HTTP 503).
    pub const SHUTTING_DOWN: i64 = -32004;
    /// The request's body did not arrive within the body timeout (HTTP 408).
    pub const BODY_TIMEOUT: i64 = -32005;
    /// The request's body is larger than the bound (HTTP 413).
    pub const BODY_TOO_LARGE: i64 = -32006;
    /// The request's body could not be read (HTTP 400), or a batch's member is invalid.
    pub const BAD_BODY: i64 = -32600;
    /// A batch's body is not JSON (HTTP 400).
    pub const PARSE_ERROR: i64 = -32700;
    /// The server failed to answer (HTTP 500): a bug.
    pub const INTERNAL: i64 = -32603;
}

/// How the gate reads request bodies.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BodyLimits {
    /// The largest body, in bytes.
    pub max_bytes: usize,
    /// How long the whole body may take to arrive once the headers are in.
    pub timeout: Duration,
}

/// How many sessions may be open, and for how long unused.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SessionLimits {
    /// The most sessions open at once.
    pub max: usize,
    /// The most one token may hold (`None`: no cap of its own).
    pub per_token: Option<usize>,
    /// A session unused this long is ended.
    pub idle_timeout: Duration,
}

/// One open session: whose it is and when it was last used.
struct Entry {
    token: Option<usize>,
    last_seen: Instant,
    active: usize,
    /// Opened with protocol 2025-03-26, which has JSON-RPC batches.
    batches: bool,
}

/// The sessions the gate knows: the open ones, and the tokens of the `initialize` requests
/// being answered (each holds a place, so the count holds without a lock held meanwhile).
#[derive(Default)]
struct Sessions {
    open: HashMap<String, Entry>,
    opening: Vec<Option<usize>>,
}

/// The checks and the sessions they know.
pub(crate) struct Gate {
    mcp: StreamableHttpService<HashlineServer, LocalSessionManager>,
    manager: Arc<LocalSessionManager>,
    tokens: Tokens,
    limits: SessionLimits,
    body: BodyLimits,
    sessions: Mutex<Sessions>,
    in_flight: AtomicUsize,
    idle: Notify,
    stopping: CancellationToken,
}

impl Gate {
    pub(crate) fn new(
        mcp: StreamableHttpService<HashlineServer, LocalSessionManager>,
        manager: Arc<LocalSessionManager>,
        tokens: Tokens,
        limits: SessionLimits,
        body: BodyLimits,
        stopping: CancellationToken,
    ) -> Self {
        Self {
            mcp,
            manager,
            tokens,
            limits,
            body,
            sessions: Mutex::new(Sessions::default()),
            in_flight: AtomicUsize::new(0),
            idle: Notify::new(),
            stopping,
        }
    }

    fn sessions(&self) -> MutexGuard<'_, Sessions> {
        self.sessions.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Answers one request: a refusal, or rmcp's answer.
    pub(crate) async fn handle<B>(self: Arc<Self>, request: Request<B>) -> Response<HttpBody>
    where
        B: Body + Send + 'static,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        if self.stopping.is_cancelled() {
            return refusal(StatusCode::SERVICE_UNAVAILABLE, code::SHUTTING_DOWN, "The server is shutting down.");
        }
        let authorization = request.headers().get(header::AUTHORIZATION).map(HeaderValue::as_bytes);
        let Ok(token) = self.tokens.identify(authorization) else {
            let mut response = refusal(
                StatusCode::UNAUTHORIZED,
                code::UNAUTHORIZED,
                "Unauthorized: a valid bearer token is required.",
            );
            response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            return response;
        };
        let method = request.method().clone();
        // Long-lived event streams (GET) do not hold a shutdown back; calls (POST) do, from
        // the moment their body starts to arrive.
        let mut activity = Activity::new(&self, None, method == Method::POST);
        // The whole body is read here, bounded in size and time, before any lock is taken or
        // any session is marked in use: a client sending slowly holds up only itself.
        let request = match read_body(request, self.body).await {
            Ok(request) => request,
            Err(refused) => return *refused,
        };
        let session = request.headers().get(SESSION_HEADER).and_then(|v| v.to_str().ok()).map(str::to_owned);
        match session {
            Some(id) => {
                if !self.enter(&id, token) {
                    return refusal(
                        StatusCode::NOT_FOUND,
                        code::SESSION_NOT_FOUND,
                        "Session not found: it ended, expired, or was never opened with this token; initialize a new one.",
                    );
                }
                activity.session = Some(id.clone());
                if method == Method::POST && is_batch(request.body()) && self.has_batches(&id) {
                    return activity.attach(self.batch(request).await);
                }
                let principal = super::Principal { token, sessionless: false };
                let response = super::PRINCIPAL.scope(principal, self.mcp.handle(request.map(Full::new))).await;
                if method == Method::DELETE && response.status().is_success() {
                    self.sessions().open.remove(&id);
                }
                activity.attach(response)
            }
            None if method == Method::POST && may_open_session(request.body()) => {
                let place = match self.reserve(token) {
                    Ok(place) => place,
                    Err(message) => {
                        return refusal(StatusCode::SERVICE_UNAVAILABLE, code::TOO_MANY_SESSIONS, &message);
                    }
                };
                // On a task of its own, so that a client going away cannot leave a session
                // rmcp opened unknown here (it would never expire).
                let gate = Arc::clone(&self);
                let batches = asks_for_2025_03_26(request.body());
                let opened = tokio::spawn(async move {
                    let response = super::PRINCIPAL
                        .scope(super::Principal { token, sessionless: false }, gate.mcp.handle(request.map(Full::new)))
                        .await;
                    gate.register(&response, token, batches);
                    drop(place);
                    response
                });
                match opened.await {
                    Ok(response) => activity.attach(response),
                    Err(_) => {
                        refusal(StatusCode::INTERNAL_SERVER_ERROR, code::INTERNAL, "The session could not be opened.")
                    }
                }
            }
            // Any other request without a session (a GET, or a call of protocol 2026-07-28,
            // which has no `initialize`) opens none: it runs without any lock, as long as it
            // takes. A session rmcp opened all the same is counted.
            None => {
                let principal = super::Principal { token, sessionless: true };
                let response = super::PRINCIPAL.scope(principal, self.mcp.handle(request.map(Full::new))).await;
                self.register(&response, token, false);
                activity.attach(response)
            }
        }
    }

    /// Holds a place for a session `token` is opening, unless `token` holds its most or
    /// the server does (then why, for the refusal).
    fn reserve(self: &Arc<Self>, token: Option<usize>) -> Result<Place, String> {
        let mut sessions = self.sessions();
        if let Some(cap) = self.limits.per_token {
            let held = sessions.open.values().filter(|entry| entry.token == token).count()
                + sessions.opening.iter().filter(|opening| **opening == token).count();
            if held >= cap {
                return Err(format!(
                    "Too many sessions for this token: it holds {held}, its most; end one (DELETE), or retry once one has gone unused for {}.",
                    span(self.limits.idle_timeout)
                ));
            }
        }
        if sessions.open.len() + sessions.opening.len() >= self.limits.max {
            return Err("Too many sessions are open; end one (DELETE) or retry later.".to_owned());
        }
        sessions.opening.push(token);
        Ok(Place { gate: Arc::clone(self), token })
    }

    /// Counts the session a response opened, if it opened one, as `token`'s; `batches`:
    /// its `initialize` asked for protocol 2025-03-26 (which the server then speaks).
    fn register(&self, response: &Response<HttpBody>, token: Option<usize>, batches: bool) {
        if let Some(id) = response.headers().get(SESSION_HEADER).and_then(|v| v.to_str().ok()) {
            let entry = Entry { token, last_seen: Instant::now(), active: 0, batches };
            self.sessions().open.insert(id.to_owned(), entry);
        }
    }

    /// Whether a session takes batches (protocol 2025-03-26).
    fn has_batches(&self, id: &str) -> bool {
        self.sessions().open.get(id).is_some_and(|entry| entry.batches)
    }

    /// Answers a batch (protocol 2025-03-26): each member handed to rmcp as a POST of its
    /// own, at once, and the responses to its requests gathered into one JSON array (202
    /// when there are none: notifications alone).
    async fn batch(self: &Arc<Self>, request: Request<Bytes>) -> Response<HttpBody> {
        let (parts, body) = request.into_parts();
        let members = match serde_json::from_slice::<Vec<serde_json::Value>>(&body) {
            Ok(members) if !members.is_empty() => members,
            Ok(_) => return refusal(StatusCode::BAD_REQUEST, code::BAD_BODY, "Invalid request: the batch is empty."),
            Err(err) => {
                return refusal(StatusCode::BAD_REQUEST, code::PARSE_ERROR, &format!("Parse error: {err}."));
            }
        };
        let mut calls = tokio::task::JoinSet::new();
        for member in members {
            let id = member.get("id").cloned().unwrap_or(serde_json::Value::Null);
            let mut single = Request::builder().method(parts.method.clone()).uri(parts.uri.clone());
            if let Some(headers) = single.headers_mut() {
                headers.clone_from(&parts.headers);
                headers.remove(header::CONTENT_LENGTH);
            }
            let Ok(single) = single.body(Full::new(Bytes::from(member.to_string()))) else { continue };
            let gate = Arc::clone(self);
            calls.spawn(async move {
                let response = gate.mcp.handle(single).await;
                let status = response.status();
                let bytes = response.into_body().collect().await.map(|c| c.to_bytes()).unwrap_or_default();
                member_reply(status, &bytes, id)
            });
        }
        let mut replies = Vec::new();
        while let Some(reply) = calls.join_next().await {
            if let Ok(Some(reply)) = reply {
                replies.push(reply);
            }
        }
        if replies.is_empty() {
            return Response::builder()
                .status(StatusCode::ACCEPTED)
                .body(Full::new(Bytes::new()).boxed())
                .unwrap_or_else(|_| Response::new(Full::new(Bytes::new()).boxed()));
        }
        Response::builder()
            .status(StatusCode::OK)
            .header(header::CONTENT_TYPE, "application/json")
            .body(Full::new(Bytes::from(serde_json::Value::Array(replies).to_string())).boxed())
            .unwrap_or_else(|_| Response::new(Full::new(Bytes::new()).boxed()))
    }

    /// Marks a session in use when it exists and belongs to `token`.
    fn enter(&self, id: &str, token: Option<usize>) -> bool {
        let mut sessions = self.sessions();
        match sessions.open.get_mut(id) {
            Some(entry) if entry.token == token => {
                entry.active += 1;
                entry.last_seen = Instant::now();
                true
            }
            _ => false,
        }
    }

    fn leave(&self, id: &str) {
        if let Some(entry) = self.sessions().open.get_mut(id) {
            entry.active = entry.active.saturating_sub(1);
            entry.last_seen = Instant::now();
        }
    }

    /// Ends the sessions idle for longer than the timeout (none with a request in flight).
    pub(crate) async fn expire_idle(&self) {
        let expired: Vec<String> = {
            let mut sessions = self.sessions();
            let expired: Vec<String> = sessions
                .open
                .iter()
                .filter(|(_, entry)| entry.active == 0 && entry.last_seen.elapsed() >= self.limits.idle_timeout)
                .map(|(id, _)| id.clone())
                .collect();
            for id in &expired {
                sessions.open.remove(id);
            }
            expired
        };
        for id in expired {
            let _ = self.manager.close_session(&id.into()).await;
        }
    }

    /// How often to look for idle sessions.
    pub(crate) fn expiry_period(&self) -> Duration {
        (self.limits.idle_timeout / 4).clamp(Duration::from_millis(20), Duration::from_secs(30))
    }

    /// Waits until no counted request is in flight.
    pub(crate) async fn drained(&self) {
        loop {
            let notified = self.idle.notified();
            if self.in_flight.load(Ordering::SeqCst) == 0 {
                return;
            }
            notified.await;
        }
    }
}

/// The request with its whole body read, or the refusal when the body is too large, too
/// slow, or broken (those close the connection: the rest of the body is not read).
async fn read_body<B>(request: Request<B>, limits: BodyLimits) -> Result<Request<Bytes>, Box<Response<HttpBody>>>
where
    B: Body + Send + 'static,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let (parts, body) = request.into_parts();
    let read = tokio::time::timeout(limits.timeout, Limited::new(body, limits.max_bytes).collect()).await;
    let (status, code, message) = match read {
        Ok(Ok(collected)) => return Ok(Request::from_parts(parts, collected.to_bytes())),
        Err(_) => (
            StatusCode::REQUEST_TIMEOUT,
            code::BODY_TIMEOUT,
            format!("Request timeout: the body did not arrive within {} s.", limits.timeout.as_secs_f32()),
        ),
        Ok(Err(err)) if err.downcast_ref::<LengthLimitError>().is_some() => (
            StatusCode::PAYLOAD_TOO_LARGE,
            code::BODY_TOO_LARGE,
            format!("Payload too large: the body is over {} bytes.", limits.max_bytes),
        ),
        Ok(Err(err)) => {
            (StatusCode::BAD_REQUEST, code::BAD_BODY, format!("The request body could not be read: {err}."))
        }
    };
    let mut response = refusal(status, code, &message);
    response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    Err(Box::new(response))
}

/// A duration as a person reads it: `30 min`, `90 s`, `300 ms`.
fn span(duration: Duration) -> String {
    match (duration.as_secs(), duration.as_millis()) {
        (secs, _) if secs >= 120 && secs % 60 == 0 => format!("{} min", secs / 60),
        (secs, _) if secs >= 1 => format!("{secs} s"),
        (_, millis) => format!("{millis} ms"),
    }
}

/// Whether a request without a session id may open one: rmcp opens a session only for an
/// `initialize` request, so anything that surely is not one (a JSON object whose `method`
/// is another, or that has none) may not. A body that does not parse may.
fn may_open_session(body: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Message {
        #[serde(default)]
        method: Option<String>,
    }
    match serde_json::from_slice::<Message>(body) {
        Ok(message) => message.method.as_deref() == Some("initialize"),
        Err(_) => true,
    }
}

/// Whether a body is a JSON array (a batch): its first byte that is not blank.
fn is_batch(body: &[u8]) -> bool {
    body.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[')
}

/// Whether an `initialize` asks for protocol 2025-03-26, which the server then speaks (it
/// supports that revision, so it answers with the one asked for).
fn asks_for_2025_03_26(body: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(body)
        .is_ok_and(|message| message["params"]["protocolVersion"] == "2025-03-26")
}

/// The reply rmcp gave one member of a batch: its JSON-RPC response or error (the last of
/// an event stream's, past any notification), `None` for a notification's 202, else an
/// error for the member's `id` saying what rmcp answered.
fn member_reply(status: StatusCode, body: &[u8], id: serde_json::Value) -> Option<serde_json::Value> {
    if status == StatusCode::ACCEPTED {
        return None;
    }
    let is_reply = |value: &serde_json::Value| value.get("result").is_some() || value.get("error").is_some();
    let text = String::from_utf8_lossy(body);
    let found = match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(value) => Some(value).filter(is_reply),
        Err(_) => text
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str::<serde_json::Value>(data.trim()).ok())
            .rfind(is_reply),
    };
    Some(found.unwrap_or_else(|| {
        let message = format!("Invalid request: {} ({}).", text.trim(), status.as_u16());
        serde_json::json!({"jsonrpc": "2.0", "id": id, "error": {"code": code::BAD_BODY, "message": message}})
    }))
}

/// A place held for a session being opened, given back when dropped.
struct Place {
    gate: Arc<Gate>,
    token: Option<usize>,
}

impl Drop for Place {
    fn drop(&mut self) {
        let mut sessions = self.gate.sessions();
        if let Some(index) = sessions.opening.iter().position(|token| *token == self.token) {
            sessions.opening.swap_remove(index);
        }
    }
}

/// A request in progress: counted until its response body is done or dropped.
struct Activity {
    gate: Arc<Gate>,
    session: Option<String>,
    counted: bool,
}

impl Activity {
    fn new(gate: &Arc<Gate>, session: Option<String>, counted: bool) -> Self {
        if counted {
            gate.in_flight.fetch_add(1, Ordering::SeqCst);
        }
        Self { gate: Arc::clone(gate), session, counted }
    }

    /// The response, with this activity ending when its body ends.
    fn attach(self, response: Response<HttpBody>) -> Response<HttpBody> {
        response.map(|body| Guarded { body, _activity: self }.boxed())
    }
}

impl Drop for Activity {
    fn drop(&mut self) {
        if let Some(id) = &self.session {
            self.gate.leave(id);
        }
        if self.counted && self.gate.in_flight.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.gate.idle.notify_waiters();
        }
    }
}

/// A body that holds an [`Activity`] until it is finished or dropped.
struct Guarded {
    body: HttpBody,
    _activity: Activity,
}

impl Body for Guarded {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// A refusal: the HTTP status, and a JSON-RPC error (id null) saying why.
pub(crate) fn refusal(status: StatusCode, code: i64, message: &str) -> Response<HttpBody> {
    let body = serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message}});
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Full::new(Bytes::from(body.to_string())).boxed())
        .unwrap_or_else(|_| Response::new(Full::new(Bytes::new()).boxed()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_read_as_a_person_says_them() {
        assert_eq!(span(Duration::from_secs(30 * 60)), "30 min");
        assert_eq!(span(Duration::from_secs(90)), "90 s");
        assert_eq!(span(Duration::from_millis(300)), "300 ms");
    }

    #[test]
    fn only_what_may_be_an_initialize_may_open_a_session() {
        assert!(may_open_session(br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}"#));
        assert!(may_open_session(b"not json"));
        assert!(!may_open_session(br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}"#));
        assert!(!may_open_session(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#));
    }
}
