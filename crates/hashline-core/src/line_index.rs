//! The lazy line index: a file's line count found in borrowed bytes without a span for
//! every line, and the lines of a window found when they are asked for. A read that shows
//! 50 KB of a large file needs the total and the window, not the whole
//! [`Document`](crate::Document) (issue 21).

use std::ops::Range;

use crate::document::{BOM, Span};
use crate::{Line, LineNo, Terminator};

/// A file's bytes, borrowed, with the counts the line model (SPEC §3) needs up front: the
/// number of lines and whether any ends with a bare `\r`. The count is kept per block of
/// the file (a few KB for a large file, no span per line), so a window's first line is
/// found by a search in one block and its lines as they are asked for. Every line, hash and count agrees with
/// [`Document::parse`](crate::Document::parse) of the same bytes.
///
/// ```
/// use hashline_core::{LineIndex, LineNo, Terminator};
/// let index = LineIndex::new(b"\xEF\xBB\xBFalpha\r\nbeta\rgamma");
/// assert_eq!(index.line_count(), 3);
/// assert!(index.has_bom() && index.has_bare_cr());
/// let second = index.line(LineNo::new(2).unwrap()).unwrap();
/// assert_eq!((second.content, second.terminator), (&b"beta"[..], Terminator::Cr));
/// let shown: Vec<&[u8]> = index.lines_in(1..9).map(|l| l.content).collect();
/// assert_eq!(shown, [&b"beta"[..], &b"gamma"[..]]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineIndex<'a> {
    bytes: &'a [u8],
    /// Where line 1 starts (after a BOM).
    body_start: usize,
    /// Whether the body holds a `\r` (else every line ends at `\n` and one search finds it).
    has_cr: bool,
    /// Lines ended by a bare `\r`.
    bare_cr: usize,
    line_count: usize,
    /// Bytes of the body per block.
    block: usize,
    /// For each block of the body, the lines ended before it starts.
    ended_before: Vec<usize>,
}

/// Bytes of the body whose ended lines are counted together.
const BLOCK: usize = 64 * 1024;

impl<'a> LineIndex<'a> {
    /// Counts the lines of `bytes` (one pass, no allocation). Never fails: any byte
    /// string is a document.
    pub fn new(bytes: &'a [u8]) -> Self {
        Self::with_block(bytes, BLOCK)
    }

    /// [`LineIndex::new`] with blocks of `block` bytes (at least 1).
    fn with_block(bytes: &'a [u8], block: usize) -> Self {
        let block = block.max(1);
        let body_start = if bytes.starts_with(BOM) { BOM.len() } else { 0 };
        let body = &bytes[body_start..];
        let has_cr = memchr::memchr(b'\r', body).is_some();
        let mut ended_before = Vec::with_capacity(body.len() / block + 1);
        let (mut ended, mut bare_cr) = (0, 0);
        for (i, chunk) in body.chunks(block).enumerate() {
            ended_before.push(ended);
            // A line ends at each `\n` (a `\r\n` is counted at its `\n`, in whichever
            // block that is) and at each `\r` not followed by `\n`.
            ended += memchr::memchr_iter(b'\n', chunk).count();
            if has_cr {
                let offset = i * block;
                let bare =
                    memchr::memchr_iter(b'\r', chunk).filter(|&at| body.get(offset + at + 1) != Some(&b'\n')).count();
                ended += bare;
                bare_cr += bare;
            }
        }
        // A trailing terminator starts no extra line; an empty body is one empty line.
        let unterminated_last = usize::from(!matches!(body.last(), Some(b'\n' | b'\r')));
        Self { bytes, body_start, has_cr, bare_cr, line_count: ended + unterminated_last, block, ended_before }
    }

    /// The exact bytes indexed (BOM and terminators included).
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Whether the file starts with a UTF-8 BOM.
    pub fn has_bom(&self) -> bool {
        self.body_start > 0
    }

    /// Number of lines (at least 1).
    pub fn line_count(&self) -> usize {
        self.line_count
    }

    /// Whether any line ends with a bare `\r`.
    pub fn has_bare_cr(&self) -> bool {
        self.bare_cr > 0
    }

