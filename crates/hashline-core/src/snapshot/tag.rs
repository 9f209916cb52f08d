//! The snapshot tag: a short name for a file's exact bytes.

use std::fmt;

/// The one character every tag starts with. A line number is all digits and a line hash is
/// three hex digits, so a word starting with `s` is neither.
pub const TAG_PREFIX: char = 's';

/// How many characters follow the prefix.
pub const TAG_DIGITS: usize = 8;

/// Bits a tag keeps of the content hash: [`TAG_DIGITS`] digits of 5 bits each.
pub const TAG_BITS: u32 = 40;

/// The digit alphabet: Crockford's base 32 in lowercase (no `i`, `l`, `o`, `u`, which read
/// as `1`, `1`, `0` and `v`).
const ALPHABET: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";

/// The name of one snapshot of a file: the first [`TAG_BITS`] bits of the xxh3-64 hash of
/// the file's exact bytes (BOM, terminators and invalid UTF-8 included), written as
/// [`TAG_PREFIX`] and [`TAG_DIGITS`] base-32 digits, e.g. `s3k9xq2mf`.
///
/// Equal bytes always have equal tags; a tag names content, not a file or a time. The chance
/// that two of `k` different contents share a tag is about `k² / 2^41` (k = 1,000 versions:
/// 4.5 in 10 million); a store refuses to resolve a tag it has seen with two contents
/// ([`Miss::Collided`](super::Miss::Collided)), so a collision costs a fallback, never a
/// wrong line.
///
/// ```
/// use hashline_core::snapshot::SnapshotTag;
/// let tag = SnapshotTag::of(b"alpha\nbeta\n");
/// let text = tag.to_string();
/// assert_eq!(text.len(), 9);
/// assert!(text.starts_with('s'));
/// assert_eq!(text.parse::<SnapshotTag>(), Ok(tag));
/// assert_ne!(SnapshotTag::of(b"alpha\r\nbeta\r\n"), tag);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SnapshotTag(u64);

impl SnapshotTag {
    /// The tag of a file's exact bytes.
    pub fn of(bytes: &[u8]) -> Self {
        Self(xxhash_rust::xxh3::xxh3_64(bytes) >> (64 - TAG_BITS))
    }

    /// Whether `bytes` have this tag (what a store checks before it trusts an entry).
    pub fn matches(self, bytes: &[u8]) -> bool {
        Self::of(bytes) == self
    }

    /// The tag's numeric value, below `2^40`.
    pub fn value(self) -> u64 {
        self.0
    }

    /// A tag from its numeric value, if it is below `2^40`.
    pub fn from_value(value: u64) -> Option<Self> {
        (value >> TAG_BITS == 0).then_some(Self(value))
    }

    /// The tag as text: the prefix and the digits.
    fn chars(self) -> [u8; TAG_DIGITS + 1] {
        let mut out = [TAG_PREFIX as u8; TAG_DIGITS + 1];
        for (i, slot) in out[1..].iter_mut().enumerate() {
            let shift = 5 * (TAG_DIGITS - 1 - i);
            // Five bits index the 32-character alphabet.
            *slot = ALPHABET[((self.0 >> shift) & 0x1f) as usize];
        }
        out
    }
}

impl fmt::Display for SnapshotTag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let chars = self.chars();
        // The characters are ASCII by construction.
        f.write_str(std::str::from_utf8(&chars).map_err(|_| fmt::Error)?)
    }
}

impl fmt::Debug for SnapshotTag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SnapshotTag({self})")
    }
}

/// A string that is not a snapshot tag.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[error(
    "Invalid snapshot tag \"{input}\". Expected \"s\" and 8 characters of 0-9 and a-z without i, l, o, u (e.g. \"s3k9xq2mf\"), as shown with the rows."
)]
pub struct SnapshotTagError {
    /// The input, trimmed and shortened for the message.
    pub input: String,
}

impl SnapshotTagError {
    /// The stable error code.
    pub fn code(&self) -> &'static str {
        "invalid-snapshot"
    }
}

impl std::str::FromStr for SnapshotTag {
    type Err = SnapshotTagError;

    /// Parses a tag as shown, ignoring surrounding whitespace and case.
    fn from_str(input: &str) -> Result<Self, Self::Err> {
        let malformed = || SnapshotTagError { input: echo(input) };
        let text = input.trim();
        let digits = text.strip_prefix(['s', 'S']).ok_or_else(malformed)?;
        if digits.len() != TAG_DIGITS {
            return Err(malformed());
        }
        let mut value = 0u64;
        for byte in digits.bytes() {
            let lower = byte.to_ascii_lowercase();
            let digit = ALPHABET.iter().position(|&c| c == lower).ok_or_else(malformed)?;
            value = (value << 5) | digit as u64;
        }
        Ok(Self(value))
    }
}

