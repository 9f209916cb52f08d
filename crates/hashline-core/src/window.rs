//! The window renderer: the rows of consecutive lines written into one buffer with no
//! per-row setup. It gives the same bytes as [`push_row`](crate::row::push_row) line by
//! line, but keeps the line number's digits as a counter incremented in place, checks
//! whole blocks of the file for bytes that need escaping or decoding (the common case has
//! none, and its rows are copied as they are), and copies short lines in fixed-size chunks
//! instead of one variable-length copy each.

use std::ops::Range;

use crate::display::{first_unplain_chunk, is_plain_ascii, push_display};
use crate::document::Span;
use crate::line_index::SpanScan;
use crate::{Document, Line, LineHash, LineIndex, LineNo};

/// Bytes of the file checked at once for bytes that need escaping or decoding.
const CHECK_BLOCK: usize = 4096;

/// Lines up to this long are copied in 16-byte chunks (which may read past the line's end
/// inside the file, and write past the row's end inside the buffer before it is cut back).
const CHUNKED_MAX: usize = 64;

/// The rows of the lines of a range of a [`Document`] (or of a [`LineIndex`], whose lines
/// are found as the rows are rendered), rendered one after another into a caller's buffer. Each call of [`Rows::push_next`] appends one row (`LINE:HASH|content`,
/// no separator), exactly as [`push_row`](crate::row::push_row) would.
///
/// ```
/// use hashline_core::{window::Rows, Document};
/// let doc = Document::parse(b"alpha\nbeta\ngamma\n".to_vec());
/// let mut rows = Rows::new(&doc, 1..9);
/// let mut out = Vec::new();
/// let (number, hash) = rows.push_next(&mut out).unwrap();
/// assert_eq!((number.get(), hash.to_string().as_str()), (2, "589"));
/// out.push(b'\n');
/// rows.push_next(&mut out);
/// assert!(rows.push_next(&mut out).is_none());
/// assert_eq!(out, b"2:589|beta\n3:56d|gamma");
/// ```
pub struct Rows<'d> {
    bytes: &'d [u8],
    /// The lines still to render.
    spans: Spans<'d>,
    /// The next row's prefix: the line number's digits, `:`, room for the hash, `|`.
    prefix: [u8; 16],
    /// How many digits the line number has.
    width: usize,
    /// The next line's number.
    number: u32,
    /// Bytes of the file before this offset are known to need no escaping or decoding.
    plain_end: usize,
    /// Bytes before this offset (and after `plain_end`) are known to hold some that do.
    mixed_end: usize,
    /// One past the last content byte of the range (for a [`LineIndex`], of the file:
    /// its range's end is not searched for up front).
    bytes_end: usize,
}

/// Where the spans of a [`Rows`] come from.
enum Spans<'d> {
    /// A parsed document's spans.
    Parsed(std::slice::Iter<'d, Span>),
    /// A line index's lines, found one by one.
    Scanned(SpanScan<'d>),
}

impl Spans<'_> {
    fn next(&mut self) -> Option<Span> {
        match self {
            Spans::Parsed(spans) => spans.next().copied(),
            Spans::Scanned(scan) => scan.next(),
        }
    }

    fn len(&self) -> usize {
        match self {
            Spans::Parsed(spans) => spans.len(),
            Spans::Scanned(scan) => scan.len(),
        }
    }

    /// The first remaining line's start and the last one's content end.
    fn extent(&self) -> Option<(usize, usize)> {
        match self {
            Spans::Parsed(spans) => Some((spans.as_slice().first()?.start, spans.as_slice().last()?.end)),
            Spans::Scanned(scan) => {
                let mut rest = scan.clone();
                let first = rest.next()?;
                Some((first.start, rest.last().unwrap_or(first).end))
            }
        }
    }
}

impl<'d> Rows<'d> {
    /// The rows of the lines with 0-based indices in `range`, clamped to the document.
    pub fn new(doc: &'d Document, range: Range<usize>) -> Self {
        let first = range.start.min(doc.line_count());
        let spans = doc.spans_in(range);
        let start = spans.first().map_or(0, |s| s.start);
        let bytes_end = spans.last().map_or(start, |s| s.end);
        let number = LineNo::from_index(first).get();
        let (prefix, width) = prefix_of(number);
        Self {
            bytes: doc.as_bytes(),
            spans: Spans::Parsed(spans.iter()),
            prefix,
            width,
            number,
            plain_end: start,
            mixed_end: start,
            bytes_end,
        }
    }

