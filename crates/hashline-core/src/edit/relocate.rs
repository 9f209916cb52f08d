//! Verifying anchors against the document, with exact-hash relocation.

use crate::{Anchor, AnchorRef, Document, LineNo};

use super::{EditOptions, Resolution};

use super::error::{EditError, Mismatch};

/// The outcome of checking one anchor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Check {
    /// The hash matches at the stated line.
    Exact(LineNo),
    /// The hash matches exactly one line within the window, elsewhere.
    Relocated(LineNo),
    /// The caller knows the model was shown this line under the anchor's number; it
    /// has moved since.
    Reaimed(LineNo),
    /// No unique match.
    Stale,
    /// The model was shown several current lines under this anchor.
    Ambiguous(Vec<LineNo>),
}

impl Check {
    pub(crate) fn line(&self) -> Option<LineNo> {
        match self {
            Check::Exact(l) | Check::Relocated(l) | Check::Reaimed(l) => Some(*l),
            Check::Stale | Check::Ambiguous(_) => None,
        }
    }
}

/// Resolves a parsed anchor to a concrete one (bare hashes must be unique).
pub(crate) fn concrete(doc: &Document, edit: usize, anchor: &AnchorRef) -> Result<Anchor, EditError> {
    anchor.resolve(doc).map_err(|err| EditError::invalid_anchor(edit, err))
}

/// Checks `anchor` against `doc`: first by what the caller knows was shown, then by the
/// hash at the stated line, then by exact-hash relocation within `window` lines.
pub(crate) fn check(doc: &Document, anchor: Anchor, window: usize, options: &EditOptions<'_>) -> Check {
    let holds = |line: LineNo| doc.line(line).is_some_and(|l| l.hash() == anchor.hash);
    if let Some(resolve) = options.resolver {
        // The lines shown under the anchor that still hold its hash. A row shown as
        // `LINE:HASH` that moved away, while another line with that hash now sits at
        // `LINE`, gives the anchor two live meanings as well: the moved row, and the line
        // a model counting lines itself would mean. Two meanings are never guessed between.
        let live = |lines: Vec<LineNo>| {
            let mut live: Vec<LineNo> = lines.into_iter().filter(|l| holds(*l)).collect();
            if !live.is_empty() && !live.contains(&anchor.line) && holds(anchor.line) {
                live.push(anchor.line);
                live.sort_unstable();
            }
            live
        };
        let lines = match resolve(anchor) {
            Resolution::Known(line) => vec![line],
            Resolution::Ambiguous(lines) => lines,
            Resolution::Unknown => Vec::new(),
        };
        match live(lines).as_slice() {
            // No row shown under the anchor holds its hash: the file changed outside the
            // session (or the row was never shown). Judge by the file alone.
            [] => {}
            [one] if *one == anchor.line => return Check::Exact(*one),
            [one] => return Check::Reaimed(*one),
            several => return Check::Ambiguous(several.to_vec()),
        }
    }
    let relocate = !options.no_relocation;
    if holds(anchor.line) {
        return Check::Exact(anchor.line);
    }
    if !relocate {
        return Check::Stale;
    }
    let center = anchor.line.index();
    let low = center.saturating_sub(window);
    let high = center.saturating_add(window).min(doc.line_count().saturating_sub(1));
    let mut found = None;
    for line in doc.lines_in(low..high + 1) {
        if line.hash() == anchor.hash {
            if found.is_some() {
                return Check::Stale;
            }
            found = Some(line.number);
        }
    }
    found.map_or(Check::Stale, Check::Relocated)
}

/// The mismatch record for an anchor that failed: the line it names now (or, for a line
/// the caller knows moved, where it went).
pub(crate) fn mismatch(doc: &Document, edit: usize, expected: Anchor, check: &Check) -> Vec<Mismatch> {
    let at = |line: LineNo| doc.line(line).map(|l| Anchor::new(l.number, l.hash()));
    match check {
        Check::Ambiguous(lines) => lines.iter().map(|l| Mismatch { edit, expected, current: at(*l) }).collect(),
        _ => vec![Mismatch { edit, expected, current: at(expected.line) }],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LineHash;

    fn line(n: u32) -> LineNo {
        LineNo::new(n).expect("line")
    }

    fn check_with(doc: &[u8], anchor: Anchor, resolution: Resolution) -> Check {
        let doc = Document::parse(doc.to_vec());
        let resolve = move |_: Anchor| resolution.clone();
        let options = EditOptions { resolver: Some(&resolve), ..EditOptions::default() };
        check(&doc, anchor, 20, &options)
    }

    #[test]
    fn a_moved_row_is_followed_unless_a_look_alike_holds_its_number() {
        let blank = Anchor::new(line(2), LineHash::of(b""));
        // The row shown as 2: (blank) is at 4 now; line 2 is not blank: re-aimed.
        assert_eq!(check_with(b"a\nb\nc\n\n", blank, Resolution::Known(line(4))), Check::Reaimed(line(4)));
        // Line 2 is blank too: two live meanings.
        assert_eq!(
            check_with(b"a\n\nc\n\n", blank, Resolution::Known(line(4))),
            Check::Ambiguous(vec![line(2), line(4)])
        );
        // Of two rows shown so, one holds the hash; with a look-alike at 2 it is ambiguous.
        assert_eq!(
            check_with(b"a\n\nc\n\nx\n", blank, Resolution::Ambiguous(vec![line(4), line(5)])),
            Check::Ambiguous(vec![line(2), line(4)])
        );
        // The row still at its number: exact, whatever else.
        assert_eq!(check_with(b"a\n\n\n", blank, Resolution::Known(line(2))), Check::Exact(line(2)));
        // No shown row holds the hash: judged by the file alone.
        assert_eq!(check_with(b"a\n\nc\n", blank, Resolution::Known(line(3))), Check::Exact(line(2)));
    }
}
