//! Symbol maps and error censuses kept on disk between processes: the CLI's per-root map
//! cache, so that a lone `hashline read` of an unchanged code file does not parse it again,
//! and a lone `hashline edit` of it parses only the new text for its syntax check
//! (docs/protocol.md, "The CLI's map cache").
//!
//! Each path has at most [`SLOTS`] entries of each kind, `<16 hex digits of xxh3 over the
//! path>[.N].map` for maps, `.syn` for censuses and `.txt` for a map's text as a full read
//! appends it, each holding a header and the value's
//! bytes ([`SymbolMap::to_bytes`], [`Census::to_bytes`]). The header names what the value
//! was built from: its kind, this store format, the build of the program that wrote it, the
//! path, the file's base name (it picks the language), the file's size and the xxh3-128 of
//! its bytes — the modification time plays no part, so a file rewritten with other bytes of
//! the same size at the same time is parsed again. A checksum of the value's bytes closes the
//! header. An entry that is missing, damaged, truncated, of another kind, format or build, or
//! about other bytes is not used (never an error: the value is built as without a store).
//! Two slots per path keep the last two versions of a file, so that an edit followed by its
//! undo (or a benchmark restoring its input) finds both; a new version replaces the slot
//! written longer ago.
//!
//! Files are written atomically (a temporary file renamed over the entry), so concurrent
//! processes see an old entry or a new one. The store keeps at most [`MAX_ENTRIES`] files
//! and [`MAX_TOTAL_BYTES`] (both kinds together): when an entry is added beyond either, the
//! least recently used go (a hit refreshes an entry's modification time, at most once an
//! hour).

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use hashline_symbols::SymbolMap;
use hashline_syntax::Census;

/// The most entries a store keeps.
pub const MAX_ENTRIES: usize = 1000;
/// The most bytes a store's entries take together (checked when an entry is added).
pub const MAX_TOTAL_BYTES: u64 = 64 * 1024 * 1024;
/// A map whose entry would be larger than this is not stored.
pub const MAX_ENTRY_BYTES: usize = 4 * 1024 * 1024;

/// Entries a path keeps of each kind.
pub const SLOTS: usize = 2;

/// 1: the first layout.
const STORE_VERSION: u32 = 1;
/// An entry used more recently than this is not touched again on a hit.
const TOUCH_AFTER: Duration = Duration::from_secs(3600);
/// Temporary files left by a stopped writer are removed once older than this.
const STALE_TEMP: Duration = Duration::from_secs(3600);

/// What a map was built from: the file's size and the xxh3-128 of its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContentKey {
    /// Size in bytes.
    pub size: u64,
    /// xxh3-128 of the bytes.
    pub hash: u128,
}

impl ContentKey {
    /// The key of `bytes`.
    pub fn of(bytes: &[u8]) -> Self {
        ContentKey { size: bytes.len() as u64, hash: xxhash_rust::xxh3::xxh3_128(bytes) }
    }
}

/// What an entry holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Map,
    Census,
    MapText,
}

impl Kind {
    /// Every kind (eviction counts them all).
    const ALL: [Kind; 3] = [Kind::Map, Kind::Census, Kind::MapText];

    fn extension(self) -> &'static str {
        match self {
            Kind::Map => "map",
            Kind::Census => "syn",
            Kind::MapText => "txt",
        }
    }

    fn magic(self) -> &'static [u8; 8] {
        match self {
            Kind::Map => b"HLSYMAP\0",
            Kind::Census => b"HLCENSU\0",
            Kind::MapText => b"HLMAPTX\0",
        }
    }
}

/// A directory of stored maps, written by one build of the program.
#[derive(Clone, Debug)]
pub struct MapStore {
    dir: PathBuf,
    build: u64,
}

impl MapStore {
    /// A store in `dir` (created when the first map is stored) for maps of build `build`:
    /// entries another build wrote are not used. A build identity must change whenever the
    /// maps the program builds may change (the CLI uses its executable's size and time).
    pub fn new(dir: impl Into<PathBuf>, build: u64) -> Self {
        MapStore { dir: dir.into(), build }
    }