    /// The rows of the lines with 0-based indices in `range` of a [`LineIndex`], clamped
    /// to it: the same rows as [`Rows::new`] gives for the [`Document`] of the same bytes,
    /// with the lines before the range skipped and those in it found as they are rendered.
    ///
    /// ```
    /// use hashline_core::{window::Rows, LineIndex};
    /// let index = LineIndex::new(b"alpha\r\nbeta\r\ngamma");
    /// let mut rows = Rows::over(&index, 1..2);
    /// let mut out = Vec::new();
    /// rows.push_next(&mut out);
    /// assert!(rows.push_next(&mut out).is_none());
    /// assert_eq!(out, b"2:589|beta");
    /// ```
    pub fn over(index: &LineIndex<'d>, range: Range<usize>) -> Self {
        let scan = index.spans_in(range);
        let number = LineNo::from_index(scan.first).get();
        let start = scan.at;
        let (prefix, width) = prefix_of(number);
        let bytes = index.as_bytes();
        Self {
            bytes,
            spans: Spans::Scanned(scan),
            prefix,
            width,
            number,
            plain_end: start,
            mixed_end: start,
            bytes_end: bytes.len(),
        }
    }

    /// How many rows are left.
    pub fn remaining(&self) -> usize {
        self.spans.len()
    }

    /// Bytes of content the remaining rows hold (their display form may be longer). For
    /// rows over a [`LineIndex`], found by walking the remaining lines.
    pub fn remaining_bytes(&self) -> usize {
        self.spans.extent().map_or(0, |(start, end)| end.saturating_sub(start))
    }

    /// Appends the next line's row to `out` and returns its number and hash; `None` when
    /// the range is done.
    pub fn push_next(&mut self, out: &mut Vec<u8>) -> Option<(LineNo, LineHash)> {
        self.push_next_line(out).map(|(line, hash)| (line.number, hash))
    }

    /// Appends the next line's row to `out` as [`Rows::push_next`] does, and returns the
    /// line itself (its content and terminator) with its hash.
    pub fn push_next_line(&mut self, out: &mut Vec<u8>) -> Option<(Line<'d>, LineHash)> {
        let span = self.spans.next()?;
        let number = LineNo::new(self.number).unwrap_or(LineNo::FIRST);
        let range = span.start..span.end;
        let bytes = self.bytes;
        let content = bytes.get(range.clone()).unwrap_or_default();
        let hash = LineHash::of(content);
        let width = self.width;
        let at = out.len();
        out.reserve(self.prefix.len() + CHUNKED_MAX + 1);
        // The counter's bytes as they are, then the hash written over the placeholder in
        // the buffer (not in the counter: a 16-byte load of bytes just stored one by one
        // would wait for the stores).
        out.extend_from_slice(&self.prefix);
        if let Some(digits) = out.get_mut(at + width + 1..at + width + 4) {
            digits.copy_from_slice(&hash.hex());
        }
        out.truncate(at + width + 5);
        if self.is_plain(range.clone()) || is_plain_ascii(content) {
            push_plain(out, bytes, range);
        } else {
            push_display(out, content);
        }
        self.increment();
        Some((Line { number, content, terminator: span.terminator }, hash))
    }

    /// Whether the bytes of `range` (a line of this window) are known to need no escaping
    /// or decoding, checking the file a block at a time (`false` for a line in a block
    /// that holds such bytes somewhere: the line is then checked alone).
    fn is_plain(&mut self, range: Range<usize>) -> bool {
        if range.end <= self.plain_end {
            return true;
        }
        if range.end <= self.mixed_end {
            return false;
        }
        let block_end = range.end.max(range.start.saturating_add(CHECK_BLOCK)).min(self.bytes_end).max(range.end);
        match first_unplain_chunk(self.bytes.get(range.start..block_end).unwrap_or_default()) {
            None => self.plain_end = block_end,
            Some(offset) => {
                // Plain up to the chunk with the byte that is not; the lines that end in
                // that chunk are checked alone.
                self.plain_end = range.start + offset;
                self.mixed_end = (self.plain_end + 32).min(block_end);
            }
        }
        range.end <= self.plain_end
    }

