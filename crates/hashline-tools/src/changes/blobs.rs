//! The bytes a change log keeps, by their SHA-256: in memory, or one file per blob in a
//! directory (`<64 hex digits>.blob`, written atomically). A chain of edits of one file
//! shares each version: one edit's bytes after are the next one's bytes before.

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::Arc;

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
    /// One file per blob in this directory.
    Directory(PathBuf),
}

impl Blobs {
    /// A store in memory.
    pub fn memory() -> Self {
        Blobs::Memory(HashMap::new())
    }

    /// A store in `dir`, made (mode 0700) when the first blob is stored.
    pub fn directory(dir: impl Into<PathBuf>) -> Self {
        Blobs::Directory(dir.into())
    }

    /// Keeps `bytes` and returns their name. A directory that cannot be written keeps
    /// nothing (best effort: loading the blob later fails, and says so).
    pub fn store(&mut self, bytes: &[u8]) -> Blob {
        let blob = Blob::of(bytes);
        match self {
            Blobs::Memory(map) => {
                map.entry(blob.sha256.clone()).or_insert_with(|| Arc::from(bytes));
            }
            Blobs::Directory(dir) => {
                let path = dir.join(format!("{}.blob", blob.sha256));
                if hashline_fs::lookup::symlink_metadata(&path).is_err() {
                    let _ = hashline_fs::state::create_private_dir(dir)
                        .or_else(|err| if dir.is_dir() { Ok(()) } else { Err(err) })
                        .and_then(|()| hashline_fs::write_atomic_unsynced(&path, bytes));
                }
            }
        }
        blob
    }

    /// The bytes `blob` names; an error when they are gone or are other bytes.
    pub fn load(&self, blob: &Blob) -> std::io::Result<Vec<u8>> {
        let bytes = match self {
            Blobs::Memory(map) => map.get(&blob.sha256).map(|b| b.to_vec()).ok_or_else(gone)?,
            Blobs::Directory(dir) => {
                let path = dir.join(format!("{}.blob", blob.sha256));
                hashline_fs::open::read_regular(&path, blob.len.min(hashline_fs::MAX_FILE_BYTES))?
            }
        };
        if !blob.names(&bytes) {
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, "the kept bytes were altered"));
        }
        Ok(bytes)
    }

    /// Drops every blob whose digest `named` does not hold.
    pub fn retain(&mut self, named: &BTreeSet<&str>) {
        match self {
            Blobs::Memory(map) => map.retain(|digest, _| named.contains(digest.as_str())),
            Blobs::Directory(dir) => {
                let Ok(entries) = hashline_fs::lookup::read_dir(dir) else { return };
                for entry in entries.flatten() {
                    let name = entry.file_name();
                    let Some(digest) = name.to_str().and_then(|n| n.strip_suffix(".blob")) else { continue };
                    if !named.contains(digest) {
                        let _ = hashline_fs::lookup::remove_file(&entry.path());
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
            Blobs::Directory(_) => 0,
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
        let mut blobs = Blobs::directory(dir.path().join("changes"));
        let one = blobs.store(b"one\r\n\xef\xbb\xbf");
        let two = blobs.store(b"two");
        assert_eq!(blobs.load(&one).expect("kept"), b"one\r\n\xef\xbb\xbf");
        std::fs::write(dir.path().join("changes").join(format!("{}.blob", two.sha256)), "TWO").expect("alter");
        assert_eq!(blobs.load(&two).expect_err("altered").kind(), std::io::ErrorKind::InvalidData);
        blobs.retain(&BTreeSet::from([two.sha256.as_str()]));
        assert_eq!(blobs.load(&one).expect_err("dropped").kind(), std::io::ErrorKind::NotFound);
    }
}
