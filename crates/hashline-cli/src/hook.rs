//! `hashline hook claude-code`: Claude Code's PreToolUse hook (installed by `hashline setup
//! claude-code --replace-builtins`). It reads the hook's JSON on standard input and denies the
//! built-in Edit, Write, MultiEdit and NotebookEdit with a reason naming hashline's `edit` and
//! `write` (Claude Code shows the model that reason); every other tool passes untouched (no
//! output, exit 0). Input that is not a PreToolUse event is an error on standard error with
//! exit 1, which Claude Code reports without blocking the tool.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Result, bail};
use serde_json::json;

/// The built-in tools denied.
const DENIED: [&str; 4] = ["Edit", "Write", "MultiEdit", "NotebookEdit"];

/// The fields of the hook's event that matter here (the rest is skipped unread).
#[derive(serde::Deserialize)]
struct Event {
    tool_name: Option<String>,
    hook_event_name: Option<String>,
}

/// The reason the model is shown for `tool`, hashline's tools named with `prefix`.
pub fn reason(tool: &str, prefix: &str) -> String {
    format!(
        "{tool} is turned off in this project: edit files with hashline's tools instead. \
         {prefix}edit changes lines by the LINE:HASH anchors that {prefix}read \
         (or grep, or an earlier edit) showed, and {prefix}write creates or replaces a whole file."
    )
}

/// Runs the hook for `host` (only `claude-code`), naming hashline's tools with `prefix`.
pub fn run(host: &str, prefix: &str) -> Result<ExitCode> {
    if host != "claude-code" {
        bail!("no hook for {host:?}: the hook is for claude-code");
    }
    // A tool name's characters only: the prefix is copied into text the model reads.
    if prefix.is_empty()
        || prefix.len() > 64
        || !prefix.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        bail!("--tool-prefix must be letters, digits, _ or - (at most 64), like mcp__hashline__");
    }
    // Read as a stream: a Write's content is skipped, never held, however large.
    let event: Event = match serde_json::from_reader(std::io::stdin().lock()) {
        Ok(event) => event,
        Err(err) => {
            eprintln!("hashline hook: the input is not Claude Code's hook JSON: {err}");
            return Ok(ExitCode::from(1));
        }
    };
    let Some(tool) = event.tool_name.as_deref() else {
        eprintln!("hashline hook: the input has no tool_name");
        return Ok(ExitCode::from(1));
    };
    if event.hook_event_name.as_deref().is_some_and(|e| e != "PreToolUse") {
        return Ok(ExitCode::SUCCESS);
    }
    if DENIED.contains(&tool) {
        let decision = json!({
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": reason(tool, prefix),
            }
        });
        let mut out = std::io::stdout().lock();
        writeln!(out, "{decision}")?;
    }
    Ok(ExitCode::SUCCESS)
}
