//! Committing prepared files: all validated first, then written one by one; a failed
//! write restores the files already written. Then the result with fresh anchors.

use std::sync::{Arc, Mutex};

use hashline_core::edit::EditOp;
use serde_json::{Value, json};

use super::prepare::{Options, Prepared, carry_served, prepare};
use super::render::{self, FRESH_CONTEXT};
use super::{EditValue, FileEditValue, Request};
use crate::diff::DIFF_CONTEXT;
use crate::error::{ErrorCode, ToolError};
use crate::fsio::write_error;
use crate::ptc::PtcLine;
use crate::result::{CallContext, ToolOutput};
use crate::session::Session;
use crate::warning::Warning;

/// Validates every file, then writes them all or none.
pub(crate) fn run(
    session: &Session,
    requests: Vec<Request>,
    options: &Options,
    notes: Vec<Warning>,
    ctx: &CallContext,
) -> Result<ToolOutput<EditValue>, ToolError> {
    // Lock every file this call may touch (targets and move sources), in one order.
    let mut reals = Vec::new();
    for request in &requests {
        reals.push(session.resolve(&request.path)?.real);
        for source in move_sources(&request.edits) {
            reals.push(session.resolve(&source)?.real);
        }
    }
    reals.sort();
    let targets: Vec<_> = requests.iter().filter_map(|r| session.resolve(&r.path).ok()).map(|p| p.real).collect();
    if targets.len() != targets.iter().collect::<std::collections::HashSet<_>>().len() {
        return Err(ToolError::new(
            ErrorCode::InvalidParamsCombo,
            "Edit rejected — nothing was written. files lists the same file twice; put all of a file's edits in one entry.",
        ));
    }
    reals.dedup();
    let locks: Vec<Arc<Mutex<()>>> = reals.iter().map(|r| session.lock_path(r)).collect();
    let _guards: Vec<_> = locks.iter().map(|l| l.lock().unwrap_or_else(|p| p.into_inner())).collect();

    let mut prepared = Vec::with_capacity(requests.len());
    for (index, request) in requests.iter().enumerate() {
        prepared.push(
            prepare(session, request, options.syntax)
                .map_err(|err| in_file(err, options.multi, index, &request.path))?,
        );
    }
    // A move from another file deletes the range there: one more file of the commit.
    let mut extra = Vec::new();
    for file in &prepared {
        for (source, op) in &file.moved_from {
            if requests
                .iter()
                .any(|r| session.resolve(&r.path).ok().map(|p| p.real) == session.resolve(source).ok().map(|p| p.real))
            {
                return Err(ToolError::new(
                    ErrorCode::InvalidParamsCombo,
                    format!(
                        "Edit rejected — nothing was written. move_lines takes lines from {source}, which this call also edits; move them in a separate call."
                    ),
                ));
            }
            extra.push(Request { path: source.clone(), edits: deletion(op) });
        }
    }
    for request in &extra {
        prepared.push(
            prepare(session, request, options.syntax)
                .map_err(|err| in_file(err, true, prepared.len(), &request.path))?,
        );
    }

    write_all(session, &prepared)?;
    for file in prepared.iter().filter(|f| !f.outcome.is_noop(&f.before)) {
        session.note_mutation(&file.path.real, &file.path.display, ctx);
        session.note_visible(&file.path.real, ctx);
    }

    let mut values = Vec::with_capacity(prepared.len());
    let mut texts = Vec::with_capacity(prepared.len());
    for file in &prepared {
        let (value, text) = finish(session, file)?;
        values.push(value);
        texts.push(text);
    }
    // Verified after every file's ledger is up to date, so a failure leaves no file behind.
    if options.verify {
        for file in prepared.iter().filter(|f| !f.outcome.is_noop(&f.before)) {
            verify(file)?;
        }
    }
    let mut text = texts.join("\n\n");
    if !notes.is_empty() {
        let lines: Vec<&str> = notes.iter().map(|n| n.message.as_str()).collect();
        text = format!("{}\n\n{text}", lines.join("\n"));
    }
    let value = if values.len() == 1 && !options.multi {
        let mut file = values.remove(0);
        file.warnings.splice(0..0, notes);
        EditValue::File(Box::new(file))
    } else {
        EditValue::Files { files: values, warnings: notes }
    };
    let meta = hashline_view::DiffsMeta {
        diffs: prepared
            .iter()
            .flat_map(|file| {
                let hunks = render::hunks(&file.before, &file.outcome.document, &file.outcome.changes, DIFF_CONTEXT);
                render::file_diffs(&file.path.display, &file.before, &file.outcome.document, &hunks)
            })
            .collect(),
    };
    Ok(ToolOutput::text(value, text).with_meta(meta))
}

