//! Line diffs for results: hunks with context (the diff card's meta) and unified text.

use std::ops::Range;

use hashline_view::FileDiff;
use imara_diff::{Algorithm, Diff, InternedInput};

/// Context lines around each change in hunks and unified diffs.
pub const DIFF_CONTEXT: u32 = 3;

/// A group of changes with their surrounding context, as 0-based line ranges.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hunk {
    /// Lines of the old text covered by the hunk (context included).
    pub before: Range<u32>,
    /// Lines of the new text covered by the hunk (context included).
    pub after: Range<u32>,
    /// The changes inside, as (old range, new range) pairs.
    pub changes: Vec<(Range<u32>, Range<u32>)>,
}

/// Computes context hunks between two line lists.
///
/// ```
/// use hashline_tools::diff::line_hunks;
/// let hunks = line_hunks(&["a", "b", "c"], &["a", "B", "c"], 1);
/// assert_eq!(hunks.len(), 1);
/// assert_eq!((hunks[0].before.clone(), hunks[0].after.clone()), (0..3, 0..3));
/// ```
pub fn line_hunks<S: AsRef<str>>(before: &[S], after: &[S], context: u32) -> Vec<Hunk> {
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
    let (old_len, new_len) = (before.len() as u32, after.len() as u32);
    let mut hunks: Vec<Hunk> = Vec::new();
    let mut previous_end = 0;
    for change in diff.hunks() {
        // Equal lines since the previous change: as many on both sides.
        let lead = (change.before.start - previous_end).min(context);
        let start_before = change.before.start - lead;
        let start_after = change.after.start - lead;
        previous_end = change.before.end;
        match hunks.last_mut() {
            Some(last) if start_before <= last.before.end => {
                last.changes
                    .push((change.before.clone(), change.after.clone()));
                last.before.end = change.before.end;
                last.after.end = change.after.end;
            }
            _ => hunks.push(Hunk {
                before: start_before..change.before.end,
                after: start_after..change.after.end,
                changes: vec![(change.before.clone(), change.after.clone())],
            }),
        }
        // Trailing context, clipped to both texts; a later change within reach merges.
        if let Some(last) = hunks.last_mut() {
            let trail = context
                .min(old_len - last.before.end)
                .min(new_len - last.after.end);
            last.before.end += trail;
            last.after.end += trail;
        }
    }
    hunks
}

/// The diff card's hunks (SPEC §8): one [`FileDiff`] per hunk with 1-based start lines;
/// `oldText` is `None` when the hunk has no old lines.
pub fn file_diffs<S: AsRef<str>>(path: &str, before: &[S], after: &[S]) -> Vec<FileDiff> {
    let pick = |lines: &[S], range: &Range<u32>| {
        lines[range.start as usize..range.end as usize]
            .iter()
            .map(AsRef::as_ref)
            .collect::<Vec<_>>()
            .join("\n")
    };
    line_hunks(before, after, DIFF_CONTEXT)
        .into_iter()
        .map(|hunk| FileDiff {
            path: path.to_owned(),
            old_text: (!hunk.before.is_empty()).then(|| pick(before, &hunk.before)),
            new_text: pick(after, &hunk.after),
            old_start: Some(hunk.before.start + 1),
            new_start: Some(hunk.after.start + 1),
        })
        .collect()
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
    if hunks.is_empty() {
        return String::new();
    }
    let mut out = format!("--- {old_name}\n+++ {new_name}\n");
    for hunk in hunks {
        out.push_str(&format!(
            "@@ -{} +{} @@\n",
            hunk_range(&hunk.before),
            hunk_range(&hunk.after)
        ));
        let mut old_pos = hunk.before.start;
        for (removed, added) in &hunk.changes {
            for line in &before[old_pos as usize..removed.start as usize] {
                out.push(' ');
                out.push_str(line.as_ref());
                out.push('\n');
            }
            for line in &before[removed.start as usize..removed.end as usize] {
                out.push('-');
                out.push_str(line.as_ref());
                out.push('\n');
            }
            for line in &after[added.start as usize..added.end as usize] {
                out.push('+');
                out.push_str(line.as_ref());
                out.push('\n');
            }
            old_pos = removed.end;
        }
        for line in &before[old_pos as usize..hunk.before.end as usize] {
            out.push(' ');
            out.push_str(line.as_ref());
            out.push('\n');
        }
    }
    out
}

/// `start,len` of a unified hunk header (1-based start; `start-1` for an empty side).
fn hunk_range(range: &Range<u32>) -> String {
    let len = range.end - range.start;
    let start = if len == 0 {
        range.start
    } else {
        range.start + 1
    };
    format!("{start},{len}")
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
        assert_eq!(
            far[0].old_text.as_deref(),
            Some("line 1\nline 2\nline 3\nline 4\nline 5")
        );
        assert_eq!(far[1].old_start, Some(15));
        after[5] = "changed 6".into();
        after[17] = "line 18".into();
        assert_eq!(file_diffs("f", &before, &after).len(), 1);
    }

    #[test]
    fn pure_insertion_into_empty_text_has_no_old_text() {
        let diffs = file_diffs::<&str>("f", &[], &["new"]);
        assert_eq!(diffs.len(), 1);
        assert_eq!(
            (diffs[0].old_text.clone(), diffs[0].new_text.as_str()),
            (None, "new")
        );
        assert_eq!(file_diffs("f", &["same"], &["same"]), vec![]);
    }

    #[test]
    fn unified_insertions_and_deletions() {
        let text = unified("a", "b", &["x", "y", "z"], &["x", "z", "w"]);
        assert_eq!(text, "--- a\n+++ b\n@@ -1,3 +1,3 @@\n x\n-y\n z\n+w\n");
        assert_eq!(
            unified::<&str>("a", "b", &[], &["n"]),
            "--- a\n+++ b\n@@ -0,0 +1,1 @@\n+n\n"
        );
    }
}
