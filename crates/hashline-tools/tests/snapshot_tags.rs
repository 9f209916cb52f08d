//! Snapshot tags end to end (issue 49, docs/protocol.md §1.5): every result that shows rows
//! names the snapshot they came from; `edit` with `snapshot` follows each anchor from that
//! snapshot to the file now, exactly; a line that changed is refused with fresh rows and the
//! file's tag now; a tag the store does not hold falls back with a warning.

mod common;

use std::sync::{Arc, Mutex};

use common::{Workspace, code};
use hashline_core::LineHash;
use hashline_core::snapshot::{SnapshotTag, StoreLimits};
use hashline_tools::edit::EditTool;
use hashline_tools::read::ReadTool;
use hashline_tools::snapshot_store::DiskSnapshots;
use hashline_tools::snapshots::{MemorySnapshots, Snapshots};
use hashline_tools::{Session, SessionConfig, ToolResult};
use serde_json::{Value, json};

const BLOCKS: &str = "f() {\n}\n\ng() {\n}\n\nh() {\n}\n\ni() {\n}\n";

fn anchor(line: u32, text: &str) -> String {
    format!("{line}:{}", LineHash::of(text.as_bytes()))
}

/// The tag a result's text names (`snapshot: s…`, the first such line).
fn tag_of(result: &ToolResult) -> String {
    let text = result.text();
    let line = text.lines().find_map(|l| l.strip_prefix("snapshot: ")).unwrap_or_else(|| panic!("no tag in {text}"));
    line.to_owned()
}

fn ptc(result: &ToolResult) -> Value {
    serde_json::to_value(result).expect("json")["details"]["ptcValue"].clone()
}

fn edit(ws: &Workspace, path: &str, snapshot: Option<&str>, edits: Value) -> ToolResult {
    let mut args = json!({"path": path, "edits": edits});
    if let Some(tag) = snapshot {
        args["snapshot"] = json!(tag);
    }
    ws.call::<EditTool>(args)
}

fn read(ws: &Workspace, path: &str) -> ToolResult {
    ws.call::<ReadTool>(json!({"path": path}))
}

/// The tag a library `read` of `path` in `session` names.
fn read_tag(session: &Session, path: &str) -> String {
    let shown = hashline_tools::read::read(session, hashline_tools::read::ReadArgs::builder().path(path).build())
        .expect("read");
    let hashline_tools::read::ReadValue::Text(text) = &shown.value else { panic!("not a text read") };
    text.snapshot.clone().expect("a tag")
}

/// A library `edit` of `path` in `session` citing `tag`.
fn edit_citing(
    session: &Session,
    path: &str,
    tag: &str,
    edits: Value,
) -> Result<hashline_tools::ToolOutput<hashline_tools::edit::EditValue>, hashline_tools::ToolError> {
    let args = hashline_tools::edit::EditArgs::builder().path(path).snapshot(tag).edits(edits).build();
    hashline_tools::edit::edit(session, args)
}

fn bytes(ws: &Workspace, path: &str) -> String {
    String::from_utf8(std::fs::read(ws.path(path)).expect("read")).expect("utf-8")
}

#[test]
fn a_read_names_the_snapshot_of_the_bytes_it_showed_once_first_in_its_text_and_in_its_value() {
    let ws = Workspace::new();
    ws.file("a.txt", "alpha\nbeta\n");
    let result = read(&ws, "a.txt");
    let tag = SnapshotTag::of(b"alpha\nbeta\n").to_string();
    assert_eq!(result.text(), format!("snapshot: {tag}\n1:3c8|alpha\n2:589|beta"));
    assert_eq!(ptc(&result)["snapshot"], json!(tag));
    // A window names the whole file's snapshot.
    let window = ws.call::<ReadTool>(json!({"path": "a.txt", "offset": 2}));
    assert_eq!(tag_of(&window), tag);
}

