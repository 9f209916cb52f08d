//! The bytes a change log keeps, by their SHA-256: in memory, or one file per blob in a
//! directory (`<64 hex digits>.blob`, written atomically). A chain of edits of one file
//! shares each version: one edit's bytes after are the next one's bytes before.
//!
//! A directory is a [`PrivateDir`]: opened without following a symlink and checked as the
//! user's own (docs/protocol.md §8, "Shared directories"), its blobs read, written and
//! removed relative to its handle.

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::Arc;

use hashline_fs::private::PrivateDir;
use serde::{Deserialize, Serialize};

/// Names a file's bytes: their SHA-256 in hex and their length.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Blob {
    /// SHA-256 of the bytes, 64 lowercase hex digits.
    pub sha256: String,
    /// Their length.
    pub len: u64,
}

impl Blob {
    /// The name of `bytes`.
    pub fn of(bytes: &[u8]) -> Self {
        use sha2::Digest;
        let digest = sha2::Sha256::digest(bytes);
        let mut sha256 = String::with_capacity(64);
        for byte in digest.iter() {
            sha256.push(char::from_digit(u32::from(byte >> 4), 16).unwrap_or('0'));
            sha256.push(char::from_digit(u32::from(byte & 15), 16).unwrap_or('0'));
        }
        Blob { sha256, len: bytes.len() as u64 }
    }

    /// Whether `bytes` are the bytes this blob names.
    pub fn names(&self, bytes: &[u8]) -> bool {
        bytes.len() as u64 == self.len && Blob::of(bytes).sha256 == self.sha256
    }
}

/// Where a change log's bytes are.
#[derive(Debug)]
pub enum Blobs {
    /// In this process's memory.
    Memory(HashMap<String, Arc<[u8]>>),
    /// One file per blob in a directory.
    Directory {
        /// Where it is (made when the first blob is stored).
        path: PathBuf,
        /// Its handle, once opened (checked).
        dir: Option<PrivateDir>,
    },
}

impl Blobs {
    /// A store in memory.
    pub fn memory() -> Self {
        Blobs::Memory(HashMap::new())
    }

    /// A store in the directory `path`, already opened and checked (`dir`), or made (mode
    /// 0700) and opened when the first blob is stored.
    pub fn directory(path: impl Into<PathBuf>, dir: Option<PrivateDir>) -> Self {
        Blobs::Directory { path: path.into(), dir }
    }

    /// Keeps `bytes` and returns their name. A directory that cannot be written keeps
    /// nothing (best effort: loading the blob later fails, and says so).
    pub fn store(&mut self, bytes: &[u8]) -> Blob {
        let blob = Blob::of(bytes);
        match self {
            Blobs::Memory(map) => {
                map.entry(blob.sha256.clone()).or_insert_with(|| Arc::from(bytes));
            }
            Blobs::Directory { path, dir } => {
                if dir.is_none() {
                    // Refused (planted meanwhile) or not made: nothing is kept.
                    *dir = PrivateDir::open(path, true).ok().flatten();
                }
                let name = format!("{}.blob", blob.sha256);
                if let Some(dir) = dir
                    && !dir.contains(&name)
                {
                    let _ = dir.write(&name, bytes);
                }
            }
        }
        blob
    }

    /// The bytes `blob` names; an error when they are gone or are other bytes.
    pub fn load(&self, blob: &Blob) -> std::io::Result<Vec<u8>> {
        let bytes = match self {
            Blobs::Memory(map) => map.get(&blob.sha256).map(|b| b.to_vec()).ok_or_else(gone)?,
            Blobs::Directory { dir, .. } => {
                let dir = dir.as_ref().ok_or_else(gone)?;
                dir.read(&format!("{}.blob", blob.sha256), blob.len.min(hashline_fs::MAX_FILE_BYTES))?
            }
        };
        if !blob.names(&bytes) {
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, "the kept bytes were altered"));
        }
        Ok(bytes)
    }

    /// Drops every blob whose digest `named` does not hold (and, in a directory, what a
    /// process that died while storing a blob left: `.<digest>.blob.<8 hex>.tmp`).
    pub fn retain(&mut self, named: &BTreeSet<&str>) {
        match self {
            Blobs::Memory(map) => map.retain(|digest, _| named.contains(digest.as_str())),
            Blobs::Directory { dir, .. } => {
                let Some(dir) = dir else { return };
                let Ok(names) = dir.names() else { return };
                for name in names {
                    let Some(text) = name.to_str() else { continue };
                    let stale = text.starts_with('.') && text.ends_with(".tmp") && text.contains(".blob.");
                    let dropped = text.strip_suffix(".blob").is_some_and(|digest| !named.contains(digest));
                    if stale || dropped {
                        let _ = dir.remove(&name);
                    }
                }
            }
        }
    }

    /// How many blobs are kept in memory (0 for a directory).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        match self {
            Blobs::Memory(map) => map.len(),
            Blobs::Directory { .. } => 0,
        }
    }
}

fn gone() -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::NotFound, "the kept bytes are gone")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_store_keeps_bytes_by_digest_and_refuses_altered_ones() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut blobs = Blobs::directory(dir.path().join("changes"), None);
        let one = blobs.store(b"one\r\n\xef\xbb\xbf");
        let two = blobs.store(b"two");
        assert_eq!(blobs.load(&one).expect("kept"), b"one\r\n\xef\xbb\xbf");
        std::fs::write(dir.path().join("changes").join(format!("{}.blob", two.sha256)), "TWO").expect("alter");
        assert_eq!(blobs.load(&two).expect_err("altered").kind(), std::io::ErrorKind::InvalidData);
        let stale = dir.path().join("changes").join(format!(".{}.blob.0123abcd.tmp", one.sha256));
        std::fs::write(&stale, "half").expect("a store cut short");
        blobs.retain(&BTreeSet::from([two.sha256.as_str()]));
        assert_eq!(blobs.load(&one).expect_err("dropped").kind(), std::io::ErrorKind::NotFound);
        assert!(!stale.exists(), "what a store cut short left goes too");
    }
}
