//! `edit` with `revert` (docs/protocol.md, "Changes and revert"): every file of an earlier
//! change back to its bytes before it — all or none, through the journal — only while each
//! is still exactly what the change left. Otherwise refused with the rows that changed
//! since, nothing written. A revert is a change too, with its own id.

use std::sync::{Arc, Mutex};

use hashline_core::edit::ChangeMap;
use hashline_core::{Document, LineNo, looks_binary};
use serde_json::json;

use super::render::{self, FRESH_CONTEXT};
use super::{EditValue, FileEditValue};
use crate::budget::Budget;
use crate::changes::{Before, Change, ChangedFile, Lookup, NewFile};
use crate::diff::{Change as LineChange, changes_between};
use crate::error::{ErrorCode, ToolError};
use crate::fsio::{read_error, write_error};
use crate::paths::ResolvedPath;
use crate::ptc::PtcLine;
use crate::result::{CallContext, ToolOutput};
use crate::session::Session;
use crate::validate::{SyntaxMode, SyntaxOutcome};
use hashline_fs::{CommitError, Member, Target};

/// One file of the change being reverted, opened and locked.
pub(super) struct Held<'c> {
    /// The file as the change recorded it.
    pub file: &'c ChangedFile,
    /// The change whose bytes before it goes back to.
    pub since: &'c str,
    pub path: ResolvedPath,
    pub target: Target,
    /// Its bytes now (`None`: no file has the name).
    pub now: Option<Vec<u8>>,
    /// The bytes it goes back to (`None`: the change made it, so it goes).
    pub back: Option<Vec<u8>>,
}

/// Reverts the change `id`.
pub(crate) fn run(session: &Session, id: &str, ctx: &CallContext) -> Result<ToolOutput<EditValue>, ToolError> {
    let change = find(session, id)?;
    let paths = resolve_files(session, &change)?;
    let mut keys: Vec<_> = paths.iter().map(|p| p.key.clone()).collect();
    keys.sort();
    keys.dedup();
    let locks: Vec<Arc<Mutex<()>>> = keys.iter().map(|k| session.lock_path(k)).collect();
    let _guards: Vec<_> = locks.iter().map(|l| l.lock().unwrap_or_else(|p| p.into_inner())).collect();
    // Another call may have reverted it while this one waited for the locks.
    let change = find(session, id)?;

    let mut held = Vec::with_capacity(paths.len());
    for (file, path) in change.files.iter().zip(paths) {
        held.push(hold(session, file, &change.id, path)?);
    }
    // Every file exactly as the change left it, or nothing is written.
    let moved: Vec<Moved<'_>> = held
        .iter()
        .filter(|h| !left_as(h.file, h.now.as_deref()))
        .map(|h| Moved { file: h.file, path: &h.path, now: h.now.as_deref() })
        .collect();
    if !moved.is_empty() {
        return Err(refusal(session, &change, &moved, ctx.budget));
    }
    for file in &mut held {
        file.back = load_before(session, &change, file.file)?;
    }

    ctx.cancel.check("Edit")?;
    let all: Vec<&Held<'_>> = held.iter().collect();
    commit(session, &all, |_| &change, ctx)?;
    finish(session, &change, held, ctx)
}

/// Opens and locks the target of `file` at `path` (missing parent directories are made
/// when it goes back to bytes) and reads it.
pub(super) fn hold<'c>(
    session: &Session,
    file: &'c ChangedFile,
    since: &'c str,
    path: ResolvedPath,
) -> Result<Held<'c>, ToolError> {
    let target = match session.open_target(&path, false) {
        Err(err) if err.kind() == std::io::ErrorKind::NotFound && file.before.is_some() => {
            session.open_target(&path, true)
        }
        other => other,
    }
    .map_err(|err| write_error(&err, &path))?;
    let now = match target.exists() {
        true => Some(target.load().map_err(|err| read_error(&err, &path))?),
        false => None,
    };
    Ok(Held { file, since, path, target, now, back: None })
}

