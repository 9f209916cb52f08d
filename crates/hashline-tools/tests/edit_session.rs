//! `edit` in a session over several calls: refusals whose rows supersede older ones, the
//! served-lines guard's window, and the rows a refusal carries in its value.

mod common;

use common::{Workspace, code};
use hashline_core::LineHash;
use hashline_tools::edit::EditTool;
use hashline_tools::read::ReadTool;
use hashline_tools::{Session, SessionConfig, ToolResult};
use serde_json::{Value, json};

fn anchor(line: u32, text: &str) -> String {
    format!("{line}:{}", LineHash::of(text.as_bytes()))
}

fn edit(ws: &Workspace, path: &str, edits: Value) -> ToolResult {
    ws.call::<EditTool>(json!({"path": path, "edits": edits}))
}

fn insert_after(at: &str, text: &str) -> Value {
    json!({"insert_after": {"anchor": at, "new_text": text}})
}

/// The anchors of the rows in a refusal's text, in order.
fn rows_in_text(result: &ToolResult) -> Vec<String> {
    result
        .text()
        .lines()
        .filter_map(|line| {
            let row = line.strip_prefix(">>> ").or_else(|| line.strip_prefix("    "))?;
            let (anchor, _) = row.split_once('|')?;
            let (n, h) = anchor.split_once(':')?;
            (n.bytes().all(|b| b.is_ascii_digit()) && h.len() == 3).then(|| anchor.to_owned())
        })
        .collect()
}

fn updated_anchors(result: &ToolResult) -> Vec<String> {
    result.ptc_value()["error"]["details"]["updatedAnchors"]
        .as_array()
        .map(|rows| rows.iter().filter_map(|r| r["anchor"].as_str().map(str::to_owned)).collect())
        .unwrap_or_default()
}

/// The rows `>>>` marks in a refusal.
fn marked(result: &ToolResult) -> Vec<String> {
    result
        .text()
        .lines()
        .filter_map(|l| l.strip_prefix(">>> "))
        .filter_map(|row| row.split_once('|').map(|(a, _)| a.to_owned()))
        .collect()
}

#[test]
fn the_fresh_anchor_of_an_ambiguity_refusal_resolves_on_retry() {
    // Issue 9, finding 3: blank lines 3, 6 and 9; lines move under them; the refusal's
    // fresh row for the intended line must work at once (and after a partial read).
    let ws = Workspace::new();
    let lines = ["a1", "a2", "", "b4", "b5", "", "c7", "c8", "", "d10", "d11", "d12"];
    ws.file("f.txt", lines.join("\n") + "\n");
    ws.call::<ReadTool>(json!({"path": "f.txt"}));
    let first = edit(&ws, "f.txt", json!([insert_after(&anchor(3, ""), "x\ny\nz")]));
    assert!(!first.is_error, "{}", first.text());
    // The old 6:d05 follows its line (now 9): insert after it.
    let second = edit(&ws, "f.txt", json!([insert_after(&anchor(6, ""), "w")]));
    assert!(!second.is_error, "{}", second.text());
    // Now line 9 (the old 6) was shown as 9:d05, and so was the old 9 (now 13).
    let refused = edit(&ws, "f.txt", json!([insert_after(&anchor(9, ""), "v")]));
    assert_eq!(code(&refused), "hash-mismatch", "{}", refused.text());
    assert!(refused.text().contains("lines 9 and 13 could each be the line it names"), "{}", refused.text());
    assert_eq!(marked(&refused), [anchor(9, ""), anchor(13, "")]);
    // Retry with the fresh row of the line meant (the blank line now at 13).
    let retry = edit(&ws, "f.txt", json!([insert_after(&anchor(13, ""), "v")]));
    assert!(!retry.is_error, "{}", retry.text());
    // And the fresh 9:d05 names line 9 now, also after only a partial read.
    ws.call::<ReadTool>(json!({"path": "f.txt", "offset": 8, "limit": 3}));
    let again = edit(&ws, "f.txt", json!([insert_after(&anchor(9, ""), "u")]));
    assert!(!again.is_error, "{}", again.text());
    let text = std::fs::read_to_string(ws.path("f.txt")).expect("read");
    assert_eq!(
        text, "a1\na2\n\nx\ny\nz\nb4\nb5\n\nu\nw\nc7\nc8\n\nv\nd10\nd11\nd12\n",
        "every insertion after the blank line meant"
    );
}

