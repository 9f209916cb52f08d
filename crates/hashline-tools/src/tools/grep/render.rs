//! The text of a grep result: the header, one section per file with `>>` match rows,
//! context rows, `--` gaps and `... +K more matches`, the notices, and the final budget.

use std::path::Path;

use hashline_core::display::{display_line, escape_name};
use hashline_search::{HitKind, HitLine, SearchOutcome};

use super::admit::Admitted;
use crate::budget::{Budget, format_size};

/// Longer lines are clipped for display (the anchor covers the whole line).
pub const MAX_LINE_CHARS: usize = 500;

const CLIPPED_SUFFIX: &str = "... [truncated]";

/// A row's text cut at [`MAX_LINE_CHARS`] characters (with `... [truncated]`), and whether
/// it was cut.
pub(crate) fn clip_line(content: &str) -> (String, bool) {
    match clip_at(content) {
        Some(cut) => (format!("{}{CLIPPED_SUFFIX}", &content[..cut]), true),
        None => (content.to_owned(), false),
    }
}

/// Where a row's content is cut at [`MAX_LINE_CHARS`] characters, if it is.
fn clip_at(content: &str) -> Option<usize> {
    hashline_search::Measured::cut(content, MAX_LINE_CHARS)
}

/// A rendered result.
#[derive(Debug)]
pub(crate) struct Rendered {
    /// What the model sees.
    pub text: String,
    /// The budget cut rows, or long lines were clipped.
    pub display_truncated: bool,
    /// How many rows the text shows after its header line.
    pub shown_rows: usize,
}

/// Sections of anchored rows. `limit_cut` adds the "results truncated" notice.
pub(crate) fn sections(
    admitted: &Admitted<'_>,
    shown: impl Fn(&Path) -> String,
    tags: &std::collections::HashMap<&Path, hashline_core::snapshot::SnapshotTag>,
    limit_cut: bool,
    budget: Budget,
) -> Rendered {
    let mut rows = Vec::new();
    let mut clipped = false;
    // Rows past the line budget can never show: only their count and bytes are kept.
    let mut unshown = Unshown::default();
    let mut file_rows = Vec::new();
    for file in &admitted.files {
        let display = shown(&file.hits.path);
        if rows.len() >= budget.lines {
            // Past the budget (an unbounded search: ~100k rows) the rows are measured, not
            // made: the same lengths, no string each.
            count_file(&display, file.admitted, &file.lines, file.more, &mut unshown, &mut clipped);
            continue;
        }
        file_rows.push(file_header(&display, file.admitted, tags.get(file.hits.path.as_path()).copied()));
        plain_rows(&display, &file.lines, &mut file_rows, &mut clipped);
        if file.more > 0 {
            file_rows.push(more_row(file.more));
        }
        for row in file_rows.drain(..) {
            if rows.len() < budget.lines {
                rows.push(row);
            } else {
                unshown.rows += 1;
                unshown.bytes += row.len() + 1;
            }
        }
    }
    matches_text(admitted, rows, unshown, clipped, limit_cut, budget)
}

/// Counts the rows of one file that cannot show (the rows [`sections`] would make: its
/// header, [`plain_rows`], the `more` row) in `unshown`, without making the line rows.
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
    count(file_header(display, admitted, None).len());
    each_row(lines, |row| match row {
        Row::Gap => count(GAP_ROW.len()),
        Row::Line(line) => {
            // As `write_row` writes it, from how the line displays (all a search keeps of
            // the lines of files past the budget, `SearchOptions::measure_after`).
            let measured = line.measure(MAX_LINE_CHARS);
            let mut length = Length(0);
            // `>>` or `  `: both marks are two bytes.
            let _ = std::fmt::Write::write_fmt(&mut length, format_args!("{display}:>>{}|", line.anchor()));
            let suffix = if measured.clipped { CLIPPED_SUFFIX.len() } else { 0 };
            *clipped |= measured.clipped;
            count(length.0 + measured.bytes as usize + suffix);
        }
    });
    if more > 0 {
        count(more_row(more).len());
    }
}

/// Counts the bytes written to it.
struct Length(usize);

impl std::fmt::Write for Length {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0 += s.len();
        Ok(())
    }
}

/// A file's section header.
fn file_header(display: &str, admitted: usize, tag: Option<hashline_core::snapshot::SnapshotTag>) -> String {
    match tag {
        Some(tag) => format!("--- {display} ({admitted} matches; snapshot: {tag}) ---"),
        None => format!("--- {display} ({admitted} matches) ---"),
    }
}

