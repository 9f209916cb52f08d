//! Going back to a change (`hashline undo --to <id>`; docs/protocol.md §4.10, "Going back
//! to a change"): every change in effect from the session's newest back to and including
//! `<id>` reverted at once, newest first. Each step is checked as a revert of its own would
//! be, against the bytes the steps before it leave; then every file goes to its final
//! bytes in one journal commit, or, when any step would be refused, nothing is written.
//! Each step is recorded as a revert of its own.

use std::sync::{Arc, Mutex};

use hashline_core::Document;
use serde_json::json;

use super::EditValue;
use super::render;
use super::revert::{self, Held, Moved};
use crate::changes::{Before, Change, ChangedFile, NewFile};
use crate::error::{ErrorCode, ToolError};
use crate::result::{CallContext, ToolOutput};
use crate::session::Session;

/// One file the chain touches, by its identity key.
struct Slot<'c> {
    /// The file as the oldest change of the chain that touched it recorded it, and that
    /// change (what it goes back to).
    file: &'c ChangedFile,
    since: &'c Change,
    /// The newest change of the chain that touched it.
    newest: &'c Change,
}

/// One step: the change reverted and, per file, its slot, its bytes before the step and
/// after it.
type Step = Vec<(usize, Option<Vec<u8>>, Option<Vec<u8>>)>;

/// Reverts every change in effect from the newest back to and including `id`, newest
/// first, all or nothing.
pub fn run_to(session: &Session, id: &str, ctx: &CallContext) -> Result<ToolOutput<EditValue>, ToolError> {
    let chain = chain(session, id)?;
    let mut slots: Vec<Slot<'_>> = Vec::new();
    let mut paths = Vec::new();
    // Per change, per file: its slot.
    let mut slot_of: Vec<Vec<usize>> = Vec::with_capacity(chain.len());
    for change in &chain {
        let mut of = Vec::with_capacity(change.files.len());
        for (file, path) in change.files.iter().zip(revert::resolve_files(session, change)?) {
            let index = match paths.iter().position(|p: &crate::paths::ResolvedPath| p.key == path.key) {
                Some(index) => {
                    // The chain is newest first: the last change seen is the oldest.
                    slots[index].file = file;
                    slots[index].since = change;
                    index
                }
                None => {
                    slots.push(Slot { file, since: change, newest: change });
                    paths.push(path);
                    slots.len() - 1
                }
            };
            of.push(index);
        }
        slot_of.push(of);
    }
    let mut keys: Vec<_> = paths.iter().map(|p| p.key.clone()).collect();
    keys.sort();
    let locks: Vec<Arc<Mutex<()>>> = keys.iter().map(|k| session.lock_path(k)).collect();
    let guards: Vec<_> = locks.iter().map(|l| l.lock().unwrap_or_else(|p| p.into_inner())).collect();
    // Another call may have changed the log while this one waited for the locks.
    let again = self::chain(session, id)?;
    if chain_ids(&again) != chain_ids(&chain) {
        drop(guards);
        return run_to(session, id, ctx);
    }

    let mut held: Vec<Held<'_>> = Vec::with_capacity(slots.len());
    for (slot, path) in slots.iter().zip(paths) {
        held.push(revert::hold(session, slot.file, &slot.since.id, path)?);
    }
    // Each step against what the steps before it leave.
    let mut bytes: Vec<Option<Vec<u8>>> = held.iter().map(|h| h.now.clone()).collect();
    // Per slot, the changes of the chain already reverted on it, newest first.
    let mut done: Vec<Vec<&str>> = vec![Vec::new(); slots.len()];
    let mut steps: Vec<Step> = Vec::with_capacity(chain.len());
    for (position, change) in chain.iter().enumerate() {
        let of = &slot_of[position];
        let moved: Vec<(usize, &ChangedFile)> = change
            .files
            .iter()
            .zip(of)
            .filter(|&(file, &slot)| !revert::left_as(file, bytes[slot].as_deref()))
            .map(|(file, &slot)| (slot, file))
            .collect();
        if let Some(&(slot, file)) = moved.iter().find(|(slot, _)| !done[*slot].is_empty()) {
            return Err(diverged(id, &chain, position, file, &done[slot]));
        }
        if !moved.is_empty() {
            // On files no step touched yet: as a revert of this change alone is refused.
            let moved: Vec<Moved<'_>> = moved
                .iter()
                .map(|&(slot, file)| Moved { file, path: &held[slot].path, now: held[slot].now.as_deref() })
                .collect();
            return Err(revert::refusal(session, change, &moved, ctx.budget));
        }
        let mut step = Vec::with_capacity(change.files.len());
        for (file, &slot) in change.files.iter().zip(of) {
            let back = revert::load_before(session, change, file)?;
            let now = std::mem::replace(&mut bytes[slot], back.clone());
            step.push((slot, now, back));
            done[slot].push(&change.id);
        }
        steps.push(step);
    }
    for (file, back) in held.iter_mut().zip(bytes) {
        file.back = back;
    }

    ctx.cancel.check("Edit")?;
    let written: Vec<usize> = (0..held.len()).filter(|&i| held[i].now != held[i].back).collect();
    let members: Vec<&Held<'_>> = written.iter().map(|&i| &held[i]).collect();
    if !members.is_empty() {
        revert::commit(session, &members, |i| slots[written[i]].newest, ctx)?;
    }
    drop(members);
    let rendered = revert::render_files(session, &held, ctx);
    let mut ids = Vec::with_capacity(steps.len());
    for (change, step) in chain.iter().zip(&steps) {
        let files: Vec<NewFile<'_>> = step
            .iter()
            .zip(&change.files)
            .map(|((slot, now, back), file)| {
                let (added, removed) = line_counts(now.as_deref(), back.as_deref());
                NewFile {
                    path: &held[*slot].path.key,
                    display: &file.display,
                    before: now.as_deref().map_or(Before::Absent, Before::Bytes),
                    after: back.as_deref(),
                    added,
                    removed,
                }
            })
            .collect();
        ids.push(session.changes().record("revert", Some(&change.id), &files));
    }
    drop(guards);
    let last = ids.last().cloned().unwrap_or_default();
    if ids.len() == 1 {
        return Ok(rendered.output(&last, id, None, &render::change_line(&last), ctx));
    }
    let reverted: Vec<String> = chain.iter().zip(&ids).map(|(c, r)| format!("{} (by {r})", c.id)).collect();
    let head = format!(
        "Reverted {} changes, newest first, back to and including {}: {}.",
        ids.len(),
        chain[chain.len() - 1].id,
        reverted.join(", ")
    );
    let tail = format!(
        "Changes {} (undo: revert them newest first, from {last}: edit {{\"revert\": \"{last}\"}})",
        ids.join(", ")
    );
    Ok(rendered.output(&last, id, Some(head), &tail, ctx))
}

