//! Searching a tree: the `ignore` crate's parallel walker with `rg`'s rules, one searcher
//! and one read buffer per thread, results gathered and sorted by path.

use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use grep_matcher::LineTerminator;
use grep_searcher::{Searcher, SearcherBuilder};
use ignore::overrides::OverrideBuilder;
use ignore::{DirEntry, ParallelVisitor, ParallelVisitorBuilder, WalkBuilder, WalkState};

use crate::rules::{IgnoreConfig, SkippedIgnoreFile, TreeRules};

use crate::query::CompiledQuery;
use crate::scan::{FileHits, FileScan};
use crate::stream::scan_stream;
use hashline_core::document::BOM;
use hashline_fs::open::open_regular;

/// How a tree is searched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchOptions {
    /// Only files whose path (relative to the searched directory) matches this glob, with
    /// `rg --glob` semantics: a glob without `/` matches the name at any depth, a leading
    /// `!` excludes.
    pub glob: Option<String>,
    /// Walker threads; 0 picks one per core (up to 12), as `rg` does.
    pub threads: usize,
    /// How many matches each file keeps with their lines (all are counted).
    pub keep_per_file: usize,
    /// Search the files in path order (walked and searched in parallel, a bounded
    /// look-ahead per thread; see `ordered.rs`) and stop once the files so far hold more
    /// than this many matches: the outcome's files are then exactly the full search's first
    /// ones, its counts cover those only, and [`SearchOutcome::stopped`] says so.
    pub stop_after: Option<u64>,
    /// `(above, keep)`: once more than `above` matches are found, each file keeps only its
    /// first `keep` matches (and their context); files kept before are trimmed to it.
    pub keep_above: Option<(u64, usize)>,
    /// `(files, chars)`: in a search in path order (`stop_after`; ignored otherwise), the
    /// files after the first `files` with matches keep of each line only how it displays cut
    /// at `chars` characters ([`HitLine::measured`](crate::HitLine::measured)), not its
    /// bytes. For a caller whose text shows at most `files` rows and only counts the rest
    /// (grep's 2000-line budget: an unbounded search keeps ~30k lines).
    pub measure_after: Option<(usize, usize)>,
    /// Set by the caller to cancel the search: the walk quits, no further file is read,
    /// and the outcome holds what was found so far ([`SearchOutcome::stopped`]).
    pub cancel: Option<Cancel>,
}

impl SearchOptions {
    /// Whether the caller cancelled the search.
    pub fn cancelled(&self) -> bool {
        self.cancel.as_ref().is_some_and(|flag| flag.0.load(std::sync::atomic::Ordering::Relaxed))
    }
}

/// A caller's cancellation flag for a search (two are equal when they are the same flag).
#[derive(Clone, Debug, Default)]
pub struct Cancel(pub std::sync::Arc<std::sync::atomic::AtomicBool>);

impl PartialEq for Cancel {
    fn eq(&self, other: &Self) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Cancel {}

impl Default for SearchOptions {
    fn default() -> Self {
        Self {
            glob: None,
            threads: 0,
            keep_per_file: usize::MAX,
            stop_after: None,
            keep_above: None,
            measure_after: None,
            cancel: None,
        }
    }
}

/// What a search found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchOutcome {
    /// Files with at least one match, sorted by path.
    pub files: Vec<FileHits>,
    /// Every matching line in every searched file.
    pub total_matches: u64,
    /// Text files searched.
    pub searched_files: u64,
    /// Files skipped as binary: a NUL byte in their first [`BINARY_SNIFF_BYTES`].
    pub binary_files: u64,
    /// Files or directories that could not be read (skipped, as `rg` does with a message:
    /// unreadable, too deep for the system's path length, a line over the buffer bound),
    /// and ignore files with lines that are not globs.
    pub unreadable: u64,
    /// The first skipped files and directories by path ([`Skipped`]), at most
    /// [`NAMED_SKIPS`] of each kind, in path order: what a result names to the model.
    pub skipped: Vec<(PathBuf, Skipped)>,
    /// Ignore files that were not applied (a FIFO, a device, too large, unreadable), by path.
    pub skipped_ignore_files: Vec<SkippedIgnoreFile>,
    /// The search stopped at [`SearchOptions::stop_after`]: files after the last one in
    /// [`SearchOutcome::files`] were not searched (or not counted), so the counts are lower
    /// bounds.
    pub stopped: bool,
}