/// The `... +K more matches` row of a file the per-file cap cut.
pub(crate) fn more_row(more: usize) -> String {
    format!("... +{more} more matches")
}

/// Plain rows of one file's lines (in line order). With context rows, `--` between runs that
/// are not adjacent (as ripgrep prints it); without context every row is a match and needs
/// no separator (issue 21 item 3).
pub(crate) fn plain_rows(display: &str, lines: &[&HitLine], rows: &mut Vec<String>, clipped: &mut bool) {
    each_row(lines, |row| match row {
        Row::Gap => rows.push(GAP_ROW.to_owned()),
        Row::Line(line) => {
            let (row, cut) = self::row(display, line);
            *clipped |= cut;
            rows.push(row);
        }
    });
}

/// A row of a file's section: a line, or the gap between two runs.
enum Row<'a> {
    Gap,
    Line(&'a HitLine),
}

/// The rows of one file's lines in order: with context rows, a gap between runs that are
/// not adjacent (as ripgrep prints it); without context every row is a match and needs no
/// separator (issue 21 item 3).
fn each_row<'a>(lines: &[&'a HitLine], mut row: impl FnMut(Row<'a>)) {
    let with_context = lines.iter().any(|line| line.kind != HitKind::Match);
    let mut previous: Option<u32> = None;
    for line in lines {
        let number = line.line.get();
        if with_context && previous.is_some_and(|p| number > p + 1) {
            row(Row::Gap);
        }
        previous = Some(number);
        row(Row::Line(line));
    }
}

/// The row between two runs of lines that are not adjacent.
pub(crate) const GAP_ROW: &str = "--";

/// One anchored row, `PATH:>>LINE:HASH|content` (`  ` for context), and whether its
/// content was clipped.
pub(crate) fn row(display: &str, line: &HitLine) -> (String, bool) {
    let mut text = String::new();
    let cut = write_row(&mut text, display, line);
    (text, cut)
}

/// Writes one anchored row (made by [`row`], measured past the budget); whether its content
/// was clipped.
fn write_row(out: &mut impl std::fmt::Write, display: &str, line: &HitLine) -> bool {
    debug_assert!(line.measured.is_none(), "a row is made of a line whose bytes were not kept");
    let mark = if line.kind == HitKind::Match { ">>" } else { "  " };
    let content = display_line(&line.content);
    let cut = clip_at(&content);
    let shown = cut.map_or(&content[..], |at| &content[..at]);
    let suffix = if cut.is_some() { CLIPPED_SUFFIX } else { "" };
    // Writing to a String or a counter cannot fail.
    let _ = write!(out, "{display}:{mark}{}|{shown}{suffix}", line.anchor());
    cut.is_some()
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
    budget: Budget,
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
    let mut rendered = finish(header, rows, unshown, &notices, budget);
    rendered.display_truncated |= clipped;
    rendered
}

/// Summary mode: the header, then `PATH: K matches` per file, most matches first.
pub(crate) fn summary(found: &SearchOutcome, budget: Budget) -> Rendered {
    let mut files: Vec<_> = found.files.iter().collect();
    files.sort_by(|a, b| b.match_count.cmp(&a.match_count).then_with(|| a.path.cmp(&b.path)));
    let rows = files
        .iter()
        .map(|f| format!("{}: {} matches", escape_name(&f.path.to_string_lossy()), f.match_count))
        .collect();
    finish(
        format!("[{} matches in {} files]", found.total_matches, found.files.len()),
        rows,
        Unshown::default(),
        &[],
        budget,
    )
}

/// Joins the header and the rows that fit the budget (by default 2000 lines / 50 KB, whole rows),
/// then the notices, each after a blank line. `unshown` rows come after `rows` and never
/// fit (they only count in the budget notice).
fn finish(header: String, rows: Vec<String>, unshown: Unshown, notices: &[String], budget: Budget) -> Rendered {
    let reserved: usize = notices.iter().map(|n| n.len() + 2).sum::<usize>() + 160 + budget.named().len();
    let bytes = budget.bytes.saturating_sub(reserved);
    let mut text = header;
    let total_bytes: usize = text.len() + rows.iter().map(|r| r.len() + 1).sum::<usize>() + unshown.bytes;
    let total_lines = rows.len() + 1 + unshown.rows;
    let mut shown_lines = 1;
    for row in &rows {
        if shown_lines == budget.lines || text.len() + 1 + row.len() > bytes {
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
            "\n\n[Output truncated{}: showing {shown_lines} of {total_lines} lines ({} of {}). Refine pattern or increase limit.]",
            budget.named(),
            format_size(text_len_of(&text, notices)),
            format_size(total_bytes)
        ));
    }
    Rendered { text, display_truncated: cut, shown_rows: shown_lines - 1 }
}

