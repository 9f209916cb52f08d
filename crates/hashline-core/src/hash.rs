//! The line hash: xxHash32 (seed 0) of a line's bytes, reduced to 12 bits.

use std::fmt;

/// Number of distinct hash values (`000`..=`fff`).
pub const HASH_SPACE: u16 = 4096;

/// The 12-bit hash of one line, written as three lowercase hex digits.
///
/// The hash covers the line's bytes with one trailing `\r` removed; whitespace is
/// significant and the line number is not hashed, so equal lines have equal hashes.
///
/// ```
/// use hashline_core::LineHash;
/// assert_eq!(LineHash::of(b"alpha").to_string(), "3c8");
/// assert_eq!(LineHash::of(b"").to_string(), "d05");
/// assert_eq!(LineHash::of(b"beta\r"), LineHash::of(b"beta"));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LineHash(u16);

impl LineHash {
    /// Hashes one line's raw bytes (a single trailing `\r` is ignored).
    pub fn of(line: &[u8]) -> Self {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let full = xxhash_rust::xxh32::xxh32(line, 0);
        // The remainder of a division by 4096 always fits in 12 bits.
        Self((full % u32::from(HASH_SPACE)) as u16)
    }

    /// Builds a hash from its numeric value, if it is below [`HASH_SPACE`].
    pub fn from_value(value: u16) -> Option<Self> {
        (value < HASH_SPACE).then_some(Self(value))
    }

    /// Parses exactly three hex digits (either case).
    ///
    /// ```
    /// use hashline_core::LineHash;
    /// assert_eq!(LineHash::parse_hex("3C8"), Some(LineHash::of(b"alpha")));
    /// assert_eq!(LineHash::parse_hex("3c"), None);
    /// ```
    pub fn parse_hex(text: &str) -> Option<Self> {
        if text.len() != 3 || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        u16::from_str_radix(text, 16).ok().and_then(Self::from_value)
    }

    /// The numeric value, `0..4096`.
    pub fn value(self) -> u16 {
        self.0
    }

    /// The three lowercase hex digits as bytes.
    pub fn hex(self) -> [u8; 3] {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let v = usize::from(self.0);
        [DIGITS[(v >> 8) & 0xf], DIGITS[(v >> 4) & 0xf], DIGITS[v & 0xf]]
    }
}

impl fmt::Display for LineHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hex = self.hex();
        // The digits are ASCII by construction.
        f.write_str(std::str::from_utf8(&hex).map_err(|_| fmt::Error)?)
    }
}

impl fmt::Debug for LineHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LineHash({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_and_digest_vectors() {
        for (line, hex) in [
            ("", "d05"),
            ("a", "456"),
            ("b", "dbf"),
            ("alpha", "3c8"),
            ("beta", "589"),
            ("gamma", "56d"),
            ("}", "b18"),
            ("first", "d92"),
            ("line3", "b83"),
            ("const value = 1;", "d9e"),
            ("  const value = 1;", "ddf"),
            ("hello world", "622"),
            ("export function createDemoDirectory(): UserDirectory {", "8bd"),
        ] {
            assert_eq!(LineHash::of(line.as_bytes()).to_string(), hex, "{line:?}");
        }
    }

    #[test]
    fn raw_xxh32_sanity() {
        assert_eq!(xxhash_rust::xxh32::xxh32(b"", 0), 0x02CC_5D05);
        assert_eq!(xxhash_rust::xxh32::xxh32(b"abc", 0), 0x32D1_53FF);
    }

    #[test]
    fn one_trailing_cr_is_ignored_whitespace_is_not() {
        assert_eq!(LineHash::of(b"x\r"), LineHash::of(b"x"));
        assert_ne!(LineHash::of(b"x\r\r"), LineHash::of(b"x"));
        assert_ne!(LineHash::of(b" x"), LineHash::of(b"x"));
    }

    #[test]
    fn hex_round_trips_every_value() {
        for v in 0..HASH_SPACE {
            let h = LineHash::from_value(v).expect("in range");
            assert_eq!(LineHash::parse_hex(&h.to_string()), Some(h));
        }
        assert_eq!(LineHash::from_value(HASH_SPACE), None);
        assert_eq!(LineHash::parse_hex("+12"), None);
        assert_eq!(LineHash::parse_hex("ééé"), None);
    }
}