#[test]
fn the_served_lines_guard_uses_the_relocation_window() {
    // Issue 9, finding 4: five edits relocate within ±25; line 30 moved to 55.
    let ws = Workspace::new();
    let original: Vec<String> = (1..=60).map(|n| format!("L{n}")).collect();
    ws.file("g.txt", original.join("\n") + "\n");
    let mut moved = original.clone();
    let line30 = moved.remove(29);
    moved.insert(54, line30);
    let edits = json!([
        {"set_line": {"anchor": anchor(30, "L30"), "new_text": "THIRTY"}},
        {"set_line": {"anchor": anchor(1, "L1"), "new_text": "T1"}},
        {"set_line": {"anchor": anchor(2, "L2"), "new_text": "T2"}},
        {"set_line": {"anchor": anchor(3, "L3"), "new_text": "T3"}},
        {"set_line": {"anchor": anchor(4, "L4"), "new_text": "T4"}},
    ]);
    let mut expected = moved.clone();
    expected[54] = "THIRTY".into();
    for (i, e) in expected.iter_mut().take(4).enumerate() {
        *e = format!("T{}", i + 1);
    }
    let expected = expected.join("\n") + "\n";

    ws.call::<ReadTool>(json!({"path": "g.txt"}));
    ws.file("g.txt", moved.join("\n") + "\n");
    let result = edit(&ws, "g.txt", edits.clone());
    assert!(!result.is_error, "{}", result.text());
    assert!(result.text().contains("-> 55:"), "{}", result.text());
    assert_eq!(std::fs::read_to_string(ws.path("g.txt")).expect("read"), expected);

    let stateless = Workspace::new();
    let session =
        Session::new(SessionConfig::builder().root(stateless.dir.path()).stateful(false).build()).expect("session");
    stateless.file("g.txt", moved.join("\n") + "\n");
    let result = hashline_tools::execute::<EditTool>(
        &session,
        json!({"path": "g.txt", "edits": edits}),
        &hashline_tools::CallContext::top_level(),
    );
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(std::fs::read_to_string(stateless.path("g.txt")).expect("read"), expected);
}

#[test]
fn every_row_of_a_refusal_is_in_its_value() {
    // Issue 9, finding 6: context rows count as served, so they are in updatedAnchors.
    let ws = Workspace::new();
    ws.file("h.txt", "1\n2\n3\n4\n5\n6\n7\n");
    ws.call::<ReadTool>(json!({"path": "h.txt"}));
    ws.file("h.txt", "1\n2\n3\nFOUR\n5\n6\n7\n");
    let stale = edit(&ws, "h.txt", json!([{"set_line": {"anchor": anchor(4, "4"), "new_text": "x"}}]));
    assert_eq!(code(&stale), "hash-mismatch");
    assert_eq!(rows_in_text(&stale).len(), 5, "{}", stale.text());
    assert_eq!(updated_anchors(&stale), rows_in_text(&stale));

    // The served-lines guard's refusal too.
    ws.call::<ReadTool>(json!({"path": "h.txt"}));
    ws.file("h.txt", "1\n2\n3\nFOUR\n5\nSIX\n7\n");
    let guard = edit(
        &ws,
        "h.txt",
        json!([{"replace_lines": {"start_anchor": anchor(5, "5"), "end_anchor": anchor(7, "7"), "new_text": "y"}}]),
    );
    assert_eq!(code(&guard), "hash-mismatch");
    assert_eq!(updated_anchors(&guard), rows_in_text(&guard), "{}", guard.text());
    assert!(rows_in_text(&guard).len() > 1, "{}", guard.text());
}

#[test]
fn a_line_number_past_any_file_is_echoed_as_sent() {
    // Issue 9, finding 7: not the capped `4294967295`.
    let ws = Workspace::new();
    ws.file("k.txt", "a\n");
    ws.call::<ReadTool>(json!({"path": "k.txt"}));
    let result = edit(&ws, "k.txt", json!([{"set_line": {"anchor": "99999999999999999999:abc", "new_text": "x"}}]));
    assert_eq!(code(&result), "line-out-of-range");
    assert!(result.text().contains("Line 99999999999999999999 does not exist"), "{}", result.text());
    assert!(!result.text().contains("4294967295 does"), "{}", result.text());
}

