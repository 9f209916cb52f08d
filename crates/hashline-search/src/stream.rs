//! Searching a large file as a stream, in bounded memory: read in chunks, split on the real
//! line model (`\n`, `\r\n`, bare `\r`; a BOM is not part of line 1), each line matched on
//! its own. A NUL byte stops the read at once: the file is binary (as `rg` quits on one), so
//! a huge sparse file costs one chunk. This is the search of files with bare `\r` line
//! endings; the others go through ripgrep's searcher, with the same results.

use std::collections::VecDeque;
use std::io::{self, Read};
use std::path::PathBuf;

use grep_matcher::Matcher;
use hashline_core::LineNo;
use hashline_core::document::BOM;

use crate::query::CompiledQuery;
use crate::scan::{FileHits, FileScan, HitKind, HitLine};

/// The longest line a streamed file may have (16 MiB): a file with a longer one is not
/// searched (an [`io::ErrorKind::InvalidData`] error: unreadable).
pub const MAX_LINE_BYTES: usize = 16 * (1 << 20);

/// The most bytes of kept lines one streamed file returns (64 MiB): past it, matches are
/// still counted but no more are kept.
pub const MAX_KEPT_BYTES: usize = 64 * (1 << 20);

/// How much is read at a time.
const CHUNK: usize = 1 << 16;

/// Searches the bytes of `reader` line by line. Every matching line is counted; the first
/// `keep` matches are kept with `query.context` lines around them (a line that matched is a
/// match, never context; one past `keep` is not kept), as the whole-file scan keeps them.
pub(crate) fn scan_stream(mut reader: impl Read, query: &CompiledQuery, keep: usize) -> io::Result<FileScan> {
    let mut scan = Stream::new(query, keep);
    let mut chunk = vec![0u8; CHUNK];
    // The first bytes, at least as many as a BOM has (unless the file is shorter).
    let mut filled = 0;
    while filled < BOM.len() {
        match fill(&mut reader, &mut chunk[filled..])? {
            0 => break,
            read => filled += read,
        }
    }
    let mut bytes = chunk[..filled].strip_prefix(BOM).unwrap_or(&chunk[..filled]);
    // The bytes of the file's first BINARY_SNIFF_BYTES still to check for a NUL.
    let mut sniff = crate::BINARY_SNIFF_BYTES;
    loop {
        let checked = bytes.len().min(sniff);
        if memchr::memchr(0, &bytes[..checked]).is_some() {
            return Ok(FileScan::Binary);
        }
        sniff -= checked;
        scan.feed(bytes)?;
        match fill(&mut reader, &mut chunk)? {
            0 => break,
            read => bytes = &chunk[..read],
        }
    }
    scan.finish()
}

