//! `edit` end to end: every rule and every error code, on a real file system, with the
//! file checked byte for byte after each refusal.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::{Workspace, code};
use hashline_core::LineHash;
use hashline_core::snapshot::SnapshotTag;
use hashline_fs::Stage;
use hashline_tools::edit::EditTool;
use hashline_tools::read::ReadTool;
use hashline_tools::{Session, SessionConfig, ToolResult};
use insta::assert_snapshot;
use serde_json::{Value, json};

fn anchor(line: u32, text: &str) -> String {
    format!("{line}:{}", LineHash::of(text.as_bytes()))
}

fn set_line(line: u32, old: &str, new: &str) -> Value {
    json!({"set_line": {"anchor": anchor(line, old), "new_text": new}})
}

impl Workspace {
    fn edit(&self, path: &str, edits: Value) -> ToolResult {
        self.call::<EditTool>(json!({"path": path, "edits": edits}))
    }

    fn read_file(&self, path: &str) -> ToolResult {
        self.call::<ReadTool>(json!({"path": path}))
    }

    fn bytes(&self, path: &str) -> Vec<u8> {
        std::fs::read(self.path(path)).expect("read")
    }
}

/// Refused, with the file byte-identical.
fn refused(ws: &Workspace, path: &str, result: &ToolResult, expected_code: &str, before: &[u8]) {
    assert_eq!(code(result), expected_code, "{}", result.text());
    assert!(
        result.text().contains("nothing was written") || result.text().contains("Nothing was written"),
        "{}",
        result.text()
    );
    assert_eq!(ws.bytes(path), before, "the file must be unchanged");
}

