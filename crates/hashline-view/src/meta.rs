//! The `presentationMeta` of the diff tools (write, edit) and the search tools (grep,
//! ast_search, ls, find), and their defensive narrowing.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::json::{optional, u32_of, uint};
use crate::{FileDiff, SearchFileMatches, SearchLineMatch};

/// The `presentationMeta` of write and edit: the applied hunks, in file order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct DiffsMeta {
    /// The applied hunks; empty for a create or an unchanged overwrite.
    pub diffs: Vec<FileDiff>,
}

/// The `presentationMeta` of ls and find: the listed paths.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct PathsMeta {
    /// The paths, in result order.
    pub paths: Vec<String>,
    /// Whether paths were left out.
    pub truncated: bool,
    /// The total number of paths found.
    pub total: u64,
}

/// The `presentationMeta` of grep and ast_search: matching lines grouped by file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct MatchesMeta {
    /// The files with matches, in result order.
    pub files: Vec<SearchFileMatches>,
    /// Whether matches were left out.
    pub truncated: bool,
    /// The total number of matches found.
    pub total: u64,
}

/// Narrows a diff meta `{diffs: [...]}` into its hunks, or `None` when `meta` is not an object,
/// `diffs` is not a non-empty array, or any entry is not an object with a string `path`, a
/// string or `null` `oldText`, a string `newText`, and optional non-negative integer
/// `oldStart`/`newStart`. Never panics.
///
/// ```
/// use hashline_view::diffs_from_meta;
/// use serde_json::json;
///
/// let meta = json!({"diffs": [{"path": "a.txt", "oldText": null, "newText": "x", "newStart": 1}]});
/// assert_eq!(diffs_from_meta(&meta).map(|d| d[0].new_start), Some(Some(1)));
/// assert_eq!(diffs_from_meta(&json!({"diffs": []})), None);
/// ```
pub fn diffs_from_meta(meta: &Value) -> Option<Vec<FileDiff>> {
    let diffs = meta.as_object()?.get("diffs")?.as_array()?;
    if diffs.is_empty() {
        return None;
    }
    diffs.iter().map(|diff| diff.as_object().and_then(file_diff)).collect()
}

fn file_diff(diff: &Map<String, Value>) -> Option<FileDiff> {
    let old_text = match diff.get("oldText")? {
        Value::Null => None,
        Value::String(text) => Some(text.clone()),
        _ => return None,
    };
    Some(FileDiff {
        path: diff.get("path")?.as_str()?.to_owned(),
        old_text,
        new_text: diff.get("newText")?.as_str()?.to_owned(),
        old_start: optional(diff, "oldStart", u32_of).ok()?,
        new_start: optional(diff, "newStart", u32_of).ok()?,
    })
}

/// Narrows a paths meta `{paths: [string], truncated: bool, total: int}`, or `None` when it is
/// malformed (`total` must be a non-negative integer). Unknown keys are dropped. Never panics.
pub fn paths_from_meta(meta: &Value) -> Option<PathsMeta> {
    let object = meta.as_object()?;
    let paths =
        object.get("paths")?.as_array()?.iter().map(|path| path.as_str().map(str::to_owned)).collect::<Option<_>>()?;
    let (truncated, total) = completeness(object)?;
    Some(PathsMeta { paths, truncated, total })
}

/// Narrows a matches meta `{files: [{path, matches: [{lineNumber, line}]}], truncated, total}`,
/// or `None` when it is malformed (`lineNumber` must be an integer `>= 1`, `total` a
/// non-negative integer). Unknown keys are dropped. Never panics.
pub fn matches_from_meta(meta: &Value) -> Option<MatchesMeta> {
    let object = meta.as_object()?;
    let files = object
        .get("files")?
        .as_array()?
        .iter()
        .map(|file| file.as_object().and_then(file_matches))
        .collect::<Option<_>>()?;
    let (truncated, total) = completeness(object)?;
    Some(MatchesMeta { files, truncated, total })
}

fn file_matches(file: &Map<String, Value>) -> Option<SearchFileMatches> {
    let matches = file
        .get("matches")?
        .as_array()?
        .iter()
        .map(|m| {
            let m = m.as_object()?;
            Some(SearchLineMatch {
                line_number: m.get("lineNumber").and_then(u32_of).filter(|&n| n >= 1)?,
                line: m.get("line")?.as_str()?.to_owned(),
            })
        })
        .collect::<Option<_>>()?;
    Some(SearchFileMatches { path: file.get("path")?.as_str()?.to_owned(), matches })
}