/// One read, retried when interrupted.
fn fill(reader: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    loop {
        match reader.read(buf) {
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}

/// The state of one streamed search.
struct Stream<'q> {
    query: &'q CompiledQuery,
    keep: usize,
    /// The line being read (without its terminator).
    line: Vec<u8>,
    /// The last byte fed was a `\r` (its line ended; a `\n` next belongs to it).
    after_cr: bool,
    bare_cr: bool,
    /// Lines finished so far.
    lines_seen: u64,
    count: u64,
    kept: usize,
    kept_bytes: usize,
    /// Matches keep context after them up to this line.
    after_until: u64,
    /// Lines not kept, most recent last, at most `context` of them: the context before the
    /// next kept match.
    before: VecDeque<(u64, Vec<u8>)>,
    lines: Vec<HitLine>,
}

impl<'q> Stream<'q> {
    fn new(query: &'q CompiledQuery, keep: usize) -> Self {
        Self {
            query,
            keep,
            line: Vec::new(),
            after_cr: false,
            bare_cr: false,
            lines_seen: 0,
            count: 0,
            kept: 0,
            kept_bytes: 0,
            after_until: 0,
            before: VecDeque::new(),
            lines: Vec::new(),
        }
    }

    fn feed(&mut self, mut bytes: &[u8]) -> io::Result<()> {
        if self.after_cr {
            self.after_cr = false;
            match bytes.first() {
                Some(b'\n') => bytes = &bytes[1..],
                Some(_) => self.bare_cr = true,
                None => {}
            }
        }
        while let Some(end) = memchr::memchr2(b'\n', b'\r', bytes) {
            self.extend(&bytes[..end])?;
            let terminator = bytes[end];
            bytes = &bytes[end + 1..];
            self.end_line()?;
            if terminator == b'\r' {
                match bytes.first() {
                    Some(b'\n') => bytes = &bytes[1..],
                    Some(_) => self.bare_cr = true,
                    None => self.after_cr = true,
                }
            }
        }
        self.extend(bytes)
    }

    fn extend(&mut self, bytes: &[u8]) -> io::Result<()> {
        if self.line.len() + bytes.len() > MAX_LINE_BYTES {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("a line is longer than {MAX_LINE_BYTES} bytes"),
            ));
        }
        self.line.extend_from_slice(bytes);
        Ok(())
    }

    fn end_line(&mut self) -> io::Result<()> {
        self.lines_seen += 1;
        let number = self.lines_seen;
        let line = std::mem::take(&mut self.line);
        let matched = self.query.matcher.is_match(&line).unwrap_or(false);
        let context = self.query.context as u64;
        if matched {
            self.count += 1;
        }
        if matched && self.kept < self.keep {
            self.kept += 1;
            while let Some((n, before)) = self.before.pop_front() {
                self.push(n, &before, HitKind::Context)?;
            }
            self.push(number, &line, HitKind::Match)?;
            self.after_until = number.saturating_add(context);
            if self.kept_bytes > MAX_KEPT_BYTES {
                self.keep = self.kept;
            }
        } else if matched {
            // Counted, not kept (as the whole-file scan does).
        } else if self.kept > 0 && number <= self.after_until {
            self.push(number, &line, HitKind::Context)?;
        } else if context > 0 && self.kept < self.keep {
            if self.before.len() as u64 >= context {
                self.before.pop_front();
            }
            self.before.push_back((number, line));
        }
        Ok(())
    }

    fn push(&mut self, number: u64, content: &[u8], kind: HitKind) -> io::Result<()> {
        let line = u32::try_from(number)
            .ok()
            .and_then(LineNo::new)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, format!("more than {} lines", u32::MAX)))?;
        self.kept_bytes += content.len();
        self.lines.push(HitLine::new(line, content, kind));
        Ok(())
    }

    fn finish(mut self) -> io::Result<FileScan> {
        // A `\r` last in the file is a bare one (as the whole-file scan counts it).
        self.bare_cr |= self.after_cr;
        // A last line without a terminator is a line; an empty one after a terminator is not.
        if !self.line.is_empty() {
            self.end_line()?;
        }
        if self.count == 0 {
            return Ok(FileScan::NoMatch);
        }
        Ok(FileScan::Matched(FileHits {
            path: PathBuf::new(),
            match_count: self.count,
            lines: self.lines,
            bare_cr: self.bare_cr,
            identity: None,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Query;

    /// The whole-buffer scan and the stream agree, read in pieces of any size.
    #[test]
    fn the_stream_finds_what_the_whole_file_scan_finds() {
        let texts: &[&[u8]] = &[
            b"alpha\nbeta\ngamma\nbeta\n",
            b"\xEF\xBB\xBFalpha\r\nbeta\r\ngamma\r\nbeta",
            b"alpha\rbeta\rgamma\rbeta\r",
            b"x\nbeta\n\nbeta\rbeta\r\nx\nx\nx\nbeta\n",
            b"no match here\n",
            b"beta\n\0binary",
        ];
        for text in texts {
            let bare_cr = text.windows(2).any(|w| w[0] == b'\r' && w[1] != b'\n') || text.ends_with(b"\r");
            for (pattern, context, keep) in [("beta", 0, 10), ("^(beta|alpha)$", 1, 10), ("beta", 2, 1), ("a", 1, 2)] {
                // The bare-CR scan also keeps matches past `keep` that fall in a kept one's
                // context; the stream keeps them as the common (searcher) scan does.
                if bare_cr && keep < 10 {
                    continue;
                }
                let query = Query::new(pattern).context(context).compile().expect("query");
                let whole = crate::scan_bytes(text, &query, &mut crate::walk::searcher(query.context()), keep);
                for piece in [1, 2, 3, 7, 64] {
                    let streamed = scan_stream(Pieces(text, piece), &query, keep).expect("stream");
                    assert_eq!(
                        streamed,
                        whole,
                        "{:?} /{pattern}/ context {context} keep {keep} in pieces of {piece}",
                        String::from_utf8_lossy(text)
                    );
                }
            }
        }
    }

    #[test]
    fn an_endless_line_is_an_error_not_a_buffer() {
        let query = Query::new("x").compile().expect("query");
        let err = scan_stream(io::repeat(b'a').take(MAX_LINE_BYTES as u64 + 2), &query, 10).expect_err("too long");
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert_eq!(scan_stream(io::repeat(0).take(1 << 40), &query, 10).expect("binary"), FileScan::Binary);
    }

    /// A reader that returns at most `.1` bytes a read.
    struct Pieces<'a>(&'a [u8], usize);

    impl Read for Pieces<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.1.min(buf.len()).min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }
}
