//! One file of an edit, in memory: read, parse, gate, apply, guard. Nothing is written.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use hashline_core::edit::{EditError, EditOp, EditOptions, EditOutcome, Resolution, apply, marked_rows};
use hashline_core::{Anchor, AnchorRef, Document, LineNo, looks_binary};
use hashline_syntax::LanguageId;
use serde_json::json;

use super::Request;
use super::cited::{self, Cited};
use super::items::{self, Parsed};
use super::symbols;
use crate::error::{ErrorCode, RefusalTarget, ToolError};
use crate::fsio::read_error;
use crate::paths::ResolvedPath;
use crate::ptc::PtcLine;
use crate::session::Session;
use crate::validate::{Memo, SyntaxMode, SyntaxOutcome, check, judge};
use crate::warning::{Warning, WarningCode};
use hashline_fs::Target;

/// Call-wide options.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Options {
    /// `postEditVerify`.
    pub verify: bool,
    /// `syntaxValidate`.
    pub syntax: SyntaxMode,
    /// Whether the call used `files`.
    pub multi: bool,
}

/// A file whose batch passed every check, ready to be written.
pub(crate) struct Prepared {
    pub path: ResolvedPath,
    pub before: Document,
    pub outcome: EditOutcome,
    pub edits: usize,
    pub warnings: Vec<Warning>,
    /// The syntax check of the result.
    pub syntax: SyntaxOutcome,
    /// Cross-file moves: (source path as given, the op) — the source deletes the range.
    pub moved_from: Vec<(String, EditOp)>,
    /// The snapshot the call cited for this file, when the store held it: the result's
    /// snapshot is linked to it (else to the bytes the edit was applied to).
    pub cited: Option<hashline_core::snapshot::SnapshotTag>,
}

/// The files of one edit call, opened beneath their roots and locked (in key order, so
/// that two processes never wait for each other in a circle) before anything is read:
/// what is read is what is compared before the commit.
pub(crate) struct Held {
    files: HashMap<PathBuf, Result<(Target, Vec<u8>), ToolError>>,
    /// Every path argument of the call, resolved once.
    paths: HashMap<String, ResolvedPath>,
}

impl Held {
    /// Resolves every path argument of an `edit` call once (the root policy applied):
    /// with [`Held::open`], the one place an `edit` call resolves and opens its files;
    /// everything after takes them from the [`Held`].
    pub(crate) fn resolve_all(session: &Session, raw: &[String]) -> Result<HashMap<String, ResolvedPath>, ToolError> {
        let mut paths = HashMap::new();
        for arg in raw {
            if !paths.contains_key(arg) {
                paths.insert(arg.clone(), session.resolve(arg)?);
            }
        }
        Ok(paths)
    }

    /// Opens and locks each resolved file once (one entry per identity key).
    pub(crate) fn open(session: &Session, paths: HashMap<String, ResolvedPath>) -> Self {
        let mut sorted: Vec<&ResolvedPath> = paths.values().collect();
        sorted.sort_by(|a, b| a.key.cmp(&b.key));
        let mut files = HashMap::new();
        for path in sorted {
            if files.contains_key(&path.key) {
                continue;
            }
            let opened =
                session.open_target(path, false).map_err(|err| read_error(&err, path)).and_then(|target| match target
                    .exists()
                {
                    true => crate::fsio::load_target(&target, path).map(|bytes| {
                        session.note_modified(&path.key, target.snapshot.and_then(|s| s.modified()));
                        (target, bytes)
                    }),
                    false => Err(read_error(&std::io::ErrorKind::NotFound.into(), path)),
                });
            files.insert(path.key.clone(), opened);
        }
        Self { files, paths }
    }

    /// The resolved path of a path argument of the call (resolved now if it was not one
    /// of them).
    pub(crate) fn resolved(&self, session: &Session, raw: &str) -> Result<ResolvedPath, ToolError> {
        match self.paths.get(raw) {
            Some(path) => Ok(path.clone()),
            None => session.resolve(raw),
        }
    }

