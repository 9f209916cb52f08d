//! The session's syntax trees: for each file it recently read, wrote (or checked), the tree
//! and error census of those exact bytes, so the next edit's syntax check reparses only what
//! that edit changed instead of parsing the old file from scratch.
//!
//! A read does not parse on its own time: [`TreeCache::prefetch`] hands the parse to the
//! process's one background parser thread, and an edit that needs the tree of those bytes
//! while it is being parsed waits for it (instead of parsing them a second time); one still
//! queued is taken back, and the edit parses. An edit whose check did not need the new tree
//! (a change proven clean from its region) hands its reparse to the same thread
//! ([`TreeCache::follow`]); the next edit waits for that one even while it is queued.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use hashline_core::Document;
use hashline_syntax::{
    Census, LanguageId, ParseLimits, Parsed, SyntaxError, TextEdits, census, parse_document, reparse_edits,
};

/// At most this many trees are kept; the least recently used goes first.
pub const TREE_CACHE_FILES: usize = 8;
/// At most this many source bytes (summed over the kept trees) are kept: a tree takes
/// several times its source's size, so this bounds the cache to a few hundred MiB at worst.
pub const TREE_CACHE_BYTES: usize = 16 * 1024 * 1024;
/// At most this many background parses of one cache are queued or under way; a read
/// beyond them parses nothing (the edit parses then).
pub const PREFETCH_PARSES: usize = 2;
/// An edit waits at most this long for a background parse of the bytes it needs (a parse
/// is cancelled after [`ParseLimits::DEFAULT`]'s two seconds anyway).
const PREFETCH_WAIT: Duration = Duration::from_secs(3);
/// A background parse begins this long after it was queued, so that it does not compete
/// for the processor with the rest of the read that queued it (its result still has to be
/// rendered and sent); a model's next call comes far later.
pub const PREFETCH_DELAY: Duration = Duration::from_millis(25);

/// A tree with the census of its problems.
#[derive(Clone, Debug)]
pub struct CachedTree {
    /// The parse.
    pub parsed: Parsed,
    /// Its error census.
    pub census: Census,
}

struct Entry {
    key: PathBuf,
    /// The exact bytes the tree was parsed from (the whole document, BOM included).
    bytes: Arc<[u8]>,
    tree: CachedTree,
    used: u64,
    /// When it was put.
    since: u64,
}

/// A background parse under way.
struct Pending {
    key: PathBuf,
    bytes: Arc<Vec<u8>>,
    /// Whether the parser thread has begun it (else it is queued).
    begun: bool,
    /// The cache's clock when it was queued: which parse of `key` it is.
    id: u64,
    /// Whether an edit that needs these bytes waits for it even while it is queued (a
    /// reparse after an edit, which the next edit is likely to need, is never taken back).
    awaited: bool,
}

/// Trees by file, each valid only for the bytes it was parsed from. Clones share the trees.
///
/// ```
/// use std::path::Path;
/// use hashline_core::Document;
/// use hashline_syntax::{census, parse_document, LanguageId, ParseLimits};
/// use hashline_tools::tree_cache::{CachedTree, TreeCache};
///
/// let cache = TreeCache::default();
/// let doc = Document::parse(b"fn main() {}\n".to_vec());
/// let parsed = parse_document(LanguageId::Rust, &doc, ParseLimits::DEFAULT).unwrap();
/// let census = census(&parsed.tree, &doc, parsed.text_start);
/// cache.put(Path::new("/r/main.rs"), doc.as_bytes(), CachedTree { parsed, census });
/// assert!(cache.get(Path::new("/r/main.rs"), LanguageId::Rust, doc.as_bytes()).is_some());
/// // Other bytes (the file changed since) or another language: no tree.
/// assert!(cache.get(Path::new("/r/main.rs"), LanguageId::Rust, b"fn main() { }\n").is_none());
/// assert!(cache.get(Path::new("/r/main.rs"), LanguageId::C, doc.as_bytes()).is_none());
/// ```
#[derive(Default, Clone)]
pub struct TreeCache {
    shared: Arc<Shared>,
}

