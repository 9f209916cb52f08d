//! Applying a batch: one forward pass over the original lines that keeps every untouched
//! line's bytes and terminator, gives new lines the local terminator, and records where
//! each original line went.

use std::collections::HashMap;

use crate::document::BOM;
use crate::{Anchor, Document, LineNo, Terminator};

use super::changes::ChangeMap;
use super::error::EditError;
use super::plan::{Splice, plan};
use super::replace::replace_splices;
use super::{EditOp, EditOptions, relocation_window};

/// An anchor that did not name its line as written and was aimed at one: by what the
/// caller knows the model was shown, by exact-hash relocation, or a bare hash resolved
/// to the one line that has it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Relocation {
    /// Index of the edit.
    pub edit: usize,
    /// The anchor as resolved before the move (for a bare hash: the line that has it).
    pub from: Anchor,
    /// The line it was aimed at.
    pub to: LineNo,
    /// How.
    pub how: Aim,
}

/// How an anchor found its line (see [`Relocation`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Aim {
    /// The caller knows the shown line moved there.
    Known,
    /// Exactly one line within the window has the hash.
    Relocated,
    /// A bare `HASH` named the one line that has it.
    BareHash,
}

/// A batch that passed every check, applied in memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EditOutcome {
    /// The new document.
    pub document: Document,
    /// Where each original line went.
    pub changes: ChangeMap,
    /// Anchors re-aimed by exact-hash relocation.
    pub relocations: Vec<Relocation>,
    /// The relocation window used (±lines).
    pub window: usize,
    /// Warnings for the model (stripped prefixes, duplicates, large change, ...).
    pub warnings: Vec<String>,
    /// Edits that changed nothing.
    pub noop_edits: Vec<usize>,
    /// Original lines the batch replaced or deleted (for the served-lines guard).
    pub overwritten: Vec<LineNo>,
    /// The first line of the new document that differs, if any.
    pub first_changed_line: Option<LineNo>,
}

impl EditOutcome {
    /// Whether the new bytes equal the old ones.
    pub fn is_noop(&self, original: &Document) -> bool {
        self.document.as_bytes() == original.as_bytes()
    }

    /// Relocation notes, one per re-aimed anchor.
    pub fn relocation_notes(&self) -> Vec<String> {
        self.relocations
            .iter()
            .map(|r| match r.how {
                Aim::Known => {
                    format!(
                        "Re-aimed anchor {} -> {}:{} (that line moved since it was shown).",
                        r.from, r.to, r.from.hash
                    )
                }
                Aim::Relocated => {
                    format!("Auto-relocated anchor {} -> {}:{} (window ±{}).", r.from, r.to, r.from.hash, self.window)
                }
                Aim::BareHash => format!(
                    "Resolved bare hash {} -> {}:{} (the only line with that hash).",
                    r.from.hash, r.to, r.from.hash
                ),
            })
            .collect()
    }
}

/// Validates and applies a batch (see the module docs of [`crate::edit`]).
pub fn apply(doc: &Document, ops: &[EditOp], options: &EditOptions<'_>) -> Result<EditOutcome, EditError> {
    let window = relocation_window(ops.len());
    let anchored: Vec<(usize, &EditOp)> =
        ops.iter().enumerate().filter(|(_, op)| !matches!(op, EditOp::Replace { .. })).collect();
    let planned = plan(doc, &anchored, window, *options)?;
    let mut noop_edits = planned.noop_edits.clone();
    let mut overwritten: Vec<LineNo> = Vec::new();
    note_overwrites(doc, &planned.splices, &ChangeMap::identity(doc.line_count()), &mut overwritten, &mut noop_edits);
    let (mut current, mut changes, mut first) = splice(doc, &planned.splices);
    let mut warnings = planned.warnings;

    for (edit, op) in ops.iter().enumerate() {
        let EditOp::Replace { old_text, new_text, all, fuzzy } = op else {
            continue;
        };
        let (splices, replace_warnings) = replace_splices(&current, edit, old_text, new_text, *all, *fuzzy)?;
        warnings.extend(replace_warnings);
        let inverse = invert(&changes, current.line_count());
        note_overwrites(&current, &splices, &inverse, &mut overwritten, &mut noop_edits);
        let (next, step, step_first) = splice(&current, &splices);
        first = match (first.map(|f| step.new_line_of(f)), step_first) {
            (Some(Some(f)), Some(s)) => Some(f.min(s)),
            (Some(Some(f)), None) => Some(f),
            (_, s) => s.or(first),
        };
        changes = changes.then(&step);
        current = next;
    }

    let changed = changed_lines(doc, &changes, &current);
    if changed > 4 * ops.len().max(1) {
        let operations = if ops.len() == 1 { "operation" } else { "operations" };
        warnings.push(format!(
            "Edit changed {changed} lines across {} {operations} — verify no unintended reformatting.",
            ops.len()
        ));
    }
    overwritten.sort_unstable();
    overwritten.dedup();
    noop_edits.sort_unstable();
    noop_edits.dedup();
    let mut relocations = planned.relocations;
    // A one-line range names its anchor twice.
    relocations.dedup();
    Ok(EditOutcome {
        first_changed_line: if current.as_bytes() == doc.as_bytes() { None } else { first },
        document: current,
        changes,
        relocations,
        window,
        warnings,
        noop_edits,
        overwritten,
    })
}