/// The changes `undo --to id` reverts, newest first: every change in effect after `id`,
/// then `id` itself (refused as a revert of it would be when it cannot be reverted, and
/// `change-expired` when one of the later ones was not kept).
fn chain(session: &Session, id: &str) -> Result<Vec<Change>, ToolError> {
    let target = revert::find(session, id)?;
    let later: Vec<Change> = {
        let log = session.changes();
        log.changes().rev().filter(|c| c.seq > target.seq && log.in_effect(c)).cloned().collect()
    };
    for change in later.iter().filter(|c| !c.kept) {
        revert::find(session, &change.id)?;
    }
    let mut chain = later;
    chain.push(target);
    Ok(chain)
}

fn chain_ids(chain: &[Change]) -> Vec<&str> {
    chain.iter().map(|c| c.id.as_str()).collect()
}

/// `change-conflict` when a step finds a file not as its change left it after the steps
/// before it reverted their changes of the file: it changed outside the session between
/// that change and the next one of it.
fn diverged(id: &str, chain: &[Change], position: usize, file: &ChangedFile, done: &[&str]) -> ToolError {
    let change = &chain[position];
    let next = done.last().copied().unwrap_or_default();
    let listed: Vec<&str> = chain.iter().map(|c| c.id.as_str()).collect();
    let through = &chain[position - 1].id;
    ToolError::new(
        ErrorCode::ChangeConflict,
        format!(
            "Revert refused — nothing was written. Going back to {id} reverts {} newest first, but {} changed outside this session between {} and {next} (its next change), so once {next} is reverted it would not be what {} left. Going back to {through} goes through; then decide against the content.",
            listed.join(", "),
            file.shown(),
            change.id,
            change.id,
        ),
    )
    .with_details(json!({
        "changeId": change.id,
        "to": id,
        "files": [{ "path": file.path.to_string_lossy(), "state": "changed", "standing": [] }],
        "updatedAnchors": [],
    }))
}

/// Lines added and removed from `now` to `back` (a missing file has no lines).
fn line_counts(now: Option<&[u8]>, back: Option<&[u8]>) -> (u32, u32) {
    let old = Document::parse(now.unwrap_or_default().to_vec());
    let new = Document::parse(back.unwrap_or_default().to_vec());
    match (now, back) {
        (None, _) => (new.line_count() as u32, 0),
        (_, None) => (0, old.line_count() as u32),
        _ => {
            let (_, found) = revert::line_changes(&old, &new);
            found
                .iter()
                .fold((0, 0), |(added, removed), (gone, made)| (added + made.len() as u32, removed + gone.len() as u32))
        }
    }
}