/// Why a file or directory was not searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Skipped {
    /// A NUL byte in its first [`BINARY_SNIFF_BYTES`].
    Binary,
    /// It could not be read (or walked into).
    Unreadable,
}

/// How many skipped paths of each kind a search keeps by name (it counts them all).
pub const NAMED_SKIPS: usize = 3;

/// A file is binary when a NUL byte is among its first this many bytes (git's and the
/// `read` sniff's window, docs/protocol.md §2.5); a NUL further on is searched as text.
pub const BINARY_SNIFF_BYTES: usize = 8192;

impl SearchOutcome {
    /// Counts one file's scan (searched, binary or unreadable, and its matches) and hands
    /// back its hits, if it matched, for the caller to keep.
    pub(crate) fn count(&mut self, path: &Path, scan: io::Result<FileScan>) -> Option<FileHits> {
        match scan {
            Ok(FileScan::Matched(hits)) => {
                self.searched_files += 1;
                self.total_matches += hits.match_count;
                return Some(hits);
            }
            Ok(FileScan::NoMatch) => self.searched_files += 1,
            Ok(FileScan::Binary) => {
                self.binary_files += 1;
                self.name_skip(Some(path), Skipped::Binary);
            }
            Err(_) => {
                self.unreadable += 1;
                self.name_skip(Some(path), Skipped::Unreadable);
            }
        }
        None
    }

    /// Counts an entry the walk could not read, by path when the walk said which.
    pub(crate) fn count_broken(&mut self, path: Option<&Path>) {
        self.unreadable += 1;
        self.name_skip(path, Skipped::Unreadable);
    }

    /// Keeps `path` among the named skips (the first [`NAMED_SKIPS`] of its kind seen here;
    /// [`SearchOutcome::merge_skipped`] keeps the first in path order across threads).
    fn name_skip(&mut self, path: Option<&Path>, why: Skipped) {
        if let Some(path) = path
            && self.skipped.iter().filter(|(_, w)| *w == why).count() < NAMED_SKIPS
        {
            self.skipped.push((path.to_path_buf(), why));
        }
    }

    /// Merges the named skips of `other` into these, keeping the first of each kind in path
    /// order (a thread's own are in walk order, not path order, so each thread keeps up to
    /// [`NAMED_SKIPS`] and the merged list is cut again).
    pub(crate) fn merge_skipped(&mut self, other: Vec<(PathBuf, Skipped)>) {
        self.skipped.extend(other);
        self.skipped.sort();
        let mut kept = [0usize; 2];
        self.skipped.retain(|(_, why)| {
            let n = &mut kept[*why as usize];
            *n += 1;
            *n <= NAMED_SKIPS
        });
    }
}

/// The path an error of the walk names, if any.
pub fn error_path(err: &ignore::Error) -> Option<&Path> {
    match err {
        ignore::Error::WithPath { path, .. } => Some(path),
        ignore::Error::Loop { child, .. } => Some(child),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => error_path(err),
        ignore::Error::Partial(errs) => errs.iter().find_map(error_path),
        _ => None,
    }
}

/// Why a search could not start.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// The glob does not parse.
    #[error("invalid glob {glob:?}: {message}")]
    Glob {
        /// The glob as given.
        glob: String,
        /// Why it does not parse.
        message: String,
    },
    /// The glob is longer than [`MAX_GLOB_BYTES`] (not compiled).
    #[error("the glob is {len} bytes long; the limit is {MAX_GLOB_BYTES} bytes")]
    GlobTooLong {
        /// Its length in bytes.
        len: usize,
    },
    /// The searched path cannot be read.
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// The searcher every thread uses: lines end at `\n` (a `\r` before it is part of the
/// terminator), line numbers on, `context` lines before and after, no transcoding.
pub(crate) fn searcher(context: usize) -> Searcher {
    SearcherBuilder::new()
        .line_terminator(LineTerminator::crlf())
        .line_number(true)
        .before_context(context)
        .after_context(context)
        .bom_sniffing(false)
        .heap_limit(Some(MAX_BUFFER_BYTES))
        .build()
}

/// The most a file's read buffer may grow to (64 MiB): a line, with the context lines held
/// around it, longer than that makes the file unreadable (counted in `unreadable`).
pub(crate) const MAX_BUFFER_BYTES: usize = 4 * crate::stream::MAX_LINE_BYTES;