    /// The line with the given number, if it exists (found by scanning up to it).
    pub fn line(&self, number: LineNo) -> Option<Line<'a>> {
        self.lines_in(number.index()..number.index().saturating_add(1)).next()
    }

    /// The lines with 0-based indices in `range` (clamped to the document), in order;
    /// the lines before it are skipped by a terminator search, not split.
    pub fn lines_in(&self, range: Range<usize>) -> impl ExactSizeIterator<Item = Line<'a>> + use<'a> {
        let scan = self.spans_in(range);
        let (bytes, first) = (self.bytes, scan.first);
        scan.enumerate().map(move |(i, span)| Line {
            number: LineNo::from_index(first + i),
            content: &bytes[span.start..span.end],
            terminator: span.terminator,
        })
    }

    /// The byte offset where the line with 0-based index `index` starts (after the BOM
    /// for line 1); the file's length for an index past the last line. The bytes of lines
    /// `a..b`, terminators included, are `line_start(a)..line_start(b)`.
    ///
    /// ```
    /// use hashline_core::LineIndex;
    /// let index = LineIndex::new(b"a\r\nbb\ncc");
    /// assert_eq!([0, 1, 2, 3].map(|i| index.line_start(i)), [0, 3, 6, 8]);
    /// ```
    pub fn line_start(&self, index: usize) -> usize {
        if index == 0 {
            return self.body_start;
        }
        if index >= self.line_count {
            return self.bytes.len();
        }
        // The block in which the `index`-th line ends: the last one with fewer ended
        // before it. The search starts there.
        let block = self.ended_before.partition_point(|&ended| ended < index).saturating_sub(1);
        let from = block * self.block;
        let mut ended = self.ended_before.get(block).copied().unwrap_or(0);
        let body = &self.bytes[self.body_start..];
        let rest = body.get(from..).unwrap_or_default();
        if !self.has_cr {
            return memchr::memchr_iter(b'\n', rest)
                .nth(index - ended - 1)
                .map_or(self.bytes.len(), |at| self.body_start + from + at + 1);
        }
        // The line after the `index`-th terminator. A `\n` whose `\r` is in the block
        // before ends the line there, as the counts had it.
        let mut next = 0;
        for at in memchr::memchr2_iter(b'\n', b'\r', rest) {
            if at < next {
                continue;
            }
            next = at + terminator_at(rest, at).as_bytes().len();
            ended += 1;
            if ended == index {
                return self.body_start + from + next;
            }
        }
        self.bytes.len()
    }

    /// The spans of the lines with 0-based indices in `range` (clamped to the document),
    /// found as they are iterated.
    pub(crate) fn spans_in(&self, range: Range<usize>) -> SpanScan<'a> {
        let end = range.end.min(self.line_count);
        let first = range.start.min(end);
        SpanScan { bytes: self.bytes, at: self.line_start(first), left: end - first, has_cr: self.has_cr, first }
    }
}

/// The terminator that starts at `bytes[at]`, a `\n` or a `\r`.
fn terminator_at(bytes: &[u8], at: usize) -> Terminator {
    match bytes[at] {
        b'\n' => Terminator::Lf,
        _ if bytes.get(at + 1) == Some(&b'\n') => Terminator::CrLf,
        _ => Terminator::Cr,
    }
}

/// The spans of consecutive lines, each found by a search for its terminator.
#[derive(Clone, Debug)]
pub(crate) struct SpanScan<'a> {
    bytes: &'a [u8],
    /// Where the next line starts.
    pub(crate) at: usize,
    /// Lines still to give.
    left: usize,
    has_cr: bool,
    /// The 0-based index of the first line given.
    pub(crate) first: usize,
}

impl Iterator for SpanScan<'_> {
    type Item = Span;

    fn next(&mut self) -> Option<Span> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let start = self.at;
        let rest = self.bytes.get(start..).unwrap_or_default();
        let found = if self.has_cr { memchr::memchr2(b'\n', b'\r', rest) } else { memchr::memchr(b'\n', rest) };
        let Some(offset) = found else {
            self.at = self.bytes.len();
            return Some(Span { start, end: self.bytes.len(), terminator: Terminator::None });
        };
        let end = start + offset;
        let terminator = terminator_at(self.bytes, end);
        self.at = end + terminator.as_bytes().len();
        Some(Span { start, end, terminator })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for SpanScan<'_> {}

