//! Structural search over files: each file of a query's languages read, parsed and
//! matched within [`AstLimits`], in parallel with the walk of text search; what the bounds
//! kept out is counted and named.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use ast_grep_core::matcher::MatcherExt;
use ast_grep_core::tree_sitter::StrDoc;
use ast_grep_core::{AstGrep, Matcher, Pattern};
use hashline_core::document::BOM;
use hashline_core::{Document, LineNo};
use hashline_syntax::{LanguageId, ParseLimits, SyntaxError};

use crate::ast::{AstFileHits, AstLanguage, AstQuery};
use crate::ast_bounds::{AstLimits, Held, InFlight, MAX_COMPARE_DEPTH, deeper_than};
use crate::rules::SkippedIgnoreFile;
use crate::walk::{FileVisitor, SearchError, walk_files, walker};
use hashline_fs::open::open_regular;

/// Why a file of the search's languages was not searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NotSearched {
    /// Larger than [`AstLimits::max_file_bytes`].
    TooLarge,
    /// Its parse or its match ran past the time bound, or it was reached after the search's
    /// own time bound.
    TimedOut,
    /// The pattern repeats a metavariable and the file nests deeper than
    /// [`MAX_COMPARE_DEPTH`](crate::MAX_COMPARE_DEPTH).
    TooDeep,
}

/// How many skipped files a search keeps by name (it counts them all).
pub const MAX_NOT_SEARCHED_KEPT: usize = 1000;

/// What a structural search found.
#[derive(Default)]
pub struct AstOutcome {
    /// Files with matches, sorted by path.
    pub files: Vec<AstFileHits>,
    /// Every match found.
    pub total_matches: u64,
    /// Files searched (of a language the query runs on).
    pub searched_files: u64,
    /// Files skipped: not UTF-8 (ast-grep needs text), or unreadable (FIFOs, sockets and
    /// devices met in the walk included), and directories the walk could not read.
    pub skipped_files: u64,
    /// Ignore files that were not applied (a FIFO, a device, too large, unreadable), by path.
    pub skipped_ignore_files: Vec<SkippedIgnoreFile>,
    /// Files a bound kept from being searched, by reason.
    pub too_large_files: u64,
    /// See [`NotSearched::TimedOut`].
    pub timed_out_files: u64,
    /// See [`NotSearched::TooDeep`].
    pub too_deep_files: u64,
    /// The files a bound kept from being searched (the first [`MAX_NOT_SEARCHED_KEPT`] a
    /// thread met), sorted by path.
    pub not_searched: Vec<(PathBuf, NotSearched)>,
}

impl AstOutcome {
    fn not_searched(&mut self, path: &Path, why: NotSearched) {
        *match why {
            NotSearched::TooLarge => &mut self.too_large_files,
            NotSearched::TimedOut => &mut self.timed_out_files,
            NotSearched::TooDeep => &mut self.too_deep_files,
        } += 1;
        if self.not_searched.len() < MAX_NOT_SEARCHED_KEPT {
            self.not_searched.push((path.to_path_buf(), why));
        }
    }

    fn absorb(&mut self, found: AstOutcome) {
        self.files.extend(found.files);
        self.total_matches += found.total_matches;
        self.searched_files += found.searched_files;
        self.skipped_files += found.skipped_files;
        self.too_large_files += found.too_large_files;
        self.timed_out_files += found.timed_out_files;
        self.too_deep_files += found.too_deep_files;
        self.not_searched.extend(found.not_searched);
    }
}

/// Searches `root` (a directory walked in parallel with `rg`'s rules and the optional
/// `glob`, or one file) for the query, each file within `limits`. `threads`: 0 = one per
/// core.
pub fn ast_search(
    root: &Path,
    query: &AstQuery,
    glob: Option<&str>,
    threads: usize,
    limits: AstLimits,
) -> Result<AstOutcome, SearchError> {
    ast_search_cancellable(root, query, glob, threads, limits, &AtomicBool::new(false))
}

