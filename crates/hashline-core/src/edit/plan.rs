//! From edit ops to splices over the original lines: resolve and verify anchors, clean
//! the new text, and refuse overlaps — all before anything changes.

use std::sync::Arc;

use crate::{Anchor, AnchorRef, Document, LineNo, Terminator};

use super::Resolution;
use super::apply::{Aim, Relocation};
use super::error::{EditError, Mismatch, REJECTED};
use super::newtext::{split_new_text, strip_echoed_anchors_with};
use super::relocate::{Check, check, concrete, mismatch};
use super::{EditOp, EditOptions, feedback};

/// A change at one place of the original document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Splice {
    /// Index of the edit in the batch.
    pub edit: usize,
    /// First original line replaced (0-based); for an insertion, where it goes.
    pub start: usize,
    /// One past the last original line replaced; `start` for an insertion.
    pub end: usize,
    /// For an insertion: the 0-based line it follows.
    pub after: Option<usize>,
    /// The new lines' content bytes.
    pub lines: Vec<Vec<u8>>,
    /// Whether this is a `set_line` (for the duplicate and 1-for-1 rules).
    pub set_line: bool,
    /// Whether this is the deletion half of a move.
    pub move_source: bool,
    /// The terminator of the last new line when it is not the replaced span's own (a
    /// `replace` that took the file's final line break away).
    pub last_terminator: Option<Terminator>,
}

impl Splice {
    /// Replaces original lines `start..end` (0-based) with `lines`.
    pub(crate) fn replacing(edit: usize, start: usize, end: usize, lines: Vec<Vec<u8>>) -> Self {
        Self { edit, start, end, after: None, lines, set_line: false, move_source: false, last_terminator: None }
    }

    /// Inserts `lines` after original line `after` (0-based).
    fn inserting(edit: usize, after: usize, lines: Vec<Vec<u8>>) -> Self {
        Self {
            edit,
            start: after + 1,
            end: after + 1,
            after: Some(after),
            lines,
            set_line: false,
            move_source: false,
            last_terminator: None,
        }
    }

    fn is_insert(&self) -> bool {
        self.after.is_some()
    }
}

/// What planning produced besides splices.
#[derive(Debug, Default)]
pub(crate) struct Plan {
    pub splices: Vec<Splice>,
    /// Anchors aimed at a line other than as written (or given as a bare hash).
    pub relocations: Vec<Relocation>,
    pub warnings: Vec<String>,
    pub noop_edits: Vec<usize>,
    /// Same-file copy sources `(edit, start, end)`: no destructive edit may touch them.
    pub copy_sources: Vec<(usize, usize, usize)>,
}

/// Plans the anchored ops (`(index, op)` pairs; `replace` ops are not passed here).
pub(crate) fn plan(
    doc: &Document,
    ops: &[(usize, &EditOp)],
    window: usize,
    options: EditOptions<'_>,
) -> Result<Plan, EditError> {
    let mut planner =
        Planner { doc, window, options, plan: Plan::default(), mismatches: Vec::new(), source_mismatches: Vec::new() };
    for &(edit, op) in ops {
        planner.op(edit, op)?;
    }
    if !planner.mismatches.is_empty() {
        return Err(feedback::stale_anchors(doc, window, planner.mismatches));
    }
    if let Some((source, mismatches)) = planner.source_mismatches.pop() {
        let mut error = feedback::stale_anchors(&source, window, mismatches);
        error.message = error.message.replacen(REJECTED, &format!("{REJECTED} In the from_path file:"), 1);
        // The rows are the source file's: the caller must not take them for the target's.
        error.shown.clear();
        error.mismatches.clear();
        return Err(error);
    }
    let mut plan = planner.plan;
    resolve_duplicates(&mut plan);
    check_overlaps(&plan.splices, &plan.copy_sources)?;
    Ok(plan)
}