    /// The opened target of a key.
    pub(crate) fn target(&self, key: &std::path::Path) -> Option<&Target> {
        self.files.get(key).and_then(|f| f.as_ref().ok()).map(|(target, _)| target)
    }

    fn load(&self, path: &ResolvedPath) -> Result<Document, ToolError> {
        match self.files.get(&path.key) {
            Some(Ok((_, bytes))) => parse_text(path, bytes.clone()),
            Some(Err(err)) => Err(err.clone()),
            None => Err(read_error(&std::io::ErrorKind::NotFound.into(), path)),
        }
    }
}

/// Reads, parses, checks and applies one file's edits in memory.
pub(crate) fn prepare(
    session: &Session,
    request: &Request,
    held: &Held,
    mode: SyntaxMode,
) -> Result<Prepared, ToolError> {
    let path = held.resolved(session, &request.path)?;
    let before = held.load(&path)?;
    let loader = |source: &str| -> Result<Arc<Document>, ToolError> {
        let from_path = |mut err: ToolError| {
            if !err.message.starts_with("Edit rejected") {
                err.message = format!("Edit rejected — nothing was written. from_path: {}", err.message);
            }
            err
        };
        let source = held.resolved(session, source).map_err(from_path)?;
        let doc = held.load(&source).map_err(from_path)?;
        gate(session, &source)?;
        Ok(Arc::new(doc))
    };
    let Parsed { mut items, from_paths, notes } = items::parse_edits(&request.edits, &loader)?;
    let mut warnings = Vec::new();
    // Anchors cited with the snapshot they were copied from follow their lines exactly
    // (docs/protocol.md §1.5): the snapshot stands for the read gate, the window and the
    // served-lines guard.
    let mut exact = false;
    let mut cited_tag = None;
    match request.snapshot.map(|tag| cited::cite(session, tag)) {
        Some(Cited::Held { tag, cited, views }) => {
            cited::follow(session, &path, (cited, &views), &before, &mut items, tag)?;
            exact = true;
            cited_tag = Some(tag);
        }
        Some(Cited::Missing(warning)) => warnings.push(warning),
        None => {}
    }
    // A symbol item names no anchor, so no snapshot vouches for the lines it replaces: the
    // served-lines guard still checks them (it may refuse what the tag alone would allow,
    // never the reverse).
    let symbol_items = items.iter().any(|item| matches!(item, items::Item::Symbol(_)));
    let mut symbol_warnings = Vec::new();
    let ops = symbols::resolve(session, &path, &before, items, &mut symbol_warnings)?;
    if !exact && ops.iter().any(|op| !matches!(op, EditOp::Replace { .. })) {
        gate(session, &path)?;
    }
    // Anchors name rows the model was shown; the ledger knows where those rows went.
    let served = if session.is_stateful() && !exact {
        session.ledger().served(&path.key).map(|rows| rows.index())
    } else {
        None
    };
    let resolve = |anchor: Anchor| served.as_ref().map_or(Resolution::Unknown, |index| index.resolve(anchor));
    let resolver: &dyn Fn(Anchor) -> Resolution = &resolve;
    let options = EditOptions { resolver: served.is_some().then_some(resolver), no_relocation: exact };
    let outcome = apply(&before, &ops, &options).map_err(|err| engine_error(session, &path, &before, err))?;
    if session.is_stateful() && (!exact || symbol_items) {
        served_guard(session, &path, &before, &outcome)?;
    }
    if !notes.is_empty() {
        warnings.push(Warning::params_adjusted("Edit params", &notes));
    }
    warnings.extend(symbol_warnings);
    if !session.is_stateful() && !exact {
        warnings.extend(repeated_line_hint(&before, &ops, outcome.window));
    }
    warnings.extend(outcome.relocation_notes().into_iter().map(|n| Warning::new(WarningCode::AnchorRelocated, n)));
    warnings.extend(outcome.warnings.iter().map(|w| Warning::new(WarningCode::EditWarning, w.clone())));
    warnings.extend(replace_note(&ops));
    let syntax = if outcome.is_noop(&before) {
        SyntaxOutcome::unchecked(mode, LanguageId::from_path(&path.display), "nothing changed")
    } else {
        let trees = Some(Memo { trees: session.syntax_trees(), key: &path.key, store: session.map_store() });
        check(mode, &path.display, Some(&before), &outcome.document, |old| outcome.changes.new_line_of(old), trees)
    };
    if let Some(warning) =
        judge(&syntax, &path.display, &outcome.document).map_err(|err| err.with_path(path.absolute_str()))?
    {
        warnings.push(warning);
    }
    let moved_from = ops
        .iter()
        .zip(from_paths)
        .filter_map(|(op, from)| match (op, from) {
            (EditOp::MoveLines { .. }, Some(from)) => Some((from, op.clone())),
            _ => None,
        })
        .collect();
    Ok(Prepared { path, before, outcome, edits: ops.len(), warnings, syntax, moved_from, cited: cited_tag })
}

