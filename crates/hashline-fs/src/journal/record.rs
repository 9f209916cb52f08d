//! A group commit's record: what it plans for each file, named relative to a root, and
//! how it is written to and read from the journal — authenticated with the user's key
//! ([`super::key`]), so that recovery acts on nothing hashline did not write.
//!
//! On disk a record is one line `hashline-journal 2 <64 hex digits>` and the JSON body.
//! The digits are HMAC-SHA-256 under the key of the journal's root path, the record's id
//! and the body: a record is valid in the journal, and under the name, it was written
//! for. The names of a file's temporary file, backup and copy are not in the record at
//! all: they follow from the id and the file's place in the group.

use std::ffi::OsStr;
use std::path::{Component, Path};

use hmac::{KeyInit, Mac};

use crate::sys;
use serde::{Deserialize, Serialize};

/// The first bytes of every record.
const MAGIC: &[u8] = b"hashline-journal 2 ";

/// The largest record recovery reads (a group of many thousands of files fits).
pub(crate) const MAX_RECORD_BYTES: u64 = 16 << 20;

type HmacSha256 = hmac::Hmac<sha2::Sha256>;

/// What a group commit plans for one file.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Entry {
    /// The root the file lies below when it is not the journal's own (absolute, bytes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root: Option<Vec<u8>>,
    /// The file's directory relative to its root (bytes; empty for the root itself).
    pub dir: Vec<u8>,
    /// The file's name (bytes; one component).
    pub name: Vec<u8>,
    /// Written in place (the file has several links; the old bytes are kept as a copy
    /// in the journal) rather than replaced by a rename (the old file kept as a backup
    /// link beside it).
    #[serde(default)]
    pub in_place: bool,
    /// Removed rather than replaced: a backup link is made beside it, then the name is
    /// removed (a rollback renames the backup back).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub remove: bool,
    /// Made by the group (no file had the name): the SHA-256 (hex) of its new bytes. A
    /// rollback removes the name only while it holds exactly those bytes, so that a file
    /// another program made under the name meanwhile stays.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created: Option<String>,
}

/// The SHA-256 of `bytes` in hex (a created file's mark in its entry).
pub(crate) fn digest_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(bytes);
    let mut hex = String::with_capacity(64);
    for byte in digest.iter() {
        hex.push_str(&format!("{byte:02x}"));
    }
    hex
}

/// A group commit's record.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Record {
    pub pid: u32,
    pub entries: Vec<Entry>,
}

/// The temporary file of the group's `i`th file, beside it.
pub(crate) fn temp_name(id: &str, i: usize) -> String {
    format!(".hl{id}{i}.tmp")
}

/// The backup link of the group's `i`th file, beside it.
pub(crate) fn backup_name(id: &str, i: usize) -> String {
    format!(".hl{id}{i}.bak")
}

/// The copy of the group's `i`th file's old bytes, in the journal.
pub(crate) fn copy_name(id: &str, i: usize) -> String {
    format!("{id}-{i}.old")
}

/// Whether `id` has the form of a group's id (eight lowercase hex digits).
pub(crate) fn is_id(id: &str) -> bool {
    id.len() == 8 && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

impl Entry {
    /// The directory relative to its root, if it is one: only plain components.
    pub fn dir(&self) -> Option<&Path> {
        let dir = Path::new(sys::name_from_bytes(&self.dir)?);
        let plain = dir.components().all(|c| matches!(c, Component::Normal(_)));
        let first = dir.components().next().map(|c| c.as_os_str());
        (plain && first != Some(OsStr::new(super::JOURNAL_DIR))).then_some(dir)
    }

    /// The file's name, if it is one plain component.
    pub fn name(&self) -> Option<&OsStr> {
        let name = sys::name_from_bytes(&self.name)?;
        let mut parts = Path::new(name).components();
        let plain = matches!(parts.next(), Some(Component::Normal(n)) if n == name) && parts.next().is_none();
        plain.then_some(name)
    }

    /// The other root, if named: an absolute path.
    pub fn root(&self) -> Option<Option<&Path>> {
        match &self.root {
            None => Some(None),
            Some(bytes) => {
                let path = Path::new(sys::name_from_bytes(bytes)?);
                path.is_absolute().then_some(Some(path))
            }
        }
    }
}

fn mac(key: &[u8], root: &Path, id: &str, body: &[u8]) -> HmacSha256 {
    let mut mac = <HmacSha256 as KeyInit>::new_from_slice(key).expect("HMAC takes a key of any length");
    for part in [&*sys::name_bytes(root.as_os_str()), id.as_bytes()] {
        mac.update(&(part.len() as u64).to_le_bytes());
        mac.update(part);
    }
    mac.update(body);
    mac
}

/// The bytes of `record` with id `id` for the journal of `root`.
pub(crate) fn encode(key: &[u8], root: &Path, id: &str, record: &Record) -> Vec<u8> {
    let body = serde_json::to_vec(record).expect("a record serializes");
    let tag = mac(key, root, id, &body).finalize().into_bytes();
    let mut out = Vec::with_capacity(MAGIC.len() + 65 + body.len());
    out.extend_from_slice(MAGIC);
    for byte in tag.iter() {
        out.extend_from_slice(format!("{byte:02x}").as_bytes());
    }
    out.push(b'\n');
    out.extend_from_slice(&body);
    out
}

/// Why a record is not acted on.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Rejected {
    /// Not hashline's form, or its tag does not verify under this user's key.
    NotAuthentic,
    /// Authentic, but names a file recovery may not touch (never written by hashline).
    BadEntry,
}

