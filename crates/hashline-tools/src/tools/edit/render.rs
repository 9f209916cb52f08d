//! What an edit result shows: the summary line and the added rows (the text), the anchored
//! compact diff, `diffData` and the physical `patch` (the value).

use hashline_core::display::decode_lossy;
use hashline_core::edit::ChangeMap;
use hashline_core::row::{into_text, push_row};
use hashline_core::{Document, LineNo, Terminator};
use schemars::JsonSchema;
use serde::Serialize;

use crate::diff::{Change, Hunk, LineKind, changes_from_kept, group, unified_of};

/// Context rows around each change in the anchored diff (and so in the fresh anchors).
pub const FRESH_CONTEXT: u32 = 2;

/// At most this many rows of the anchored diff (the value's `diff`) and of added rows (the
/// text).
pub const MAX_DIFF_ROWS: usize = 400;

/// The logical hunks of an edit, from its changes found by [`logical_changes`] (no
/// diff algorithm needed: the engine knows which lines survived; found once, grouped
/// with each context the result needs).
pub fn hunks_of(old: &Document, new: &Document, changes: impl IntoIterator<Item = Change>, context: u32) -> Vec<Hunk> {
    group(changes, old.line_count() as u32, new.line_count() as u32, context)
}

/// The changed ranges of an edit: what the change map does not keep, less the lines
/// rewritten with their own content.
pub fn logical_changes(old: &Document, new: &Document, changes: &ChangeMap) -> Vec<Change> {
    let kept = changes.kept().map(|(o, n)| (o.index() as u32, n.index() as u32));
    let found = changes_from_kept(old.line_count() as u32, new.line_count() as u32, kept);
    fn content(doc: &Document, i: u32) -> Option<&[u8]> {
        doc.line(LineNo::from_index(i as usize)).map(|l| l.content)
    }
    // A line rewritten with its own content is not a change.
    found
        .into_iter()
        .filter_map(|(mut removed, mut added)| {
            while !removed.is_empty() && !added.is_empty() && content(old, removed.start) == content(new, added.start) {
                removed.start += 1;
                added.start += 1;
            }
            while !removed.is_empty()
                && !added.is_empty()
                && content(old, removed.end - 1) == content(new, added.end - 1)
            {
                removed.end -= 1;
                added.end -= 1;
            }
            (!removed.is_empty() || !added.is_empty()).then_some((removed, added))
        })
        .collect()
}

/// The diff card's hunks (SPEC §8) for an edit: the text of the hunks' lines only, so a
/// small edit of a large file stays cheap.
pub fn file_diffs(path: &str, old: &Document, new: &Document, hunks: &[Hunk]) -> Vec<hashline_view::FileDiff> {
    fn joined(doc: &Document, range: &std::ops::Range<u32>) -> String {
        let mut text = String::new();
        for (i, line) in doc.lines_in(range.start as usize..range.end as usize).enumerate() {
            if i > 0 {
                text.push('\n');
            }
            text.push_str(&decode_lossy(line.content));
        }
        text
    }
    crate::diff::file_diffs_with(path, hunks, |r| joined(old, r), |r| joined(new, r))
}

/// The last line of a result that committed a change: its id and how to undo it.
pub fn change_line(id: &str) -> String {
    format!("Change {id} (undo: edit {{\"revert\": \"{id}\"}})")
}

/// `Edited <path> (<n> change(s), +A -R line(s))`.
pub fn summary(path: &str, edits: usize, added: usize, removed: usize) -> String {
    let changes = if edits == 1 { "change" } else { "changes" };
    let lines = if added.max(removed) == 1 { "line" } else { "lines" };
    format!("Edited {path} ({edits} {changes}, +{added} -{removed} {lines})")
}

/// Lines added and removed across hunks.
pub fn counts(hunks: &[Hunk]) -> (usize, usize) {
    let mut added = 0;
    let mut removed = 0;
    for hunk in hunks {
        for (r, a) in &hunk.changes {
            removed += r.len();
            added += a.len();
        }
    }
    (added, removed)
}

