//! The ordered search of [`SearchOptions::stop_after`]: files searched in path order, so that
//! a search can stop at the file that takes its count past the limit and still return exactly
//! the full search's first files.
//!
//! The walk is parallel and ordered at once. The tree is first split, in path order, into
//! units: the root's entries, and while there are fewer than [`DIR_UNITS_PER_THREAD`]
//! directories a thread, the entries of those directories in their place (at most
//! [`MAX_SPLIT_LEVELS`] levels). Each thread then takes the next unit and walks it alone — a
//! file, or a directory walked in sorted order — searching its files as it goes; this thread
//! takes the units' results back in order and stops the others once the files so far hold
//! more than `stop_after` matches. A thread stays at most [`LOOKAHEAD_PER_THREAD`] units a
//! thread ahead of the results taken back, and stops walking a unit once that unit alone
//! holds more than `stop_after` matches (the search stops within it, whatever came before).

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, mpsc};

use crate::query::CompiledQuery;
use crate::rules::TreeRules;
use crate::scan::FileScan;
use crate::walk::{SearchOptions, SearchOutcome, scan_file, searcher};

/// Files the ordered searches of this process scanned (tests of the look-ahead hold
/// [`TEST_LOCK`] while they count).
#[cfg(test)]
pub(crate) static SCANNED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Held by every test that runs an ordered search.
#[cfg(test)]
pub(crate) static TEST_LOCK: Mutex<()> = Mutex::new(());

/// How many units past the first one not yet taken back each thread may search ahead. While
/// one thread walks a large unit (a directory of a thousand files), the others go on past it
/// only this far; at 16 a thread waited for about an eighth of an unbounded search of a tree
/// of crates (25 of 190 ms). A stop still ends a thread's directory walk at its next file.
pub(crate) const LOOKAHEAD_PER_THREAD: usize = 64;

/// The tree is split until it holds this many directory units a thread ...
const DIR_UNITS_PER_THREAD: usize = 16;

/// ... or this many levels below the root are split.
const MAX_SPLIT_LEVELS: usize = 4;

/// A part of the walk, searched by one thread.
enum Unit {
    File(PathBuf),
    /// A directory, walked in path order.
    Dir(PathBuf),
    /// An entry the walk could not read (it keeps its place in the order).
    Broken,
}

/// What a unit hands back for one entry of its walk.
enum Entry {
    Scanned(PathBuf, io::Result<FileScan>),
    Broken(Option<PathBuf>),
}

/// How far the threads have taken units, and how far their results were taken back.
#[derive(Debug, Default)]
struct Progress {
    next: usize,
    taken: usize,
}

/// What a thread does next (see [`Progress::claim`]).
#[derive(Debug, PartialEq, Eq)]
enum Claim {
    /// Search this unit.
    Take(usize),
    /// Wait until more results are taken back.
    Wait,
    /// Stop: every unit is taken, or the search stopped.
    Finished,
}

impl Progress {
    /// The rule of the look-ahead: a thread takes the next of `units` units only while fewer
    /// than `ahead` are taken and not yet taken back.
    fn claim(&mut self, ahead: usize, units: usize, stopped: bool) -> Claim {
        if stopped || self.next >= units {
            Claim::Finished
        } else if self.next >= self.taken + ahead {
            Claim::Wait
        } else {
            self.next += 1;
            Claim::Take(self.next - 1)
        }
    }
}

