//! Snapshot tags and exact resolution (issue 49; the tools do not emit or accept tags yet).
//!
//! A [`SnapshotTag`] names the exact bytes a view of a file was taken from. An anchor cited
//! with its tag is resolved through a line diff from that snapshot to the file now
//! ([`resolve_through`], [`LineMap::resolve`]): an unchanged line goes to where it is now,
//! however far it moved, with no window and no ambiguity; a changed or deleted line is
//! refused ([`StaleAnchor`]). The bytes behind the tags live in a bounded, content-addressed
//! [`SnapshotStore`] that checks every entry against its tag before using it.
//!
//! ```
//! use hashline_core::snapshot::{SnapshotStore, resolve_through};
//! use hashline_core::{Anchor, Document};
//!
//! let mut store = SnapshotStore::default();
//! let read = b"fn main() {\n    run();\n}\n";
//! let tag = store.insert(read).tag; // shown with the rows: `1:…|fn main() {` …
//!
//! // The file changes; the model cites `2:<hash>` with the tag.
//! let now = Document::parse(b"use app::run;\n\nfn main() {\n    run();\n}\n".to_vec());
//! let snapshot = Document::parse(store.get(tag).unwrap().to_vec());
//! let anchor = Anchor::new(hashline_core::LineNo::new(2).unwrap(), hashline_core::LineHash::of(b"    run();"));
//! let line = resolve_through(&snapshot, &now).resolve(&snapshot, anchor).unwrap();
//! assert_eq!(line.get(), 4);
//! ```

mod link;
mod resolve;
mod store;
mod tag;

pub use link::{Link, MAX_RANGES, ShownLines, ShownLinesError};
pub use resolve::{Fate, LineMap, StaleAnchor, resolve_anchor, resolve_through};
pub use store::{Inserted, Miss, SnapshotStore, StoreLimits, Stored};
pub use tag::{SnapshotTag, SnapshotTagError, TAG_BITS, TAG_DIGITS, TAG_PREFIX};