#[derive(Default)]
struct Shared {
    inner: Mutex<Inner>,
    /// Signalled when a background parse ends.
    parsed: Condvar,
}

#[derive(Default)]
struct Inner {
    entries: Vec<Entry>,
    clock: u64,
    pending: Vec<Pending>,
}

impl TreeCache {
    /// The tree of `key` as `lang`, when the cache holds one parsed from exactly `bytes`
    /// (waiting for a background parse of exactly those bytes that is under way).
    pub fn get(&self, key: &Path, lang: LanguageId, bytes: &[u8]) -> Option<CachedTree> {
        let deadline = Instant::now() + PREFETCH_WAIT;
        let mut inner = self.lock();
        loop {
            inner.clock += 1;
            let now = inner.clock;
            if let Some(entry) = inner.entries.iter_mut().find(|e| e.key == key)
                && entry.tree.parsed.lang == lang
                && *entry.bytes == *bytes
            {
                entry.used = now;
                return Some(entry.tree.clone());
            }
            let pending = inner.pending.iter().position(|p| p.key == key && p.bytes.as_slice() == bytes);
            let left = deadline.saturating_duration_since(Instant::now());
            let at = pending.filter(|_| !left.is_zero())?;
            if !inner.pending[at].begun && !inner.pending[at].awaited {
                // Still queued behind other parses: the caller parses now instead.
                inner.pending.remove(at);
                return None;
            }
            inner = self.shared.parsed.wait_timeout(inner, left).unwrap_or_else(|p| p.into_inner()).0;
        }
    }

    /// Parses `bytes`, what `key` holds, as `lang` on a background thread and keeps the
    /// tree, unless the cache has it already, a parse of `key` is under way, or
    /// [`PREFETCH_PARSES`] are. Whether a parse was started.
    pub fn prefetch(&self, key: &Path, lang: LanguageId, bytes: Vec<u8>) -> bool {
        let kept = |inner: &Inner, bytes: &[u8]| {
            inner.entries.iter().any(|e| e.key == key && e.tree.parsed.lang == lang && *e.bytes == *bytes)
        };
        self.queue(key, bytes, Some(PREFETCH_DELAY), kept, move |doc| parse_document(lang, doc, ParseLimits::DEFAULT))
    }

    /// Reparses `after`, what `key` will hold, on the background thread from `old` (the
    /// tree of the text `edits` change into `after`) and keeps the tree, as a check that
    /// judged the change without it does (`hashline_syntax::proven_clean`); an edit that
    /// needs that tree waits for it. `false`, and nothing queued, when the bytes are over
    /// the bound, a parse of `key` is under way, [`PREFETCH_PARSES`] are, or there is no
    /// parser thread: the caller reparses then.
    pub fn follow(&self, key: &Path, old: CachedTree, after: Vec<u8>, edits: TextEdits) -> bool {
        self.queue(
            key,
            after,
            None,
            |_, _| false,
            move |doc| reparse_to_keep(&old.parsed, doc, &edits, ParseLimits::DEFAULT).map(|(parsed, _)| parsed),
        )
    }