struct Planner<'a> {
    doc: &'a Document,
    window: usize,
    options: EditOptions<'a>,
    plan: Plan,
    mismatches: Vec<Mismatch>,
    source_mismatches: Vec<(Arc<Document>, Vec<Mismatch>)>,
}

impl Planner<'_> {
    fn op(&mut self, edit: usize, op: &EditOp) -> Result<(), EditError> {
        match op {
            EditOp::SetLine { anchor, new_text, literal } => {
                let Some(line) = self.single(edit, anchor)? else {
                    return Ok(());
                };
                let lines = self.new_lines(edit, new_text, *literal);
                self.push(Splice { set_line: true, ..Splice::replacing(edit, line, line + 1, lines) });
            }
            EditOp::ReplaceLines { start, end, new_text, literal } => {
                let Some((first, last)) = self.range(edit, None, start, end)? else {
                    return Ok(());
                };
                let lines = self.new_lines(edit, new_text, *literal);
                self.push(Splice::replacing(edit, first, last + 1, lines));
            }
            EditOp::InsertAfter { anchor, new_text, literal } => {
                let Some(line) = self.single(edit, anchor)? else {
                    return Ok(());
                };
                let pasted_row = !*literal && self.begins_with_anchor_row(anchor, line, new_text);
                let mut lines = self.new_lines(edit, new_text, *literal);
                let anchor_content = self.doc.line(LineNo::from_index(line)).map(|l| l.content.to_vec());
                if pasted_row {
                    lines.remove(0);
                    self.plan.warnings.push(format!(
                        "insert_after text began with the anchor's own row {}:…|…, pasted from the view; that row was dropped. new_text holds only the new lines.",
                        line + 1
                    ));
                } else if !*literal
                    && lines.len() > 1
                    && lines.first() == anchor_content.as_ref()
                    && anchor_content.as_ref().is_some_and(|c| c.iter().any(|b| !b.is_ascii_whitespace()))
                {
                    self.plan.warnings.push(format!(
                        "insert_after text begins with a copy of anchor line {}, so that line now appears twice. If unintended, delete the duplicate.",
                        line + 1
                    ));
                }
                if lines.is_empty() {
                    self.plan.noop_edits.push(edit);
                    return Ok(());
                }
                self.push(Splice::inserting(edit, line, lines));
            }
            EditOp::CopyLines { start, end, after, source } | EditOp::MoveLines { start, end, after, source } => {
                let moving = matches!(op, EditOp::MoveLines { .. });
                let range = self.range(edit, source.clone(), start, end)?;
                let target = self.single(edit, after)?;
                let (Some((first, last)), Some(target)) = (range, target) else {
                    return Ok(());
                };
                let from = source.as_deref().unwrap_or(self.doc);
                let lines: Vec<Vec<u8>> = from.lines_in(first..last + 1).map(|l| l.content.to_vec()).collect();
                if moving && source.is_none() {
                    if (first..=last).contains(&target) {
                        return Err(EditError::overlap(format!(
                            "edits[{edit}] moves line(s) {} after line {}, which is inside the moved range",
                            span(first, last + 1),
                            target + 1
                        )));
                    }
                    self.push(Splice { move_source: true, ..Splice::replacing(edit, first, last + 1, Vec::new()) });
                } else if source.is_none() {
                    self.plan.copy_sources.push((edit, first, last + 1));
                }
                self.push(Splice::inserting(edit, target, lines));
            }
            EditOp::Replace { .. } => {}
        }
        Ok(())
    }

    fn push(&mut self, splice: Splice) {
        self.plan.splices.push(splice);
    }

    fn new_lines(&mut self, edit: usize, text: &str, literal: bool) -> Vec<Vec<u8>> {
        let lines = split_new_text(text);
        let lines = if literal {
            lines
        } else {
            let resolver = self.options.resolver;
            let shown = |anchor: Anchor| resolver.is_some_and(|r| r(anchor) != Resolution::Unknown);
            let (cleaned, stripped) = strip_echoed_anchors_with(self.doc, lines, &shown);
            if stripped > 0 {
                self.plan.warnings.push(format!(
                    "edits[{edit}]: removed {stripped} echoed LINE:HASH| prefix(es) from new_text (they are this file's anchors, not content). Set literal: true to keep such text verbatim."
                ));
            }
            cleaned
        };
        lines.into_iter().map(String::into_bytes).collect()
    }

    /// Whether `new_text` has more than one line and its first is the anchor line's own
    /// row as shown (`LINE:HASH|content`, after an optional `>>>`/`+` marker): a paste of
    /// the view, unmistakable. A bare copy of the content is plausible text and stays.
    fn begins_with_anchor_row(&self, given: &AnchorRef, line: usize, new_text: &str) -> bool {
        let raw = split_new_text(new_text);
        let (Some(first), true) = (raw.first(), raw.len() > 1) else {
            return false;
        };
        let Some(current) = self.doc.line(LineNo::from_index(line)) else {
            return false;
        };
        let Ok(AnchorRef::Line { anchor, content: Some(content) }) = crate::parse_anchor(first) else {
            return false;
        };
        let names_it = anchor.line == current.number
            || matches!(given, AnchorRef::Line { anchor: a, .. } if a.line == anchor.line);
        names_it && anchor.hash == current.hash() && content == crate::display::display_line(current.content)
    }

    /// Verifies one anchor against the edited document; `None` when it is stale (recorded).
    fn single(&mut self, edit: usize, anchor: &AnchorRef) -> Result<Option<usize>, EditError> {
        let bare = matches!(anchor, AnchorRef::Hash { .. });
        let anchor = concrete(self.doc, edit, anchor)?;
        let checked = check(self.doc, anchor, self.window, &self.options);
        match checked {
            Check::Exact(line) => {
                if bare {
                    self.plan.relocations.push(Relocation { edit, from: anchor, to: line, how: Aim::BareHash });
                }
                Ok(Some(line.index()))
            }
            Check::Relocated(line) | Check::Reaimed(line) => {
                self.plan.relocations.push(Relocation { edit, from: anchor, to: line, how: aim(&checked) });
                Ok(Some(line.index()))
            }
            Check::Stale | Check::Ambiguous(_) => {
                self.mismatches.extend(mismatch(self.doc, edit, anchor, &checked));
                Ok(None)
            }
        }
    }

    /// Verifies a range; both ends must hold, relocated (if at all) by the same offset.
    fn range(
        &mut self,
        edit: usize,
        source: Option<Arc<Document>>,
        start: &AnchorRef,
        end: &AnchorRef,
    ) -> Result<Option<(usize, usize)>, EditError> {
        let doc: &Document = source.as_deref().unwrap_or(self.doc);
        // What the session knows applies to this file only, not to a from_path source.
        let options = if source.is_some() { EditOptions { resolver: None, ..self.options } } else { self.options };
        let (a, b) = (concrete(doc, edit, start)?, concrete(doc, edit, end)?);
        let (ca, cb) = (check(doc, a, self.window, &options), check(doc, b, self.window, &options));
        let offset = |anchor: Anchor, c: &Check| c.line().map(|l| l.get() as i64 - anchor.line.get() as i64);
        let consistent = matches!((offset(a, &ca), offset(b, &cb)), (Some(x), Some(y)) if x == y);
        if !consistent {
            let mut stale: Vec<Mismatch> =
                [(a, &ca), (b, &cb)].into_iter().flat_map(|(anchor, c)| mismatch(doc, edit, anchor, c)).collect();
            // A one-line range names the same anchor twice.
            stale.dedup();
            match source {
                Some(source) => self.source_mismatches.push((source, stale)),
                None => self.mismatches.extend(stale),
            }
            return Ok(None);
        }
        let (first, last) = (ca.line().unwrap_or(a.line), cb.line().unwrap_or(b.line));
        if first > last {
            return Err(EditError::invalid_anchor(
                edit,
                format!("Range start line {first} must be <= end line {last}."),
            ));
        }
        for ((anchor, c), given) in [(a, &ca), (b, &cb)].into_iter().zip([start, end]) {
            match c {
                Check::Relocated(line) | Check::Reaimed(line) => {
                    self.plan.relocations.push(Relocation { edit, from: anchor, to: *line, how: aim(c) });
                }
                Check::Exact(line) if matches!(given, AnchorRef::Hash { .. }) => {
                    self.plan.relocations.push(Relocation { edit, from: anchor, to: *line, how: Aim::BareHash });
                }
                _ => {}
            }
        }
        Ok(Some((first.index(), last.index())))
    }
}

