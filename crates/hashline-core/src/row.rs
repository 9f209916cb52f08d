//! Rows: the `LINE:HASH|content` text a model sees for each line.

use crate::display::push_display;
use crate::{Anchor, Document, LineHash, LineNo};

/// Appends one row, `LINE:HASH|content`, without a trailing newline. The content is the
/// display form of the raw bytes (lossy UTF-8, controls escaped); the hash is given.
///
/// ```
/// use hashline_core::{row::push_row, LineHash, LineNo};
/// let mut out = String::new();
/// push_row(&mut out, LineNo::new(2).unwrap(), LineHash::of(b"beta"), b"beta");
/// assert_eq!(out, "2:589|beta");
/// ```
pub fn push_row(out: &mut String, line: LineNo, hash: LineHash, content: &[u8]) {
    let mut digits = itoa::Buffer::new();
    out.push_str(digits.format(line.get()));
    out.push(':');
    for b in hash.hex() {
        out.push(char::from(b));
    }
    out.push('|');
    push_display(out, content);
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
    let mut out = String::new();
    for line in doc
        .lines()
        .skip(first.index())
        .take((last.get() + 1).saturating_sub(first.get()) as usize)
    {
        if line.number != first {
            out.push('\n');
        }
        push_row(&mut out, line.number, line.hash(), line.content);
    }
    out
}
