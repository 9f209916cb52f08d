//! `hashline changes` and `hashline undo`: the session's change log from a shell.

use std::process::ExitCode;

use anyhow::Result;
use hashline::tools::changes::Change;
use hashline::{CallContext, Session};
use serde_json::{Value, json};

use crate::{exit_for, print_content, print_line};

/// Prints the session's changes, oldest first (one line each, or a JSON array).
pub fn list(session: &Session, json: bool) -> Result<ExitCode> {
    let log = session.changes();
    if json {
        let changes: Vec<Value> = log.changes().map(to_json).collect();
        print_line(&serde_json::to_string_pretty(&changes)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut lines = Vec::new();
    for change in log.changes() {
        lines.push(line(change));
    }
    if lines.is_empty() {
        print_line("No changes in this session.")?;
    } else {
        print_line(&lines.join("\n"))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The change `hashline undo` reverts: the one named, else the latest in effect.
pub fn undo_target(session: &Session, id: Option<&str>) -> Option<String> {
    match id {
        Some(id) => Some(id.to_owned()),
        None => session.changes().latest_undoable().map(|c| c.id.clone()),
    }
}

/// `hashline undo --to ID`: every change in effect back to and including `id` reverted at
/// once, printed as `undo` prints a revert. Not a tool call: a `--log` does not record it.
pub fn undo_to(session: &Session, id: &str, json: bool) -> Result<ExitCode> {
    let ctx = match json {
        true => CallContext::top_level(),
        // In text mode the model sees the text alone, as `run_tool` has it.
        false => CallContext { text_only: true, sees_text_only: true, ..CallContext::top_level() },
    };
    let outcome = hashline::tools::edit::revert_to(session, id, &ctx);
    let result = hashline::tools::run::project(session, "edit", outcome, &ctx);
    if json {
        print_line(&result.to_json())?;
    } else {
        print_content(&result.content, result.is_error)?;
    }
    Ok(exit_for(&result))
}

/// `<id>  <time>  <tool>  <file> +A -R[, ...]  [reverts <id>] [reverted by <id>]`.
fn line(change: &Change) -> String {
    let files: Vec<String> = change
        .files
        .iter()
        .map(|f| {
            let what = match f.state() {
                "changed" => String::new(),
                state => format!(" ({state})"),
            };
            format!("{}{what} +{} -{}", hashline::core::display::escape_name(&f.display), f.added, f.removed)
        })
        .collect();
    let mut line = format!("{:<9} {}  {:<6}  {}", change.id, time(change.time), change.tool, files.join(", "));
    if let Some(id) = &change.reverts {
        line.push_str(&format!("  reverts {id}"));
    }
    if let Some(id) = &change.reverted_by {
        line.push_str(&format!("  reverted by {id}"));
    }
    if !change.kept {
        line.push_str("  (not kept: over the bound)");
    }
    line
}

fn to_json(change: &Change) -> Value {
    let files: Vec<Value> = change
        .files
        .iter()
        .map(|f| json!({ "path": f.path, "display": f.display, "state": f.state(), "added": f.added, "removed": f.removed }))
        .collect();
    json!({
        "id": change.id,
        "time": time(change.time),
        "tool": change.tool,
        "files": files,
        "reverts": change.reverts,
        "revertedBy": change.reverted_by,
        "kept": change.kept,
    })
}

/// Milliseconds since the epoch as RFC 3339 UTC to the second.
fn time(millis: u64) -> String {
    let format = time::macros::format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]Z");
    time::OffsetDateTime::from_unix_timestamp((millis / 1000) as i64)
        .ok()
        .and_then(|t| t.format(&format).ok())
        .unwrap_or_else(|| millis.to_string())
}
