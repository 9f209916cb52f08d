//! The text of a grep result: the header, one section per file with `>>` match rows,
//! context rows, `--` gaps and `... +K more matches`, the notices, and the final budget.

use std::path::Path;

use hashline_core::display::display_line;
use hashline_search::{HitKind, HitLine, SearchOutcome};

use super::admit::Admitted;
use crate::budget::{MAX_BYTES, MAX_LINES, format_size};

/// Longer lines are clipped for display (the anchor covers the whole line).
pub const MAX_LINE_CHARS: usize = 500;

const CLIPPED_SUFFIX: &str = "... [truncated]";

/// A row's text cut at [`MAX_LINE_CHARS`] characters (with `... [truncated]`), and whether
/// it was cut.
pub(crate) fn clip_line(content: &str) -> (String, bool) {
    match content.char_indices().nth(MAX_LINE_CHARS) {
        Some((cut, _)) => (format!("{}{CLIPPED_SUFFIX}", &content[..cut]), true),
        None => (content.to_owned(), false),
    }
}

/// A rendered result.
#[derive(Debug)]
pub(crate) struct Rendered {
    /// What the model sees.
    pub text: String,
    /// The budget cut rows, or long lines were clipped.
    pub display_truncated: bool,
}

/// Sections of anchored rows. `limit_cut` adds the "results truncated" notice.
pub(crate) fn sections(admitted: &Admitted<'_>, shown: impl Fn(&Path) -> String, limit_cut: bool) -> Rendered {
    let mut rows = Vec::new();
    let mut clipped = false;
    // Rows past the line budget can never show: only their count and bytes are kept.
    let mut unshown = Unshown::default();
    let mut file_rows = Vec::new();
    for file in &admitted.files {
        let display = shown(&file.hits.path);
        if rows.len() >= MAX_LINES {
            // Past the budget (an unbounded search: ~100k rows) the rows are measured, not
            // made: the same lengths, no string each.
            count_file(&display, file.admitted, &file.lines, file.more, &mut unshown, &mut clipped);
            continue;
        }
        file_rows.push(format!("--- {display} ({} matches) ---", file.admitted));
        plain_rows(&display, &file.lines, &mut file_rows, &mut clipped);
        if file.more > 0 {
            file_rows.push(more_row(file.more));
        }
        for row in file_rows.drain(..) {
            if rows.len() < MAX_LINES {
                rows.push(row);
            } else {
                unshown.rows += 1;
                unshown.bytes += row.len() + 1;
            }
        }
    }
    matches_text(admitted, rows, unshown, clipped, limit_cut)
}

/// Counts the rows of one file that cannot show (as [`sections`] would make them: its
/// header, [`plain_rows`], the `more` row) in `unshown`.
fn count_file(
    display: &str,
    admitted: usize,
    lines: &[&HitLine],
    more: usize,
    unshown: &mut Unshown,
    clipped: &mut bool,
) {
    let mut count = |len: usize| {
        unshown.rows += 1;
        unshown.bytes += len + 1;
    };
    count(text_len(format_args!("--- {display} ({admitted} matches) ---")));
    let with_context = lines.iter().any(|line| line.kind != HitKind::Match);
    let mut previous: Option<u32> = None;
    for line in lines {
        let number = line.line.get();
        if with_context && previous.is_some_and(|p| number > p + 1) {
            count(GAP_ROW.len());
        }
        previous = Some(number);
        let text = display_line(&line.content);
        let (content, cut) = match text.char_indices().nth(MAX_LINE_CHARS) {
            Some((at, _)) => (at + CLIPPED_SUFFIX.len(), true),
            None => (text.len(), false),
        };
        *clipped |= cut;
        // `PATH:>>LINE:HASH|content`, as `row` writes it.
        count(display.len() + 3 + text_len(format_args!("{}", line.anchor())) + 1 + content);
    }
    if more > 0 {
        count(text_len(format_args!("... +{more} more matches")));
    }
}

/// The length of formatted text, without making it.
fn text_len(args: std::fmt::Arguments<'_>) -> usize {
    struct Length(usize);
    impl std::fmt::Write for Length {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            self.0 += s.len();
            Ok(())
        }
    }
    let mut length = Length(0);
    // Writing to a counter cannot fail.
    let _ = std::fmt::write(&mut length, args);
    length.0
}

/// The `... +K more matches` row of a file the per-file cap cut.
pub(crate) fn more_row(more: usize) -> String {
    format!("... +{more} more matches")
}

/// Plain rows of one file's lines (in line order). With context rows, `--` between runs that
/// are not adjacent (as ripgrep prints it); without context every row is a match and needs
/// no separator (issue 21 item 3).
pub(crate) fn plain_rows(display: &str, lines: &[&HitLine], rows: &mut Vec<String>, clipped: &mut bool) {
    let with_context = lines.iter().any(|line| line.kind != HitKind::Match);
    let mut previous: Option<u32> = None;
    for line in lines {
        let number = line.line.get();
        if with_context && previous.is_some_and(|p| number > p + 1) {
            rows.push(GAP_ROW.to_owned());
        }
        previous = Some(number);
        let (row, cut) = row(display, line);
        *clipped |= cut;
        rows.push(row);
    }
}

/// The row between two runs of lines that are not adjacent.
pub(crate) const GAP_ROW: &str = "--";