/// The kept bytes of `file` before `change` (`None`: the change made it); `change-expired`
/// when they are gone or were altered.
pub(super) fn load_before(
    session: &Session,
    change: &Change,
    file: &ChangedFile,
) -> Result<Option<Vec<u8>>, ToolError> {
    let Some(blob) = &file.before else { return Ok(None) };
    let bytes = session.changes().load(blob).map_err(|_| {
        ToolError::new(
            ErrorCode::ChangeExpired,
            format!(
                "Revert refused — nothing was written. The bytes kept for {} before {} are gone or were altered, so the change cannot be reverted.",
                file.shown(), change.id
            ),
        )
    })?;
    Ok(Some(bytes))
}

/// Commits every held file from its bytes now to its bytes back, all or none. A file that
/// changed since it was read is refused as the change `change_of` names for it would be.
pub(super) fn commit<'c>(
    session: &Session,
    held: &[&Held<'_>],
    change_of: impl Fn(usize) -> &'c Change,
    ctx: &CallContext,
) -> Result<(), ToolError> {
    let members: Vec<Member<'_>> = held
        .iter()
        .map(|h| Member {
            target: &h.target,
            old: h.now.as_deref().unwrap_or_default(),
            new: h.back.as_deref().unwrap_or_default(),
            check: true,
            remove: h.back.is_none(),
        })
        .collect();
    match session.commit(&members) {
        Ok(_) => Ok(()),
        Err((index, CommitError::Changed)) => {
            // Changed between the check and the commit: as if found changed there.
            let file = held[index];
            let now = session.read_file(&file.path).ok();
            let moved = Moved { file: file.file, path: &file.path, now: now.as_deref() };
            Err(refusal(session, change_of(index), &[moved], ctx.budget))
        }
        Err((index, CommitError::Io(err))) => {
            let failure = write_error(&err, &held[index].path);
            Err(ToolError::new(
                failure.code,
                format!(
                    "Revert refused — writing {} failed: {} Nothing was written to any file.",
                    held[index].file.shown(),
                    failure.message
                ),
            )
            .with_path(held[index].path.absolute_str()))
        }
    }
}

/// The change `id` names, if it can be reverted.
pub(super) fn find(session: &Session, id: &str) -> Result<Change, ToolError> {
    let log = session.changes();
    let change = match log.find(id) {
        Ok(change) => change.clone(),
        Err(Lookup::Unknown) => {
            let latest = log.changes().next_back().map(|c| c.id.clone());
            let known = match latest {
                Some(latest) => format!("its latest is {latest}"),
                None => "it has made none yet".to_owned(),
            };
            return Err(ToolError::new(
                ErrorCode::ChangeUnknown,
                format!(
                    "Revert refused — nothing was written. No change {id} in this session ({known}). A change id is the c<N>-<tag> an edit or write result of this session named."
                ),
            )
            .with_details(json!({ "changeId": id })));
        }
        Err(Lookup::Expired) => {
            return Err(ToolError::new(
                ErrorCode::ChangeExpired,
                format!(
                    "Revert refused — nothing was written. Change {id} is no longer kept: a session keeps its last {} changes and {} MiB of their content (less when a server holds many sessions), and this change is older or was larger on its own.",
                    crate::changes::MAX_CHANGES,
                    crate::changes::MAX_CHANGE_BYTES >> 20
                ),
            )
            .with_details(json!({ "changeId": id })));
        }
    };
    if let Some(by) = &change.reverted_by {
        return Err(ToolError::new(
            ErrorCode::ChangeReverted,
            format!(
                "Revert refused — nothing was written. Change {id} was already reverted by {by}; revert {by} to make {id} again."
            ),
        )
        .with_details(json!({ "changeId": id, "revertedBy": by })));
    }
    Ok(change)
}

