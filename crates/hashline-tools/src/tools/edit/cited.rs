//! An edit that cites the snapshot its anchors were copied from (`snapshot`, docs/protocol.md
//! §1.5): every anchor the model gave for this file is followed from that snapshot to the
//! file now through a line diff ([`hashline_core::snapshot::LineMap`]). An unchanged line
//! goes to where it is now — no window, no look-alikes; a changed or deleted line, or a range
//! with lines changed inside, is refused with fresh rows and the file's tag now.
//!
//! A snapshot shown as a partial view (an edit's added rows, a refusal's fresh rows) was
//! made from another ([`Snapshots::link`](crate::snapshots::Snapshots::link)): the model
//! still holds that one's rows for the other lines, and cites the newest tag. So an anchor
//! is looked up in the cited snapshot and in those it was made from (at most
//! [`MAX_LINEAGE`] back): every view that has it as a row must send it to the same line
//! now, or it is refused (`TwoMeanings`) — a name with two live meanings is never applied.

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

/// The most snapshots an anchor is looked up in: the cited one and those it was made from.
pub(crate) const MAX_LINEAGE: usize = 8;

/// What a `snapshot` argument found in the principal's store.
pub(crate) enum Cited {
    /// The bytes the tag names, then those of the snapshots it was made from (nearest
    /// first, those still held): anchors are resolved through them.
    Held { tag: SnapshotTag, views: Vec<Document> },
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

/// Looks the tag up in the session's store, with the snapshots it was made from.
pub(crate) fn cite(session: &Session, tag: SnapshotTag) -> Cited {
    let store = session.snapshots();
    let bytes = match store.get(tag) {
        Ok(bytes) => bytes,
        Err(miss) => return Cited::Missing(fallback_warning(miss)),
    };
    let mut seen = vec![tag];
    let mut views = vec![Document::parse(bytes.to_vec())];
    let mut at = tag;
    while views.len() < MAX_LINEAGE {
        let Some(parent) = store.parent(at).filter(|parent| !seen.contains(parent)) else { break };
        let Ok(bytes) = store.get(parent) else { break };
        seen.push(parent);
        views.push(Document::parse(bytes.to_vec()));
        at = parent;
    }
    Cited::Held { tag, views }
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

/// One view an anchor may come from, with its map to the file now.
struct View<'a> {
    snapshot: &'a Document,
    map: LineMap,
}

/// Follows every anchor of this file's ops from the views (the cited snapshot first) to
/// `now`. Ops of symbol items and a cross-file source's anchors are left as they are (they
/// do not come from this file's snapshot).
pub(crate) fn follow(
    session: &Session,
    path: &ResolvedPath,
    views: &[Document],
    now: &Document,
    items: &mut [Item],
    cited: SnapshotTag,
) -> Result<(), ToolError> {
    let views: Vec<View<'_>> =
        views.iter().map(|snapshot| View { snapshot, map: resolve_through(snapshot, now) }).collect();
    let mut stale: Vec<(usize, StaleAnchor)> = Vec::new();
    for (index, item) in items.iter_mut().enumerate() {
        let Item::Op(op) = item else { continue };
        if let Err(err) = follow_op(&views, op) {
            stale.push((index, err));
        }
    }
    if stale.is_empty() {
        return Ok(());
    }
    Err(refusal(session, path, now, &stale, cited))
}

/// One op's anchors, followed in place.
fn follow_op(views: &[View<'_>], op: &mut EditOp) -> Result<(), StaleAnchor> {
    match op {
        EditOp::SetLine { anchor, .. } | EditOp::InsertAfter { anchor, .. } => follow_one(views, anchor),
        EditOp::ReplaceLines { start, end, .. } => follow_range(views, start, end),
        EditOp::CopyLines { start, end, after, source } | EditOp::MoveLines { start, end, after, source } => {
            if source.is_none() {
                follow_range(views, start, end)?;
            }
            follow_one(views, after)
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

/// What the views say of one anchor (or range) given as `given`: the one place now every
/// view that has it agrees on; the cited view's reason when no view has it as a row; the
/// nearest view's reason when every view that has it says it changed; `TwoMeanings` when
/// two views disagree (two places now, or one place and one change).
fn agree<T: Copy + PartialEq>(
    given: Anchor,
    outcomes: impl Iterator<Item = Result<T, StaleAnchor>>,
    line_of: impl Fn(T) -> LineNo,
) -> Result<T, StaleAnchor> {
    let mut not_a_row = None;
    let mut found: Vec<Result<T, StaleAnchor>> = Vec::new();
    for outcome in outcomes {
        match outcome {
            Err(err @ StaleAnchor::NotInSnapshot { .. }) => {
                not_a_row.get_or_insert(err);
            }
            other => found.push(other),
        }
    }
    let Some(nearest) = found.first().cloned() else {
        return Err(not_a_row.unwrap_or(StaleAnchor::NotInSnapshot { anchor: given, shown: None, snapshot_lines: 0 }));
    };
    let places: Vec<T> = found.iter().filter_map(|o| o.as_ref().ok().copied()).collect();
    let changed = found.iter().any(Result::is_err);
    match (places.first(), places.iter().find(|&t| Some(t) != places.first())) {
        (None, _) => nearest,
        (Some(_), None) if !changed => nearest,
        (Some(&first), second) => {
            Err(StaleAnchor::TwoMeanings { anchor: given, first: line_of(first), second: second.map(|&t| line_of(t)) })
        }
    }
}

/// The anchor as the model gave it, for a refusal's text (a bare hash as the cited view
/// names it, when it names one line there).
fn given(anchor: &AnchorRef, views: &[View<'_>]) -> Anchor {
    match anchor {
        AnchorRef::Line { anchor, .. } => *anchor,
        AnchorRef::Hash { hash, .. } => views
            .first()
            .and_then(|view| anchor.resolve(view.snapshot).ok())
            .unwrap_or_else(|| Anchor::new(LineNo::from_index(0), *hash)),
    }
}

fn follow_one(views: &[View<'_>], anchor: &mut AnchorRef) -> Result<(), StaleAnchor> {
    let outcomes = views.iter().map(|view| {
        let shown = in_snapshot(view.snapshot, anchor)?;
        view.map.resolve(view.snapshot, shown).map(|now| Anchor::new(now, shown.hash))
    });
    let now = agree(given(anchor, views), outcomes, |a: Anchor| a.line)?;
    *anchor = moved(anchor, now);
    Ok(())
}

fn follow_range(views: &[View<'_>], start: &mut AnchorRef, end: &mut AnchorRef) -> Result<(), StaleAnchor> {
    let outcomes = views.iter().map(|view| {
        let (first, last) = (in_snapshot(view.snapshot, start)?, in_snapshot(view.snapshot, end)?);
        let (now_first, now_last) = view.map.resolve_range(view.snapshot, first, last)?;
        Ok((Anchor::new(now_first, first.hash), Anchor::new(now_last, last.hash)))
    });
    let (first, last) = agree(given(start, views), outcomes, |(a, _): (Anchor, Anchor)| a.line)?;
    *start = moved(start, first);
    *end = moved(end, last);
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
        StaleAnchor::TwoMeanings { first, second, .. } => std::iter::once(first).chain(second).collect(),
        StaleAnchor::NotInSnapshot { anchor, .. } => {
            vec![if anchor.line.index() < now.line_count() && anchor.line.get() > 0 { anchor.line } else { last_line }]
        }
    }
}

/// The refusal: what went stale, the rows now in its place, and the file's tag now.
fn refusal(
    session: &Session,
    path: &ResolvedPath,
    now: &Document,
    stale: &[(usize, StaleAnchor)],
    cited: SnapshotTag,
) -> ToolError {
    let mut marked: Vec<LineNo> = stale.iter().flat_map(|(_, s)| lines_now(s, now)).collect();
    marked.sort_unstable();
    marked.dedup();
    let (rows, shown) = marked_rows(now, &marked, 1);
    super::prepare::record_rows(session, path, now, &shown);
    let tag = session.show_snapshot(now.as_bytes());
    // The fresh rows are a part of the file: the model keeps the cited view's other rows.
    session.snapshots().link(tag, cited);
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
                StaleAnchor::Ambiguous { .. } | StaleAnchor::TwoMeanings { .. } => None,
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
