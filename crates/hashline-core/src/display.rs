//! Display escaping of line content: what a model is shown, never what is hashed.

use std::borrow::Cow;

/// True for the control characters a row shows as `\uXXXX`:
/// U+0000–U+0008, U+000B, U+000C and U+000E–U+001F. Tab is shown as is.
pub fn is_escaped_control(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}')
}

/// Decodes a line's bytes lossily (invalid UTF-8 becomes U+FFFD) for display.
pub fn decode_lossy(bytes: &[u8]) -> Cow<'_, str> {
    // Valid UTF-8 (nearly every line) is checked at the validator's speed, not chunk by chunk.
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// Escapes the control characters of [`is_escaped_control`] as `\uXXXX` (lowercase hex).
///
/// ```
/// use hashline_core::display::escape_controls;
/// assert_eq!(escape_controls("a\u{1}b\tc"), "a\\u0001b\tc");
/// ```
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_escaped_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    push_escaped(&mut out, text);
    Cow::Owned(out)
}

/// The display form of a line's raw bytes: lossy UTF-8 with controls escaped.
///
/// ```
/// use hashline_core::display::display_line;
/// assert_eq!(display_line(b"ok\x07"), "ok\\u0007");
/// assert_eq!(display_line(b"\xff"), "\u{fffd}");
/// ```
pub fn display_line(bytes: &[u8]) -> Cow<'_, str> {
    match decode_lossy(bytes) {
        Cow::Borrowed(text) => escape_controls(text),
        Cow::Owned(text) => Cow::Owned(escape_controls(&text).into_owned()),
    }
}

/// Whether `bytes` are ASCII without any control character that needs escaping (the
/// common case, checked 32 bytes at a time in a branch-free pass that the compiler turns
/// into vector compares). Such bytes display as themselves.
pub fn is_plain_ascii(bytes: &[u8]) -> bool {
    is_plain(bytes, |b| b != b'\t')
}

/// Where the first 32-byte chunk of `bytes` (lines with their terminators) that is not
/// plain starts: one holding a non-ASCII byte or a control byte that a row escapes
/// (`\t`, `\n` and `\r` are allowed). `None` when every byte is plain; the bytes before
/// the offset returned are all plain.
pub(crate) fn first_unplain_chunk(bytes: &[u8]) -> Option<usize> {
    let refused = |b: u8| (b != b'\t') & (b != b'\n') & (b != b'\r');
    let bad = move |b: u8| u8::from(((b as i8) < 0x20) & refused(b));
    let mut chunks = bytes.chunks_exact(32);
    for (i, chunk) in (&mut chunks).enumerate() {
        if chunk.iter().fold(0u8, |acc, &b| acc | bad(b)) != 0 {
            return Some(i * 32);
        }
    }
    let tail = chunks.remainder();
    (tail.iter().fold(0u8, |acc, &b| acc | bad(b)) != 0).then(|| bytes.len() - tail.len())
}

/// Whether `bytes` (lines with their terminators) are ASCII without a control byte
/// that a row escapes.
#[cfg(test)]
fn is_plain_with_terminators(bytes: &[u8]) -> bool {
    first_unplain_chunk(bytes).is_none()
}

/// Whether no byte of `bytes` is non-ASCII or a control byte for which `refused` holds.
/// As a signed byte, every non-ASCII byte and every control byte is below 0x20, so one
/// compare catches both.
#[inline(always)]
fn is_plain(bytes: &[u8], refused: impl Fn(u8) -> bool + Copy) -> bool {
    let bad = move |b: u8| u8::from(((b as i8) < 0x20) & refused(b));
    let mut chunks = bytes.chunks_exact(32);
    for chunk in &mut chunks {
        if chunk.iter().fold(0u8, |acc, &b| acc | bad(b)) != 0 {
            return false;
        }
    }
    chunks.remainder().iter().fold(0u8, |acc, &b| acc | bad(b)) == 0
}

/// Whether `bytes` hold a byte of a control character that a row escapes. In UTF-8 these
/// bytes never occur inside a multi-byte character, so the check needs no decoding.
fn has_escaped_control(bytes: &[u8]) -> bool {
    bytes.iter().fold(false, |acc, &b| acc | is_escaped_byte(b))
}

