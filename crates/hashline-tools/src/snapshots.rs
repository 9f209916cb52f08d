//! The store of what a principal was shown (issue 49, docs/protocol.md §1.5): the bytes
//! behind every snapshot tag a result carried, so that an `edit` citing a tag resolves its
//! anchors exactly ([`hashline_core::snapshot`]).
//!
//! A session holds one [`Snapshots`]: by default its own [`MemorySnapshots`]; a front end
//! hands several sessions of one principal the same store (the MCP server one per stdio
//! connection and one per HTTP token; the CLI a [`DiskSnapshots`] in its state directory).

use std::sync::{Arc, Mutex};

use hashline_core::snapshot::{Inserted, Link, Miss, SnapshotStore, SnapshotTag, StoreLimits};

use crate::snapshot_store::DiskSnapshots;

/// A store of shown snapshots, shared by the calls of one principal.
pub trait Snapshots: Send + Sync + std::fmt::Debug {
    /// Records that `bytes` were shown; returns their tag and whether they were kept.
    fn insert(&self, bytes: &[u8]) -> Inserted;
    /// The bytes of the snapshot `tag`, checked against it, or why there are none.
    fn get(&self, tag: SnapshotTag) -> Result<Arc<[u8]>, Miss>;
    /// Records that `child` was shown as a partial view made from `link.parent` (see
    /// [`SnapshotStore::link`]).
    fn link(&self, child: SnapshotTag, link: Link);
    /// Records that `tag` was shown as a view of its own (see [`SnapshotStore::unlink`]).
    fn unlink(&self, tag: SnapshotTag);
    /// The link of `child`, if recorded. Read back from an untrusted place, a link is a
    /// hint: an edit uses it only to find more views an anchor may come from, each checked
    /// against its tag, and refuses an anchor two of them give different lines.
    fn link_of(&self, child: SnapshotTag) -> Option<Link>;
}

/// An in-memory store ([`SnapshotStore`] behind a lock).
///
/// ```
/// use hashline_tools::snapshots::{MemorySnapshots, Snapshots};
///
/// let store = MemorySnapshots::default();
/// let shown = store.insert(b"fn main() {}\n");
/// assert_eq!(store.get(shown.tag).as_deref(), Ok(&b"fn main() {}\n"[..]));
/// ```
#[derive(Debug, Default)]
pub struct MemorySnapshots(Mutex<SnapshotStore>);

impl MemorySnapshots {
    /// An empty store within `limits`.
    pub fn new(limits: StoreLimits) -> Self {
        MemorySnapshots(Mutex::new(SnapshotStore::new(limits)))
    }

    fn store(&self) -> std::sync::MutexGuard<'_, SnapshotStore> {
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Snapshots for MemorySnapshots {
    fn insert(&self, bytes: &[u8]) -> Inserted {
        self.store().insert(bytes)
    }

    fn get(&self, tag: SnapshotTag) -> Result<Arc<[u8]>, Miss> {
        self.store().get(tag)
    }

    fn link(&self, child: SnapshotTag, link: Link) {
        self.store().link(child, link);
    }

    fn unlink(&self, tag: SnapshotTag) {
        self.store().unlink(tag);
    }

    fn link_of(&self, child: SnapshotTag) -> Option<Link> {
        self.store().link_of(child)
    }
}

impl Snapshots for Mutex<DiskSnapshots> {
    fn insert(&self, bytes: &[u8]) -> Inserted {
        self.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).insert(bytes)
    }

    fn get(&self, tag: SnapshotTag) -> Result<Arc<[u8]>, Miss> {
        self.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).get(tag)
    }

    fn link(&self, child: SnapshotTag, link: Link) {
        self.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).link(child, link);
    }

    fn unlink(&self, tag: SnapshotTag) {
        self.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).unlink(tag);
    }

    fn link_of(&self, child: SnapshotTag) -> Option<Link> {
        self.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).link_of(child)
    }
}
