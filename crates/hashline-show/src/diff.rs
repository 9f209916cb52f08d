//! The rows of a diff card: every line of a hunk with its old and new line numbers.

use hashline_tools::diff::{Hunk, LineKind, changes_between};
use hashline_view::FileDiff;

/// One row of a hunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiffRow {
    /// Unchanged, removed or added.
    pub kind: LineKind,
    /// The 0-based index into the hunk's old lines, for context and removed rows.
    pub old_index: Option<usize>,
    /// The 0-based index into the hunk's new lines, for context and added rows.
    pub new_index: Option<usize>,
    /// The 1-based line number in the old file.
    pub old_line: Option<u32>,
    /// The 1-based line number in the new file.
    pub new_line: Option<u32>,
}

/// A hunk split into lines and rows.
#[derive(Debug, Clone)]
pub struct HunkRows<'a> {
    /// The old side's lines (empty for a new file).
    pub old: Vec<&'a str>,
    /// The new side's lines.
    pub new: Vec<&'a str>,
    /// The rows, in unified-diff order.
    pub rows: Vec<DiffRow>,
    /// The `@@ -S,L +S,L @@` header.
    pub header: String,
}

/// The lines of one side of a hunk: none for an empty text.
fn lines(text: &str) -> Vec<&str> {
    if text.is_empty() { Vec::new() } else { text.split('\n').collect() }
}

/// The rows of one hunk (a whole-file diff starts at line 1).
pub fn hunk_rows(diff: &FileDiff) -> HunkRows<'_> {
    let old = diff.old_text.as_deref().map(lines).unwrap_or_default();
    let new = lines(&diff.new_text);
    let first = |start: Option<u32>, len: usize| if len == 0 { 0 } else { start.unwrap_or(1).max(1) };
    let (old_start, new_start) = (first(diff.old_start, old.len()), first(diff.new_start, new.len()));
    let hunk = Hunk { before: 0..old.len() as u32, after: 0..new.len() as u32, changes: changes_between(&old, &new) };
    let mut rows = Vec::with_capacity(old.len().max(new.len()));
    hunk.walk(|kind, o, n| {
        rows.push(DiffRow {
            kind,
            old_index: o.map(|i| i as usize),
            new_index: n.map(|j| j as usize),
            old_line: o.map(|i| old_start + i),
            new_line: n.map(|j| new_start + j),
        });
    });
    let header = format!("@@ -{},{} +{},{} @@", old_start, old.len(), new_start, new.len());
    HunkRows { old, new, rows, header }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_follow_the_starts() {
        let diff = FileDiff {
            path: "a".into(),
            old_text: Some("hello\nWORLD\nend".into()),
            new_text: "hello\nplanet\nend".into(),
            old_start: Some(4),
            new_start: Some(4),
        };
        let hunk = hunk_rows(&diff);
        let numbered: Vec<(LineKind, Option<u32>, Option<u32>)> =
            hunk.rows.iter().map(|r| (r.kind, r.old_line, r.new_line)).collect();
        use LineKind::*;
        assert_eq!(
            numbered,
            [(Context, Some(4), Some(4)), (Remove, Some(5), None), (Add, None, Some(5)), (Context, Some(6), Some(6))]
        );
        assert_eq!(hunk.header, "@@ -4,3 +4,3 @@");
    }

    #[test]
    fn a_new_file_is_all_additions_from_line_one() {
        let new_file = FileDiff::whole_file("a", None, "x\ny");
        let hunk = hunk_rows(&new_file);
        assert!(hunk.rows.iter().all(|r| r.kind == LineKind::Add));
        assert_eq!(hunk.rows[1].new_line, Some(2));
        assert_eq!(hunk.header, "@@ -0,0 +1,2 @@");
        assert!(hunk_rows(&FileDiff::whole_file("a", None, "")).rows.is_empty());
    }
}