/// Searches the tree of `rules` in path order (see the module's documentation).
pub(crate) fn search_ordered(
    rules: &Arc<TreeRules>,
    root: &Path,
    query: &CompiledQuery,
    options: &SearchOptions,
    stop_after: u64,
) -> SearchOutcome {
    let threads = match options.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()).min(12),
        n => n,
    };
    let units = split(rules, root, DIR_UNITS_PER_THREAD * threads);
    let ahead = LOOKAHEAD_PER_THREAD * threads;
    let stop = AtomicBool::new(false);
    let progress = (Mutex::new(Progress::default()), Condvar::new());
    let (done_tx, done_rx) = mpsc::channel::<(usize, Vec<Entry>)>();
    let mut outcome = SearchOutcome::default();
    std::thread::scope(|scope| {
        let (stop, progress, units) = (&stop, &progress, &units);
        for _ in 0..threads {
            let done = done_tx.clone();
            scope.spawn(move || {
                let mut searcher = searcher(query.context);
                loop {
                    let index = {
                        let mut now = progress.0.lock().unwrap_or_else(|p| p.into_inner());
                        loop {
                            let halted = stop.load(Ordering::Relaxed) || options.cancelled();
                            match now.claim(ahead, units.len(), halted) {
                                Claim::Take(index) => break Some(index),
                                Claim::Finished => break None,
                                Claim::Wait => now = progress.1.wait(now).unwrap_or_else(|p| p.into_inner()),
                            }
                        }
                    };
                    let Some(index) = index else { break };
                    let entries = match &units[index] {
                        Unit::File(path) => {
                            vec![Entry::Scanned(path.clone(), scan(path, query, &mut searcher, options.keep_per_file))]
                        }
                        Unit::Dir(dir) => walk_unit(rules, dir, query, options, stop_after, stop, &mut searcher),
                        Unit::Broken => vec![Entry::Broken(None)],
                    };
                    if done.send((index, entries)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(done_tx);
        let mut pending = BTreeMap::new();
        let mut next = 0usize;
        'results: for (index, entries) in &done_rx {
            pending.insert(index, entries);
            if options.cancelled() {
                outcome.stopped = true;
                break 'results;
            }
            while let Some(entries) = pending.remove(&next) {
                next += 1;
                for entry in entries {
                    take(&mut outcome, entry, query, options);
                    if outcome.total_matches > stop_after {
                        outcome.stopped = true;
                        break 'results;
                    }
                }
            }
            progress.0.lock().unwrap_or_else(|p| p.into_inner()).taken = next;
            progress.1.notify_all();
        }
        stop.store(true, Ordering::Relaxed);
        drop(progress.0.lock().unwrap_or_else(|p| p.into_inner()));
        progress.1.notify_all();
        drop(done_rx);
    });
    outcome
}

/// Adds one entry's findings to `outcome`, trimming every file kept once the count passes
/// [`SearchOptions::keep_above`].
fn take(outcome: &mut SearchOutcome, entry: Entry, query: &CompiledQuery, options: &SearchOptions) {
    let (path, scan) = match entry {
        Entry::Scanned(path, scan) => (path, scan),
        Entry::Broken(path) => {
            outcome.count_broken(path.as_deref());
            return;
        }
    };
    let Some(mut hits) = outcome.count(&path, scan) else { return };
    if let Some((above, keep)) = options.keep_above
        && outcome.total_matches > above
    {
        if outcome.total_matches - hits.match_count <= above {
            outcome.files.iter_mut().for_each(|h| h.trim(keep, query.context));
        }
        hits.trim(keep, query.context);
    }
    if let Some((files, chars)) = options.measure_after
        && outcome.files.len() >= files
    {
        hits.keep_measures_only(chars);
    }
    outcome.files.push(hits);
}

/// The units of the walk of `root`, in path order, split until there are `dirs` directory
/// units (or [`MAX_SPLIT_LEVELS`] levels were split).
fn split(rules: &Arc<TreeRules>, root: &Path, dirs: usize) -> Vec<Unit> {
    let mut units = vec![Unit::Dir(root.to_path_buf())];
    for _ in 0..MAX_SPLIT_LEVELS {
        let count = units.iter().filter(|u| matches!(u, Unit::Dir(_))).count();
        if count == 0 || (count >= dirs && units.len() > 1) {
            break;
        }
        units = units
            .into_iter()
            .flat_map(|unit| match unit {
                Unit::Dir(dir) => children(rules, &dir),
                other => vec![other],
            })
            .collect();
    }
    units
}

/// The entries of `dir` the walk keeps, in path order: files, directories and entries it
/// could not read (anything else — a symlink, a FIFO — is not searched, as in the walk).
/// Read with one `read_dir`, not a walker: `walkdir` opens (and, sorted, reads) every
/// directory at its depth limit too.
fn children(rules: &Arc<TreeRules>, dir: &Path) -> Vec<Unit> {
    let Ok(listing) = hashline_fs::lookup::read_dir(dir) else { return vec![Unit::Broken] };
    let mut entries: Vec<(std::ffi::OsString, Unit)> = Vec::new();
    for entry in listing {
        let Ok(entry) = entry else {
            entries.push((std::ffi::OsString::new(), Unit::Broken));
            continue;
        };
        let Ok(kind) = entry.file_type() else {
            entries.push((entry.file_name(), Unit::Broken));
            continue;
        };
        let path = entry.path();
        if !(kind.is_file() || kind.is_dir()) || !rules.keep_path(&path, kind.is_dir()) {
            continue;
        }
        let unit = if kind.is_dir() { Unit::Dir(path) } else { Unit::File(path) };
        entries.push((entry.file_name(), unit));
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    entries.into_iter().map(|(_, unit)| unit).collect()
}

/// [`scan_file`], counted in tests.
fn scan(
    path: &Path,
    query: &CompiledQuery,
    searcher: &mut grep_searcher::Searcher,
    keep: usize,
) -> io::Result<FileScan> {
    #[cfg(test)]
    SCANNED.fetch_add(1, Ordering::Relaxed);
    scan_file(path, query, searcher, keep)
}

/// Walks one directory unit in path order and searches its files, until the search stops or
/// the unit alone holds more than `stop_after` matches.
fn walk_unit(
    rules: &Arc<TreeRules>,
    dir: &Path,
    query: &CompiledQuery,
    options: &SearchOptions,
    stop_after: u64,
    stop: &AtomicBool,
    searcher: &mut grep_searcher::Searcher,
) -> Vec<Entry> {
    let mut walk = rules.walk_builder_at(dir, 1);
    // By name, compared as the entries' whole paths: a directory's entries share their parent's
    // path and separator, so their paths' bytes order as their names' do, without taking
    // each name apart from its path at every comparison (`sort_by_file_name`).
    walk.sort_by_file_path(|a, b| a.as_os_str().as_encoded_bytes().cmp(b.as_os_str().as_encoded_bytes()));
    let mut entries = Vec::new();
    let mut matches = 0u64;
    for entry in walk.build() {
        if stop.load(Ordering::Relaxed) || options.cancelled() || matches > stop_after {
            break;
        }
        match entry {
            Ok(entry) if entry.file_type().is_some_and(|t| t.is_file()) => {
                let scanned = scan(entry.path(), query, searcher, options.keep_per_file);
                if let Ok(FileScan::Matched(hits)) = &scanned {
                    matches += hits.match_count;
                }
                entries.push(Entry::Scanned(entry.path().to_path_buf(), scanned));
            }
            Ok(_) => {}
            Err(err) => entries.push(Entry::Broken(crate::walk::error_path(&err).map(Path::to_path_buf))),
        }
    }
    // No other unit walks below `dir`: its directories' rules are not asked for again.
    rules.forget_below(dir);
    entries
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Query;
    use crate::rules::IgnoreConfig;

    /// Threads take units only `ahead` past the results taken back, in order, and stop when
    /// the units run out or the search stops (the rule the look-ahead's bound rests on).
    #[test]
    fn a_thread_takes_units_only_the_look_ahead_past_the_results_taken_back() {
        let claims = |progress: &mut Progress, stopped: bool| {
            let mut taken = Vec::new();
            loop {
                match progress.claim(3, 10, stopped) {
                    Claim::Take(index) => taken.push(index),
                    other => return (taken, other),
                }
            }
        };
        let mut progress = Progress::default();
        assert_eq!(claims(&mut progress, false), (vec![0, 1, 2], Claim::Wait));
        progress.taken = 2;
        assert_eq!(claims(&mut progress, false), (vec![3, 4], Claim::Wait));
        progress.taken = 8;
        assert_eq!(claims(&mut progress, false), (vec![5, 6, 7, 8, 9], Claim::Finished));
        // Once stopped, nothing more is taken, however far behind the results are.
        let mut stopped = Progress::default();
        assert_eq!(claims(&mut stopped, true), (vec![], Claim::Finished));
    }

    /// A tree of 40 directories of 20 files, each holding one match.
    fn wide_tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("tempdir");
        for d in 0..40 {
            std::fs::create_dir(dir.path().join(format!("d{d:02}"))).expect("mkdir");
            for f in 0..20 {
                std::fs::write(dir.path().join(format!("d{d:02}/f{f:02}")), "needle\n").expect("write");
            }
        }
        dir
    }

    /// A directory unit stops its own walk once it alone holds more matches than the search
    /// will take: the look-ahead costs a few files a unit, not whole subtrees.
    #[test]
    fn a_directory_unit_stops_once_it_alone_passes_the_limit() {
        let dir = wide_tree();
        let rules = Arc::new(TreeRules::new(dir.path(), IgnoreConfig::RG, None));
        let query = Query::new("needle").compile().expect("query");
        let options = SearchOptions::default();
        let mut searcher = searcher(0);
        let unit = dir.path().join("d07");
        let stop = AtomicBool::new(false);
        assert_eq!(walk_unit(&rules, &unit, &query, &options, 3, &stop, &mut searcher).len(), 4);
        assert_eq!(walk_unit(&rules, &unit, &query, &options, 100, &stop, &mut searcher).len(), 20);
        stop.store(true, Ordering::Relaxed);
        assert!(walk_unit(&rules, &unit, &query, &options, 100, &stop, &mut searcher).is_empty());
    }

    /// With `measure_after: (n, chars)` the files after the first `n` keep how their lines
    /// display and not their bytes; the first `n` keep their bytes.
    #[test]
    fn files_past_the_first_ones_keep_only_measures() {
        let _lock = TEST_LOCK.lock().unwrap_or_else(|p| p.into_inner());
        let dir = wide_tree();
        let rules = Arc::new(TreeRules::new(dir.path(), IgnoreConfig::RG, None));
        let query = Query::new("needle").compile().expect("query");
        let options = SearchOptions { threads: 2, measure_after: Some((5, 3)), ..SearchOptions::default() };
        let found = search_ordered(&rules, dir.path(), &query, &options, u64::MAX);
        assert_eq!(found.files.len(), 800);
        for (index, file) in found.files.iter().enumerate() {
            let line = &file.lines[0];
            if index < 5 {
                assert_eq!((line.content.as_slice(), line.measured), (&b"needle"[..], None));
            } else {
                let measured = crate::Measured { bytes: 3, clipped: true };
                assert_eq!((line.content.as_slice(), line.measured), (&b""[..], Some(measured)), "{index}");
            }
        }
    }

    /// A unit's directories' rules are forgotten once it is walked (a large tree kept every
    /// directory's to the end of its walk), and were applied while it was.
    #[test]
    fn a_units_rules_are_applied_and_then_forgotten() {
        let _lock = TEST_LOCK.lock().unwrap_or_else(|p| p.into_inner());
        let dir = wide_tree();
        for d in 0..40 {
            let sub = dir.path().join(format!("d{d:02}/sub"));
            std::fs::create_dir(&sub).expect("mkdir");
            std::fs::write(sub.join(".gitignore"), "ignored.txt\n").expect("write");
            std::fs::write(sub.join(".ignore"), "also.txt\n").expect("write");
            for name in ["ignored.txt", "also.txt", "kept.txt"] {
                std::fs::write(sub.join(name), "needle\n").expect("write");
            }
        }
        std::fs::create_dir(dir.path().join(".git")).expect("mkdir");
        let rules = Arc::new(TreeRules::new(dir.path(), IgnoreConfig::RG, None));
        let query = Query::new("needle").compile().expect("query");
        let options = SearchOptions { threads: 2, ..SearchOptions::default() };
        let found = search_ordered(&rules, dir.path(), &query, &options, u64::MAX);
        let names: Vec<String> = found.files.iter().map(|f| crate::shown_path(&f.path, dir.path())).collect();
        assert_eq!(names.len(), 40 * 21, "{names:?}");
        assert!(names.contains(&"d17/sub/kept.txt".to_owned()));
        assert!(!names.iter().any(|n| n.ends_with("ignored.txt") || n.ends_with("also.txt")), "{names:?}");
        // The split asked for the root's rules; every unit's are gone.
        assert_eq!(rules.cached_dirs(), vec![dir.path().to_path_buf()]);
    }

    /// The root is split into its directories when they are enough for the threads, and
    /// further (in place, in path order) when they are not.
    #[test]
    fn the_tree_is_split_in_path_order_until_the_threads_have_units() {
        let dir = wide_tree();
        std::fs::write(dir.path().join("a.txt"), "x\n").expect("write");
        let rules = Arc::new(TreeRules::new(dir.path(), IgnoreConfig::RG, None));
        let name = |unit: &Unit| match unit {
            Unit::File(path) | Unit::Dir(path) => crate::shown_path(path, dir.path()),
            Unit::Broken => "broken".to_owned(),
        };
        let units = split(&rules, dir.path(), 32);
        assert_eq!(units.len(), 41);
        assert_eq!((name(&units[0]), name(&units[1]), name(&units[40])), ("a.txt".into(), "d00".into(), "d39".into()));
        let units = split(&rules, dir.path(), 64);
        assert_eq!(units.len(), 801);
        assert!(units.iter().all(|u| matches!(u, Unit::File(_))));
        assert_eq!((name(&units[1]), name(&units[800])), ("d00/f00".into(), "d39/f19".into()));
    }

    /// The split applies the walk's rules as the walk does: ignore files of the root and of
    /// the directories it splits, hidden entries, the journal, a symlink.
    #[test]
    fn an_ordered_search_keeps_what_the_walk_keeps() {
        let dir = tempfile::tempdir().expect("tempdir");
        let files: &[(&str, &str)] = &[
            (".ignore", "skipped.txt\nsub/deep/\n"),
            ("a.txt", "needle\n"),
            ("skipped.txt", "needle\n"),
            (".hidden/h.txt", "needle\n"),
            (".hashline-journal/j.txt", "needle\n"),
            ("sub/.ignore", "*.log\n!keep.log\n"),
            ("sub/x.log", "needle\n"),
            ("sub/keep.log", "needle\n"),
            ("sub/deep/d.txt", "needle\n"),
            ("sub/ok/o.txt", "needle\n"),
            ("sub-b/z.txt", "needle\n"),
        ];
        for (name, text) in files {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(path, text).expect("write");
        }
        #[cfg(unix)]
        std::os::unix::fs::symlink(dir.path().join("a.txt"), dir.path().join("link.txt")).expect("symlink");
        let query = Query::new("needle").compile().expect("query");
        let full = crate::search(dir.path(), &query, &SearchOptions::default()).expect("full");
        let names: Vec<String> = full.files.iter().map(|f| crate::shown_path(&f.path, dir.path())).collect();
        assert_eq!(names, ["a.txt", "sub/keep.log", "sub/ok/o.txt", "sub-b/z.txt"]);
        let _lock = TEST_LOCK.lock().unwrap_or_else(|p| p.into_inner());
        for threads in [1, 2] {
            let options = SearchOptions { threads, stop_after: Some(1_000), ..SearchOptions::default() };
            let ordered = crate::search(dir.path(), &query, &options).expect("ordered");
            assert_eq!(ordered.files, full.files, "{threads}");
        }
    }
}