/// Records the original lines a set of splices overwrites (through `to_original`, which
/// maps lines of `doc` back to the original document) and the edits that change nothing.
fn note_overwrites(
    doc: &Document,
    splices: &[Splice],
    to_original: &ChangeMap,
    overwritten: &mut Vec<LineNo>,
    noop_edits: &mut Vec<usize>,
) {
    for s in splices.iter().filter(|s| s.after.is_none()) {
        // Index the lines directly: `lines().skip(n)` walks (and views) the first n lines.
        let old: Vec<&[u8]> =
            (s.start..s.end).filter_map(|i| doc.line(LineNo::from_index(i))).map(|l| l.content).collect();
        if !s.move_source && old.len() == s.lines.len() && old.iter().zip(&s.lines).all(|(a, b)| *a == b.as_slice()) {
            noop_edits.push(s.edit);
            continue;
        }
        overwritten.extend((s.start..s.end).filter_map(|i| to_original.new_line_of(LineNo::from_index(i))));
    }
}

/// The map from a document's lines back to the original ones.
fn invert(changes: &ChangeMap, lines: usize) -> ChangeMap {
    let mut back = vec![None; lines];
    for (old, new) in changes.kept() {
        if let Some(slot) = back.get_mut(new.index()) {
            *slot = Some(old.index() as u32);
        }
    }
    ChangeMap::new(back)
}

/// Lines removed plus lines added, counting only lines that did not survive unchanged.
fn changed_lines(original: &Document, changes: &ChangeMap, current: &Document) -> usize {
    let kept = changes.kept().count();
    (original.line_count() - kept) + (current.line_count() - kept)
}

/// The terminator new lines take near original line `index`: its own, else the line
/// before's, else the document's most common one.
fn local_terminator(doc: &Document, index: usize) -> Terminator {
    let own = doc.line(LineNo::from_index(index)).map(|l| l.terminator);
    let before = index.checked_sub(1).and_then(|i| doc.line(LineNo::from_index(i))).map(|l| l.terminator);
    [own, before].into_iter().flatten().find(|t| *t != Terminator::None).unwrap_or_else(|| doc.dominant_terminator())
}

/// One line of the output being assembled.
struct Out<'a> {
    content: &'a [u8],
    terminator: Terminator,
    /// Written by this batch (not an untouched original line).
    new: bool,
}

