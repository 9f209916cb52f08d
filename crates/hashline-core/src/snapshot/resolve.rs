//! Exact resolution: following the lines of a snapshot to the file now through a line diff.

use std::ops::Range;

use imara_diff::{Algorithm, Diff, InternedInput};

use crate::{Anchor, Document, LineHash, LineNo};

/// What became of one line of a snapshot in the file now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    /// The line is unchanged (same bytes; its terminator may differ) and is here now.
    Kept(LineNo),
    /// The line was changed: the lines `first..=last` now stand where the changed run was.
    Replaced {
        /// The first line now of the replacement.
        first: LineNo,
        /// The last line now of the replacement.
        last: LineNo,
    },
    /// The line was deleted with nothing in its place.
    Deleted {
        /// The line now that follows the gap; `None` when the gap is at the end of the file.
        next: Option<LineNo>,
    },
}

/// The lines of a snapshot mapped to the file now, by a histogram line diff
/// ([`resolve_through`]).
///
/// Lines are compared by their exact content bytes (the terminator is not part of a line,
/// as for the line hash), so a line the diff keeps has the same bytes now as it had in the
/// snapshot. Equal lines are paired in order, never across each other: the map is strictly
/// increasing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineMap {
    /// Per snapshot line (0-based index): its line now, if it was kept.
    now_of: Vec<Option<LineNo>>,
    /// The same, from the diff of both files read from the bottom up: where it differs from
    /// `now_of`, equal lines could be paired either way.
    from_bottom: Vec<Option<LineNo>>,
    /// The diff's changes as 0-based half-open ranges (snapshot lines, lines now), in order.
    hunks: Vec<(Range<u32>, Range<u32>)>,
    /// Lines in the file now (at least 1).
    now_lines: usize,
}

/// Above this many lines on either side, no line is followed (imara-diff takes fewer than
/// `i32::MAX` tokens); every line then counts as changed.
const MAX_DIFF_LINES: usize = i32::MAX as usize - 1;

/// Maps each line of `snapshot` to its line in `now`, or to how it changed, through a
/// histogram line diff (imara-diff).
///
/// ```
/// use hashline_core::snapshot::{resolve_through, Fate};
/// use hashline_core::{Document, LineNo};
///
/// let shown = Document::parse(b"fn a() {}\nfn b() {}\nfn c() {}\n".to_vec());
/// let now = Document::parse(b"// header\nfn a() {}\nfn B() {}\nfn c() {}\n".to_vec());
/// let map = resolve_through(&shown, &now);
/// let line = |n| LineNo::new(n).unwrap();
/// assert_eq!(map.fate(line(1)), Some(Fate::Kept(line(2))));
/// assert_eq!(map.fate(line(2)), Some(Fate::Replaced { first: line(3), last: line(3) }));
/// assert_eq!(map.fate(line(3)), Some(Fate::Kept(line(4))));
/// assert_eq!(map.fate(line(4)), None);
/// ```
pub fn resolve_through(snapshot: &Document, now: &Document) -> LineMap {
    let (before, after) = (snapshot.line_count(), now.line_count());
    if before > MAX_DIFF_LINES || after > MAX_DIFF_LINES {
        return LineMap::all_changed(before, after);
    }
    let old: Vec<&[u8]> = snapshot.lines().map(|line| line.content).collect();
    let new: Vec<&[u8]> = now.lines().map(|line| line.content).collect();
    let (now_of, hunks) = pairing(&old, &new);
    // The same diff from the bottom up: where equal lines meet added or removed ones (a line
    // inserted into a run of equal lines), the pairing from the top and the one from the
    // bottom differ, and the line has two live meanings.
    let (old_rev, new_rev): (Vec<&[u8]>, Vec<&[u8]>) =
        (old.iter().rev().copied().collect(), new.iter().rev().copied().collect());
    let (rev, _) = pairing(&old_rev, &new_rev);
    let from_bottom =
        (0..before).map(|i| rev[before - 1 - i].map(|j| LineNo::from_index(after - 1 - j.index()))).collect();
    LineMap { now_of, from_bottom, hunks, now_lines: after }
}