    /// Queues `parse` of `bytes`, what `key` holds or will hold, for the parser thread and
    /// keeps its tree with its census. With a `delay` the parse begins that long after it was
    /// queued, and an edit that needs it while it is still queued takes it back; without, an
    /// edit waits for it. Nothing is queued (`false`) when the bytes are over the bound,
    /// `kept` says the cache has them, a parse of `key` is under way, [`PREFETCH_PARSES`]
    /// are, or there is no parser thread.
    fn queue(
        &self,
        key: &Path,
        bytes: Vec<u8>,
        delay: Option<Duration>,
        kept: impl FnOnce(&Inner, &[u8]) -> bool,
        parse: impl FnOnce(&Document) -> Result<Parsed, SyntaxError> + Send + 'static,
    ) -> bool {
        if bytes.len() > TREE_CACHE_BYTES.min(ParseLimits::DEFAULT.max_bytes) {
            return false;
        }
        let (bytes, started) = {
            let mut inner = self.lock();
            if kept(&inner, &bytes)
                || inner.pending.len() >= PREFETCH_PARSES
                || inner.pending.iter().any(|p| p.key == key)
            {
                return false;
            }
            inner.clock += 1;
            let (bytes, id) = (Arc::new(bytes), inner.clock);
            let (key, awaited) = (key.to_path_buf(), delay.is_none());
            inner.pending.push(Pending { key, bytes: Arc::clone(&bytes), begun: false, id, awaited });
            (bytes, id)
        };
        let cache = self.clone();
        let key = key.to_path_buf();
        let queued = Instant::now();
        let job = move || {
            if let Some(delay) = delay {
                std::thread::sleep(delay.saturating_sub(queued.elapsed()));
            }
            if !cache.begin(started) {
                return;
            }
            // Ends the pending parse however the job ends, waking any waiter.
            let _done = Done { cache: cache.clone(), id: started };
            let doc = Document::parse(bytes.to_vec());
            if let Ok(parsed) = parse(&doc) {
                let found = census(&parsed.tree, &doc, parsed.text_start);
                cache.insert(&key, Arc::from(doc.into_bytes()), CachedTree { parsed, census: found }, Some(started));
            }
        };
        if !submit(Box::new(job)) {
            self.lock().pending.retain(|p| p.id != started);
            return false;
        }
        true
    }

    /// Marks the queued parse `id` begun; `false` when it was taken back.
    fn begin(&self, id: u64) -> bool {
        let mut inner = self.lock();
        match inner.pending.iter_mut().find(|p| p.id == id) {
            Some(pending) => {
                pending.begun = true;
                true
            }
            None => false,
        }
    }

    /// Keeps `tree`, parsed from `bytes`, as the tree of `key` (replacing any other).
    pub fn put(&self, key: &Path, bytes: &[u8], tree: CachedTree) {
        if bytes.len() > TREE_CACHE_BYTES {
            return;
        }
        self.insert(key, Arc::from(bytes), tree, None);
    }

    /// [`TreeCache::put`]; with `unless_newer`, not when the tree of `key` was put after
    /// that time (a background parse must not replace the tree of a later version).
    fn insert(&self, key: &Path, bytes: Arc<[u8]>, tree: CachedTree, unless_newer: Option<u64>) {
        let mut inner = self.lock();
        if let Some(started) = unless_newer
            && inner.entries.iter().any(|e| e.key == key && e.since > started)
        {
            return;
        }
        inner.clock += 1;
        let used = inner.clock;
        inner.entries.retain(|e| e.key != key);
        while inner.entries.len() >= TREE_CACHE_FILES
            || inner.entries.iter().map(|e| e.bytes.len()).sum::<usize>() + bytes.len() > TREE_CACHE_BYTES
        {
            let Some(oldest) = inner.entries.iter().enumerate().min_by_key(|(_, e)| e.used).map(|(i, _)| i) else {
                break;
            };
            inner.entries.swap_remove(oldest);
        }
        inner.entries.push(Entry { key: key.to_path_buf(), bytes, tree, used, since: used });
    }

    /// How many background parses are under way.
    pub fn parsing(&self) -> usize {
        self.lock().pending.len()
    }

    /// How many trees are kept.
    pub fn len(&self) -> usize {
        self.lock().entries.len()
    }

