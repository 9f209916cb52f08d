//! Command-line arguments.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use serde_json::{Map, Value, json};

/// Hash-anchored file tools for coding agents.
#[derive(Debug, Parser)]
#[command(name = "hashline", version, about)]
pub struct Cli {
    /// A directory the tools may touch; the first one is the working directory
    /// (default: the current directory). Repeat for more roots.
    #[arg(long, global = true, value_name = "DIR")]
    pub root: Vec<PathBuf>,
    /// Keep the session (rows shown, for the edit guards) in FILE across invocations.
    #[arg(long, global = true, value_name = "FILE")]
    pub session: Option<PathBuf>,
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
    },
    /// Create or replace a file (content from --content or standard input).
    Write {
        /// The file.
        path: String,
        /// The new content; read from standard input when absent.
        #[arg(long)]
        content: Option<String>,
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
    /// current directory.
    Mcp,
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
            Command::Read { path, offset, limit } => {
                put("path", Some(json!(path)));
                put("offset", offset.map(Value::from));
                put("limit", limit.map(Value::from));
                "read"
            }
            Command::Edit { path, edits, verify } => {
                let text = if edits == "-" {
                    std::io::read_to_string(std::io::stdin()).context("cannot read edits from standard input")?
                } else {
                    edits.clone()
                };
                let edits: Value = serde_json::from_str(&text).context("--edits is not valid JSON")?;
                put("path", Some(json!(path)));
                put("edits", Some(edits));
                put("postEditVerify", verify.then_some(json!(true)));
                "edit"
            }
            Command::Write { path, content } => {
                let content = match content {
                    Some(content) => content.clone(),
                    None => {
                        std::io::read_to_string(std::io::stdin()).context("cannot read content from standard input")?
                    }
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
            Command::Grep { pattern, path, glob, ignore_case, literal, context, limit, summary } => {
                put("pattern", Some(json!(pattern)));
                put("path", path.as_ref().map(|p| json!(p)));
                put("glob", glob.as_ref().map(|g| json!(g)));
                put("ignoreCase", ignore_case.then_some(json!(true)));
                put("literal", literal.then_some(json!(true)));
                put("context", context.map(Value::from));
                put("limit", limit.map(Value::from));
                put("summary", summary.then_some(json!(true)));
                "grep"
            }
            Command::Tools | Command::Call { .. } | Command::Batch | Command::Mcp | Command::Show { .. } => {
                anyhow::bail!("not a tool subcommand")
            }
        };
        Ok((tool, Value::Object(args)))
    }
}