/// Searches one file, whatever the ignore rules say about it (as `rg FILE` does). Only a
/// regular file is read (anything else fails with [`crate::NotRegularFile`], at once), and
/// only up to the length it had when it was opened.
pub fn search_file(path: &Path, query: &CompiledQuery, keep: usize) -> io::Result<FileScan> {
    scan_file(path, query, &mut searcher(query.context), keep)
}

/// Searches one regular file up to its length at open, read through the searcher's own
/// bounded buffer (as `rg` reads the files of a walk): memory is a buffer of a few lines,
/// whatever the file's size. A NUL byte ends the read (the file is binary); a bare `\r` ends
/// it too, and the file is searched again from its start line by line on the real model
/// ([`scan_stream`]), which the searcher does not split on.
pub(crate) fn scan_file(
    path: &Path,
    query: &CompiledQuery,
    searcher: &mut Searcher,
    keep: usize,
) -> io::Result<FileScan> {
    scan_file_reading_whole(path, query, searcher, keep, WHOLE_READ_BYTES)
}

/// [`scan_file`], reading files of at most `whole` bytes whole (tests run both ways).
fn scan_file_reading_whole(
    path: &Path,
    query: &CompiledQuery,
    searcher: &mut Searcher,
    keep: usize,
    whole: u64,
) -> io::Result<FileScan> {
    let opened = open_regular(path)?;
    let (len, identity) = (opened.len, opened.identity);
    let mut scan = if len <= whole {
        WHOLE.with_borrow_mut(|bytes| scan_whole(opened, bytes, query, searcher, keep))?
    } else {
        let mut guard = Guarded::new(opened.reader(u64::MAX));
        match crate::scan::scan_reader(&mut guard, query, searcher, keep) {
            _ if guard.binary => FileScan::Binary,
            _ if guard.bare_cr => {
                let mut file = guard.inner.into_inner();
                file.seek(SeekFrom::Start(0))?;
                scan_stream(file.take(len), query, keep)?
            }
            found => found?,
        }
    };
    if let FileScan::Matched(hits) = &mut scan {
        hits.path = path.to_path_buf();
        hits.identity = identity;
    }
    Ok(scan)
}

/// Files up to this length (most source files) are read whole, in one `read`, and searched
/// as one slice: the searcher's reader path reads a BOM's worth first and then to the end, two
/// more system calls per file.
const WHOLE_READ_BYTES: u64 = 256 * 1024;

thread_local! {
    /// Each walk thread's buffer for files read whole.
    // It is `const`: clippy 1.96 says otherwise for Windows targets (see `rules.rs`).
    #[allow(clippy::missing_const_for_thread_local)]
    static WHOLE: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Searches a file of at most [`WHOLE_READ_BYTES`], read whole into `bytes`, with
/// [`crate::scan::scan_bytes`]: what [`Guarded`] reading it finds (the BOM dropped, binary at
/// a NUL anywhere, a bare `\r` searched line by line on the real model).
fn scan_whole(
    opened: hashline_fs::open::Opened,
    bytes: &mut Vec<u8>,
    query: &CompiledQuery,
    searcher: &mut Searcher,
    keep: usize,
) -> io::Result<FileScan> {
    bytes.clear();
    opened.reader(u64::MAX).read_to_end(bytes)?;
    Ok(crate::scan::scan_bytes(bytes, query, searcher, keep))
}

/// A file's bytes as the searcher reads them: the BOM dropped, and the read ended (as at
/// the end of the file) at a NUL byte among the first [`BINARY_SNIFF_BYTES`] or at a bare
/// `\r`, which it notes.
struct Guarded<R> {
    inner: R,
    /// The first read is still to come (a BOM may lead).
    first: bool,
    /// The last byte handed out was a `\r`.
    after_cr: bool,
    binary: bool,
    bare_cr: bool,
    /// The bytes of the file's first [`BINARY_SNIFF_BYTES`] still to check for a NUL.
    sniff: usize,
}

impl<R: Read> Guarded<R> {
    fn new(inner: R) -> Self {
        Self { inner, first: true, after_cr: false, binary: false, bare_cr: false, sniff: BINARY_SNIFF_BYTES }
    }

    fn fill(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            match self.inner.read(buf) {
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                other => return other,
            }
        }
    }
}

