//! Display escaping of text from outside (line content, file names, journal entry names,
//! symbol names): what a model or a terminal is shown, never what is hashed.
//!
//! One rule for all of it ([`is_escaped_control`]): every character a terminal acts on or
//! that could start a new line — C0 controls, DEL, C1 controls, the line and paragraph
//! separators and the bidirectional controls — is shown as `\uXXXX` (four lowercase hex
//! digits). Rows keep tab as is ([`escape_controls`]); names show tab escaped too
//! ([`escape_name`]), so that no name can make a line that looks like a row or a hashline
//! message, and no control from the tree reaches a terminal.

use std::borrow::Cow;

/// True for the characters a row shows as `\uXXXX`: C0 controls but tab (U+0000–U+0008,
/// U+000A–U+001F), DEL (U+007F), C1 controls (U+0080–U+009F), the line and paragraph
/// separators (U+2028, U+2029) and the bidirectional controls (U+061C, U+200E, U+200F,
/// U+202A–U+202E, U+2066–U+2069). Tab is shown as is in rows; [`escape_name`] escapes it too.
pub fn is_escaped_control(c: char) -> bool {
    matches!(
        c,
        '\u{0}'..='\u{8}'
            | '\u{a}'..='\u{1f}'
            | '\u{7f}'..='\u{9f}'
            | '\u{61c}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}'
    )
}

/// Escapes a name or any other single-line text from outside (a path, a file name, a
/// journal entry name, a symbol name, a pattern) for a text a model or a terminal reads:
/// every character of [`is_escaped_control`] and tab as `\uXXXX`.
///
/// ```
/// use hashline_core::display::escape_name;
/// assert_eq!(escape_name("a\nb\tc\u{1b}]0;x\u{7}"), "a\\u000ab\\u0009c\\u001b]0;x\\u0007");
/// assert_eq!(escape_name("\u{202e}txt.rs"), "\\u202etxt.rs");
/// assert_eq!(escape_name("src/main.rs"), "src/main.rs");
/// ```
pub fn escape_name(text: &str) -> Cow<'_, str> {
    let escaped = |c: char| c == '\t' || is_escaped_control(c);
    if !text.chars().any(escaped) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    push_escaped(&mut out, text, escaped);
    Cow::Owned(out)
}

/// Decodes a line's bytes lossily (invalid UTF-8 becomes U+FFFD) for display.
pub fn decode_lossy(bytes: &[u8]) -> Cow<'_, str> {
    // Valid UTF-8 (nearly every line) is checked at the validator's speed, not chunk by chunk.
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// Escapes the characters of [`is_escaped_control`] as `\uXXXX` (lowercase hex), keeping
/// tab: the display form of a row's content.
///
/// ```
/// use hashline_core::display::escape_controls;
/// assert_eq!(escape_controls("a\u{1}b\tc\u{7f}\u{9b}\u{202e}"), "a\\u0001b\tc\\u007f\\u009b\\u202e");
/// ```
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_escaped_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    push_escaped(&mut out, text, is_escaped_control);
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

/// Whether `bytes` are ASCII without any character that a row escapes (the common case,
/// checked 32 bytes at a time in a branch-free pass that the compiler turns into vector
/// compares). Such bytes display as themselves.
pub fn is_plain_ascii(bytes: &[u8]) -> bool {
    is_plain(bytes, |b| b != b'\t')
}

/// Where the first 32-byte chunk of `bytes` (lines with their terminators) that is not
/// plain starts: one holding a non-ASCII byte, DEL or a control byte that a row escapes
/// (`\t`, `\n` and `\r` are allowed). `None` when every byte is plain; the bytes before
/// the offset returned are all plain.
pub(crate) fn first_unplain_chunk(bytes: &[u8]) -> Option<usize> {
    let refused = |b: u8| (b != b'\t') & (b != b'\n') & (b != b'\r');
    let mut chunks = bytes.chunks_exact(32);
    for (i, chunk) in (&mut chunks).enumerate() {
        if chunk.iter().fold(0u8, |acc, &b| acc | unplain(b, refused)) != 0 {
            return Some(i * 32);
        }
    }
    let tail = chunks.remainder();
    (tail.iter().fold(0u8, |acc, &b| acc | unplain(b, refused)) != 0).then(|| bytes.len() - tail.len())
}

