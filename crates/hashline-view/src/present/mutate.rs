//! The write and edit presenters: diff cards from the arguments, then from the applied hunks.

use serde_json::Value;

use super::ToolResultRecord;
use super::args::Args;
use crate::{DiffCallView, DiffResultView, FileDiff, FileLocation, ToolCallView, ToolResultView, diffs_from_meta};

/// The write arguments: the path and the whole new content.
fn write_args(args: &Value) -> Option<(&str, &str)> {
    let args = Args::new(args)?;
    Some((args.name("path")?, args.str("content")?))
}

/// `Write <path>` with the whole new content as a diff from nothing.
pub(super) fn write_call(args: &Value) -> Option<ToolCallView> {
    let (path, content) = write_args(args)?;
    Some(ToolCallView::Diff(DiffCallView {
        title: format!("Write {path}"),
        diffs: vec![FileDiff::whole_file(path, None, content)],
        locations: Some(vec![FileLocation::new(path)]),
    }))
}

/// The applied hunks, or the whole-file diff from the arguments when the meta has none (a
/// create, an unchanged overwrite, a missing before-image). A success never declines.
pub(super) fn write_result(args: &Value, result: &ToolResultRecord) -> Option<ToolResultView> {
    let (path, content) = write_args(args)?;
    if result.is_error {
        return None;
    }
    let diffs = result
        .meta
        .as_ref()
        .and_then(diffs_from_meta)
        .unwrap_or_else(|| vec![FileDiff::whole_file(path, None, content)]);
    Some(ToolResultView::Diff(DiffResultView { title: Some(format!("Write {path}")), diffs }))
}

/// The edit arguments the views use: the edited paths (one, or several for `files`) and the
/// legacy top-level `oldText`/`newText` replacement, if any.
struct EditArgs<'a> {
    paths: Vec<&'a str>,
    legacy: Option<FileDiff>,
    /// The change a revert undoes (`revert`; its files are known only from the result).
    revert: Option<&'a str>,
}

impl EditArgs<'_> {
    fn title(&self) -> String {
        if let Some(id) = self.revert {
            return format!("Revert {id}");
        }
        match self.paths.as_slice() {
            [path] => format!("Edit {path}"),
            paths => format!("Edit {} files", paths.len()),
        }
    }
}

/// Either `path` (with optional legacy `oldText`/`newText`) or `files: [{path, ...}]`, not
/// both; or `revert` alone.
fn edit_args(args: &Value) -> Option<EditArgs<'_>> {
    let args = Args::new(args)?;
    if let Some(id) = args.opt_str("revert")? {
        let alone = args.get("path").is_none() && args.get("files").is_none() && args.get("edits").is_none();
        return alone.then_some(EditArgs { paths: Vec::new(), legacy: None, revert: Some(id) });
    }
    match (args.opt_name("path")?, args.get("files")) {
        (Some(path), None) => {
            let old_text = args.opt_str("oldText")?.filter(|s| !s.is_empty());
            let legacy = args
                .opt_str("newText")?
                .map(|new_text| FileDiff::whole_file(path, old_text.map(str::to_owned), new_text));
            Some(EditArgs { paths: vec![path], legacy, revert: None })
        }
        (None, Some(files)) => {
            let paths =
                files.as_array()?.iter().map(|file| Args::new(file)?.name("path")).collect::<Option<Vec<_>>>()?;
            (!paths.is_empty()).then_some(EditArgs { paths, legacy: None, revert: None })
        }
        _ => None,
    }
}

/// `Edit <path>` (or `Edit <n> files`); its diff is the legacy replacement, if any: anchored
/// edits show their change only once applied.
pub(super) fn edit_call(args: &Value) -> Option<ToolCallView> {
    let args = edit_args(args)?;
    let title = args.title();
    let locations = (args.revert.is_none()).then(|| args.paths.into_iter().map(FileLocation::new).collect());
    Some(ToolCallView::Diff(DiffCallView { title, locations, diffs: args.legacy.into_iter().collect() }))
}