/// A change of the diff: 0-based half-open ranges of the snapshot's lines and the lines now.
type Hunk = (Range<u32>, Range<u32>);

/// Pairs the lines of `before` with those of `after` by a histogram diff (lines equal at both
/// ends paired first, without interning): each line's index in `after` if it is kept, and the
/// hunks as 0-based half-open ranges.
fn pairing(before: &[&[u8]], after: &[&[u8]]) -> (Vec<Option<LineNo>>, Vec<Hunk>) {
    let (b, a) = (before.len(), after.len());
    let prefix = before.iter().zip(after).take_while(|(x, y)| x == y).count();
    let suffix = before[prefix..].iter().rev().zip(after[prefix..].iter().rev()).take_while(|(x, y)| x == y).count();
    let mut input = InternedInput::default();
    input.update_before(before[prefix..b - suffix].iter().copied());
    input.update_after(after[prefix..a - suffix].iter().copied());
    let diff = Diff::compute(Algorithm::Histogram, &input);
    // Both counts are below `MAX_DIFF_LINES`, so the offsets fit in `u32`.
    let offset = prefix as u32;
    let hunks: Vec<Hunk> = diff
        .hunks()
        .map(|h| (h.before.start + offset..h.before.end + offset, h.after.start + offset..h.after.end + offset))
        .collect();
    let mut now_of = Vec::with_capacity(b);
    let (mut old, mut new) = (0usize, 0usize);
    for (removed, added) in &hunks {
        while old < removed.start as usize {
            now_of.push(Some(LineNo::from_index(new)));
            old += 1;
            new += 1;
        }
        now_of.resize(removed.end as usize, None);
        old = removed.end as usize;
        new = added.end as usize;
    }
    while old < b {
        now_of.push(Some(LineNo::from_index(new)));
        old += 1;
        new += 1;
    }
    (now_of, hunks)
}

impl LineMap {
    fn all_changed(before: usize, after: usize) -> Self {
        let whole = |n: usize| 0..u32::try_from(n).unwrap_or(u32::MAX);
        Self {
            now_of: vec![None; before],
            from_bottom: vec![None; before],
            hunks: vec![(whole(before), whole(after))],
            now_lines: after,
        }
    }

    /// Lines in the snapshot.
    pub fn snapshot_lines(&self) -> usize {
        self.now_of.len()
    }

    /// Lines in the file now.
    pub fn now_lines(&self) -> usize {
        self.now_lines
    }

    /// How many lines of the snapshot are unchanged now.
    pub fn kept(&self) -> usize {
        self.now_of.iter().flatten().count()
    }

    /// Where a line of the snapshot is now, if it is unchanged.
    pub fn now_of(&self, line: LineNo) -> Option<LineNo> {
        self.now_of.get(line.index()).copied().flatten()
    }

    /// What became of a line of the snapshot; `None` past the snapshot's last line.
    pub fn fate(&self, line: LineNo) -> Option<Fate> {
        let kept = *self.now_of.get(line.index())?;
        if let Some(now) = kept {
            return Some(Fate::Kept(now));
        }
        let index = u32::try_from(line.index()).unwrap_or(u32::MAX);
        // The hunk that removed the line: the last one starting at or before it.
        let at = self.hunks.partition_point(|(removed, _)| removed.start <= index);
        let (_, added) = self.hunks.get(at.checked_sub(1)?)?;
        Some(if added.is_empty() {
            let next = (added.start as usize) < self.now_lines;
            Fate::Deleted { next: next.then(|| LineNo::from_index(added.start as usize)) }
        } else {
            Fate::Replaced {
                first: LineNo::from_index(added.start as usize),
                last: LineNo::from_index(added.end as usize - 1),
            }
        })
    }