    /// Whether no tree is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.shared.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The tree of `after` as a session keeps trees: reparsed from `old` (the tree of the text
/// `edits` change into `after`) when that tree has no error, else a fresh parse, `true` then.
/// An incremental tree with errors is not always a fresh parse's: error recovery (and an
/// external scanner's state, e.g. TypeScript's template strings) may place them differently
/// when old subtrees are reused. Every kept tree is thus a fresh parse or clean, and its
/// census is a fresh parse's (tests/syntax_reuse.rs).
pub(crate) fn reparse_to_keep(
    old: &Parsed,
    after: &Document,
    edits: &TextEdits,
    limits: ParseLimits,
) -> Result<(Parsed, bool), SyntaxError> {
    let parsed = reparse_edits(old, after, edits, limits)?;
    if parsed.tree.root_node().has_error() {
        return parse_document(parsed.lang, after, limits).map(|parsed| (parsed, true));
    }
    Ok((parsed, false))
}

/// A background parse.
pub(crate) type Job = Box<dyn FnOnce() + Send>;

/// Queues `job` for the process's parser thread (started by the first job); `false` when
/// there is no such thread.
pub(crate) fn submit(job: Job) -> bool {
    static PARSER: OnceLock<Option<Mutex<Sender<Job>>>> = OnceLock::new();
    let parser = PARSER.get_or_init(|| {
        let (sender, jobs) = channel::<Job>();
        let thread = std::thread::Builder::new().name("hashline-parse".into()).spawn(move || {
            for job in jobs {
                // A job that panics ends only itself (its guard ends its pending parse).
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
            }
        });
        thread.ok().map(|_| Mutex::new(sender))
    });
    parser.as_ref().is_some_and(|sender| sender.lock().unwrap_or_else(|p| p.into_inner()).send(job).is_ok())
}

/// Ends the background parse `id` when dropped.
struct Done {
    cache: TreeCache,
    id: u64,
}

impl Drop for Done {
    fn drop(&mut self) {
        self.cache.lock().pending.retain(|p| p.id != self.id);
        self.cache.shared.parsed.notify_all();
    }
}

impl std::fmt::Debug for TreeCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TreeCache").field("files", &self.len()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hashline_core::Document;
    use hashline_syntax::{ParseLimits, census, parse_document};

    fn tree(text: &[u8]) -> CachedTree {
        let doc = Document::parse(text.to_vec());
        let parsed = parse_document(LanguageId::Go, &doc, ParseLimits::DEFAULT).expect("parses");
        let census = census(&parsed.tree, &doc, parsed.text_start);
        CachedTree { parsed, census }
    }

    #[test]
    fn the_least_recently_used_tree_goes_first() {
        let cache = TreeCache::default();
        let text = b"package p\n";
        for i in 0..TREE_CACHE_FILES {
            cache.put(Path::new(&format!("/f{i}.go")), text, tree(text));
        }
        assert!(cache.get(Path::new("/f0.go"), LanguageId::Go, text).is_some());
        cache.put(Path::new("/new.go"), text, tree(text));
        assert_eq!(cache.len(), TREE_CACHE_FILES);
        assert!(cache.get(Path::new("/f0.go"), LanguageId::Go, text).is_some(), "used last, kept");
        assert!(cache.get(Path::new("/f1.go"), LanguageId::Go, text).is_none(), "used least, dropped");
    }

