//! `hashline`: the hash-anchored file tools from a shell (SPEC §10.2).
//!
//! Every subcommand builds the tool's JSON arguments and runs it through the same
//! registry as `call`, `batch` and the MCP server, so all front ends share one path.

mod cli;
mod mcp;
mod session_file;
mod show;

use std::io::{BufRead, Write};
use std::process::ExitCode;

use std::sync::Arc;

use anyhow::{Context, Result};
use clap::Parser;
use hashline::tools::log::LogWriter;
use hashline::view::ContentBlock;
use hashline::{CallContext, Session, SessionConfig, ToolResult, Toolbox};
use serde_json::{Value, json};

use cli::{Cli, Command};

/// Exit code of a tool error.
const EXIT_TOOL_ERROR: u8 = 1;
/// Exit code of a usage error (clap uses it too).
const EXIT_USAGE: u8 = 2;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        // A reader that stops early (`| head`) is not an error.
        Err(err)
            if err.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe) =>
        {
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("hashline: {err:#}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    if let Command::Mcp = cli.command {
        return mcp::run(&cli);
    }
    if let Command::Show { log, html, call_id, plain } = &cli.command {
        return show::run(log, html.as_deref(), call_id.as_deref(), *plain);
    }
    let toolbox = Toolbox::new();
    if let Command::Tools = cli.command {
        let tools: Vec<Value> = toolbox
            .tools()
            .iter()
            .map(|t| {
                json!({
                    "name": t.name,
                    "description": t.description,
                    "annotations": t.annotations,
                    "inputSchema": t.input_schema(),
                    "outputSchema": t.output_schema(),
                })
            })
            .collect();
        print_line(&serde_json::to_string_pretty(&tools)?)?;
        return Ok(ExitCode::SUCCESS);
    }

    let stateful = cli.session.is_some() || matches!(cli.command, Command::Batch);
    let session = open_session(&cli, stateful)?;
    if let Some(file) = &cli.session {
        session_file::load(file, &session)?;
    }
    let code = match &cli.command {
        Command::Batch => run_batch(&toolbox, &session)?,
        Command::Call { tool, args } => {
            let args = parse_json_arg(args)?;
            let result = toolbox.execute(&session, tool, args, &CallContext::top_level());
            print_line(&serde_json::to_string(&result)?)?;
            exit_for(&result)
        }
        command => {
            let (tool, args) = command.to_tool_call()?;
            let ctx = CallContext::top_level();
            if cli.json {
                let result = toolbox.execute(&session, tool, args, &ctx);
                print_line(&serde_json::to_string(&result)?)?;
                exit_for(&result)
            } else {
                let (content, is_error) = toolbox.execute_content(&session, tool, args, &ctx);
                print_content(&content, is_error)?;
                if is_error { ExitCode::from(EXIT_TOOL_ERROR) } else { ExitCode::SUCCESS }
            }
        }
    };
    if let Some(file) = &cli.session {
        session_file::save(file, &session)?;
    }
    Ok(code)
}

fn open_session(cli: &Cli, stateful: bool) -> Result<Session> {
    let mut roots = cli.root.clone();
    if roots.is_empty() {
        roots.push(std::env::current_dir().context("cannot read the working directory")?);
    }
    let builder = SessionConfig::builder()
        .root(roots[0].clone())
        .extra_roots(roots[1..].to_vec())
        .unconfined(cli.unconfined)
        .stateful(stateful);
    let config = match &cli.log {
        Some(file) => {
            let log = LogWriter::to_file(file).with_context(|| format!("cannot open the log {}", file.display()))?;
            builder.log(Arc::new(log)).build()
        }
        None => builder.build(),
    };
    Session::new(config).map_err(|err| anyhow::anyhow!(err.text()))
}

/// `call`'s argument: inline JSON, or `-` for standard input.
fn parse_json_arg(text: &str) -> Result<Value> {
    let text = if text == "-" {
        std::io::read_to_string(std::io::stdin()).context("cannot read arguments from standard input")?
    } else {
        text.to_owned()
    };
    serde_json::from_str(&text).context("arguments are not valid JSON")
}

fn exit_for(result: &ToolResult) -> ExitCode {
    if result.is_error { ExitCode::from(EXIT_TOOL_ERROR) } else { ExitCode::SUCCESS }
}

/// Prints one line to standard output, reporting a closed pipe as an error (not a panic).
fn print_line(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{text}")?;
    out.flush()?;
    Ok(())
}

/// Prints what the model would see: text to standard output (errors to standard error),
/// images as a one-line note.
fn print_content(content: &[ContentBlock], is_error: bool) -> Result<()> {
    let mut out = std::io::stdout().lock();
    for block in content {
        match block {
            ContentBlock::Text { text } if is_error => eprintln!("{text}"),
            ContentBlock::Text { text } => writeln!(out, "{text}")?,
            ContentBlock::Image { data, mime_type } => {
                writeln!(out, "[image: {mime_type}, {} bytes of base64; use --json for the data]", data.len())?;
            }
        }
    }
    out.flush()?;
    Ok(())
}

/// `batch`: one JSON object `{"tool", "args", "callId"?, "parentCallId"?}` per input line,
/// one result line per call, all in one session.
fn run_batch(toolbox: &Toolbox, session: &Session) -> Result<ExitCode> {
    let mut failed = false;
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let line = line.context("cannot read standard input")?;
        if line.trim().is_empty() {
            continue;
        }
        let result = match serde_json::from_str::<Value>(&line) {
            Ok(request) => {
                let tool = request.get("tool").and_then(Value::as_str).unwrap_or("");
                let args = request.get("args").cloned().unwrap_or(Value::Null);
                let ctx = CallContext {
                    call_id: request.get("callId").and_then(Value::as_str).map(str::to_owned),
                    parent_call_id: request.get("parentCallId").and_then(Value::as_str).map(str::to_owned),
                };
                toolbox.execute(session, tool, args, &ctx)
            }
            Err(err) => ToolResult::failure(
                "batch",
                &hashline::ToolError::new(hashline::ErrorCode::InvalidType, format!("Invalid batch line: {err}.")),
            ),
        };
        failed |= result.is_error;
        writeln!(out, "{}", serde_json::to_string(&result)?)?;
        out.flush()?;
    }
    Ok(if failed { ExitCode::from(EXIT_TOOL_ERROR) } else { ExitCode::SUCCESS })
}
