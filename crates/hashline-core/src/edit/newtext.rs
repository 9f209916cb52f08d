//! `new_text` → lines, and the cleanup of anchors a model echoed into it.

use crate::{Document, LineHash, LineNo};

/// Splits replacement text into lines: `\r\n`, `\r` and `\n` all end a line, one trailing
/// line ending is ignored, `""` is no lines (a deletion) and `"\n"` one empty line.
///
/// ```
/// use hashline_core::edit::split_new_text;
/// assert_eq!(split_new_text(""), Vec::<String>::new());
/// assert_eq!(split_new_text("\n"), vec![String::new()]);
/// assert_eq!(split_new_text("a\r\nb\n"), vec!["a".to_owned(), "b".to_owned()]);
/// assert_eq!(split_new_text("a\n\n"), vec!["a".to_owned(), String::new()]);
/// ```
pub fn split_new_text(text: &str) -> Vec<String> {
    if text.is_empty() {
        return Vec::new();
    }
    let normalized = text.replace("\r\n", "\n").replace('\r', "\n");
    let body = normalized.strip_suffix('\n').unwrap_or(&normalized);
    body.split('\n').map(str::to_owned).collect()
}

/// Removes prefixes a model copied from rows — `LINE:HASH|` (optionally after a `+`,
/// `>>>` or `>>` marker), or a bare `HASH|` on every non-empty line — but only when they
/// are this document's real anchors (the line exists and has that hash, or the hash is
/// one the document has). Look-alike text (`12:30|meeting`) stays. Returns the cleaned
/// lines and how many prefixes were removed.
pub fn strip_echoed_anchors(doc: &Document, lines: Vec<String>) -> (Vec<String>, usize) {
    strip_echoed_anchors_with(doc, lines, &|_| false)
}

/// [`strip_echoed_anchors`], also counting as real every anchor `shown` says the model
/// was shown (so a prefix copied from a view from before a line moved still counts).
pub fn strip_echoed_anchors_with(
    doc: &Document,
    lines: Vec<String>,
    shown: &dyn Fn(crate::Anchor) -> bool,
) -> (Vec<String>, usize) {
    let real_line_prefix = |line: &str| -> Option<usize> {
        let (marker_len, rest) = strip_marker(line);
        let colon = rest.find(':')?;
        let bar = colon + rest[colon..].find('|')?;
        let (number, hash) = (&rest[..colon], &rest[colon + 1..bar]);
        if number.is_empty()
            || !number.bytes().all(|b| b.is_ascii_digit())
            || hash.bytes().any(|b| b.is_ascii_uppercase())
        {
            return None;
        }
        let line_no = LineNo::new(number.parse().ok()?)?;
        let hash = LineHash::parse_hex(hash)?;
        let real = doc.line(line_no).is_some_and(|l| l.hash() == hash) || shown(crate::Anchor::new(line_no, hash));
        real.then_some(marker_len + bar + 1)
    };
    let mut stripped = 0;
    let mut out: Vec<String> = lines
        .into_iter()
        .map(|line| match real_line_prefix(&line) {
            Some(cut) => {
                stripped += 1;
                line[cut..].to_owned()
            }
            None => line,
        })
        .collect();
    if stripped > 0 {
        return (out, stripped);
    }
    let hash_prefix = |line: &str| -> Option<LineHash> {
        let (head, _) = line.split_at_checked(4)?;
        let hash = head.strip_suffix('|')?;
        if hash.bytes().any(|b| b.is_ascii_uppercase()) {
            return None;
        }
        LineHash::parse_hex(hash)
    };
    let non_empty: Vec<&String> = out.iter().filter(|l| !l.is_empty()).collect();
    let all_real = !non_empty.is_empty()
        && non_empty.iter().all(|l| hash_prefix(l).is_some_and(|h| doc.lines().any(|d| d.hash() == h)));
    if all_real {
        for line in out.iter_mut().filter(|l| !l.is_empty()) {
            line.replace_range(..4, "");
            stripped += 1;
        }
    }
    (out, stripped)
}

/// Splits a leading `+`, `>>>` or `>>` marker (and the spaces after it) off a line.
fn strip_marker(line: &str) -> (usize, &str) {
    for marker in [">>>", ">>", "+"] {
        if let Some(rest) = line.strip_prefix(marker) {
            let trimmed = rest.trim_start_matches(' ');
            return (line.len() - trimmed.len(), trimmed);
        }
    }
    (0, line)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc() -> Document {
        Document::parse(b"alpha\nbeta\n".to_vec())
    }

    fn lines(text: &[&str]) -> Vec<String> {
        text.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn real_line_anchors_are_stripped() {
        let (out, n) = strip_echoed_anchors(&doc(), lines(&["1:3c8|alpha one", "+2:589|beta two", "plain"]));
        assert_eq!((out, n), (lines(&["alpha one", "beta two", "plain"]), 2));
    }

    #[test]
    fn look_alikes_stay() {
        let input = lines(&["12:30|meeting", "1:abc|not this file's hash", "+ item", "3c9|x"]);
        assert_eq!(strip_echoed_anchors(&doc(), input.clone()), (input, 0));
    }

    #[test]
    fn bare_hashes_only_when_every_line_has_a_real_one() {
        let (out, n) = strip_echoed_anchors(&doc(), lines(&["3c8|x", "", "589|y"]));
        assert_eq!((out, n), (lines(&["x", "", "y"]), 2));
        let mixed = lines(&["3c8|x", "plain"]);
        assert_eq!(strip_echoed_anchors(&doc(), mixed.clone()), (mixed, 0));
    }
}