/// The blank-line case: after an insert, the first read's `6:d05` names a line now
/// at 9 while a new blank line sits at 6. Cited with the first read's tag it lands on the line
/// meant, with no refusal; without a tag it is refused as ambiguous.
#[test]
fn an_anchor_cited_with_its_snapshot_lands_on_the_line_meant_after_an_insert() {
    let ws = Workspace::new();
    ws.file("b.c", BLOCKS);
    let first = tag_of(&read(&ws, "b.c"));
    let inserted = edit(
        &ws,
        "b.c",
        Some(&first),
        json!([{"insert_after": {"anchor": anchor(3, ""), "new_text": "x() {\n}\n\n"}}]),
    );
    assert!(!inserted.is_error, "{}", inserted.text());
    assert_eq!(bytes(&ws, "b.c"), "f() {\n}\n\nx() {\n}\n\ng() {\n}\n\nh() {\n}\n\ni() {\n}\n");
    // Uncited, the first read's 6:d05 has two live meanings now (refused, as today).
    let uncited =
        edit(&ws, "b.c", None, json!([{"set_line": {"anchor": anchor(6, ""), "new_text": "// between g and h"}}]));
    assert!(uncited.is_error, "{}", uncited.text());
    // Cited with the first read's tag: the line meant (now 9), at once.
    let cited = edit(
        &ws,
        "b.c",
        Some(&first),
        json!([{"set_line": {"anchor": anchor(6, ""), "new_text": "// between g and h"}}]),
    );
    assert!(!cited.is_error, "{}", cited.text());
    assert_eq!(bytes(&ws, "b.c"), "f() {\n}\n\nx() {\n}\n\ng() {\n}\n// between g and h\nh() {\n}\n\ni() {\n}\n");
    assert!(!cited.text().contains("relocated"), "{}", cited.text());
}

/// Another program moves every line far past any window: a cited anchor still lands.
#[test]
fn a_cited_anchor_follows_its_line_however_far_another_program_moved_it() {
    let ws = Workspace::new();
    ws.file("far.txt", "keep\ntarget\nend\n");
    let tag = tag_of(&read(&ws, "far.txt"));
    let header: String = (0..500).map(|i| format!("header {i}\n")).collect();
    ws.file("far.txt", format!("{header}keep\ntarget\nend\n"));
    let result =
        edit(&ws, "far.txt", Some(&tag), json!([{"set_line": {"anchor": anchor(2, "target"), "new_text": "TARGET"}}]));
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(bytes(&ws, "far.txt"), format!("{header}keep\nTARGET\nend\n"));
    // The result names the new snapshot, in its text and its value.
    let new_tag = SnapshotTag::of(format!("{header}keep\nTARGET\nend\n").as_bytes()).to_string();
    assert_eq!(tag_of(&result), new_tag);
    assert_eq!(ptc(&result)["snapshot"], json!(new_tag));
}

/// A line changed since the snapshot is refused with the rows now in its place and the tag
/// now; the retry with the refusal's anchor and tag lands in one call.
#[test]
fn a_changed_line_is_refused_with_fresh_rows_and_the_retry_with_them_lands() {
    let ws = Workspace::new();
    ws.file("c.txt", "one\ntwo\nthree\n");
    let tag = tag_of(&read(&ws, "c.txt"));
    ws.file("c.txt", "zero\none\nTWO\nthree\n");
    let before = bytes(&ws, "c.txt");
    let refused = edit(&ws, "c.txt", Some(&tag), json!([{"set_line": {"anchor": anchor(2, "two"), "new_text": "2"}}]));
    assert_eq!(code(&refused), "hash-mismatch", "{}", refused.text());
    assert_eq!(bytes(&ws, "c.txt"), before);
    let text = refused.text();
    assert!(text.contains("Edit rejected — nothing was written."), "{text}");
    assert!(text.contains(&format!(">>> 3:{}|TWO", LineHash::of(b"TWO"))), "{text}");
    let now = tag_of(&refused);
    assert_eq!(now, SnapshotTag::of(before.as_bytes()).to_string());
    let value = serde_json::to_value(&refused).expect("json");
    assert_eq!(value["details"]["ptcValue"]["error"]["details"]["snapshot"], json!(now), "{value}");
    let retry = edit(&ws, "c.txt", Some(&now), json!([{"set_line": {"anchor": anchor(3, "TWO"), "new_text": "2"}}]));
    assert!(!retry.is_error, "{}", retry.text());
    assert_eq!(bytes(&ws, "c.txt"), "zero\none\n2\nthree\n");
}