#[test]
fn a_bare_hash_anchor_carries_a_note() {
    // Issue 9, finding 7: like re-aimed and relocated anchors.
    let ws = Workspace::new();
    ws.file("b.txt", "alpha\nbeta\n");
    ws.call::<ReadTool>(json!({"path": "b.txt"}));
    let bare = LineHash::of(b"beta").to_string();
    let result = edit(&ws, "b.txt", json!([{"set_line": {"anchor": bare, "new_text": "BETA"}}]));
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(result.ptc_value()["warnings"][0]["code"], "anchor-relocated");
    assert!(result.text().contains("Resolved bare hash 589 -> 2:589"), "{}", result.text());
}

/// A hash no line of `lines` has (a mistyped anchor's).
fn unused_hash(lines: &[&str]) -> String {
    let used: Vec<String> = lines.iter().map(|l| LineHash::of(l.as_bytes()).to_string()).collect();
    (0..4096u16).map(|h| format!("{h:03x}")).find(|h| !used.contains(h)).expect("a free hash")
}

fn read_back(ws: &Workspace, path: &str) -> String {
    String::from_utf8(std::fs::read(ws.path(path)).expect("read back")).expect("utf-8")
}

#[test]
fn context_rows_of_an_unrelated_refusal_do_not_take_a_name_from_the_row_first_read_under_it() {
    // Issue 21, item 0 (B): the first read named the blank line 8 `8:d05` (W). An edit
    // above moves W to 11 and another blank (X, first read at 5) to 8. A refusal of an
    // unrelated anchor shows X as a context row `8:d05`. The first read's `8:d05` still
    // names W too: two live meanings, so it is refused, nothing written.
    let ws = Workspace::new();
    let lines = ["h1", "h2", "h3", "h4", "", "m6", "m7", "", "m9", "m10", "m11", "m12"];
    ws.file("f.txt", lines.join("\n") + "\n");
    ws.call::<ReadTool>(json!({"path": "f.txt"}));
    let first = edit(&ws, "f.txt", json!([insert_after(&anchor(1, "h1"), "i1\ni2\ni3")]));
    assert!(!first.is_error, "{}", first.text());
    // A mistyped hash at line 7: refused, with rows 5-9 (X at 8 among them).
    let typo = format!("7:{}", unused_hash(&lines));
    let refused = edit(&ws, "f.txt", json!([{"set_line": {"anchor": typo, "new_text": "M7"}}]));
    assert_eq!(code(&refused), "hash-mismatch", "{}", refused.text());
    assert!(rows_in_text(&refused).contains(&anchor(8, "")), "{}", refused.text());
    let before = read_back(&ws, "f.txt");
    // The first read's 8:d05, meaning W (now line 11).
    let ambiguous = edit(&ws, "f.txt", json!([insert_after(&anchor(8, ""), "after W")]));
    assert_eq!(code(&ambiguous), "hash-mismatch", "{}", ambiguous.text());
    assert_eq!(read_back(&ws, "f.txt"), before, "nothing written");
    assert_eq!(marked(&ambiguous), [anchor(8, ""), anchor(11, "")], "{}", ambiguous.text());
    assert!(updated_anchors(&ambiguous).contains(&anchor(11, "")));
    // W's fresh row names W alone.
    let retry = edit(&ws, "f.txt", json!([insert_after(&anchor(11, ""), "after W")]));
    assert!(!retry.is_error, "{}", retry.text());
    let want = ["h1", "i1", "i2", "i3", "h2", "h3", "h4", "", "m6", "m7", "", "after W", "m9", "m10", "m11", "m12"];
    assert_eq!(read_back(&ws, "f.txt"), want.join("\n") + "\n");
}