#[test]
fn read_then_edit_shows_the_change_with_fresh_anchors() {
    let ws = Workspace::new();
    ws.file("a.txt", "alpha\nbeta\ngamma\n");
    ws.read_file("a.txt");
    let result = ws.edit("a.txt", json!([set_line(2, "beta", "BETA")]));
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(ws.bytes("a.txt"), b"alpha\nBETA\ngamma\n");
    assert_snapshot!(result.text(), @r#"
    Edited a.txt (1 change, +1 -1 line)
    snapshot: sska4m3yn

    Anchors of the added lines: 2:a21

    Change c1-da19 (undo: edit {"revert": "c1-da19"})
    "#);
    let anchors: Vec<&str> = result.ptc_value()["anchors"]
        .as_array()
        .expect("anchors")
        .iter()
        .filter_map(|l| l["anchor"].as_str())
        .collect();
    assert_eq!(anchors, [anchor(1, "alpha"), anchor(2, "BETA"), anchor(3, "gamma")]);
    assert_eq!(result.ptc_value()["firstChangedLine"], 2);
    // The fresh anchors are usable at once.
    let next = ws.edit("a.txt", json!([set_line(2, "BETA", "beta again")]));
    assert!(!next.is_error, "{}", next.text());
}

/// The text names the added lines' anchors alone (not their content: the model wrote it);
/// the value's `diff` is the whole anchored diff (headers, context and removed rows) and its
/// `anchors` the changed region ±2 lines. A model that sees the text alone is served the
/// added rows; otherwise the fresh rows.
#[test]
fn the_text_names_the_added_anchors_and_serves_them_when_the_model_sees_it_alone() {
    for sees_text_only in [false, true] {
        let ws = Workspace::new();
        ws.file("a.txt", "one\ntwo\nthree\nfour\nfive\nsix\nseven\n");
        let read = ws.call::<ReadTool>(json!({"path": "a.txt", "offset": 4, "limit": 1}));
        assert!(!read.is_error, "{}", read.text());
        let ctx = hashline_tools::CallContext { sees_text_only, ..hashline_tools::CallContext::top_level() };
        let result = ws.call_in::<EditTool>(
            json!({"path": "a.txt", "edits": [{"set_line": {"anchor": anchor(4, "four"), "new_text": "FOUR\nmore"}}]}),
            &ctx,
        );
        assert!(!result.is_error, "{}", result.text());
        let id = result.ptc_value()["changeId"].as_str().expect("an id").to_owned();
        assert_eq!(
            result.text().replace(&id, "<id>"),
            format!(
                "Edited a.txt (1 change, +2 -1 lines)\nsnapshot: {}\n\nAnchors of the added lines: 4:{} 5:{}\n\nChange <id> (undo: edit {{\"revert\": \"<id>\"}})",
                SnapshotTag::of(&ws.bytes("a.txt")),
                LineHash::of(b"FOUR"),
                LineHash::of(b"more")
            )
        );
        let diff = result.ptc_value()["diff"].as_str().expect("diff").to_owned();
        assert!(diff.starts_with("@@ -2,5 +2,6 @@\n"), "{diff}");
        assert!(diff.contains(&format!("\n-{}|four\n", anchor(4, "four"))), "{diff}");
        assert!(diff.contains(&format!("\n {}|three\n", anchor(3, "three"))), "{diff}");
        let anchors = result.ptc_value()["anchors"].as_array().expect("anchors").len();
        assert_eq!(anchors, 6, "lines 2 to 7");
        let key = ws.session.resolve("a.txt").expect("resolve").key;
        let ledger = ws.session.ledger();
        let served = ledger.served(&key).expect("served");
        let at = |line: u32| served.hash_at(hashline_core::LineNo::new(line).expect("line")).is_some();
        assert!(at(4) && at(5), "the added rows are served");
        for line in [2, 3, 6, 7] {
            assert_eq!(at(line), !sees_text_only, "line {line}, sees_text_only {sees_text_only}");
        }
    }
}

/// An edit that only removes lines names no anchors (the summary counts them); one that
/// adds more than 400 lines names the first 400 with the note; the value's `diff` is as
/// before.
#[test]
fn a_removal_names_no_anchors_and_many_added_anchors_are_cut_with_a_note() {
    let ws = Workspace::new();
    ws.file("a.txt", "alpha\nbeta\ngamma\n");
    ws.read_file("a.txt");
    let removed = ws.edit(
        "a.txt",
        json!([{"replace_lines": {"start_anchor": anchor(2, "beta"), "end_anchor": anchor(2, "beta"), "new_text": ""}}]),
    );
    assert!(!removed.is_error, "{}", removed.text());
    assert_eq!(ws.bytes("a.txt"), b"alpha\ngamma\n");
    let id = removed.ptc_value()["changeId"].as_str().expect("an id").to_owned();
    assert_eq!(
        removed.text().replace(&id, "<id>"),
        format!(
            "Edited a.txt (1 change, +0 -1 line)\nsnapshot: {}\n\nChange <id> (undo: edit {{\"revert\": \"<id>\"}})",
            SnapshotTag::of(b"alpha\ngamma\n")
        )
    );
    assert_eq!(
        removed.ptc_value()["diff"],
        format!("@@ -1,3 +1,2 @@\n {}|alpha\n-2:589|beta\n {}|gamma", anchor(1, "alpha"), anchor(2, "gamma"))
    );

    let many: String = (0..500).map(|n| format!("line {n}\n")).collect();
    let added = ws.edit("a.txt", json!([{"insert_after": {"anchor": anchor(1, "alpha"), "new_text": many}}]));
    assert!(!added.is_error, "{}", added.text());
    let text = added.text();
    assert!(!text.contains('|'), "no row content: {text}");
    let named = text.lines().find_map(|l| l.strip_prefix("Anchors of the added lines: ")).expect("anchors");
    let anchors: Vec<&str> = named.split(' ').collect();
    assert_eq!(anchors.len(), 400);
    assert_eq!(anchors[0], anchor(2, "line 0"));
    assert_eq!(anchors[399], anchor(401, "line 399"));
    assert!(text.contains("\n[Anchors cut at 400 lines; read the file for the rest.]\n\nChange "), "{text}");
    // The value's diff: the header, a context row, then the added rows up to 400 rows.
    let diff = added.ptc_value()["diff"].as_str().expect("diff").to_owned();
    assert!(diff.starts_with(&format!("@@ -1,2 +1,502 @@\n {}|alpha\n+2:", anchor(1, "alpha"))), "{diff}");
    assert_eq!(diff.lines().filter(|l| l.contains('|')).count(), 400);
}

#[test]
fn the_read_gate_refuses_unread_files_then_lets_the_edit_through() {
    let ws = Workspace::new();
    ws.file("settings.txt", "color: blue\n");
    let before = ws.bytes("settings.txt");
    let result = ws.edit("settings.txt", json!([set_line(1, "color: blue", "color: green")]));
    refused(&ws, "settings.txt", &result, "file-not-read", &before);
    assert_snapshot!(ws.redact(&result.text()), @r#"Edit rejected — nothing was written. You must get fresh anchors for {{cwd}}/settings.txt before editing it. Call read("settings.txt") first, or use grep, ast_search, or write to produce fresh anchors for this file. edit requires fresh LINE:HASH anchors from read, grep, ast_search, or write so the hashes match the current file contents."#);
    ws.read_file("settings.txt");
    let retried = ws.edit("settings.txt", json!([set_line(1, "color: blue", "color: green")]));
    assert!(!retried.is_error, "{}", retried.text());
    let meta = retried.meta.expect("top-level edit has meta");
    assert_eq!(meta["diffs"][0]["newText"], "color: green");
}

#[test]
fn a_unique_replace_needs_no_read() {
    let ws = Workspace::new();
    ws.file("r.txt", "one two three\n");
    let result = ws.edit("r.txt", json!([{"replace": {"old_text": "two", "new_text": "2"}}]));
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(ws.bytes("r.txt"), b"one 2 three\n");
    // Issue 21 item 6: the result says the replace verified no view (9b00c33 said nothing).
    assert_eq!(result.ptc_value()["warnings"][0]["code"], "replace-unverified");
    assert_snapshot!(ws.redact(&result.text()), @r#"
    Edited r.txt (1 change, +1 -1 line)
    snapshot: sv9jjk7ap
    [info: edits[0] used replace: matched by text, not by an anchor, so it did not check that the file still reads as you last saw it. For safer edits, prefer set_line/replace_lines with anchors from read/grep/ast_search.]

    Anchors of the added lines: 1:909

    Change c1-bf10 (undo: edit {"revert": "c1-bf10"})
    "#);
}

#[test]
fn stale_anchor_is_refused_with_rows_and_the_retry_needs_no_read() {
    let ws = Workspace::new();
    ws.file("g.txt", "hello\nworld\n");
    ws.read_file("g.txt");
    ws.file("g.txt", "hello\nWORLD\n");
    let before = ws.bytes("g.txt");
    let result = ws.edit("g.txt", json!([set_line(2, "world", "planet")]));
    refused(&ws, "g.txt", &result, "hash-mismatch", &before);
    assert_snapshot!(result.text(), @"
    Edit rejected — nothing was written. The anchor hash did not match the current file content.
    1 anchor does not match its line: the file changed since it was read, or the hash was copied wrong. Auto-relocation checks only within ±20 lines of each anchor. Use the updated LINE:HASH references shown below (>>> marks changed lines).

        1:7f9|hello
    >>> 2:ef6|WORLD
    ");
    let value = result.ptc_value();
    let updated = value["error"]["details"]["updatedAnchors"]
        .as_array()
        .and_then(|rows| rows.iter().find(|r| r["line"] == 2))
        .expect("the marked row");
    assert_eq!(updated["anchor"], anchor(2, "WORLD"));
    // Issue 21 item 5: the value names the targets (the rows marked >>>), the anchor as sent
    // and its line's fresh one — `updatedAnchors` holds context rows too (no targets on 9b00c33).
    assert_eq!(
        value["error"]["details"]["targets"],
        json!([{"edit": 0, "sent": anchor(2, "world"), "anchor": anchor(2, "WORLD")}])
    );
    let retry = ws.edit("g.txt", json!([{"set_line": {"anchor": updated["anchor"], "new_text": "planet"}}]));
    assert!(!retry.is_error, "{}", retry.text());
    assert_eq!(ws.bytes("g.txt"), b"hello\nplanet\n");
}

#[test]
fn a_shifted_line_is_relocated_with_a_note() {
    let ws = Workspace::new();
    ws.file("s.txt", "a\nb\nc\n");
    ws.read_file("s.txt");
    ws.file("s.txt", "new top\na\nb\nc\n");
    let result = ws.edit("s.txt", json!([set_line(2, "b", "B")]));
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(ws.bytes("s.txt"), b"new top\na\nB\nc\n");
    assert_eq!(result.ptc_value()["warnings"][0]["code"], "anchor-relocated");
    assert!(result.text().contains(&format!("Auto-relocated anchor {} -> 3:", anchor(2, "b"))), "{}", result.text());
}

#[test]
fn the_served_lines_guard_refuses_overwriting_a_line_changed_on_disk() {
    let ws = Workspace::new();
    ws.file("v.txt", "1\n2\n3\n4\n5\n");
    ws.read_file("v.txt");
    ws.file("v.txt", "1\n2\nTHREE\n4\n5\n");
    let before = ws.bytes("v.txt");
    let range =
        json!([{"replace_lines": {"start_anchor": anchor(2, "2"), "end_anchor": anchor(4, "4"), "new_text": "x"}}]);
    let result = ws.edit("v.txt", range.clone());
    refused(&ws, "v.txt", &result, "hash-mismatch", &before);
    assert_snapshot!(result.text(), @"
    Edit rejected — nothing was written. 1 line this edit would overwrite changed on disk since you last saw it (>>> marks changed lines):

        2:334|2
    >>> 3:3c7|THREE
        4:f36|4

    Decide against the current content above and re-issue the edit with these LINE:HASH anchors; no re-read is needed.
    ");
    // The target, as it was shown and as it reads now (issue 21 item 5).
    assert_eq!(
        result.ptc_value()["error"]["details"]["targets"],
        json!([{"sent": anchor(3, "3"), "anchor": anchor(3, "THREE")}])
    );
    // The refusal showed the line: now it counts as seen.
    let retry = ws.edit("v.txt", range);
    assert!(!retry.is_error, "{}", retry.text());
    assert_eq!(ws.bytes("v.txt"), b"1\nx\n5\n");

    let other = Workspace::new();
    other.file("r.txt", "1\n2\n3\n");
    other.read_file("r.txt");
    other.file("r.txt", "1\nTWO\n3\n");
    let replace = other.edit("r.txt", json!([{"replace": {"old_text": "TWO", "new_text": "2"}}]));
    assert_eq!(code(&replace), "hash-mismatch", "a replace over an unseen change is refused too");
    assert_eq!(other.bytes("r.txt"), b"1\nTWO\n3\n");
}

#[test]
fn error_codes_leave_the_file_alone() {
    let ws = Workspace::new();
    ws.file("e.txt", "x\ny\nx\n");
    ws.read_file("e.txt");
    let before = ws.bytes("e.txt");
    let cases: Vec<(Value, &str)> = vec![
        (
            json!([set_line(1, "x", "1"), {"replace_lines": {"start_anchor": anchor(1, "x"), "end_anchor": anchor(2, "y"), "new_text": "z"}}]),
            "overlapping-edit",
        ),
        (json!([{"replace": {"old_text": "x", "new_text": "z"}}]), "ambiguous-match"),
        (json!([{"replace": {"old_text": "nope", "new_text": "z"}}]), "text-not-found"),
        (json!([{"set_line": {"anchor": "L1", "new_text": "z"}}]), "invalid-anchor"),
        (json!([set_line(9, "nothing", "z")]), "line-out-of-range"),
        (json!([]), "invalid-edit-variant"),
        (json!([{}]), "invalid-edit-variant"),
        (
            json!([{"set_line": {"anchor": anchor(1, "x"), "new_text": "a"}, "insert_after": {"anchor": anchor(1, "x"), "new_text": "b"}}]),
            "invalid-edit-variant",
        ),
        (json!([{"old_text": "x", "new_text": "y"}]), "invalid-edit-variant"),
        (json!([{"replace": {"old_text": "", "new_text": "y"}}]), "invalid-edit-variant"),
        (json!([{"set_line": {"anchor": null, "new_text": "y"}}]), "invalid-edit-variant"),
        (json!([{"set_line": {"anchor": anchor(1, "x")}}]), "invalid-edit-variant"),
        (json!("not json"), "invalid-edit-variant"),
        (json!([{"replace_symbol": {"symbol": "main", "new_body": "fn main() {}"}}]), "unsupported-language"),
    ];
    for (edits, expected) in cases {
        let result = ws.edit("e.txt", edits.clone());
        assert_eq!(code(&result), expected, "{edits}: {}", result.text());
        assert_eq!(ws.bytes("e.txt"), before, "{edits}");
    }
    let both = ws.call::<EditTool>(json!({"path": "e.txt", "edits": [], "files": [{"path": "e.txt", "edits": []}]}));
    assert_eq!(code(&both), "invalid-params-combo");
    assert_eq!(code(&ws.edit("missing.txt", json!([set_line(1, "x", "y")]))), "file-not-found");
    ws.file("bin.dat", b"\x00\x01binary");
    assert_eq!(
        code(&ws.edit("bin.dat", json!([{"replace": {"old_text": "binary", "new_text": "text"}}]))),
        "binary-file"
    );
    assert_eq!(ws.bytes("bin.dat"), b"\x00\x01binary");
}

#[test]
fn refusal_texts_are_pinned() {
    let ws = Workspace::new();
    ws.file("t.txt", "x\ny\nx\n");
    ws.read_file("t.txt");
    let overlap = ws.edit("t.txt", json!([set_line(1, "x", "1"), {"replace_lines": {"start_anchor": anchor(1, "x"), "end_anchor": anchor(2, "y"), "new_text": "z"}}]));
    assert_snapshot!("overlapping_edit", overlap.text());
    let ambiguous = ws.edit("t.txt", json!([{"replace": {"old_text": "x", "new_text": "z"}}]));
    assert_snapshot!("ambiguous_match", ambiguous.text());
    let shape = ws.edit("t.txt", json!([{"old_text": "x", "new_text": "y"}]));
    assert_snapshot!("top_level_old_text", shape.text());
    let two = ws.edit("t.txt", json!([{"set_line": {"anchor": anchor(1, "x"), "new_text": "a"}, "replace": {"old_text": "y", "new_text": "b"}}]));
    assert_snapshot!("two_keys", two.text());
}

#[test]
fn noop_succeeds_without_writing() {
    let ws = Workspace::new();
    let path = ws.file("n.txt", "same\n");
    ws.read_file("n.txt");
    let old_time = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
    std::fs::File::options().write(true).open(&path).expect("open").set_modified(old_time).expect("mtime");
    let result = ws.edit("n.txt", json!([set_line(1, "same", "same")]));
    assert!(!result.is_error);
    assert_eq!(result.ptc_value()["noop"], true);
    assert_eq!(result.ptc_value()["noopEdits"], json!([0]));
    assert_snapshot!(result.text(), @"
    No changes made to n.txt: the file already has this content. Nothing was written.
    snapshot: skexs7034
    ");
    assert_eq!(std::fs::metadata(&path).expect("meta").modified().expect("mtime"), old_time);
}

#[test]
fn crlf_bom_and_mixed_endings_are_kept() {
    let ws = Workspace::new();
    ws.file("w.txt", b"\xEF\xBB\xBFone\r\ntwo\nthree\r\n");
    ws.read_file("w.txt");
    let result = ws.edit(
        "w.txt",
        json!([set_line(2, "two", "TWO\nTWO-B"), {"insert_after": {"anchor": anchor(3, "three"), "new_text": "four"}}]),
    );
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(ws.bytes("w.txt"), b"\xEF\xBB\xBFone\r\nTWO\nTWO-B\nthree\r\nfour\r\n");
    assert_snapshot!("crlf_bom_patch", result.ptc_value()["patch"].as_str().unwrap_or_default());
}

#[test]
fn legacy_input_and_json_string_edits() {
    let ws = Workspace::new();
    ws.file("l.txt", "old value\n");
    let legacy = ws.call::<EditTool>(json!({"path": "l.txt", "oldText": "old", "newText": "new"}));
    assert!(!legacy.is_error, "{}", legacy.text());
    assert!(legacy.text().starts_with("Legacy top-level oldText/newText input was normalized"), "{}", legacy.text());
    assert_eq!(legacy.ptc_value()["warnings"][0]["code"], "legacy-input");
    let partial = ws.call::<EditTool>(json!({"path": "l.txt", "oldText": "new"}));
    assert_eq!(code(&partial), "invalid-edit-variant");
    ws.read_file("l.txt");
    let as_string = ws.edit("l.txt", json!(json!([set_line(1, "new value", "third")]).to_string()));
    assert!(!as_string.is_error, "{}", as_string.text());
    assert_eq!(ws.bytes("l.txt"), b"third\n");
}

#[test]
fn echoed_anchors_are_stripped_with_a_warning_unless_literal() {
    let ws = Workspace::new();
    ws.file("p.txt", "alpha\nbeta\n");
    ws.read_file("p.txt");
    let echoed = format!("{}|BETA", anchor(2, "beta"));
    let result = ws.edit("p.txt", json!([set_line(2, "beta", &echoed)]));
    assert_eq!(ws.bytes("p.txt"), b"alpha\nBETA\n");
    assert_eq!(result.ptc_value()["warnings"][0]["code"], "edit-warning");
    let look_alike = ws.edit("p.txt", json!([set_line(2, "BETA", "12:30|meeting")]));
    assert!(!look_alike.is_error);
    assert_eq!(ws.bytes("p.txt"), b"alpha\n12:30|meeting\n");
}

#[test]
fn cross_file_move_takes_lines_from_the_other_file() {
    let ws = Workspace::new();
    ws.file("from.txt", "keep\nmove me\n");
    ws.file("to.txt", "target\n");
    ws.read_file("from.txt");
    ws.read_file("to.txt");
    let result = ws.edit(
        "to.txt",
        json!([{"move_lines": {"start_anchor": anchor(2, "move me"), "end_anchor": anchor(2, "move me"), "after_anchor": anchor(1, "target"), "from_path": "from.txt"}}]),
    );
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(ws.bytes("to.txt"), b"target\nmove me\n");
    assert_eq!(ws.bytes("from.txt"), b"keep\n");
}

#[test]
fn multi_file_edit_validates_everything_before_writing_anything() {
    let ws = Workspace::new();
    ws.file("one.txt", "1\n");
    ws.file("two.txt", "2\n");
    ws.read_file("one.txt");
    ws.read_file("two.txt");
    let bad = ws.call::<EditTool>(json!({"files": [
        {"path": "one.txt", "edits": [set_line(1, "1", "one")]},
        {"path": "two.txt", "edits": [set_line(1, "stale", "two")]},
    ]}));
    assert_eq!(code(&bad), "hash-mismatch");
    assert!(bad.text().starts_with("files[1] (two.txt): Edit rejected"), "{}", bad.text());
    assert_eq!((ws.bytes("one.txt"), ws.bytes("two.txt")), (b"1\n".to_vec(), b"2\n".to_vec()));
    let good = ws.call::<EditTool>(json!({"files": [
        {"path": "one.txt", "edits": [set_line(1, "1", "one")]},
        {"path": "two.txt", "edits": [set_line(1, "2", "two")]},
    ]}));
    assert!(!good.is_error, "{}", good.text());
    assert_eq!((ws.bytes("one.txt"), ws.bytes("two.txt")), (b"one\n".to_vec(), b"two\n".to_vec()));
    assert_eq!(good.ptc_value()["files"].as_array().map(Vec::len), Some(2));
    assert_eq!(good.meta.expect("meta")["diffs"].as_array().map(Vec::len), Some(2));
}

/// A session whose writer fails on the `fail_at`-th write (1-based) and writes normally otherwise.
fn failing_session(dir: &std::path::Path, fail_at: usize) -> Session {
    let count = Arc::new(AtomicUsize::new(0));
    let hook = move |stage: Stage, _: &std::path::Path| {
        if stage == Stage::BeforeCommit && count.fetch_add(1, Ordering::SeqCst) + 1 == fail_at {
            return Err(std::io::Error::other("simulated disk failure"));
        }
        Ok(())
    };
    Session::new(SessionConfig::builder().root(dir).hook(hook).build()).expect("session")
}

#[test]
fn a_failed_second_write_restores_the_first_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("one.txt"), "1\n").expect("write");
    std::fs::write(dir.path().join("two.txt"), "2\n").expect("write");
    let session = failing_session(dir.path(), 2);
    for file in ["one.txt", "two.txt"] {
        hashline_tools::execute::<ReadTool>(&session, json!({"path": file}), &Default::default());
    }
    let result = hashline_tools::execute::<EditTool>(
        &session,
        json!({"files": [
            {"path": "one.txt", "edits": [set_line(1, "1", "one")]},
            {"path": "two.txt", "edits": [set_line(1, "2", "two")]},
        ]}),
        &Default::default(),
    );
    assert_eq!(code(&result), "fs-error");
    assert!(result.text().ends_with("Nothing was written to any file."), "{}", result.text());
    assert_eq!(std::fs::read(dir.path().join("one.txt")).expect("read"), b"1\n");
    assert_eq!(std::fs::read(dir.path().join("two.txt")).expect("read"), b"2\n");
}

#[test]
fn post_edit_verification_catches_a_bad_write() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("v.txt"), "a\n").expect("write");
    let corrupting = |stage: Stage, path: &std::path::Path| {
        if stage == Stage::AfterCommit {
            let bytes = std::fs::read(path)?;
            std::fs::write(path, &bytes[..bytes.len() - 1])?;
        }
        Ok(())
    };
    let session = Session::new(SessionConfig::builder().root(dir.path()).hook(corrupting).build()).expect("session");
    hashline_tools::execute::<ReadTool>(&session, json!({"path": "v.txt"}), &Default::default());
    let args = json!({"path": "v.txt", "edits": [set_line(1, "a", "b")], "postEditVerify": true});
    let result = hashline_tools::execute::<EditTool>(&session, args, &Default::default());
    assert_eq!(code(&result), "post-edit-verification-mismatch");
    assert_eq!(result.ptc_value()["error"]["details"], json!({"expectedLength": 2, "actualLength": 1}));

    std::fs::write(dir.path().join("w.txt"), "a\n").expect("write");
    let vanishing = |stage: Stage, path: &std::path::Path| {
        if stage == Stage::AfterCommit {
            std::fs::remove_file(path)?;
        }
        Ok(())
    };
    let session = Session::new(SessionConfig::builder().root(dir.path()).hook(vanishing).build()).expect("session");
    hashline_tools::execute::<ReadTool>(&session, json!({"path": "w.txt"}), &Default::default());
    let args = json!({"path": "w.txt", "edits": [set_line(1, "a", "b")], "postEditVerify": true});
    let result = hashline_tools::execute::<EditTool>(&session, args, &Default::default());
    assert_eq!(code(&result), "post-edit-verification-read-failed");
}

#[test]
fn duplicate_targets_warn_and_the_last_wins() {
    let ws = Workspace::new();
    ws.file("d.txt", "a\nb\n");
    ws.read_file("d.txt");
    let result = ws.edit("d.txt", json!([set_line(1, "a", "x"), set_line(1, "a", "y")]));
    assert_eq!(ws.bytes("d.txt"), b"y\nb\n");
    assert!(result.text().contains("only the last will apply"), "{}", result.text());
}

#[test]
fn stateless_sessions_check_hashes_but_need_no_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("s.txt"), "a\n").expect("write");
    let session = Session::new(SessionConfig::builder().root(dir.path()).stateful(false).build()).expect("session");
    let ok = hashline_tools::execute::<EditTool>(
        &session,
        json!({"path": "s.txt", "edits": [set_line(1, "a", "b")]}),
        &Default::default(),
    );
    assert!(!ok.is_error, "{}", ok.text());
    let stale = hashline_tools::execute::<EditTool>(
        &session,
        json!({"path": "s.txt", "edits": [set_line(1, "a", "c")]}),
        &Default::default(),
    );
    assert_eq!(code(&stale), "hash-mismatch");
}