/// How a re-aimed anchor found its line.
fn aim(check: &Check) -> Aim {
    if matches!(check, Check::Reaimed(_)) { Aim::Known } else { Aim::Relocated }
}

/// Equal destructive targets: identical replacements collapse; different ones, last wins.
fn resolve_duplicates(plan: &mut Plan) {
    // The last kept splice of each replaced span so far: a later one with the same span
    // takes its place (one look-up each, so a batch of 100k items stays linear).
    let mut last: std::collections::HashMap<(usize, usize), usize> = std::collections::HashMap::new();
    let mut keep = vec![true; plan.splices.len()];
    for (j, b) in plan.splices.iter().enumerate() {
        if b.is_insert() || b.move_source {
            continue;
        }
        if let Some(i) = last.insert((b.start, b.end), j) {
            let a = &plan.splices[i];
            keep[i] = false;
            if a.lines != b.lines {
                plan.warnings.push(format!(
                    "Warning: multiple edits target the same anchor {} (edits[{}] and edits[{}]) — only the last will apply",
                    span(a.start, a.end),
                    a.edit,
                    b.edit
                ));
            }
        }
    }
    let mut index = 0;
    plan.splices.retain(|_| {
        index += 1;
        keep[index - 1]
    });
}

/// Refuses intersecting destructive spans, and insertions into a replaced span (except
/// after a one-for-one `set_line` of that very line).
fn check_overlaps(splices: &[Splice], copy_sources: &[(usize, usize, usize)]) -> Result<(), EditError> {
    // Sorted by start, every check is a sweep or a binary search: linear in the items
    // (after the sort), not pairwise (issue 48 H7: 100k items took 11 s).
    let mut destructive: Vec<&Splice> = splices.iter().filter(|s| !s.is_insert()).collect();
    destructive.sort_by_key(|s| (s.start, s.end, s.edit));
    let mut reach: Option<&Splice> = None;
    for &b in &destructive {
        if let Some(a) = reach
            && b.start < a.end
        {
            let (first, second) = if a.edit < b.edit { (a, b) } else { (b, a) };
            return Err(EditError::overlap(format!(
                "edits[{}] targets line(s) {} and edits[{}] targets {}",
                first.edit,
                span(first.start, first.end),
                second.edit,
                span(second.start, second.end),
            )));
        }
        if reach.is_none_or(|a| b.end > a.end) {
            reach = Some(b);
        }
    }
    // The spans are now disjoint and sorted: the ones that may meet a range end after it
    // starts and start before it ends, a run found by binary search.
    let meeting = |start: usize, end: usize| {
        let from = destructive.partition_point(|d| d.end <= start);
        destructive[from..].iter().take_while(move |d| d.start < end)
    };
    for &(edit, start, end) in copy_sources {
        if let Some(d) = meeting(start, end).find(|d| d.edit != edit) {
            return Err(EditError::overlap(format!(
                "edits[{edit}] copies line(s) {}, but edits[{}] replaces line(s) {}",
                span(start, end),
                d.edit,
                span(d.start, d.end)
            )));
        }
    }
    for insert in splices.iter().filter(|s| s.is_insert()) {
        let Some(after) = insert.after else { continue };
        for d in meeting(after, after + 1) {
            let one_for_one = d.set_line && d.lines.len() == 1 && d.start == after;
            if !one_for_one && d.edit != insert.edit {
                return Err(EditError::overlap(format!(
                    "edits[{}] inserts after line {}, but edits[{}] replaces line(s) {}",
                    insert.edit,
                    after + 1,
                    d.edit,
                    span(d.start, d.end)
                )));
            }
        }
    }
    Ok(())
}

