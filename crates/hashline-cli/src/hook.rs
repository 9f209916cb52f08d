//! `hashline hook claude-code`: Claude Code's PreToolUse hook (installed by `hashline setup
//! claude-code --replace-builtins`). It reads the hook's JSON on standard input and denies the
//! built-in Edit, Write, MultiEdit and NotebookEdit with a reason naming hashline's `edit` and
//! `write` (Claude Code shows the model that reason); every other tool passes untouched (no
//! output, exit 0). Input that is not a PreToolUse event is an error on standard error with
//! exit 1, which Claude Code reports without blocking the tool.

use std::io::{Read, Write};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

/// The built-in tools denied.
const DENIED: [&str; 4] = ["Edit", "Write", "MultiEdit", "NotebookEdit"];

/// How much of standard input is read (a Write's content can be large; the event is refused
/// past this rather than read without end).
const MAX_INPUT: u64 = 64 << 20;

/// The reason the model is shown for `tool`.
pub fn reason(tool: &str) -> String {
    format!(
        "{tool} is turned off in this project: edit files with hashline's tools instead. \
         mcp__hashline__edit changes lines by the LINE:HASH anchors that mcp__hashline__read \
         (or grep, or an earlier edit) showed, and mcp__hashline__write creates or replaces a whole file."
    )
}

/// Runs the hook for `host` (only `claude-code`).
pub fn run(host: &str) -> Result<ExitCode> {
    if host != "claude-code" {
        bail!("no hook for {host:?}: the hook is for claude-code");
    }
    let mut input = Vec::new();
    std::io::stdin().take(MAX_INPUT).read_to_end(&mut input).context("cannot read the hook's input")?;
    let event: Value = match serde_json::from_slice(&input) {
        Ok(event) => event,
        Err(err) => {
            eprintln!("hashline hook: the input is not Claude Code's hook JSON: {err}");
            return Ok(ExitCode::from(1));
        }
    };
    let Some(tool) = event.get("tool_name").and_then(Value::as_str) else {
        eprintln!("hashline hook: the input has no tool_name");
        return Ok(ExitCode::from(1));
    };
    if event.get("hook_event_name").and_then(Value::as_str).is_some_and(|e| e != "PreToolUse") {
        return Ok(ExitCode::SUCCESS);
    }
    if DENIED.contains(&tool) {
        let decision = json!({
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": reason(tool),
            }
        });
        let mut out = std::io::stdout().lock();
        writeln!(out, "{decision}")?;
    }
    Ok(ExitCode::SUCCESS)
}