impl<R: Read> Read for Guarded<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.binary || self.bare_cr {
            return Ok(0);
        }
        let mut n = self.fill(buf)?;
        if self.first {
            self.first = false;
            // At least as many bytes as a BOM has, unless the file is shorter.
            while n < BOM.len() && n < buf.len() {
                match self.fill(&mut buf[n..])? {
                    0 => break,
                    read => n += read,
                }
            }
            if buf[..n].starts_with(BOM) {
                buf.copy_within(BOM.len()..n, 0);
                n -= BOM.len();
                if n == 0 {
                    return self.read(buf);
                }
            }
        }
        let bytes = &buf[..n];
        if n == 0 {
            // A `\r` last in the file is a bare one.
            self.bare_cr = self.after_cr;
            self.after_cr = false;
            return Ok(0);
        }
        // A NUL among the file's first BINARY_SNIFF_BYTES makes it binary (before any bare
        // `\r`); one further on is text.
        let checked = n.min(self.sniff);
        if memchr::memchr(0, &bytes[..checked]).is_some() {
            self.binary = true;
            return Ok(0);
        }
        self.sniff -= checked;
        let mut bare = self.after_cr && bytes[0] != b'\n';
        for i in memchr::memchr_iter(b'\r', bytes) {
            bare |= bytes.get(i + 1).is_some_and(|&b| b != b'\n');
        }
        if bare {
            self.bare_cr = true;
            return Ok(0);
        }
        self.after_cr = bytes[n - 1] == b'\r';
        Ok(n)
    }
}

/// Searches `root`: a directory is walked in parallel with `rg`'s rules (`.gitignore` in
/// git repositories, `.ignore`, `.rgignore`, hidden entries and symlinks skipped); a file is
/// searched alone. Binary files (a NUL byte) are skipped.
pub fn search(root: &Path, query: &CompiledQuery, options: &SearchOptions) -> Result<SearchOutcome, SearchError> {
    let meta = hashline_fs::lookup::metadata(root)?;
    if !meta.is_dir() {
        let mut outcome = SearchOutcome { searched_files: 1, ..SearchOutcome::default() };
        match search_file(root, query, options.keep_per_file)? {
            FileScan::Matched(hits) => {
                outcome.total_matches = hits.match_count;
                outcome.files.push(hits);
            }
            FileScan::NoMatch => {}
            FileScan::Binary => {
                outcome.searched_files = 0;
                outcome.binary_files = 1;
                outcome.skipped.push((root.to_path_buf(), Skipped::Binary));
            }
        }
        return Ok(outcome);
    }
    let (walk, rules) = walker(root, options.threads, options.glob.as_deref())?;
    if let Some(stop_after) = options.stop_after {
        let mut outcome = crate::ordered::search_ordered(&rules, root, query, options, stop_after);
        outcome.unreadable += rules.broken_files();
        outcome.skipped_ignore_files = rules.skipped();
        return Ok(outcome);
    }
    let workers = walk_files(&walk, || Worker {
        query,
        keep: options.keep_per_file,
        searcher: searcher(query.context),
        found: SearchOutcome::default(),
        options,
    });
    let mut outcome = SearchOutcome {
        unreadable: rules.broken_files(),
        skipped_ignore_files: rules.skipped(),
        ..SearchOutcome::default()
    };
    for found in workers.into_iter().map(|w| w.found) {
        outcome.files.extend(found.files);
        outcome.total_matches += found.total_matches;
        outcome.searched_files += found.searched_files;
        outcome.binary_files += found.binary_files;
        outcome.unreadable += found.unreadable;
        outcome.merge_skipped(found.skipped);
    }
    outcome.files.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    if let Some((above, keep)) = options.keep_above
        && outcome.total_matches > above
    {
        outcome.files.iter_mut().for_each(|hits| hits.trim(keep, query.context));
    }
    Ok(outcome)
}

/// What a parallel walk does with its entries: one visitor per walker thread.
pub(crate) trait FileVisitor: Send {
    /// A regular file of the walk.
    fn file(&mut self, path: &Path);
    /// An entry the walk could not read (a directory, a broken ignore file, a path too
    /// deep, ...), by path when the walk names it.
    fn error(&mut self, path: Option<&Path>);
    /// Whether the walk is to stop now (its caller cancelled it): every thread quits.
    fn stopped(&self) -> bool {
        false
    }
}

