//! `hashline mcp`: the MCP stdio server (SPEC §10.3), or with `--http` the Streamable
//! HTTP server (docs/protocol.md, "MCP over HTTP").

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use hashline::tools::log::LogWriter;
use hashline_mcp::http::{HttpOptions, TOKEN_ENV, Tokens};
use hashline_mcp::{HashlineServer, ServerOptions};

use crate::EXIT_TOOL_ERROR;
use crate::cli::{Cli, Command};

/// How long tool calls still running when the client has gone may delay the exit: long
/// enough for a write in flight to land whole (writes are atomic either way).
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// Serves one connection on standard input and output until the client closes it.
/// Standard output carries only protocol messages; diagnostics go to standard error.
/// With `--log`, every call and its result are appended to the session log.
pub fn run(cli: &Cli) -> Result<ExitCode> {
    if cli.session.is_some() || cli.stateless {
        anyhow::bail!("--session and --stateless do not apply to mcp: each connection has its own session");
    }
    let log = match &cli.log {
        Some(file) => {
            let log = LogWriter::to_file(file).with_context(|| format!("cannot open the log {}", file.display()))?;
            Some(Arc::new(log))
        }
        None => None,
    };
    let (structured, budget) = match &cli.command {
        Command::Mcp { structured_content, budget, .. } => (*structured_content, budget.fixed()),
        _ => (hashline_mcp::StructuredContent::default(), None),
    };
    let options =
        ServerOptions { roots: cli.root.clone(), unconfined: cli.unconfined, log, structured, budget, snapshots: None };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("hashline-mcp")
        .build()
        .context("cannot start the async runtime")?;
    let outcome = match &cli.command {
        Command::Mcp { http: Some(addr), token_file, allow_origin, .. } => {
            let mut http = HttpOptions::new(options);
            http.tokens = tokens(token_file.as_deref())?;
            http.allowed_origins.clone_from(allow_origin);
            runtime.block_on(serve_http(*addr, http))
        }
        _ => {
            let server = HashlineServer::new(options)?;
            runtime.block_on(hashline_mcp::serve_stdio(server))
        }
    };
    runtime.shutdown_timeout(SHUTDOWN_GRACE);
    match outcome {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(err) => {
            eprintln!("hashline mcp: {err}");
            Ok(ExitCode::from(EXIT_TOOL_ERROR))
        }
    }
}

/// The bearer tokens: from the file, else the environment variable, else none.
fn tokens(file: Option<&std::path::Path>) -> Result<Tokens> {
    if let Some(file) = file {
        return Ok(Tokens::from_file(file)?);
    }
    match std::env::var(TOKEN_ENV) {
        Ok(text) => Ok(Tokens::parse(&text, TOKEN_ENV)?),
        Err(_) => Ok(Tokens::none()),
    }
}

/// Listens on `addr` until SIGTERM or Ctrl-C (on Windows also Ctrl-Break and the console's
/// close), then shuts down gracefully. Prints the address it listens on (to standard error)
/// once it is ready, signal handlers included.
async fn serve_http(addr: std::net::SocketAddr, options: HttpOptions) -> Result<(), hashline_mcp::Error> {
    let stop = stop_signal().map_err(|err| hashline_mcp::Error::Http(format!("cannot watch for signals: {err}")))?;
    let listener = hashline_mcp::http::bind_http(addr, &options).await?;
    if let Ok(local) = listener.local_addr() {
        eprintln!("hashline mcp: listening on http://{local}/mcp");
    }
    hashline_mcp::http::serve_http(listener, options, stop).await
}

/// SIGTERM or Ctrl-C (the handlers are installed before this returns).
#[cfg(unix)]
fn stop_signal() -> std::io::Result<impl Future<Output = ()>> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate())?;
    let mut interrupt = signal(SignalKind::interrupt())?;
    Ok(async move {
        tokio::select! {
            _ = term.recv() => {}
            _ = interrupt.recv() => {}
        }
    })
}

/// Ctrl-C, Ctrl-Break, the console window closed, and the system shutting down (the
/// handlers are installed before this returns).
#[cfg(windows)]
fn stop_signal() -> std::io::Result<impl Future<Output = ()>> {
    use tokio::signal::windows::{ctrl_break, ctrl_c, ctrl_close, ctrl_shutdown};
    let (mut c, mut brk, mut close, mut shutdown) = (ctrl_c()?, ctrl_break()?, ctrl_close()?, ctrl_shutdown()?);
    Ok(async move {
        tokio::select! {
            _ = c.recv() => {}
            _ = brk.recv() => {}
            _ = close.recv() => {}
            _ = shutdown.recv() => {}
        }
    })
}