    /// Moves the prefix's digits to the next line number (saturating at `u32::MAX`, as
    /// [`LineNo::from_index`] does).
    fn increment(&mut self) {
        if self.number == u32::MAX {
            return;
        }
        self.number += 1;
        for i in (0..self.width).rev() {
            if self.prefix[i] < b'9' {
                self.prefix[i] += 1;
                return;
            }
            self.prefix[i] = b'0';
        }
        // Every digit was a 9: one more digit.
        (self.prefix, self.width) = prefix_of(self.number);
    }
}

/// The prefix buffer of a line number (digits, `:`, three placeholder hex digits, `|`)
/// and the number of digits.
fn prefix_of(number: u32) -> ([u8; 16], usize) {
    let mut prefix = [b'0'; 16];
    let digits = number.to_string();
    let width = digits.len();
    prefix[..width].copy_from_slice(digits.as_bytes());
    prefix[width] = b':';
    prefix[width + 4] = b'|';
    (prefix, width)
}

/// Appends `bytes[range]`: a short line in 16-byte chunks (reading on into the file and
/// writing on into the buffer, then cut back), a long one or one at the file's end in one
/// copy.
fn push_plain(out: &mut Vec<u8>, bytes: &[u8], range: Range<usize>) {
    let len = range.len();
    if len > CHUNKED_MAX || range.start + CHUNKED_MAX > bytes.len() {
        out.extend_from_slice(&bytes[range]);
        return;
    }
    let at = out.len();
    let mut from = range.start;
    while from < range.end {
        let chunk: &[u8; 16] = bytes[from..].first_chunk().unwrap_or(&[0; 16]);
        out.extend_from_slice(chunk);
        from += 16;
    }
    out.truncate(at + len);
}

/// Appends the rows of the lines with 0-based indices in `range` (clamped to the
/// document), each followed by `\n`, reserving the buffer once.
///
/// ```
/// use hashline_core::{window::push_rows, Document};
/// let doc = Document::parse(b"alpha\r\nbeta".to_vec());
/// let mut out = Vec::new();
/// push_rows(&mut out, &doc, 0..2);
/// assert_eq!(out, b"1:3c8|alpha\n2:589|beta\n");
/// ```
pub fn push_rows(out: &mut Vec<u8>, doc: &Document, range: Range<usize>) {
    let mut rows = Rows::new(doc, range);
    out.reserve(rows.remaining_bytes() + rows.remaining() * 16 + CHUNKED_MAX);
    while rows.push_next(out).is_some() {
        out.push(b'\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::row::push_row;

    fn simple(doc: &Document, range: Range<usize>) -> Vec<u8> {
        let mut out = Vec::new();
        for line in doc.lines_in(range) {
            push_row(&mut out, line.number, line.hash(), line.content);
            out.push(b'\n');
        }
        out
    }

    #[test]
    fn counts_across_every_digit_width() {
        let doc = Document::parse(Vec::new());
        let mut rows = Rows::new(&doc, 0..1);
        for n in 1..=100_000u32 {
            assert_eq!(&rows.prefix[..rows.width], n.to_string().as_bytes());
            rows.increment();
        }
        let (prefix, width) = prefix_of(u32::MAX);
        rows.prefix = prefix;
        rows.width = width;
        rows.number = u32::MAX;
        rows.increment();
        assert_eq!(&rows.prefix[..rows.width], b"4294967295");
    }

    #[test]
    fn equals_row_by_row_rendering() {
        let text = b"a\n\tb\x01c\r\n\xff\xfe\rcaf\xc3\xa9\n\n".repeat(40);
        let doc = Document::parse([&b"x".repeat(5000)[..], b"\n", &text, b"end"].concat());
        // Whole, inside, empty, reversed (start past end) and past the last line.
        for (start, end) in [(0, doc.line_count()), (3, 9), (0, 0), (7, 3), (200, 100_000)] {
            let range = start..end;
            let mut out = Vec::new();
            push_rows(&mut out, &doc, range.clone());
            assert_eq!(out, simple(&doc, range));
        }
    }
}
