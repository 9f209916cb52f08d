//! A file's served rows as one string (session file version 3), and the object per row of
//! version 2, which is still read.
//!
//! The string is a list of segments separated by one space, in line order:
//!
//! ```text
//! <line>:<hhh>…          rows <line>, <line>+1, …, each shown only under its own line
//! <line>:<hhh>@<n>,<n>…  one row, shown under the names listed (oldest first; may be none)
//! ```
//!
//! `<hhh>` is a row's hash as three lowercase hex digits, as the model saw it. The common
//! case — a read of 10,000 lines — is one segment of 30,000 digits, which loads without an
//! allocation per row.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::de::{self, MapAccess};
use serde::{Deserialize, Serialize, Serializer};

use super::{MAX_NAMES, Names, ServedRow, ServedRows};

impl Serialize for ServedRows {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&to_text(self))
    }
}

/// The rows of a version-2 object (`{"rows": {"<line>": {"hash", "names"}}}`).
pub(super) fn legacy<'de, A: MapAccess<'de>>(map: A) -> Result<ServedRows, A::Error> {
    let legacy = LegacyRows::deserialize(de::value::MapAccessDeserializer::new(map))?;
    let mut rows = Vec::with_capacity(legacy.rows.len());
    for (line, row) in legacy.rows {
        if row.hash > MAX_HASH {
            return Err(de::Error::custom(format!("row {line} has hash {} (over {MAX_HASH})", row.hash)));
        }
        rows.push((line, ServedRow { hash: row.hash, names: row.names.iter().collect() }));
    }
    Ok(ServedRows::from_rows(rows))
}

/// Hashes are twelve bits.
const MAX_HASH: u16 = 0xfff;

/// Version 2: `{"rows": {"<line>": {"hash": <decimal>, "names": [<line>, …]}}}`.
#[derive(Deserialize)]
struct LegacyRows {
    rows: BTreeMap<u32, LegacyRow>,
}

#[derive(Deserialize)]
struct LegacyRow {
    hash: u16,
    names: Vec<u32>,
}

/// The string for `rows` (format in the module's documentation).
pub(super) fn to_text(rows: &ServedRows) -> String {
    let mut out = String::with_capacity(rows.len() * 3 + 16);
    // The line that would continue the current run of rows named only by their line.
    let mut continues = None;
    for (line, row) in rows.iter() {
        debug_assert!(row.hash <= MAX_HASH, "hashes are twelve bits");
        let plain = row.names.as_slice() == [line];
        if !(plain && continues == Some(line)) {
            if !out.is_empty() {
                out.push(' ');
            }
            // Writing to a String cannot fail.
            let _ = write!(out, "{line}:");
        }
        push_hex3(&mut out, row.hash & MAX_HASH);
        if plain {
            continues = line.checked_add(1);
        } else {
            out.push('@');
            for (i, name) in row.names.as_slice().iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                let _ = write!(out, "{name}");
            }
            continues = None;
        }
    }
    out
}

fn push_hex3(out: &mut String, hash: u16) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for shift in [8, 4, 0] {
        out.push(char::from(DIGITS[usize::from((hash >> shift) & 0xf)]));
    }
}

/// The rows a string holds, or what is wrong with it.
pub(super) fn from_text(text: &str) -> Result<ServedRows, String> {
    // Three digits a row at most; bounded so that a hostile file asks for memory only as
    // its rows are read (a 256 MiB string would otherwise reserve ~2.4 GB up front).
    let mut rows = Vec::with_capacity((text.len() / 3).min(1 << 16));
    parse(text, |line, row| rows.push((line, row)))?;
    // Like inserting in order: of two entries for one line, the later one stays.
    Ok(ServedRows::from_rows(rows))
}

/// Whether `text` reads as rows (what [`from_text`] would say of it), without building
/// them: a session file's rows are checked when it is loaded and decoded when used.
pub(super) fn check(text: &str) -> Result<(), String> {
    parse(text, |_, _| {})
}