/// Walks `walk` in parallel, one visitor from `make` per thread, and returns every visitor
/// when the walk is done (in no particular order: callers sort what they gathered).
pub(crate) fn walk_files<V: FileVisitor>(walk: &WalkBuilder, make: impl Fn() -> V + Sync) -> Vec<V> {
    let done = Mutex::new(Vec::new());
    walk.build_parallel().visit(&mut Builder { make: &make, done: &done });
    done.into_inner().unwrap_or_else(|p| p.into_inner())
}

/// Builds one [`Slot`] per walker thread.
struct Builder<'a, V, F> {
    make: &'a F,
    done: &'a Mutex<Vec<V>>,
}

impl<'s, V: FileVisitor + 's, F: Fn() -> V + Sync> ParallelVisitorBuilder<'s> for Builder<'s, V, F> {
    fn build(&mut self) -> Box<dyn ParallelVisitor + 's> {
        Box::new(Slot { visitor: Some((self.make)()), done: self.done })
    }
}

/// One thread's visitor, handed over when the thread is done.
struct Slot<'a, V: FileVisitor> {
    visitor: Option<V>,
    done: &'a Mutex<Vec<V>>,
}

impl<V: FileVisitor> ParallelVisitor for Slot<'_, V> {
    fn visit(&mut self, entry: Result<DirEntry, ignore::Error>) -> WalkState {
        let Some(visitor) = self.visitor.as_mut() else { return WalkState::Quit };
        match entry {
            Ok(entry) if entry.file_type().is_some_and(|t| t.is_file()) => visitor.file(entry.path()),
            Ok(_) => {}
            Err(err) => visitor.error(error_path(&err)),
        }
        if visitor.stopped() { WalkState::Quit } else { WalkState::Continue }
    }
}

impl<V: FileVisitor> Drop for Slot<'_, V> {
    fn drop(&mut self) {
        if let Some(visitor) = self.visitor.take() {
            self.done.lock().unwrap_or_else(|p| p.into_inner()).push(visitor);
        }
    }
}

/// The longest `glob` a search compiles, in bytes (as for `ls` and `find`).
pub const MAX_GLOB_BYTES: usize = 4096;

/// The walker of a directory search: `rg`'s rules ([`IgnoreConfig::RG`], ignore files read
/// by [`TreeRules`]), `threads` (0 = one per core), and the optional `rg --glob` filter.
pub(crate) fn walker(
    root: &Path,
    threads: usize,
    glob: Option<&str>,
) -> Result<(WalkBuilder, Arc<TreeRules>), SearchError> {
    let overrides = match glob {
        Some(glob) if glob.len() > MAX_GLOB_BYTES => return Err(SearchError::GlobTooLong { len: glob.len() }),
        Some(glob) => {
            let glob_error = |err: ignore::Error| SearchError::Glob { glob: glob.to_owned(), message: err.to_string() };
            let mut overrides = OverrideBuilder::new(root);
            overrides.add(glob).map_err(glob_error)?;
            Some(overrides.build().map_err(glob_error)?)
        }
        None => None,
    };
    let rules = Arc::new(TreeRules::new(root, IgnoreConfig::RG, overrides));
    Ok((rules.walk_builder(threads), rules))
}

/// One thread's searcher, buffer and findings.
struct Worker<'a> {
    query: &'a CompiledQuery,
    keep: usize,
    searcher: Searcher,
    found: SearchOutcome,
    options: &'a SearchOptions,
}

impl FileVisitor for Worker<'_> {
    fn stopped(&self) -> bool {
        self.options.cancelled()
    }

    fn file(&mut self, path: &Path) {
        if self.options.cancelled() {
            return;
        }
        let scan = scan_file(path, self.query, &mut self.searcher, self.keep);
        if let Some(hits) = self.found.count(path, scan) {
            self.found.files.push(hits);
        }
    }

    fn error(&mut self, path: Option<&Path>) {
        self.found.count_broken(path);
    }
}

/// The path of a hit relative to `base`, or as is.
pub fn relative_to<'a>(path: &'a Path, base: &Path) -> &'a Path {
    path.strip_prefix(base).unwrap_or(path)
}