    /// The store's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn entry_path(&self, key: &Path, kind: Kind, slot: usize) -> PathBuf {
        let hash = xxhash_rust::xxh3::xxh3_64(key.as_os_str().as_encoded_bytes());
        let ext = kind.extension();
        match slot {
            0 => self.dir.join(format!("{hash:016x}.{ext}")),
            n => self.dir.join(format!("{hash:016x}.{n}.{ext}")),
        }
    }

    /// The stored map of the file `key` (a real path), named `name` (its base name picks the
    /// language), when it was built by this build from bytes with `content`'s key.
    pub fn load(&self, key: &Path, name: &str, content: ContentKey) -> Option<SymbolMap> {
        let map = SymbolMap::from_bytes(&self.load_body(Kind::Map, key, name, content)?).ok()?;
        // A sanity check beside the checksum: the map is of a file of this size.
        (map.byte_count == content.size).then_some(map)
    }

    /// Stores `map`, built from the file `key` named `name` with `content`'s bytes. Failures
    /// (no space, no permission) are returned for tests; callers ignore them: the map is
    /// built again next time.
    ///
    /// The map's text as a full read appends it goes beside it, so that whoever built the
    /// map (a read, a symbol call, an edit keeping the new version's map) leaves the next
    /// full read nothing to decode or render.
    pub fn store(&self, key: &Path, name: &str, content: ContentKey, map: &SymbolMap) -> std::io::Result<()> {
        self.store_rendered(key, name, content, map).map(drop)
    }

    /// [`MapStore::store`], returning the map's text it stored (so that a read that built
    /// the map need not read it back).
    pub fn store_rendered(
        &self,
        key: &Path,
        name: &str,
        content: ContentKey,
        map: &SymbolMap,
    ) -> std::io::Result<Option<String>> {
        let Some(body) = map.to_bytes() else { return Ok(None) };
        self.store_body(Kind::Map, key, name, content, &body)?;
        let text = hashline_symbols::render_map(name, map).text;
        self.store_map_text(key, name, content, &text)?;
        Ok(Some(text))
    }

    /// Whether a slot of `key` holds a map for `content` (its header only: the entry may
    /// still prove damaged when loaded).
    pub fn has_map(&self, key: &Path, name: &str, content: ContentKey) -> bool {
        let header = self.encode(Kind::Map, key, name, content, &[]);
        let len = self.header_len(key, name);
        (0..SLOTS).any(|slot| self.holds(&self.entry_path(key, Kind::Map, slot), len, &header[..len]))
    }

    /// The stored error census of the file `key` named `name` (as [`MapStore::load`]): the
    /// census of a fresh parse of bytes with `content`'s key.
    pub fn load_census(&self, key: &Path, name: &str, content: ContentKey) -> Option<Census> {
        let census = Census::from_bytes(&self.load_body(Kind::Census, key, name, content)?)?;
        // A sanity check beside the checksum: every issue lies within a file of this size.
        census.issues.iter().all(|issue| issue.bytes.end as u64 <= content.size).then_some(census)
    }

    /// Stores `census`, of the file `key` named `name` holding `content`'s bytes (as
    /// [`MapStore::store`]).
    pub fn store_census(&self, key: &Path, name: &str, content: ContentKey, census: &Census) -> std::io::Result<()> {
        self.store_body(Kind::Census, key, name, content, &census.to_bytes())
    }

    /// The stored text of the map of the file `key` named `name` as a full read appends it
    /// (as [`MapStore::load`]): a warm read then neither decodes nor renders the map.
    pub fn load_map_text(&self, key: &Path, name: &str, content: ContentKey) -> Option<String> {
        String::from_utf8(self.load_body(Kind::MapText, key, name, content)?).ok()
    }

    /// Stores the text of the map of the file `key` named `name` holding `content`'s bytes,
    /// as a full read appends it (as [`MapStore::store`]).
    pub fn store_map_text(&self, key: &Path, name: &str, content: ContentKey, text: &str) -> std::io::Result<()> {
        self.store_body(Kind::MapText, key, name, content, text.as_bytes())
    }

    /// The body of the slot of `key` that holds `kind` for `content`.
    fn load_body(&self, kind: Kind, key: &Path, name: &str, content: ContentKey) -> Option<Vec<u8>> {
        (0..SLOTS).find_map(|slot| self.load_slot(&self.entry_path(key, kind, slot), kind, key, name, content))
    }

    fn load_slot(&self, path: &Path, kind: Kind, key: &Path, name: &str, content: ContentKey) -> Option<Vec<u8>> {
        let file = hashline_fs::open::open_read(path).ok()?;
        let meta = file.metadata().ok()?;
        if !meta.is_file() || meta.len() > (MAX_ENTRY_BYTES as u64) {
            return None;
        }
        let mut bytes = Vec::with_capacity(meta.len() as usize);
        std::io::Read::read_to_end(&mut std::io::Read::take(&file, MAX_ENTRY_BYTES as u64 + 1), &mut bytes).ok()?;
        if bytes.len() > MAX_ENTRY_BYTES {
            return None;
        }
        let body = self.decode(&bytes, kind, key, name, content)?.to_vec();
        if meta.modified().ok().and_then(|m| m.elapsed().ok()).is_some_and(|age| age > TOUCH_AFTER) {
            let _ = file.set_modified(SystemTime::now());
        }
        Some(body)
    }

    /// Writes `body` into the slot of `key` that holds this version already, else an empty
    /// one, else the one written longer ago.
    fn store_body(&self, kind: Kind, key: &Path, name: &str, content: ContentKey, body: &[u8]) -> std::io::Result<()> {
        let bytes = self.encode(kind, key, name, content, body);
        if bytes.len() > MAX_ENTRY_BYTES {
            return Ok(());
        }
        let header = self.header_len(key, name);
        let mut empty = None;
        let mut oldest: Option<(SystemTime, PathBuf)> = None;
        let mut same = None;
        for slot in 0..SLOTS {
            let path = self.entry_path(key, kind, slot);
            let Ok(meta) = hashline_fs::lookup::symlink_metadata(&path) else {
                empty = empty.or(Some(path));
                continue;
            };
            if self.holds(&path, header, &bytes[..header]) {
                same = Some(path);
                break;
            }
            let modified = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
            if oldest.as_ref().is_none_or(|(when, _)| modified < *when) {
                oldest = Some((modified, path));
            }
        }
        let (path, new) = match (same, empty, oldest) {
            (Some(path), _, _) => (path, false),
            (None, Some(path), _) => (path, true),
            (None, None, Some((_, path))) => (path, false),
            (None, None, None) => return Ok(()),
        };
        if new {
            hashline_fs::lookup::create_dir_all(&self.dir)?;
        }
        hashline_fs::write_atomic_unsynced(&path, &bytes)?;
        if new {
            self.evict();
        }
        Ok(())
    }

    /// The length of an entry's header up to the checksum, for `key` and `name`.
    fn header_len(&self, key: &Path, name: &str) -> usize {
        8 + 4 + 8 + 8 + 16 + 4 + key.as_os_str().as_encoded_bytes().len() + 4 + name.len()
    }

    /// Whether the entry at `path` starts with `header` (it holds the same version).
    fn holds(&self, path: &Path, len: usize, header: &[u8]) -> bool {
        let Ok(file) = hashline_fs::open::open_read(path) else { return false };
        let mut start = vec![0; len];
        std::io::Read::read_exact(&mut &file, &mut start).is_ok() && start == header
    }

    fn encode(&self, kind: Kind, key: &Path, name: &str, content: ContentKey, body: &[u8]) -> Vec<u8> {
        let key = key.as_os_str().as_encoded_bytes();
        let mut out = Vec::with_capacity(64 + key.len() + name.len() + body.len());
        out.extend_from_slice(kind.magic());
        out.extend_from_slice(&STORE_VERSION.to_le_bytes());
        out.extend_from_slice(&self.build.to_le_bytes());
        out.extend_from_slice(&content.size.to_le_bytes());
        out.extend_from_slice(&content.hash.to_le_bytes());
        for field in [key, name.as_bytes()] {
            out.extend_from_slice(&(field.len() as u32).to_le_bytes());
            out.extend_from_slice(field);
        }
        out.extend_from_slice(&xxhash_rust::xxh3::xxh3_64(body).to_le_bytes());
        out.extend_from_slice(body);
        out
    }

    fn decode<'b>(&self, bytes: &'b [u8], kind: Kind, key: &Path, name: &str, content: ContentKey) -> Option<&'b [u8]> {
        let mut r = Reader(bytes);
        let fits = r.take(8)? == kind.magic()
            && r.u32()? == STORE_VERSION
            && r.u64()? == self.build
            && r.u64()? == content.size
            && r.u128()? == content.hash;
        if !fits {
            return None;
        }
        for field in [key.as_os_str().as_encoded_bytes(), name.as_bytes()] {
            let len = r.u32()? as usize;
            if r.take(len)? != field {
                return None;
            }
        }
        let checksum = r.u64()?;
        (xxhash_rust::xxh3::xxh3_64(r.0) == checksum).then_some(r.0)
    }

    /// Removes the least recently used entries beyond the bounds, and stale temporary files.
    fn evict(&self) {
        let Ok(dir) = hashline_fs::lookup::read_dir(&self.dir) else { return };
        let mut entries = Vec::new();
        for entry in dir.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let Ok(meta) = entry.metadata() else { continue };
            let modified = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
            let is_entry = Kind::ALL.iter().any(|kind| name.ends_with(&format!(".{}", kind.extension())));
            if is_entry && meta.is_file() {
                entries.push((modified, meta.len(), entry.path()));
            } else if name.starts_with(".hl")
                && name.ends_with(".tmp")
                && modified.elapsed().is_ok_and(|age| age > STALE_TEMP)
            {
                let _ = hashline_fs::lookup::remove_file(&entry.path());
            }
        }
        let mut total: u64 = entries.iter().map(|(_, len, _)| len).sum();
        if entries.len() <= MAX_ENTRIES && total <= MAX_TOTAL_BYTES {
            return;
        }
        entries.sort_by_key(|(modified, _, _)| *modified);
        let mut count = entries.len();
        for (_, len, path) in entries {
            if count <= MAX_ENTRIES && total <= MAX_TOTAL_BYTES {
                break;
            }
            // Another process may have removed it first.
            let _ = hashline_fs::lookup::remove_file(&path);
            count -= 1;
            total -= len;
        }
    }
}