/// [`ast_search`], stopped soon once `cancel` is set: the walk quits, no file is read or
/// parsed any more, and a file's match stops within its next 1,024 nodes (a parse in
/// progress runs to its end, at most [`AstLimits::max_parse_time`]). The outcome is then
/// partial, for the caller to drop.
pub fn ast_search_cancellable(
    root: &Path,
    query: &AstQuery,
    glob: Option<&str>,
    threads: usize,
    limits: AstLimits,
    cancel: &AtomicBool,
) -> Result<AstOutcome, SearchError> {
    let meta = hashline_fs::lookup::metadata(root)?;
    let in_flight = InFlight::new(limits.max_bytes_in_flight);
    let deadline = Instant::now().checked_add(limits.max_search_time);
    let prefix = Mutex::new(Prefix { limit: limits.keep_documents, docs: BTreeMap::new(), cut: None });
    let make = || Worker {
        query,
        limits,
        in_flight: &in_flight,
        deadline,
        cancel,
        prefix: &prefix,
        found: AstOutcome::default(),
    };
    let mut outcome = AstOutcome::default();
    let workers = if meta.is_dir() {
        let (walk, rules) = walker(root, threads, glob)?;
        let workers = walk_files(&walk, make);
        outcome.skipped_ignore_files = rules.skipped();
        workers
    } else {
        // A FIFO, socket or device named as the path fails at once, as `read` does
        // ([`crate::NotRegularFile`]); one met in a walk is skipped.
        drop(open_regular(root)?);
        let mut worker = make();
        worker.file(root);
        vec![worker]
    };
    for worker in workers {
        outcome.absorb(worker.found);
    }
    outcome.files.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    let mut docs = prefix.into_inner().unwrap_or_else(|p| p.into_inner()).docs;
    for hits in &mut outcome.files {
        if let Some((_, document)) = docs.remove(&hits.path) {
            hits.document = document;
            hits.document_kept = true;
        }
    }
    outcome.not_searched.sort_unstable();
    outcome.not_searched.truncate(MAX_NOT_SEARCHED_KEPT);
    Ok(outcome)
}

/// The byte ranges (first byte, last byte) of the matches of `pattern` in one source text,
/// or why the file cannot be searched within `limits`. `compares`: the pattern repeats a
/// metavariable, so the file's depth is bounded too. Once `cancel` is set the match stops
/// (as timed out: the search's outcome is dropped).
fn find_ranges(
    text: &str,
    lang: LanguageId,
    pattern: &Pattern,
    compares: bool,
    limits: AstLimits,
    cancel: &AtomicBool,
) -> Result<Vec<(usize, usize)>, NotSearched> {
    let parse_limits = ParseLimits { max_bytes: usize::MAX, max_time: limits.max_parse_time };
    let tree = match hashline_syntax::parse(lang, text.as_bytes(), None, parse_limits) {
        Ok(tree) => tree,
        Err(SyntaxError::TooLarge { .. }) => return Err(NotSearched::TooLarge),
        Err(_) => return Err(NotSearched::TimedOut),
    };
    if compares && deeper_than(tree.root_node(), MAX_COMPARE_DEPTH) {
        return Err(NotSearched::TooDeep);
    }
    let root = AstGrep::doc(StrDoc { src: text.to_owned(), lang: AstLanguage(lang), tree });
    let kinds = pattern.potential_kinds();
    let started = Instant::now();
    let mut ranges = Vec::new();
    for (visited, node) in root.root().dfs().enumerate() {
        if visited % 1024 == 0 && (started.elapsed() > limits.max_match_time || cancel.load(Ordering::Relaxed)) {
            return Err(NotSearched::TimedOut);
        }
        if kinds.as_ref().is_some_and(|kinds| !kinds.contains(node.kind_id().into())) {
            continue;
        }
        if let Some(found) = pattern.match_node(node) {
            let range = found.range();
            ranges.push((range.start, range.end.max(range.start + 1) - 1));
        }
    }
    Ok(ranges)
}

/// The lines of byte ranges of a text that starts at `text_start` of the document's bytes
/// (after a BOM).
fn to_lines(doc: &Document, text_start: usize, ranges: &[(usize, usize)]) -> Vec<(LineNo, LineNo)> {
    let starts: Vec<usize> =
        (0..doc.line_count()).filter_map(|i| doc.content_range(LineNo::from_index(i)).map(|r| r.start)).collect();
    let line_of = |byte: usize| LineNo::from_index(starts.partition_point(|&s| s <= byte).saturating_sub(1));
    ranges.iter().map(|&(first, last)| (line_of(text_start + first), line_of(text_start + last))).collect()
}

/// The texts of the files that may hold the first `limit` matches in path order, shared by
/// the threads: a file sorting after `cut` (where the files kept so far reach `limit`) keeps
/// none. Each offer walks at most `limit` kept files.
struct Prefix {
    limit: u64,
    docs: BTreeMap<PathBuf, (u64, Document)>,
    cut: Option<PathBuf>,
}

