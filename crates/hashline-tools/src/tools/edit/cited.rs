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
use hashline_core::snapshot::{LineMap, Miss, ShownLines, SnapshotTag, StaleAnchor, resolve_through};
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

/// A snapshot as a view: its tag, and the lines it vouches for (`None`: every line — a
/// read, grep, write …; else the lines its results showed).
pub(crate) struct Shown {
    pub tag: SnapshotTag,
    pub vouches: Option<ShownLines>,
    /// Rows a refusal showed under this tag: they mean this view's lines, whatever the
    /// views it was made from say.
    pub confirmed: ShownLines,
}

/// The most snapshots an anchor is looked up in: the cited one and those it was made from.
pub(crate) const MAX_LINEAGE: usize = 64;

/// What a `snapshot` argument found in the principal's store.
pub(crate) enum Cited {
    /// The bytes the tag names, then those of the snapshots it was made from (nearest
    /// first, those still held): anchors are resolved through them.
    Held { tag: SnapshotTag, cited: Document, views: Vec<Shown> },
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

/// Looks the tag up in the session's store, with the links to the snapshots it was made
/// from (their bytes are read when an anchor is looked up through them).
pub(crate) fn cite(session: &Session, tag: SnapshotTag) -> Cited {
    let store = session.snapshots();
    let bytes = match store.get(tag) {
        Ok(bytes) => bytes,
        Err(miss) => return Cited::Missing(fallback_warning(miss)),
    };
    let mut link = store.link_of(tag);
    let shown = |tag: SnapshotTag, link: &Option<hashline_core::snapshot::Link>| Shown {
        tag,
        vouches: link.as_ref().map(|l| l.shown.clone()),
        confirmed: link.as_ref().map(|l| l.confirmed.clone()).unwrap_or_default(),
    };
    let mut views = vec![shown(tag, &link)];
    while views.len() < MAX_LINEAGE {
        let Some(parent) = link.map(|l| l.parent).filter(|parent| views.iter().all(|v| v.tag != *parent)) else {
            break;
        };
        link = store.link_of(parent);
        views.push(shown(parent, &link));
    }
    Cited::Held { tag, cited: Document::parse(bytes.to_vec()), views }
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
    /// Its bytes: the cited snapshot's, or read from the store when first needed (`None`
    /// when the store no longer holds them: the view then vouches for nothing).
    snapshot: std::cell::OnceCell<Option<Document>>,
    tag: SnapshotTag,
    store: &'a dyn crate::snapshots::Snapshots,
    vouches: Option<&'a ShownLines>,
    confirmed: &'a ShownLines,
    now: &'a Document,
    /// The diff to the file now, made when an anchor is first looked up through this view.
    map: std::cell::OnceCell<LineMap>,
    /// Per line now: whether it is a line this view vouched for, unchanged since (made when
    /// a range's ends come from two views).
    shown_now: std::cell::OnceCell<Vec<bool>>,
}

impl View<'_> {
    fn snapshot(&self) -> Option<&Document> {
        self.snapshot
            .get_or_init(|| self.store.get(self.tag).ok().map(|bytes| Document::parse(bytes.to_vec())))
            .as_ref()
    }

    /// The diff to the file now (only for a view whose bytes are held).
    fn map(&self, snapshot: &Document) -> &LineMap {
        self.map.get_or_init(|| resolve_through(snapshot, self.now))
    }

    /// Whether the line now is one this view vouched for, unchanged since.
    fn shown_now(&self, line: LineNo) -> bool {
        let known = self.shown_now.get_or_init(|| {
            let mut known = vec![false; self.now.line_count()];
            if let Some(snapshot) = self.snapshot() {
                let map = self.map(snapshot);
                for index in 0..snapshot.line_count() {
                    let shown = LineNo::from_index(index);
                    if self.vouches.is_none_or(|v| v.contains(shown.get()))
                        && let Some(now) = map.now_of(shown)
                        && let Some(slot) = known.get_mut(now.index())
                    {
                        *slot = true;
                    }
                }
            }
            known
        });
        known.get(line.index()).copied().unwrap_or(false)
    }

    /// The anchor as this view names it, if it is a row the view vouches for, with the
    /// view's bytes.
    fn row(&self, anchor: &AnchorRef) -> Result<(Anchor, &Document), StaleAnchor> {
        let not_shown = |anchor: Anchor| StaleAnchor::NotShown { anchor };
        let vouches = |line: LineNo| self.vouches.is_none_or(|v| v.contains(line.get()));
        // A line the view did not show needs no bytes to be refused.
        if let AnchorRef::Line { anchor, .. } = anchor
            && !vouches(anchor.line)
        {
            return Err(not_shown(*anchor));
        }
        let given = match anchor {
            AnchorRef::Line { anchor, .. } => *anchor,
            AnchorRef::Hash { hash, .. } => Anchor::new(LineNo::from_index(0), *hash),
        };
        let snapshot = self.snapshot().ok_or(not_shown(given))?;
        let shown = in_snapshot(snapshot, anchor)?;
        let there = snapshot.line(shown.line).map(|line| line.hash());
        if there != Some(shown.hash) {
            return Err(StaleAnchor::NotInSnapshot {
                anchor: shown,
                shown: there,
                snapshot_lines: snapshot.line_count(),
            });
        }
        if !vouches(shown.line) {
            return Err(not_shown(shown));
        }
        Ok((shown, snapshot))
    }
}

