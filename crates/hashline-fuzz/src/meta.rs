//! `read_meta_from_meta`: total on any JSON, and what it accepts obeys the rules it
//! enforces (narrowing its own output gives it back).

use arbitrary::Unstructured;
use hashline::view::read_meta_from_meta;
use serde_json::{Map, Value, json};

/// Narrows the input as JSON (or, when it is not JSON, a value built from its bytes).
pub fn read_meta(data: &[u8]) {
    let value = serde_json::from_slice::<Value>(data).unwrap_or_else(|_| built(&mut Unstructured::new(data)));
    let Some(meta) = read_meta_from_meta(&value) else { return };
    for line in &meta.lines {
        if let Some(hash) = &line.hash {
            assert!(
                hash.len() == 3 && hash.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)),
                "{hash}"
            );
        }
    }
    let again = read_meta_from_meta(&serde_json::to_value(&meta).expect("meta serializes"));
    assert_eq!(again.as_ref(), Some(&meta), "narrowing is idempotent");
}

/// A meta-shaped value whose fields take odd values.
fn built(u: &mut Unstructured<'_>) -> Value {
    let mut object = Map::new();
    for key in ["path", "offset", "lines", "totalLines", "lang"] {
        if u.arbitrary::<bool>().unwrap_or(false) {
            continue;
        }
        let value = if key == "lines" {
            let count = u.int_in_range(0..=4).unwrap_or(0);
            Value::Array((0..count).map(|_| line(u)).collect())
        } else {
            scalar(u)
        };
        object.insert(key.to_owned(), value);
    }
    Value::Object(object)
}

fn line(u: &mut Unstructured<'_>) -> Value {
    let mut object = Map::new();
    for key in ["number", "text", "hash"] {
        if u.int_in_range(0..=3).unwrap_or(0) != 0 {
            object.insert(key.to_owned(), scalar(u));
        }
    }
    Value::Object(object)
}

fn scalar(u: &mut Unstructured<'_>) -> Value {
    match u.int_in_range(0..=9).unwrap_or(0) {
        0 => Value::Null,
        1 => json!(u.arbitrary::<bool>().unwrap_or(false)),
        2 => json!(u.arbitrary::<i64>().unwrap_or(0)),
        3 => json!(u.arbitrary::<u32>().unwrap_or(1)),
        4 => json!(u.arbitrary::<f64>().unwrap_or(0.0)),
        5 => json!(f64::from(u.int_in_range(0..=50).unwrap_or(1))),
        6 => json!(["a", 1]),
        7 => json!({"k": 1}),
        8 => json!(["3c8", "ABC", "d05", "xyz", "", "/abs/p.rs", "rel.py", "1e3"][u.int_in_range(0..=7).unwrap_or(0)]),
        _ => json!(u.arbitrary::<String>().unwrap_or_default()),
    }
}
