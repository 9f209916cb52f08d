//! The physical document: a file's exact bytes split into lines, each with its own
//! terminator, so that every byte the tools do not change is written back as it was.

use crate::{LineHash, LineNo};

/// The UTF-8 byte order mark.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// How one line ends in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Terminator {
    /// `\n`
    Lf,
    /// `\r\n`
    CrLf,
    /// A bare `\r`.
    Cr,
    /// No terminator: the last line of a file without a final newline.
    None,
}

impl Terminator {
    /// The terminator's bytes.
    pub fn as_bytes(self) -> &'static [u8] {
        match self {
            Terminator::Lf => b"\n",
            Terminator::CrLf => b"\r\n",
            Terminator::Cr => b"\r",
            Terminator::None => b"",
        }
    }
}

/// One physical line: where its content lies in the document's bytes, and how it ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Span {
    /// Byte offset of the first content byte.
    pub(crate) start: usize,
    /// Byte offset one past the last content byte (the terminator starts here).
    pub(crate) end: usize,
    pub(crate) terminator: Terminator,
}

/// A borrowed view of one line of a [`Document`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line<'a> {
    /// The line's 1-based number.
    pub number: LineNo,
    /// The content bytes, without the terminator.
    pub content: &'a [u8],
    /// How the line ends.
    pub terminator: Terminator,
}

impl Line<'_> {
    /// The line's hash.
    pub fn hash(&self) -> LineHash {
        LineHash::of(self.content)
    }
}

/// A file's bytes as lines. [`Document::as_bytes`] always returns exactly the bytes the
/// document was parsed from.
///
/// Line model (SPEC §3): lines end at `\n`, `\r\n` or a bare `\r`; a UTF-8 BOM is not part
/// of line 1; a trailing terminator does not start an extra line; an empty file (or a file
/// holding only a BOM) has one empty line.
///
/// ```
/// use hashline_core::{Document, Terminator, LineNo};
/// let doc = Document::parse(b"alpha\r\nbeta".to_vec());
/// assert_eq!(doc.line_count(), 2);
/// let first = doc.line(LineNo::FIRST).unwrap();
/// assert_eq!(first.content, b"alpha");
/// assert_eq!(first.terminator, Terminator::CrLf);
/// assert_eq!(doc.as_bytes(), b"alpha\r\nbeta");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Document {
    bytes: Vec<u8>,
    has_bom: bool,
    spans: Vec<Span>,
}

impl Document {
    /// Splits `bytes` into lines. Never fails: any byte string is a document.
    pub fn parse(bytes: Vec<u8>) -> Self {
        let has_bom = bytes.starts_with(BOM);
        let body_start = if has_bom { BOM.len() } else { 0 };
        // No CR anywhere (nearly every file): one search for LF, cheaper per line than a
        // search for either byte.
        let spans = if memchr::memchr(b'\r', &bytes[body_start..]).is_none() {
            spans_lf(&bytes, body_start)
        } else {
            spans_any(&bytes, body_start)
        };
        Self { bytes, has_bom, spans }
    }

    /// The exact bytes of the document (BOM and terminators included).
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Consumes the document, returning its bytes.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    /// Whether the file starts with a UTF-8 BOM.
    pub fn has_bom(&self) -> bool {
        self.has_bom
    }

    /// Number of lines (at least 1).
    pub fn line_count(&self) -> usize {
        self.spans.len()
    }

    /// The line with the given number, if it exists.
    pub fn line(&self, number: LineNo) -> Option<Line<'_>> {
        self.spans.get(number.index()).map(|span| self.view(number, span))
    }

    /// All lines in order.
    pub fn lines(&self) -> impl ExactSizeIterator<Item = Line<'_>> + '_ {
        self.spans.iter().enumerate().map(|(i, span)| self.view(LineNo::from_index(i), span))
    }

    /// The lines with 0-based indices in `range` (clamped to the document), in order,
    /// without walking the lines before it.
    ///
    /// ```
    /// use hashline_core::Document;
    /// let doc = Document::parse(b"a\nb\nc\n".to_vec());
    /// let middle: Vec<&[u8]> = doc.lines_in(1..9).map(|l| l.content).collect();
    /// assert_eq!(middle, [&b"b"[..], &b"c"[..]]);
    /// ```
    pub fn lines_in(&self, range: std::ops::Range<usize>) -> impl ExactSizeIterator<Item = Line<'_>> + '_ {
        let end = range.end.min(self.spans.len());
        let start = range.start.min(end);
        self.spans[start..end].iter().enumerate().map(move |(i, span)| self.view(LineNo::from_index(start + i), span))
    }

    /// The spans of the lines with 0-based indices in `range` (clamped to the document).
    pub(crate) fn spans_in(&self, range: std::ops::Range<usize>) -> &[Span] {
        let end = range.end.min(self.spans.len());
        &self.spans[range.start.min(end)..end]
    }

    /// Whether any line ends with a bare `\r`.
    pub fn has_bare_cr(&self) -> bool {
        self.spans.iter().any(|s| s.terminator == Terminator::Cr)
    }

    /// Whether the last line has a terminator (the file ends with a newline).
    pub fn ends_with_newline(&self) -> bool {
        self.spans.last().is_some_and(|s| s.terminator != Terminator::None)
    }

    /// The terminator new lines should take: the most common one in the file, `\n` when
    /// the file has none (ties prefer `\n`, then `\r\n`).
    pub fn dominant_terminator(&self) -> Terminator {
        let (mut lf, mut crlf, mut cr) = (0usize, 0usize, 0usize);
        for span in &self.spans {
            match span.terminator {
                Terminator::Lf => lf += 1,
                Terminator::CrLf => crlf += 1,
                Terminator::Cr => cr += 1,
                Terminator::None => {}
            }
        }
        if crlf > lf && crlf >= cr {
            Terminator::CrLf
        } else if cr > lf && cr > crlf {
            Terminator::Cr
        } else {
            Terminator::Lf
        }
    }

    /// Byte range of a line's content within [`Document::as_bytes`].
    pub fn content_range(&self, number: LineNo) -> Option<std::ops::Range<usize>> {
        self.spans.get(number.index()).map(|s| s.start..s.end)
    }

    fn view<'a>(&'a self, number: LineNo, span: &Span) -> Line<'a> {
        Line { number, content: &self.bytes[span.start..span.end], terminator: span.terminator }
    }
}

