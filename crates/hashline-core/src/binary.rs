//! Binary content detection.

/// How many leading bytes the binary sniff inspects.
pub const SNIFF_LEN: usize = 8192;

/// Whether bytes look like binary rather than text: a NUL byte in the first
/// [`SNIFF_LEN`] bytes, or more than 30% of them being control bytes other than
/// tab, newline, carriage return and form feed (the heuristic of git and ripgrep,
/// widened for files of escape sequences).
///
/// ```
/// use hashline_core::looks_binary;
/// assert!(looks_binary(b"PK\x03\x04\x00\x00"));
/// assert!(!looks_binary("héllo\r\n\tworld".as_bytes()));
/// ```
pub fn looks_binary(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(SNIFF_LEN)];
    if memchr::memchr(0, head).is_some() {
        return true;
    }
    let controls = head.iter().filter(|&&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0c)).count();
    !head.is_empty() && controls * 10 > head.len() * 3
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_with_a_few_escapes_is_text() {
        assert!(!looks_binary(b"\x1b[31mred\x1b[0m plain text around it"));
        assert!(!looks_binary(b""));
        assert!(looks_binary(&[1, 2, 3, 4, b'a']));
    }
}
