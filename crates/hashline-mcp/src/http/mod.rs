//! MCP over Streamable HTTP: rmcp's service for the protocol, behind a gate (the `gate` module) that
//! checks the bearer token, the session's owner and the session count, on hyper.
//!
//! One MCP session (`Mcp-Session-Id`) is one [`HashlineServer`] with its own hashline
//! session (ledger, roots, log). See `docs/decisions/008-mcp-http.md`.

mod auth;
mod gate;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

pub use auth::{MIN_TOKEN_LEN, TOKEN_ENV, TokenError, Tokens};

use crate::error::Error;
use crate::undo::UndoBound;
use crate::{HashlineServer, ServerOptions};
use hashline::tools::snapshots::{MemorySnapshots, Snapshots};

/// How the HTTP server runs. [`HttpOptions::new`] gives the defaults.
#[derive(Clone, Debug)]
pub struct HttpOptions {
    /// Each session's options: `roots` (the working directory when empty), `unconfined`,
    /// `log`. Client roots are never asked for over HTTP: the server's roots are the law.
    pub server: ServerOptions,
    /// The accepted bearer tokens; when there are none, the server must listen on loopback.
    pub tokens: Tokens,
    /// Browser origins allowed to call (e.g. `http://localhost:6274`); a request carrying
    /// any other `Origin` is refused (403), except, on a loopback listener, the server's own
    /// origin (`http://localhost:PORT`, `http://127.0.0.1:PORT`, `http://[::1]:PORT`).
    /// Requests without `Origin` are not browsers'.
    pub allowed_origins: Vec<String>,
    /// The largest request body, in bytes (413 beyond).
    pub max_body_bytes: usize,
    /// The most sessions open at once (503 for one more).
    pub max_sessions: usize,
    /// The most sessions one token may hold open at once, when two or more tokens are
    /// configured (503 for one more): no token can take every place of `max_sessions`.
    /// With one token or none there is no one else to lock out, and only `max_sessions`
    /// applies.
    pub max_sessions_per_token: usize,
    /// The most bytes of file content that every session's changes (what `revert`
    /// restores) keep in memory together. Past it, the oldest changes across all sessions
    /// are dropped first, and reverting one answers `change-expired`. Each session keeps at
    /// most its own 64 MiB besides.
    pub max_undo_bytes: u64,
    /// A session unused this long is ended (its id then gets 404).
    pub idle_timeout: Duration,
    /// How long a shutdown waits for calls in flight before it stops anyway.
    pub drain_timeout: Duration,
    /// How long a client may take to send a request's headers (from the first byte of the
    /// request, or from the connection's start); the connection is closed after.
    pub header_timeout: Duration,
    /// How long a client may take to send a request's body once its headers are in; the
    /// request then gets 408 and the connection is closed.
    pub body_timeout: Duration,
}

impl HttpOptions {
    /// The defaults: no token, no browser origin, 16 MiB bodies, 64 sessions (16 per token
    /// when there are several), 256 MiB of kept changes across sessions, 30 min idle
    /// timeout, 30 s drain, 10 s for a request's headers, 30 s for its body.
    pub fn new(server: ServerOptions) -> Self {
        Self {
            server,
            tokens: Tokens::none(),
            allowed_origins: Vec::new(),
            max_body_bytes: 16 * 1024 * 1024,
            max_sessions: 64,
            max_sessions_per_token: 16,
            max_undo_bytes: 256 * 1024 * 1024,
            idle_timeout: Duration::from_secs(30 * 60),
            drain_timeout: Duration::from_secs(30),
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
        }
    }
}

/// Binds `addr`. A non-loopback address without a token is refused: the tools read and
/// write files, so only an authenticated client may reach them from elsewhere.
pub async fn bind_http(addr: SocketAddr, options: &HttpOptions) -> Result<TcpListener, Error> {
    if !addr.ip().is_loopback() && !options.tokens.required() {
        return Err(Error::Http(format!(
            "{addr} is not a loopback address: give a token (--token-file or {TOKEN_ENV}) to listen there"
        )));
    }
    TcpListener::bind(addr).await.map_err(|err| Error::Http(format!("cannot listen on {addr}: {err}")))
}

/// The origins a request may come from: `--allow-origin`'s, and on a loopback listener the
/// server's own loopback origins (`http://localhost:PORT`, `http://127.0.0.1:PORT`,
/// `http://[::1]:PORT`, PORT the one it listens on). A page of those origins is served from
/// this port on the machine itself, which only a local process can do; DNS rebinding gives
/// a page another name's origin, still refused (and the `Host` check refuses the name).
fn allowed_origins(local: SocketAddr, configured: &[String]) -> Vec<String> {
    let mut origins = configured.to_vec();
    if local.ip().is_loopback() {
        let port = local.port();
        origins.extend(["localhost", "127.0.0.1", "[::1]"].map(|host| format!("http://{host}:{port}")));
    }
    origins
}

/// Who a request comes from, and whether it has a session.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Principal {
    /// The token's index (`None` when the server has no tokens).
    pub token: Option<usize>,
    /// A request without a session (a call of protocol 2026-07-28, which has no
    /// `initialize`): it is served in the principal's sessionless session.
    pub sessionless: bool,
}

tokio::task_local! {
    /// The request being answered: the service factory gives the server it makes that
    /// principal's snapshot store, and a sessionless request that principal's sessionless
    /// session.
    pub(crate) static PRINCIPAL: Principal;
}

