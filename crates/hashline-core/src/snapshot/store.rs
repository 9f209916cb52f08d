//! The store of what was shown: snapshot bytes by tag, bounded, least recently used out.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use super::SnapshotTag;
use super::link::Link;

/// The bounds of a [`SnapshotStore`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoreLimits {
    /// The most content bytes held at once; past it the least recently used snapshots go.
    pub max_bytes: usize,
    /// The largest snapshot kept. A larger file still has a tag, but anchors cited with it
    /// cannot be resolved exactly (the caller falls back, with a warning).
    pub max_entry_bytes: usize,
    /// The most snapshots held at once (empty files cost no bytes, so bytes alone do not
    /// bound the count).
    pub max_entries: usize,
}

impl StoreLimits {
    /// 64 MiB in all, 16 MiB for one snapshot, 10,000 snapshots.
    pub const DEFAULT: StoreLimits =
        StoreLimits { max_bytes: 64 * 1024 * 1024, max_entry_bytes: 16 * 1024 * 1024, max_entries: 10_000 };

    /// The limits made consistent: a per-entry cap above the total is lowered to it, and at
    /// least one entry is allowed.
    pub fn consistent(self) -> Self {
        StoreLimits {
            max_entry_bytes: self.max_entry_bytes.min(self.max_bytes),
            max_entries: self.max_entries.max(1),
            ..self
        }
    }
}

impl Default for StoreLimits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// What [`SnapshotStore::insert`] did with a snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stored {
    /// A new entry.
    Added,
    /// The same bytes were already held (now the most recently used).
    Present,
    /// Larger than [`StoreLimits::max_entry_bytes`]: not kept.
    TooLarge,
    /// Other bytes with the same tag were seen: the tag resolves nothing until it is
    /// evicted ([`Miss::Collided`]).
    Collided,
    /// Restored bytes that do not hash to their tag, while the store holds the bytes that
    /// do: not kept.
    Refused,
    /// The store could not keep the bytes (a directory that cannot be opened or written);
    /// the in-memory store never says this.
    Unavailable,
}

/// The tag of an inserted snapshot, and what the store did with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Inserted {
    /// The snapshot's tag, to show with its rows.
    pub tag: SnapshotTag,
    /// Whether the store kept the bytes.
    pub stored: Stored,
}

/// Why [`SnapshotStore::get`] has no bytes for a tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Miss {
    /// Never stored, or evicted since.
    #[error("snapshot {0} is not in the store (never shown, or evicted)")]
    Unknown(SnapshotTag),
    /// The entry's bytes do not hash to its tag: it was altered or planted. It has been
    /// dropped.
    #[error("snapshot {0} was altered in the store and has been dropped")]
    Tampered(SnapshotTag),
    /// Two different contents with this tag were shown: neither is trusted.
    #[error("snapshot {0} names two different contents")]
    Collided(SnapshotTag),
}

impl Miss {
    /// The tag that missed.
    pub fn tag(&self) -> SnapshotTag {
        match self {
            Miss::Unknown(tag) | Miss::Tampered(tag) | Miss::Collided(tag) => *tag,
        }
    }
}

#[derive(Debug)]
struct Entry {
    /// The bytes, or `None` for a tag seen with two contents.
    content: Option<Arc<[u8]>>,
    /// When it was last used (the key of `SnapshotStore::order`).
    used: u64,
    /// The snapshot this one was made from as a partial view ([`SnapshotStore::link`]).
    link: Option<Link>,
}

/// An in-memory, content-addressed store of the snapshots a principal was shown: bytes by
/// [`SnapshotTag`], bounded by [`StoreLimits`], least recently used first out.
///
/// Every entry is checked against its tag when it is used ([`get`](Self::get)), so bytes
/// put back from an untrusted place ([`restore`](Self::restore)) are never used unless
/// they are the snapshot the tag names.
///
/// ```
/// use hashline_core::snapshot::{Miss, SnapshotStore, Stored};
///
/// let mut store = SnapshotStore::default();
/// let shown = store.insert(b"alpha\nbeta\n");
/// assert_eq!(shown.stored, Stored::Added);
/// assert_eq!(store.get(shown.tag).as_deref(), Ok(&b"alpha\nbeta\n"[..]));
/// let never = hashline_core::snapshot::SnapshotTag::of(b"other");
/// assert_eq!(store.get(never), Err(Miss::Unknown(never)));
/// ```
#[derive(Debug)]
pub struct SnapshotStore {
    limits: StoreLimits,
    entries: HashMap<SnapshotTag, Entry>,
    /// Tags by last use, oldest first.
    order: BTreeMap<u64, SnapshotTag>,
    clock: u64,
    bytes: usize,
}