/// The `replace-unverified` note (issue 21 item 6): a text `replace` names no anchor, so it
/// did not check that the file still reads as the model last saw it; the model should know.
fn replace_note(ops: &[EditOp]) -> Option<Warning> {
    let items: Vec<String> = ops
        .iter()
        .enumerate()
        .filter(|(_, op)| matches!(op, EditOp::Replace { .. }))
        .map(|(i, _)| format!("edits[{i}]"))
        .collect();
    if items.is_empty() {
        return None;
    }
    Some(Warning::new(
        WarningCode::ReplaceUnverified,
        format!(
            "[info: {} used replace: matched by text, not by an anchor, so it did not check that the file still reads as you last saw it. For safer edits, prefer set_line/replace_lines with anchors from read/grep/ast_search.]",
            items.join(", ")
        ),
    ))
}

/// For a stateless edit: the hint toward a session when an anchor's text occurs more
/// than once within the relocation window (issue 9, finding 8): the one case where a
/// stale anchor can pass every hash check and land on the wrong line.
fn repeated_line_hint(doc: &Document, ops: &[EditOp], window: usize) -> Option<Warning> {
    let anchors: Vec<Anchor> = ops.iter().flat_map(line_anchors).collect();
    let len = doc.line_count();
    // The lines within ±window of each anchor, as half-open ranges.
    let span = |anchor: &Anchor| {
        let low = anchor.line.index().saturating_sub(window);
        let high = anchor.line.index().saturating_add(window).min(len.saturating_sub(1));
        low..(high + 1).min(len)
    };
    // Windows of neighbouring anchors overlap: each line is hashed once, in one pass over
    // the merged windows (NOT_HASHED elsewhere; hashes are below 4096).
    const NOT_HASHED: u16 = u16::MAX;
    let mut hashes: Vec<u16> = vec![NOT_HASHED; len];
    let mut ranges: Vec<std::ops::Range<usize>> = anchors.iter().map(span).filter(|r| !r.is_empty()).collect();
    ranges.sort_by_key(|r| r.start);
    let mut done = 0;
    for range in ranges {
        let start = range.start.max(done);
        if start < range.end {
            for (slot, line) in hashes[start..range.end].iter_mut().zip(doc.lines_in(start..range.end)) {
                *slot = line.hash().value();
            }
            done = range.end;
        }
    }
    let mut repeated: Vec<String> = Vec::new();
    for anchor in &anchors {
        let wanted = anchor.hash.value();
        let equal = hashes[span(anchor)].iter().filter(|&&h| h == wanted).take(2).count();
        if equal > 1 {
            let named = anchor.to_string();
            if !repeated.contains(&named) {
                repeated.push(named);
            }
        }
    }
    if repeated.is_empty() {
        return None;
    }
    let (which, occurs) =
        if repeated.len() == 1 { ("the text of anchor", "occurs") } else { ("the texts of anchors", "each occur") };
    Some(Warning::new(
        WarningCode::StatelessRepeatedLine,
        format!(
            "Stateless edit: {which} {} {occurs} more than once within ±{window} lines, so a stale anchor to such a line can land on a look-alike. Keep a session (the CLI's default; drop --stateless) so anchors follow their lines.",
            repeated.join(", ")
        ),
    ))
}