#[test]
fn anchors_from_before_an_edit_follow_their_lines_or_are_refused_when_ambiguous() {
    let ws = Workspace::new();
    let body: String =
        (1..=40).map(|i| if i == 12 || i == 35 { "dup\n".to_owned() } else { format!("line {i}\n") }).collect();
    ws.file("far.txt", &body);
    ws.read_file("far.txt");
    let top: String = (1..=25).map(|i| format!("new {i}\n")).collect();
    let first = ws.edit("far.txt", json!([{"replace_lines": {"start_anchor": anchor(1, "line 1"), "end_anchor": anchor(1, "line 1"), "new_text": format!("{top}line 1")}}]));
    assert!(!first.is_error, "{}", first.text());
    // Old line 35 is now line 60; line 37 (old 12) has the same hash: the session knows which is meant.
    let second = ws.edit("far.txt", json!([set_line(35, "dup", "DUP")]));
    assert!(!second.is_error, "{}", second.text());
    assert!(second.text().contains(&format!("Re-aimed anchor {} -> 60:", anchor(35, "dup"))), "{}", second.text());
    let text = String::from_utf8(ws.bytes("far.txt")).expect("utf8");
    assert_eq!(text.lines().nth(59), Some("DUP"));
    assert_eq!(text.lines().nth(36), Some("dup"));

    ws.file("close.txt", "h\n}\n}\nz\n");
    ws.read_file("close.txt");
    ws.edit("close.txt", json!([set_line(1, "h", "new\nh")]));
    let before = ws.bytes("close.txt");
    // `3:}` was line 3 of the first read (now line 4) and line 3 of the edit's result.
    let ambiguous = ws.edit("close.txt", json!([set_line(3, "}", "Z}")]));
    refused(&ws, "close.txt", &ambiguous, "hash-mismatch", &before);
    assert!(ambiguous.text().contains(&format!(">>> 3:{}", LineHash::of(b"}"))), "{}", ambiguous.text());
    assert!(ambiguous.text().contains(&format!(">>> 4:{}", LineHash::of(b"}"))), "{}", ambiguous.text());
}