impl Default for SnapshotStore {
    fn default() -> Self {
        Self::new(StoreLimits::DEFAULT)
    }
}

impl SnapshotStore {
    /// An empty store within `limits` ([made consistent](StoreLimits::consistent)).
    pub fn new(limits: StoreLimits) -> Self {
        let limits = limits.consistent();
        Self { limits, entries: HashMap::new(), order: BTreeMap::new(), clock: 0, bytes: 0 }
    }

    /// The store's bounds.
    pub fn limits(&self) -> StoreLimits {
        self.limits
    }

    /// How many entries are held (collided tags included).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the store is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The content bytes held.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Whether the store holds bytes for `tag` (unchecked; does not count as a use).
    pub fn contains(&self, tag: SnapshotTag) -> bool {
        self.entries.get(&tag).is_some_and(|entry| entry.content.is_some())
    }

    /// Records that `bytes` were shown, and returns their tag. The snapshot becomes the most
    /// recently used; older ones are evicted to stay within the limits.
    pub fn insert(&mut self, bytes: &[u8]) -> Inserted {
        let tag = SnapshotTag::of(bytes);
        let stored = self.put(tag, bytes);
        Inserted { tag, stored }
    }

    /// Puts back an entry read from somewhere the store does not trust (a file in a state
    /// directory): kept as given and checked against its tag when it is used, or at once when
    /// the store already holds other bytes under the tag (the forged side is dropped). Bytes
    /// over the per-entry cap are not kept.
    pub fn restore(&mut self, tag: SnapshotTag, bytes: &[u8]) -> Stored {
        self.put(tag, bytes)
    }

    /// The bytes of the snapshot named `tag`, checked against the tag, which becomes the most
    /// recently used. An entry whose bytes do not hash to its tag is dropped and reported
    /// ([`Miss::Tampered`]), never returned.
    pub fn get(&mut self, tag: SnapshotTag) -> Result<Arc<[u8]>, Miss> {
        let entry = self.entries.get(&tag).ok_or(Miss::Unknown(tag))?;
        let Some(content) = entry.content.clone() else {
            self.touch(tag);
            return Err(Miss::Collided(tag));
        };
        if !tag.matches(&content) {
            self.remove(tag);
            return Err(Miss::Tampered(tag));
        }
        self.touch(tag);
        Ok(content)
    }

    /// Records that `child` was shown as a partial view made from `link.parent`, showing
    /// the lines `link.shown`: an edit's result (the lines it added) made from the snapshot the edit
    /// cited or edited, or a refusal's fresh rows made from the snapshot it refused. The view
    /// vouches for those rows only; a model holding it still holds `parent`'s rows for the
    /// other lines. Nothing is recorded unless `child` is held and differs from `parent`; a
    /// later link (or [`unlink`](Self::unlink)) of the same child replaces this one, and the
    /// link goes with the child's entry.
    ///
    /// ```
    /// use hashline_core::snapshot::{Link, ShownLines, SnapshotStore};
    ///
    /// let mut store = SnapshotStore::default();
    /// let read = store.insert(b"a\nb\n").tag;
    /// let edited = store.insert(b"a\nx\nb\n").tag;
    /// let shown = ShownLines::from_lines([2]);
    /// store.link(edited, Link { parent: read, shown, confirmed: ShownLines::default() });
    /// let link = store.link_of(edited).unwrap();
    /// assert_eq!((link.parent, link.shown.to_string()), (read, "2".to_owned()));
    /// // A read of the same bytes shows them as a view of their own.
    /// store.unlink(edited);
    /// assert_eq!(store.link_of(edited), None);
    /// ```
    pub fn link(&mut self, child: SnapshotTag, link: Link) {
        if child == link.parent {
            return;
        }
        if let Some(entry) = self.entries.get_mut(&child)
            && entry.content.is_some()
        {
            entry.link = Some(link);
        }
    }

