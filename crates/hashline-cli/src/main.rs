//! `hashline`: the hash-anchored file tools from a shell (SPEC §10.2).
//!
//! Every subcommand builds the tool's JSON arguments and runs it through the same
//! registry as `call`, `batch` and the MCP server, so all front ends share one path.

mod batch;
mod changes;
mod cli;
mod doctor;
mod hook;
mod mcp;
mod private_file;
mod session_file;
mod setup;
mod show;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use std::sync::Arc;

use anyhow::{Context, Result};
use clap::Parser;
use hashline::tools::log::LogWriter;
use hashline::tools::map_store::MapStore;
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
    if let Command::Mcp { .. } = cli.command {
        return mcp::run(&cli);
    }
    match &cli.command {
        Command::Setup { host, user, dry_run, remove, replace_builtins, command, .. } => {
            let scope = if *user { setup::Scope::User } else { setup::Scope::Project };
            return setup::run(&setup::Request {
                host: *host,
                scope,
                dry_run: *dry_run,
                remove: *remove,
                replace_builtins: *replace_builtins,
                command: command.clone(),
                project: cli.root.first().cloned(),
            });
        }
        Command::Doctor => return doctor::run(),
        Command::Hook { host, tool_prefix } => return hook::run(host, tool_prefix),
        _ => {}
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
                    "description": t.description(),
                    "annotations": t.annotations,
                    "inputSchema": t.input_schema(),
                    "outputSchema": t.output_schema(),
                })
            })
            .collect();
        print_line(&serde_json::to_string_pretty(&tools)?)?;
        return Ok(ExitCode::SUCCESS);
    }

    let roots = roots(&cli)?;
    let mut persisted = persisted_session(&cli, &roots)?;
    let stateful = persisted.is_some() || matches!(cli.command, Command::Batch);
    let session = open_session(&cli, roots, stateful)?;
    if let Some(persisted) = &mut persisted {
        persisted.load(&session)?;
    }
    let code = match &cli.command {
        Command::Batch => run_batch(&toolbox, &session)?,
        Command::Map { path } => run_map(&session, path, cli.json)?,
        Command::Changes => changes::list(&session, cli.json)?,
        Command::Undo { to: Some(id), .. } => changes::undo_to(&session, id, cli.json)?,
        Command::Undo { id, .. } => match changes::undo_target(&session, id.as_deref()) {
            Some(id) => run_tool(&toolbox, &session, "edit", json!({ "revert": id }), cli.json)?,
            None => {
                eprintln!("hashline: no change to undo in this session (hashline changes lists them)");
                ExitCode::from(EXIT_TOOL_ERROR)
            }
        },
        Command::Call { tool, args } => {
            let args = parse_json_arg(args)?;
            let result = toolbox.execute(&session, tool, args, &CallContext::top_level());
            print_line(&result.to_json())?;
            exit_for(&result)
        }
        command => {
            let (tool, args) = command.to_tool_call()?;
            run_tool(&toolbox, &session, tool, args, cli.json)?
        }
    };
    if let Some(persisted) = &persisted {
        persisted.save(&session)?;
    }
    Ok(code)
}

/// Runs one tool and prints its result: the text (errors to standard error), or with
/// `json` the JSON result.
fn run_tool(toolbox: &Toolbox, session: &Session, tool: &str, args: Value, json: bool) -> Result<ExitCode> {
    // In text mode the model sees the text alone, also when a session log has the value
    // built: the session serves only the rows the text shows.
    let ctx = CallContext { sees_text_only: !json, ..CallContext::top_level() };
    if json {
        let result = toolbox.execute(session, tool, args, &ctx);
        print_line(&result.to_json())?;
        return Ok(exit_for(&result));
    }
    let (content, is_error) = toolbox.execute_content(session, tool, args, &ctx);
    print_content(&content, is_error)?;
    Ok(if is_error { ExitCode::from(EXIT_TOOL_ERROR) } else { ExitCode::SUCCESS })
}

/// The roots: `--root`s, else the working directory.
fn roots(cli: &Cli) -> Result<Vec<PathBuf>> {
    if cli.root.is_empty() {
        return Ok(vec![std::env::current_dir().context("cannot read the working directory")?]);
    }
    Ok(cli.root.clone())
}

/// The session file this call keeps (docs/decisions/003-cli-session-default.md):
/// `--session FILE`; none with `--stateless`; for `batch` none unless named (it is one
/// session already); else the root's default file — and when that cannot be kept, the
/// call runs statelessly and says so.
fn persisted_session(cli: &Cli, roots: &[PathBuf]) -> Result<Option<session_file::Persisted>> {
    if cli.stateless && matches!(cli.command, Command::Batch) {
        anyhow::bail!("--stateless applies to single calls; batch always runs as one session");
    }
    if let Some(file) = &cli.session {
        return session_file::Persisted::open(file.clone(), true).map(Some);
    }
    if cli.stateless || matches!(cli.command, Command::Batch) || !touches_session(&cli.command) {
        return Ok(None);
    }
    let Some(file) = session_file::default_file(&roots[0]) else {
        eprintln!("hashline: no state directory (XDG_STATE_HOME or HOME) for the session; running --stateless");
        return Ok(None);
    };
    match session_file::Persisted::open(file, false) {
        Ok(persisted) => Ok(Some(persisted)),
        Err(err) => {
            eprintln!("hashline: {err:#}; running --stateless");
            Ok(None)
        }
    }
}

/// Whether a call reads or changes the session: `ls` and `find` do neither (they record no
/// rows and resolve no anchors), so their calls leave the default session file unopened —
/// loading a large session's file was about a tenth of a `find` of 35,000 files. A file
/// named with `--session` is opened (and a damaged one refused) whatever the call.
fn touches_session(command: &Command) -> bool {
    match command {
        Command::Ls { .. } | Command::Find { .. } => false,
        Command::Call { tool, .. } => !matches!(tool.as_str(), "ls" | "find"),
        _ => true,
    }
}

