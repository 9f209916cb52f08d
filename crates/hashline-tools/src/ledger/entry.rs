//! One file's entry in the ledger: rows as recorded, or as a session file stored them.
//!
//! A CLI call loads its whole session before it does anything, and most calls use the rows
//! of one file or none. So rows loaded from a session file are checked (a damaged file is
//! still refused whole, at once) but kept as the text they were stored as: decoded the
//! first time they are used, and written back unchanged when they were not.

use std::cell::OnceCell;

use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::ServedRows;
use super::rows_text;

/// A file's rows in the ledger.
#[derive(Clone, Debug)]
pub(super) enum Entry {
    /// Rows recorded (or decoded and then changed) in this process.
    Rows(ServedRows),
    /// Rows as a session file stored them (checked), decoded on first use.
    Stored { text: Box<str>, rows: OnceCell<ServedRows> },
}

impl Default for Entry {
    fn default() -> Self {
        Entry::Rows(ServedRows::default())
    }
}

impl Entry {
    /// The rows (decoding stored ones the first time).
    pub(super) fn rows(&self) -> &ServedRows {
        match self {
            Entry::Rows(rows) => rows,
            Entry::Stored { text, rows } => rows.get_or_init(|| decode(text)),
        }
    }

    /// The rows, to change: stored ones become recorded ones.
    pub(super) fn rows_mut(&mut self) -> &mut ServedRows {
        if let Entry::Stored { text, rows } = self {
            let decoded = rows.take().unwrap_or_else(|| decode(text));
            *self = Entry::Rows(decoded);
        }
        match self {
            Entry::Rows(rows) => rows,
            Entry::Stored { .. } => unreachable!("a stored entry was just made a recorded one"),
        }
    }

    /// Whether the entry holds no row (without decoding).
    pub(super) fn is_empty(&self) -> bool {
        match self {
            Entry::Rows(rows) => rows.is_empty(),
            Entry::Stored { text, .. } => text.is_empty(),
        }
    }
}

/// Stored rows, which were checked when loaded. Should they not decode all the same, the
/// file counts as not shown: its edits are refused (`file-not-read`), never misplaced.
fn decode(text: &str) -> ServedRows {
    rows_text::from_text(text).unwrap_or_default()
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Entry::Stored { text: a, .. }, Entry::Stored { text: b, .. }) if a == b => true,
            _ => self.rows() == other.rows(),
        }
    }
}

impl Eq for Entry {}

impl Serialize for Entry {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Entry::Rows(rows) => rows.serialize(serializer),
            Entry::Stored { text, .. } => serializer.serialize_str(text),
        }
    }
}

impl<'de> Deserialize<'de> for Entry {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(EntryVisitor)
    }
}

/// Rows on their own (a file's rows outside a ledger): read as a ledger entry reads them.
impl<'de> Deserialize<'de> for ServedRows {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(std::mem::take(Entry::deserialize(deserializer)?.rows_mut()))
    }
}

struct EntryVisitor;

impl<'de> Visitor<'de> for EntryVisitor {
    type Value = Entry;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("served rows: a string of `<line>:<hashes>` segments, or a version-2 object")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Entry, E> {
        rows_text::check(text).map_err(E::custom)?;
        Ok(Entry::Stored { text: text.into(), rows: OnceCell::new() })
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Entry, A::Error> {
        rows_text::legacy(map).map(Entry::Rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_rows_are_checked_when_loaded_and_written_back_as_they_were() {
        // Not the text this build would write (`1:3c8bdc`): kept as it was stored.
        let stored = r#""1:3c8 2:bdc""#;
        let entry: Entry = serde_json::from_str(stored).expect("entry");
        assert!(matches!(entry, Entry::Stored { .. }));
        assert_eq!(serde_json::to_string(&entry).expect("json"), stored);
        assert_eq!(entry.rows().len(), 2);
        assert_eq!(serde_json::to_string(&entry).expect("json"), stored, "a use does not change it");
        let mut changed = entry.clone();
        changed.rows_mut();
        assert_eq!(serde_json::to_string(&changed).expect("json"), r#""1:3c8bdc""#);
        assert_eq!(changed, entry);
        let damaged = serde_json::from_str::<Entry>(r#""1:3c8 2:bd""#).expect_err("damaged");
        assert!(damaged.to_string().contains("three hex digits"), "{damaged}");
    }
}