    /// Resolves an anchor copied from the snapshot to its line now.
    ///
    /// The anchor must be a row of `snapshot` (its hash is the hash of the snapshot's line
    /// with its number), else it is refused as not from that snapshot; `snapshot` must be
    /// the document this map was made from. An unchanged line resolves to where it is now
    /// — no window and no ambiguity, however far it moved; a changed or deleted line is
    /// refused. A bare hash is resolved in the snapshot first
    /// ([`AnchorRef::resolve`](crate::AnchorRef::resolve)).
    pub fn resolve(&self, snapshot: &Document, anchor: Anchor) -> Result<LineNo, StaleAnchor> {
        let shown = snapshot.line(anchor.line).map(|line| line.hash());
        if shown != Some(anchor.hash) || anchor.line.index() >= self.now_of.len() {
            return Err(StaleAnchor::NotInSnapshot { anchor, shown, snapshot_lines: snapshot.line_count() });
        }
        match self.fate(anchor.line) {
            Some(Fate::Kept(now)) => match self.from_bottom.get(anchor.line.index()).copied().flatten() {
                Some(other) if other != now => {
                    Err(StaleAnchor::Ambiguous { anchor, first: now.min(other), last: now.max(other) })
                }
                _ => Ok(now),
            },
            Some(Fate::Replaced { first, last }) => Err(StaleAnchor::Changed { anchor, first, last }),
            Some(Fate::Deleted { next }) => Err(StaleAnchor::Deleted { anchor, next }),
            None => Err(StaleAnchor::NotInSnapshot { anchor, shown, snapshot_lines: snapshot.line_count() }),
        }
    }

    /// Resolves a range `start..=end` of the snapshot (in either order) to the lines now:
    /// both ends as [`resolve`](Self::resolve) does, and every line between them unchanged
    /// and still together — no line changed, deleted or inserted inside — so that the range
    /// now holds exactly the lines that were shown, else [`StaleAnchor::RangeChanged`].
    ///
    /// ```
    /// use hashline_core::snapshot::{resolve_through, StaleAnchor};
    /// use hashline_core::{Anchor, Document};
    ///
    /// let shown = Document::parse(b"a\nb\nc\n".to_vec());
    /// let moved = Document::parse(b"new\na\nb\nc\n".to_vec());
    /// let (a, c): (Anchor, Anchor) = ("1:456".parse().unwrap(), format!("3:{}", hashline_core::LineHash::of(b"c")).parse().unwrap());
    /// let range = resolve_through(&shown, &moved).resolve_range(&shown, a, c).unwrap();
    /// assert_eq!((range.0.get(), range.1.get()), (2, 4));
    /// let grown = Document::parse(b"a\nb\nunseen\nc\n".to_vec());
    /// let refused = resolve_through(&shown, &grown).resolve_range(&shown, a, c);
    /// assert!(matches!(refused, Err(StaleAnchor::RangeChanged { .. })));
    /// ```
    pub fn resolve_range(
        &self,
        snapshot: &Document,
        start: Anchor,
        end: Anchor,
    ) -> Result<(LineNo, LineNo), StaleAnchor> {
        let (first, last) = (self.resolve(snapshot, start)?, self.resolve(snapshot, end)?);
        let (low, high) = if start.line <= end.line { (start.line, end.line) } else { (end.line, start.line) };
        // Both ends resolved, so the lower one is kept.
        let base = self.now_of(low).map_or(0, LineNo::index);
        let together = (low.index()..=high.index())
            .all(|i| self.now_of(LineNo::from_index(i)) == Some(LineNo::from_index(base + (i - low.index()))));
        if together {
            Ok((first, last))
        } else {
            let (a, b) = (first.min(last), first.max(last));
            Err(StaleAnchor::RangeChanged { start, end, first: a, last: b })
        }
    }
}

/// Resolves one anchor copied from `snapshot` to its line in `now` ([`resolve_through`],
/// then [`LineMap::resolve`]). For a batch of anchors, make the map once.
///
/// ```
/// use hashline_core::snapshot::{resolve_anchor, StaleAnchor};
/// use hashline_core::{Anchor, Document};
///
/// let shown = Document::parse(b"alpha\nbeta\ngamma\n".to_vec());
/// let now = Document::parse(b"new\nalpha\nbeta\nGAMMA\n".to_vec());
/// let beta: Anchor = "2:589".parse().unwrap();
/// assert_eq!(resolve_anchor(beta, &shown, &now).map(|l| l.get()), Ok(3));
/// let gamma: Anchor = "3:56d".parse().unwrap();
/// assert!(matches!(resolve_anchor(gamma, &shown, &now), Err(StaleAnchor::Changed { .. })));
/// ```
pub fn resolve_anchor(anchor: Anchor, snapshot: &Document, now: &Document) -> Result<LineNo, StaleAnchor> {
    resolve_through(snapshot, now).resolve(snapshot, anchor)
}

