//! The text of a grep result: the header, one section per file with `>>` match rows,
//! context rows, `--` gaps and `... +K more matches`, the notices, and the final budget.

use std::path::Path;

use hashline_core::display::display_line;
use hashline_search::{HitKind, SearchOutcome};

use super::admit::Admitted;
use crate::budget::{MAX_BYTES, MAX_LINES, format_size};

/// Longer lines are clipped for display (the anchor covers the whole line).
pub const MAX_LINE_CHARS: usize = 500;

const CLIPPED_SUFFIX: &str = "... [truncated]";

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
    for file in &admitted.files {
        let display = shown(&file.hits.path);
        rows.push(format!("--- {display} ({} matches) ---", file.admitted));
        let mut previous: Option<u32> = None;
        for line in &file.lines {
            let number = line.line.get();
            if previous.is_some_and(|p| number > p + 1) {
                rows.push("--".to_owned());
            }
            previous = Some(number);
            let mark = if line.kind == HitKind::Match { ">>" } else { "  " };
            let content = display_line(&line.content);
            let content = match content.char_indices().nth(MAX_LINE_CHARS) {
                Some((cut, _)) => {
                    clipped = true;
                    format!("{}{CLIPPED_SUFFIX}", &content[..cut])
                }
                None => content.into_owned(),
            };
            rows.push(format!("{display}:{mark}{}|{content}", line.anchor()));
        }
        if file.more > 0 {
            rows.push(format!("... +{} more matches", file.more));
        }
    }
    let mut notices = Vec::new();
    if clipped {
        notices.push(format!("[Some lines truncated to {MAX_LINE_CHARS} chars. Use read tool to see full lines]"));
    }
    if limit_cut {
        notices.push(format!("[Results truncated at {} matches — refine pattern or increase limit]", admitted.total));
    }
    let header = format!("[{} matches in {} files]", admitted.total, admitted.files.len());
    let mut rendered = finish(header, rows, &notices);
    rendered.display_truncated |= clipped;
    rendered
}

/// Summary mode: the header, then `PATH: K matches` per file, most matches first.
pub(crate) fn summary(found: &SearchOutcome) -> Rendered {
    let mut files: Vec<_> = found.files.iter().collect();
    files.sort_by(|a, b| b.match_count.cmp(&a.match_count).then_with(|| a.path.cmp(&b.path)));
    let rows = files.iter().map(|f| format!("{}: {} matches", f.path.to_string_lossy(), f.match_count)).collect();
    finish(format!("[{} matches in {} files]", found.total_matches, found.files.len()), rows, &[])
}

/// Joins the header and the rows that fit the budget (2000 lines / 50 KB, whole rows),
/// then the notices, each after a blank line.
fn finish(header: String, rows: Vec<String>, notices: &[String]) -> Rendered {
    let reserved: usize = notices.iter().map(|n| n.len() + 2).sum::<usize>() + 160;
    let budget = MAX_BYTES.saturating_sub(reserved);
    let mut text = header;
    let total_bytes: usize = text.len() + rows.iter().map(|r| r.len() + 1).sum::<usize>();
    let total_lines = rows.len() + 1;
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