/// `L` or `S-E` for 0-based `start..end`.
fn span(start: usize, end: usize) -> String {
    if end <= start + 1 { format!("{}", start + 1) } else { format!("{}-{}", start + 1, end) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The pairwise checks `check_overlaps` replaced (before issue 48 H7): whether they refuse.
    fn refused_pairwise(splices: &[Splice], copy_sources: &[(usize, usize, usize)]) -> bool {
        let destructive: Vec<&Splice> = splices.iter().filter(|s| !s.is_insert()).collect();
        let crossing = destructive
            .iter()
            .enumerate()
            .any(|(n, a)| destructive[n + 1..].iter().any(|b| a.start < b.end && b.start < a.end));
        let copied = copy_sources
            .iter()
            .any(|&(edit, start, end)| destructive.iter().any(|d| d.edit != edit && start < d.end && d.start < end));
        let inserted = splices.iter().filter_map(|s| s.after.map(|after| (s, after))).any(|(insert, after)| {
            destructive.iter().any(|d| {
                let one_for_one = d.set_line && d.lines.len() == 1 && d.start == after;
                d.start <= after && after < d.end && !one_for_one && d.edit != insert.edit
            })
        });
        crossing || copied || inserted
    }

    fn splice() -> impl Strategy<Value = Splice> {
        (0usize..40, 0usize..30, 0usize..4, 0usize..3, any::<bool>(), 0usize..3).prop_map(
            |(edit, start, len, kind, set_line, lines)| match kind {
                0 => Splice::inserting(edit, start, vec![b"x".to_vec(); lines]),
                _ => Splice { set_line, ..Splice::replacing(edit, start, start + len, vec![b"y".to_vec(); lines]) },
            },
        )
    }

    proptest! {
        #[test]
        fn sorted_checks_refuse_exactly_what_pairwise_checks_refused(
            splices in prop::collection::vec(splice(), 0..12),
            copies in prop::collection::vec((0usize..40, 0usize..30, 1usize..4), 0..3),
        ) {
            let copies: Vec<(usize, usize, usize)> = copies.into_iter().map(|(e, s, l)| (e, s, s + l)).collect();
            prop_assert_eq!(check_overlaps(&splices, &copies).is_err(), refused_pairwise(&splices, &copies));
        }
    }

    #[test]
    fn duplicates_keep_the_last_and_warn_once_per_pair() {
        let mut plan = Plan::default();
        for (edit, text) in [(0, "a"), (1, "b"), (2, "b"), (3, "c")] {
            plan.splices
                .push(Splice { set_line: true, ..Splice::replacing(edit, 4, 5, vec![text.as_bytes().to_vec()]) });
        }
        plan.splices.push(Splice::replacing(4, 6, 7, vec![b"z".to_vec()]));
        resolve_duplicates(&mut plan);
        let kept: Vec<usize> = plan.splices.iter().map(|s| s.edit).collect();
        assert_eq!(kept, [3, 4]);
        assert_eq!(plan.warnings.len(), 2, "{:?}", plan.warnings);
        assert!(plan.warnings[0].contains("edits[0] and edits[1]"), "{:?}", plan.warnings);
        assert!(plan.warnings[1].contains("edits[2] and edits[3]"), "{:?}", plan.warnings);
    }
}
