//! `syntaxValidate` in `edit` and `write`: only problems the change introduced, located in
//! the new file; `warn` writes and warns, `block` refuses and writes nothing, `off` skips.

mod common;

use common::{Workspace, code};
use hashline_core::LineHash;
use hashline_tools::edit::EditTool;
use hashline_tools::read::ReadTool;
use hashline_tools::write::WriteTool;
use insta::assert_snapshot;
use serde_json::{Value, json};

const RUST: &str = "fn alpha() -> u32 {\n    1\n}\n\nfn beta() -> u32 {\n    2\n}\n\nfn gamma() -> u32 {\n    3\n}\n";

fn set_line(line: u32, old: &str, new: &str) -> Value {
    json!({"set_line": {"anchor": format!("{line}:{}", LineHash::of(old.as_bytes())), "new_text": new}})
}

fn edit(ws: &Workspace, path: &str, mode: Option<&str>, edits: Value) -> hashline_tools::ToolResult {
    ws.call::<ReadTool>(json!({"path": path}));
    let mut args = json!({"path": path, "edits": edits});
    if let Some(mode) = mode {
        args["syntaxValidate"] = json!(mode);
    }
    ws.call::<EditTool>(args)
}

#[test]
fn warn_mode_writes_and_names_the_new_errors_lines() {
    let ws = Workspace::new();
    ws.file("lib.rs", RUST);
    let result = edit(&ws, "lib.rs", None, json!([set_line(5, "fn beta() -> u32 {", "fn beta( -> u32 {")]));
    assert!(!result.is_error, "{}", result.text());
    assert!(std::fs::read_to_string(ws.path("lib.rs")).unwrap().contains("fn beta( -> u32"));
    let syntax = &result.ptc_value()["syntax"];
    assert_eq!(syntax["mode"], "warn");
    assert_eq!(syntax["checked"], true);
    assert_eq!(syntax["language"], "rust");
    assert_eq!(syntax["newProblems"][0]["startLine"], 5);
    let warnings = result.ptc_value()["warnings"].as_array().unwrap();
    assert!(warnings.iter().any(|w| w["code"] == "syntax-regression"), "{warnings:?}");
    assert_snapshot!(result.text(), @r#"
    Edited lib.rs (1 change, +1 -1 line)
    snapshot: ste3kxwfz
    syntax-regression: lines 5 — the change added Rust syntax errors (it was written; errors the file already had are not counted)

    Anchors of the added lines: 5:7ce

    Change c1-b5d8 (undo: edit {"revert": "c1-b5d8"})
    "#);
}

#[test]
fn block_mode_refuses_and_writes_nothing() {
    let ws = Workspace::new();
    ws.file("lib.rs", RUST);
    let result = edit(&ws, "lib.rs", Some("block"), json!([set_line(10, "    3", "    3 +")]));
    assert!(result.is_error);
    assert_eq!(code(&result), "syntax-regression");
    assert_eq!(std::fs::read_to_string(ws.path("lib.rs")).unwrap(), RUST);
    assert_snapshot!(result.text(), @r#"
    Edit rejected — nothing was written. syntax-regression: lines 10 — the change would add Rust syntax errors to lib.rs (errors the file already had are not counted). The rejected text there:
    10|     3 +
    Fix the new text and retry, or pass syntaxValidate: "warn" to write it anyway.
    "#);
}

#[test]
fn errors_the_file_already_had_are_not_blamed() {
    let ws = Workspace::new();
    let broken = RUST.replace("    1\n", "    let x = ;\n    1\n");
    ws.file("lib.rs", &broken);
    // A clean change far from the old error: checked, nothing new.
    let result = edit(&ws, "lib.rs", Some("block"), json!([set_line(11, "    3", "    33")]));
    assert!(!result.is_error, "{}", result.text());
    let syntax = &result.ptc_value()["syntax"];
    assert_eq!(syntax["checked"], true);
    assert_eq!(syntax["newProblems"], json!([]));
    // A new error below the old one: only the new one is named.
    let result = edit(&ws, "lib.rs", None, json!([set_line(7, "    2", "    2 +")]));
    let lines: Vec<(u64, u64)> = result.ptc_value()["syntax"]["newProblems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["startLine"].as_u64().unwrap(), p["endLine"].as_u64().unwrap()))
        .collect();
    assert!(!lines.is_empty() && lines.iter().all(|&(s, e)| s >= 7 && e <= 8), "{lines:?}");
}

#[test]
fn an_old_error_moved_by_an_insert_is_not_blamed() {
    let ws = Workspace::new();
    ws.file("a.py", "def f(:\n    pass\n\ndef g():\n    return 1\n");
    let insert = json!([{"insert_after": {"anchor": format!("5:{}", LineHash::of(b"    return 1")), "new_text": "\ndef h():\n    return 2"}}]);
    let result = edit(&ws, "a.py", Some("block"), insert);
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(result.ptc_value()["syntax"]["checked"], true);
}

#[test]
fn off_mode_and_unknown_languages_say_nothing_was_checked() {
    let ws = Workspace::new();
    ws.file("lib.rs", RUST);
    let result = edit(&ws, "lib.rs", Some("off"), json!([set_line(10, "    3", "    3 +")]));
    assert!(!result.is_error);
    assert_eq!(
        result.ptc_value()["syntax"],
        json!({"mode": "off", "checked": false, "language": "rust", "reason": "syntaxValidate is off", "newProblems": []})
    );
    ws.file("notes.txt", "a\nb\n");
    let result = edit(&ws, "notes.txt", Some("block"), json!([set_line(1, "a", "(")]));
    assert!(!result.is_error);
    assert_eq!(
        result.ptc_value()["syntax"],
        json!({"mode": "block", "checked": false, "reason": "no syntax checker for this file type", "newProblems": []})
    );
}

#[test]
fn crlf_and_bom_files_round_trip_clean() {
    let ws = Workspace::new();
    let crlf = format!("\u{feff}{}", RUST.replace('\n', "\r\n"));
    ws.file("lib.rs", &crlf);
    let result = edit(&ws, "lib.rs", Some("block"), json!([set_line(2, "    1", "    10")]));
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(result.ptc_value()["syntax"]["newProblems"], json!([]));
}

#[test]
fn write_checks_an_overwrite_against_the_old_content() {
    let ws = Workspace::new();
    ws.file("main.go", "package main\n\nfunc main() {\n}\n");
    let broken = "package main\n\nfunc main() {\n\tx := \n}\n";
    let result = ws.call::<WriteTool>(json!({"path": "main.go", "content": broken, "syntaxValidate": "block"}));
    assert_eq!(code(&result), "syntax-regression", "{}", result.text());
    assert_eq!(std::fs::read_to_string(ws.path("main.go")).unwrap(), "package main\n\nfunc main() {\n}\n");
    assert_snapshot!(result.text(), @r#"
    Write rejected — nothing was written. syntax-regression: lines 4 — the change would add Go syntax errors to main.go (errors the file already had are not counted). The rejected text there:
    4| 	x := 
    Fix the new text and retry, or pass syntaxValidate: "warn" to write it anyway.
    "#);
    let result = ws.call::<WriteTool>(json!({"path": "main.go", "content": broken}));
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(result.ptc_value()["syntax"]["newProblems"][0]["startLine"], 4);
    assert_snapshot!(result.text(), @r#"
    snapshot: svq5eweh8
    syntax-regression: lines 4 — the change added Go syntax errors (it was written; errors the file already had are not counted)

    1:aff|package main
    2:d05|
    3:29f|func main() {
    4:6da|	x := 
    5:b18|}

    Change c1-43d0 (undo: edit {"revert": "c1-43d0"})
    "#);
}

#[test]
fn write_of_a_new_file_counts_every_problem() {
    let ws = Workspace::new();
    let result = ws.call::<WriteTool>(
        json!({"path": "A.java", "content": "class A {\n  void f( {}\n}\n", "syntaxValidate": "block"}),
    );
    assert_eq!(code(&result), "syntax-regression", "{}", result.text());
    assert!(!ws.path("A.java").exists());
}

/// The new problems' (start, end) lines.
fn problem_lines(result: &hashline_tools::ToolResult) -> Vec<(u64, u64)> {
    result.ptc_value()["syntax"]["newProblems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["startLine"].as_u64().unwrap(), p["endLine"].as_u64().unwrap()))
        .collect()
}

#[test]
fn the_session_keeps_the_written_tree_and_the_next_check_reuses_it() {
    let ws = Workspace::new();
    ws.file("lib.rs", RUST);
    assert!(ws.session.syntax_trees().is_empty());
    let first = edit(&ws, "lib.rs", None, json!([set_line(2, "    1", "    10")]));
    assert_eq!(problem_lines(&first), vec![]);
    assert_eq!(ws.session.syntax_trees().len(), 1, "the tree of what was written is kept");
    // The next edits start from the kept tree: a new error is found and located, and an
    // error that an earlier edit of this session wrote is not blamed again.
    let second = edit(&ws, "lib.rs", None, json!([set_line(6, "    2", "    2 +")]));
    assert_eq!(problem_lines(&second), vec![(6, 6)]);
    let third = edit(&ws, "lib.rs", Some("block"), json!([set_line(10, "    3", "    30")]));
    assert!(!third.is_error, "{}", third.text());
    assert_eq!(problem_lines(&third), vec![]);
    let fourth = edit(&ws, "lib.rs", Some("block"), json!([set_line(1, "fn alpha() -> u32 {", "fn alpha( -> u32 {")]));
    assert_eq!(code(&fourth), "syntax-regression", "{}", fourth.text());
    // Refused: the kept tree is still the file's (the retry reuses it and passes).
    let retry = edit(&ws, "lib.rs", Some("block"), json!([set_line(1, "fn alpha() -> u32 {", "fn alpha2() -> u32 {")]));
    assert!(!retry.is_error, "{}", retry.text());
    assert_eq!(problem_lines(&retry), vec![]);
}

#[test]
fn a_kept_tree_of_other_bytes_is_not_used() {
    let ws = Workspace::new();
    ws.file("lib.rs", RUST);
    let first = edit(&ws, "lib.rs", None, json!([set_line(2, "    1", "    10")]));
    assert!(!first.is_error, "{}", first.text());
    // Changed on disk behind the session's back: now with an error of its own on line 6.
    let outside = RUST.replace("    1\n", "    10\n").replace("    2\n", "    2 +\n");
    ws.file("lib.rs", &outside);
    // An edit far from it: had the kept (clean) tree been taken for the pre-image, the
    // error on line 6 would look new and be blamed on this change.
    let result = edit(&ws, "lib.rs", Some("block"), json!([set_line(10, "    3", "    30")]));
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(problem_lines(&result), vec![]);
}

#[test]
fn write_keeps_the_tree_and_an_edit_after_it_reuses_it() {
    let ws = Workspace::new();
    let written =
        ws.call::<WriteTool>(json!({"path": "main.go", "content": "package main\n\nfunc main() {\n\tx :=\n}\n"}));
    assert_eq!(written.ptc_value()["syntax"]["newProblems"][0]["startLine"], 4, "{}", written.text());
    assert_eq!(ws.session.syntax_trees().len(), 1);
    // The error the write brought is the file's now: an edit elsewhere is not blamed.
    let result = edit(&ws, "main.go", Some("block"), json!([set_line(3, "func main() {", "func run() {")]));
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(problem_lines(&result), vec![]);
}

/// Issue 23: a read of a window of a code file keeps the file's tree (parsed off the
/// read's time), so the first edit's check reparses only what it changes; before, only a
/// read that built a map kept one and this one left the cache empty.
#[test]
fn a_window_read_keeps_the_tree_for_the_first_edit() {
    let ws = Workspace::new();
    ws.file("lib.rs", RUST);
    let read = ws.call::<ReadTool>(json!({"path": "lib.rs", "offset": 5, "limit": 3}));
    assert!(!read.is_error, "{}", read.text());
    let key = ws.session.resolve("lib.rs").expect("resolves").key;
    // (Other tests' parses share the parser thread: a parse still queued would be taken
    // back by the lookup, as an edit does; wait for it to end.)
    while ws.session.syntax_trees().parsing() > 0 {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    let tree = ws.session.syntax_trees().get(&key, hashline_syntax::LanguageId::Rust, RUST.as_bytes());
    assert!(tree.is_some_and(|t| t.census.is_clean()), "the read's tree is kept");
    // A file with no syntax checker is not parsed.
    ws.file("notes.txt", "plain\n");
    ws.call::<ReadTool>(json!({"path": "notes.txt"}));
    assert_eq!(ws.session.syntax_trees().len(), 1);
}

/// A session on `dir` whose commits call `hook` before the compare-and-rename.
fn hooked_session(
    dir: &std::path::Path,
    hook: impl Fn(&std::path::Path) -> std::io::Result<()> + Send + Sync + 'static,
) -> hashline_tools::Session {
    let hook = move |stage: hashline_fs::Stage, path: &std::path::Path| match stage {
        hashline_fs::Stage::BeforeCommit => hook(path),
        _ => Ok(()),
    };
    hashline_tools::Session::new(hashline_tools::SessionConfig::builder().root(dir).hook(hook).build())
        .expect("session")
}

/// When the write after a `warn` check that found new errors fails (here the file changed
/// on disk between the read and the commit), the call's error is the write's, not the
/// check's warning, and the file holds what the other program wrote.
#[test]
fn a_failed_write_after_a_warn_check_reports_the_write() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("lib.rs");
    std::fs::write(&file, RUST).expect("write");
    let outside = RUST.replace("    2\n", "    20\n");
    let racing = outside.clone();
    let session = hooked_session(dir.path(), move |path| std::fs::write(path, &racing));
    hashline_tools::execute::<ReadTool>(&session, json!({"path": "lib.rs"}), &Default::default());
    let breaking = json!([set_line(5, "fn beta() -> u32 {", "fn beta( -> u32 {")]);
    let result = hashline_tools::execute::<EditTool>(
        &session,
        json!({"path": "lib.rs", "edits": breaking}),
        &Default::default(),
    );
    assert_eq!(code(&result), "hash-mismatch", "{}", result.text());
    assert!(result.text().contains("changed on disk while this edit was being made"), "{}", result.text());
    assert!(!result.text().contains("syntax-regression"), "{}", result.text());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), outside);
}