/// Writes every changed file; on a failure restores those already written.
fn write_all(session: &Session, prepared: &[Prepared]) -> Result<(), ToolError> {
    let mut written: Vec<&Prepared> = Vec::new();
    for file in prepared.iter().filter(|f| !f.outcome.is_noop(&f.before)) {
        if let Err(err) = session.write_file(&file.path.absolute, file.outcome.document.as_bytes()) {
            let failure = write_error(&err, &file.path);
            let mut unrestored = Vec::new();
            for done in &written {
                if session.write_file(&done.path.absolute, done.before.as_bytes()).is_err() {
                    unrestored.push(done.path.display.clone());
                }
            }
            let restored = written.len() - unrestored.len();
            let mut message = format!("Edit rejected — writing {} failed: {}", file.path.display, failure.message);
            if written.is_empty() {
                message.push_str(" Nothing was written.");
            } else if unrestored.is_empty() {
                message.push_str(&format!(" The {restored} file(s) already written were restored; nothing changed."));
            } else {
                message.push_str(&format!(
                    " Restoring failed for: {}. Those files hold the edit; the others are unchanged.",
                    unrestored.join(", ")
                ));
            }
            let mut error = ToolError::new(failure.code, message).with_path(file.path.absolute_str());
            error.details = failure.details;
            return Err(error);
        }
        written.push(file);
    }
    Ok(())
}

/// After the write: ledger, verification, value and text of one file.
fn finish(session: &Session, file: &Prepared) -> Result<(FileEditValue, String), ToolError> {
    let outcome = &file.outcome;
    let (old, new) = (&file.before, &outcome.document);
    let noop = outcome.is_noop(old);
    let hunks = render::hunks(old, new, &outcome.changes, FRESH_CONTEXT);
    let fresh = render::fresh_lines(&hunks);
    if !noop {
        carry_served(session, file, &fresh);
    }
    let (added, removed) = render::counts(&hunks);
    let summary = if noop {
        format!("No changes made to {}: the file already has this content. Nothing was written.", file.path.display)
    } else {
        render::summary(&file.path.display, file.edits, added, removed)
    };
    let (diff, cut) = render::anchored_diff(old, new, &hunks);
    let mut text = summary.clone();
    for warning in &file.warnings {
        text.push('\n');
        text.push_str(&warning.message);
    }
    if !diff.is_empty() {
        text.push_str("\n\n");
        text.push_str(&diff);
        if cut {
            text.push_str(&format!("\n[Diff cut at {} rows; read the file for the rest.]", render::MAX_DIFF_ROWS));
        }
    }
    let anchors =
        fresh.iter().filter_map(|&n| new.line(n)).map(|l| PtcLine::new(l.number, l.hash(), l.content)).collect();
    let value = FileEditValue {
        path: file.path.absolute_str(),
        summary,
        diff,
        diff_data: render::diff_data(old, new, &hunks),
        first_changed_line: outcome.first_changed_line.map(|l| l.get().min(new.line_count() as u32)),
        noop_edits: outcome.noop_edits.clone(),
        noop,
        patch: if noop { String::new() } else { render::patch(&file.path.display, old, new, &outcome.changes) },
        anchors,
        syntax: file.syntax.clone(),
        warnings: file.warnings.clone(),
    };
    Ok((value, text))
}

/// `postEditVerify`: the bytes on disk are the bytes meant.
fn verify(file: &Prepared) -> Result<(), ToolError> {
    let expected = file.outcome.document.as_bytes();
    match std::fs::read(&file.path.absolute) {
        Err(err) => Err(ToolError::new(
            ErrorCode::PostEditVerificationReadFailed,
            format!("The edit was written to {}, but reading it back failed: {err}", file.path.display),
        )
        .with_path(file.path.absolute_str())),
        Ok(actual) if actual != expected => Err(ToolError::new(
            ErrorCode::PostEditVerificationMismatch,
            format!(
                "The edit was written to {}, but the file read back differs from what was written ({} bytes expected, {} found). Re-read the file.",
                file.path.display,
                expected.len(),
                actual.len()
            ),
        )
        .with_details(json!({ "expectedLength": expected.len(), "actualLength": actual.len() }))
        .with_path(file.path.absolute_str())),
        Ok(_) => Ok(()),
    }
}

/// Names the file of a multi-file edit in an error.
fn in_file(mut err: ToolError, multi: bool, index: usize, path: &str) -> ToolError {
    if multi {
        err.message = format!("files[{index}] ({path}): {}\nNothing was written to any file.", err.message);
    }
    err
}

/// The `from_path` of every copy/move item in a request's edits.
fn move_sources(edits: &Value) -> Vec<String> {
    let parsed = match edits {
        Value::String(text) => serde_json::from_str::<Value>(text).unwrap_or(Value::Null),
        other => other.clone(),
    };
    let items = match parsed {
        Value::Array(items) => items,
        single @ Value::Object(_) => vec![single],
        _ => return Vec::new(),
    };
    items
        .iter()
        .filter_map(|item| item.get("move_lines").or_else(|| item.get("copy_lines")))
        .filter_map(|op| op.get("from_path")?.as_str().map(str::to_owned))
        .collect()
}

/// The source half of a cross-file move: delete the moved range.
fn deletion(op: &EditOp) -> Value {
    match op {
        EditOp::MoveLines { start, end, .. } => {
            json!([{ "replace_lines": { "start_anchor": anchor_text(start), "end_anchor": anchor_text(end), "new_text": "", "literal": true } }])
        }
        _ => json!([]),
    }
}

fn anchor_text(anchor: &hashline_core::AnchorRef) -> String {
    match anchor {
        hashline_core::AnchorRef::Line { anchor, .. } => anchor.to_string(),
        hashline_core::AnchorRef::Hash { hash, .. } => hash.to_string(),
    }
}