/// A deleted line, and a range with a line inserted inside it, are refused; nothing written.
#[test]
fn a_deleted_line_and_a_range_grown_inside_are_refused() {
    let ws = Workspace::new();
    ws.file("d.txt", "a\nb\nc\nd\n");
    let tag = tag_of(&read(&ws, "d.txt"));
    ws.file("d.txt", "a\nc\nunseen\nd\n");
    let before = bytes(&ws, "d.txt");
    let deleted = edit(&ws, "d.txt", Some(&tag), json!([{"set_line": {"anchor": anchor(2, "b"), "new_text": "B"}}]));
    assert_eq!(code(&deleted), "hash-mismatch", "{}", deleted.text());
    assert!(deleted.text().contains("deleted"), "{}", deleted.text());
    let range = edit(
        &ws,
        "d.txt",
        Some(&tag),
        json!([{"replace_lines": {"start_anchor": anchor(3, "c"), "end_anchor": anchor(4, "d"), "new_text": "C\nD"}}]),
    );
    assert_eq!(code(&range), "hash-mismatch", "{}", range.text());
    assert!(range.text().contains("changed inside"), "{}", range.text());
    assert_eq!(bytes(&ws, "d.txt"), before);
}

/// An anchor copied from another view than the tag's is refused, never aimed elsewhere.
#[test]
fn an_anchor_that_is_not_a_row_of_the_cited_snapshot_is_refused() {
    let ws = Workspace::new();
    ws.file("e.txt", "a\nb\nc\n");
    let tag = tag_of(&read(&ws, "e.txt"));
    let result = edit(&ws, "e.txt", Some(&tag), json!([{"set_line": {"anchor": anchor(2, "c"), "new_text": "x"}}]));
    assert_eq!(code(&result), "hash-mismatch", "{}", result.text());
    assert!(result.text().contains("is not a row of the snapshot it cites"), "{}", result.text());
    assert_eq!(bytes(&ws, "e.txt"), "a\nb\nc\n");
}

#[test]
fn a_malformed_tag_is_invalid_snapshot_and_an_unknown_one_falls_back_with_a_warning() {
    let ws = Workspace::new();
    ws.file("f.txt", "a\nb\n");
    read(&ws, "f.txt");
    let bad = edit(&ws, "f.txt", Some("12:abc"), json!([{"set_line": {"anchor": anchor(2, "b"), "new_text": "B"}}]));
    assert_eq!(code(&bad), "invalid-snapshot", "{}", bad.text());
    let unknown = SnapshotTag::of(b"never shown").to_string();
    let result = edit(&ws, "f.txt", Some(&unknown), json!([{"set_line": {"anchor": anchor(2, "b"), "new_text": "B"}}]));
    assert!(!result.is_error, "{}", result.text());
    assert!(result.text().contains(&format!("snapshot {unknown} could not be used")), "{}", result.text());
    assert_eq!(ptc(&result)["warnings"][0]["code"], json!("snapshot-fallback"));
    assert_eq!(bytes(&ws, "f.txt"), "a\nB\n");
}

/// A tag stands for the read gate: a new session of the same principal (its store shared;
/// MCP 2026-07-28 requests, CLI calls) edits by the tag with no read of its own.
#[test]
fn a_tag_shown_to_the_principal_serves_a_new_session_without_a_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("g.txt"), "a\nb\nc\n").expect("write");
    let store: Arc<dyn Snapshots> = Arc::new(MemorySnapshots::default());
    let session = |store: &Arc<dyn Snapshots>| {
        Session::new(SessionConfig::builder().root(dir.path()).snapshots(store.clone()).build()).expect("session")
    };
    let tag = read_tag(&session(&store), "g.txt");
    std::fs::write(dir.path().join("g.txt"), "new\na\nb\nc\n").expect("write");
    edit_citing(&session(&store), "g.txt", &tag, json!([{"set_line": {"anchor": anchor(2, "b"), "new_text": "B"}}]))
        .expect("edit");
    assert_eq!(std::fs::read_to_string(dir.path().join("g.txt")).expect("read"), "new\na\nB\nc\n");
    // Another principal's store does not hold the tag: the read gate stands.
    let stranger = session(&(Arc::new(MemorySnapshots::default()) as Arc<dyn Snapshots>));
    let refused =
        edit_citing(&stranger, "g.txt", &tag, json!([{"set_line": {"anchor": anchor(3, "B"), "new_text": "b"}}]))
            .expect_err("refused");
    assert_eq!(refused.code.as_str(), "file-not-read", "{}", refused.message);
}

