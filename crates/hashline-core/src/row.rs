//! Rows: the `LINE:HASH|content` text a model sees for each line.

use crate::display::push_display;
use crate::{Anchor, Document, LineHash, LineNo};

/// Appends one row, `LINE:HASH|content`, without a trailing newline, as UTF-8 bytes. The
/// content is the display form of the raw bytes (lossy UTF-8, controls escaped); the hash
/// is given. Everything appended is valid UTF-8, so a buffer of rows converts to a
/// `String` without loss ([`into_text`]).
///
/// ```
/// use hashline_core::{row::{into_text, push_row}, LineHash, LineNo};
/// let mut out = Vec::new();
/// push_row(&mut out, LineNo::new(2).unwrap(), LineHash::of(b"beta"), b"beta");
/// assert_eq!(into_text(out), "2:589|beta");
/// ```
pub fn push_row(out: &mut Vec<u8>, line: LineNo, hash: LineHash, content: &[u8]) {
    let mut digits = itoa::Buffer::new();
    out.extend_from_slice(digits.format(line.get()).as_bytes());
    out.push(b':');
    out.extend_from_slice(&hash.hex());
    out.push(b'|');
    push_display(out, content);
}

/// A buffer filled by [`push_row`] as a `String` (it is always valid UTF-8).
pub fn into_text(buffer: Vec<u8>) -> String {
    String::from_utf8(buffer).unwrap_or_else(|err| String::from_utf8_lossy(err.as_bytes()).into_owned())
}

/// The anchor prefix of a row, `LINE:HASH|`, as a string.
pub fn row_prefix(anchor: Anchor) -> String {
    format!("{anchor}|")
}

/// Renders the rows of lines `first..=last` (clamped to the document), joined by `\n`,
/// with no trailing newline.
///
/// ```
/// use hashline_core::{row::render_rows, Document, LineNo};
/// let doc = Document::parse(b"alpha\nbeta".to_vec());
/// assert_eq!(render_rows(&doc, LineNo::FIRST, LineNo::new(2).unwrap()), "1:3c8|alpha\n2:589|beta");
/// ```
pub fn render_rows(doc: &Document, first: LineNo, last: LineNo) -> String {
    let mut out = Vec::new();
    for line in doc.lines_in(first.index()..last.index() + 1) {
        if line.number != first {
            out.push(b'\n');
        }
        push_row(&mut out, line.number, line.hash(), line.content);
    }
    into_text(out)
}