/// The anchored compact diff (the value's `diff`, and a revert refusal's rows): `@@`
/// headers, ` ` context and `+` added rows with their NEW anchors (usable at once), `-`
/// removed rows with their old anchors; at most
/// [`MAX_DIFF_ROWS`] rows and `max_bytes` bytes, cut at whole rows. Returns the text and,
/// when it was cut, how many rows it shows.
pub fn anchored_diff(old: &Document, new: &Document, hunks: &[Hunk], max_bytes: usize) -> (String, Option<usize>) {
    let mut out = Vec::new();
    let mut rows = 0;
    let mut cut = false;
    for hunk in hunks {
        let header = hunk.header();
        if rows >= MAX_DIFF_ROWS || out.len() + header.len() + 1 > max_bytes {
            cut = true;
            break;
        }
        let before_hunk = out.len();
        out.extend_from_slice(header.as_bytes());
        out.push(b'\n');
        let rows_before = rows;
        hunk.walk(|kind, o, n| {
            if cut {
                return;
            }
            if rows == MAX_DIFF_ROWS {
                cut = true;
                return;
            }
            let (marker, doc, index) = match kind {
                LineKind::Context => (b' ', new, n),
                LineKind::Add => (b'+', new, n),
                LineKind::Remove => (b'-', old, o),
            };
            if let Some(line) = index.and_then(|i| doc.line(LineNo::from_index(i as usize)))
                && !push_capped(&mut out, marker, &line, max_bytes)
            {
                cut = true;
                return;
            }
            rows += 1;
        });
        if cut && rows == rows_before {
            // Not one row of this hunk fit: no header without rows.
            out.truncate(before_hunk);
        }
        if cut {
            break;
        }
    }
    if out.ends_with(b"\n") {
        out.pop();
    }
    (into_text(out), cut.then_some(rows))
}

/// Appends `marker` and `line`'s row and a line break to `out` if `out` stays within
/// `max_bytes`; else leaves `out` as it was and returns `false`.
fn push_capped(out: &mut Vec<u8>, marker: u8, line: &hashline_core::Line<'_>, max_bytes: usize) -> bool {
    let before = out.len();
    out.push(marker);
    push_row(out, line.number, line.hash(), line.content);
    out.push(b'\n');
    if out.len() > max_bytes {
        out.truncate(before);
        return false;
    }
    true
}

/// The added rows the text of an edit (or a revert) shows: each line the hunks add, as
/// `+LINE:HASH|content` with its NEW anchor (usable at once), in file order; no headers,
/// context or removed rows. At most [`MAX_DIFF_ROWS`] rows and `max_bytes` bytes, cut at
/// whole rows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AddedRows {
    /// The rows, one a line (`""` when the hunks add nothing).
    pub text: String,
    /// The new document's lines the rows show, in order.
    pub lines: Vec<LineNo>,
    /// Whether rows were left out (then `lines.len()` rows are shown).
    pub cut: bool,
}

impl AddedRows {
    /// The rows of `new`'s lines added in `hunks`.
    pub fn of(new: &Document, hunks: &[Hunk], max_bytes: usize) -> Self {
        let mut out = Vec::new();
        let mut lines = Vec::new();
        let added = hunks.iter().flat_map(|h| &h.changes).flat_map(|(_, added)| added.clone());
        let mut cut = false;
        for index in added {
            let Some(line) = new.line(LineNo::from_index(index as usize)) else { continue };
            if lines.len() == MAX_DIFF_ROWS {
                cut = true;
                break;
            }
            if !push_capped(&mut out, b'+', &line, max_bytes) {
                cut = true;
                break;
            }
            lines.push(line.number);
        }
        if out.ends_with(b"\n") {
            out.pop();
        }
        Self { text: into_text(out), lines, cut }
    }

    /// The anchors of `new`'s lines added in `hunks`, for an edit's text: one line
    /// `Anchors of the added lines: 3:40d 4:f14 9:abc`, in file order, without the lines'
    /// content (the model wrote it; docs/protocol.md §4.5.7). At most [`MAX_DIFF_ROWS`]
    /// anchors and `max_bytes` bytes, cut at a whole anchor.
    pub fn anchors_of(new: &Document, hunks: &[Hunk], max_bytes: usize) -> Self {
        const LEAD: &str = "Anchors of the added lines:";
        let mut text = String::from(LEAD);
        let mut lines = Vec::new();
        let added = hunks.iter().flat_map(|h| &h.changes).flat_map(|(_, added)| added.clone());
        let mut cut = false;
        for index in added {
            let Some(line) = new.line(LineNo::from_index(index as usize)) else { continue };
            let anchor = format!(" {}:{}", line.number, line.hash());
            if lines.len() == MAX_DIFF_ROWS || text.len() + anchor.len() > max_bytes {
                cut = true;
                break;
            }
            text.push_str(&anchor);
            lines.push(line.number);
        }
        if lines.is_empty() {
            text.clear();
        }
        Self { text, lines, cut }
    }

    /// The anchors' line, then the note of a cut when anchors were left out (the note alone
    /// when not one fit).
    pub fn anchors_with_note(&self) -> String {
        match self.cut {
            true => format!("{}\n[Anchors cut at {} lines; read the file for the rest.]", self.text, self.lines.len())
                .trim_start()
                .to_owned(),
            false => self.text.clone(),
        }
    }