impl Prefix {
    fn offer(&mut self, path: &Path, matches: u64, document: Document) {
        if self.cut.as_deref().is_some_and(|cut| path > cut) {
            return;
        }
        self.docs.insert(path.to_path_buf(), (matches, document));
        let mut sum = 0u64;
        let cut = self.docs.iter().find_map(|(path, (n, _))| {
            sum += n;
            (sum >= self.limit).then(|| path.clone())
        });
        if let Some(cut) = cut {
            let mut after = self.docs.split_off(&cut);
            if let Some(at) = after.remove(&cut) {
                self.docs.insert(cut.clone(), at);
            }
            self.cut = Some(cut);
        }
    }
}

/// From this size of text on, a file's syntax tree (~20 times the text) is given back to
/// the system once freed (`hashline_fs::heap`): the structural search's peak memory went
/// from 42 to 33 MiB on the bench's sub-corpus at about 2 % of its time (at 64 KiB: 31 MiB,
/// 4 %).
const LARGE_TREE_TEXT: usize = 128 << 10;

/// One thread's findings.
struct Worker<'a> {
    prefix: &'a Mutex<Prefix>,
    query: &'a AstQuery,
    limits: AstLimits,
    in_flight: &'a InFlight,
    /// Files reached after this are not searched (`None`: a bound too far to be reached).
    deadline: Option<Instant>,
    /// Set when the caller cancelled the search: nothing more is searched.
    cancel: &'a AtomicBool,
    found: AstOutcome,
}

/// The file's bytes, at most the size bound, held in the search's bytes in flight;
/// `Err(None)` when it cannot be read, or is not a regular file (a FIFO would block the
/// read).
fn read<'p>(
    path: &Path,
    limits: AstLimits,
    in_flight: &'p InFlight,
) -> Result<(Vec<u8>, Held<'p>), Option<NotSearched>> {
    // Opened without waiting, the type checked on the handle; read up to its length then.
    let opened = open_regular(path).map_err(|_| None)?;
    if opened.len > limits.max_file_bytes {
        return Err(Some(NotSearched::TooLarge));
    }
    let held = in_flight.hold(opened.len);
    let mut bytes = Vec::with_capacity(usize::try_from(opened.len).unwrap_or(0));
    opened.reader(limits.max_file_bytes).read_to_end(&mut bytes).map_err(|_| None)?;
    Ok((bytes, held))
}