/// The `LINE:HASH` anchors of an op that name this file's lines.
fn line_anchors(op: &EditOp) -> Vec<Anchor> {
    let refs: Vec<&AnchorRef> = match op {
        EditOp::SetLine { anchor, .. } | EditOp::InsertAfter { anchor, .. } => vec![anchor],
        EditOp::ReplaceLines { start, end, .. } => vec![start, end],
        EditOp::CopyLines { start, end, after, source } | EditOp::MoveLines { start, end, after, source } => {
            if source.is_some() { vec![after] } else { vec![start, end, after] }
        }
        EditOp::Replace { .. } => Vec::new(),
    };
    refs.into_iter()
        .filter_map(|r| match r {
            AnchorRef::Line { anchor, .. } => Some(*anchor),
            AnchorRef::Hash { .. } => None,
        })
        .collect()
}

/// A text file for editing (binary files are refused).
fn parse_text(path: &ResolvedPath, bytes: Vec<u8>) -> Result<Document, ToolError> {
    if looks_binary(&bytes) {
        return Err(ToolError::new(
            ErrorCode::BinaryFile,
            format!(
                "Edit rejected — nothing was written. {} looks binary; edit changes text files only.",
                path.shown()
            ),
        )
        .with_hint("Use write to replace a binary file's content as a whole.")
        .with_path(path.absolute_str()));
    }
    Ok(Document::parse(bytes))
}

/// The read-before-edit gate (SPEC §5.4.2): anchored edits need anchors the session showed.
fn gate(session: &Session, path: &ResolvedPath) -> Result<(), ToolError> {
    if !session.is_stateful() || session.ledger().served(&path.key).is_some() {
        return Ok(());
    }
    Err(ToolError::new(
        ErrorCode::FileNotRead,
        format!(
            "Edit rejected — nothing was written. You must get fresh anchors for {} before editing it. Call read(\"{}\") first, or use grep, ast_search, or write to produce fresh anchors for this file. edit requires fresh LINE:HASH anchors from read, grep, ast_search, or write so the hashes match the current file contents.",
            path.absolute.display(),
            path.shown()
        ),
    )
    .with_path(path.absolute_str()))
}

/// An engine refusal as a tool error; rows it showed count as served.
fn engine_error(session: &Session, path: &ResolvedPath, doc: &Document, err: EditError) -> ToolError {
    let code = serde_json::from_value::<ErrorCode>(json!(err.code)).unwrap_or(ErrorCode::InvalidEditVariant);
    record_rows(session, path, doc, &err.shown);
    let mut error = ToolError::new(code, err.message).with_path(path.absolute_str());
    // Every row the text shows (marked and context rows alike; all count as served).
    let updated = fresh_rows(doc, &err.shown);
    let targets: Vec<RefusalTarget> = err
        .mismatches
        .iter()
        .map(|m| RefusalTarget {
            edit: Some(m.edit),
            sent: Some(m.expected.to_string()),
            anchor: m.current.map(|a| a.to_string()),
        })
        .collect();
    match (updated.is_empty(), targets.is_empty()) {
        (true, true) => {}
        (false, true) => error = error.with_details(json!({ "updatedAnchors": updated })),
        _ => error = error.with_details(json!({ "updatedAnchors": updated, "targets": targets })),
    }
    error
}