/// The lines of `bytes[body_start..]`, which holds no `\r`.
fn spans_lf(bytes: &[u8], body_start: usize) -> Vec<Span> {
    let mut spans = Vec::with_capacity(bytes.len() / 32 + 1);
    let mut start = body_start;
    for pos in memchr::memchr_iter(b'\n', &bytes[body_start..]) {
        let pos = pos + body_start;
        spans.push(Span { start, end: pos, terminator: Terminator::Lf });
        start = pos + 1;
    }
    if start < bytes.len() || spans.is_empty() {
        spans.push(Span { start, end: bytes.len(), terminator: Terminator::None });
    }
    spans
}

/// The lines of `bytes[body_start..]`, ended by `\n`, `\r\n` or a bare `\r`.
fn spans_any(bytes: &[u8], body_start: usize) -> Vec<Span> {
    let mut spans = Vec::with_capacity(bytes.len() / 32 + 1);
    let mut start = body_start;
    for pos in memchr::memchr2_iter(b'\n', b'\r', &bytes[body_start..]) {
        let pos = pos + body_start;
        if pos < start {
            // The `\n` of a `\r\n` pair already consumed.
            continue;
        }
        let terminator = match bytes[pos] {
            b'\n' => Terminator::Lf,
            _ if bytes.get(pos + 1) == Some(&b'\n') => Terminator::CrLf,
            _ => Terminator::Cr,
        };
        spans.push(Span { start, end: pos, terminator });
        start = pos + terminator.as_bytes().len();
    }
    if start < bytes.len() || spans.is_empty() {
        spans.push(Span { start, end: bytes.len(), terminator: Terminator::None });
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;
    use Terminator::*;

    proptest::proptest! {
        #[test]
        fn the_lf_only_split_agrees_with_the_general_one(
            bytes in proptest::collection::vec(proptest::prop_oneof![proptest::strategy::Just(b'\n'), proptest::strategy::Just(b'a'), proptest::num::u8::ANY], 0..200),
        ) {
            let bytes: Vec<u8> = bytes.into_iter().filter(|b| *b != b'\r').collect();
            for start in [0, 3.min(bytes.len())] {
                proptest::prop_assert_eq!(spans_lf(&bytes, start), spans_any(&bytes, start));
            }
        }
    }

    fn shape(bytes: &[u8]) -> Vec<(String, Terminator)> {
        Document::parse(bytes.to_vec())
            .lines()
            .map(|l| (String::from_utf8_lossy(l.content).into_owned(), l.terminator))
            .collect()
    }

    fn s(text: &str, t: Terminator) -> (String, Terminator) {
        (text.to_owned(), t)
    }

    #[test]
    fn splits_every_terminator_kind() {
        assert_eq!(shape(b"a\nb\r\nc\rd"), vec![s("a", Lf), s("b", CrLf), s("c", Cr), s("d", None)]);
        assert_eq!(shape(b"a\r\r\n"), vec![s("a", Cr), s("", CrLf)]);
        assert_eq!(shape(b"\n\n"), vec![s("", Lf), s("", Lf)]);
    }

    #[test]
    fn trailing_newline_adds_no_row_and_empty_file_has_one() {
        assert_eq!(shape(b"alpha\nbeta\n"), vec![s("alpha", Lf), s("beta", Lf)]);
        assert_eq!(shape(b""), vec![s("", None)]);
        assert_eq!(shape(BOM), vec![s("", None)]);
    }

    #[test]
    fn bom_is_not_part_of_line_one() {
        let doc = Document::parse(b"\xEF\xBB\xBFx\ny".to_vec());
        assert!(doc.has_bom());
        assert_eq!(doc.line(LineNo::FIRST).map(|l| l.content), Some(&b"x"[..]));
        assert_eq!(doc.as_bytes(), b"\xEF\xBB\xBFx\ny");
    }

    #[test]
    fn invalid_utf8_is_kept_byte_for_byte() {
        let bytes = b"ok\n\xff\xfe\x00bad\n".to_vec();
        let doc = Document::parse(bytes.clone());
        assert_eq!(doc.line(LineNo::from_index(1)).map(|l| l.content), Some(&b"\xff\xfe\x00bad"[..]));
        assert_eq!(doc.into_bytes(), bytes);
    }

    #[test]
    fn dominant_terminator_and_bare_cr() {
        assert_eq!(Document::parse(b"a\r\nb\r\nc\n".to_vec()).dominant_terminator(), CrLf);
        assert_eq!(Document::parse(b"a\nb\r\n".to_vec()).dominant_terminator(), Lf);
        assert_eq!(Document::parse(b"one".to_vec()).dominant_terminator(), Lf);
        assert!(Document::parse(b"a\rb".to_vec()).has_bare_cr());
        assert!(!Document::parse(b"a\r\nb".to_vec()).has_bare_cr());
    }

    #[test]
    fn ends_with_newline() {
        assert!(Document::parse(b"a\n".to_vec()).ends_with_newline());
        assert!(!Document::parse(b"a".to_vec()).ends_with_newline());
        assert!(!Document::parse(Vec::new()).ends_with_newline());
    }
}