/// How much of a malformed tag an error message echoes.
const ECHO_LIMIT: usize = 40;

fn echo(input: &str) -> String {
    let trimmed = input.trim();
    let shown = crate::display::escape_name(trimmed);
    match shown.char_indices().nth(ECHO_LIMIT) {
        Some((cut, _)) => format!("{}…", &shown[..cut]),
        None => shown.into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tag_is_the_top_forty_bits_of_xxh3_in_crockford_base32() {
        let full = xxhash_rust::xxh3::xxh3_64(b"");
        assert_eq!(SnapshotTag::of(b"").value(), full >> 24);
        assert_eq!(SnapshotTag::from_value(0).map(|t| t.to_string()), Some("s00000000".into()));
        assert_eq!(SnapshotTag::from_value((1 << 40) - 1).map(|t| t.to_string()), Some("szzzzzzzz".into()));
        assert_eq!(SnapshotTag::from_value(1 << 40), None);
        assert_eq!(SnapshotTag::from_value(31).map(|t| t.to_string()), Some("s0000000z".into()));
    }

    #[test]
    fn vectors() {
        // Pinned so that a change of hash, bit choice or alphabet is seen. xxh3-64 of "" is
        // 0x2d06800538d394c2 (the published vector); its top 40 bits in base 32 are 5m38019r.
        for (bytes, tag) in
            [(&b""[..], "s5m38019r"), (b"alpha\nbeta\n", "snm8kqa8k"), (b"alpha\r\nbeta\r\n", "s3391qh27")]
        {
            assert_eq!(SnapshotTag::of(bytes).to_string(), tag, "{bytes:?}");
        }
    }

    #[test]
    fn every_byte_counts() {
        let a = SnapshotTag::of(b"\xEF\xBB\xBFx\n");
        assert_ne!(a, SnapshotTag::of(b"x\n"));
        assert_ne!(SnapshotTag::of(b"x\n"), SnapshotTag::of(b"x"));
        assert!(a.matches(b"\xEF\xBB\xBFx\n"));
        assert!(!a.matches(b"x\n"));
    }

    #[test]
    fn parsing_is_forgiving_of_case_and_blanks_and_strict_about_the_rest() {
        let tag = SnapshotTag::of(b"alpha\n");
        let shown = tag.to_string();
        assert_eq!(format!("  {}\n", shown.to_uppercase()).parse(), Ok(tag));
        for bad in [
            "",
            "s",
            "s1234567",
            "s123456789",
            "x12345678",
            "12345678",
            "s1234567i",
            "s1234567-",
            "sé234567",
            "1:abc",
            "abc",
        ] {
            let err = bad.parse::<SnapshotTag>().expect_err(bad);
            assert_eq!(err.code(), "invalid-snapshot");
            assert!(err.to_string().contains("Expected \"s\" and 8 characters"), "{err}");
        }
        // A tag is never an anchor.
        for value in [0, 0xabc, (1 << 40) - 1] {
            let shown = SnapshotTag::from_value(value).expect("in range").to_string();
            assert!(crate::parse_anchor(&shown).is_err(), "{shown}");
        }
        let long = "s".repeat(500);
        assert!(long.parse::<SnapshotTag>().expect_err("long").to_string().len() < 250);
        let control = "s\u{1b}[31m".parse::<SnapshotTag>().expect_err("control").to_string();
        assert!(!control.contains('\u{1b}'), "{control}");
    }

    proptest::proptest! {
        #[test]
        fn display_and_parse_round_trip(value in 0u64..(1 << 40)) {
            let tag = SnapshotTag::from_value(value).expect("in range");
            proptest::prop_assert_eq!(tag.to_string().parse::<SnapshotTag>(), Ok(tag));
            proptest::prop_assert_eq!(tag.to_string().len(), 1 + TAG_DIGITS);
        }

        #[test]
        fn parsing_any_string_never_panics(input in "\\PC{0,20}|[sS][0-9a-zA-Z]{6,10}") {
            if let Ok(tag) = input.parse::<SnapshotTag>() {
                proptest::prop_assert_eq!(tag.to_string(), input.trim().to_lowercase());
            }
        }

        #[test]
        fn the_tag_of_any_bytes_parses_back(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..300)) {
            let tag = SnapshotTag::of(&bytes);
            proptest::prop_assert!(tag.matches(&bytes));
            proptest::prop_assert_eq!(tag.to_string().parse::<SnapshotTag>(), Ok(tag));
        }
    }
}