/// The record in `bytes`, if hashline wrote it, under `id`, for the journal of `root`.
pub(crate) fn decode(key: &[u8], root: &Path, id: &str, bytes: &[u8]) -> Result<Record, Rejected> {
    let rest = bytes.strip_prefix(MAGIC).ok_or(Rejected::NotAuthentic)?;
    let (hex, body) = rest.split_at_checked(64).ok_or(Rejected::NotAuthentic)?;
    let body = body.strip_prefix(b"\n").ok_or(Rejected::NotAuthentic)?;
    let tag: Option<Vec<u8>> =
        hex.chunks(2).map(|pair| std::str::from_utf8(pair).ok().and_then(|s| u8::from_str_radix(s, 16).ok())).collect();
    let tag = tag.ok_or(Rejected::NotAuthentic)?;
    mac(key, root, id, body).verify_slice(&tag).map_err(|_| Rejected::NotAuthentic)?;
    let record: Record = serde_json::from_slice(body).map_err(|_| Rejected::NotAuthentic)?;
    let valid = record.entries.iter().all(|e| e.dir().is_some() && e.name().is_some() && e.root().is_some());
    if !valid {
        return Err(Rejected::BadEntry);
    }
    Ok(record)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(dir: &[u8], name: &[u8]) -> Record {
        Record {
            pid: 7,
            entries: vec![Entry {
                root: None,
                dir: dir.to_vec(),
                name: name.to_vec(),
                in_place: false,
                remove: false,
                created: None,
            }],
        }
    }

    #[test]
    fn a_record_verifies_only_under_its_key_root_and_id() {
        let key = [7u8; 32];
        let root = Path::new("/r");
        let bytes = encode(&key, root, "0123abcd", &record(b"src", b"a.rs"));
        let back = decode(&key, root, "0123abcd", &bytes).expect("authentic");
        assert_eq!(back.entries[0].dir(), Some(Path::new("src")));
        assert_eq!(decode(&[8u8; 32], root, "0123abcd", &bytes).err(), Some(Rejected::NotAuthentic), "another key");
        assert_eq!(decode(&key, Path::new("/s"), "0123abcd", &bytes).err(), Some(Rejected::NotAuthentic), "root");
        assert_eq!(decode(&key, root, "0123abce", &bytes).err(), Some(Rejected::NotAuthentic), "another name");
        let mut flipped = bytes.clone();
        *flipped.last_mut().unwrap() ^= 1;
        assert_eq!(decode(&key, root, "0123abcd", &flipped).err(), Some(Rejected::NotAuthentic), "a changed body");
        let unsigned = serde_json::to_vec(&record(b"src", b"a.rs")).unwrap();
        assert_eq!(decode(&key, root, "0123abcd", &unsigned).err(), Some(Rejected::NotAuthentic), "9b00c33's form");
        assert_eq!(decode(&key, root, "0123abcd", b"").err(), Some(Rejected::NotAuthentic));
        assert_eq!(decode(&key, root, "0123abcd", &bytes[..40]).err(), Some(Rejected::NotAuthentic), "torn");
    }

    #[test]
    fn names_that_leave_their_directory_are_refused_even_when_signed() {
        let key = [7u8; 32];
        let root = Path::new("/r");
        for (dir, name) in [
            (&b"/etc"[..], &b"passwd"[..]),
            (b"../x", b"a"),
            (b"a/../..", b"a"),
            (b"", b"../a"),
            (b"", b"a/b"),
            (b"", b".."),
            (b"", b""),
            (b".hashline-journal", b"x"),
        ] {
            let bytes = encode(&key, root, "0123abcd", &record(dir, name));
            assert_eq!(decode(&key, root, "0123abcd", &bytes).err(), Some(Rejected::BadEntry), "{dir:?} {name:?}");
        }
        let mut other = record(b"", b"a");
        other.entries[0].root = Some(b"relative/root".to_vec());
        let bytes = encode(&key, root, "0123abcd", &other);
        assert_eq!(decode(&key, root, "0123abcd", &bytes).err(), Some(Rejected::BadEntry));
        assert!(is_id("0123abcd") && !is_id("0123ABCD") && !is_id("0123abc") && !is_id("../../x1"));
    }
}
