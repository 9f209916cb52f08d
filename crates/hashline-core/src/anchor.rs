//! Anchors (`LINE:HASH`) and the forgiving parser for what models paste.

use std::fmt;

use crate::{Document, LineHash, LineNo};

/// How many candidates a refused bare-hash anchor lists.
pub const MAX_HASH_CANDIDATES: usize = 5;

/// How much of a malformed input an error message echoes.
const ECHO_LIMIT: usize = 80;

/// A line anchor: a 1-based line number and the hash of the line shown there.
///
/// ```
/// use hashline_core::{Anchor, LineHash, LineNo};
/// let a = Anchor::new(LineNo::new(2).unwrap(), LineHash::of(b"beta"));
/// assert_eq!(a.to_string(), "2:589");
/// assert_eq!("2:589".parse::<Anchor>(), Ok(a));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Anchor {
    /// The 1-based line number.
    pub line: LineNo,
    /// The hash of the line's content as it was shown.
    pub hash: LineHash,
}

impl Anchor {
    /// An anchor from its parts.
    pub fn new(line: LineNo, hash: LineHash) -> Self {
        Self { line, hash }
    }
}

impl fmt::Display for Anchor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.hash)
    }
}

impl std::str::FromStr for Anchor {
    type Err = AnchorError;

    /// Parses with [`parse_anchor`] and requires a line number (a bare hash is refused).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match parse_anchor(s)? {
            AnchorRef::Line { anchor, .. } => Ok(anchor),
            AnchorRef::Hash { .. } => Err(AnchorError::Malformed { input: echo(s) }),
        }
    }
}

/// What an anchor string names, before it is checked against a document.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum AnchorRef {
    /// `LINE:HASH`, optionally followed by `|content` as pasted from a row.
    Line {
        /// The anchor.
        anchor: Anchor,
        /// The pasted content after `|`, if any.
        content: Option<String>,
    },
    /// A bare `HASH` (or `HASH|content`): names the unique line with that hash.
    Hash {
        /// The hash.
        hash: LineHash,
        /// The pasted content after `|`, if any; it must then equal the line's display text.
        content: Option<String>,
    },
}

impl AnchorRef {
    /// Resolves against a document: a line anchor is returned as written (its hash is
    /// checked later, by the edit engine); a bare hash must name exactly one line (whose
    /// display text equals the pasted content, when content was given).
    ///
    /// ```
    /// use hashline_core::{parse_anchor, Document};
    /// let doc = Document::parse(b"alpha\nbeta\n".to_vec());
    /// let anchor = parse_anchor("589").unwrap().resolve(&doc).unwrap();
    /// assert_eq!(anchor.to_string(), "2:589");
    /// ```
    pub fn resolve(&self, doc: &Document) -> Result<Anchor, AnchorError> {
        let (hash, content) = match self {
            AnchorRef::Line { anchor, .. } => return Ok(*anchor),
            AnchorRef::Hash { hash, content } => (*hash, content.as_deref()),
        };
        let mut candidates = doc.lines().filter(|line| {
            line.hash() == hash && content.is_none_or(|c| crate::display::display_line(line.content) == c)
        });
        let first = candidates.next().ok_or(AnchorError::HashNotFound { hash })?;
        let rest: Vec<Anchor> = candidates.map(|l| Anchor::new(l.number, hash)).collect();
        if rest.is_empty() {
            return Ok(Anchor::new(first.number, hash));
        }
        let total = rest.len() + 1;
        let shown = std::iter::once(Anchor::new(first.number, hash)).chain(rest).take(MAX_HASH_CANDIDATES).collect();
        Err(AnchorError::HashAmbiguous { hash, candidates: shown, total })
    }
}

/// Why an anchor string was refused.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum AnchorError {
    /// Not any accepted form.
    #[error("Invalid line reference \"{input}\". Expected \"LINE:HASH\" (e.g. \"5:abc\").")]
    Malformed {
        /// The input, shortened for the message.
        input: String,
    },
    /// `0:HASH`: line numbers start at 1.
    #[error("Line number must be >= 1, got 0 in \"{input}\".")]
    LineZero {
        /// The input, shortened for the message.
        input: String,
    },
    /// A line number no file reaches (past `u32::MAX`), echoed as written.
    #[error("Line {line} does not exist: line numbers stop at {max}. Use a LINE:HASH anchor from a fresh read.", max = u32::MAX)]
    LineTooLarge {
        /// The digits as written.
        line: String,
    },
    /// A bare hash that no line has.
    #[error("No line has hash {hash}. Use a LINE:HASH anchor from a fresh read.")]
    HashNotFound {
        /// The hash.
        hash: LineHash,
    },
    /// A bare hash that several lines share.
    #[error(
        "Hash {hash} matches {total} lines ({}). Use a LINE:HASH anchor to pick one.",
        candidates.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
    )]
    HashAmbiguous {
        /// The hash.
        hash: LineHash,
        /// Up to [`MAX_HASH_CANDIDATES`] candidate anchors, in line order.
        candidates: Vec<Anchor>,
        /// How many lines carry the hash.
        total: usize,
    },
}

