//! `replace`: exact text replacement (with an opt-in fuzzy fallback), turned into
//! splices over whole lines so terminators and untouched bytes stay as they were.

use memchr::memmem;

use crate::{Document, LineNo, Terminator};

use super::error::{EditError, REJECTED};
use super::feedback::marked_rows;
use super::plan::Splice;

/// How many match locations an `ambiguous-match` refusal lists.
const MAX_LISTED: usize = 10;

/// The warning of a fuzzy match.
pub const FUZZY_WARNING: &str = "replace used fuzzy matching because exact old_text was not found; re-read the file and prefer set_line/replace_lines/insert_after for hash-verified edits.";

/// The text `replace` searches: each line's content followed by `\n` when the line has a
/// terminator (whatever its style), so text that ends with the file's last line break
/// matches too. Remembers where each line starts and where its content ends.
struct Logical {
    bytes: Vec<u8>,
    starts: Vec<usize>,
    ends: Vec<usize>,
}

impl Logical {
    fn of(doc: &Document) -> Self {
        let mut bytes = Vec::with_capacity(doc.as_bytes().len());
        let mut starts = Vec::with_capacity(doc.line_count());
        let mut ends = Vec::with_capacity(doc.line_count());
        for line in doc.lines() {
            starts.push(bytes.len());
            bytes.extend_from_slice(line.content);
            ends.push(bytes.len());
            if line.terminator != Terminator::None {
                bytes.push(b'\n');
            }
        }
        Self { bytes, starts, ends }
    }

    /// The 0-based line holding byte `offset`.
    fn line_of(&self, offset: usize) -> usize {
        self.starts.partition_point(|&s| s <= offset).saturating_sub(1)
    }

    /// One past the last content byte of line `index` (its `\n` excluded).
    fn line_end(&self, index: usize) -> usize {
        self.ends.get(index).copied().unwrap_or(self.bytes.len())
    }
}

/// Finds `old_text` and plans its replacement. Errors: empty `old_text`
/// (`invalid-edit-variant`), no match (`text-not-found`), several matches without `all`
/// (`ambiguous-match`, listing where).
pub(crate) fn replace_splices(
    doc: &Document,
    edit: usize,
    old_text: &str,
    new_text: &str,
    all: bool,
    fuzzy: bool,
) -> Result<(Vec<Splice>, Vec<String>), EditError> {
    if old_text.is_empty() {
        return Err(EditError::variant(edit, "replace.old_text must not be empty."));
    }
    let logical = Logical::of(doc);
    let needle = normalize_newlines(old_text);
    let replacement = normalize_newlines(new_text);
    let mut warnings = Vec::new();
    let mut matches: Vec<(usize, usize)> =
        memmem::find_iter(&logical.bytes, needle.as_bytes()).map(|at| (at, at + needle.len())).collect();
    drop_overlapping(&mut matches);
    if matches.is_empty() && fuzzy {
        matches = fuzzy_matches(&logical.bytes, &needle);
        if !matches.is_empty() {
            warnings.push(FUZZY_WARNING.to_owned());
        }
    }
    if matches.is_empty() {
        return Err(EditError::new(
            "text-not-found",
            Some(edit),
            format!(
                "{REJECTED} edits[{edit}]: Could not find exact text to replace.\nRe-read the file and prefer set_line/replace_lines/insert_after for hash-verified edits. The replace variant is exact-only by default because fuzzy fallback is unverified."
            ),
        ));
    }
    if matches.len() > 1 && !all {
        let lines: Vec<LineNo> =
            matches.iter().take(MAX_LISTED).map(|(start, _)| LineNo::from_index(logical.line_of(*start))).collect();
        let (rows, shown) = marked_rows(doc, &lines, 0);
        let more = matches.len().saturating_sub(MAX_LISTED);
        let more = if more > 0 { format!("\n    ... and {more} more") } else { String::new() };
        let mut error = EditError::new(
            "ambiguous-match",
            Some(edit),
            format!(
                "{REJECTED} replace.old_text occurs {} times; edits[{edit}] must match exactly once. Matches start on:\n{rows}{more}\nAdd surrounding text to old_text to make it unique, set all: true to replace every occurrence, or use set_line/replace_lines with these anchors.",
                matches.len()
            ),
        );
        error.shown = shown;
        return Err(error);
    }
    Ok((group_into_splices(&logical, edit, &matches, replacement.as_bytes()), warnings))
}

/// `\r\n` and bare `\r` become `\n`: the document's own terminators are kept separately.
fn normalize_newlines(text: &str) -> String {
    text.replace("\r\n", "\n").replace('\r', "\n")
}

fn drop_overlapping(matches: &mut Vec<(usize, usize)>) {
    let mut end = 0;
    matches.retain(|&(start, stop)| {
        let keep = start >= end;
        if keep {
            end = stop;
        }
        keep
    });
}