fn open_session(cli: &Cli, roots: Vec<PathBuf>, stateful: bool) -> Result<Session> {
    let builder = SessionConfig::builder()
        .root(roots[0].clone())
        .extra_roots(roots[1..].to_vec())
        .unconfined(cli.unconfined)
        .stateful(stateful)
        // The process ends with its call: a tree parsed for a later edit would be lost.
        .parse_on_read(false);
    let mut config = match &cli.log {
        Some(file) => {
            let log = LogWriter::to_file(file).with_context(|| format!("cannot open the log {}", file.display()))?;
            builder.log(Arc::new(log)).build()
        }
        None => builder.build(),
    };
    config.map_store = map_store(cli, &config.root);
    config.snapshots = snapshot_store();
    Session::new(config).map_err(|err| anyhow::anyhow!(err.text()))
}

/// The root's symbol-map cache (docs/protocol.md, "The CLI's map cache"): beside the
/// default session file, for every call but `--stateless` ones; none when there is no
/// state directory or the program cannot tell its own build.
fn map_store(cli: &Cli, root: &Path) -> Option<Arc<MapStore>> {
    if cli.stateless {
        return None;
    }
    let dir = session_file::default_map_dir(root)?;
    // The state directory is made private before the cache makes anything in it.
    session_file::create_state_dir();
    Some(Arc::new(MapStore::new(dir, build_identity()?)))
}

/// The store of the snapshots this user was shown (docs/protocol.md §1.5), kept in the state
/// directory for every call, `--stateless` ones too: a tag shown by one call serves the
/// edit of a later one. None when the system names no state directory (tags then fall back).
fn snapshot_store() -> Option<Arc<dyn hashline::tools::snapshots::Snapshots>> {
    let dir = session_file::default_snapshot_dir()?;
    session_file::create_state_dir();
    let store =
        hashline::tools::snapshot_store::DiskSnapshots::new(dir, hashline::core::snapshot::StoreLimits::DEFAULT);
    Some(Arc::new(std::sync::Mutex::new(store)))
}

/// This build of the program, as its executable's identity: any rebuild or reinstall
/// changes it, so maps another build made (with other queries or extraction) are not used.
fn build_identity() -> Option<u64> {
    let exe = std::env::current_exe().ok()?;
    let meta = hashline::fs::lookup::metadata(&exe).ok()?;
    let (id, _) = hashline::fs::lookup::identity(&exe)?;
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    hasher.update(env!("CARGO_PKG_VERSION").as_bytes());
    hasher.update(&id.dev.to_le_bytes());
    hasher.update(&id.ino.to_le_bytes());
    hasher.update(&meta.len().to_le_bytes());
    hasher.update(&hashline::fs::lookup::mtime_nanos(&meta).to_le_bytes());
    Some(hasher.digest())
}

/// `call`'s argument: inline JSON, or `-` for standard input.
fn parse_json_arg(text: &str) -> Result<Value> {
    let text =
        if text == "-" { read_stdin().context("cannot read arguments from standard input")? } else { text.to_owned() };
    serde_json::from_str(&text).context("arguments are not valid JSON")
}

/// The most standard input that `call -`, `edit --edits -` and `write` take.
const MAX_STDIN_BYTES: u64 = 256 * 1024 * 1024;

/// Standard input to its end, at most [`MAX_STDIN_BYTES`] (so `< /dev/zero` ends).
fn read_stdin() -> std::io::Result<String> {
    let mut text = String::new();
    std::io::Read::take(std::io::stdin().lock(), MAX_STDIN_BYTES + 1).read_to_string(&mut text)?;
    if text.len() as u64 > MAX_STDIN_BYTES {
        return Err(std::io::Error::new(std::io::ErrorKind::FileTooLarge, "more than 256 MiB"));
    }
    Ok(text)
}

pub(crate) fn exit_for(result: &ToolResult) -> ExitCode {
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
/// `hashline map FILE`: the file's map as text, or with `--json` as
/// `{"path", "lines", "map": {...} | null, "text"}`; a file without a map exits 1.
fn run_map(session: &Session, path: &str, json: bool) -> Result<ExitCode> {
    let outline = match hashline::tools::tools::outline::outline(session, path) {
        Ok(outline) => outline,
        Err(error) => {
            if json {
                print_line(&serde_json::to_string(&json!({"path": path, "error": error}))?)?;
            } else {
                eprintln!("{}", error.text());
            }
            return Ok(ExitCode::from(EXIT_TOOL_ERROR));
        }
    };
    if json {
        let value = json!({"path": outline.path, "lines": outline.lines, "map": outline.map, "text": outline.text});
        print_line(&serde_json::to_string(&value)?)?;
    } else if outline.map.is_some() {
        print_line(&outline.text)?;
    } else {
        eprintln!("{}", outline.text);
    }
    Ok(if outline.map.is_some() { ExitCode::SUCCESS } else { ExitCode::from(EXIT_TOOL_ERROR) })
}

pub(crate) fn print_content(content: &[ContentBlock], is_error: bool) -> Result<()> {
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

/// `batch` on standard input and output (see [`batch`]).
fn run_batch(toolbox: &Toolbox, session: &Session) -> Result<ExitCode> {
    let outcome = batch::run(std::io::stdin().lock(), std::io::stdout().lock(), |tool, args, ctx| {
        toolbox.execute(session, tool, args, ctx)
    })?;
    Ok(if outcome.failed { ExitCode::from(EXIT_TOOL_ERROR) } else { ExitCode::SUCCESS })
}