impl AnchorError {
    /// The stable error code (SPEC §4.2).
    pub fn code(&self) -> &'static str {
        match self {
            AnchorError::HashNotFound { .. } => "hash-mismatch",
            AnchorError::LineTooLarge { .. } => "line-out-of-range",
            _ => "invalid-anchor",
        }
    }
}

/// Parses an anchor the way models write them.
///
/// Accepted: `12:abc`, `12:abc|content`, ` 12 : ABC `, a pasted row with a leading `>>>`,
/// `>>`, `+` or `-` marker, the first non-blank row of a multi-row paste, and a bare
/// `abc` / `abc|content`. Anything after two consecutive spaces is ignored. Everything
/// else is [`AnchorError::Malformed`].
///
/// ```
/// use hashline_core::{parse_anchor, AnchorRef};
/// for input in ["12:abc", " 12 : ABC ", ">>> 12:abc|  let x = 1;", "+12:abc", "\n\n12:abc|x\n13:def|y"] {
///     assert!(matches!(parse_anchor(input), Ok(AnchorRef::Line { .. })), "{input}");
/// }
/// assert!(matches!(parse_anchor("abc|x"), Ok(AnchorRef::Hash { .. })));
/// assert!(parse_anchor("L12").is_err());
/// ```
pub fn parse_anchor(input: &str) -> Result<AnchorRef, AnchorError> {
    let malformed = || AnchorError::Malformed { input: echo(input) };
    let row = input.lines().find(|l| !l.trim().is_empty()).ok_or_else(malformed)?.trim_start();
    let row = strip_marker(row);
    // The content after `|` is kept verbatim (trailing spaces are part of a line).
    let (head, content) = match row.split_once('|') {
        Some((head, content)) => (head, Some(content.strip_suffix('\r').unwrap_or(content).to_owned())),
        None => (row, None),
    };
    let head = head.split("  ").next().unwrap_or(head).trim();
    match head.split_once(':') {
        Some((line, hash)) => {
            let (line, hash) = (line.trim(), hash.trim());
            if line.is_empty() || !line.bytes().all(|b| b.is_ascii_digit()) {
                return Err(malformed());
            }
            let hash = LineHash::parse_hex(hash).ok_or_else(malformed)?;
            // Digits only: the only failure is overflow, a line that cannot exist.
            let too_large = || AnchorError::LineTooLarge { line: echo(line.trim_start_matches('0')) };
            let value = line.parse::<u64>().ok().and_then(|v| u32::try_from(v).ok()).ok_or_else(too_large)?;
            let line = LineNo::new(value).ok_or_else(|| AnchorError::LineZero { input: echo(input) })?;
            Ok(AnchorRef::Line { anchor: Anchor::new(line, hash), content })
        }
        None => {
            let hash = LineHash::parse_hex(head).ok_or_else(malformed)?;
            Ok(AnchorRef::Hash { hash, content })
        }
    }
}

/// Strips one leading diff/mismatch marker (`>>>`, `>>`, `+`, `-`) from a pasted row.
fn strip_marker(row: &str) -> &str {
    for marker in [">>>", ">>", "+", "-"] {
        if let Some(rest) = row.strip_prefix(marker) {
            return rest.trim_start();
        }
    }
    row
}