#[cfg(test)]
mod tests {
    use proptest::strategy::Strategy as _;

    use super::*;
    use crate::Document;

    /// Every line, hash, count and offset of the index, against the eager split.
    fn agrees_with_the_document(bytes: &[u8]) -> Result<(), proptest::test_runner::TestCaseError> {
        // Small blocks too, so that blocks split lines and `\r\n` pairs.
        for block in [BLOCK, 1, 2, 3, 7] {
            agrees_in_blocks(bytes, block)?;
        }
        Ok(())
    }

    fn agrees_in_blocks(bytes: &[u8], block: usize) -> Result<(), proptest::test_runner::TestCaseError> {
        let doc = Document::parse(bytes.to_vec());
        let index = LineIndex::with_block(bytes, block);
        proptest::prop_assert_eq!(index.line_count(), doc.line_count(), "{:?}", bytes);
        proptest::prop_assert_eq!(index.has_bom(), doc.has_bom());
        proptest::prop_assert_eq!(index.has_bare_cr(), doc.has_bare_cr());
        let lines: Vec<Line<'_>> = index.lines_in(0..usize::MAX).collect();
        let eager: Vec<Line<'_>> = doc.lines().collect();
        proptest::prop_assert_eq!(&lines, &eager);
        let hashes: Vec<_> = lines.iter().map(Line::hash).collect();
        proptest::prop_assert_eq!(hashes, eager.iter().map(Line::hash).collect::<Vec<_>>());
        for (i, line) in eager.iter().enumerate() {
            let range = doc.content_range(line.number).unwrap_or_default();
            proptest::prop_assert_eq!(index.line_start(i), range.start);
            proptest::prop_assert_eq!(index.line(line.number), Some(*line));
            // Every window, from every line.
            for len in 0..=eager.len() - i + 1 {
                let window: Vec<Line<'_>> = index.lines_in(i..i + len).collect();
                proptest::prop_assert_eq!(&window[..], &eager[i..(i + len).min(eager.len())]);
                proptest::prop_assert_eq!(index.lines_in(i..i + len).len(), window.len());
            }
        }
        proptest::prop_assert_eq!(index.line_start(eager.len()), bytes.len());
        proptest::prop_assert_eq!(index.line(LineNo::from_index(eager.len())), None);
        proptest::prop_assert_eq!(index.lines_in(eager.len() + 3..eager.len() + 9).len(), 0);
        Ok(())
    }

    #[test]
    fn edge_cases_agree_with_the_document() {
        for bytes in [
            &b""[..],
            BOM,
            b"\xEF\xBB\xBF\n",
            b"\xEF\xBB\xBFx\r\ny",
            b"no newline",
            b"one\n",
            b"\n",
            b"\n\n",
            b"\r",
            b"\r\r\n",
            b"a\r\r\n",
            b"a\nb\r\nc\rd",
            b"crlf\r\nonly\r\n",
            b"bare\rcr\rend\r",
            b"mixed\r\n\n\r\rtail",
            b"ok\n\xff\xfe\x00bad\n",
            b"\xEF\xBB",
        ] {
            agrees_with_the_document(bytes).expect("the index agrees");
        }
    }

    proptest::proptest! {
        #[test]
        fn any_bytes_agree_with_the_document(
            pieces in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::strategy::Just(b"\n".to_vec()),
                    proptest::strategy::Just(b"\r\n".to_vec()),
                    proptest::strategy::Just(b"\r".to_vec()),
                    proptest::strategy::Just(BOM.to_vec()),
                    proptest::strategy::Just(b"\xff".to_vec()),
                    "[a-z]{0,5}".prop_map(String::into_bytes),
                ],
                0..30,
            ),
        ) {
            agrees_with_the_document(&pieces.concat())?;
        }
    }

    #[test]
    fn counting_finds_no_line_for_a_trailing_terminator() {
        assert_eq!(LineIndex::new(b"a\nb\n").line_count(), 2);
        assert_eq!(LineIndex::new(b"a\nb").line_count(), 2);
        assert_eq!(LineIndex::new(b"a\r\n\r\n").line_count(), 2);
        assert!(!LineIndex::new(b"a\r\nb").has_bare_cr());
    }
}
