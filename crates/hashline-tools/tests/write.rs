//! `write` through its JSON entry point, on a real file system.

mod common;

use common::{Workspace, assert_rows_match_value, code, exists};
use hashline_tools::read::ReadTool;
use hashline_tools::write::WriteTool;
use insta::assert_snapshot;
use serde_json::json;

#[test]
fn create_returns_rows_served_and_empty_meta_diffs() {
    let ws = Workspace::new();
    let result = ws.call::<WriteTool>(json!({"path": "new/dir/a.txt", "content": "alpha\nbeta\n"}));
    assert!(!result.is_error, "{}", result.text());
    let id = result.ptc_value()["changeId"].as_str().expect("a change id").to_owned();
    assert_eq!(
        result.text(),
        format!("snapshot: snm8kqa8k\n1:3c8|alpha\n2:589|beta\n\nChange {id} (undo: edit {{\"revert\": \"{id}\"}})")
    );
    assert_rows_match_value(&result);
    assert_eq!(std::fs::read(ws.path("new/dir/a.txt")).expect("read"), b"alpha\nbeta\n");
    assert_eq!(result.ptc_value()["writeState"], "created");
    assert_eq!(result.meta.as_deref(), Some(&json!({"diffs": []})));
    assert!(ws.session.ledger().served(&ws.path("new/dir/a.txt")).is_some());
    assert_snapshot!(ws.json(&result));
}

