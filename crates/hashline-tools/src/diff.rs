//! Line diffs for results: change detection (imara-diff, or an edit's change map),
//! hunks with context, and the renderings built on them (unified text, the diff card's
//! hunks).

use std::ops::Range;

use hashline_view::FileDiff;
use imara_diff::{Algorithm, Diff, InternedInput};

/// Context lines around each change in hunks and unified diffs.
pub const DIFF_CONTEXT: u32 = 3;

/// One change: old lines replaced by new lines (0-based, half-open).
pub type Change = (Range<u32>, Range<u32>);

/// A group of changes with their surrounding context, as 0-based line ranges.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hunk {
    /// Lines of the old text covered by the hunk (context included).
    pub before: Range<u32>,
    /// Lines of the new text covered by the hunk (context included).
    pub after: Range<u32>,
    /// The changes inside, in order.
    pub changes: Vec<Change>,
}

/// What a line of a hunk is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineKind {
    /// Unchanged (both indices set).
    Context,
    /// Only in the old text.
    Remove,
    /// Only in the new text.
    Add,
}

impl Hunk {
    /// Visits the hunk's lines in unified-diff order with their 0-based old/new indices.
    pub fn walk(&self, mut visit: impl FnMut(LineKind, Option<u32>, Option<u32>)) {
        let (mut old, mut new) = (self.before.start, self.after.start);
        for (removed, added) in &self.changes {
            while old < removed.start {
                visit(LineKind::Context, Some(old), Some(new));
                old += 1;
                new += 1;
            }
            removed.clone().for_each(|i| visit(LineKind::Remove, Some(i), None));
            added.clone().for_each(|j| visit(LineKind::Add, None, Some(j)));
            old = removed.end;
            new = added.end;
        }
        while old < self.before.end {
            visit(LineKind::Context, Some(old), Some(new));
            old += 1;
            new += 1;
        }
    }

    /// The `@@ -S,L +S,L @@` header.
    pub fn header(&self) -> String {
        let mut out = String::with_capacity(32);
        out.push_str("@@ -");
        push_hunk_range(&mut out, &self.before);
        out.push_str(" +");
        push_hunk_range(&mut out, &self.after);
        out.push_str(" @@");
        out
    }
}

/// The changes between two line lists (histogram diff).
pub fn changes_between<S: AsRef<str>>(before: &[S], after: &[S]) -> Vec<Change> {
    let joined = |lines: &[S]| {
        let mut text = String::new();
        for line in lines {
            text.push_str(line.as_ref());
            text.push('\n');
        }
        text
    };
    let (old, new) = (joined(before), joined(after));
    let input = InternedInput::new(old.as_str(), new.as_str());
    let mut diff = Diff::compute(Algorithm::Histogram, &input);
    diff.postprocess_lines(&input);
    diff.hunks().map(|h| (h.before, h.after)).collect()
}

/// The changes implied by the lines that survived (`kept`: old → new index pairs, in
/// increasing order); everything else was removed or added.
pub fn changes_from_kept(old_len: u32, new_len: u32, kept: impl IntoIterator<Item = (u32, u32)>) -> Vec<Change> {
    let mut changes = Vec::new();
    let (mut old, mut new) = (0, 0);
    for (o, n) in kept.into_iter().chain(std::iter::once((old_len, new_len))) {
        if o > old || n > new {
            changes.push((old..o, new..n));
        }
        old = o + 1;
        new = n + 1;
    }
    changes
}

/// Groups changes into hunks with `context` lines around them; changes closer than
/// twice the context share a hunk.
pub fn group(changes: impl IntoIterator<Item = Change>, old_len: u32, new_len: u32, context: u32) -> Vec<Hunk> {
    let mut hunks: Vec<Hunk> = Vec::new();
    let mut previous_end = 0;
    for (before, after) in changes {
        // Equal lines since the previous change: as many on both sides.
        let lead = (before.start - previous_end).min(context);
        let (start_before, start_after) = (before.start - lead, after.start - lead);
        previous_end = before.end;
        match hunks.last_mut() {
            Some(last) if start_before <= last.before.end => {
                last.before.end = before.end;
                last.after.end = after.end;
                last.changes.push((before, after));
            }
            _ => hunks.push(Hunk {
                before: start_before..before.end,
                after: start_after..after.end,
                changes: vec![(before, after)],
            }),
        }
        if let Some(last) = hunks.last_mut() {
            let trail = context.min(old_len - last.before.end).min(new_len - last.after.end);
            last.before.end += trail;
            last.after.end += trail;
        }
    }
    hunks
}

/// Context hunks between two line lists.
///
/// ```
/// use hashline_tools::diff::line_hunks;
/// let hunks = line_hunks(&["a", "b", "c"], &["a", "B", "c"], 1);
/// assert_eq!(hunks.len(), 1);
/// assert_eq!((hunks[0].before.clone(), hunks[0].after.clone()), (0..3, 0..3));
/// ```
pub fn line_hunks<S: AsRef<str>>(before: &[S], after: &[S], context: u32) -> Vec<Hunk> {
    group(changes_between(before, after), before.len() as u32, after.len() as u32, context)
}