    /// Whether the text has anything to show of them: rows, or the note of a cut.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty() && !self.cut
    }

    /// The rows, then the cut note when rows were left out (the note alone when not one
    /// row fit).
    pub fn with_note(&self) -> String {
        match self.cut {
            true => format!("{}{}", self.text, diff_cut_note(self.lines.len())).trim_start().to_owned(),
            false => self.text.clone(),
        }
    }
}

/// The note after a diff cut at `rows` rows.
pub fn diff_cut_note(rows: usize) -> String {
    format!("\n[Diff cut at {rows} rows; read the file for the rest.]")
}

/// The new document's lines inside the hunks (context included): the fresh anchors.
pub fn fresh_lines(hunks: &[Hunk]) -> Vec<LineNo> {
    let mut lines: Vec<LineNo> =
        hunks.iter().flat_map(|h| h.after.clone()).map(|i| LineNo::from_index(i as usize)).collect();
    lines.dedup();
    lines
}

/// `diffData` v1: the logical diff as typed entries.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, JsonSchema)]
pub struct DiffData {
    /// Always 1.
    pub version: u32,
    /// Lines in order: context, add, remove, and a meta entry per hunk header.
    pub entries: Vec<DiffEntry>,
    /// Counts.
    pub stats: DiffStats,
}

/// One `diffData` entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum DiffEntry {
    /// An unchanged line.
    Context {
        /// 1-based line in the old text.
        #[serde(rename = "oldLine")]
        old_line: u32,
        /// 1-based line in the new text.
        #[serde(rename = "newLine")]
        new_line: u32,
        /// The text.
        text: String,
    },
    /// An added line.
    Add {
        /// 1-based line in the new text.
        #[serde(rename = "newLine")]
        new_line: u32,
        /// The text.
        text: String,
    },
    /// A removed line.
    Remove {
        /// 1-based line in the old text.
        #[serde(rename = "oldLine")]
        old_line: u32,
        /// The text.
        text: String,
    },
    /// A hunk header.
    Meta {
        /// The text.
        text: String,
    },
}

/// `diffData` counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, JsonSchema)]
pub struct DiffStats {
    /// Lines added.
    pub added: u32,
    /// Lines removed.
    pub removed: u32,
    /// Context lines.
    pub context: u32,
}

/// Builds `diffData` from hunks.
pub fn diff_data(old: &Document, new: &Document, hunks: &[Hunk]) -> DiffData {
    let text = |doc: &Document, i: u32| {
        doc.line(LineNo::from_index(i as usize)).map(|l| decode_lossy(l.content).into_owned()).unwrap_or_default()
    };
    let mut entries = Vec::new();
    let mut stats = DiffStats::default();
    for hunk in hunks {
        entries.push(DiffEntry::Meta { text: hunk.header() });
        hunk.walk(|kind, o, n| match (kind, o, n) {
            (LineKind::Context, Some(o), Some(n)) => {
                stats.context += 1;
                entries.push(DiffEntry::Context { old_line: o + 1, new_line: n + 1, text: text(new, n) });
            }
            (LineKind::Add, _, Some(n)) => {
                stats.added += 1;
                entries.push(DiffEntry::Add { new_line: n + 1, text: text(new, n) });
            }
            (LineKind::Remove, Some(o), _) => {
                stats.removed += 1;
                entries.push(DiffEntry::Remove { old_line: o + 1, text: text(old, o) });
            }
            _ => {}
        });
    }
    DiffData { version: 1, entries, stats }
}

/// The unified diff of the physical bytes (BOM and line endings included): a line
/// whose bytes changed in any way — content or terminator — is a change.
pub fn patch(path: &str, old: &Document, new: &Document, changes: &ChangeMap) -> String {
    let kept = physically_kept(old, new, changes);
    let found = changes_from_kept(old.line_count() as u32, new.line_count() as u32, kept);
    let hunks = group(found, old.line_count() as u32, new.line_count() as u32, crate::diff::DIFF_CONTEXT);
    // Each line written straight into the patch, terminator included.
    let physical = |out: &mut String, doc: &Document, i: u32| {
        if i == 0 && doc.has_bom() {
            out.push('\u{feff}');
        }
        if let Some(line) = doc.line(LineNo::from_index(i as usize)) {
            out.push_str(&decode_lossy(line.content));
            match line.terminator {
                Terminator::None => out.push_str("\n\\ No newline at end of file\n"),
                Terminator::Lf => out.push('\n'),
                Terminator::CrLf => out.push_str("\r\n"),
                Terminator::Cr => out.push('\r'),
            }
        }
    };
    unified_of(&format!("a/{path}"), &format!("b/{path}"), &hunks, |out, kind, o, n| match (kind, o, n) {
        (LineKind::Add, _, Some(n)) | (LineKind::Context, _, Some(n)) => physical(out, new, n),
        (_, Some(o), _) => physical(out, old, o),
        _ => {}
    })
}

