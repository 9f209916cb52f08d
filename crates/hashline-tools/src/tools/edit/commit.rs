//! Committing prepared files: every file opened and locked, all validated in memory,
//! then committed all or none through the session. Then the result with fresh anchors.

use std::sync::{Arc, Mutex};

use hashline_core::edit::{EditOp, marked_rows};
use hashline_core::snapshot::SnapshotTag;
use hashline_core::{Document, LineNo};
use serde_json::{Value, json};

use super::prepare::{Held, Options, Prepared, carry_served, prepare, record_rows};
use super::render::{self, FRESH_CONTEXT};
use super::{EditValue, FileEditValue, Request};
use crate::changes::{Before, NewFile};
use crate::diff::{Change, DIFF_CONTEXT};
use crate::error::{ErrorCode, ToolError};
use crate::fsio::write_error;
use crate::ptc::PtcLine;
use crate::result::{CallContext, ToolOutput};
use crate::session::Session;
use crate::warning::Warning;
use hashline_fs::{CommitError, Member};

/// Validates every file, then writes them all or none.
pub(crate) fn run(
    session: &Session,
    requests: Vec<Request>,
    options: &Options,
    notes: Vec<Warning>,
    ctx: &CallContext,
) -> Result<ToolOutput<EditValue>, ToolError> {
    // Lock every file this call may touch (targets and move sources), in one order.
    let mut raw = Vec::new();
    for request in &requests {
        raw.push(request.path.clone());
        raw.extend(move_sources(&request.edits));
    }
    let resolved = Held::resolve_all(session, &raw)?;
    let targets: Vec<_> = requests.iter().filter_map(|r| resolved.get(&r.path)).map(|p| p.key.clone()).collect();
    if targets.len() != targets.iter().collect::<std::collections::HashSet<_>>().len() {
        return Err(ToolError::new(
            ErrorCode::InvalidParamsCombo,
            "Edit rejected — nothing was written. files lists the same file twice; put all of a file's edits in one entry.",
        ));
    }
    let mut keys: Vec<_> = resolved.values().map(|p| p.key.clone()).collect();
    keys.sort();
    keys.dedup();
    let locks: Vec<Arc<Mutex<()>>> = keys.iter().map(|k| session.lock_path(k)).collect();
    let _guards: Vec<_> = locks.iter().map(|l| l.lock().unwrap_or_else(|p| p.into_inner())).collect();
    let held = Held::open(session, resolved);

    let mut prepared = Vec::with_capacity(requests.len());
    for (index, request) in requests.iter().enumerate() {
        prepared.push(
            prepare(session, request, &held, options.syntax)
                .map_err(|err| in_file(err, options.multi, index, &request.path))?,
        );
    }
    // A move from another file deletes the range there: one more file of the commit.
    let mut extra = Vec::new();
    for file in &prepared {
        for (source, op) in &file.moved_from {
            let source_key = held.resolved(session, source).ok().map(|p| p.key);
            if source_key.is_some() && targets.iter().any(|t| Some(t) == source_key.as_ref()) {
                return Err(ToolError::new(
                    ErrorCode::InvalidParamsCombo,
                    format!(
                        "Edit rejected — nothing was written. move_lines takes lines from {source}, which this call also edits; move them in a separate call."
                    ),
                ));
            }
            extra.push(Request { path: source.clone(), edits: deletion(op), snapshot: None });
        }
    }
    for request in &extra {
        prepared.push(
            prepare(session, request, &held, options.syntax)
                .map_err(|err| in_file(err, true, prepared.len(), &request.path))?,
        );
    }

    // The last moment a cancelled call can still leave every file alone.
    ctx.cancel.check("Edit")?;
    write_all(session, &prepared, &held)?;
    drop(held);
    for file in prepared.iter().filter(|f| !f.outcome.is_noop(&f.before)) {
        session.note_mutation(&file.path.key, &file.path.display, ctx);
        session.note_visible(&file.path.key, ctx);
    }

    let mut values = Vec::with_capacity(prepared.len());
    let mut texts = Vec::with_capacity(prepared.len());
    let mut changes = Vec::with_capacity(prepared.len());
    let mut counts = Vec::with_capacity(prepared.len());
    // Each file's diff gets its share of the call's budget (the summary lines, notes and
    // the change line take the rest).
    let max_bytes = ctx.budget.bytes_after(512) / prepared.len().max(1);
    for file in &prepared {
        let done = finish(session, file, ctx, max_bytes)?;
        values.push(done.value);
        texts.push(done.text);
        changes.push(done.found);
        counts.push(done.counts);
    }
    let change_id = record_change(session, &prepared, &counts);
    // Verified after every file's ledger is up to date, so a failure leaves no file behind.
    if options.verify {
        for file in prepared.iter().filter(|f| !f.outcome.is_noop(&f.before)) {
            verify(session, file)?;
        }
    }
    let mut text = texts.join("\n\n");
    if !notes.is_empty() {
        let lines: Vec<&str> = notes.iter().map(|n| n.message.as_str()).collect();
        text = format!("{}\n\n{text}", lines.join("\n"));
    }
    if let Some(id) = &change_id {
        text.push_str("\n\n");
        text.push_str(&render::change_line(id));
        for (value, file) in values.iter_mut().zip(&prepared) {
            if !file.outcome.is_noop(&file.before) {
                value.change_id = Some(id.clone());
            }
        }
    }
    let value = if values.len() == 1 && !options.multi {
        let mut file = values.remove(0);
        file.warnings.splice(0..0, notes);
        EditValue::File(Box::new(file))
    } else {
        EditValue::Files { files: values, warnings: notes, change_id, reverts: None }
    };
    let output = ToolOutput::text(value, text);
    // The diff cards are for front ends that draw results; a text-only caller never sees them.
    if ctx.text_only || !ctx.is_top_level() {
        return Ok(output);
    }
    let meta = hashline_view::DiffsMeta {
        diffs: prepared
            .iter()
            .zip(changes)
            .flat_map(|(file, found)| {
                let hunks = render::hunks_of(&file.before, &file.outcome.document, found, DIFF_CONTEXT);
                render::file_diffs(&file.path.display, &file.before, &file.outcome.document, &hunks)
            })
            .collect(),
    };
    Ok(output.with_meta(meta))
}