/// Whether `bytes` (lines with their terminators) are ASCII without a control byte
/// that a row escapes.
#[cfg(test)]
fn is_plain_with_terminators(bytes: &[u8]) -> bool {
    first_unplain_chunk(bytes).is_none()
}

/// 1 when `b` is not plain: non-ASCII, DEL, or a control byte for which `refused` holds.
/// As a signed byte, every non-ASCII byte and every control byte is below 0x20, so one
/// compare catches both; DEL is the one other byte to look at.
#[inline(always)]
fn unplain(b: u8, refused: impl Fn(u8) -> bool) -> u8 {
    u8::from((((b as i8) < 0x20) & refused(b)) | (b == 0x7f))
}

/// Whether no byte of `bytes` is non-ASCII, DEL or a control byte for which `refused` holds.
#[inline(always)]
fn is_plain(bytes: &[u8], refused: impl Fn(u8) -> bool + Copy) -> bool {
    let mut chunks = bytes.chunks_exact(32);
    for chunk in &mut chunks {
        if chunk.iter().fold(0u8, |acc, &b| acc | unplain(b, refused)) != 0 {
            return false;
        }
    }
    chunks.remainder().iter().fold(0u8, |acc, &b| acc | unplain(b, refused)) == 0
}

/// Appends the display form of `bytes` to `out`, written once: plain and valid UTF-8
/// text is copied as is; only text with a character to escape is escaped, and only invalid
/// UTF-8 is decoded lossily first.
pub fn push_display(out: &mut Vec<u8>, bytes: &[u8]) {
    if is_plain_ascii(bytes) {
        out.extend_from_slice(bytes);
        return;
    }
    match std::str::from_utf8(bytes) {
        Ok(valid) => push_escaped_bytes(out, valid),
        Err(_) => push_escaped_bytes(out, &String::from_utf8_lossy(bytes)),
    }
}

/// Appends `text` with the characters of [`is_escaped_control`] escaped, copying the runs
/// between them whole.
fn push_escaped_bytes(out: &mut Vec<u8>, text: &str) {
    out.reserve(text.len() + 8);
    let mut run = 0;
    for (i, c) in text.char_indices() {
        if is_escaped_control(c) {
            out.extend_from_slice(&text.as_bytes()[run..i]);
            out.extend_from_slice(&escape_sequence(c));
            run = i + c.len_utf8();
        }
    }
    out.extend_from_slice(&text.as_bytes()[run..]);
}

/// `\uXXXX` for a character of the Basic Multilingual Plane (every escaped one is).
fn escape_sequence(c: char) -> [u8; 6] {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let v = c as u32;
    let hex = |shift: u32| HEX[((v >> shift) & 0xf) as usize];
    [b'\\', b'u', hex(12), hex(8), hex(4), hex(0)]
}

fn push_escaped(out: &mut String, text: &str, escaped: impl Fn(char) -> bool) {
    for c in text.chars() {
        if escaped(c) {
            out.extend(escape_sequence(c).map(char::from));
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
            assert_eq!(shown.starts_with("\\u"), c != '\t', "{:?}", c);
        }
        assert_eq!(escape_controls("\u{1b}[0m"), "\\u001b[0m");
        assert_eq!(escape_controls("\u{7f}\u{80}\u{9f}\u{a0}"), "\\u007f\\u0080\\u009f\u{a0}");
        assert_eq!(escape_controls("\u{2028}\u{2066}\u{2069}\u{206a}\u{61c}"), "\\u2028\\u2066\\u2069\u{206a}\\u061c");
    }

    #[test]
    fn plain_checks_refuse_exactly_non_ascii_and_escaped_controls() {
        for b in 0..=255u8 {
            let plain = b < 0x7f && !(b < 0x20 && b != b'\t');
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
    fn names_escape_tab_and_newlines_too() {
        assert_eq!(escape_name("x\n>>1:d8b|row\tz"), "x\\u000a>>1:d8b|row\\u0009z");
        assert_eq!(escape_name("\u{9b}2J"), "\\u009b2J");
        assert!(matches!(escape_name("plain/é.rs"), Cow::Borrowed(_)));
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
            "\u{9b}2J \u{202e}gnp.rs \u{2028}".as_bytes(),
            b"del\x7f",
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