/// The applied hunks from the meta; declines when there are none.
pub(super) fn edit_result(args: &Value, result: &ToolResultRecord) -> Option<ToolResultView> {
    let args = edit_args(args)?;
    if result.is_error {
        return None;
    }
    Some(ToolResultView::Diff(DiffResultView {
        title: Some(args.title()),
        diffs: diffs_from_meta(result.meta.as_ref()?)?,
    }))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::{ContentBlock, present_call, present_result};

    fn diff(path: &str, old: Option<&str>, new: &str) -> FileDiff {
        FileDiff::whole_file(path, old.map(str::to_owned), new)
    }

    fn record(is_error: bool, meta: Option<Value>) -> ToolResultRecord {
        ToolResultRecord { content: vec![ContentBlock::text("done")], is_error, meta }
    }

    fn hunk_meta() -> Value {
        json!({"diffs": [{"path": "data.txt", "oldText": "original", "newText": "replaced",
                          "oldStart": 1, "newStart": 1}]})
    }

    fn hunk() -> FileDiff {
        FileDiff { old_start: Some(1), new_start: Some(1), ..diff("data.txt", Some("original"), "replaced") }
    }

    fn diff_result(title: &str, diffs: Vec<FileDiff>) -> Option<ToolResultView> {
        Some(ToolResultView::Diff(DiffResultView { title: Some(title.to_owned()), diffs }))
    }

    #[test]
    fn write_call_is_a_whole_file_diff() {
        let view = present_call("write", &json!({"path": "data.txt", "content": "new\n"}));
        assert_eq!(
            view,
            Some(ToolCallView::Diff(DiffCallView {
                title: "Write data.txt".to_owned(),
                diffs: vec![diff("data.txt", None, "new\n")],
                locations: Some(vec![FileLocation::new("data.txt")]),
            }))
        );
    }

    #[test]
    fn write_call_declines_mismatched_arguments() {
        for args in [
            json!({"path": "a"}),
            json!({"content": "x"}),
            json!({"path": "a", "content": 1}),
            json!({"path": "", "content": "x"}),
            json!(["a", "x"]),
        ] {
            assert_eq!(present_call("write", &args), None, "{args}");
        }
    }

    #[test]
    fn write_result_shows_the_applied_hunks() {
        let args = json!({"path": "data.txt", "content": "replaced"});
        let view = present_result("write", &args, &record(false, Some(hunk_meta())));
        assert_eq!(view, diff_result("Write data.txt", vec![hunk()]));
    }

    #[test]
    fn write_result_falls_back_to_the_whole_file() {
        let args = json!({"path": "data.txt", "content": ""});
        let whole = diff_result("Write data.txt", vec![diff("data.txt", None, "")]);
        for meta in [None, Some(json!({"diffs": []})), Some(json!("junk"))] {
            assert_eq!(present_result("write", &args, &record(false, meta)), whole);
        }
    }

    #[test]
    fn write_result_declines_errors_and_mismatched_arguments() {
        let args = json!({"path": "data.txt", "content": "x"});
        assert_eq!(present_result("write", &args, &record(true, Some(hunk_meta()))), None);
        let args = json!({"path": "data.txt"});
        assert_eq!(present_result("write", &args, &record(false, Some(hunk_meta()))), None);
    }

    #[test]
    fn edit_call_with_anchored_edits_has_no_diff() {
        let args = json!({"path": "a.rs", "edits": [{"set_line": {"anchor": "1:abc", "new_text": "x"}}]});
        assert_eq!(
            present_call("edit", &args),
            Some(ToolCallView::Diff(DiffCallView {
                title: "Edit a.rs".to_owned(),
                diffs: vec![],
                locations: Some(vec![FileLocation::new("a.rs")]),
            }))
        );
    }

    #[test]
    fn edit_call_shows_a_legacy_replacement() {
        let diffs_of = |args: Value| match present_call("edit", &args) {
            Some(ToolCallView::Diff(view)) => view.diffs,
            other => panic!("expected a diff view, got {other:?}"),
        };
        let args = json!({"path": "a", "oldText": "blue", "newText": "green"});
        assert_eq!(diffs_of(args), vec![diff("a", Some("blue"), "green")]);
        let args = json!({"path": "a", "oldText": "", "newText": "green"});
        assert_eq!(diffs_of(args), vec![diff("a", None, "green")]);
        let args = json!({"path": "a", "newText": "green"});
        assert_eq!(diffs_of(args), vec![diff("a", None, "green")]);
        assert_eq!(diffs_of(json!({"path": "a", "oldText": "blue"})), vec![]);
    }

    #[test]
    fn edit_call_covers_a_multi_file_edit() {
        let args = json!({"files": [{"path": "a.rs", "edits": []}, {"path": "b.rs", "edits": []}]});
        let Some(ToolCallView::Diff(view)) = present_call("edit", &args) else {
            panic!("expected a diff view");
        };
        assert_eq!(view.title, "Edit 2 files");
        let locations = vec![FileLocation::new("a.rs"), FileLocation::new("b.rs")];
        assert_eq!(view.locations, Some(locations));
        let one = json!({"files": [{"path": "a.rs", "edits": []}]});
        assert!(matches!(present_call("edit", &one), Some(ToolCallView::Diff(v)) if v.title == "Edit a.rs"));
    }

    #[test]
    fn edit_call_declines_mismatched_arguments() {
        for args in [
            json!({}),
            json!({"path": 1}),
            json!({"path": "a", "oldText": 1, "newText": "x"}),
            json!({"path": "a", "newText": ["x"]}),
            json!({"path": "a", "files": [{"path": "b"}]}),
            json!({"files": []}),
            json!({"files": [{"path": "a"}, {"edits": []}]}),
            json!({"files": "a"}),
        ] {
            assert_eq!(present_call("edit", &args), None, "{args}");
        }
    }

    #[test]
    fn edit_result_shows_the_applied_hunks() {
        let args = json!({"path": "data.txt", "edits": []});
        let view = present_result("edit", &args, &record(false, Some(hunk_meta())));
        assert_eq!(view, diff_result("Edit data.txt", vec![hunk()]));
    }

    #[test]
    fn edit_result_declines_errors_and_missing_hunks() {
        let args = json!({"path": "data.txt", "edits": []});
        for result in [
            record(true, Some(hunk_meta())),
            record(false, None),
            record(false, Some(json!({"diffs": []}))),
            record(false, Some(json!({"diffs": [{"path": "a"}]}))),
        ] {
            assert_eq!(present_result("edit", &args, &result), None, "{result:?}");
        }
        let bad_args = json!({"path": false});
        assert_eq!(present_result("edit", &bad_args, &record(false, Some(hunk_meta()))), None);
    }

    /// A revert (edit with `revert` alone) is titled by the change it undoes; its files come
    /// from the result's hunks. With other arguments beside it, no view.
    #[test]
    fn a_revert_is_titled_by_its_change() {
        let args = json!({"revert": "c2-b33b"});
        let Some(ToolCallView::Diff(call)) = present_call("edit", &args) else { panic!("a diff call view") };
        assert_eq!((call.title.as_str(), call.locations, call.diffs.len()), ("Revert c2-b33b", None, 0));
        let Some(ToolResultView::Diff(result)) = present_result("edit", &args, &record(false, Some(hunk_meta())))
        else {
            panic!("a diff result view")
        };
        assert_eq!(result.title.as_deref(), Some("Revert c2-b33b"));
        assert_eq!(result.diffs, vec![hunk()]);
        assert_eq!(present_call("edit", &json!({"revert": "c1-0000", "path": "a.txt"})), None);
        assert_eq!(present_call("edit", &json!({"revert": 7})), None);
    }
}