/// The byte of a control character of [`is_escaped_control`].
fn is_escaped_byte(b: u8) -> bool {
    b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r')
}

/// Appends the display form of `bytes` to `out`, written once: plain and valid UTF-8
/// text is copied as is; only text with a control character is escaped, and only invalid
/// UTF-8 is decoded lossily first.
pub fn push_display(out: &mut Vec<u8>, bytes: &[u8]) {
    if is_plain_ascii(bytes) {
        out.extend_from_slice(bytes);
        return;
    }
    match std::str::from_utf8(bytes) {
        Ok(_) if !has_escaped_control(bytes) => out.extend_from_slice(bytes),
        Ok(valid) => push_escaped_bytes(out, valid),
        Err(_) => push_escaped_bytes(out, &String::from_utf8_lossy(bytes)),
    }
}

/// Appends `text` with its controls escaped, copying the runs between them whole.
fn push_escaped_bytes(out: &mut Vec<u8>, text: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = text.as_bytes();
    out.reserve(bytes.len() + 8);
    let mut run = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if is_escaped_byte(b) {
            out.extend_from_slice(&bytes[run..i]);
            out.extend_from_slice(&[b'\\', b'u', b'0', b'0', HEX[usize::from(b >> 4)], HEX[usize::from(b & 0xf)]]);
            run = i + 1;
        }
    }
    out.extend_from_slice(&bytes[run..]);
}

fn push_escaped(out: &mut String, text: &str) {
    for c in text.chars() {
        if is_escaped_control(c) {
            out.push_str("\\u00");
            let v = c as u32;
            out.push(char::from(b"0123456789abcdef"[((v >> 4) & 0xf) as usize]));
            out.push(char::from(b"0123456789abcdef"[(v & 0xf) as usize]));
        } else {
            out.push(c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_exactly_the_listed_controls() {
        for c in (0u32..0x20).filter_map(char::from_u32) {
            let shown = escape_controls(&c.to_string()).into_owned();
            let expect_escape = !matches!(c, '\t' | '\n' | '\r');
            assert_eq!(shown.starts_with("\\u"), expect_escape, "{:?}", c);
        }
        assert_eq!(escape_controls("\u{1b}[0m"), "\\u001b[0m");
        assert_eq!(escape_controls("\u{7f}"), "\u{7f}");
    }

    #[test]
    fn plain_checks_refuse_exactly_non_ascii_and_escaped_controls() {
        for b in 0..=255u8 {
            let plain = b < 0x80 && !(b < 0x20 && b != b'\t');
            // Alone (the remainder path) and inside a 64-byte run (the 32-byte chunks).
            let mut run = [b'a'; 64];
            run[37] = b;
            assert_eq!(is_plain_ascii(&[b]), plain, "{b:#x}");
            assert_eq!(is_plain_ascii(&run), plain, "{b:#x}");
            let with_terminators = plain || b == b'\n' || b == b'\r';
            assert_eq!(is_plain_with_terminators(&[b]), with_terminators, "{b:#x}");
            assert_eq!(is_plain_with_terminators(&run), with_terminators, "{b:#x}");
            assert_eq!(first_unplain_chunk(&run), (!with_terminators).then_some(32), "{b:#x}");
            assert_eq!(first_unplain_chunk(&run[..40]), (!with_terminators).then_some(32), "{b:#x}");
        }
    }

    #[test]
    fn escaped_bytes_are_the_escaped_controls() {
        for b in 0u8..0x80 {
            assert_eq!(is_escaped_byte(b), is_escaped_control(char::from(b)), "{b:#x}");
        }
    }

    #[test]
    fn push_display_matches_display_line() {
        for input in [
            &b"plain"[..],
            b"tab\there",
            b"bell\x07",
            b"bad\xffutf",
            b"\x00\x1f",
            "caf\u{e9} \u{1f600}".as_bytes(),
            "\u{e9}\x1b[0m\u{e9}\x0b".as_bytes(),
            b"\xff\x01\xe2\x82",
            b"\r\n\x7f",
            b"",
        ] {
            let mut out = Vec::new();
            push_display(&mut out, input);
            assert_eq!(String::from_utf8(out).expect("utf8"), display_line(input));
        }
    }
}