/// Each file of `change` resolved again. Refused (`change-conflict`, nothing written) when
/// one now leads elsewhere than the file the change wrote (a directory on its way replaced
/// by a symlink, or moved): a revert writes only where its change wrote.
pub(super) fn resolve_files(session: &Session, change: &Change) -> Result<Vec<ResolvedPath>, ToolError> {
    let mut paths = Vec::with_capacity(change.files.len());
    for file in &change.files {
        let path = session.resolve(&file.path.to_string_lossy())?;
        if path.key != file.path && path.real != file.path {
            let now = hashline_search::shown_path(&path.real, session.cwd());
            let now = if now.is_empty() { path.real.to_string_lossy().into_owned() } else { now };
            let now = hashline_core::display::escape_name(&now);
            let files = json!([{
                "path": file.path.to_string_lossy(),
                "state": "elsewhere",
                "now": path.real.to_string_lossy(),
                "standing": [],
            }]);
            return Err(ToolError::new(
                ErrorCode::ChangeConflict,
                format!(
                    "Revert refused — nothing was written. Change {} wrote {}, and that path now leads to {now} (a directory on its way was replaced or moved): a revert writes only the file its change wrote. Decide against the file there, or leave it.",
                    change.id, file.shown()
                ),
            )
            .with_details(json!({ "changeId": change.id, "files": files, "updatedAnchors": [] })));
        }
        paths.push(path);
    }
    Ok(paths)
}

/// Whether `now` is exactly what the change left in `file`.
pub(super) fn left_as(file: &ChangedFile, now: Option<&[u8]>) -> bool {
    match (&file.after, now) {
        (None, None) => true,
        (Some(blob), Some(bytes)) => blob.names(bytes),
        _ => false,
    }
}

/// A file of the change that is not as the change left it.
pub(super) struct Moved<'a> {
    pub file: &'a ChangedFile,
    pub path: &'a ResolvedPath,
    /// Its bytes now (`None`: no file has the name).
    pub now: Option<&'a [u8]>,
}