#[test]
fn overwrite_carries_a_diff_and_hunks_with_start_lines() {
    let ws = Workspace::new();
    let body: String = (1..=12).map(|i| format!("line {i}\n")).collect();
    ws.file("data.txt", &body);
    let result = ws.call::<WriteTool>(json!({"path": "data.txt", "content": body.replace("line 6\n", "line six\n")}));
    assert_eq!(result.ptc_value()["writeState"], "overwritten");
    assert_snapshot!(result.ptc_value()["diff"].as_str().unwrap_or_default(), @r"
    --- a/data.txt
    +++ b/data.txt
    @@ -3,7 +3,7 @@
     line 3
     line 4
     line 5
    -line 6
    +line six
     line 7
     line 8
     line 9
    ");
    assert_eq!(
        result.meta.as_deref(),
        Some(&json!({"diffs": [{
            "path": "data.txt",
            "oldText": "line 3\nline 4\nline 5\nline 6\nline 7\nline 8\nline 9",
            "newText": "line 3\nline 4\nline 5\nline six\nline 7\nline 8\nline 9",
            "oldStart": 3,
            "newStart": 3
        }]}))
    );
    let view = hashline_view::present_result(
        "write",
        &json!({"path": "data.txt", "content": ""}),
        &hashline_view::ToolResultRecord {
            content: result.content.clone(),
            is_error: false,
            meta: result.meta.as_deref().cloned(),
        },
    );
    assert!(matches!(view, Some(hashline_view::ToolResultView::Diff(d)) if d.diffs.len() == 1));
}

#[test]
fn bare_cr_is_refused_before_anything_is_written() {
    let ws = Workspace::new();
    let result = ws.call::<WriteTool>(json!({"path": "cr.txt", "content": "one\rtwo"}));
    assert_eq!(code(&result), "bare-cr");
    assert!(!exists(&ws.path("cr.txt")));
    assert_snapshot!(result.text(), @r"
    Cannot write cr.txt
    ⚠️ File content contains bare CR (\r) line endings; write refuses to emit anchors that read/edit would normalize differently.
    Use \n or \r\n line endings.
    ");
    let crlf = ws.call::<WriteTool>(json!({"path": "crlf.txt", "content": "one\r\ntwo\r\n"}));
    assert!(!crlf.is_error);
    assert_eq!(std::fs::read(ws.path("crlf.txt")).expect("read"), b"one\r\ntwo\r\n");
}

#[test]
fn binary_content_is_written_with_a_warning_and_no_anchors() {
    let ws = Workspace::new();
    let result = ws.call::<WriteTool>(json!({"path": "b.bin", "content": "a\u{0}b"}));
    assert!(!result.is_error);
    assert_eq!(std::fs::read(ws.path("b.bin")).expect("read"), b"a\0b");
    assert_eq!(result.ptc_value()["lines"], json!([]));
    assert_eq!(result.ptc_value()["warnings"][0]["code"], "binary-content");
    assert_snapshot!(result.text(), @r#"
    Wrote b.bin
    ⚠️ File content appears to be binary — hashlines not generated.

    Change c1-95ac (undo: edit {"revert": "c1-95ac"})
    "#);
    assert!(ws.session.ledger().served(&ws.path("b.bin")).is_none());
}

#[test]
fn large_content_omits_anchors() {
    let ws = Workspace::new();
    let content: String = (1..=2001).map(|i| format!("{i}\n")).collect();
    let result = ws.call::<WriteTool>(json!({"path": "big.txt", "content": content}));
    assert!(!result.is_error);
    let value = result.ptc_value();
    assert_eq!((value["truncated"].as_bool(), value["totalLines"].as_u64()), (Some(true), Some(2001)));
    assert_eq!(value["lines"], json!([]));
    assert!(value.get("diff").is_none());
    assert_eq!(value["warnings"][0]["code"], "anchors-omitted");
    assert_snapshot!(result.text(), @r#"
    Wrote big.txt (2001 lines, 8.7KB).
    [Anchors omitted: big.txt is 2001 lines (8.7KB), over the 2000-line / 50 KB result budget. Use read with offset/limit to get anchors.]

    Change c1-8b31 (undo: edit {"revert": "c1-8b31"})
    "#);
    let wide = "w".repeat(60 * 1024);
    let result = ws.call::<WriteTool>(json!({"path": "wide.txt", "content": wide}));
    assert_eq!(result.ptc_value()["truncated"], true);
}

#[test]
fn wrong_types_and_nulls() {
    let ws = Workspace::new();
    assert_eq!(code(&ws.call::<WriteTool>(json!({"path": "a.txt", "content": 5}))), "invalid-type");
    assert_eq!(code(&ws.call::<WriteTool>(json!({"path": ["a"], "content": "x"}))), "invalid-type");
    assert_eq!(code(&ws.call::<WriteTool>(json!({"path": "a.txt", "content": null}))), "invalid-null");
    assert_eq!(code(&ws.call::<WriteTool>(json!({"path": "a.txt"}))), "invalid-type");
    let named_null = ws.call::<WriteTool>(json!({"path": "null", "content": "null"}));
    assert!(!named_null.is_error, "the string \"null\" is a valid value");
    assert!(!exists(&ws.path("a.txt")));
}

#[test]
fn keeps_mode_symlinks_and_hard_links() {
    let ws = Workspace::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let file = ws.file("mode.txt", "old");
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).expect("chmod");
        ws.call::<WriteTool>(json!({"path": "mode.txt", "content": "new"}));
        assert_eq!(std::fs::metadata(&file).expect("meta").permissions().mode() & 0o7777, 0o640);
    }
    let readonly = ws.file("readonly.txt", "old");
    let mut permissions = std::fs::metadata(&readonly).expect("meta").permissions();
    permissions.set_readonly(true);
    std::fs::set_permissions(&readonly, permissions).expect("read-only");
    let refused = ws.call::<WriteTool>(json!({"path": "readonly.txt", "content": "new"}));
    assert_eq!(code(&refused), "permission-denied", "{}", refused.text());
    assert_eq!(std::fs::read(&readonly).expect("read"), b"old");
    assert!(std::fs::metadata(&readonly).expect("meta").permissions().readonly());

    let one = ws.file("one.txt", "old");
    std::fs::hard_link(&one, ws.path("two.txt")).expect("link");
    ws.call::<WriteTool>(json!({"path": "two.txt", "content": "shared"}));
    assert_eq!(std::fs::read(&one).expect("read"), b"shared");
    std::fs::write(ws.path("two.txt"), "still one file").expect("write");
    assert_eq!(std::fs::read(&one).expect("read"), b"still one file", "the names are still linked");

    let target = ws.file("target.txt", "old");
    if !common::symlink("target.txt", ws.path("link.txt"), "keeps_mode_symlinks_and_hard_links (symlink)") {
        return;
    }
    let result = ws.call::<WriteTool>(json!({"path": "link.txt", "content": "via link"}));
    assert!(!result.is_error, "{}", result.text());
    assert!(std::fs::symlink_metadata(ws.path("link.txt")).expect("meta").file_type().is_symlink());
    assert_eq!(std::fs::read(&target).expect("read"), b"via link");
}

#[test]
fn refusals_leave_the_file_system_alone() {
    let ws = Workspace::new();
    std::fs::create_dir(ws.path("dir")).expect("mkdir");
    let dir = ws.call::<WriteTool>(json!({"path": "dir", "content": "x"}));
    assert_eq!(code(&dir), "path-is-directory");
    assert_eq!(dir.text(), "Path is a directory — cannot overwrite: dir");
    let outside = tempfile::tempdir().expect("outside");
    let target = outside.path().join("x.txt");
    let mut paths = vec![target.to_string_lossy().into_owned(), "../x.txt".to_owned()];
    if common::symlink(&target, ws.path("escape.txt"), "refusals_leave_the_file_system_alone (symlink)") {
        paths.push("escape.txt".to_owned());
    }
    for path in paths {
        let result = ws.call::<WriteTool>(json!({"path": path, "content": "x"}));
        assert_eq!(code(&result), "path-outside-root", "{path}");
    }
    assert!(!exists(&target));
    let parent_is_file = ws.file("plain.txt", "x");
    let result = ws.call::<WriteTool>(json!({"path": "plain.txt/child.txt", "content": "x"}));
    assert_eq!(code(&result), "fs-error");
    assert_eq!(std::fs::read(parent_is_file).expect("read"), b"x");
}

#[test]
fn map_is_ignored_with_a_warning_and_rows_read_back_identically() {
    let ws = Workspace::new();
    let written = ws.call::<WriteTool>(json!({"path": "m.rs", "content": "fn main() {}\n", "map": true}));
    assert_eq!(written.ptc_value()["warnings"][0]["code"], "map-unavailable");
    let read = ws.call::<ReadTool>(json!({"path": "m.rs"}));
    assert_eq!(written.ptc_value()["lines"], read.ptc_value()["lines"]);
}

#[test]
fn a_write_without_anchors_forgets_the_rows_shown_before() {
    let ws = Workspace::new();
    let path = ws.file("f.txt", "one\ntwo\n");
    ws.call::<ReadTool>(json!({"path": "f.txt"}));
    assert!(ws.session.ledger().served(&path).is_some());
    let big: String = (1..=2001).map(|i| format!("{i}\n")).collect();
    ws.call::<WriteTool>(json!({"path": "f.txt", "content": big}));
    assert!(ws.session.ledger().served(&path).is_none(), "no anchors were shown for the new content");
}

/// `link/../../x.txt` with `link -> a/b` is `x.txt` at the root (the kernel follows the link
/// before `..`), while its lexical form is beside the root. Every tool reports where the file
/// really is, so that the path a result gives is one the next call accepts.
#[test]
fn a_symlink_then_dotdot_reports_the_real_path_in_every_tool() {
    use hashline_tools::edit::EditTool;
    let ws = Workspace::new();
    std::fs::create_dir_all(ws.path("a/b")).expect("mkdir");
    if !common::symlink("a/b", ws.path("link"), "a_symlink_then_dotdot_reports_the_real_path_in_every_tool") {
        return;
    }
    let real = ws.path("x.txt");

    let write = ws.call::<WriteTool>(json!({"path": "link/../../x.txt", "content": "alpha\n"}));
    assert!(!write.is_error, "{}", write.text());
    assert_eq!(std::fs::read(&real).expect("written"), b"alpha\n");
    assert_eq!(write.ptc_value()["path"], real.to_string_lossy().as_ref(), "{}", ws.json(&write));

    // The reported path is one the next call accepts.
    let reported = write.ptc_value()["path"].as_str().expect("path").to_owned();
    let read = ws.call::<ReadTool>(json!({"path": reported}));
    assert!(!read.is_error, "{}", read.text());

    // Read and edit through the same spelling report the real path too, in the value and
    // in the text and meta the model sees.
    let read = ws.call::<ReadTool>(json!({"path": "link/../../x.txt"}));
    assert!(!read.is_error, "{}", read.text());
    assert_eq!(read.ptc_value()["path"], real.to_string_lossy().as_ref(), "{}", ws.json(&read));
    let anchor = read.ptc_value()["lines"][0]["anchor"].as_str().expect("anchor").to_owned();
    let edit = ws.call::<EditTool>(
        json!({"path": "link/../../x.txt", "edits": [{"set_line": {"anchor": anchor, "new_text": "beta"}}]}),
    );
    assert!(!edit.is_error, "{}", edit.text());
    assert_eq!(std::fs::read(&real).expect("edited"), b"beta\n");
    let shown = ws.json(&edit);
    assert!(!shown.contains("link/.."), "the lexical spelling leaks: {shown}");
    assert!(shown.contains("x.txt"), "{shown}");

    let overwrite = ws.call::<WriteTool>(json!({"path": "link/../../x.txt", "content": "gamma\n"}));
    let shown = ws.json(&overwrite);
    assert!(!shown.contains("link/.."), "the lexical spelling leaks: {shown}");
    assert!(overwrite.ptc_value()["diff"].as_str().expect("diff").starts_with("--- a/x.txt\n+++ b/x.txt\n"), "{shown}");
}

/// A plain symlink (no `..` after it) keeps the name the model used: it names the same
/// file whichever way it is resolved.
#[test]
fn a_symlinked_directory_keeps_the_name_the_model_used() {
    let ws = Workspace::new();
    std::fs::create_dir_all(ws.path("a/b")).expect("mkdir");
    if !common::symlink("a/b", ws.path("link"), "a_symlinked_directory_keeps_the_name_the_model_used") {
        return;
    }
    let write = ws.call::<WriteTool>(json!({"path": "link/y.txt", "content": "alpha\n"}));
    assert!(!write.is_error, "{}", write.text());
    assert_eq!(write.ptc_value()["path"], ws.path("link/y.txt").to_string_lossy().as_ref());
    assert_eq!(std::fs::read(ws.path("a/b/y.txt")).expect("written"), b"alpha\n");
}
