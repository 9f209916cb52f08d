//! The read tool's `presentationMeta` and its defensive narrowing.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::json::{optional, u32_of};
use crate::{ContentBlock, ReadFileLine, ReadResultView, lang_from_path};

/// The read tool's `presentationMeta`: `{path, offset, lines:[{number,text,hash}], totalLines,
/// lang?}`, persisted with the result so the read card replays without file I/O.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ReadMeta {
    /// The path of the file (absolute).
    pub path: String,
    /// The 1-based first line the window requested.
    pub offset: u32,
    /// The window's lines, in file order.
    pub lines: Vec<ReadFileLine>,
    /// The exact line count of the file.
    pub total_lines: u32,
    /// A syntax hint derived from the path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lang: Option<String>,
}

impl ReadMeta {
    /// A meta for a window of `path`, with `lang` derived by [`lang_from_path`].
    pub fn new(path: impl Into<String>, offset: u32, lines: Vec<ReadFileLine>, total_lines: u32) -> Self {
        let path = path.into();
        let lang = lang_from_path(&path).map(str::to_owned);
        Self { path, offset, lines, total_lines, lang }
    }

    /// The read card for this window, carrying `content` as the model-facing fallback.
    pub fn into_view(self, content: Option<Vec<ContentBlock>>) -> ReadResultView {
        ReadResultView {
            title: None,
            path: self.path,
            offset: self.offset,
            lines: self.lines,
            total_lines: self.total_lines,
            lang: self.lang,
            content,
        }
    }
}

/// Narrows an untrusted `presentationMeta` (for example from a replayed log) into a
/// [`ReadMeta`], or `None` when it is malformed. Never panics.
///
/// The checks, in order: `meta` is an object; `path` is a string and `offset`, `totalLines` are
/// numbers; `offset` is an integer `>= 1`; `totalLines` is an integer `>= 0`; `lines` is an
/// array of objects with an integer `number >= 1`, a string `text` and, when present, a `hash`
/// of 3 lowercase hex digits; `lang`, when present, is a string; line numbers strictly increase,
/// starting at `offset` or later, and none exceeds `totalLines`. Integral floats such as `2.0`
/// count as integers; numbers that do not fit a `u32` are rejected. Unknown keys are dropped.
/// An empty window is accepted, also at a positive offset (`{offset:5, lines:[], totalLines:9}`).
///
/// ```
/// use hashline_view::read_meta_from_meta;
/// use serde_json::json;
///
/// let meta = json!({"path": "/w/a.rs", "offset": 1, "totalLines": 1,
///                   "lines": [{"number": 1, "text": "fn main() {}", "hash": "3c8"}]});
/// assert_eq!(read_meta_from_meta(&meta).map(|m| m.total_lines), Some(1));
/// assert_eq!(read_meta_from_meta(&json!({"path": "/w/a.rs"})), None);
/// ```
pub fn read_meta_from_meta(meta: &Value) -> Option<ReadMeta> {
    let object = meta.as_object()?;
    let path = object.get("path")?.as_str()?;
    let offset = object.get("offset").filter(|v| v.is_number())?;
    let total_lines = object.get("totalLines").filter(|v| v.is_number())?;
    let offset = u32_of(offset).filter(|&offset| offset >= 1)?;
    let total_lines = u32_of(total_lines)?;
    let lines = object
        .get("lines")?
        .as_array()?
        .iter()
        .map(|line| line.as_object().and_then(file_line))
        .collect::<Option<Vec<_>>>()?;
    let lang = optional(object, "lang", Value::as_str).ok()?;

    let mut previous = offset - 1;
    for line in &lines {
        if line.number <= previous || line.number > total_lines {
            return None;
        }
        previous = line.number;
    }

    Some(ReadMeta { path: path.to_owned(), offset, lines, total_lines, lang: lang.map(str::to_owned) })
}

/// One line entry: `number` an integer `>= 1`, `text` a string, `hash` absent or 3 lowercase hex.
fn file_line(line: &Map<String, Value>) -> Option<ReadFileLine> {
    let number = line.get("number").and_then(u32_of).filter(|&n| n >= 1)?;
    let text = line.get("text")?.as_str()?;
    let hash = optional(line, "hash", |v| v.as_str().filter(|h| is_hash(h))).ok()?;
    Some(ReadFileLine { number, text: text.to_owned(), hash: hash.map(str::to_owned) })
}

