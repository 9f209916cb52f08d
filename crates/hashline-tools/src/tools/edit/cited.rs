//! An edit that cites the snapshot its anchors were copied from (`snapshot`, docs/protocol.md
//! §1.5): every anchor the model gave for this file is followed from that snapshot to the
//! file now through a line diff ([`hashline_core::snapshot::LineMap`]). An unchanged line
//! goes to where it is now — no window, no look-alikes; a changed or deleted line, or a range
//! with lines changed inside, is refused with fresh rows and the file's tag now.

use hashline_core::edit::{EditOp, marked_rows};
use hashline_core::snapshot::{LineMap, Miss, SnapshotTag, StaleAnchor, resolve_through};
use hashline_core::{Anchor, AnchorRef, Document, LineNo};
use serde_json::json;

use super::items::Item;
use crate::error::{ErrorCode, RefusalTarget, ToolError};
use crate::paths::ResolvedPath;
use crate::ptc::PtcLine;
use crate::session::Session;
use crate::warning::{Warning, WarningCode};

/// The most rows one refusal shows for the lines now in a changed anchor's place.
const MAX_SHOWN: usize = 40;

/// What a `snapshot` argument found in the principal's store.
pub(crate) enum Cited {
    /// The bytes the tag names: anchors are resolved through them.
    Held { snapshot: Document },
    /// Not held (never shown to this principal, evicted, altered, collided): anchors are
    /// checked by the rules for uncited anchors, and the result says so.
    Missing(Warning),
}

/// Parses a `snapshot` argument (`invalid-snapshot` when it is not a tag).
pub(crate) fn parse(raw: &str) -> Result<SnapshotTag, ToolError> {
    raw.parse::<SnapshotTag>().map_err(|err| {
        ToolError::new(ErrorCode::InvalidSnapshot, format!("Edit rejected — nothing was written. {err}")).with_hint(
            "Give the tag a read, grep or edit result showed with the rows (snapshot: s…), or leave snapshot out.",
        )
    })
}

/// Looks the tag up in the session's store.
pub(crate) fn cite(session: &Session, tag: SnapshotTag) -> Cited {
    match session.snapshots().get(tag) {
        Ok(bytes) => Cited::Held { snapshot: Document::parse(bytes.to_vec()) },
        Err(miss) => Cited::Missing(fallback_warning(miss)),
    }
}

fn fallback_warning(miss: Miss) -> Warning {
    let why = match miss {
        Miss::Unknown(_) => "it is not among the snapshots shown to you (never shown here, or evicted since)",
        Miss::Tampered(_) => "its stored copy was altered and has been dropped",
        Miss::Collided(_) => "two different contents were shown under it",
    };
    Warning::new(
        WarningCode::SnapshotFallback,
        format!(
            "[Warning: snapshot {} could not be used: {why}. Its anchors were checked against the file as it is now, as anchors without a snapshot are.]",
            miss.tag()
        ),
    )
}

/// Follows every anchor of this file's ops from the snapshot to `now`. Ops of symbol items
/// and a cross-file source's anchors are left as they are (they do not come from this
/// file's snapshot).
pub(crate) fn follow(
    session: &Session,
    path: &ResolvedPath,
    snapshot: &Document,
    now: &Document,
    items: &mut [Item],
) -> Result<(), ToolError> {
    let map = resolve_through(snapshot, now);
    let mut stale: Vec<(usize, StaleAnchor)> = Vec::new();
    for (index, item) in items.iter_mut().enumerate() {
        let Item::Op(op) = item else { continue };
        if let Err(err) = follow_op(&map, snapshot, op) {
            stale.push((index, err));
        }
    }
    if stale.is_empty() {
        return Ok(());
    }
    Err(refusal(session, path, now, &stale))
}

/// One op's anchors, followed in place.
fn follow_op(map: &LineMap, snapshot: &Document, op: &mut EditOp) -> Result<(), StaleAnchor> {
    match op {
        EditOp::SetLine { anchor, .. } | EditOp::InsertAfter { anchor, .. } => follow_one(map, snapshot, anchor),
        EditOp::ReplaceLines { start, end, .. } => follow_range(map, snapshot, start, end),
        EditOp::CopyLines { start, end, after, source } | EditOp::MoveLines { start, end, after, source } => {
            if source.is_none() {
                follow_range(map, snapshot, start, end)?;
            }
            follow_one(map, snapshot, after)
        }
        EditOp::Replace { .. } => Ok(()),
    }
}

