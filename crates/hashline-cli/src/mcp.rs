//! `hashline mcp`: the MCP stdio server (SPEC §10.3).

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use hashline::tools::log::LogWriter;
use hashline_mcp::{HashlineServer, ServerOptions};

use crate::EXIT_TOOL_ERROR;
use crate::cli::Cli;

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
    let options = ServerOptions { roots: cli.root.clone(), unconfined: cli.unconfined, log };
    let server = HashlineServer::new(options)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("hashline-mcp")
        .build()
        .context("cannot start the async runtime")?;
    let outcome = runtime.block_on(hashline_mcp::serve_stdio(server));
    runtime.shutdown_timeout(SHUTDOWN_GRACE);
    match outcome {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(err) => {
            eprintln!("hashline mcp: {err}");
            Ok(ExitCode::from(EXIT_TOOL_ERROR))
        }
    }
}