/// `change-superseded` when a later change of the session stands on a file that moved,
/// else `change-conflict`: the rows of each such file that changed since the change (the
/// file's rows now, anchored and counted as shown).
pub(super) fn refusal(session: &Session, change: &Change, moved: &[Moved<'_>], budget: Budget) -> ToolError {
    let log = session.changes();
    // The changes in effect after this one on the files that moved (seq, id), newest first.
    let mut later: Vec<(u64, String)> = Vec::new();
    // Later changes that stand but cannot be reverted themselves (their bytes were not kept).
    let mut unkept: Vec<String> = Vec::new();
    let mut sections = Vec::new();
    let mut files = Vec::new();
    let mut updated = Vec::new();
    for held in moved {
        let standing_changes = log.standing_after(change, &held.file.path);
        for later in standing_changes.iter().filter(|c| !c.kept) {
            if !unkept.contains(&later.id) {
                unkept.push(later.id.clone());
            }
        }
        for standing in &standing_changes {
            if !later.iter().any(|(_, id)| *id == standing.id) {
                later.push((standing.seq, standing.id.clone()));
            }
        }
        let standing: Vec<String> = standing_changes.into_iter().map(|c| c.id.clone()).collect();
        let left = held.file.after.as_ref().and_then(|blob| log.load(blob).ok());
        let (rows, fresh) = changed_rows(left.as_deref(), held.now, budget.bytes_after(512) / moved.len().max(1));
        if let Some(now) = held.now {
            let doc = Document::parse(now.to_vec());
            let shown = fresh.iter().filter_map(|&n| doc.line(n)).map(|l| (l.number, l.hash()));
            session.record_served(&held.path.key, shown, false);
            updated
                .extend(fresh.iter().filter_map(|&n| doc.line(n)).map(|l| PtcLine::new(l.number, l.hash(), l.content)));
        }
        let state = match (&held.file.after, held.now) {
            (Some(_), None) => "removed",
            (None, Some(_)) => "present",
            _ => "changed",
        };
        files.push(json!({ "path": held.path.absolute_str(), "state": state, "standing": standing }));
        let what = match state {
            "removed" => format!("{} is gone since {} (it was removed)", held.file.shown(), change.id),
            "present" => format!("{} exists again since {} removed it", held.file.shown(), change.id),
            _ => format!("{} changed since {}", held.file.shown(), change.id),
        };
        let section = match rows {
            Some(rows) => {
                format!("{what}; its lines now (+ rows, anchored) against what {} left (- rows):\n\n{rows}", change.id)
            }
            None => format!("{what}."),
        };
        sections.push(section);
    }
    later.sort_by_key(|(seq, _)| std::cmp::Reverse(*seq));
    let later: Vec<String> = later.into_iter().map(|(_, id)| id).collect();
    let details = json!({ "changeId": change.id, "files": files, "updatedAnchors": updated });
    let body = sections.join("\n\n");
    if later.is_empty() {
        return ToolError::new(
            ErrorCode::ChangeConflict,
            format!(
                "Revert refused — nothing was written. Change {} can only be reverted while its files are exactly as it left them, and another program (or a call outside this session) changed them. {body}\n\nDecide against the current content: edit it with these LINE:HASH anchors, or leave it.",
                change.id
            ),
        )
        .with_details(details);
    }
    // The way on: the later changes first, unless one of them cannot be reverted itself.
    let next = if unkept.is_empty() {
        format!("revert {} first (newest first), then {}. {body}", later[0], change.id)
    } else {
        format!(
            "{} cannot be reverted (its bytes were not kept: over the bound), so neither can {}. {body}\n\nEdit the current content instead, with these LINE:HASH anchors.",
            unkept.join(", "),
            change.id
        )
    };
    ToolError::new(
        ErrorCode::ChangeSuperseded,
        format!(
            "Revert refused — nothing was written. Change {} was followed by {} of the same file{}, which still stand{}; {next}",
            change.id,
            later.join(", "),
            if moved.len() > 1 { "s" } else { "" },
            if later.len() == 1 { "s" } else { "" },
        ),
    )
    .with_details(details)
}

/// The anchored rows that differ between what a change left (`left`) and the file now:
/// the diff text and the current lines it shows; `None` when either side is missing or
/// binary.
fn changed_rows(left: Option<&[u8]>, now: Option<&[u8]>, max_bytes: usize) -> (Option<String>, Vec<LineNo>) {
    let (Some(left), Some(now)) = (left, now) else { return (None, Vec::new()) };
    if looks_binary(left) || looks_binary(now) {
        return (None, Vec::new());
    }
    let (old, new) = (Document::parse(left.to_vec()), Document::parse(now.to_vec()));
    let (_, found) = line_changes(&old, &new);
    let hunks = render::hunks_of(&old, &new, found, FRESH_CONTEXT);
    let (diff, cut) = render::anchored_diff(&old, &new, &hunks, max_bytes);
    let fresh = render::fresh_lines(&hunks);
    let diff = match cut {
        Some(rows) => format!("{diff}{}", render::diff_cut_note(rows)),
        None => diff,
    };
    (Some(diff), fresh)
}

/// The line changes from `old` to `new` (histogram diff of their lines) and the change map
/// they imply.
pub(super) fn line_changes(old: &Document, new: &Document) -> (ChangeMap, Vec<LineChange>) {
    let lines = |doc: &Document| -> Vec<String> {
        doc.lines().map(|l| String::from_utf8_lossy(l.content).into_owned()).collect()
    };
    let found = changes_between(&lines(old), &lines(new));
    let mut kept = Vec::new();
    let (mut o, mut n) = (0u32, 0u32);
    for (removed, added) in found.iter().cloned().chain(std::iter::once((
        old.line_count() as u32..old.line_count() as u32,
        new.line_count() as u32..new.line_count() as u32,
    ))) {
        while o < removed.start && n < added.start {
            kept.push((o, n));
            o += 1;
            n += 1;
        }
        o = removed.end;
        n = added.end;
    }
    (ChangeMap::from_kept(old.line_count(), kept), found)
}

/// After the commit: the ledger, the revert's own change, the value and the text.
fn finish(
    session: &Session,
    change: &Change,
    held: Vec<Held<'_>>,
    ctx: &CallContext,
) -> Result<ToolOutput<EditValue>, ToolError> {
    let rendered = render_files(session, &held, ctx);
    let files: Vec<NewFile<'_>> = held
        .iter()
        .zip(&rendered.counts)
        .map(|(file, &(added, removed))| NewFile {
            path: &file.path.key,
            display: &file.file.display,
            before: file.now.as_deref().map_or(Before::Absent, Before::Bytes),
            after: file.back.as_deref(),
            added,
            removed,
        })
        .collect();
    let id = session.changes().record("revert", Some(&change.id), &files);
    Ok(rendered.output(&id, &change.id, None, &render::change_line(&id), ctx))
}

/// What a revert's files show, before its change is recorded.
pub(super) struct Rendered {
    values: Vec<FileEditValue>,
    texts: Vec<String>,
    /// Each file's lines added and removed.
    pub counts: Vec<(u32, u32)>,
    diffs: Vec<hashline_view::FileDiff>,
}

impl Rendered {
    /// The result: `head` (if any), the files' texts and the `last` line; `id` is the
    /// change this call recorded last and `reverts` the change it went back to.
    pub fn output(
        mut self,
        id: &str,
        reverts: &str,
        head: Option<String>,
        last: &str,
        ctx: &CallContext,
    ) -> ToolOutput<EditValue> {
        for value in &mut self.values {
            value.change_id = Some(id.to_owned());
        }
        let mut text = head.map(|h| format!("{h}\n\n")).unwrap_or_default();
        text.push_str(&self.texts.join("\n\n"));
        text.push_str("\n\n");
        text.push_str(last);
        let value = match self.values.len() {
            1 => EditValue::File(Box::new(self.values.remove(0))),
            _ => EditValue::Files {
                files: self.values,
                warnings: Vec::new(),
                change_id: Some(id.to_owned()),
                reverts: Some(reverts.to_owned()),
            },
        };
        let output = ToolOutput::text(value, text);
        if ctx.text_only || !ctx.is_top_level() {
            return output;
        }
        output.with_meta(hashline_view::DiffsMeta { diffs: self.diffs })
    }
}

/// After the commit, for each file: the ledger (the rows shown before are forgotten, the
/// rows shown now served), its value and its text.
pub(super) fn render_files(session: &Session, held: &[Held<'_>], ctx: &CallContext) -> Rendered {
    let mut values = Vec::with_capacity(held.len());
    let mut texts = Vec::with_capacity(held.len());
    let mut counts = Vec::with_capacity(held.len());
    let mut diffs = Vec::new();
    let max_bytes = ctx.budget.bytes_after(512) / held.len().max(1);
    for file in held {
        let old = Document::parse(file.now.clone().unwrap_or_default());
        let new = Document::parse(file.back.clone().unwrap_or_default());
        let (map, found) = match (&file.now, &file.back) {
            // A document always has a line; a missing file has none: the lines of the
            // file made again are all added, and a removed file shows no diff.
            (None, _) => (ChangeMap::default(), vec![(0..0, 0..new.line_count() as u32)]),
            (_, None) => (ChangeMap::default(), Vec::new()),
            _ => line_changes(&old, &new),
        };
        let old_len = if file.now.is_some() { old.line_count() as u32 } else { 0 };
        let hunks = crate::diff::group(found.iter().cloned(), old_len, new.line_count() as u32, FRESH_CONTEXT);
        let fresh = render::fresh_lines(&hunks);
        let binary = looks_binary(old.as_bytes()) || looks_binary(new.as_bytes());
        // The text shows the lines the revert brought back (none for a binary file).
        let added_rows =
            if binary { render::AddedRows::default() } else { render::AddedRows::of(&new, &hunks, max_bytes) };
        session.note_mutation(&file.path.key, &file.file.display, ctx);
        {
            // Rows shown before describe content that is gone (a line diff cannot say which
            // line is which, so no row is carried); the fresh rows (the value's), or the
            // rows the text shows when the model sees it alone, are shown.
            let mut ledger = session.ledger();
            ledger.forget(&file.path.key);
            if file.back.is_some() {
                let shown = if ctx.sees_text_only { &added_rows.lines } else { &fresh };
                let rows = shown.iter().filter_map(|&n| new.line(n)).map(|l| (l.number, l.hash()));
                ledger.record(&file.path.key, rows, false);
            }
        }
        session.note_visible(&file.path.key, ctx);
        let (added, removed) = match file.back {
            None => (0, old.line_count()),
            Some(_) => render::counts(&hunks),
        };
        counts.push((added as u32, removed as u32));
        let display = &file.file.display;
        let lines = if added.max(removed) == 1 { "line" } else { "lines" };
        let since = file.since;
        let shown = hashline_core::display::escape_name(display);
        let summary = match (&file.now, &file.back) {
            (Some(_), None) => format!("Removed {shown}: {since} made it."),
            (None, Some(_)) => format!("Made {shown} again: {since} removed it (+{added} {lines})."),
            _ => format!("Reverted {shown} to its content before {since} (+{added} -{removed} {lines})."),
        };
        let diff = if binary { String::new() } else { render::anchored_diff(&old, &new, &hunks, max_bytes).0 };
        // The text shows the rows brought back only: a partial view made from the file as it
        // was before the revert (protocol §1.5, "Views made from a view").
        let snapshot = (!binary && file.back.is_some()).then(|| {
            let shown = if ctx.sees_text_only { &added_rows.lines } else { &fresh };
            let parent = hashline_core::snapshot::SnapshotTag::of(old.as_bytes());
            session.show_partial(new.as_bytes(), parent, shown.iter().map(|l| l.get()))
        });
        let mut text = summary.clone();
        if let Some(tag) = snapshot {
            text.push('\n');
            text.push_str(crate::tools::read::snapshot_line(tag).trim_end());
        }
        if !added_rows.is_empty() {
            text.push_str("\n\n");
            text.push_str(&added_rows.with_note());
        }
        texts.push(text);
        if !ctx.text_only && ctx.is_top_level() && !binary {
            diffs.extend(render::file_diffs(display, &old, &new, &hunks));
        }
        let anchors = match ctx.text_only || binary {
            true => Vec::new(),
            false => {
                fresh.iter().filter_map(|&n| new.line(n)).map(|l| PtcLine::new(l.number, l.hash(), l.content)).collect()
            }
        };
        values.push(FileEditValue {
            path: file.path.absolute_str(),
            summary,
            diff,
            diff_data: if ctx.text_only || binary {
                render::DiffData::default()
            } else {
                render::diff_data(&old, &new, &hunks)
            },
            first_changed_line: found.first().map(|(_, added)| (added.start + 1).min(new.line_count().max(1) as u32)),
            noop_edits: Vec::new(),
            noop: false,
            patch: if ctx.text_only { String::new() } else { render::patch(display, &old, &new, &map) },
            anchors,
            syntax: SyntaxOutcome::unchecked(
                SyntaxMode::Off,
                hashline_syntax::LanguageId::from_path(display),
                "a revert restores earlier bytes exactly",
            ),
            warnings: Vec::new(),
            change_id: None,
            reverts: Some(since.to_owned()),
            snapshot: snapshot.map(|tag| tag.to_string()),
        });
    }
    Rendered { values, texts, counts, diffs }
}
