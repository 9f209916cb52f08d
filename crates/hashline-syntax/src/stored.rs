//! A compact byte form of a [`Census`], for caches that keep censuses between processes
//! (the CLI's per-root cache, beside its symbol maps). Which file version the bytes belong
//! to is the caller's business; this module only turns a census into bytes and back.
//!
//! The bytes are a version byte, the number of issues (u32, little-endian) and each issue
//! as its kind (0 ERROR, 1 MISSING), first and last line (u32), byte range (two u64) and, for
//! a MISSING node, the missing kind's length (u32) and UTF-8 text. Decoding checks every
//! field (lines from 1, in order; a byte range in order; a missing kind only on MISSING) and
//! allocates at most in proportion to the input.

use hashline_core::LineNo;

use crate::census::{Census, IssueKind, LineSpan, SyntaxIssue};

/// The version of the byte form; bytes of another version are refused.
const FORMAT_VERSION: u8 = 1;
/// The fewest bytes one issue takes: kind, two lines, two offsets.
const MIN_ISSUE_BYTES: usize = 1 + 4 + 4 + 8 + 8;

impl Census {
    /// The census as bytes for [`Census::from_bytes`].
    ///
    /// ```
    /// use hashline_core::Document;
    /// use hashline_syntax::{census, parse_document, Census, LanguageId, ParseLimits};
    ///
    /// let doc = Document::parse(b"int main(void) {\n  return 0\n}\n".to_vec());
    /// let parsed = parse_document(LanguageId::C, &doc, ParseLimits::DEFAULT).unwrap();
    /// let found = census(&parsed.tree, &doc, parsed.text_start);
    /// assert_eq!(Census::from_bytes(&found.to_bytes()), Some(found));
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(5 + self.issues.len() * (MIN_ISSUE_BYTES + 8));
        out.push(FORMAT_VERSION);
        out.extend_from_slice(&(self.issues.len() as u32).to_le_bytes());
        for issue in &self.issues {
            out.push(match issue.kind {
                IssueKind::Error => 0,
                IssueKind::Missing => 1,
            });
            out.extend_from_slice(&issue.lines.start.get().to_le_bytes());
            out.extend_from_slice(&issue.lines.end.get().to_le_bytes());
            out.extend_from_slice(&(issue.bytes.start as u64).to_le_bytes());
            out.extend_from_slice(&(issue.bytes.end as u64).to_le_bytes());
            if issue.kind == IssueKind::Missing {
                let missing = issue.missing.as_deref().unwrap_or("");
                out.extend_from_slice(&(missing.len() as u32).to_le_bytes());
                out.extend_from_slice(missing.as_bytes());
            }
        }
        out
    }

    /// The census that [`Census::to_bytes`] wrote; `None` for damaged, truncated or foreign
    /// bytes (never a panic).
    pub fn from_bytes(bytes: &[u8]) -> Option<Census> {
        let (&FORMAT_VERSION, mut rest) = bytes.split_first()? else { return None };
        let count = u32::from_le_bytes(take(&mut rest, 4)?.try_into().ok()?) as usize;
        if count > rest.len() / MIN_ISSUE_BYTES {
            return None;
        }
        let mut issues = Vec::with_capacity(count);
        for _ in 0..count {
            let kind = match take(&mut rest, 1)?[0] {
                0 => IssueKind::Error,
                1 => IssueKind::Missing,
                _ => return None,
            };
            let start = LineNo::new(u32::from_le_bytes(take(&mut rest, 4)?.try_into().ok()?))?;
            let end = LineNo::new(u32::from_le_bytes(take(&mut rest, 4)?.try_into().ok()?))?;
            let from = usize::try_from(u64::from_le_bytes(take(&mut rest, 8)?.try_into().ok()?)).ok()?;
            let to = usize::try_from(u64::from_le_bytes(take(&mut rest, 8)?.try_into().ok()?)).ok()?;
            if end < start || to < from {
                return None;
            }
            let missing = match kind {
                IssueKind::Missing => {
                    let len = u32::from_le_bytes(take(&mut rest, 4)?.try_into().ok()?) as usize;
                    Some(std::str::from_utf8(take(&mut rest, len)?).ok()?.to_owned())
                }
                IssueKind::Error => None,
            };
            issues.push(SyntaxIssue { kind, lines: LineSpan { start, end }, bytes: from..to, missing });
        }
        rest.is_empty().then_some(Census { issues })
    }
}

/// The first `n` bytes of `rest`, which then starts after them; `None` past the end.
fn take<'a>(rest: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
    if rest.len() < n {
        return None;
    }
    let (head, tail) = rest.split_at(n);
    *rest = tail;
    Some(head)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{LanguageId, ParseLimits, census, parse_document};
    use hashline_core::Document;

    fn sample() -> Census {
        let doc = Document::parse(b"fn a() {\n    let x = 1\n}\nfn b( {}\nfn c() { let = ; }\n".to_vec());
        let parsed = parse_document(LanguageId::Rust, &doc, ParseLimits::DEFAULT).unwrap();
        census(&parsed.tree, &doc, parsed.text_start)
    }

    #[test]
    fn a_census_comes_back_equal() {
        let found = sample();
        assert!(found.missing() >= 1 && found.errors() >= 1, "{found:?}");
        assert_eq!(Census::from_bytes(&found.to_bytes()), Some(found));
        let clean = Census::default();
        assert_eq!(Census::from_bytes(&clean.to_bytes()), Some(clean));
    }

    #[test]
    fn truncated_damaged_and_foreign_bytes_are_refused_without_panic() {
        let bytes = sample().to_bytes();
        for len in 0..bytes.len() {
            assert_eq!(Census::from_bytes(&bytes[..len]), None, "truncated to {len}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(Census::from_bytes(&longer), None, "trailing bytes");
        let mut foreign = bytes.clone();
        foreign[0] = FORMAT_VERSION + 1;
        assert_eq!(Census::from_bytes(&foreign), None);
        // A count far beyond the bytes is refused before anything is allocated.
        let mut huge = vec![FORMAT_VERSION];
        huge.extend_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(Census::from_bytes(&huge), None);
        for i in 0..bytes.len() {
            for flip in [0x01, 0x80, 0xff] {
                let mut damaged = bytes.clone();
                damaged[i] ^= flip;
                if let Some(census) = Census::from_bytes(&damaged) {
                    assert!(census.issues.iter().all(|i| i.lines.start <= i.lines.end && i.bytes.start <= i.bytes.end));
                }
            }
        }
    }
}