/// The anchor as the snapshot names it (a bare hash is looked up there).
fn in_snapshot(snapshot: &Document, anchor: &AnchorRef) -> Result<Anchor, StaleAnchor> {
    match anchor {
        AnchorRef::Line { anchor, .. } => Ok(*anchor),
        AnchorRef::Hash { hash, .. } => anchor.resolve(snapshot).map_err(|_| StaleAnchor::NotInSnapshot {
            anchor: Anchor::new(LineNo::from_index(0), *hash),
            shown: None,
            snapshot_lines: snapshot.line_count(),
        }),
    }
}

/// `anchor` rewritten to the line it names now (its hash is the same: the line is unchanged).
fn moved(anchor: &AnchorRef, to: Anchor) -> AnchorRef {
    let content = match anchor {
        AnchorRef::Line { content, .. } | AnchorRef::Hash { content, .. } => content.clone(),
    };
    AnchorRef::Line { anchor: to, content }
}

fn follow_one(map: &LineMap, snapshot: &Document, anchor: &mut AnchorRef) -> Result<(), StaleAnchor> {
    let shown = in_snapshot(snapshot, anchor)?;
    let now = map.resolve(snapshot, shown)?;
    *anchor = moved(anchor, Anchor::new(now, shown.hash));
    Ok(())
}

fn follow_range(
    map: &LineMap,
    snapshot: &Document,
    start: &mut AnchorRef,
    end: &mut AnchorRef,
) -> Result<(), StaleAnchor> {
    let (first, last) = (in_snapshot(snapshot, start)?, in_snapshot(snapshot, end)?);
    let (now_first, now_last) = map.resolve_range(snapshot, first, last)?;
    *start = moved(start, Anchor::new(now_first, first.hash));
    *end = moved(end, Anchor::new(now_last, last.hash));
    Ok(())
}

/// The lines now that stand for a stale anchor, for fresh rows.
fn lines_now(stale: &StaleAnchor, now: &Document) -> Vec<LineNo> {
    let last_line = LineNo::from_index(now.line_count().saturating_sub(1));
    let span = |first: LineNo, last: LineNo| -> Vec<LineNo> {
        (first.index()..=last.index()).take(MAX_SHOWN).map(LineNo::from_index).collect()
    };
    match *stale {
        StaleAnchor::Changed { first, last, .. }
        | StaleAnchor::RangeChanged { first, last, .. }
        | StaleAnchor::Ambiguous { first, last, .. } => span(first, last),
        StaleAnchor::Deleted { next, .. } => vec![next.unwrap_or(last_line)],
        StaleAnchor::NotInSnapshot { anchor, .. } => {
            vec![if anchor.line.index() < now.line_count() && anchor.line.get() > 0 { anchor.line } else { last_line }]
        }
    }
}

/// The refusal: what went stale, the rows now in its place, and the file's tag now.
fn refusal(session: &Session, path: &ResolvedPath, now: &Document, stale: &[(usize, StaleAnchor)]) -> ToolError {
    let mut marked: Vec<LineNo> = stale.iter().flat_map(|(_, s)| lines_now(s, now)).collect();
    marked.sort_unstable();
    marked.dedup();
    let (rows, shown) = marked_rows(now, &marked, 1);
    super::prepare::record_rows(session, path, now, &shown);
    let tag = session.show_snapshot(now.as_bytes());
    let reasons: Vec<String> = stale.iter().map(|(index, s)| format!("edits[{index}]: {s}")).collect();
    let message = format!(
        "Edit rejected — nothing was written. {}\n\n{}{rows}\n\nDecide against the current content above and re-issue the edit with these anchors and snapshot {tag}; no re-read is needed.",
        reasons.join("\n"),
        crate::tools::read::snapshot_line(tag),
    );
    let updated: Vec<PtcLine> =
        shown.iter().filter_map(|&l| now.line(l)).map(|l| PtcLine::new(l.number, l.hash(), l.content)).collect();
    let targets: Vec<RefusalTarget> = stale
        .iter()
        .map(|(index, s)| RefusalTarget {
            edit: Some(*index),
            sent: Some(s.anchor().to_string()),
            anchor: match *s {
                StaleAnchor::Changed { first, .. } | StaleAnchor::RangeChanged { first, .. } => Some(first),
                StaleAnchor::Ambiguous { .. } => None,
                StaleAnchor::Deleted { next, .. } => next,
                StaleAnchor::NotInSnapshot { .. } => None,
            }
            .and_then(|l| now.line(l))
            .map(|l| format!("{}:{}", l.number, l.hash())),
        })
        .collect();
    ToolError::new(ErrorCode::HashMismatch, message)
        .with_details(json!({ "updatedAnchors": updated, "targets": targets, "snapshot": tag.to_string() }))
        .with_path(path.absolute_str())
}
