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
    let (prefix, len) = prefix_bytes(line, hash);
    // Room for the row and the separator a caller appends next, reserved once.
    out.reserve(PREFIX_BUFFER + content.len() + 1);
    // The whole buffer is copied (a fixed-size copy, no call) and the unused tail dropped.
    let at = out.len();
    out.extend_from_slice(&prefix);
    out.truncate(at + len);
    push_display(out, content);
}

/// The prefix buffer: the longest row prefix (ten digits, `:`, three hex digits and `|`
/// are 15 bytes), rounded up to a 16-byte copy.
const PREFIX_BUFFER: usize = 16;

/// Two decimal digits for every value below 100.
const DIGIT_PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// `LINE:HASH|` at the start of a stack buffer, and its length.
fn prefix_bytes(line: LineNo, hash: LineHash) -> ([u8; PREFIX_BUFFER], usize) {
    let mut digits = [0u8; 10];
    let mut at = digits.len();
    let mut n = line.get();
    while n >= 100 {
        let pair = (n % 100) as usize * 2;
        n /= 100;
        at -= 2;
        digits[at..at + 2].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
    }
    if n >= 10 {
        let pair = n as usize * 2;
        at -= 2;
        digits[at..at + 2].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
    } else {
        at -= 1;
        digits[at] = b'0' + n as u8;
    }
    let count = digits.len() - at;
    let mut prefix = [0u8; PREFIX_BUFFER];
    prefix[..count].copy_from_slice(&digits[at..]);
    prefix[count] = b':';
    prefix[count + 1..count + 4].copy_from_slice(&hash.hex());
    prefix[count + 4] = b'|';
    (prefix, count + 5)
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
    crate::window::push_rows(&mut out, doc, first.index()..last.index() + 1);
    out.pop();
    into_text(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_of_every_width() {
        let hash = LineHash::of(b"x");
        for n in [1u32, 9, 10, 99, 100, 12_345, 999_999, 1_000_000_000, u32::MAX] {
            let line = LineNo::new(n).expect("not zero");
            let mut out = Vec::new();
            push_row(&mut out, line, hash, b"x");
            assert_eq!(into_text(out), format!("{n}:{hash}|x"));
        }
    }
}