/// The diff card's hunks (SPEC §8) for hunks already computed: one [`FileDiff`] per hunk
/// with 1-based start lines; `oldText` is `None` when the hunk has no old lines. `old` and
/// `new` give the text of a range of lines (joined by `\n`), so callers fetch only what
/// the hunks cover.
pub fn file_diffs_with(
    path: &str,
    hunks: &[Hunk],
    old: impl Fn(&Range<u32>) -> String,
    new: impl Fn(&Range<u32>) -> String,
) -> Vec<FileDiff> {
    hunks
        .iter()
        .map(|hunk| FileDiff {
            path: path.to_owned(),
            old_text: (!hunk.before.is_empty()).then(|| old(&hunk.before)),
            new_text: new(&hunk.after),
            old_start: Some(hunk.before.start + 1),
            new_start: Some(hunk.after.start + 1),
        })
        .collect()
}

/// The diff card's hunks between two line lists (context [`DIFF_CONTEXT`]).
pub fn file_diffs<S: AsRef<str>>(path: &str, before: &[S], after: &[S]) -> Vec<FileDiff> {
    fn joined<S: AsRef<str>>(lines: &[S], range: &Range<u32>) -> String {
        lines[range.start as usize..range.end as usize].iter().map(AsRef::as_ref).collect::<Vec<_>>().join("\n")
    }
    file_diffs_with(path, &line_hunks(before, after, DIFF_CONTEXT), |r| joined(before, r), |r| joined(after, r))
}

/// A unified diff of computed hunks; `line` renders one line (with its `+`/`-`/` `
/// prefix already written) into the output.
pub fn unified_of(
    old_name: &str,
    new_name: &str,
    hunks: &[Hunk],
    mut line: impl FnMut(&mut String, LineKind, Option<u32>, Option<u32>),
) -> String {
    if hunks.is_empty() {
        return String::new();
    }
    let mut out = format!("--- {old_name}\n+++ {new_name}\n");
    for hunk in hunks {
        out.push_str(&hunk.header());
        out.push('\n');
        hunk.walk(|kind, old, new| {
            out.push(match kind {
                LineKind::Context => ' ',
                LineKind::Remove => '-',
                LineKind::Add => '+',
            });
            line(&mut out, kind, old, new);
        });
    }
    out
}

/// A unified diff (`---`/`+++` header, `@@` hunks) between two line lists.
///
/// ```
/// use hashline_tools::diff::unified;
/// let text = unified("a/x.txt", "b/x.txt", &["one", "two"], &["one", "2"]);
/// assert_eq!(text, "--- a/x.txt\n+++ b/x.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n");
/// ```
pub fn unified<S: AsRef<str>>(old_name: &str, new_name: &str, before: &[S], after: &[S]) -> String {
    let hunks = line_hunks(before, after, DIFF_CONTEXT);
    unified_of(old_name, new_name, &hunks, |out, _, old, new| {
        let text = match (old, new) {
            (Some(i), _) => before[i as usize].as_ref(),
            (None, Some(j)) => after[j as usize].as_ref(),
            (None, None) => "",
        };
        out.push_str(text);
        out.push('\n');
    })
}

/// Appends `start,len` of a unified hunk header (1-based start; `start-1` for an empty side).
fn push_hunk_range(out: &mut String, range: &Range<u32>) {
    let len = range.end - range.start;
    let start = if len == 0 { range.start } else { range.start + 1 };
    let mut digits = itoa::Buffer::new();
    out.push_str(digits.format(start));
    out.push(',');
    out.push_str(digits.format(len));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(n: u32) -> Vec<String> {
        (1..=n).map(|i| format!("line {i}")).collect()
    }

    #[test]
    fn distant_changes_make_separate_hunks_near_ones_merge() {
        let before = lines(20);
        let mut after = before.clone();
        after[1] = "changed 2".into();
        after[17] = "changed 18".into();
        let far = file_diffs("f", &before, &after);
        assert_eq!(far.len(), 2);
        assert_eq!((far[0].old_start, far[0].new_start), (Some(1), Some(1)));
        assert_eq!(far[0].old_text.as_deref(), Some("line 1\nline 2\nline 3\nline 4\nline 5"));
        assert_eq!(far[1].old_start, Some(15));
        after[5] = "changed 6".into();
        after[17] = "line 18".into();
        assert_eq!(file_diffs("f", &before, &after).len(), 1);
    }

    #[test]
    fn pure_insertion_into_empty_text_has_no_old_text() {
        let diffs = file_diffs::<&str>("f", &[], &["new"]);
        assert_eq!(diffs.len(), 1);
        assert_eq!((diffs[0].old_text.clone(), diffs[0].new_text.as_str()), (None, "new"));
        assert_eq!(file_diffs("f", &["same"], &["same"]), vec![]);
    }

    #[test]
    fn unified_insertions_and_deletions() {
        let text = unified("a", "b", &["x", "y", "z"], &["x", "z", "w"]);
        assert_eq!(text, "--- a\n+++ b\n@@ -1,3 +1,3 @@\n x\n-y\n z\n+w\n");
        assert_eq!(unified::<&str>("a", "b", &[], &["n"]), "--- a\n+++ b\n@@ -0,0 +1,1 @@\n+n\n");
    }

    #[test]
    fn changes_from_kept_lines_match_a_real_diff() {
        // old: a b c d ; new: a X c d Y  (b replaced, Y appended)
        let changes = changes_from_kept(4, 5, [(0, 0), (2, 2), (3, 3)]);
        assert_eq!(changes, vec![(1..2, 1..2), (4..4, 4..5)]);
        assert_eq!(changes, changes_between(&["a", "b", "c", "d"], &["a", "X", "c", "d", "Y"]));
        assert_eq!(changes_from_kept(2, 2, [(0, 0), (1, 1)]), vec![]);
        assert_eq!(changes_from_kept(1, 0, []), vec![(0..1, 0..0)]);
    }
}
