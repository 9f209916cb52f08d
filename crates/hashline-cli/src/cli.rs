//! Command-line arguments.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use serde_json::{Map, Value, json};

/// Hash-anchored file tools for coding agents.
///
/// Calls keep a session per root by default: the rows each call showed are remembered
/// (in $XDG_STATE_HOME/hashline/sessions/, else ~/.local/state/hashline/sessions/, never
/// in the project), so `edit` requires a read first, refuses to overwrite lines changed
/// since they were shown, and follows an anchor to its line after earlier edits moved
/// it. `batch` and `mcp` keep one session of their own.
#[derive(Debug, Parser)]
#[command(name = "hashline", version, about, long_about)]
pub struct Cli {
    /// A directory the tools may touch; the first one is the working directory
    /// (default: the current directory). Repeat for more roots.
    #[arg(long, global = true, value_name = "DIR")]
    pub root: Vec<PathBuf>,
    /// Keep the session in FILE instead of the default file for the root.
    #[arg(long, global = true, value_name = "FILE", conflicts_with = "stateless")]
    pub session: Option<PathBuf>,
    /// Keep no session: no read-before-edit gate and no served-lines guard; anchors are
    /// only checked against the file's hashes. Hazard: a stale anchor to a line whose
    /// text repeats nearby (a blank line, a lone `}`) lands on whichever equal line now
    /// has its number.
    #[arg(long, global = true)]
    pub stateless: bool,
    /// Print the result as JSON (content, isError, details.ptcValue, meta).
    #[arg(long, global = true)]
    pub json: bool,
    /// Allow paths outside every root.
    #[arg(long, global = true)]
    pub unconfined: bool,
    /// Append every call and its result to this session log (JSONL, SPEC §9.1).
    #[arg(long, global = true, value_name = "FILE")]
    pub log: Option<PathBuf>,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Read a file as anchored rows.
    Read {
        /// The file.
        path: String,
        /// First line to show (1-based).
        #[arg(long)]
        offset: Option<u32>,
        /// At most this many lines.
        #[arg(long)]
        limit: Option<u32>,
        /// Read one symbol by name: `name`, `Parent.name`, `name@LINE`, or part of a name.
        #[arg(long)]
        symbol: Option<String>,
        /// Append the file's structural map (its symbols with their line ranges).
        #[arg(long)]
        map: bool,
        /// `local`: with --symbol, also show the file's other symbols that it uses.
        #[arg(long, value_parser = ["local"], requires = "symbol")]
        bundle: Option<String>,
    },
    /// Edit a file by anchors (edits as JSON, or `-` for standard input).
    Edit {
        /// The file.
        path: String,
        /// The edit items as a JSON array (or `-`), e.g.
        /// '[{"set_line":{"anchor":"2:589","new_text":"BETA"}}]'.
        #[arg(long)]
        edits: String,
        /// Re-read the file after writing and confirm its bytes.
        #[arg(long)]
        verify: bool,
        /// Syntax check of a code file: warn (default), block (refuse a change that adds
        /// syntax errors) or off.
        #[arg(long, value_parser = ["warn", "block", "off"])]
        syntax_validate: Option<String>,
        /// The snapshot the anchors were copied from (the `snapshot: s…` line a read or
        /// edit printed): anchors then follow their lines exactly.
        #[arg(long)]
        snapshot: Option<String>,
    },
    /// Create or replace a file (content from --content or standard input).
    Write {
        /// The file.
        path: String,
        /// The new content; read from standard input when absent.
        #[arg(long)]
        content: Option<String>,
        /// Syntax check of a code file: warn (default), block or off.
        #[arg(long, value_parser = ["warn", "block", "off"])]
        syntax_validate: Option<String>,
    },
    /// List a directory.
    Ls {
        /// The directory (default: the working directory).
        path: Option<String>,
        /// At most this many entries.
        #[arg(long)]
        limit: Option<u32>,
        /// Only names matching this glob.
        #[arg(long)]
        glob: Option<String>,
    },
    /// Find files by name.
    Find {
        /// Glob (or regex with --regex) matched against file names.
        pattern: String,
        /// The directory to search (default: the working directory).
        path: Option<String>,
        /// file, dir or any.
        #[arg(long = "type")]
        kind: Option<String>,
        /// At most this many entries.
        #[arg(long)]
        limit: Option<u32>,
        /// How deep to descend (1 = direct children).
        #[arg(long)]
        max_depth: Option<u32>,
        /// name, mtime or size.
        #[arg(long)]
        sort_by: Option<String>,
        /// Reverse the order.
        #[arg(long)]
        reverse: bool,
        /// Only entries modified after this (2026-01-31, RFC 3339, 30m, 24h, 7d).
        #[arg(long)]
        modified_since: Option<String>,
        /// Only files at least this big (bytes, or 10K, 2MB, ...).
        #[arg(long)]
        min_size: Option<String>,
        /// Only files at most this big.
        #[arg(long)]
        max_size: Option<String>,
        /// Treat the pattern as a regular expression.
        #[arg(long)]
        regex: bool,
    },
    /// Search file contents (anchored rows for every match).
    Grep {
        /// A regular expression (or text with --literal).
        pattern: String,
        /// The directory or file to search (default: the working directory).
        path: Option<String>,
        /// Only files matching this glob (e.g. '*.rs').
        #[arg(long)]
        glob: Option<String>,
        /// Ignore case.
        #[arg(long, short = 'i')]
        ignore_case: bool,
        /// Match the pattern as plain text.
        #[arg(long, short = 'F')]
        literal: bool,
        /// Lines of context around each match.
        #[arg(long, short = 'C')]
        context: Option<u32>,
        /// At most this many matches (default 100).
        #[arg(long)]
        limit: Option<u32>,
        /// Per-file match counts only.
        #[arg(long)]
        summary: bool,
        /// `symbol`: group matches by their smallest enclosing symbol (function, class, ...)
        /// and show each symbol whole.
        #[arg(long, value_parser = ["symbol"])]
        scope: Option<String>,
        /// With --scope symbol: only this many lines around each match, inside its symbol.
        #[arg(long, requires = "scope")]
        scope_context: Option<u32>,
    },
    /// Search code by structure (ast_search): an ast-grep pattern such as '$X.unwrap()'.
    Search {
        /// The pattern.
        pattern: String,
        /// The directory or file to search (default: the working directory).
        path: Option<String>,
        /// The language: a registry name (`hashline tools` lists them) or an alias.
        #[arg(long, short = 'l')]
        lang: Option<String>,
        /// Only files matching this glob.
        #[arg(long)]
        glob: Option<String>,
        /// At most this many raw matches (default 100).
        #[arg(long)]
        limit: Option<u32>,
    },
    /// Print a code or data file's structural map: its symbols with their line ranges (what
    /// read appends to a truncated view), without the rows. With --json: the symbols as a
    /// JSON value. Exit 1 when the file type has no map or the file did not parse.
    Map {
        /// The file.
        path: String,
    },
    /// List the session's changes (edits, writes and reverts), oldest first: id, time,
    /// tool, files with lines added and removed, and what reverted what. With --json: the
    /// changes as a JSON array.
    Changes,
    /// Revert a change of the session (edit with `revert`): the latest change in effect (not
    /// reverted, and not a revert that undid a change), or the one named. Every file goes back to its bytes
    /// before the change, all or none, only while each is exactly as the change left it.
    Undo {
        /// The change id (`c<N>-<tag>`, as `changes` and edit or write results name it).
        id: Option<String>,
        /// Go back to this change: revert every change in effect from the newest back to and
        /// including it, newest first, at once — all or nothing (nothing is written when any
        /// of them would be refused).
        #[arg(long, value_name = "ID", conflicts_with = "id")]
        to: Option<String>,
    },
    /// Print every tool's name, description, annotations and JSON schemas.
    Tools,
    /// Run one tool with JSON arguments (`-` reads them from standard input) and print
    /// the result as JSON.
    Call {
        /// The tool's name.
        tool: String,
        /// The arguments as a JSON object, or `-`.
        args: String,
    },
    /// Run JSON lines `{"tool": .., "args": ..}` from standard input in one session,
    /// printing one JSON result line per call.
    Batch,
    /// Serve the tools to an agent over MCP on standard input and output (one session per
    /// connection). Roots: --root if given, else the client's file:// roots, else the
    /// current directory. With --http, serve MCP's Streamable HTTP transport instead (many
    /// sessions; roots: --root, else the current directory).
    Mcp {
        /// Listen on this address (e.g. 127.0.0.1:8808) instead of standard input/output.
        #[arg(long, value_name = "ADDR")]
        http: Option<std::net::SocketAddr>,
        /// Bearer tokens, one per line (else HASHLINE_MCP_TOKEN); required off loopback.
        #[arg(long, value_name = "FILE", requires = "http")]
        token_file: Option<PathBuf>,
        /// A browser origin allowed to call (e.g. http://localhost:6274); repeatable.
        #[arg(long, value_name = "ORIGIN", requires = "http")]
        allow_origin: Vec<String>,
        /// `full`: results also carry the typed value as structuredContent, and tools list
        /// their outputSchema (for programs; hosts such as Claude Code and Codex then show
        /// the model that JSON instead of the rows). `off` (default): the text alone. The
        /// last one given wins.
        #[arg(long, value_name = "off|full", default_value = "off", overrides_with = "structured_content")]
        structured_content: hashline_mcp::StructuredContent,
        /// How much text one result may show: `auto` (default) fits what the connected
        /// host shows at once (known by its clientInfo name; 10000 bytes for a client not
        /// in the table), or a size for every result (e.g. 50KB; 2000 lines either way).
        #[arg(long, value_name = "auto|BYTES", default_value = "auto", overrides_with = "budget")]
        budget: hashline_mcp::hosts::BudgetChoice,
    },
    /// Set up an agent host to use hashline: its MCP server entry in the host's own config
    /// file (merged, other servers kept) and a marked rule in its instructions file telling
    /// the model to read and edit through hashline's tools. Idempotent; --dry-run prints the
    /// change as a diff; --remove takes it back, leaving the files as they were.
    Setup {
        /// The host.
        #[arg(value_enum)]
        host: crate::setup::Host,
        /// Set it up for this project: files in the working directory, or the first --root
        /// (the default).
        #[arg(long, conflicts_with = "user")]
        project: bool,
        /// Set it up for the user: the host's files in the home directory, every project.
        #[arg(long)]
        user: bool,
        /// Print the change as a unified diff and write nothing.
        #[arg(long)]
        dry_run: bool,
        /// Take back what setup added (the hook too).
        #[arg(long)]
        remove: bool,
        /// claude-code: also a PreToolUse hook (`hashline hook claude-code`) that denies the
        /// built-in Edit, Write, MultiEdit and NotebookEdit, naming hashline's edit and write.
        #[arg(long, conflicts_with = "remove")]
        replace_builtins: bool,
        /// The program the server entry runs (default: `hashline` when that is this binary
        /// on PATH, else this binary's full path).
        #[arg(long, value_name = "PROGRAM")]
        command: Option<String>,
    },
    /// Check which hosts are set up (project and user), whether each entry runs this binary
    /// and version, and whether its server starts and lists the seven tools. Exit 1 on a
    /// problem, with what to do about it.
    Doctor,
    /// A host's hook, run by the host: `claude-code` reads Claude Code's PreToolUse JSON on
    /// standard input and denies the built-in edit tools with a reason naming hashline's.
    Hook {
        /// The host (claude-code).
        #[arg(value_parser = ["claude-code"])]
        host: String,
        /// How the host names hashline's tools in the reason: `mcp__hashline__` for a server
        /// `setup` added; Claude Code names a plugin's `mcp__plugin_hashline_hashline__`.
        #[arg(long, value_name = "PREFIX", default_value = "mcp__hashline__")]
        tool_prefix: String,
    },
    /// Draw a session log's calls and results as cards: in the terminal (colour only on a
    /// terminal; NO_COLOR honoured), or as one self-contained web page with --html.
    Show {
        /// The session log (JSON lines, as written by --log).
        log: PathBuf,
        /// Write one self-contained web page to this file instead of printing.
        #[arg(long, value_name = "OUT.html")]
        html: Option<PathBuf>,
        /// Only the call with this id (and the calls nested in it).
        #[arg(long = "call", value_name = "ID")]
        call_id: Option<String>,
        /// Plain text without colours, even on a terminal (for pagers and files).
        #[arg(long)]
        plain: bool,
    },
}