/// The rows of `lines`, for `details.updatedAnchors`.
fn fresh_rows(doc: &Document, lines: &[LineNo]) -> Vec<PtcLine> {
    lines.iter().filter_map(|&l| doc.line(l)).map(|l| PtcLine::new(l.number, l.hash(), l.content)).collect()
}

/// Records rows shown in feedback as served.
pub(crate) fn record_rows(session: &Session, path: &ResolvedPath, doc: &Document, lines: &[LineNo]) {
    let rows = lines.iter().filter_map(|&n| doc.line(n)).map(|l| (l.number, l.hash()));
    session.record_served(&path.key, rows, false);
}

/// The served-lines guard (SPEC §5.4.2): refuse to overwrite a line whose current hash
/// differs from what the model was shown there, unless that hash was shown nearby (the
/// line only moved).
fn served_guard(
    session: &Session,
    path: &ResolvedPath,
    doc: &Document,
    outcome: &EditOutcome,
) -> Result<(), ToolError> {
    let stale: Vec<LineNo> = {
        let ledger = session.ledger();
        let Some(served) = ledger.served(&path.key) else {
            return Ok(());
        };
        outcome
            .overwritten
            .iter()
            .copied()
            .filter(|&line| {
                let Some(current) = doc.line(line).map(|l| l.hash()) else {
                    return false;
                };
                let Some(shown) = served.hash_at(line) else {
                    return false;
                };
                if shown == current {
                    return false;
                }
                // A line shifted by at most the relocation window is a moved line, not a
                // changed one: the guard must not undo what relocation found.
                let window = u32::try_from(outcome.window).unwrap_or(u32::MAX);
                let low = line.get().saturating_sub(window).max(1);
                let high = line.get().saturating_add(window);
                !(low..=high).filter_map(LineNo::new).any(|near| served.hash_at(near) == Some(current))
            })
            .collect()
    };
    if stale.is_empty() {
        return Ok(());
    }
    let targets: Vec<RefusalTarget> = {
        let ledger = session.ledger();
        let served = ledger.served(&path.key);
        stale
            .iter()
            .map(|&line| RefusalTarget {
                edit: None,
                sent: served.and_then(|s| s.hash_at(line)).map(|hash| format!("{line}:{hash}")),
                anchor: doc.line(line).map(|l| format!("{}:{}", l.number, l.hash())),
            })
            .collect()
    };
    let (rows, shown) = marked_rows(doc, &stale, 1);
    record_rows(session, path, doc, &shown);
    let n = stale.len();
    let (lines, it) = if n == 1 { ("line", "it") } else { ("lines", "them") };
    let updated = fresh_rows(doc, &shown);
    Err(ToolError::new(
        ErrorCode::HashMismatch,
        format!(
            "Edit rejected — nothing was written. {n} {lines} this edit would overwrite changed on disk since you last saw {it} (>>> marks changed lines):\n\n{rows}\n\nDecide against the current content above and re-issue the edit with these LINE:HASH anchors; no re-read is needed."
        ),
    )
    .with_details(json!({ "updatedAnchors": updated, "targets": targets }))
    .with_path(path.absolute_str()))
}

/// The served rows after a successful edit: rows shown before move with their lines
/// (keeping the numbers they were shown under), plus the fresh rows around each change.
pub(crate) fn carry_served(session: &Session, prepared: &Prepared, fresh: &[LineNo]) {
    let doc = &prepared.outcome.document;
    let fresh_rows = fresh.iter().filter_map(|&n| doc.line(n)).map(|l| (l.number, l.hash()));
    let mut ledger = session.ledger();
    // Rows move with their lines only when some were served: with none (a stateless call's
    // first look at the file), walking every surviving line would carry nothing.
    if ledger.served(&prepared.path.key).is_some() {
        ledger.carry(&prepared.path.key, prepared.outcome.changes.kept(), fresh_rows);
    } else {
        ledger.carry(&prepared.path.key, std::iter::empty(), fresh_rows);
    }
}
