//! Fresh rows for refusals: `>>>` marks the lines that changed, two rows of context.

use crate::row::{into_text, push_row};
use crate::{Document, LineNo};

use super::error::{EditError, Mismatch, REJECTED};

/// Context rows shown around each changed line.
const CONTEXT: usize = 2;

/// Renders rows around `marked` lines (`>>> ` on them, 4 spaces on context rows,
/// `    ...` between groups), `context` rows each side. Returns the text and every line
/// shown (they count as served).
///
/// ```
/// use hashline_core::{edit::marked_rows, Document, LineNo};
/// let doc = Document::parse(b"a\nb\nc\n".to_vec());
/// let (text, shown) = marked_rows(&doc, &[LineNo::new(2).unwrap()], 1);
/// assert_eq!(text, "    1:456|a\n>>> 2:dbf|b\n    3:f1b|c");
/// assert_eq!(shown.len(), 3);
/// ```
pub fn marked_rows(doc: &Document, marked: &[LineNo], context: usize) -> (String, Vec<LineNo>) {
    let mut wanted: Vec<usize> = Vec::new();
    for line in marked {
        let low = line.index().saturating_sub(context);
        let high = (line.index() + context).min(doc.line_count().saturating_sub(1));
        wanted.extend(low..=high);
    }
    wanted.sort_unstable();
    wanted.dedup();
    let mut text = Vec::new();
    let mut previous: Option<usize> = None;
    let mut shown = Vec::with_capacity(wanted.len());
    for index in wanted {
        let Some(line) = doc.line(LineNo::from_index(index)) else {
            continue;
        };
        if previous.is_some_and(|p| index > p + 1) {
            text.extend_from_slice(b"    ...\n");
        }
        let marker: &[u8] = if marked.contains(&line.number) { b">>> " } else { b"    " };
        text.extend_from_slice(marker);
        push_row(&mut text, line.number, line.hash(), line.content);
        text.push(b'\n');
        shown.push(line.number);
        previous = Some(index);
    }
    if text.ends_with(b"\n") {
        text.pop();
    }
    (into_text(text), shown)
}

/// The `hash-mismatch` (or, when no anchored line exists any more, `line-out-of-range`)
/// refusal for stale anchors, with fresh rows.
pub(crate) fn stale_anchors(doc: &Document, window: usize, mismatches: Vec<Mismatch>) -> EditError {
    let marked: Vec<LineNo> = mismatches.iter().filter_map(|m| m.current.map(|a| a.line)).collect();
    if marked.is_empty() {
        let first = &mismatches[0];
        let total = doc.line_count();
        let tail: Vec<LineNo> = (total.saturating_sub(3)..total).map(LineNo::from_index).collect();
        let (rows, shown) = marked_rows(doc, &tail, 0);
        // Context, not changes: no `>>>` markers.
        let rows: Vec<String> = rows
            .lines()
            .map(|row| row.strip_prefix(">>> ").map_or_else(|| row.to_owned(), |r| format!("    {r}")))
            .collect();
        let rows = rows.join("\n");
        let lines_word = if total == 1 { "line" } else { "lines" };
        let mut error = EditError::new(
            "line-out-of-range",
            Some(first.edit),
            format!(
                "{REJECTED} edits[{}]: Line {} does not exist (file has {total} {lines_word}). Re-read the file for current anchors. The file ends with:\n\n{rows}",
                first.edit, first.expected.line
            ),
        );
        error.shown = shown;
        error.mismatches = mismatches;
        return error;
    }
    let (rows, shown) = marked_rows(doc, &marked, CONTEXT);
    // One anchor with several current lines: it was shown for each of them (lines moved).
    let mut ambiguous: Vec<String> = Vec::new();
    for m in &mismatches {
        let mut lines: Vec<String> = mismatches
            .iter()
            .filter(|o| o.edit == m.edit && o.expected == m.expected)
            .filter_map(|o| o.current.map(|a| a.line.to_string()))
            .collect();
        lines.dedup();
        let note = format!(
            "Anchor {} of edits[{}] is ambiguous: lines moved since it was shown, and lines {} could each be the line it names.",
            m.expected,
            m.edit,
            lines.join(" and "),
        );
        if lines.len() > 1 && !ambiguous.contains(&note) {
            ambiguous.push(note);
        }
    }
    let message = if ambiguous.is_empty() {
        let n = marked.len();
        let (anchors, their) = if n == 1 { ("anchor does", "its line") } else { ("anchors do", "their lines") };
        format!(
            "{REJECTED} The anchor hash did not match the current file content.\n{n} {anchors} not match {their}: the file changed since it was read, or the hash was copied wrong. Auto-relocation checks only within ±{window} lines of each anchor. Use the updated LINE:HASH references shown below (>>> marks changed lines)."
        )
    } else {
        format!(
            "{REJECTED} {} Use the current LINE:HASH reference of the line you mean, shown below (>>> marks the candidates); where that is the anchor you sent, read the file again first.",
            ambiguous.join(" ")
        )
    };
    let mut error = EditError::new("hash-mismatch", mismatches.first().map(|m| m.edit), format!("{message}\n\n{rows}"));
    error.shown = shown;
    error.mismatches = mismatches;
    error
}