    /// Records that `tag` was shown as a view of its own (a read, grep, write …): it vouches
    /// for all its rows, and is no longer looked through to another.
    pub fn unlink(&mut self, tag: SnapshotTag) {
        if let Some(entry) = self.entries.get_mut(&tag) {
            entry.link = None;
        }
    }

    /// The link of `child` ([`link`](Self::link)), if recorded (unchecked; does not count as
    /// a use).
    pub fn link_of(&self, child: SnapshotTag) -> Option<Link> {
        self.entries.get(&child).and_then(|entry| entry.link.clone())
    }

    /// The tags held, least recently used first.
    pub fn tags(&self) -> impl Iterator<Item = SnapshotTag> + '_ {
        self.order.values().copied()
    }

    fn put(&mut self, tag: SnapshotTag, bytes: &[u8]) -> Stored {
        if let Some(entry) = self.entries.get(&tag) {
            let outcome = match &entry.content {
                None => Stored::Collided,
                Some(held) if **held == *bytes => Stored::Present,
                // Two contents under one tag: only one of them can be forged, and a forged
                // one (bytes that do not hash to the tag) is dropped; two genuine ones are a
                // collision, and neither is trusted again.
                Some(held) => match (tag.matches(held), tag.matches(bytes)) {
                    (true, true) => Stored::Collided,
                    (true, false) => Stored::Refused,
                    (false, _) => {
                        self.remove(tag);
                        return self.put(tag, bytes);
                    }
                },
            };
            if outcome == Stored::Collided {
                self.forget_content(tag);
            }
            self.touch(tag);
            return outcome;
        }
        if bytes.len() > self.limits.max_entry_bytes {
            return Stored::TooLarge;
        }
        self.clock += 1;
        self.entries.insert(tag, Entry { content: Some(Arc::from(bytes)), used: self.clock, link: None });
        self.order.insert(self.clock, tag);
        self.bytes += bytes.len();
        self.evict(tag);
        Stored::Added
    }

    /// Drops the oldest entries (never `keep`) until the store is within its limits.
    fn evict(&mut self, keep: SnapshotTag) {
        while self.bytes > self.limits.max_bytes || self.entries.len() > self.limits.max_entries {
            let Some((_, &oldest)) = self.order.iter().find(|(_, tag)| **tag != keep) else { break };
            self.remove(oldest);
        }
    }

    fn touch(&mut self, tag: SnapshotTag) {
        self.clock += 1;
        if let Some(entry) = self.entries.get_mut(&tag) {
            self.order.remove(&entry.used);
            entry.used = self.clock;
            self.order.insert(self.clock, tag);
        }
    }

    fn forget_content(&mut self, tag: SnapshotTag) {
        if let Some(entry) = self.entries.get_mut(&tag)
            && let Some(content) = entry.content.take()
        {
            self.bytes -= content.len();
        }
    }

    fn remove(&mut self, tag: SnapshotTag) {
        self.forget_content(tag);
        if let Some(entry) = self.entries.remove(&tag) {
            self.order.remove(&entry.used);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small(max_bytes: usize, max_entry_bytes: usize, max_entries: usize) -> SnapshotStore {
        SnapshotStore::new(StoreLimits { max_bytes, max_entry_bytes, max_entries })
    }

    fn tags(store: &SnapshotStore) -> Vec<SnapshotTag> {
        store.tags().collect()
    }

    #[test]
    fn the_least_recently_used_goes_first() {
        let mut store = small(30, 10, 100);
        let a = store.insert(b"aaaaaaaaaa").tag;
        let b = store.insert(b"bbbbbbbbbb").tag;
        let c = store.insert(b"cccccccccc").tag;
        assert_eq!(tags(&store), [a, b, c]);
        // Using `a` makes `b` the oldest.
        assert!(store.get(a).is_ok());
        assert_eq!(store.insert(b"bbbbbbbbbb").stored, Stored::Present);
        assert_eq!(tags(&store), [c, a, b]);
        let d = store.insert(b"dddddddddd").tag;
        assert_eq!(tags(&store), [a, b, d]);
        assert_eq!(store.get(c), Err(Miss::Unknown(c)));
        assert_eq!(store.bytes(), 30);
    }

    #[test]
    fn the_byte_bound_holds_and_a_large_snapshot_is_not_kept() {
        let mut store = small(100, 60, 100);
        for i in 0..50u8 {
            store.insert(&vec![i; usize::from(i % 7) * 9]);
            assert!(store.bytes() <= 100, "{} bytes after {i}", store.bytes());
            assert_eq!(
                store.bytes(),
                store.tags().filter_map(|t| store.entries[&t].content.as_ref()).map(|c| c.len()).sum()
            );
        }
        let big = store.insert(&[b'x'; 61]);
        assert_eq!(big.stored, Stored::TooLarge);
        assert!(!store.contains(big.tag));
        // One snapshot at the per-entry cap pushes everything else out.
        let full = store.insert(&[b'y'; 60]);
        assert_eq!(full.stored, Stored::Added);
        assert!(store.bytes() <= 100);
        assert!(store.contains(full.tag));
    }

    #[test]
    fn the_entry_count_is_bounded_for_empty_files_too() {
        let mut store = small(1000, 1000, 3);
        assert_eq!(store.insert(b"").stored, Stored::Added);
        for text in ["1", "2", "3", "4"] {
            store.insert(text.as_bytes());
        }
        assert_eq!(store.len(), 3);
        assert!(!store.contains(SnapshotTag::of(b"")));
    }

    #[test]
    fn a_tampered_entry_is_dropped_and_reported_never_used() {
        let mut store = SnapshotStore::default();
        let tag = SnapshotTag::of(b"alpha\n");
        assert_eq!(store.restore(tag, b"planted\n"), Stored::Added);
        assert_eq!(store.get(tag), Err(Miss::Tampered(tag)));
        assert_eq!(store.get(tag), Err(Miss::Unknown(tag)));
        assert_eq!((store.len(), store.bytes()), (0, 0));
        // A faithful restore is used.
        store.restore(tag, b"alpha\n");
        assert_eq!(store.get(tag).as_deref(), Ok(&b"alpha\n"[..]));
    }

    /// Two texts whose tags are equal (found by a birthday search over `line <n>\n`).
    const TWINS: [&[u8]; 2] = [b"line 486860\n", b"line 932457\n"];

    #[test]
    fn two_contents_under_one_tag_resolve_nothing() {
        assert_eq!(SnapshotTag::of(TWINS[0]), SnapshotTag::of(TWINS[1]));
        let mut store = SnapshotStore::default();
        let tag = store.insert(TWINS[0]).tag;
        let other = store.insert(b"other\n").tag;
        assert_eq!(store.insert(TWINS[1]), Inserted { tag, stored: Stored::Collided });
        assert_eq!(store.get(tag), Err(Miss::Collided(tag)));
        assert_eq!(
            store.get(tag).map_err(|m| m.to_string()),
            Err(format!("snapshot {tag} names two different contents"))
        );
        // Neither content brings the tag back while it is remembered.
        assert_eq!(store.insert(TWINS[0]).stored, Stored::Collided);
        assert_eq!(store.bytes(), b"other\n".len());
        assert!(store.get(other).is_ok());
    }

    #[test]
    fn a_forged_entry_never_displaces_the_genuine_one() {
        let mut store = SnapshotStore::default();
        let tag = store.insert(b"real\n").tag;
        assert_eq!(store.restore(tag, b"planted\n"), Stored::Refused);
        assert_eq!(store.get(tag).as_deref(), Ok(&b"real\n"[..]));
        // A planted entry that came first gives way to the genuine bytes.
        let mut store = SnapshotStore::default();
        assert_eq!(store.restore(tag, b"planted\n"), Stored::Added);
        assert_eq!(store.insert(b"real\n"), Inserted { tag, stored: Stored::Added });
        assert_eq!(store.get(tag).as_deref(), Ok(&b"real\n"[..]));
        assert_eq!(store.bytes(), b"real\n".len());
    }

    #[test]
    fn limits_are_made_consistent() {
        let store = small(10, 100, 0);
        assert_eq!(store.limits(), StoreLimits { max_bytes: 10, max_entry_bytes: 10, max_entries: 1 });
        assert_eq!(SnapshotStore::default().limits(), StoreLimits::DEFAULT);
    }
}