/// The store on disk is untrusted: a snapshot file altered after it was written is not
/// used; the edit falls back to the uncited rules and says so.
#[test]
fn an_altered_snapshot_on_disk_is_not_used_and_the_edit_says_so() {
    let dir = tempfile::tempdir().expect("tempdir");
    let state = tempfile::tempdir().expect("state");
    std::fs::write(dir.path().join("h.txt"), "a\nb\nc\n").expect("write");
    let store_dir = state.path().join("snapshots");
    let store: Arc<dyn Snapshots> = Arc::new(Mutex::new(DiskSnapshots::new(&store_dir, StoreLimits::DEFAULT)));
    let session = Session::new(SessionConfig::builder().root(dir.path()).snapshots(store).build()).expect("session");
    let tag = read_tag(&session, "h.txt");
    // Planted: the snapshot now says line 2 was `c`.
    std::fs::write(store_dir.join(format!("{tag}.snap")), "a\nc\nb\n").expect("plant");
    let out = edit_citing(&session, "h.txt", &tag, json!([{"set_line": {"anchor": anchor(2, "b"), "new_text": "B"}}]))
        .expect("edit");
    assert_eq!(std::fs::read_to_string(dir.path().join("h.txt")).expect("read"), "a\nB\nc\n");
    let said: String = out
        .content
        .iter()
        .filter_map(|block| match block {
            hashline_view::ContentBlock::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert!(said.contains(&format!("snapshot {tag} could not be used: its stored copy was altered")), "{said}");
}

/// grep names each shown file's snapshot in its header and its value; an edit citing it
/// follows the match's line after another program moved it.
#[test]
fn grep_names_each_files_snapshot_and_an_edit_by_it_follows_the_line() {
    use hashline_tools::grep::GrepTool;
    let ws = Workspace::new();
    ws.file("src/a.rs", "fn a() {}\nfn needle() {}\n");
    ws.file("src/b.rs", "fn needle_too() {}\n");
    let found = ws.call::<GrepTool>(json!({"pattern": "needle", "path": "src"}));
    let text = found.text();
    let tag_a = SnapshotTag::of(b"fn a() {}\nfn needle() {}\n").to_string();
    assert!(text.contains(&format!("--- src/a.rs (1 matches; snapshot: {tag_a}) ---")), "{text}");
    let files = ptc(&found)["files"].clone();
    let a = files.as_array().and_then(|f| f.iter().find(|f| f["path"].as_str().is_some_and(|p| p.ends_with("a.rs"))));
    assert_eq!(a.map(|a| a["snapshot"].clone()), Some(json!(tag_a)), "{files}");
    ws.file("src/a.rs", "use x;\n\nfn a() {}\nfn needle() {}\n");
    let result = edit(
        &ws,
        "src/a.rs",
        Some(&tag_a),
        json!([{"set_line": {"anchor": anchor(2, "fn needle() {}"), "new_text": "fn found() {}"}}]),
    );
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(bytes(&ws, "src/a.rs"), "use x;\n\nfn a() {}\nfn found() {}\n");
}

/// write and ast_search name the snapshot of the rows they show, and an edit by it lands.
#[test]
fn write_and_ast_search_name_their_snapshots() {
    use hashline_tools::ast_search::AstSearchTool;
    use hashline_tools::write::WriteTool;
    let ws = Workspace::new();
    let written = ws.call::<WriteTool>(json!({"path": "w.rs", "content": "fn main() {\n    run();\n}\n"}));
    let tag = SnapshotTag::of(b"fn main() {\n    run();\n}\n").to_string();
    assert_eq!(tag_of(&written), tag);
    assert_eq!(ptc(&written)["snapshot"], json!(tag));
    let found = ws.call::<AstSearchTool>(json!({"pattern": "run()", "lang": "rust"}));
    assert!(found.text().contains(&format!("--- w.rs (snapshot: {tag}) ---")), "{}", found.text());
    assert_eq!(ptc(&found)["files"][0]["snapshot"], json!(tag));
    ws.file("w.rs", "// header\nfn main() {\n    run();\n}\n");
    let result = edit(
        &ws,
        "w.rs",
        Some(&tag),
        json!([{"set_line": {"anchor": anchor(2, "    run();"), "new_text": "    go();"}}]),
    );
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(bytes(&ws, "w.rs"), "// header\nfn main() {\n    go();\n}\n");
}

/// A symbol item names no anchor: citing a snapshot does not vouch for the lines it replaces,
/// so the served-lines guard still refuses to overwrite a body changed since it was shown.
#[test]
fn a_symbol_item_in_a_cited_call_is_still_guarded() {
    let ws = Workspace::new();
    ws.file("s.rs", "fn a() {\n    1\n}\n");
    let tag = tag_of(&read(&ws, "s.rs"));
    ws.file("s.rs", "fn a() {\n    2\n}\n");
    let result =
        edit(&ws, "s.rs", Some(&tag), json!([{"replace_symbol": {"symbol": "a", "new_body": "fn a() {\n    3\n}"}}]));
    assert_eq!(code(&result), "hash-mismatch", "{}", result.text());
    assert_eq!(bytes(&ws, "s.rs"), "fn a() {\n    2\n}\n");
}

/// A line inserted into a run of equal lines: the read's last `x` could be either of two
/// lines now (a diff cannot tell which `x` is new), so the cited anchor is refused with the
/// rows now, never aimed one line early; the retry with the refusal's anchor and tag lands.
#[test]
fn a_line_in_a_run_of_equal_lines_that_grew_is_refused_not_guessed() {
    let ws = Workspace::new();
    ws.file("r.txt", "a\nx\nx\nx\nx\nx\nb\n");
    let tag = tag_of(&read(&ws, "r.txt"));
    ws.file("r.txt", "a\nx\nx\nx\nx\nx\nx\nb\n");
    let refused = edit(&ws, "r.txt", Some(&tag), json!([{"set_line": {"anchor": anchor(6, "x"), "new_text": "z"}}]));
    assert_eq!(code(&refused), "hash-mismatch", "{}", refused.text());
    assert!(refused.text().contains("one of several equal lines"), "{}", refused.text());
    assert_eq!(bytes(&ws, "r.txt"), "a\nx\nx\nx\nx\nx\nx\nb\n");
    let now = tag_of(&refused);
    let retry = edit(&ws, "r.txt", Some(&now), json!([{"set_line": {"anchor": anchor(7, "x"), "new_text": "z"}}]));
    assert!(!retry.is_error, "{}", retry.text());
    assert_eq!(bytes(&ws, "r.txt"), "a\nx\nx\nx\nx\nx\nz\nb\n");
}

/// `files[]` takes a snapshot per file, each file's anchors followed through its own; a
/// top-level `snapshot` beside `files` is refused, nothing written.
#[test]
fn each_file_of_a_multi_file_edit_cites_its_own_snapshot() {
    let ws = Workspace::new();
    ws.file("one.txt", "a\nb\n");
    ws.file("two.txt", "c\nd\n");
    let (one, two) = (tag_of(&read(&ws, "one.txt")), tag_of(&read(&ws, "two.txt")));
    ws.file("one.txt", "new\na\nb\n");
    ws.file("two.txt", "new\nnewer\nc\nd\n");
    let set = |line: u32, old: &str, new: &str| json!([{"set_line": {"anchor": anchor(line, old), "new_text": new}}]);
    let combo =
        ws.call::<EditTool>(json!({"snapshot": one, "files": [{"path": "one.txt", "edits": set(2, "b", "B")}]}));
    assert_eq!(code(&combo), "invalid-params-combo", "{}", combo.text());
    let result = ws.call::<EditTool>(json!({"files": [
        {"path": "one.txt", "snapshot": one, "edits": set(2, "b", "B")},
        {"path": "two.txt", "snapshot": two, "edits": set(2, "d", "D")},
    ]}));
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(
        (bytes(&ws, "one.txt"), bytes(&ws, "two.txt")),
        ("new\na\nB\n".to_owned(), "new\nnewer\nc\nD\n".to_owned())
    );
}

/// A file over the store's 16 MiB per snapshot still gets a tag; its bytes are not kept, so
/// an edit citing it falls back to the uncited rules and says so (protocol §1.5).
#[test]
fn a_file_over_the_per_snapshot_cap_gets_a_tag_whose_anchors_fall_back() {
    let ws = Workspace::new();
    let line = format!("{}\n", "x".repeat(1023));
    let big = format!("first\n{}", line.repeat(17 * 1024));
    ws.file("big.txt", &big);
    let shown = ws.call::<ReadTool>(json!({"path": "big.txt", "limit": 1}));
    let tag = tag_of(&shown);
    assert_eq!(tag, SnapshotTag::of(big.as_bytes()).to_string());
    let result =
        edit(&ws, "big.txt", Some(&tag), json!([{"set_line": {"anchor": anchor(1, "first"), "new_text": "FIRST"}}]));
    assert!(!result.is_error, "{}", result.text());
    assert!(result.text().contains(&format!("snapshot {tag} could not be used")), "{}", result.text());
    assert!(bytes(&ws, "big.txt").starts_with("FIRST\n"));
}

/// An edit result shows only the lines it added, so a model holds the read's rows for the
/// rest and cites the newest tag it was shown. The edit's snapshot was made from the read's:
/// a read anchor the edit moved lands on its line, and a name the two views give to
/// different lines is refused with fresh rows, never aimed at the newer view's line (found
/// from outside: `4:b18` of the read, cited with the edit's tag, rewrote `a`'s brace).
#[test]
fn an_edit_results_tag_serves_the_read_it_was_made_from_and_a_name_with_two_meanings_is_refused() {
    let ws = Workspace::new();
    ws.file("m.rs", "fn a() {\n}\nfn b() {\n}\n");
    let first = tag_of(&read(&ws, "m.rs"));
    let inserted = edit(
        &ws,
        "m.rs",
        Some(&first),
        json!([{"insert_after": {"anchor": anchor(1, "fn a() {"), "new_text": "x\ny"}}]),
    );
    assert!(!inserted.is_error, "{}", inserted.text());
    let second = tag_of(&inserted);
    let after_insert = "fn a() {\nx\ny\n}\nfn b() {\n}\n";
    assert_eq!(bytes(&ws, "m.rs"), after_insert);
    // The read's 4:b18 is `b`'s brace (line 6 now); line 4 of the edit's snapshot is `a`'s.
    let two = edit(&ws, "m.rs", Some(&second), json!([{"set_line": {"anchor": anchor(4, "}"), "new_text": "} // b"}}]));
    assert_eq!(code(&two), "hash-mismatch", "{}", two.text());
    assert!(two.text().contains("names different lines"), "{}", two.text());
    assert_eq!(bytes(&ws, "m.rs"), after_insert);
    // The refusal showed both lines under the file's tag now: the retry with its row lands.
    assert_eq!(tag_of(&two), second);
    assert!(two.text().contains(&format!("{}|}}", anchor(6, "}"))), "{}", two.text());
    let retry =
        edit(&ws, "m.rs", Some(&second), json!([{"set_line": {"anchor": anchor(6, "}"), "new_text": "} // b"}}]));
    assert!(!retry.is_error, "{}", retry.text());
    let after_insert = "fn a() {\nx\ny\n}\nfn b() {\n} // b\n";
    assert_eq!(bytes(&ws, "m.rs"), after_insert);
    // The read's 3:… (`fn b() {`, line 5 now) is no row of the edit's snapshot: it is
    // followed through the read's.
    let moved = edit(
        &ws,
        "m.rs",
        Some(&second),
        json!([{"set_line": {"anchor": anchor(3, "fn b() {"), "new_text": "fn c() {"}}]),
    );
    assert!(!moved.is_error, "{}", moved.text());
    assert_eq!(bytes(&ws, "m.rs"), "fn a() {\nx\ny\n}\nfn c() {\n} // b\n");
    // The edit's own new row still serves with its tag.
    let own = edit(&ws, "m.rs", Some(&second), json!([{"set_line": {"anchor": anchor(2, "x"), "new_text": "X"}}]));
    assert!(!own.is_error, "{}", own.text());
    assert_eq!(bytes(&ws, "m.rs"), "fn a() {\nX\ny\n}\nfn c() {\n} // b\n");
}

/// A refusal shows fresh rows of a part of the file only: retrying with its tag, the other
/// items' anchors (from the read) still land, through the snapshot the refusal was made from.
/// The links live in the principal's store: on disk, a new session sees them.
#[test]
fn a_refusals_tag_serves_the_other_anchors_of_the_view_it_refused_across_sessions() {
    let dir = tempfile::tempdir().expect("tempdir");
    let state = tempfile::tempdir().expect("state");
    std::fs::write(dir.path().join("r.txt"), "one\ntwo\nthree\nfour\n").expect("write");
    let store_dir = state.path().join("snapshots");
    let store: Arc<dyn Snapshots> = Arc::new(Mutex::new(DiskSnapshots::new(&store_dir, StoreLimits::DEFAULT)));
    let session = |store: &Arc<dyn Snapshots>| {
        Session::new(SessionConfig::builder().root(dir.path()).stateful(false).snapshots(store.clone()).build())
            .expect("session")
    };
    let tag = read_tag(&session(&store), "r.txt");
    std::fs::write(dir.path().join("r.txt"), "zero\none\nTWO\nthree\nfour\n").expect("write");
    let items = |two: String, two_text: &str| {
        json!([
            {"set_line": {"anchor": two, "new_text": two_text}},
            {"set_line": {"anchor": anchor(4, "four"), "new_text": "4"}},
        ])
    };
    let refused = edit_citing(&session(&store), "r.txt", &tag, items(anchor(2, "two"), "2")).expect_err("refused");
    assert_eq!(refused.code.as_str(), "hash-mismatch", "{}", refused.message);
    let now = refused.details.as_ref().and_then(|d| d["snapshot"].as_str()).expect("a tag").to_owned();
    // Store reopened: a new process of the same principal.
    let reopened: Arc<dyn Snapshots> = Arc::new(Mutex::new(DiskSnapshots::new(&store_dir, StoreLimits::DEFAULT)));
    edit_citing(&session(&reopened), "r.txt", &now, items(anchor(3, "TWO"), "2")).expect("the retry lands");
    assert_eq!(std::fs::read_to_string(dir.path().join("r.txt")).expect("read"), "zero\none\n2\nthree\n4\n");
}

/// Where the model sees the text alone, an edit's result shows the added lines' anchors and
/// no other row: its tag vouches for those rows only. The read's `4:b18` cited with it is
/// then the read's line (6 now), though line 4 of the edit's snapshot is another brace.
#[test]
fn an_edit_results_tag_vouches_only_for_the_rows_its_text_showed() {
    let ws = Workspace::new();
    ws.file("t.rs", "fn a() {\n}\nfn b() {\n}\n");
    let ctx = hashline_tools::CallContext { sees_text_only: true, ..hashline_tools::CallContext::top_level() };
    let first = tag_of(&read(&ws, "t.rs"));
    let inserted = ws.call_in::<EditTool>(
        json!({"path": "t.rs", "snapshot": first, "edits": [{"insert_after": {"anchor": anchor(1, "fn a() {"), "new_text": "x\ny"}}]}),
        &ctx,
    );
    assert!(!inserted.is_error, "{}", inserted.text());
    assert!(inserted.text().contains(&format!("Anchors of the added lines: {} {}", anchor(2, "x"), anchor(3, "y"))));
    let second = tag_of(&inserted);
    let b = ws.call_in::<EditTool>(
        json!({"path": "t.rs", "snapshot": second, "edits": [{"set_line": {"anchor": anchor(4, "}"), "new_text": "} // b"}}]}),
        &ctx,
    );
    assert!(!b.is_error, "{}", b.text());
    assert_eq!(bytes(&ws, "t.rs"), "fn a() {\nx\ny\n}\nfn b() {\n} // b\n");
}

/// A range whose ends were copied from two views (an edit's added anchor and a read's row),
/// cited with the newest tag: each end is followed on its own, and the lines between them
/// must each be a line one of the views showed, unchanged since; a line inserted inside by
/// another program since is not one, and the range is refused.
#[test]
fn a_range_with_its_ends_from_two_views_lands_and_one_grown_inside_is_refused() {
    let ws = Workspace::new();
    let ctx = hashline_tools::CallContext { sees_text_only: true, ..hashline_tools::CallContext::top_level() };
    ws.file("r.txt", "a\nb\nc\nd\ne\n");
    let first = tag_of(&read(&ws, "r.txt"));
    let edit_in = |tag: &str, edits: Value| {
        ws.call_in::<EditTool>(json!({"path": "r.txt", "snapshot": tag, "edits": edits}), &ctx)
    };
    let inserted = edit_in(&first, json!([{"insert_after": {"anchor": anchor(1, "a"), "new_text": "x"}}]));
    assert!(!inserted.is_error, "{}", inserted.text());
    let second = tag_of(&inserted);
    // From the added `2:x` (the edit's view) to the read's `4:d` (line 5 now).
    let range =
        json!([{"replace_lines": {"start_anchor": anchor(2, "x"), "end_anchor": anchor(4, "d"), "new_text": "X"}}]);
    ws.file("r.txt", "a\nx\nb\nunseen\nc\nd\ne\n");
    let refused = edit_in(&second, range.clone());
    assert_eq!(code(&refused), "hash-mismatch", "{}", refused.text());
    assert!(refused.text().contains("has changed inside"), "{}", refused.text());
    assert_eq!(bytes(&ws, "r.txt"), "a\nx\nb\nunseen\nc\nd\ne\n");
    ws.file("r.txt", "a\nx\nb\nc\nd\ne\n");
    let landed = edit_in(&second, range);
    assert!(!landed.is_error, "{}", landed.text());
    assert_eq!(bytes(&ws, "r.txt"), "a\nX\ne\n");
}

/// grep and ast_search add the rows they show to a snapshot made from another view (docs/
/// protocol.md §1.5): an edit's result vouches for its added rows only, so a row grep or
/// ast_search showed since, cited with the tag they named (the same snapshot), lands — it
/// would be refused as a row the snapshot never showed if they did not.
#[test]
fn rows_grep_and_ast_search_showed_serve_the_linked_snapshots_tag() {
    use hashline_tools::ast_search::AstSearchTool;
    use hashline_tools::grep::GrepTool;
    let ws = Workspace::new();
    let ctx = hashline_tools::CallContext { sees_text_only: true, ..hashline_tools::CallContext::top_level() };
    for (file, search) in [
        ("g.rs", json!({"pattern": "run", "path": "g.rs"})),
        ("s.rs", json!({"pattern": "run()", "lang": "rust", "path": "s.rs"})),
    ] {
        ws.file(file, "fn a() {\n}\nfn b() {\n    run();\n}\n");
        let first = tag_of(&read(&ws, file));
        let inserted = ws.call_in::<EditTool>(
            json!({"path": file, "snapshot": first, "edits": [{"insert_after": {"anchor": anchor(1, "fn a() {"), "new_text": "x\ny"}}]}),
            &ctx,
        );
        assert!(!inserted.is_error, "{}", inserted.text());
        let second = tag_of(&inserted);
        let found = if file == "g.rs" { ws.call::<GrepTool>(search) } else { ws.call::<AstSearchTool>(search) };
        assert!(found.text().contains(&format!("snapshot: {second}")), "{file}: {}", found.text());
        assert!(found.text().contains(&format!("{}|    run();", anchor(6, "    run();"))), "{}", found.text());
        let cited = ws.call_in::<EditTool>(
            json!({"path": file, "snapshot": second, "edits": [{"set_line": {"anchor": anchor(6, "    run();"), "new_text": "    go();"}}]}),
            &ctx,
        );
        assert!(!cited.is_error, "{file}: {}", cited.text());
        assert_eq!(bytes(&ws, file), "fn a() {\nx\ny\n}\nfn b() {\n    go();\n}\n");
    }
}

/// A revert's result is linked to the file before it (docs/protocol.md §1.5): its rows and
/// the rows of the view the model had before the revert both serve with the revert's tag.
#[test]
fn a_reverts_tag_serves_the_view_before_it() {
    let ws = Workspace::new();
    ws.file("v.txt", "one\ntwo\nthree\nfour\n");
    let first = tag_of(&read(&ws, "v.txt"));
    let changed =
        edit(&ws, "v.txt", Some(&first), json!([{"set_line": {"anchor": anchor(2, "two"), "new_text": "TWO"}}]));
    assert!(!changed.is_error, "{}", changed.text());
    let id = changed
        .text()
        .lines()
        .find_map(|l| l.strip_prefix("Change "))
        .and_then(|l| l.split(' ').next())
        .expect("an id")
        .to_owned();
    let second = tag_of(&changed);
    let reverted = ws.call::<EditTool>(json!({"revert": id}));
    assert!(!reverted.is_error, "{}", reverted.text());
    assert_eq!(bytes(&ws, "v.txt"), "one\ntwo\nthree\nfour\n");
    let third = tag_of(&reverted);
    assert_eq!(third, first, "the revert's bytes are the read's");
    // The edit's view (line 4 `four`, unchanged by the revert) cited with the revert's tag.
    let _ = second;
    let later = edit(&ws, "v.txt", Some(&third), json!([{"set_line": {"anchor": anchor(4, "four"), "new_text": "4"}}]));
    assert!(!later.is_error, "{}", later.text());
    assert_eq!(bytes(&ws, "v.txt"), "one\ntwo\nthree\n4\n");
    // The read's own rows still serve with its tag, though the revert made the same bytes
    // again from another view.
    let again = edit(&ws, "v.txt", Some(&third), json!([{"set_line": {"anchor": anchor(1, "one"), "new_text": "1"}}]));
    assert!(!again.is_error, "{}", again.text());
    assert_eq!(bytes(&ws, "v.txt"), "1\ntwo\nthree\n4\n");
}