/// `path` as results show it: relative to `base` when below it, with `/` between its
/// components on every system (Windows takes `/` in every path, and a model writes it), so
/// that a result reads the same wherever it was made; else the whole path as the system
/// writes it.
pub fn shown_path(path: &Path, base: &Path) -> String {
    match path.strip_prefix(base) {
        Ok(rel) if cfg!(windows) => rel.to_string_lossy().replace('\\', "/"),
        Ok(rel) => rel.to_string_lossy().into_owned(),
        Err(_) => path.to_string_lossy().into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{HitKind, Query};

    fn tree(files: &[(&str, &[u8])]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("tempdir");
        for (name, bytes) in files {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(path, bytes).expect("write");
        }
        dir
    }

    fn names(outcome: &SearchOutcome, root: &Path) -> Vec<String> {
        outcome.files.iter().map(|f| shown_path(&f.path, root)).collect()
    }

    #[test]
    fn rg_rules_and_sorted_results_whatever_the_threads() {
        let dir = tree(&[
            ("b/z.rs", b"needle\n"),
            ("a.rs", b"needle needle\nno\nneedle\n"),
            (".hidden/x.rs", b"needle\n"),
            ("ignored.rs", b"needle\n"),
            (".ignore", b"ignored.rs\n"),
            ("bin.dat", b"needle\0\n"),
            ("b/y.txt", b"needle\n"),
        ]);
        let query = Query::new("needle").compile().expect("query");
        for threads in [1, 2, 4] {
            let options = SearchOptions { threads, ..SearchOptions::default() };
            let outcome = search(dir.path(), &query, &options).expect("search");
            assert_eq!(names(&outcome, dir.path()), ["a.rs", "b/y.txt", "b/z.rs"], "{threads}");
            assert_eq!(outcome.total_matches, 4);
            assert_eq!(outcome.binary_files, 1);
        }
        // As with `rg --glob`, a glob overrides the ignore files (not hidden directories).
        let options = SearchOptions { glob: Some("*.rs".into()), ..SearchOptions::default() };
        let outcome = search(dir.path(), &query, &options).expect("search");
        assert_eq!(names(&outcome, dir.path()), ["a.rs", "b/z.rs", "ignored.rs"]);
        let options = SearchOptions { glob: Some("!b/**".into()), ..SearchOptions::default() };
        assert_eq!(names(&search(dir.path(), &query, &options).expect("search"), dir.path()), ["a.rs"]);
        let options = SearchOptions { glob: Some("a[".into()), ..SearchOptions::default() };
        assert!(matches!(search(dir.path(), &query, &options), Err(SearchError::Glob { .. })));
        let options = SearchOptions { glob: Some("*".repeat(MAX_GLOB_BYTES + 1)), ..SearchOptions::default() };
        assert!(matches!(search(dir.path(), &query, &options), Err(SearchError::GlobTooLong { len: 4097 })));
    }

    /// The read buffer's bounds hold: a line longer than [`MAX_BUFFER_BYTES`] makes its
    /// file unreadable (not the search), and past [`crate::MAX_KEPT_BYTES`] of kept lines a
    /// file's further matches are counted, not kept.
    #[test]
    fn a_file_read_in_a_bounded_buffer_keeps_bounded_lines() {
        let long = format!("needle{}\nneedle\n", "x".repeat(MAX_BUFFER_BYTES + 1));
        let line = format!("needle {}\n", "y".repeat(15 << 20));
        let many = line.repeat(6);
        let dir = tree(&[("long.txt", long.as_bytes()), ("many.txt", many.as_bytes()), ("small.txt", b"needle\n")]);
        let query = Query::new("needle").compile().expect("query");
        let found = search(dir.path(), &query, &SearchOptions::default()).expect("search");
        assert_eq!(found.unreadable, 1, "the file with the long line");
        let names: Vec<_> = found.files.iter().map(|f| f.path.file_name().expect("name").to_owned()).collect();
        assert_eq!(names, ["many.txt", "small.txt"]);
        let many = &found.files[0];
        let kept: usize = many.lines.iter().map(|l| l.content.len()).sum();
        assert_eq!((many.match_count, many.lines.len()), (6, 5), "counted all, kept until past the bound");
        assert!(kept <= crate::MAX_KEPT_BYTES + line.len(), "{kept} bytes kept");
    }

    /// A file of many searcher buffers (16 MiB) with a bare `\r` near its end is searched
    /// again line by line: the same anchors, its bare `\r` noticed.
    #[test]
    fn a_large_file_is_streamed_with_the_same_anchors() {
        let lines = (16 << 20) / 1024 + 1;
        let filler = format!("{}\n", "x".repeat(1023)).repeat(lines);
        let dir = tree(&[
            ("big.txt", format!("{filler}needle\r\nbeta\rneedle").as_bytes()),
            ("small.txt", b"needle\r\nbeta\rneedle"),
        ]);
        let query = Query::new("needle").context(1).compile().expect("query");
        let big = search_file(&dir.path().join("big.txt"), &query, 10).expect("big");
        let small = search_file(&dir.path().join("small.txt"), &query, 10).expect("small");
        let (FileScan::Matched(big), FileScan::Matched(small)) = (big, small) else { panic!("no match") };
        let offset = lines as u32;
        let shifted: Vec<(u32, HitKind)> = small.lines.iter().map(|l| (l.line.get() + offset, l.kind)).collect();
        assert_eq!(big.lines.iter().map(|l| (l.line.get(), l.kind)).collect::<Vec<_>>()[1..], shifted);
        assert_eq!((big.match_count, big.bare_cr), (2, true));
        let found = search(dir.path(), &query, &SearchOptions::default()).expect("search");
        assert_eq!((found.total_matches, found.searched_files), (4, 2));
    }

    /// The bounded read of a file, and the read of a small file whole, find what the scan of
    /// its bytes held whole finds: BOM, CRLF, bare `\r` (anywhere, also last), NUL bytes (also
    /// past the first read, and after a bare `\r`).
    #[test]
    fn the_bounded_read_finds_what_the_whole_bytes_scan_finds() {
        let late_nul = format!("{}beta\n\0", "beta\n".repeat(40_000));
        let late_cr = format!("{}beta\rx\n", "beta\r\n".repeat(40_000));
        let texts: Vec<&[u8]> = vec![
            b"alpha\nbeta\ngamma\nbeta\n",
            b"\xEF\xBB\xBFalpha\r\nbeta\r\ngamma\r\nbeta",
            b"\xEF\xBB\xBF",
            b"\xEF\xBB\xBFbeta",
            b"alpha\rbeta\rgamma\rbeta\r",
            b"beta\r\nbeta\r",
            b"x\nbeta\n\nbeta\rbeta\r\nx\n",
            b"beta\n\0binary",
            b"beta\rx\nbeta\n\0",
            b"",
            late_nul.as_bytes(),
            late_cr.as_bytes(),
        ];
        let dir = tempfile::tempdir().expect("tempdir");
        for (i, text) in texts.iter().enumerate() {
            let path = dir.path().join(format!("{i}.txt"));
            std::fs::write(&path, text).expect("write");
            for (pattern, context, keep) in [("beta", 0, usize::MAX), ("^(beta|alpha)$", 1, 10), ("beta", 2, 1)] {
                let query = Query::new(pattern).context(context).compile().expect("query");
                let mut whole = crate::scan_bytes(text, &query, &mut searcher(query.context()), keep);
                if let FileScan::Matched(hits) = &mut whole {
                    hits.path = path.clone();
                }
                // Read through the searcher's bounded buffer, and whole into memory.
                for read_whole in [0, u64::MAX] {
                    let mut read =
                        scan_file_reading_whole(&path, &query, &mut searcher(query.context()), keep, read_whole)
                            .expect("search");
                    if let FileScan::Matched(hits) = &mut read {
                        // What the open saw of the file (Unix), which bytes alone cannot give.
                        assert_eq!(hits.identity.is_some(), cfg!(unix));
                        hits.identity = None;
                    }
                    if text.contains(&b'\r') && keep < usize::MAX {
                        // The bare-`\r` scans differ in context past `keep` (see stream.rs).
                        continue;
                    }
                    assert_eq!(read, whole, "text {i} /{pattern}/ context {context} keep {keep} whole {read_whole}");
                }
            }
        }
    }

    /// A tree where path order matters: the walk's order is not the path order, files
    /// without matches, binary and nested ones between.
    fn ordered_tree() -> tempfile::TempDir {
        let mut files: Vec<(String, Vec<u8>)> = Vec::new();
        for i in 0..300 {
            let name = format!("d{}/f{:03}.txt", i % 7, (i * 37) % 300);
            let body = match i % 5 {
                0 => b"nothing\n".to_vec(),
                1 => b"needle\0".to_vec(),
                n => "needle\nx\n".repeat(n).into_bytes(),
            };
            files.push((name, body));
        }
        let dir = tempfile::tempdir().expect("tempdir");
        for (name, bytes) in &files {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(path, bytes).expect("write");
        }
        dir
    }

    #[test]
    fn an_ordered_search_stops_with_the_first_files_of_the_full_one() {
        let dir = ordered_tree();
        let query = Query::new("needle").context(1).compile().expect("query");
        let full = search(dir.path(), &query, &SearchOptions::default()).expect("full");
        assert!(!full.stopped);
        let _lock = crate::ordered::TEST_LOCK.lock().unwrap_or_else(|p| p.into_inner());
        for threads in [1, 2, 3] {
            for stop_after in [0, 1, 7, 100, 10_000] {
                let options = SearchOptions { threads, stop_after: Some(stop_after), ..SearchOptions::default() };
                let found = search(dir.path(), &query, &options).expect("ordered");
                let n = found.files.len();
                assert_eq!(found.files, full.files[..n], "{threads} threads, stop after {stop_after}");
                let counted: u64 = found.files.iter().map(|f| f.match_count).sum();
                assert_eq!(found.total_matches, counted);
                if stop_after >= full.total_matches {
                    assert_eq!(
                        (found.stopped, found.total_matches, found.binary_files),
                        (false, full.total_matches, full.binary_files)
                    );
                } else {
                    // Stopped at the first file that took the count past `stop_after`.
                    assert!(
                        found.stopped && counted > stop_after && counted - found.files[n - 1].match_count <= stop_after
                    );
                }
            }
        }
    }

    /// Stopping means not searching: far fewer files are searched than the tree holds.
    #[test]
    fn an_ordered_search_searches_only_a_bounded_look_ahead_past_its_stop() {
        use crate::ordered::LOOKAHEAD_PER_THREAD;
        let dir = ordered_tree();
        let query = Query::new("needle").compile().expect("query");
        for threads in [1, 2] {
            let options = SearchOptions { threads, stop_after: Some(3), ..SearchOptions::default() };
            let _lock = crate::ordered::TEST_LOCK.lock().unwrap_or_else(|p| p.into_inner());
            let before = crate::ordered::SCANNED.load(std::sync::atomic::Ordering::Relaxed);
            let found = search(dir.path(), &query, &options).expect("ordered");
            assert!(found.stopped);
            let handed = crate::ordered::SCANNED.load(std::sync::atomic::Ordering::Relaxed) - before;
            // The 7 directories are split into their 300 files; the stop comes within the
            // first few, and each thread searches at most its look-ahead of files past it.
            let bound = 10 + ((LOOKAHEAD_PER_THREAD + 1) * threads) as u64;
            assert!(handed <= bound, "{threads}: {handed} > {bound}");
        }
    }

    #[test]
    fn keep_above_trims_every_file_once_the_count_passes_it() {
        let dir = ordered_tree();
        let query = Query::new("needle").context(1).compile().expect("query");
        let few = SearchOptions { keep_per_file: 2, ..SearchOptions::default() };
        let expected = search(dir.path(), &query, &few).expect("few");
        let _lock = crate::ordered::TEST_LOCK.lock().unwrap_or_else(|p| p.into_inner());
        for stop_after in [None, Some(1_000_000)] {
            let options =
                SearchOptions { keep_above: Some((5, 2)), stop_after, threads: 2, ..SearchOptions::default() };
            assert_eq!(search(dir.path(), &query, &options).expect("trimmed").files, expected.files, "{stop_after:?}");
        }
        let options = SearchOptions { keep_above: Some((1_000_000, 2)), ..SearchOptions::default() };
        assert_eq!(
            search(dir.path(), &query, &options).expect("untrimmed").files,
            search(dir.path(), &query, &SearchOptions::default()).expect("full").files
        );
    }

    #[test]
    fn a_file_is_searched_alone_even_when_ignored_or_hidden() {
        let dir = tree(&[(".hidden.rs", b"needle\n"), ("bin", b"\0needle")]);
        let query = Query::new("needle").compile().expect("query");
        let outcome = search(&dir.path().join(".hidden.rs"), &query, &SearchOptions::default()).expect("search");
        assert_eq!(outcome.total_matches, 1);
        let outcome = search(&dir.path().join("bin"), &query, &SearchOptions::default()).expect("search");
        assert_eq!((outcome.total_matches, outcome.binary_files), (0, 1));
        assert!(matches!(
            search(&dir.path().join("missing"), &query, &SearchOptions::default()),
            Err(SearchError::Io(_))
        ));
    }
}