/// Exactly 3 lowercase hex digits, the form of an anchor hash.
fn is_hash(hash: &str) -> bool {
    hash.len() == 3 && hash.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn line(number: u32, text: &str, hash: Option<&str>) -> ReadFileLine {
        ReadFileLine { number, text: text.to_owned(), hash: hash.map(str::to_owned) }
    }

    /// A well-formed two-line window of a four-line file, starting at line 2.
    fn valid() -> Value {
        json!({
            "path": "/w/src/lib.rs",
            "offset": 2,
            "lines": [
                {"number": 2, "text": "alpha", "hash": "3c8"},
                {"number": 3, "text": "beta", "hash": "589"}
            ],
            "totalLines": 4,
            "lang": "rs"
        })
    }

    /// `valid()` with `key` set to `value` (or removed when `value` is `None`).
    fn with(key: &str, value: Option<Value>) -> Value {
        let mut meta = valid();
        let object = meta.as_object_mut().expect("valid() is an object");
        match value {
            Some(value) => object.insert(key.to_owned(), value),
            None => object.remove(key),
        };
        meta
    }

    /// `valid()` with its lines replaced.
    fn with_lines(lines: Value) -> Value {
        with("lines", Some(lines))
    }

    fn rejects(meta: &Value) {
        assert_eq!(read_meta_from_meta(meta), None, "accepted {meta}");
    }

    #[test]
    fn narrows_a_well_formed_meta_with_lang() {
        let meta = read_meta_from_meta(&valid()).expect("valid meta");
        assert_eq!(
            meta,
            ReadMeta {
                path: "/w/src/lib.rs".to_owned(),
                offset: 2,
                lines: vec![line(2, "alpha", Some("3c8")), line(3, "beta", Some("589"))],
                total_lines: 4,
                lang: Some("rs".to_owned()),
            }
        );
    }

    #[test]
    fn narrows_a_well_formed_meta_without_lang() {
        let meta = read_meta_from_meta(&with("lang", None)).expect("valid meta");
        assert_eq!(meta.lang, None);
        assert_eq!(meta.lines.len(), 2);
    }

    #[test]
    fn accepts_lines_without_hash() {
        let meta = with_lines(json!([{"number": 2, "text": "alpha"}]));
        let meta = read_meta_from_meta(&meta).expect("valid meta");
        assert_eq!(meta.lines, vec![line(2, "alpha", None)]);
    }

    #[test]
    fn accepts_an_empty_file() {
        let meta = json!({"path": "/w/empty.txt", "offset": 1, "lines": [], "totalLines": 0});
        let meta = read_meta_from_meta(&meta).expect("valid meta");
        assert_eq!((meta.offset, meta.total_lines), (1, 0));
        assert!(meta.lines.is_empty());
    }

    #[test]
    fn accepts_an_empty_window_at_a_positive_offset() {
        let meta = json!({"path": "/w/big.txt", "offset": 5, "lines": [], "totalLines": 9});
        let meta = read_meta_from_meta(&meta).expect("valid meta");
        assert_eq!((meta.offset, meta.total_lines), (5, 9));
    }

    #[test]
    fn accepts_integral_floats() {
        let meta = json!({"path": "/w/a", "offset": 2.0, "totalLines": 3.0,
                          "lines": [{"number": 3.0, "text": "c"}]});
        let meta = read_meta_from_meta(&meta).expect("valid meta");
        assert_eq!((meta.offset, meta.total_lines, meta.lines[0].number), (2, 3, 3));
    }

    #[test]
    fn drops_unknown_keys() {
        let mut meta = with("extra", Some(json!({"nested": true})));
        meta["lines"][0]["extra"] = json!(1);
        let narrowed = read_meta_from_meta(&meta).expect("valid meta");
        assert_eq!(narrowed, read_meta_from_meta(&valid()).expect("valid meta"));
    }

    #[test]
    fn rejects_a_non_object() {
        for meta in [json!(null), json!("meta"), json!(1), json!(true)] {
            rejects(&meta);
        }
    }

    #[test]
    fn rejects_an_array() {
        rejects(&json!([valid()]));
    }

    #[test]
    fn rejects_a_missing_or_non_string_path() {
        rejects(&with("path", None));
        rejects(&with("path", Some(json!(7))));
        rejects(&with("path", Some(json!(null))));
    }

    #[test]
    fn rejects_a_missing_or_non_number_total_lines() {
        rejects(&with("totalLines", None));
        rejects(&with("totalLines", Some(json!("4"))));
    }

    #[test]
    fn rejects_a_missing_or_non_number_offset() {
        rejects(&with("offset", None));
        rejects(&with("offset", Some(json!("2"))));
    }

    #[test]
    fn rejects_missing_or_non_array_lines() {
        rejects(&with("lines", None));
        rejects(&with_lines(json!({"number": 2, "text": "alpha"})));
    }

    #[test]
    fn rejects_a_malformed_line_entry() {
        rejects(&with_lines(json!([null])));
        rejects(&with_lines(json!([[2, "alpha"]])));
        rejects(&with_lines(json!([{"number": 2}])));
        rejects(&with_lines(json!([{"number": 2, "text": 5}])));
        rejects(&with_lines(json!([{"number": "2", "text": "alpha"}])));
        rejects(&with_lines(json!([{"text": "alpha"}])));
    }

    #[test]
    fn rejects_a_non_string_lang() {
        rejects(&with("lang", Some(json!(1))));
        rejects(&with("lang", Some(json!(null))));
    }

    #[test]
    fn rejects_offset_zero() {
        rejects(&with("offset", Some(json!(0))));
    }

    #[test]
    fn rejects_a_fractional_offset() {
        rejects(&with("offset", Some(json!(1.5))));
    }

    #[test]
    fn rejects_a_negative_or_too_large_offset() {
        rejects(&with("offset", Some(json!(-1))));
        rejects(&with("offset", Some(json!(u64::from(u32::MAX) + 1))));
    }

    #[test]
    fn rejects_a_first_line_below_offset() {
        rejects(&with_lines(json!([{"number": 1, "text": "a"}])));
    }

    #[test]
    fn rejects_line_number_zero() {
        let meta = json!({"path": "/w/a", "offset": 1, "totalLines": 2,
                          "lines": [{"number": 0, "text": "a"}]});
        rejects(&meta);
    }

    #[test]
    fn rejects_a_fractional_line_number() {
        rejects(&with_lines(json!([{"number": 2.5, "text": "a"}])));
    }

    #[test]
    fn rejects_negative_total_lines() {
        rejects(&with("totalLines", Some(json!(-1))));
    }

    #[test]
    fn rejects_fractional_total_lines() {
        rejects(&with("totalLines", Some(json!(1.5))));
    }

    #[test]
    fn rejects_non_finite_numbers() {
        // serde_json has no NaN or Infinity: they become `null`, which is not a number.
        for number in [f64::NAN, f64::INFINITY] {
            rejects(&with("offset", Some(json!(number))));
            rejects(&with("totalLines", Some(json!(number))));
            rejects(&with_lines(json!([{"number": number, "text": "a"}])));
        }
    }

    #[test]
    fn rejects_duplicate_line_numbers() {
        rejects(&with_lines(json!([{"number": 2, "text": "a"}, {"number": 2, "text": "b"}])));
    }

    #[test]
    fn rejects_decreasing_line_numbers() {
        rejects(&with_lines(json!([{"number": 3, "text": "a"}, {"number": 2, "text": "b"}])));
    }

    #[test]
    fn rejects_line_numbers_exceeding_total_lines() {
        rejects(&with_lines(json!([{"number": 5, "text": "a"}])));
    }

    #[test]
    fn rejects_a_bad_hash() {
        for hash in [json!("3C8"), json!("3c"), json!("3c8a"), json!("xyz"), json!(""), json!(968), json!(null)] {
            rejects(&with_lines(json!([{"number": 2, "text": "alpha", "hash": hash}])));
        }
    }

    #[test]
    fn new_derives_lang_and_into_view_keeps_every_field() {
        let meta = ReadMeta::new("/w/a.py", 1, vec![line(1, "x = 1", Some("abc"))], 1);
        assert_eq!(meta.lang.as_deref(), Some("py"));
        let view = meta.clone().into_view(Some(vec![ContentBlock::text("1:abc|x = 1")]));
        assert_eq!(view.path, meta.path);
        assert_eq!(view.lines, meta.lines);
        assert_eq!(view.lang, meta.lang);
        assert_eq!(ReadMeta::new("/w/notes.txt", 1, vec![], 0).lang, None);
    }

    #[test]
    fn serializes_what_it_narrows() {
        let meta = read_meta_from_meta(&valid()).expect("valid meta");
        let json = serde_json::to_value(&meta).expect("serializable");
        assert_eq!(json, valid());
        assert_eq!(read_meta_from_meta(&json), Some(meta));
    }
}