impl Command {
    /// The tool name and JSON arguments of a tool subcommand.
    pub fn to_tool_call(&self) -> Result<(&'static str, Value)> {
        let mut args = Map::new();
        let mut put = |key: &str, value: Option<Value>| {
            if let Some(value) = value {
                args.insert(key.to_owned(), value);
            }
        };
        let tool = match self {
            Command::Read { path, offset, limit, symbol, map, bundle } => {
                put("path", Some(json!(path)));
                put("offset", offset.map(Value::from));
                put("limit", limit.map(Value::from));
                put("symbol", symbol.as_ref().map(|s| json!(s)));
                put("map", map.then_some(json!(true)));
                put("bundle", bundle.as_ref().map(|b| json!(b)));
                "read"
            }
            Command::Edit { path, edits, verify, syntax_validate, snapshot } => {
                put("snapshot", snapshot.as_ref().map(|tag| json!(tag)));
                put("syntaxValidate", syntax_validate.as_ref().map(|m| json!(m)));
                let text = if edits == "-" {
                    crate::read_stdin().context("cannot read edits from standard input")?
                } else {
                    edits.clone()
                };
                let edits: Value = serde_json::from_str(&text).context("--edits is not valid JSON")?;
                put("path", Some(json!(path)));
                put("edits", Some(edits));
                put("postEditVerify", verify.then_some(json!(true)));
                "edit"
            }
            Command::Write { path, content, syntax_validate } => {
                put("syntaxValidate", syntax_validate.as_ref().map(|m| json!(m)));
                let content = match content {
                    Some(content) => content.clone(),
                    None => crate::read_stdin().context("cannot read content from standard input")?,
                };
                put("path", Some(json!(path)));
                put("content", Some(json!(content)));
                "write"
            }
            Command::Ls { path, limit, glob } => {
                put("path", path.as_ref().map(|p| json!(p)));
                put("limit", limit.map(Value::from));
                put("glob", glob.as_ref().map(|g| json!(g)));
                "ls"
            }
            Command::Find {
                pattern,
                path,
                kind,
                limit,
                max_depth,
                sort_by,
                reverse,
                modified_since,
                min_size,
                max_size,
                regex,
            } => {
                put("pattern", Some(json!(pattern)));
                put("path", path.as_ref().map(|p| json!(p)));
                put("type", kind.as_ref().map(|k| json!(k)));
                put("limit", limit.map(Value::from));
                put("maxDepth", max_depth.map(Value::from));
                put("sortBy", sort_by.as_ref().map(|s| json!(s)));
                put("reverse", reverse.then_some(json!(true)));
                put("modifiedSince", modified_since.as_ref().map(|s| json!(s)));
                put("minSize", min_size.as_ref().map(|s| json!(s)));
                put("maxSize", max_size.as_ref().map(|s| json!(s)));
                put("regex", regex.then_some(json!(true)));
                "find"
            }
            Command::Grep {
                pattern,
                path,
                glob,
                ignore_case,
                literal,
                context,
                limit,
                summary,
                scope,
                scope_context,
            } => {
                put("pattern", Some(json!(pattern)));
                put("path", path.as_ref().map(|p| json!(p)));
                put("glob", glob.as_ref().map(|g| json!(g)));
                put("ignoreCase", ignore_case.then_some(json!(true)));
                put("literal", literal.then_some(json!(true)));
                put("context", context.map(Value::from));
                put("limit", limit.map(Value::from));
                put("summary", summary.then_some(json!(true)));
                put("scope", scope.as_ref().map(|s| json!(s)));
                put("scopeContext", scope_context.map(Value::from));
                "grep"
            }
            Command::Search { pattern, path, lang, glob, limit } => {
                put("pattern", Some(json!(pattern)));
                put("path", path.as_ref().map(|p| json!(p)));
                put("lang", lang.as_ref().map(|l| json!(l)));
                put("glob", glob.as_ref().map(|g| json!(g)));
                put("limit", limit.map(Value::from));
                "ast_search"
            }
            Command::Tools
            | Command::Changes
            | Command::Undo { .. }
            | Command::Map { .. }
            | Command::Call { .. }
            | Command::Batch
            | Command::Mcp { .. }
            | Command::Show { .. }
            | Command::Setup { .. }
            | Command::Doctor
            | Command::Hook { .. } => {
                anyhow::bail!("not a tool subcommand")
            }
        };
        Ok((tool, Value::Object(args)))
    }
}