/// Reads `text`, giving each row to `each` in the order written.
fn parse(text: &str, mut each: impl FnMut(u32, ServedRow)) -> Result<(), String> {
    if text.is_empty() {
        return Ok(());
    }
    for segment in text.split(' ') {
        let bad = |why: &str| format!("served rows: segment `{}`: {why}", shorten(segment));
        let (line, rest) = segment.split_once(':').ok_or_else(|| bad("no `:`"))?;
        let line = decimal(line).filter(|l| *l > 0).ok_or_else(|| bad("not a line number"))?;
        let (hashes, names) = match rest.split_once('@') {
            Some((hashes, names)) => (hashes, Some(names)),
            None => (rest, None),
        };
        let hashes = hashes.as_bytes();
        if hashes.is_empty() || hashes.len() % 3 != 0 {
            return Err(bad("hashes are three hex digits each"));
        }
        let count = hashes.len() / 3;
        if names.is_some() && count != 1 {
            return Err(bad("a row with names has one hash"));
        }
        let names = match names {
            None => None,
            Some("") => Some(Names::default()),
            Some(list) => {
                let mut names = Names::default();
                for (i, name) in list.split(',').enumerate() {
                    let name = decimal(name).filter(|n| *n > 0 && i < MAX_NAMES).ok_or_else(|| bad("bad names"))?;
                    names.push(name);
                }
                Some(names)
            }
        };
        // The last row's line, checked once for the whole run: every `line + i` below fits.
        u32::try_from(count - 1).ok().and_then(|last| line.checked_add(last)).ok_or_else(|| bad("lines past 2^32"))?;
        for (hash, i) in hashes.chunks_exact(3).zip(0u32..) {
            let at = line + i;
            let hash = hex3(hash).ok_or_else(|| bad("hashes are three lowercase hex digits each"))?;
            each(at, ServedRow { hash, names: names.unwrap_or_else(|| Names::only(at)) });
        }
    }
    Ok(())
}

/// A decimal of ASCII digits only (no sign, no spaces).
fn decimal(text: &str) -> Option<u32> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

fn hex3(digits: &[u8]) -> Option<u16> {
    digits.iter().try_fold(0u16, |hash, digit| {
        let value = match digit {
            b'0'..=b'9' => digit - b'0',
            b'a'..=b'f' => digit - b'a' + 10,
            _ => return None,
        };
        Some(hash << 4 | u16::from(value))
    })
}

/// A segment as an error message shows it: at most 40 characters.
fn shorten(segment: &str) -> String {
    match segment.char_indices().nth(40) {
        Some((at, _)) => format!("{}…", &segment[..at]),
        None => segment.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(hash: u16, names: &[u32]) -> ServedRow {
        ServedRow { hash, names: names.iter().collect() }
    }

    #[test]
    fn runs_of_plain_rows_are_one_segment_and_other_rows_list_their_names() {
        let rows = ServedRows::from_rows([
            (1, row(0x3c8, &[1])),
            (2, row(0xbdc, &[2])),
            (3, row(0x589, &[2, 3])),
            (4, row(0x00a, &[4])),
            (6, row(0xfff, &[6])),
            (7, row(0x001, &[])),
        ]);
        let text = to_text(&rows);
        assert_eq!(text, "1:3c8bdc 3:589@2,3 4:00a 6:fff 7:001@");
        assert_eq!(from_text(&text), Ok(rows));
        assert_eq!(from_text(""), Ok(ServedRows::default()));
        assert_eq!(to_text(&ServedRows::default()), "");
    }

    #[test]
    fn a_big_view_round_trips() {
        let rows = ServedRows::from_rows((1..=10_000u32).map(|l| (l, row((l * 7 % 4096) as u16, &[l]))));
        let text = to_text(&rows);
        assert_eq!(text.len(), "1:".len() + 30_000);
        assert_eq!(from_text(&text), Ok(rows));
    }

    #[test]
    fn damaged_text_is_refused_with_the_segment() {
        for (text, why) in [
            ("1:3c", "three hex digits"),
            ("0:3c8", "not a line number"),
            ("+1:3c8", "not a line number"),
            ("1 :3c8", "no `:`"),
            ("1a:3c8", "not a line number"),
            ("1:3C8", "lowercase"),
            ("1:3c8  2:abc", "no `:`"),
            ("1:3c8abc@1", "one hash"),
            ("1:3c8@1,2,3,4,5", "bad names"),
            ("1:3c8@1,,2", "bad names"),
            ("4294967295:3c83c8", "past 2^32"),
            ("1", "no `:`"),
        ] {
            let err = from_text(text).expect_err(text);
            assert!(err.contains(why), "{text}: {err}");
        }
    }

    #[test]
    fn version_2_objects_are_read_and_hashes_over_twelve_bits_refused() {
        let legacy = r#"{"rows":{"9":{"hash":1,"names":[9]},"2":{"hash":2,"names":[1,2]}}}"#;
        let rows: ServedRows = serde_json::from_str(legacy).expect("v2");
        assert_eq!(rows.get(2), Some(row(2, &[1, 2])));
        assert_eq!(serde_json::to_string(&rows).expect("v3"), r#""2:002@1,2 9:001""#);
        let over = r#"{"rows":{"1":{"hash":4096,"names":[1]}}}"#;
        assert!(serde_json::from_str::<ServedRows>(over).is_err());
    }
}