/// The `truncated` flag and `total` count shared by both search metas.
fn completeness(object: &Map<String, Value>) -> Option<(bool, u64)> {
    Some((object.get("truncated")?.as_bool()?, object.get("total").and_then(uint)?))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn diff(path: &str, old: Option<&str>, new: &str) -> FileDiff {
        FileDiff::whole_file(path, old.map(str::to_owned), new)
    }

    #[test]
    fn diffs_narrow_hunks_with_and_without_start_lines() {
        let meta = json!({"diffs": [
            {"path": "config.txt", "oldText": "mode=DEBUG", "newText": "mode=RELEASE"},
            {"path": "config.txt", "oldText": null, "newText": "x", "oldStart": 0, "newStart": 9.0,
             "extra": true}
        ]});
        let mut inserted = diff("config.txt", None, "x");
        inserted.old_start = Some(0);
        inserted.new_start = Some(9);
        assert_eq!(
            diffs_from_meta(&meta),
            Some(vec![diff("config.txt", Some("mode=DEBUG"), "mode=RELEASE"), inserted])
        );
    }

    #[test]
    fn diffs_decline_malformed_metas() {
        let entry = json!({"path": "a", "oldText": "o", "newText": "n"});
        for meta in [
            json!(null),
            json!([entry.clone()]),
            json!({}),
            json!({"diffs": []}),
            json!({"diffs": {"0": entry.clone()}}),
            json!({"diffs": [entry.clone(), null]}),
            json!({"diffs": [{"oldText": "o", "newText": "n"}]}),
            json!({"diffs": [{"path": 1, "oldText": "o", "newText": "n"}]}),
            json!({"diffs": [{"path": "a", "newText": "n"}]}),
            json!({"diffs": [{"path": "a", "oldText": 1, "newText": "n"}]}),
            json!({"diffs": [{"path": "a", "oldText": "o", "newText": null}]}),
            json!({"diffs": [{"path": "a", "oldText": "o", "newText": "n", "oldStart": -1}]}),
            json!({"diffs": [{"path": "a", "oldText": "o", "newText": "n", "newStart": 1.5}]}),
            json!({"diffs": [{"path": "a", "oldText": "o", "newText": "n", "newStart": "1"}]}),
            json!({"diffs": [{"path": "a", "oldText": "o", "newText": "n", "oldStart": null}]}),
        ] {
            assert_eq!(diffs_from_meta(&meta), None, "accepted {meta}");
        }
    }

    #[test]
    fn diffs_meta_serializes_to_what_diffs_from_meta_reads() {
        let meta = DiffsMeta { diffs: vec![diff("a.txt", None, "x")] };
        let json = serde_json::to_value(&meta).expect("serializable");
        assert_eq!(json, json!({"diffs": [{"path": "a.txt", "oldText": null, "newText": "x"}]}));
        assert_eq!(diffs_from_meta(&json), Some(meta.diffs));
    }

    #[test]
    fn paths_narrow_a_well_formed_meta() {
        let meta = json!({"paths": ["src/", "src/lib.rs"], "truncated": true, "total": 812.0});
        assert_eq!(
            paths_from_meta(&meta),
            Some(PathsMeta { paths: vec!["src/".to_owned(), "src/lib.rs".to_owned()], truncated: true, total: 812 })
        );
        let empty = json!({"paths": [], "truncated": false, "total": 0});
        assert_eq!(paths_from_meta(&empty).map(|m| m.paths.len()), Some(0));
    }

    #[test]
    fn paths_decline_malformed_metas() {
        for meta in [
            json!(null),
            json!(["a"]),
            json!({"truncated": false, "total": 1}),
            json!({"paths": "a", "truncated": false, "total": 1}),
            json!({"paths": ["a", 1], "truncated": false, "total": 1}),
            json!({"paths": ["a"], "total": 1}),
            json!({"paths": ["a"], "truncated": "no", "total": 1}),
            json!({"paths": ["a"], "truncated": false}),
            json!({"paths": ["a"], "truncated": false, "total": -1}),
            json!({"paths": ["a"], "truncated": false, "total": 1.5}),
        ] {
            assert_eq!(paths_from_meta(&meta), None, "accepted {meta}");
        }
    }

    #[test]
    fn matches_narrow_a_well_formed_meta() {
        let meta = json!({
            "files": [{"path": "src/a.rs", "matches": [{"lineNumber": 3, "line": "fn a() {}"}]}],
            "truncated": false,
            "total": 1
        });
        let narrowed = matches_from_meta(&meta).expect("valid meta");
        assert_eq!(narrowed.files[0].matches[0].line_number, 3);
        assert_eq!(serde_json::to_value(&narrowed).expect("serializable"), meta);
    }

    #[test]
    fn matches_decline_malformed_metas() {
        let file =
            |m: serde_json::Value| json!({"files": [{"path": "a", "matches": [m]}], "truncated": false, "total": 1});
        for meta in [
            json!(null),
            json!({"files": {}, "truncated": false, "total": 1}),
            json!({"files": [null], "truncated": false, "total": 1}),
            json!({"files": [{"matches": []}], "truncated": false, "total": 1}),
            json!({"files": [{"path": "a"}], "truncated": false, "total": 1}),
            json!({"files": [], "truncated": null, "total": 1}),
            json!({"files": [], "truncated": false, "total": "1"}),
            file(json!(null)),
            file(json!({"lineNumber": 0, "line": "x"})),
            file(json!({"lineNumber": 1.5, "line": "x"})),
            file(json!({"lineNumber": 1})),
            file(json!({"line": "x"})),
        ] {
            assert_eq!(matches_from_meta(&meta), None, "accepted {meta}");
        }
    }
}