    /// Until the parser thread has begun or ended every parse of `cache`.
    fn until_begun(cache: &TreeCache) {
        while cache.lock().pending.iter().any(|p| !p.begun) {
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    #[test]
    fn a_prefetched_tree_is_waited_for_and_kept() {
        let cache = TreeCache::default();
        let text = b"package p\n\nfunc f() {\n";
        assert!(cache.prefetch(Path::new("/p.go"), LanguageId::Go, text.to_vec()));
        // No second parse of a file while one is under way.
        assert!(!cache.prefetch(Path::new("/p.go"), LanguageId::Go, text.to_vec()));
        until_begun(&cache);
        let tree = cache.get(Path::new("/p.go"), LanguageId::Go, text).expect("waited for");
        assert!(!tree.census.is_clean(), "the census of those bytes: {:?}", tree.census);
        assert!(!cache.prefetch(Path::new("/p.go"), LanguageId::Go, text.to_vec()), "kept: nothing to parse");
        // Other bytes are not waited for and not answered.
        assert!(cache.get(Path::new("/p.go"), LanguageId::Go, b"package q\n").is_none());
    }

    #[test]
    fn a_prefetch_does_not_replace_a_later_tree_and_parses_are_bounded() {
        let cache = TreeCache::default();
        let big = "package p\n".to_owned() + &"func f() { x := 1; _ = x }\n".repeat(20_000);
        for i in 0..PREFETCH_PARSES {
            assert!(cache.prefetch(Path::new(&format!("/{i}.go")), LanguageId::Go, big.clone().into_bytes()));
        }
        assert!(!cache.prefetch(Path::new("/more.go"), LanguageId::Go, b"package p\n".to_vec()), "bounded");
        // The file changed and was checked while its read's parse ran: that tree stays.
        cache.put(Path::new("/0.go"), b"package b\n", tree(b"package b\n"));
        while cache.parsing() > 0 {
            std::thread::sleep(Duration::from_millis(1));
        }
        assert!(cache.get(Path::new("/1.go"), LanguageId::Go, big.as_bytes()).is_some());
        assert!(cache.get(Path::new("/0.go"), LanguageId::Go, b"package b\n").is_some());
        assert!(cache.get(Path::new("/0.go"), LanguageId::Go, big.as_bytes()).is_none());
    }

    #[test]
    fn a_queued_parse_is_taken_back_by_the_edit_that_needs_it() {
        // The parser thread is held busy: the parse is queued, not begun.
        let (release, hold) = std::sync::mpsc::channel::<()>();
        assert!(submit(Box::new(move || {
            let _ = hold.recv();
        })));
        let cache = TreeCache::default();
        assert!(cache.prefetch(Path::new("/b.go"), LanguageId::Go, b"package b\n".to_vec()));
        let started = Instant::now();
        assert!(cache.get(Path::new("/b.go"), LanguageId::Go, b"package b\n").is_none(), "taken back");
        assert!(started.elapsed() < Duration::from_secs(1), "not waited for");
        assert_eq!(cache.parsing(), 0);
        release.send(()).expect("the holding job waits");
        // The taken-back job does nothing when its turn comes.
        assert!(cache.prefetch(Path::new("/c.go"), LanguageId::Go, b"package c\n".to_vec()));
        until_begun(&cache);
        assert!(cache.get(Path::new("/c.go"), LanguageId::Go, b"package c\n").is_some());
        assert!(cache.get(Path::new("/b.go"), LanguageId::Go, b"package b\n").is_none());
    }

    #[test]
    fn a_file_has_one_tree_and_the_bytes_bound_holds() {
        let cache = TreeCache::default();
        cache.put(Path::new("/a.go"), b"package a\n", tree(b"package a\n"));
        cache.put(Path::new("/a.go"), b"package b\n", tree(b"package b\n"));
        assert_eq!(cache.len(), 1);
        assert!(cache.get(Path::new("/a.go"), LanguageId::Go, b"package a\n").is_none());
        assert!(cache.get(Path::new("/a.go"), LanguageId::Go, b"package b\n").is_some());
        let big = vec![b'\n'; TREE_CACHE_BYTES / 2 + 1];
        cache.put(Path::new("/big1.go"), &big, tree(b"package a\n"));
        cache.put(Path::new("/big2.go"), &big, tree(b"package a\n"));
        assert_eq!(cache.len(), 1, "two halves and more do not fit together");
        cache.put(Path::new("/huge.go"), &vec![b'\n'; TREE_CACHE_BYTES + 1], tree(b"package a\n"));
        assert!(cache.get(Path::new("/huge.go"), LanguageId::Go, &vec![b'\n'; TREE_CACHE_BYTES + 1]).is_none());
    }
}