/// Follows every anchor of this file's ops from the views (the cited snapshot first) to
/// `now`. Ops of symbol items and a cross-file source's anchors are left as they are (they
/// do not come from this file's snapshot).
pub(crate) fn follow(
    session: &Session,
    path: &ResolvedPath,
    (cited_bytes, views): (Document, &[Shown]),
    now: &Document,
    items: &mut [Item],
    cited: SnapshotTag,
) -> Result<(), ToolError> {
    let mut cited_bytes = Some(cited_bytes);
    let views: Vec<View<'_>> = views
        .iter()
        .map(|view| View {
            snapshot: match cited_bytes.take() {
                Some(doc) => std::cell::OnceCell::from(Some(doc)),
                None => std::cell::OnceCell::new(),
            },
            tag: view.tag,
            store: session.snapshots(),
            vouches: view.vouches.as_ref(),
            confirmed: &view.confirmed,
            now,
            map: std::cell::OnceCell::new(),
            shown_now: std::cell::OnceCell::new(),
        })
        .collect();
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
            Err(err @ (StaleAnchor::NotInSnapshot { .. } | StaleAnchor::NotShown { .. })) => {
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
            .and_then(View::snapshot)
            .and_then(|snapshot| anchor.resolve(snapshot).ok())
            .unwrap_or_else(|| Anchor::new(LineNo::from_index(0), *hash)),
    }
}

/// The views an anchor is looked up in: the cited one alone when a refusal confirmed the
/// row under its tag, else all of them.
fn deciding<'v, 'a>(views: &'v [View<'a>], anchor: &AnchorRef) -> &'v [View<'a>] {
    match views.first().map(|cited| (cited, cited.row(anchor))) {
        Some((cited, Ok((row, _)))) if cited.confirmed.contains(row.line.get()) => &views[..1],
        _ => views,
    }
}

/// The line now an anchor names, through the views (see [`agree`]).
fn resolve_one(views: &[View<'_>], anchor: &AnchorRef) -> Result<Anchor, StaleAnchor> {
    let views = deciding(views, anchor);
    let outcomes = views.iter().map(|view| {
        let (shown, snapshot) = view.row(anchor)?;
        view.map(snapshot).resolve(snapshot, shown).map(|now| Anchor::new(now, shown.hash))
    });
    agree(given(anchor, views), outcomes, |a: Anchor| a.line)
}

fn follow_one(views: &[View<'_>], anchor: &mut AnchorRef) -> Result<(), StaleAnchor> {
    let now = resolve_one(views, anchor)?;
    *anchor = moved(anchor, now);
    Ok(())
}

/// A range: through one view that vouches for both its ends (nothing changed inside since,
/// [`LineMap::resolve_range`]); else — its ends copied from two views, as a model holding a
/// read and an edit's added anchors does — each end on its own, and every line now between
/// them one that a view vouched for and that is unchanged since (so the range holds exactly
/// lines the model was shown, none inserted or changed since), else `RangeChanged`.
fn follow_range(views: &[View<'_>], start: &mut AnchorRef, end: &mut AnchorRef) -> Result<(), StaleAnchor> {
    let narrowed =
        if deciding(views, start).len() == 1 && deciding(views, end).len() == 1 { &views[..1] } else { views };
    let outcomes = narrowed.iter().map(|view| {
        let ((first, snapshot), (last, _)) = (view.row(start)?, view.row(end)?);
        let (now_first, now_last) = view.map(snapshot).resolve_range(snapshot, first, last)?;
        Ok((Anchor::new(now_first, first.hash), Anchor::new(now_last, last.hash)))
    });
    let (first, last) = match agree(given(start, narrowed), outcomes, |(a, _): (Anchor, Anchor)| a.line) {
        Ok(ends) => ends,
        Err(err @ (StaleAnchor::NotInSnapshot { .. } | StaleAnchor::NotShown { .. })) => {
            let (Ok(first), Ok(last)) = (resolve_one(views, start), resolve_one(views, end)) else { return Err(err) };
            let (low, high) = (first.line.min(last.line), first.line.max(last.line));
            let known = |line: LineNo| views.iter().any(|view| view.shown_now(line));
            if !(low.index()..=high.index()).all(|i| known(LineNo::from_index(i))) {
                let (start, end) = (given(start, views), given(end, views));
                return Err(StaleAnchor::RangeChanged { start, end, first: low, last: high });
            }
            (first, last)
        }
        Err(err) => return Err(err),
    };
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
        StaleAnchor::NotInSnapshot { anchor, .. } | StaleAnchor::NotShown { anchor } => {
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
    // The fresh rows are a part of the file: the model keeps the cited view's other rows;
    // the retry with these rows resolves to them (a refused `TwoMeanings` is not refused
    // forever).
    let tag = session.show_refused(now.as_bytes(), cited, shown.iter().map(|l| l.get()));
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
                StaleAnchor::NotInSnapshot { .. } | StaleAnchor::NotShown { .. } => None,
            }
            .and_then(|l| now.line(l))
            .map(|l| format!("{}:{}", l.number, l.hash())),
        })
        .collect();
    ToolError::new(ErrorCode::HashMismatch, message)
        .with_details(json!({ "updatedAnchors": updated, "targets": targets, "snapshot": tag.to_string() }))
        .with_path(path.absolute_str())
}