#[test]
fn the_ambiguous_refusal_says_why() {
    let ws = Workspace::new();
    ws.file("close.txt", "h\n}\n}\nz\n");
    ws.read_file("close.txt");
    ws.edit("close.txt", json!([set_line(1, "h", "new\nh")]));
    let ambiguous = ws.edit("close.txt", json!([set_line(3, "}", "Z}")]));
    assert_snapshot!(ambiguous.text(), @"
    Edit rejected — nothing was written. Anchor 3:b18 of edits[0] is ambiguous: lines moved since it was shown, and lines 3 and 4 could each be the line it names. Use the current LINE:HASH reference of the line you mean, shown below (>>> marks the candidates); where that is the anchor you sent, read the file again first.

        1:bdc|new
        2:f1b|h
    >>> 3:b18|}
    >>> 4:b18|}
        5:6ce|z
    ");
}

#[test]
fn a_stale_from_path_range_is_refused_without_the_target_s_rows() {
    let ws = Workspace::new();
    ws.file("from.txt", "keep\nmove me\n");
    ws.file("to.txt", "target\n");
    ws.read_file("from.txt");
    ws.read_file("to.txt");
    ws.file("from.txt", "keep\nMOVED ALREADY\n");
    let before = (ws.bytes("from.txt"), ws.bytes("to.txt"));
    let result = ws.edit(
        "to.txt",
        json!([{"move_lines": {"start_anchor": anchor(2, "move me"), "end_anchor": anchor(2, "move me"), "after_anchor": anchor(1, "target"), "from_path": "from.txt"}}]),
    );
    assert_eq!(code(&result), "hash-mismatch");
    assert!(result.text().contains("In the from_path file:"), "{}", result.text());
    assert!(result.ptc_value()["error"].get("details").is_none(), "no rows of to.txt are passed off as fresh");
    assert_eq!((ws.bytes("from.txt"), ws.bytes("to.txt")), before);
}