/// One anchored row, `PATH:>>LINE:HASH|content` (`  ` for context), and whether its
/// content was clipped.
pub(crate) fn row(display: &str, line: &HitLine) -> (String, bool) {
    let mark = if line.kind == HitKind::Match { ">>" } else { "  " };
    let (content, cut) = clip_line(&display_line(&line.content));
    (format!("{display}:{mark}{}|{content}", line.anchor()), cut)
}

/// Rows that were counted for the budget notice but not kept (past the record cap).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Unshown {
    /// How many rows.
    pub rows: usize,
    /// Their bytes, a newline each included.
    pub bytes: usize,
}

/// The header, the rows, the notices and the budget of a non-summary result.
pub(crate) fn matches_text(
    admitted: &Admitted<'_>,
    rows: Vec<String>,
    unshown: Unshown,
    clipped: bool,
    limit_cut: bool,
) -> Rendered {
    let mut notices = Vec::new();
    if clipped {
        notices.push(format!("[Some lines truncated to {MAX_LINE_CHARS} chars. Use read tool to see full lines]"));
    }
    if limit_cut {
        // More matches than `limit` stop the search (in path order): how many is not known.
        notices.push(format!(
            "[Results truncated at {} matches; the search stopped there, so more exist but were not counted (summary: true counts every match) — refine pattern or increase limit]",
            admitted.total
        ));
    }
    let header = format!("[{} matches in {} files]", admitted.total, admitted.files.len());
    let mut rendered = finish(header, rows, unshown, &notices);
    rendered.display_truncated |= clipped;
    rendered
}

/// Summary mode: the header, then `PATH: K matches` per file, most matches first.
pub(crate) fn summary(found: &SearchOutcome) -> Rendered {
    let mut files: Vec<_> = found.files.iter().collect();
    files.sort_by(|a, b| b.match_count.cmp(&a.match_count).then_with(|| a.path.cmp(&b.path)));
    let rows = files.iter().map(|f| format!("{}: {} matches", f.path.to_string_lossy(), f.match_count)).collect();
    finish(format!("[{} matches in {} files]", found.total_matches, found.files.len()), rows, Unshown::default(), &[])
}

/// Joins the header and the rows that fit the budget (2000 lines / 50 KB, whole rows),
/// then the notices, each after a blank line. `unshown` rows come after `rows` and never
/// fit (they only count in the budget notice).
fn finish(header: String, rows: Vec<String>, unshown: Unshown, notices: &[String]) -> Rendered {
    let reserved: usize = notices.iter().map(|n| n.len() + 2).sum::<usize>() + 160;
    let budget = MAX_BYTES.saturating_sub(reserved);
    let mut text = header;
    let total_bytes: usize = text.len() + rows.iter().map(|r| r.len() + 1).sum::<usize>() + unshown.bytes;
    let total_lines = rows.len() + 1 + unshown.rows;
    let mut shown_lines = 1;
    for row in &rows {
        if shown_lines == MAX_LINES || text.len() + 1 + row.len() > budget {
            break;
        }
        text.push('\n');
        text.push_str(row);
        shown_lines += 1;
    }
    let cut = shown_lines < total_lines;
    for notice in notices {
        text.push_str("\n\n");
        text.push_str(notice);
    }
    if cut {
        text.push_str(&format!(
            "\n\n[Output truncated: showing {shown_lines} of {total_lines} lines ({} of {}). Refine pattern or increase limit.]",
            format_size(text_len_of(&text, notices)),
            format_size(total_bytes)
        ));
    }
    Rendered { text, display_truncated: cut }
}

/// The bytes of the rows shown (the text before the notices).
fn text_len_of(text: &str, notices: &[String]) -> usize {
    text.len() - notices.iter().map(|n| n.len() + 2).sum::<usize>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use hashline_core::hash::LineHash;
    use hashline_core::line_no::LineNo;

    fn line(number: u32, content: &[u8], kind: HitKind) -> HitLine {
        let line = LineNo::new(number).expect("line number");
        HitLine { line, hash: LineHash::of(content), content: content.to_vec(), kind }
    }

    /// Counting a file's rows past the budget gives the rows and bytes that making them
    /// gives: header, gaps, clipped long lines, escaped control and invalid bytes, wide
    /// characters, line numbers of every width, the `more` row.
    #[test]
    fn counted_rows_measure_what_made_rows_would() {
        let long = "é".repeat(MAX_LINE_CHARS + 3);
        let lines = [
            line(1, b"fn main() {", HitKind::Match),
            line(2, b"\tlet x = \x07;", HitKind::Context),
            line(9, long.as_bytes(), HitKind::Match),
            line(10, b"bad \xff byte", HitKind::Context),
            line(123_456, "日本語 needle".as_bytes(), HitKind::Match),
        ];
        for (lines, more) in [(&lines[..], 0), (&lines[..], 7), (&[&lines[0], &lines[4]].map(Clone::clone)[..], 12)] {
            let refs: Vec<&HitLine> = lines.iter().collect();
            for display in ["src/a.rs", "dir with space/ü.txt"] {
                let mut made = vec![format!("--- {display} (3 matches) ---")];
                let mut made_clipped = false;
                plain_rows(display, &refs, &mut made, &mut made_clipped);
                if more > 0 {
                    made.push(more_row(more));
                }
                let (mut unshown, mut clipped) = (Unshown::default(), false);
                count_file(display, 3, &refs, more, &mut unshown, &mut clipped);
                assert_eq!(unshown.rows, made.len(), "{display} {more}");
                assert_eq!(unshown.bytes, made.iter().map(|r| r.len() + 1).sum::<usize>(), "{display} {more}");
                assert_eq!(clipped, made_clipped);
            }
        }
    }
}