/// Why an anchor cited with its snapshot does not resolve. Nothing should be written; the
/// caller shows fresh rows (and the tag of the file now).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StaleAnchor {
    /// The anchor is not a row of the cited snapshot.
    #[error("Anchor {anchor} is not a row of the snapshot it cites ({}). Copy the anchor and the tag from the same result.", shown_there(*anchor, *shown, *snapshot_lines))]
    NotInSnapshot {
        /// The anchor as given.
        anchor: Anchor,
        /// The hash of the snapshot's line with that number, if it has one.
        shown: Option<LineHash>,
        /// Lines in the snapshot.
        snapshot_lines: usize,
    },
    /// The anchor is a row of the cited snapshot, but the result that named the snapshot
    /// showed other lines (an edit's result, a refusal's rows), and no view it was made from
    /// has the anchor as a row it showed.
    #[error(
        "Anchor {anchor} was not shown with the snapshot it cites (that result showed other lines of this file), nor with a view it was made from. Copy the anchor and the tag from the same result."
    )]
    NotShown {
        /// The anchor as given.
        anchor: Anchor,
    },
    /// The line was changed since the snapshot.
    #[error("Line {anchor} of the cited snapshot has changed since; {} now in its place.", lines_now(*first, *last))]
    Changed {
        /// The anchor as given.
        anchor: Anchor,
        /// The first line now of the replacement.
        first: LineNo,
        /// The last line now of the replacement.
        last: LineNo,
    },
    /// Both ends of a range are unchanged, but lines inside it changed, were deleted or
    /// were inserted since the snapshot.
    #[error(
        "The range {start} to {end} of the cited snapshot has changed inside since; it spans lines {first}-{last} now."
    )]
    RangeChanged {
        /// The range's first anchor as given.
        start: Anchor,
        /// The range's last anchor as given.
        end: Anchor,
        /// The first line now of the range.
        first: LineNo,
        /// The last line now of the range.
        last: LineNo,
    },
    /// The line is one of a run of equal lines that lines were added to or removed from
    /// since: the diff can pair it with more than one line now, so it is not followed.
    #[error(
        "Line {anchor} of the cited snapshot is one of several equal lines next to lines added or removed since; it may be any of lines {first}-{last} now."
    )]
    Ambiguous {
        /// The anchor as given.
        anchor: Anchor,
        /// The first line now it may be.
        first: LineNo,
        /// The last line now it may be.
        last: LineNo,
    },
    /// The line was deleted since the snapshot.
    #[error("Line {anchor} of the cited snapshot has been deleted since ({}).", stood(*next))]
    Deleted {
        /// The anchor as given.
        anchor: Anchor,
        /// The line now that follows where it stood; `None` at the end of the file.
        next: Option<LineNo>,
    },
    /// The anchor is a row of two views of the file the model was shown (the cited snapshot
    /// and one it was made from, such as the read an edit's result came from), and the two
    /// name different lines now: it is not guessed.
    #[error(
        "Anchor {anchor} names different lines in two views of this file you were shown (the snapshot it cites and one that snapshot was made from): {}.",
        meanings(*first, *second)
    )]
    TwoMeanings {
        /// The anchor as given.
        anchor: Anchor,
        /// The line now one view gives it.
        first: LineNo,
        /// The line now the other gives it; `None` when that line has changed since.
        second: Option<LineNo>,
    },
}

fn meanings(first: LineNo, second: Option<LineNo>) -> String {
    match second {
        Some(second) => format!("line {first} and line {second} now"),
        None => format!("line {first} now, and a line changed since"),
    }
}