/// Writes every changed file, all or none (SPEC §7.5): compared before the commit
/// against what was read, through the handles held since.
fn write_all(session: &Session, prepared: &[Prepared], held: &Held) -> Result<(), ToolError> {
    let changed: Vec<&Prepared> = prepared.iter().filter(|f| !f.outcome.is_noop(&f.before)).collect();
    let mut members = Vec::with_capacity(changed.len());
    for file in &changed {
        let Some(target) = held.target(&file.path.key) else {
            return Err(write_error(&std::io::ErrorKind::NotFound.into(), &file.path));
        };
        members.push(Member {
            target,
            old: file.before.as_bytes(),
            new: file.outcome.document.as_bytes(),
            check: true,
            remove: false,
        });
    }
    if members.is_empty() {
        return Ok(());
    }
    match session.commit(&members) {
        Ok(_) => Ok(()),
        Err((index, CommitError::Changed)) => Err(changed_on_disk(session, changed[index])),
        Err((index, CommitError::Io(err))) => {
            let file = changed[index];
            let failure = write_error(&err, &file.path);
            let nothing = if changed.len() > 1 { "Nothing was written to any file." } else { "Nothing was written." };
            let message =
                format!("Edit rejected — writing {} failed: {} {nothing}", file.path.shown(), failure.message);
            let mut error = ToolError::new(failure.code, message).with_path(file.path.absolute_str());
            error.details = failure.details;
            Err(error)
        }
    }
}

/// Compare before commit found the file changed since it was read: `hash-mismatch` with
/// the current rows of the lines the edit targets, which count as served.
fn changed_on_disk(session: &Session, file: &Prepared) -> ToolError {
    let current = session.read_file(&file.path).map(Document::parse).unwrap_or_else(|_| Document::parse(Vec::new()));
    let last = current.line_count().max(1) as u32;
    let mut lines: Vec<LineNo> = file.outcome.overwritten.clone();
    lines.extend(file.outcome.first_changed_line);
    let mut lines: Vec<LineNo> = lines.into_iter().filter_map(|l| LineNo::new(l.get().min(last))).collect();
    lines.sort();
    lines.dedup();
    let (rows, shown) = marked_rows(&current, &lines, 1);
    record_rows(session, &file.path, &current, &shown);
    let updated: Vec<PtcLine> =
        lines.iter().filter_map(|&l| current.line(l)).map(|l| PtcLine::new(l.number, l.hash(), l.content)).collect();
    let targets: Vec<crate::error::RefusalTarget> = lines
        .iter()
        .filter_map(|&l| current.line(l))
        .map(|l| crate::error::RefusalTarget {
            edit: None,
            sent: None,
            anchor: Some(format!("{}:{}", l.number, l.hash())),
        })
        .collect();
    ToolError::new(
        ErrorCode::HashMismatch,
        format!(
            "Edit rejected — nothing was written. {} changed on disk while this edit was being made (another program wrote to it). The lines this edit targets now read (>>> marks them):\n\n{rows}\n\nDecide against the current content above and re-issue the edit with these LINE:HASH anchors; no re-read is needed.",
            file.path.shown()
        ),
    )
    .with_details(json!({ "updatedAnchors": updated, "targets": targets }))
    .with_path(file.path.absolute_str())
}

/// The call's change in the session's change log (its files that changed, bytes before
/// and after), when it wrote anything: its id.
fn record_change(session: &Session, prepared: &[Prepared], counts: &[(usize, usize)]) -> Option<String> {
    let files: Vec<NewFile<'_>> = prepared
        .iter()
        .zip(counts)
        .filter(|(file, _)| !file.outcome.is_noop(&file.before))
        .map(|(file, &(added, removed))| NewFile {
            path: &file.path.key,
            display: &file.path.display,
            before: Before::Bytes(file.before.as_bytes()),
            after: Some(file.outcome.document.as_bytes()),
            added: added as u32,
            removed: removed as u32,
        })
        .collect();
    (!files.is_empty()).then(|| session.changes().record("edit", None, &files))
}

