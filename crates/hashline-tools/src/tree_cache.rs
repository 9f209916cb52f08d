//! The session's syntax trees: for each file it recently wrote (or checked), the tree and
//! error census of those exact bytes, so the next edit's syntax check reparses only what
//! that edit changed instead of parsing the old file from scratch.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use hashline_syntax::{Census, LanguageId, Parsed};

/// At most this many trees are kept; the least recently used goes first.
pub const TREE_CACHE_FILES: usize = 8;
/// At most this many source bytes (summed over the kept trees) are kept: a tree takes
/// several times its source's size, so this bounds the cache to a few hundred MiB at worst.
pub const TREE_CACHE_BYTES: usize = 16 * 1024 * 1024;

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
}

/// Trees by file, each valid only for the bytes it was parsed from.
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
#[derive(Default)]
pub struct TreeCache {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    entries: Vec<Entry>,
    clock: u64,
}

impl TreeCache {
    /// The tree of `key` as `lang`, when the cache holds one parsed from exactly `bytes`.
    pub fn get(&self, key: &Path, lang: LanguageId, bytes: &[u8]) -> Option<CachedTree> {
        let mut inner = self.lock();
        inner.clock += 1;
        let now = inner.clock;
        let entry = inner.entries.iter_mut().find(|e| e.key == key)?;
        if entry.tree.parsed.lang != lang || *entry.bytes != *bytes {
            return None;
        }
        entry.used = now;
        Some(entry.tree.clone())
    }

    /// Keeps `tree`, parsed from `bytes`, as the tree of `key` (replacing any other).
    pub fn put(&self, key: &Path, bytes: &[u8], tree: CachedTree) {
        if bytes.len() > TREE_CACHE_BYTES {
            return;
        }
        let mut inner = self.lock();
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
        inner.entries.push(Entry { key: key.to_path_buf(), bytes: Arc::from(bytes), tree, used });
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
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
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