#[test]
fn a_refusals_target_row_does_not_take_a_name_from_the_row_first_read_under_it() {
    // Issue 21, item 0 (A): an ambiguity refusal shows the line meant (X, first read at 9)
    // as `13:d05`, the name the first read gave another blank (W, now at 17). Retrying with
    // it is ambiguous (X or W?), and so is a later call that sends the first read's `13:d05`
    // meaning W: both refused with both rows, nothing written. A read settles the name.
    let ws = Workspace::new();
    let lines = ["a1", "a2", "", "b4", "b5", "", "c7", "c8", "", "d10", "d11", "d12", "", "e14", "e15", "e16"];
    ws.file("f.txt", lines.join("\n") + "\n");
    ws.call::<ReadTool>(json!({"path": "f.txt"}));
    let first = edit(&ws, "f.txt", json!([insert_after(&anchor(3, ""), "x\ny\nz")]));
    assert!(!first.is_error, "{}", first.text());
    let second = edit(&ws, "f.txt", json!([insert_after(&anchor(6, ""), "w")]));
    assert!(!second.is_error, "{}", second.text());
    // The first read's 9:d05 (X) is now ambiguous: X is at 13, and line 9 was shown as 9:d05.
    let refused = edit(&ws, "f.txt", json!([insert_after(&anchor(9, ""), "v")]));
    assert_eq!(code(&refused), "hash-mismatch", "{}", refused.text());
    assert_eq!(marked(&refused), [anchor(9, ""), anchor(13, "")]);
    let before = read_back(&ws, "f.txt");
    // The retry with X's fresh row `13:d05` (W was first read as 13:d05 and is at 17 now),
    // then a later call with the first read's 13:d05, meaning W: neither may land on X.
    let retry = edit(&ws, "f.txt", json!([insert_after(&anchor(13, ""), "v")]));
    let later = edit(&ws, "f.txt", json!([insert_after(&anchor(13, ""), "after W")]));
    assert!(later.is_error, "the first read's 13:d05 was applied to X:\n{}", read_back(&ws, "f.txt"));
    assert_eq!(code(&later), "hash-mismatch", "{}", later.text());
    assert_eq!(code(&retry), "hash-mismatch", "{}", retry.text());
    assert_eq!(marked(&retry), [anchor(13, ""), anchor(17, "")], "{}", retry.text());
    assert_eq!(read_back(&ws, "f.txt"), before, "nothing written");
    // W's fresh row names W alone; after a read of X's line, 13:d05 names X.
    let w = edit(&ws, "f.txt", json!([insert_after(&anchor(17, ""), "after W")]));
    assert!(!w.is_error, "{}", w.text());
    ws.call::<ReadTool>(json!({"path": "f.txt", "offset": 12, "limit": 3}));
    let x = edit(&ws, "f.txt", json!([insert_after(&anchor(13, ""), "v")]));
    assert!(!x.is_error, "{}", x.text());
    let want = [
        "a1", "a2", "", "x", "y", "z", "b4", "b5", "", "w", "c7", "c8", "", "v", "d10", "d11", "d12", "", "after W",
        "e14", "e15", "e16",
    ];
    assert_eq!(read_back(&ws, "f.txt"), want.join("\n") + "\n");
}

#[test]
fn an_anchor_whose_row_moved_while_a_look_alike_took_its_number_is_ambiguous() {
    // Issue 21, item 0: the first read showed W as `7:d05`. An edit above moves W to 9 and
    // another blank line (Y, first read at 5, never shown as 7) to 7. `7:d05` now has two
    // live meanings: W (the row shown so), and Y (the line at 7 with that hash, what a
    // model counting lines would mean). Refused with both rows; nothing written.
    let ws = Workspace::new();
    let lines = ["a", "b", "c", "d", "", "e", "", "f", "g"];
    ws.file("f.txt", lines.join("\n") + "\n");
    ws.call::<ReadTool>(json!({"path": "f.txt"}));
    let first = edit(&ws, "f.txt", json!([insert_after(&anchor(1, "a"), "i1\ni2")]));
    assert!(!first.is_error, "{}", first.text());
    assert!(!rows_in_text(&first).contains(&anchor(7, "")), "the result must not show Y as 7: {}", first.text());
    let before = read_back(&ws, "f.txt");
    let ambiguous = edit(&ws, "f.txt", json!([insert_after(&anchor(7, ""), "after W")]));
    assert!(ambiguous.is_error, "applied without asking:\n{}", read_back(&ws, "f.txt"));
    assert_eq!(code(&ambiguous), "hash-mismatch", "{}", ambiguous.text());
    assert!(ambiguous.text().contains("lines 7 and 9 could each be the line it names"), "{}", ambiguous.text());
    assert_eq!(marked(&ambiguous), [anchor(7, ""), anchor(9, "")]);
    assert_eq!(read_back(&ws, "f.txt"), before, "nothing written");
    // The fresh rows settle it either way: 9:d05 is W's alone.
    let retry = edit(&ws, "f.txt", json!([insert_after(&anchor(9, ""), "after W")]));
    assert!(!retry.is_error, "{}", retry.text());
    let want = ["a", "i1", "i2", "b", "c", "d", "", "e", "", "after W", "f", "g"];
    assert_eq!(read_back(&ws, "f.txt"), want.join("\n") + "\n");
}