/// Applies non-overlapping splices in one pass. Returns the new document, the change map
/// and the first changed line.
pub(crate) fn splice(doc: &Document, splices: &[Splice]) -> (Document, ChangeMap, Option<LineNo>) {
    if splices.is_empty() {
        return (doc.clone(), ChangeMap::identity(doc.line_count()), None);
    }
    let n = doc.line_count();
    let is_empty_file = doc.as_bytes().len() == if doc.has_bom() { BOM.len() } else { 0 };
    // The replacements by first line, and the insertions by the line they follow (in the
    // batch's order for one line): both are met in line order, so the walk below finds each
    // with a cursor instead of a look-up per line.
    let mut replaced: Vec<&Splice> = splices.iter().filter(|s| s.after.is_none()).collect();
    replaced.sort_by_key(|s| s.start);
    let mut inserts: Vec<(usize, &Splice)> = splices.iter().filter_map(|s| Some((s.after?, s))).collect();
    inserts.sort_by_key(|&(after, _)| after);
    let (mut next_replaced, mut next_insert) = (0, 0);
    let inserts_at_start = inserts.first().is_some_and(|&(after, _)| after == 0);
    let mut out: Vec<Out<'_>> = Vec::with_capacity(n + splices.len());
    let mut map = vec![None; n];
    let mut first: Option<usize> = None;
    let mut i = 0;
    while i < n {
        let last_of_step;
        while replaced.get(next_replaced).is_some_and(|s| s.start < i) {
            next_replaced += 1;
        }
        if let Some(s) = replaced.get(next_replaced).copied().filter(|s| s.start == i) {
            first = Some(first.map_or(out.len(), |f| f.min(out.len())));
            let local = local_terminator(doc, s.start);
            let boundary = s
                .last_terminator
                .unwrap_or_else(|| doc.line(LineNo::from_index(s.end - 1)).map_or(Terminator::None, |l| l.terminator));
            for (k, line) in s.lines.iter().enumerate() {
                let terminator = if k + 1 == s.lines.len() { boundary } else { local };
                out.push(Out { content: line, terminator, new: true });
            }
            last_of_step = s.end - 1;
            i = s.end;
        } else if is_empty_file && inserts_at_start {
            // Inserting into an empty file replaces its one empty row.
            last_of_step = 0;
            i = 1;
        } else if let Some(line) = doc.line(LineNo::from_index(i)) {
            map[i] = Some(out.len() as u32);
            out.push(Out { content: line.content, terminator: line.terminator, new: false });
            last_of_step = i;
            i += 1;
        } else {
            break;
        }
        while inserts.get(next_insert).is_some_and(|&(after, _)| after < last_of_step) {
            next_insert += 1;
        }
        let at = next_insert;
        while inserts.get(next_insert).is_some_and(|&(after, _)| after == last_of_step) {
            next_insert += 1;
        }
        for &(_, s) in &inserts[at..next_insert] {
            first = Some(first.map_or(out.len(), |f| f.min(out.len())));
            let local = local_terminator(doc, last_of_step);
            let tail_unterminated = out.last().is_some_and(|o| o.terminator == Terminator::None);
            if let Some(previous) = out.last_mut().filter(|_| tail_unterminated) {
                previous.terminator = local;
            }
            for (k, line) in s.lines.iter().enumerate() {
                let last = k + 1 == s.lines.len();
                let terminator = if last && (tail_unterminated || is_empty_file) { Terminator::None } else { local };
                out.push(Out { content: line, terminator, new: true });
            }
        }
    }
    // An empty last line needs a terminator before it to exist at all.
    if out.len() > 1 && out.last().is_some_and(|o| o.content.is_empty() && o.terminator == Terminator::None) {
        let local = out.get(out.len() - 2).map_or(Terminator::Lf, |o| o.terminator);
        if let Some(last) = out.last_mut() {
            last.terminator = if local == Terminator::None { Terminator::Lf } else { local };
        }
    }
    // A bare `\r` followed by an empty `\n` line would read back as one `\r\n`: a new
    // empty line after a bare-CR line takes the bare CR too; when removed lines brought
    // the two together, the removal takes the `\r` (the line before now ends in `\n`, the
    // bytes removed are still one contiguous run) so no untouched row disappears. That line,
    // if empty, is now an empty `\n` line itself: the same goes for the bare CR before it,
    // and so on backwards.
    let joins = |out: &[Out<'_>], k: usize| {
        out[k - 1].terminator == Terminator::Cr && out[k].content.is_empty() && out[k].terminator == Terminator::Lf
    };
    for k in 1..out.len() {
        if !joins(&out, k) {
            continue;
        }
        if out[k].new {
            out[k].terminator = Terminator::Cr;
            continue;
        }
        let mut j = k;
        while j >= 1 && joins(&out, j) {
            out[j - 1].terminator = Terminator::Lf;
            j -= 1;
        }
    }
    let mut bytes = Vec::with_capacity(doc.as_bytes().len() + 64);
    if doc.has_bom() {
        bytes.extend_from_slice(BOM);
    }
    let mut starts = Vec::with_capacity(out.len());
    for line in &out {
        starts.push(bytes.len());
        bytes.extend_from_slice(line.content);
        bytes.extend_from_slice(line.terminator.as_bytes());
    }
    let document = Document::parse(bytes);
    if document.line_count() != out.len() {
        // Untouched bytes can still join across a removed line (`a\r` + `\n`): map the
        // kept lines by where they start; a line absorbed into another maps to nothing.
        let line_at: HashMap<usize, u32> = document
            .lines()
            .filter_map(|l| document.content_range(l.number).map(|r| (r.start, l.number.index() as u32)))
            .collect();
        for slot in map.iter_mut() {
            *slot = slot.and_then(|k| line_at.get(&starts[k as usize]).copied());
        }
    }
    (document, ChangeMap::new(map), first.map(LineNo::from_index))
}