/// Merges matches that share lines and rewrites each group of whole lines.
fn group_into_splices(logical: &Logical, edit: usize, matches: &[(usize, usize)], replacement: &[u8]) -> Vec<Splice> {
    let mut splices: Vec<Splice> = Vec::new();
    let mut group: Vec<(usize, usize)> = Vec::new();
    let mut group_lines = (0, 0);
    let flush = |group: &mut Vec<(usize, usize)>, lines: (usize, usize), splices: &mut Vec<Splice>| {
        if group.is_empty() {
            return;
        }
        let (first, last) = lines;
        // A match that took the file's last line break runs to the end of the text.
        let to_end = group.last().is_some_and(|&(_, stop)| stop > logical.line_end(last));
        let (from, to) = (logical.starts[first], if to_end { logical.bytes.len() } else { logical.line_end(last) });
        let mut text = Vec::with_capacity(to - from + replacement.len());
        let mut cursor = from;
        for &(start, stop) in group.iter() {
            text.extend_from_slice(&logical.bytes[cursor..start]);
            text.extend_from_slice(replacement);
            cursor = stop;
        }
        text.extend_from_slice(&logical.bytes[cursor..to]);
        let splice = if to_end {
            // The text now ends the file: with a line break if it ends with one, else
            // without; nothing at all deletes the lines.
            match text.strip_suffix(b"\n") {
                Some(body) => Splice::replacing(edit, first, last + 1, split_lines(body)),
                None if text.is_empty() => Splice::replacing(edit, first, last + 1, Vec::new()),
                None => Splice {
                    last_terminator: Some(Terminator::None),
                    ..Splice::replacing(edit, first, last + 1, split_lines(&text))
                },
            }
        } else {
            Splice::replacing(edit, first, last + 1, split_lines(&text))
        };
        splices.push(splice);
        group.clear();
    };
    for &(start, stop) in matches {
        let first = logical.line_of(start);
        // A match that ends with a line break runs into the next line.
        let last = if logical.bytes.get(stop.wrapping_sub(1)) == Some(&b'\n') && stop > start {
            logical.line_of(stop)
        } else {
            logical.line_of(stop.saturating_sub(1).max(start))
        };
        if !group.is_empty() && first <= group_lines.1 {
            group_lines.1 = group_lines.1.max(last);
        } else {
            flush(&mut group, group_lines, &mut splices);
            group_lines = (first, last);
        }
        group.push((start, stop));
    }
    flush(&mut group, group_lines, &mut splices);
    splices
}

/// `text` split at `\n` into line contents.
fn split_lines(text: &[u8]) -> Vec<Vec<u8>> {
    text.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect()
}

/// Fuzzy matching: both sides normalized (trailing whitespace per line, quote and dash
/// styles, Unicode spaces), matched, then mapped back to original byte spans.
fn fuzzy_matches(haystack: &[u8], needle: &str) -> Vec<(usize, usize)> {
    let Ok(text) = std::str::from_utf8(haystack) else {
        return Vec::new();
    };
    let (normal, spans) = normalize_fuzzy(text);
    let (needle, _) = normalize_fuzzy(needle);
    if needle.is_empty() {
        return Vec::new();
    }
    let mut found: Vec<(usize, usize)> = memmem::find_iter(normal.as_bytes(), needle.as_bytes())
        .map(|at| (spans[at].0, spans[at + needle.len() - 1].1))
        .collect();
    drop_overlapping(&mut found);
    found
}

/// The normalized text and, per normalized byte, the original byte span it came from.
fn normalize_fuzzy(text: &str) -> (String, Vec<(usize, usize)>) {
    let mut out = String::with_capacity(text.len());
    let mut spans = Vec::with_capacity(text.len());
    let mut offset = 0;
    for (n, line) in text.split('\n').enumerate() {
        if n > 0 {
            out.push('\n');
            spans.push((offset - 1, offset));
        }
        let kept = line.trim_end_matches([' ', '\t', '\u{a0}']);
        for (at, c) in kept.char_indices() {
            let mapped = fold_char(c);
            let mut buf = [0u8; 4];
            for _ in mapped.encode_utf8(&mut buf).bytes() {
                spans.push((offset + at, offset + at + c.len_utf8()));
            }
            out.push(mapped);
        }
        offset += line.len() + 1;
    }
    (out, spans)
}

/// Quote, dash and space styles folded to ASCII.
fn fold_char(c: char) -> char {
    match c {
        '\u{2018}' | '\u{2019}' | '\u{201a}' | '\u{201b}' => '\'',
        '\u{201c}' | '\u{201d}' | '\u{201e}' | '\u{201f}' => '"',
        '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
        '\u{a0}' | '\u{2002}'..='\u{200a}' | '\u{202f}' | '\u{205f}' | '\u{3000}' => ' ',
        other => other,
    }
}