impl FileVisitor for Worker<'_> {
    fn file(&mut self, path: &Path) {
        if self.stopped() {
            return;
        }
        let Some((lang, pattern)) = self.query.for_path(path) else { return };
        if self.deadline.is_some_and(|deadline| Instant::now() > deadline) {
            return self.found.not_searched(path, NotSearched::TimedOut);
        }
        let (bytes, held) = match read(path, self.limits, self.in_flight) {
            Ok(read) => read,
            Err(Some(why)) => return self.found.not_searched(path, why),
            Err(None) => {
                self.found.skipped_files += 1;
                return;
            }
        };
        let text_start = if bytes.starts_with(BOM) { BOM.len() } else { 0 };
        let Ok(text) = std::str::from_utf8(&bytes[text_start..]) else {
            self.found.skipped_files += 1;
            return;
        };
        if !self.query.may_match(lang, text.as_bytes()) {
            self.found.searched_files += 1;
            return;
        }
        let ranges = find_ranges(text, lang, pattern, self.query.compares, self.limits, self.cancel);
        if text.len() >= LARGE_TREE_TEXT {
            // Its tree is freed: the next large one may be built on another thread.
            hashline_fs::heap::release_free_memory();
        }
        let ranges = match ranges {
            Ok(ranges) => ranges,
            Err(why) => return self.found.not_searched(path, why),
        };
        drop(held);
        self.found.searched_files += 1;
        if ranges.is_empty() {
            return;
        }
        // Only a file with matches gets its line model (the bytes move into it).
        let document = Document::parse(bytes);
        let matches = to_lines(&document, text_start, &ranges);
        self.found.total_matches += matches.len() as u64;
        self.prefix.lock().unwrap_or_else(|p| p.into_inner()).offer(path, matches.len() as u64, document);
        let document = Document::parse(Vec::new());
        self.found.files.push(AstFileHits {
            path: path.to_path_buf(),
            language: lang,
            matches,
            document,
            document_kept: false,
        });
    }

    fn error(&mut self, _path: Option<&Path>) {
        // A directory the walk could not read (permissions, too deep for the system's
        // paths): its files were not searched, and the result says so.
        self.found.skipped_files += 1;
    }

    fn stopped(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn line(n: u32) -> LineNo {
        LineNo::new(n).expect("line")
    }

    #[test]
    fn finds_rust_matches_on_the_real_lines() {
        let query = AstQuery::new("$X.unwrap()", Some(LanguageId::Rust)).expect("pattern");
        let bytes = b"\xEF\xBB\xBFfn a() {\r\n    let v = x\r\n        .unwrap();\r\n}\r\n".to_vec();
        let doc = Document::parse(bytes.clone());
        let text = std::str::from_utf8(&bytes[3..]).expect("utf8");
        let (lang, pattern) = query.for_path(Path::new("a.rs")).expect("rust file");
        let ranges =
            find_ranges(text, lang, pattern, false, AstLimits::DEFAULT, &AtomicBool::new(false)).expect("searched");
        assert_eq!(to_lines(&doc, 3, &ranges), [(line(2), line(3))]);
        assert!(query.for_path(Path::new("a.py")).is_none());
    }

    /// Only the files of the first `keep_documents` matches in path order keep their text;
    /// the matches and counts are those of a search keeping every text.
    #[test]
    fn texts_are_kept_for_the_path_ordered_prefix_only() {
        let dir = tempfile::tempdir().expect("tempdir");
        for i in 0..60 {
            let body = "fn a() { b.unwrap(); }\n".repeat(i % 4 + 1);
            std::fs::write(dir.path().join(format!("f{:02}.rs", (i * 7) % 60)), body).expect("write");
        }
        let query = AstQuery::new("$X.unwrap()", Some(LanguageId::Rust)).expect("pattern");
        for threads in [1, 2] {
            let all = ast_search(dir.path(), &query, None, threads, AstLimits::DEFAULT).expect("search");
            assert!(all.files.iter().all(|f| f.document_kept));
            for keep in [1u64, 5, 30] {
                let limits = AstLimits { keep_documents: keep, ..AstLimits::DEFAULT };
                let some = ast_search(dir.path(), &query, None, threads, limits).expect("search");
                assert_eq!(some.total_matches, all.total_matches);
                let mut before = 0u64;
                for (a, b) in some.files.iter().zip(&all.files) {
                    assert_eq!((&a.path, &a.matches), (&b.path, &b.matches));
                    // Kept exactly while the files before it hold fewer than `keep` matches.
                    assert_eq!(a.document_kept, before < keep, "{threads} {keep} {}", a.path.display());
                    if a.document_kept {
                        assert_eq!(a.document.as_bytes(), b.document.as_bytes());
                    } else {
                        assert!(a.document.as_bytes().is_empty());
                    }
                    before += a.matches.len() as u64;
                }
            }
        }
    }

    #[test]
    fn files_past_a_bound_are_counted_and_named_not_searched() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("big.rs"), "fn a() { b.unwrap(); }\n".repeat(20_000)).expect("write");
        std::fs::write(dir.path().join("small.rs"), "fn a() { b.unwrap(); }\n").expect("write");
        let query = AstQuery::new("$X.unwrap()", Some(LanguageId::Rust)).expect("pattern");
        let run = |limits| ast_search(dir.path(), &query, None, 1, limits).expect("search");
        let whole = run(AstLimits::DEFAULT);
        assert_eq!((whole.total_matches, whole.searched_files, whole.not_searched.len()), (20_001, 2, 0));

        let small = AstLimits { max_file_bytes: 1000, ..AstLimits::DEFAULT };
        let found = run(small);
        assert_eq!((found.total_matches, found.searched_files, found.too_large_files), (1, 1, 1));
        assert_eq!(found.not_searched, [(dir.path().join("big.rs"), NotSearched::TooLarge)]);

        let no_parse_time = AstLimits { max_parse_time: Duration::ZERO, ..AstLimits::DEFAULT };
        let found = run(no_parse_time);
        assert_eq!(found.timed_out_files, 1, "the big file's parse is cancelled");
        assert_eq!(found.not_searched[0], (dir.path().join("big.rs"), NotSearched::TimedOut));

        let no_match_time = AstLimits { max_match_time: Duration::ZERO, ..AstLimits::DEFAULT };
        let found = run(no_match_time);
        assert_eq!((found.total_matches, found.timed_out_files), (0, 2));

        let no_search_time = AstLimits { max_search_time: Duration::ZERO, ..AstLimits::DEFAULT };
        let found = run(no_search_time);
        assert_eq!((found.total_matches, found.searched_files, found.timed_out_files), (0, 0, 2));
    }

    /// A cancelled search reads no more files, and a match in progress stops.
    #[test]
    fn a_cancelled_search_stops() {
        let dir = tempfile::tempdir().expect("tempdir");
        for n in 0..50 {
            std::fs::write(dir.path().join(format!("f{n}.rs")), "fn a() { b.unwrap(); }\n").expect("write");
        }
        let query = AstQuery::new("$X.unwrap()", Some(LanguageId::Rust)).expect("pattern");
        let cancelled = AtomicBool::new(true);
        let found =
            ast_search_cancellable(dir.path(), &query, None, 2, AstLimits::DEFAULT, &cancelled).expect("search");
        assert_eq!((found.total_matches, found.searched_files), (0, 0));
        let text = "fn a() { b.unwrap(); }\n".repeat(2000);
        let (lang, pattern) = query.for_path(Path::new("a.rs")).expect("rust file");
        let stopped = find_ranges(&text, lang, pattern, false, AstLimits::DEFAULT, &cancelled);
        assert_eq!(stopped, Err(NotSearched::TimedOut));
    }

    #[test]
    fn a_special_file_is_skipped_without_blocking() {
        let dir = tempfile::tempdir().expect("tempdir");
        let fifo = dir.path().join("pipe.rs");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            return;
        }
        let query = AstQuery::new("$X.unwrap()", Some(LanguageId::Rust)).expect("pattern");
        // Named as the path: refused at once, as read refuses it.
        let err = ast_search(&fifo, &query, None, 1, AstLimits::DEFAULT).err().expect("refused");
        assert!(matches!(&err, SearchError::Io(io) if crate::NotRegularFile::is(io)), "{err:?}");
        // Met in a walk: skipped.
        let found = ast_search(dir.path(), &query, None, 1, AstLimits::DEFAULT).expect("search");
        assert_eq!(found.searched_files, 0);
    }

    /// The files of every source text below `dir` with an extension of the registry.
    fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("list").filter_map(Result::ok) {
            let path = entry.path();
            if path.is_dir() {
                sources(&path, out);
            } else if LanguageId::from_path(&path.to_string_lossy()).is_some() {
                out.push(path);
            }
        }
    }

    /// The prefilter never rules out a file with a match: over this crate's own sources (as
    /// packaged too) and a few texts of other languages, a pattern with operator tokens finds
    /// exactly what it finds with no prefilter at all; some files are ruled out.
    #[test]
    fn the_prefilter_rules_out_no_file_with_a_match() {
        let mut files = Vec::new();
        sources(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut files);
        let texts: Vec<(String, String)> = files
            .iter()
            .map(|p| (p.to_string_lossy().into_owned(), std::fs::read_to_string(p).expect("read")))
            .chain(
                [
                    ("a.py", "def f(a, b) -> bool:\n    return a == b or a != b\n"),
                    ("a.ts", "const f = (a: number) => a === 1 ? a : a !== 2;\n"),
                    ("a.c", "int f(struct s *p) { return p->x == 1 && p->y != 2; }\n"),
                    ("a.go", "func f(a int) bool { b := a; return a == b }\n"),
                    ("b.py", "x = [a + b, -c, a * b, d[0], e if f else g, h % i, ~j, k @ l]\n"),
                    ("b.ts", "const y = a + b * -c / d % e, z = f ? g : h, w = i?.j ?? k[0] | l ^ m & n;\n"),
                    ("b.c", "int g(int a, int b) { int c = a + b * -a / b % 2; return !c ? ~a : a ^ b | c & a; }\n"),
                ]
                .map(|(p, t)| (p.to_owned(), t.to_owned())),
            )
            .collect();
        let patterns = [
            "$A == $B",
            "$A != $B",
            "$A::$B($$$C)",
            "fn $F($$$A) -> $R { $$$B }",
            "$A => $B",
            "$A->$B",
            "$A := $B",
            "$A === $B",
            "$A && $B",
            "$A + $B",
            "$A * $B",
            "-$A",
            "!$A",
            "$A[$B]",
            "$A % $B",
            "$A ? $B : $C",
            "$A | $B",
            "$A ^ $B",
            "$X.unwrap()",
        ];
        let (mut matched, mut ruled_out) = (0, 0);
        for pattern in patterns {
            let query = AstQuery::new(pattern, None).expect("pattern");
            for (path, text) in &texts {
                let Some((lang, compiled)) = query.for_path(Path::new(path)) else { continue };
                let ranges =
                    find_ranges(text, lang, compiled, query.compares, AstLimits::DEFAULT, &AtomicBool::new(false))
                        .expect("searched");
                let may = query.may_match(lang, text.as_bytes());
                assert!(ranges.is_empty() || may, "{pattern}: {path} has {} matches but was ruled out", ranges.len());
                matched += usize::from(!ranges.is_empty());
                ruled_out += usize::from(!may);
            }
        }
        assert!(matched > 40 && ruled_out > 10, "matched {matched}, ruled out {ruled_out}");
    }
}