/// Issue 48 H7: an edit's planning was quadratic in its items (100k `set_line` items took
/// 11 s) and had no bound. It is linear now (the `edit` benchmark's 10,000-item batch beside
/// the 1,000-item one), and one call takes at most `MAX_EDIT_ITEMS` items: past it the call is
/// refused with `too-many-edits`, nothing written. At the bound every item applies.
#[test]
fn an_edit_takes_at_most_max_edit_items_and_every_one_applies_at_the_bound() {
    use hashline_tools::edit::MAX_EDIT_ITEMS;
    let ws = Workspace::new();
    let lines: Vec<String> = (0..=MAX_EDIT_ITEMS).map(|i| format!("line {i}")).collect();
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    ws.file("big.txt", &text);
    let items: Vec<Value> =
        lines.iter().enumerate().map(|(i, l)| set_line(i as u32 + 1, l, &format!("{l}!"))).collect();
    for offset in (1..=MAX_EDIT_ITEMS + 1).step_by(1000) {
        ws.call::<ReadTool>(json!({"path": "big.txt", "offset": offset, "limit": 1000}));
    }
    let result = ws.edit("big.txt", Value::from(items.clone()));
    refused(&ws, "big.txt", &result, "too-many-edits", text.as_bytes());
    assert_eq!(
        result.text(),
        format!(
            "Edit rejected — nothing was written. edits has {} items; one call takes at most {MAX_EDIT_ITEMS}.\nSplit the change into several edit calls, or use write to replace the file whole.",
            MAX_EDIT_ITEMS + 1
        )
    );
    let result = ws.edit("big.txt", Value::from(items[..MAX_EDIT_ITEMS].to_vec()));
    assert!(!result.is_error, "{}", result.text());
    let expected: String = lines
        .iter()
        .enumerate()
        .map(|(i, l)| if i < MAX_EDIT_ITEMS { format!("{l}!\n") } else { format!("{l}\n") })
        .collect();
    assert_eq!(ws.bytes("big.txt"), expected.as_bytes());
}