/// Reads a header field by field; `None` past the end.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    fn u128(&mut self) -> Option<u128> {
        Some(u128::from_le_bytes(self.take(16)?.try_into().ok()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hashline_core::Document;

    const SOURCE: &[u8] = b"/// Doc.\npub fn alpha(x: u32) -> u32 {\n    x\n}\n\nstruct Beta {\n    y: i8,\n}\n\nimpl Beta {\n    fn gamma(&self) {}\n}\n";

    fn map_of(bytes: &[u8]) -> SymbolMap {
        hashline_symbols::map_document("lib.rs", &Document::parse(bytes.to_vec())).unwrap().unwrap()
    }

    fn store_in(dir: &Path) -> MapStore {
        MapStore::new(dir.join("maps"), 7)
    }

    #[test]
    fn a_stored_map_comes_back_equal_for_the_same_bytes_only() {
        let dir = tempfile::tempdir().unwrap();
        let store = store_in(dir.path());
        let key = Path::new("/p/lib.rs");
        let content = ContentKey::of(SOURCE);
        assert!(store.load(key, "lib.rs", content).is_none(), "empty store");
        store.store(key, "lib.rs", content, &map_of(SOURCE)).unwrap();
        assert_eq!(store.load(key, "lib.rs", content), Some(map_of(SOURCE)));

        // Same size, different bytes: another key.
        let mut other = SOURCE.to_vec();
        let at = other.iter().position(|&b| b == b'x').unwrap();
        other[at] = b'z';
        assert_eq!(other.len(), SOURCE.len());
        assert!(store.load(key, "lib.rs", ContentKey::of(&other)).is_none());
        // Another path, another name (language), another build: not this entry.
        assert!(store.load(Path::new("/p/other.rs"), "lib.rs", content).is_none());
        assert!(store.load(key, "lib.py", content).is_none());
        assert!(MapStore::new(dir.path().join("maps"), 8).load(key, "lib.rs", content).is_none());
    }

    #[test]
    fn damaged_truncated_and_foreign_entries_are_not_used() {
        let dir = tempfile::tempdir().unwrap();
        let store = store_in(dir.path());
        let key = Path::new("/p/lib.rs");
        let content = ContentKey::of(SOURCE);
        store.store(key, "lib.rs", content, &map_of(SOURCE)).unwrap();
        let entry = store.entry_path(key, Kind::Map, 0);
        let good = std::fs::read(&entry).unwrap();
        for len in 0..good.len() {
            std::fs::write(&entry, &good[..len]).unwrap();
            assert!(store.load(key, "lib.rs", content).is_none(), "truncated to {len}");
        }
        for i in 0..good.len() {
            let mut damaged = good.clone();
            damaged[i] ^= 0x01;
            std::fs::write(&entry, &damaged).unwrap();
            assert!(store.load(key, "lib.rs", content).is_none(), "byte {i} flipped");
        }
        std::fs::remove_file(&entry).unwrap();
        std::fs::create_dir(&entry).unwrap();
        assert!(store.load(key, "lib.rs", content).is_none(), "a directory");
        std::fs::remove_dir(&entry).unwrap();
        // A rewrite replaces whatever was there.
        std::fs::write(&entry, b"junk").unwrap();
        store.store(key, "lib.rs", content, &map_of(SOURCE)).unwrap();
        assert_eq!(store.load(key, "lib.rs", content), Some(map_of(SOURCE)));
    }

    #[test]
    fn the_least_recently_used_entries_go_beyond_the_bound() {
        let dir = tempfile::tempdir().unwrap();
        let store = store_in(dir.path());
        let map = map_of(SOURCE);
        let content = ContentKey::of(SOURCE);
        let old = SystemTime::now() - Duration::from_secs(10 * 3600);
        for i in 0..MAX_ENTRIES {
            let key = PathBuf::from(format!("/p/f{i}.rs"));
            // The map alone (`store` puts its text beside it; the text's turn is below).
            store.store_body(Kind::Map, &key, "f.rs", content, &map.to_bytes().unwrap()).unwrap();
            // Older first: f0 is the least recently used, then f1, ...
            let when = old + Duration::from_secs(i as u64);
            std::fs::File::options()
                .write(true)
                .open(store.entry_path(&key, Kind::Map, 0))
                .unwrap()
                .set_modified(when)
                .unwrap();
        }
        // A hit on f0 makes it recent; a stale temporary file goes at the next eviction.
        assert!(store.load(Path::new("/p/f0.rs"), "f.rs", content).is_some());
        let temp = store.dir().join(".hlabc.tmp");
        std::fs::write(&temp, b"left over").unwrap();
        std::fs::File::options().write(true).open(&temp).unwrap().set_modified(old).unwrap();
        store.store_body(Kind::Map, Path::new("/p/new.rs"), "f.rs", content, &map.to_bytes().unwrap()).unwrap();
        let count = std::fs::read_dir(store.dir()).unwrap().count();
        assert_eq!(count, MAX_ENTRIES);
        assert!(!temp.exists());
        assert!(store.load(Path::new("/p/f0.rs"), "f.rs", content).is_some(), "touched by its hit");
        assert!(store.load(Path::new("/p/f1.rs"), "f.rs", content).is_none(), "the oldest went");
        assert!(store.load(Path::new("/p/f2.rs"), "f.rs", content).is_some());
        assert!(store.load(Path::new("/p/new.rs"), "f.rs", content).is_some());
        // Every kind counts: a map's text is an entry too (it was not, and texts grew
        // without bound).
        store.store_map_text(Path::new("/p/text.rs"), "f.rs", content, "a map's text").unwrap();
        assert_eq!(std::fs::read_dir(store.dir()).unwrap().count(), MAX_ENTRIES);
        // f2 was touched by its hit above: f3 is the oldest now.
        assert!(store.load(Path::new("/p/f3.rs"), "f.rs", content).is_none(), "the next oldest went");
    }

    fn census_of(bytes: &[u8]) -> Census {
        let doc = Document::parse(bytes.to_vec());
        let lang = hashline_syntax::LanguageId::Rust;
        let parsed = hashline_syntax::parse_document(lang, &doc, hashline_syntax::ParseLimits::DEFAULT).unwrap();
        hashline_syntax::census(&parsed.tree, &doc, parsed.text_start)
    }

    #[test]
    fn a_stored_census_comes_back_for_the_same_bytes_only_and_is_never_a_map() {
        let dir = tempfile::tempdir().unwrap();
        let store = store_in(dir.path());
        let key = Path::new("/p/lib.rs");
        let broken = b"fn a() {\n    let x = 1\n}\nfn b( {}\n";
        let census = census_of(broken);
        assert!(!census.is_clean());
        let content = ContentKey::of(broken);
        assert!(store.load_census(key, "lib.rs", content).is_none(), "empty store");
        store.store_census(key, "lib.rs", content, &census).unwrap();
        assert_eq!(store.load_census(key, "lib.rs", content), Some(census.clone()));
        let mut other = broken.to_vec();
        other[3] = b'z';
        assert!(store.load_census(key, "lib.rs", ContentKey::of(&other)).is_none(), "same size, other bytes");
        assert!(store.load_census(key, "lib.py", content).is_none());
        assert!(MapStore::new(dir.path().join("maps"), 8).load_census(key, "lib.rs", content).is_none());
        // The census and the map of one version live side by side; neither reads as the other.
        store.store(key, "lib.rs", content, &map_of(broken)).unwrap();
        assert_eq!(store.load_census(key, "lib.rs", content), Some(census));
        std::fs::copy(store.entry_path(key, Kind::Census, 0), store.entry_path(key, Kind::Map, 0)).unwrap();
        assert!(store.load(key, "lib.rs", content).is_none());
        // A census naming bytes beyond the file is not used even with a good checksum.
        let mut beyond = census_of(broken);
        beyond.issues[0].bytes.end = broken.len() + 1;
        store.store_census(key, "lib.rs", content, &beyond).unwrap();
        assert!(store.load_census(key, "lib.rs", content).is_none());
    }

    #[test]
    fn two_versions_of_a_path_are_kept_and_a_third_replaces_the_older() {
        let dir = tempfile::tempdir().unwrap();
        let store = store_in(dir.path());
        let key = Path::new("/p/lib.rs");
        let versions: Vec<Vec<u8>> =
            (0..3).map(|i| format!("fn v{i}() {{\n    let x = {i}\n}}\n").into_bytes()).collect();
        let keys: Vec<ContentKey> = versions.iter().map(|v| ContentKey::of(v)).collect();
        let at = |when: u64, slot: usize| {
            let file = std::fs::File::options().write(true).open(store.entry_path(key, Kind::Census, slot)).unwrap();
            file.set_modified(SystemTime::now() - Duration::from_secs(7200 - when)).unwrap();
        };
        store.store_census(key, "lib.rs", keys[0], &census_of(&versions[0])).unwrap();
        at(0, 0);
        store.store_census(key, "lib.rs", keys[1], &census_of(&versions[1])).unwrap();
        at(1, 1);
        // Storing a version again rewrites its own slot: both stay.
        store.store_census(key, "lib.rs", keys[0], &census_of(&versions[0])).unwrap();
        for (version, content) in versions.iter().zip(&keys).take(2) {
            assert_eq!(store.load_census(key, "lib.rs", *content), Some(census_of(version)));
        }
        // (The loads touched both, as hits on entries older than an hour.)
        at(1, 1);
        at(2, 0);
        // A third version replaces the slot written longer ago (version 1's).
        store.store_census(key, "lib.rs", keys[2], &census_of(&versions[2])).unwrap();
        assert!(store.load_census(key, "lib.rs", keys[1]).is_none());
        assert_eq!(store.load_census(key, "lib.rs", keys[0]), Some(census_of(&versions[0])));
        assert_eq!(store.load_census(key, "lib.rs", keys[2]), Some(census_of(&versions[2])));
        assert_eq!(std::fs::read_dir(store.dir()).unwrap().count(), SLOTS);
    }
}
