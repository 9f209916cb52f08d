//! Display escaping of line content: what a model is shown, never what is hashed.

use std::borrow::Cow;

/// True for the control characters a row shows as `\uXXXX`:
/// U+0000–U+0008, U+000B, U+000C and U+000E–U+001F. Tab is shown as is.
pub fn is_escaped_control(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}')
}

/// Decodes a line's bytes lossily (invalid UTF-8 becomes U+FFFD) for display.
pub fn decode_lossy(bytes: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(bytes)
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
/// common case, checked in one branch-free pass that the compiler vectorizes). Such bytes
/// display as themselves.
pub fn is_plain_ascii(bytes: &[u8]) -> bool {
    let flags = bytes.iter().fold(0u8, |acc, &b| acc | u8::from(b >= 0x80) | u8::from(b < 0x20 && b != b'\t'));
    flags == 0
}

/// Appends the display form of `bytes` to `out` without intermediate allocation on the
/// common path (ASCII without control characters).
pub fn push_display(out: &mut Vec<u8>, bytes: &[u8]) {
    if is_plain_ascii(bytes) {
        out.extend_from_slice(bytes);
        return;
    }
    let mut text = String::new();
    match std::str::from_utf8(bytes) {
        Ok(valid) => push_escaped(&mut text, valid),
        Err(_) => push_escaped(&mut text, &String::from_utf8_lossy(bytes)),
    }
    out.extend_from_slice(text.as_bytes());
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
    fn push_display_matches_display_line() {
        for input in [&b"plain"[..], b"tab\there", b"bell\x07", b"bad\xffutf", b"\x00\x1f"] {
            let mut out = Vec::new();
            push_display(&mut out, input);
            assert_eq!(String::from_utf8(out).expect("utf8"), display_line(input));
        }
    }
}