fn echo(input: &str) -> String {
    let trimmed = input.trim();
    match trimmed.char_indices().nth(ECHO_LIMIT) {
        Some((cut, _)) => format!("{}…", &trimmed[..cut]),
        None => trimmed.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(input: &str) -> (u32, String, Option<String>) {
        match parse_anchor(input) {
            Ok(AnchorRef::Line { anchor, content }) => (anchor.line.get(), anchor.hash.to_string(), content),
            other => panic!("{input:?} gave {other:?}"),
        }
    }

    #[test]
    fn accepted_forms() {
        assert_eq!(line("12:abc"), (12, "abc".into(), None));
        assert_eq!(line("12:abc|content"), (12, "abc".into(), Some("content".into())));
        assert_eq!(line(" 12 : ABC "), (12, "abc".into(), None));
        assert_eq!(line(">>> 12:abc|x"), (12, "abc".into(), Some("x".into())));
        assert_eq!(line(">>12:abc|x"), (12, "abc".into(), Some("x".into())));
        assert_eq!(line("+12:abc|x"), (12, "abc".into(), Some("x".into())));
        assert_eq!(line("-12:abc|x"), (12, "abc".into(), Some("x".into())));
        assert_eq!(line("    12:abc|  indented"), (12, "abc".into(), Some("  indented".into())));
        assert_eq!(line("\n  \n7:d05|\n8:3c8|alpha"), (7, "d05".into(), Some(String::new())));
        assert_eq!(line("12:abc  trailing note"), (12, "abc".into(), None));
        assert_eq!(line("12:abc|a|b"), (12, "abc".into(), Some("a|b".into())));
        assert_eq!(line("12:abc|trailing  "), (12, "abc".into(), Some("trailing  ".into())));
    }

    #[test]
    fn bare_hash_forms() {
        assert_eq!(
            parse_anchor("abc|x"),
            Ok(AnchorRef::Hash { hash: LineHash::parse_hex("abc").unwrap(), content: Some("x".into()) })
        );
        assert!(matches!(parse_anchor(" ABC "), Ok(AnchorRef::Hash { content: None, .. })));
    }

    #[test]
    fn refused_forms() {
        for input in [
            "",
            "   ",
            "L12",
            "12:ab",
            "12:abcd",
            "12:xyz",
            "12",
            ":abc",
            "1 2:abc",
            "12;abc",
            "x:abc",
            "ab",
            "12:abc:def",
        ] {
            let err = parse_anchor(input).expect_err(input);
            assert_eq!(err.code(), "invalid-anchor", "{input}");
            assert!(err.to_string().contains("Expected \"LINE:HASH\""), "{input}: {err}");
        }
        let zero = parse_anchor("0:abc").expect_err("zero");
        assert_eq!(zero.to_string(), "Line number must be >= 1, got 0 in \"0:abc\".");
    }

    #[test]
    fn huge_line_numbers_are_echoed_as_written_and_long_inputs_are_shortened() {
        assert_eq!(line("4294967295:abc").0, u32::MAX);
        let huge = parse_anchor("99999999999999999999:abc").expect_err("huge");
        assert_eq!(huge.code(), "line-out-of-range");
        assert_eq!(
            huge.to_string(),
            "Line 99999999999999999999 does not exist: line numbers stop at 4294967295. Use a LINE:HASH anchor from a fresh read."
        );
        let long = "x".repeat(500);
        let msg = parse_anchor(&long).expect_err("long").to_string();
        assert!(msg.len() < 200, "{msg}");
    }

    #[test]
    fn bare_hash_resolution() {
        let doc = Document::parse(b"alpha\nbeta\nalpha\n".to_vec());
        let alpha = LineHash::of(b"alpha");
        let err = AnchorRef::Hash { hash: alpha, content: None }.resolve(&doc).expect_err("ambiguous");
        assert_eq!(err.to_string(), "Hash 3c8 matches 2 lines (1:3c8, 3:3c8). Use a LINE:HASH anchor to pick one.");
        let missing = AnchorRef::Hash { hash: LineHash::of(b"zeta"), content: None }.resolve(&doc);
        assert_eq!(missing.map_err(|e| e.code()), Err("hash-mismatch"));
        let with_content = AnchorRef::Hash { hash: LineHash::of(b"beta"), content: Some("beta".into()) };
        assert_eq!(with_content.resolve(&doc).map(|a| a.to_string()), Ok("2:589".into()));
        let wrong_content = AnchorRef::Hash { hash: LineHash::of(b"beta"), content: Some("other".into()) };
        assert!(wrong_content.resolve(&doc).is_err());
    }

    #[test]
    fn ambiguity_lists_at_most_five() {
        let doc = Document::parse("x\n".repeat(9).into_bytes());
        match (AnchorRef::Hash { hash: LineHash::of(b"x"), content: None }).resolve(&doc) {
            Err(AnchorError::HashAmbiguous { candidates, total, .. }) => {
                assert_eq!((candidates.len(), total), (5, 9));
            }
            other => panic!("{other:?}"),
        }
    }
}