/// How many of each admitted file's lines the first `rows` rows of [`sections`] show, by
/// file: the rows of a file are its header, its lines with the gaps between their runs, and
/// its `more` row, and the text shows a prefix of them.
pub(crate) fn lines_shown(admitted: &Admitted<'_>, rows: usize) -> Vec<usize> {
    let mut left = rows;
    let mut take = || {
        let fits = left > 0;
        left = left.saturating_sub(1);
        fits
    };
    admitted
        .files
        .iter()
        .map(|file| {
            if !take() {
                return 0;
            }
            let mut shown = 0;
            each_row(&file.lines, |row| {
                if take() && matches!(row, Row::Line(_)) {
                    shown += 1;
                }
            });
            if file.more > 0 {
                take();
            }
            shown
        })
        .collect()
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
        HitLine { line, hash: LineHash::of(content), content: content.to_vec(), kind, measured: None }
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
                // Counted from the lines' bytes, and from their measures alone.
                let mut measured = hashline_search::FileHits {
                    path: "f".into(),
                    match_count: 3,
                    lines: lines.to_vec(),
                    bare_cr: false,
                    identity: None,
                };
                measured.keep_measures_only(MAX_LINE_CHARS);
                assert!(measured.lines.iter().all(|l| l.content.is_empty()));
                for refs in [refs.clone(), measured.lines.iter().collect()] {
                    let (mut unshown, mut clipped) = (Unshown::default(), false);
                    count_file(display, 3, &refs, more, &mut unshown, &mut clipped);
                    assert_eq!(unshown.rows, made.len(), "{display} {more}");
                    assert_eq!(unshown.bytes, made.iter().map(|r| r.len() + 1).sum::<usize>(), "{display} {more}");
                    assert_eq!(clipped, made_clipped);
                }
            }
        }
    }

    /// [`lines_shown`] counts, for every prefix of the rows, the line rows of each file that
    /// [`sections`] makes in that prefix: headers, gaps between runs of context, `more` rows.
    #[test]
    fn lines_shown_counts_the_line_rows_of_every_prefix() {
        use super::super::admit::AdmittedFile;
        use hashline_search::FileHits;
        let hits =
            |lines: Vec<HitLine>| FileHits { path: "f".into(), match_count: 20, lines, bare_cr: false, identity: None };
        let files = [
            // Two runs of context: a gap between them.
            hits(vec![
                line(1, b"a", HitKind::Context),
                line(2, b"needle", HitKind::Match),
                line(7, b"needle", HitKind::Match),
                line(8, b"b", HitKind::Context),
            ]),
            // Matches only: no gaps.
            hits(vec![line(3, b"needle", HitKind::Match), line(9, b"needle", HitKind::Match)]),
            hits(vec![line(5, b"needle", HitKind::Match)]),
        ];
        let admitted = Admitted {
            files: files
                .iter()
                .zip([0, 4, 0])
                .map(|(hits, more)| AdmittedFile { hits, lines: hits.lines.iter().collect(), admitted: 2, more })
                .collect(),
            total: 20,
        };
        // The rows as `sections` makes them, each with the file of the line it shows.
        let mut made: Vec<Option<usize>> = Vec::new();
        for (index, file) in admitted.files.iter().enumerate() {
            made.push(None);
            let mut rows = Vec::new();
            plain_rows("f", &file.lines, &mut rows, &mut false);
            made.extend(rows.iter().map(|row| (row != GAP_ROW).then_some(index)));
            if file.more > 0 {
                made.push(None);
            }
        }
        assert_eq!(made.len(), 1 + 5 + 1 + 2 + 1 + 1 + 1);
        for rows in 0..=made.len() + 2 {
            let expected: Vec<usize> = (0..admitted.files.len())
                .map(|file| made.iter().take(rows).filter(|&&row| row == Some(file)).count())
                .collect();
            assert_eq!(lines_shown(&admitted, rows), expected, "{rows} rows");
        }
    }
}