impl StaleAnchor {
    /// The stable error code: `hash-mismatch`, like every anchor refused with fresh rows.
    pub fn code(&self) -> &'static str {
        "hash-mismatch"
    }

    /// The anchor that was refused (a range's first anchor).
    pub fn anchor(&self) -> Anchor {
        match self {
            StaleAnchor::NotInSnapshot { anchor, .. }
            | StaleAnchor::NotShown { anchor }
            | StaleAnchor::Changed { anchor, .. }
            | StaleAnchor::Deleted { anchor, .. }
            | StaleAnchor::Ambiguous { anchor, .. }
            | StaleAnchor::TwoMeanings { anchor, .. }
            | StaleAnchor::RangeChanged { start: anchor, .. } => *anchor,
        }
    }
}

fn shown_there(anchor: Anchor, shown: Option<LineHash>, lines: usize) -> String {
    match shown {
        Some(hash) => format!("its line {} is {}:{hash}", anchor.line, anchor.line),
        None => format!("it has {lines} lines"),
    }
}

fn stood(next: Option<LineNo>) -> String {
    match next {
        Some(line) => format!("it stood just before line {line} now"),
        None => "it stood at the end of the file".to_owned(),
    }
}

fn lines_now(first: LineNo, last: LineNo) -> String {
    if first == last { format!("line {first} is") } else { format!("lines {first}-{last} are") }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(n: u32) -> LineNo {
        LineNo::new(n).expect("line")
    }

    fn map(before: &[u8], after: &[u8]) -> Vec<Fate> {
        let map = resolve_through(&Document::parse(before.to_vec()), &Document::parse(after.to_vec()));
        (1..=map.snapshot_lines()).map(|n| map.fate(LineNo::from_index(n - 1)).expect("in snapshot")).collect()
    }

    #[test]
    fn a_line_far_away_is_followed_exactly() {
        let before = b"target\nb\nc\n".to_vec();
        let mut after: Vec<u8> = (0..500).flat_map(|i| format!("filler {i}\n").into_bytes()).collect();
        after.extend_from_slice(&before);
        assert_eq!(map(&before, &after), [Fate::Kept(line(501)), Fate::Kept(line(502)), Fate::Kept(line(503))]);
    }

    #[test]
    fn changed_and_deleted_lines_say_where_they_were() {
        use Fate::*;
        assert_eq!(
            map(b"a\nb\nc\nd\n", b"a\nB1\nB2\nd\n"),
            [
                Kept(line(1)),
                Replaced { first: line(2), last: line(3) },
                Replaced { first: line(2), last: line(3) },
                Kept(line(4))
            ]
        );
        assert_eq!(map(b"a\nb\nc\n", b"a\nc\n"), [Kept(line(1)), Deleted { next: Some(line(2)) }, Kept(line(2))]);
        assert_eq!(map(b"a\nb\nc\n", b"a\nb\n"), [Kept(line(1)), Kept(line(2)), Deleted { next: None }]);
        assert_eq!(map(b"a\nb\n", b"b\n"), [Deleted { next: Some(line(1)) }, Kept(line(1))]);
        assert_eq!(map(b"a\n", b""), [Replaced { first: line(1), last: line(1) }]);
    }

    #[test]
    fn terminators_bom_and_final_newline_do_not_change_a_line() {
        use Fate::*;
        assert_eq!(map(b"a\nb\n", b"\xEF\xBB\xBFa\r\nb"), [Kept(line(1)), Kept(line(2))]);
        assert_eq!(
            map(b"a\rb\rc", b"a\nx\nc\n"),
            [Kept(line(1)), Replaced { first: line(2), last: line(2) }, Kept(line(3))]
        );
        assert_eq!(map(b"\xff\xfe\n", b"ok\n\xff\xfe"), [Kept(line(2))]);
    }

    #[test]
    fn anchors_are_checked_against_the_snapshot_first() {
        let shown = Document::parse(b"alpha\nbeta\n".to_vec());
        let now = Document::parse(b"beta\nalpha\n".to_vec());
        let map = resolve_through(&shown, &now);
        let other = Anchor::new(line(2), LineHash::of(b"alpha"));
        let err = map.resolve(&shown, other).expect_err("not from the snapshot");
        assert_eq!(
            err.to_string(),
            "Anchor 2:3c8 is not a row of the snapshot it cites (its line 2 is 2:589). Copy the anchor and the tag from the same result."
        );
        let past = Anchor::new(line(3), LineHash::of(b""));
        assert_eq!(
            map.resolve(&shown, past).expect_err("past the end").to_string(),
            "Anchor 3:d05 is not a row of the snapshot it cites (it has 2 lines). Copy the anchor and the tag from the same result."
        );
        assert_eq!(err.code(), "hash-mismatch");
        assert_eq!(err.anchor(), other);
    }

    #[test]
    fn a_range_follows_only_when_it_holds_exactly_the_lines_shown() {
        let shown = Document::parse(b"a\nb\nc\nd\n".to_vec());
        let at = |n: u32, text: &[u8]| Anchor::new(line(n), LineHash::of(text));
        let range = |now: &[u8], start: Anchor, end: Anchor| {
            resolve_through(&shown, &Document::parse(now.to_vec())).resolve_range(&shown, start, end)
        };
        let (b, c) = (at(2, b"b"), at(3, b"c"));
        assert_eq!(range(b"x\ny\na\nb\nc\nd\n", b, c), Ok((line(4), line(5))));
        assert_eq!(range(b"a\nb\nc\nd\n", c, b), Ok((line(3), line(2))), "the order is the caller's to judge");
        assert_eq!(range(b"a\nb\nc\n", at(4, b"d"), at(4, b"d")).map_err(|e| e.code()), Err("hash-mismatch"));
        let inserted = range(b"a\nb\nnew\nc\nd\n", b, c).expect_err("inserted inside");
        assert_eq!(inserted, StaleAnchor::RangeChanged { start: b, end: c, first: line(2), last: line(4) });
        assert_eq!(
            inserted.to_string(),
            format!(
                "The range 2:dbf to 3:{} of the cited snapshot has changed inside since; it spans lines 2-4 now.",
                c.hash
            )
        );
        let (a, d) = (at(1, b"a"), at(4, b"d"));
        assert!(matches!(range(b"a\nB\nc\nd\n", a, d), Err(StaleAnchor::RangeChanged { .. })), "changed inside");
        assert!(matches!(range(b"a\nc\nd\n", a, d), Err(StaleAnchor::RangeChanged { .. })), "deleted inside");
        assert!(matches!(range(b"a\nb\nc\nD\n", a, d), Err(StaleAnchor::Changed { .. })), "an end changed");
        assert_eq!(range(b"a\nb\nc\nd\nappended\n", a, d), Ok((line(1), line(4))));
    }

    #[test]
    fn refusal_messages() {
        let shown = Document::parse(b"a\nb\nc\nd\n".to_vec());
        let changed = resolve_anchor(
            Anchor::new(line(2), LineHash::of(b"b")),
            &shown,
            &Document::parse(b"a\nx\ny\nc\nd\n".to_vec()),
        );
        assert_eq!(
            changed.expect_err("changed").to_string(),
            "Line 2:dbf of the cited snapshot has changed since; lines 2-3 are now in its place."
        );
        let deleted =
            resolve_anchor(Anchor::new(line(3), LineHash::of(b"c")), &shown, &Document::parse(b"a\nb\nd\n".to_vec()));
        assert_eq!(
            deleted.expect_err("deleted").to_string(),
            format!(
                "Line 3:{} of the cited snapshot has been deleted since (it stood just before line 3 now).",
                LineHash::of(b"c")
            )
        );
        let last =
            resolve_anchor(Anchor::new(line(4), LineHash::of(b"d")), &shown, &Document::parse(b"a\nb\nc\n".to_vec()));
        assert_eq!(
            last.expect_err("deleted").to_string(),
            format!(
                "Line 4:{} of the cited snapshot has been deleted since (it stood at the end of the file).",
                LineHash::of(b"d")
            )
        );
    }
}
