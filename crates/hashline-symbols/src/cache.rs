//! A process-wide cache of maps keyed by (path, size, mtime, content hash).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use crate::symbol::SymbolMap;

/// At most this many maps are kept; the least recently used goes first.
pub const CACHE_CAPACITY: usize = 500;

/// What identifies one version of a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileStamp {
    /// Its size in bytes.
    pub size: u64,
    /// Its modification time, when the file system has one.
    pub mtime: Option<SystemTime>,
    /// xxh3 of its bytes.
    pub content_hash: u64,
}

impl FileStamp {
    /// The stamp of `bytes` with the file's modification time.
    pub fn of(bytes: &[u8], mtime: Option<SystemTime>) -> Self {
        FileStamp { size: bytes.len() as u64, mtime, content_hash: xxhash_rust::xxh3::xxh3_64(bytes) }
    }
}

struct Entry {
    stamp: FileStamp,
    map: Arc<SymbolMap>,
    used: u64,
}

/// Maps by file, reused while the file's stamp is unchanged.
#[derive(Default)]
pub struct MapCache {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    entries: HashMap<PathBuf, Entry>,
    clock: u64,
}

impl MapCache {
    /// An empty cache.
    pub fn new() -> Self {
        MapCache::default()
    }

    /// The map of `path` at `stamp`: the cached one, or `build()`'s (then cached).
    pub fn get_or_build<E>(
        &self,
        path: &Path,
        stamp: FileStamp,
        build: impl FnOnce() -> Result<SymbolMap, E>,
    ) -> Result<Arc<SymbolMap>, E> {
        {
            let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
            inner.clock += 1;
            let now = inner.clock;
            if let Some(entry) = inner.entries.get_mut(path)
                && entry.stamp == stamp
            {
                entry.used = now;
                return Ok(Arc::clone(&entry.map));
            }
        }
        let map = Arc::new(build()?);
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        if inner.entries.len() >= CACHE_CAPACITY && !inner.entries.contains_key(path) {
            let oldest = inner.entries.iter().min_by_key(|(_, e)| e.used).map(|(p, _)| p.clone());
            if let Some(oldest) = oldest {
                inner.entries.remove(&oldest);
            }
        }
        let used = inner.clock;
        inner.entries.insert(path.to_path_buf(), Entry { stamp, map: Arc::clone(&map), used });
        Ok(map)
    }

    /// The number of cached maps.
    pub fn len(&self) -> usize {
        self.inner.lock().unwrap_or_else(|p| p.into_inner()).entries.len()
    }

    /// Whether the cache is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(language: &str) -> SymbolMap {
        SymbolMap {
            language: language.to_owned(),
            line_count: 1,
            byte_count: 0,
            imports: Vec::new(),
            symbols: Vec::new(),
        }
    }

    #[test]
    fn a_changed_stamp_rebuilds_and_an_equal_one_reuses() {
        let cache = MapCache::new();
        let path = Path::new("/x.rs");
        let one = FileStamp::of(b"a", None);
        let built = cache.get_or_build::<()>(path, one, || Ok(map("first"))).unwrap();
        let again = cache.get_or_build::<()>(path, one, || Ok(map("second"))).unwrap();
        assert!(Arc::ptr_eq(&built, &again));
        let changed = FileStamp::of(b"b", None);
        assert_eq!(cache.get_or_build::<()>(path, changed, || Ok(map("third"))).unwrap().language, "third");
    }

    #[test]
    fn the_least_recently_used_map_is_dropped_at_capacity() {
        let cache = MapCache::new();
        let stamp = FileStamp::of(b"", None);
        for i in 0..=CACHE_CAPACITY {
            let path = PathBuf::from(format!("/f{i}"));
            cache.get_or_build::<()>(&path, stamp, || Ok(map("m"))).unwrap();
            if i == 0 {
                continue;
            }
            // Keep the first one fresh: the second is the oldest when the cache is full.
            cache.get_or_build::<()>(Path::new("/f0"), stamp, || Ok(map("rebuilt"))).unwrap();
        }
        assert_eq!(cache.len(), CACHE_CAPACITY);
        assert_eq!(cache.get_or_build::<()>(Path::new("/f0"), stamp, || Ok(map("rebuilt"))).unwrap().language, "m");
    }
}