/// The kept lines (old → new, 0-based) whose bytes are the same in both documents: content,
/// terminator, and for line 1 the BOM. A run of consecutive kept lines is compared as one
/// byte range (equal bytes from a line start split into the same lines); a run that differs
/// somewhere, or touches line 1, is compared line by line.
fn physically_kept(old: &Document, new: &Document, changes: &ChangeMap) -> Vec<(u32, u32)> {
    fn bytes(doc: &Document, i: usize) -> Option<(&[u8], Terminator)> {
        doc.line(LineNo::from_index(i)).map(|l| (l.content, l.terminator))
    }
    let same_line = |o: usize, n: usize| {
        // Line 1 carries the BOM: a BOM change is a change of line 1.
        let bom_same = (o != 0 && n != 0) || old.has_bom() == new.has_bom();
        bom_same && bytes(old, o) == bytes(new, n)
    };
    // Where line `i` starts (the end of the bytes for `i` = the line count).
    fn start(doc: &Document, i: usize) -> usize {
        doc.content_range(LineNo::from_index(i)).map_or(doc.as_bytes().len(), |r| r.start)
    }
    let mut out = Vec::with_capacity(old.line_count());
    let flush = |o: usize, n: usize, len: usize, out: &mut Vec<(u32, u32)>| {
        let whole = o != 0
            && n != 0
            && old.as_bytes().get(start(old, o)..start(old, o + len))
                == new.as_bytes().get(start(new, n)..start(new, n + len));
        for k in 0..len {
            if whole || same_line(o + k, n + k) {
                out.push(((o + k) as u32, (n + k) as u32));
            }
        }
    };
    let mut run: Option<(usize, usize, usize)> = None;
    for (o, n) in changes.kept().map(|(o, n)| (o.index(), n.index())) {
        run = match run {
            Some((ro, rn, len)) if ro + len == o && rn + len == n => Some((ro, rn, len + 1)),
            Some((ro, rn, len)) => {
                flush(ro, rn, len, &mut out);
                Some((o, n, 1))
            }
            None => Some((o, n, 1)),
        };
    }
    if let Some((ro, rn, len)) = run {
        flush(ro, rn, len, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use hashline_core::edit::{EditOp, EditOptions, apply};
    use hashline_core::{Anchor, AnchorRef};

    use super::*;

    fn at(doc: &Document, line: u32) -> AnchorRef {
        let line = doc.line(LineNo::new(line).expect("1-based")).expect("the line exists");
        AnchorRef::Line { anchor: Anchor::new(line.number, line.hash()), content: None }
    }

    /// The kept lines compared one by one (what `physically_kept` must equal).
    fn naive(old: &Document, new: &Document, changes: &ChangeMap) -> Vec<(u32, u32)> {
        fn bytes(doc: &Document, i: usize) -> Option<(&[u8], Terminator)> {
            doc.line(LineNo::from_index(i)).map(|l| (l.content, l.terminator))
        }
        changes
            .kept()
            .map(|(o, n)| (o.index(), n.index()))
            .filter(|&(o, n)| ((o != 0 && n != 0) || old.has_bom() == new.has_bom()) && bytes(old, o) == bytes(new, n))
            .map(|(o, n)| (o as u32, n as u32))
            .collect()
    }

    #[test]
    fn runs_of_kept_lines_compare_as_the_lines_do() {
        let texts: [&[u8]; 4] = [
            b"a\nb\nc\nd\ne\nf\ng",
            b"\xef\xbb\xbfa\r\nb\r\nc\nd\re\nf\ng\n",
            b"a\nb\nc\nd\ne\nf\ng\n",
            b"a\rb\rc\r\nd\ne\nf\r\ng",
        ];
        for text in texts {
            let old = Document::parse(text.to_vec());
            let last = old.line_count() as u32;
            let batches = vec![
                vec![EditOp::SetLine { anchor: at(&old, 3), new_text: "C".into(), literal: false }],
                vec![EditOp::InsertAfter { anchor: at(&old, last), new_text: "tail".into(), literal: false }],
                vec![EditOp::SetLine { anchor: at(&old, 1), new_text: "A".into(), literal: false }],
                vec![
                    EditOp::ReplaceLines {
                        start: at(&old, 2),
                        end: at(&old, 3),
                        new_text: "x\ny\nz".into(),
                        literal: false,
                    },
                    EditOp::SetLine { anchor: at(&old, last), new_text: "G".into(), literal: false },
                ],
            ];
            for ops in batches {
                let outcome = apply(&old, &ops, &EditOptions::default()).expect("the batch applies");
                let (new, changes) = (&outcome.document, &outcome.changes);
                assert_eq!(physically_kept(&old, new, changes), naive(&old, new, changes), "{text:?} {ops:?}");
            }
        }
    }
}