/// After the write: ledger, verification, value and text of one file, the edit's
/// logical changes (for the diff cards) and its lines added and removed. The text names
/// the added lines' anchors (not their content: the model wrote it); the value the anchored diff and the fresh anchors (each change ±2
/// lines), which are served unless the model sees the text alone (then the added rows
/// are). With `ctx.text_only`, the value leaves out what only the structured projection
/// shows (`diffData`, `patch`, `anchors`).
fn finish(session: &Session, file: &Prepared, ctx: &CallContext, max_bytes: usize) -> Result<Finished, ToolError> {
    let text_only = ctx.text_only;
    let outcome = &file.outcome;
    let (old, new) = (&file.before, &outcome.document);
    let noop = outcome.is_noop(old);
    let found = render::logical_changes(old, new, &outcome.changes);
    let hunks = render::hunks_of(old, new, found.iter().cloned(), FRESH_CONTEXT);
    let fresh = render::fresh_lines(&hunks);
    let added_rows = render::AddedRows::anchors_of(new, &hunks, max_bytes);
    if !noop {
        carry_served(session, file, if ctx.sees_text_only { &added_rows.lines } else { &fresh });
    }
    let (added, removed) = render::counts(&hunks);
    let summary = if noop {
        format!("No changes made to {}: the file already has this content. Nothing was written.", file.path.shown())
    } else {
        render::summary(&file.path.shown(), file.edits, added, removed)
    };
    let (diff, _) = render::anchored_diff(old, new, &hunks, max_bytes);
    // The result shows the added lines only (the fresh rows, to a model that sees the
    // value): the model keeps the rows of the view it edited for the rest.
    let snapshot = if noop {
        session.show_snapshot(new.as_bytes())
    } else {
        let parent = file.cited.unwrap_or_else(|| SnapshotTag::of(old.as_bytes()));
        let shown = if ctx.sees_text_only { &added_rows.lines } else { &fresh };
        session.show_partial(new.as_bytes(), parent, shown.iter().map(|l| l.get()))
    };
    let mut text = summary.clone();
    text.push('\n');
    text.push_str(crate::tools::read::snapshot_line(snapshot).trim_end());
    for warning in &file.warnings {
        text.push('\n');
        text.push_str(&warning.message);
    }
    if !added_rows.is_empty() {
        text.push_str("\n\n");
        text.push_str(&added_rows.anchors_with_note());
    }
    let anchors = if text_only {
        Vec::new()
    } else {
        fresh.iter().filter_map(|&n| new.line(n)).map(|l| PtcLine::new(l.number, l.hash(), l.content)).collect()
    };
    let value = FileEditValue {
        path: file.path.absolute_str(),
        summary,
        diff,
        diff_data: if text_only { render::DiffData::default() } else { render::diff_data(old, new, &hunks) },
        first_changed_line: outcome.first_changed_line.map(|l| l.get().min(new.line_count() as u32)),
        noop_edits: outcome.noop_edits.clone(),
        noop,
        patch: if noop || text_only {
            String::new()
        } else {
            render::patch(&file.path.display, old, new, &outcome.changes)
        },
        anchors,
        syntax: file.syntax.clone(),
        warnings: file.warnings.clone(),
        change_id: None,
        reverts: None,
        snapshot: Some(snapshot.to_string()),
    };
    Ok(Finished { value, text, found, counts: (added, removed) })
}

/// One file's part of an edit's result (see [`finish`]).
struct Finished {
    value: FileEditValue,
    text: String,
    /// The edit's logical changes.
    found: Vec<Change>,
    /// Lines added and removed.
    counts: (usize, usize),
}

/// `postEditVerify`: the bytes on disk are the bytes meant.
fn verify(session: &Session, file: &Prepared) -> Result<(), ToolError> {
    let expected = file.outcome.document.as_bytes();
    match session.read_file(&file.path) {
        Err(err) => Err(ToolError::new(
            ErrorCode::PostEditVerificationReadFailed,
            format!("The edit was written to {}, but reading it back failed: {}", file.path.shown(), err.message),
        )
        .with_path(file.path.absolute_str())),
        Ok(actual) if actual != expected => Err(ToolError::new(
            ErrorCode::PostEditVerificationMismatch,
            format!(
                "The edit was written to {}, but the file read back differs from what was written ({} bytes expected, {} found). Re-read the file.",
                file.path.shown(),
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
    // Read in place: only edits given as a JSON string are parsed (the items are not copied).
    let parsed;
    let edits = match edits {
        Value::String(text) => {
            parsed = serde_json::from_str::<Value>(text).unwrap_or(Value::Null);
            &parsed
        }
        other => other,
    };
    let items: &[Value] = match edits {
        Value::Array(items) => items,
        single @ Value::Object(_) => std::slice::from_ref(single),
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