/// What each principal (a token; the one principal of a server without tokens) keeps across
/// its requests, made on its first request and kept for the server's life: its snapshot
/// store (at most [`hashline::core::snapshot::StoreLimits::DEFAULT`]), shared by its sessions
/// and its sessionless requests; and the one session its sessionless requests share — the
/// read gate, the served rows and the changes `revert` restores (under the server's undo
/// bound), as one stdio connection has them.
#[derive(Clone, Default)]
struct Principals(Arc<std::sync::Mutex<ByToken>>);

/// Each principal's store and sessionless session, by its token's index.
#[derive(Default)]
struct ByToken {
    stores: std::collections::HashMap<Option<usize>, Arc<dyn Snapshots>>,
    sessionless: std::collections::HashMap<Option<usize>, HashlineServer>,
}

impl Principals {
    fn store(&self, token: Option<usize>) -> Arc<dyn Snapshots> {
        let mut by = self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        Arc::clone(by.stores.entry(token).or_insert_with(|| Arc::new(MemorySnapshots::default())))
    }

    /// The principal's sessionless server (sharing one session), made by `make` the first
    /// time.
    fn sessionless(
        &self,
        token: Option<usize>,
        make: impl FnOnce() -> std::io::Result<HashlineServer>,
    ) -> std::io::Result<HashlineServer> {
        let by = || self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(server) = by().sessionless.get(&token) {
            return Ok(server.share());
        }
        // Made without the lock (`make` takes the principal's store through it); a request
        // that made one first wins.
        let made = make()?;
        Ok(by().sessionless.entry(token).or_insert(made).share())
    }
}

/// Serves MCP over HTTP on `listener` until `shutdown` resolves, then shuts down
/// gracefully: new requests are refused (503), calls in flight finish (at most
/// `drain_timeout`), then every session ends.
pub async fn serve_http(
    listener: TcpListener,
    options: HttpOptions,
    shutdown: impl Future<Output = ()>,
) -> Result<(), Error> {
    let local = listener.local_addr().map_err(|err| Error::Http(err.to_string()))?;
    if !local.ip().is_loopback() && !options.tokens.required() {
        return Err(Error::Http(format!("{local} is not a loopback address and no token is given")));
    }
    let mut server_options = options.server.clone();
    if server_options.roots.is_empty() {
        server_options.roots.push(std::env::current_dir().map_err(Error::WorkingDirectory)?);
    }
    // Fail now on a bad root rather than at each session.
    HashlineServer::new(server_options.clone())?;

    let sessions_ended = CancellationToken::new();
    let mut config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(true)
        .with_cancellation_token(sessions_ended.clone())
        .with_max_request_body_bytes(options.max_body_bytes)
        .with_allowed_origins(allowed_origins(local, &options.allowed_origins))
        .enforce_origin_validation();
    if !local.ip().is_loopback() {
        // Host names of a public deployment are unknown here; the token guards it.
        config = config.disable_allowed_hosts();
    }
    // The gate keeps the idle clock; rmcp's own one would end sessions behind its back.
    let mut manager = LocalSessionManager::default();
    manager.session_config.keep_alive = None;
    let manager = Arc::new(manager);
    // Every session's changes (what `revert` restores) share one bound.
    let undo = Arc::new(UndoBound::new(options.max_undo_bytes));
    // Each token's sessions and sessionless requests share what that token was shown.
    let stores = Principals::default();
    let mcp = StreamableHttpService::new(
        move || {
            let principal = PRINCIPAL.try_with(|principal| *principal).ok();
            let make = || {
                let mut options = server_options.clone();
                if let Some(principal) = principal {
                    options.snapshots = Some(stores.store(principal.token));
                }
                let mut server = HashlineServer::new(options).map_err(std::io::Error::other)?;
                server.share_undo_bound(Arc::clone(&undo));
                Ok(server)
            };
            match principal {
                Some(Principal { token, sessionless: true }) => stores.sessionless(token, make),
                _ => make(),
            }
        },
        Arc::clone(&manager),
        config,
    );
    let stopping = CancellationToken::new();
    let gate = Arc::new(gate::Gate::new(
        mcp,
        manager,
        options.tokens.clone(),
        gate::SessionLimits {
            max: options.max_sessions,
            // One identity (one token, or none) has no one else to lock out.
            per_token: (options.tokens.count() > 1).then_some(options.max_sessions_per_token),
            idle_timeout: options.idle_timeout,
        },
        gate::BodyLimits { max_bytes: options.max_body_bytes, timeout: options.body_timeout },
        stopping.clone(),
    ));

    let expiry = tokio::spawn({
        let gate = Arc::clone(&gate);
        async move {
            let mut tick = tokio::time::interval(gate.expiry_period());
            loop {
                tick.tick().await;
                gate.expire_idle().await;
            }
        }
    });

    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => {
                let Ok((stream, _peer)) = accepted else { continue };
                let gate = Arc::clone(&gate);
                let header_timeout = options.header_timeout;
                tokio::spawn(async move {
                    let service = service_fn(move |request| {
                        let gate = Arc::clone(&gate);
                        async move { Ok::<_, std::convert::Infallible>(gate.handle(request).await) }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .timer(TokioTimer::new())
                        .header_read_timeout(header_timeout)
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        }
    }
    drop(listener);
    stopping.cancel();
    let _ = tokio::time::timeout(options.drain_timeout, gate.drained()).await;
    sessions_ended.cancel();
    expiry.abort();
    Ok(())
}
