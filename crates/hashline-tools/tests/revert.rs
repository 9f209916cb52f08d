//! Change ids and `revert` (issue 27): every file of a change back to its bytes before it,
//! all or none, only while each is exactly what the change left; every refusal writes
//! nothing and says why with its own code. Texts are pinned.

mod common;

use common::{Workspace, code};
use hashline_core::LineHash;
use hashline_fs::Stage;
use hashline_tools::changes::{MAX_CHANGE_BYTES, MAX_CHANGES};
use hashline_tools::edit::EditTool;
use hashline_tools::read::ReadTool;
use hashline_tools::write::WriteTool;
use hashline_tools::{Session, SessionConfig, ToolResult};
use insta::assert_snapshot;
use serde_json::{Value, json};

fn anchor(line: u32, text: &str) -> String {
    format!("{line}:{}", LineHash::of(text.as_bytes()))
}

fn set_line(line: u32, old: &str, new: &str) -> Value {
    json!([{"set_line": {"anchor": anchor(line, old), "new_text": new}}])
}

impl Workspace {
    fn read(&self, path: &str) -> ToolResult {
        self.call::<ReadTool>(json!({"path": path}))
    }

    fn edit(&self, path: &str, edits: Value) -> ToolResult {
        let result = self.call::<EditTool>(json!({"path": path, "edits": edits}));
        assert!(!result.is_error, "{}", result.text());
        result
    }

    fn revert(&self, id: &str) -> ToolResult {
        self.call::<EditTool>(json!({"revert": id}))
    }

    fn bytes(&self, path: &str) -> Vec<u8> {
        std::fs::read(self.path(path)).expect("read")
    }
}

/// The change id a result names (in its value and on its last text line).
fn change_id(result: &ToolResult) -> String {
    let value = result.ptc_value();
    let id = value["changeId"].as_str().expect("a changeId").to_owned();
    let last = result.text().lines().last().unwrap_or_default().to_owned();
    assert_eq!(last, format!("Change {id} (undo: edit {{\"revert\": \"{id}\"}})"));
    id
}

/// Refused with `expected`, nothing written: each file's bytes as given.
fn refused(ws: &Workspace, result: &ToolResult, expected: &str, files: &[(&str, Option<&[u8]>)]) {
    assert!(result.is_error, "{}", result.text());
    assert_eq!(code(result), expected, "{}", result.text());
    assert!(result.text().starts_with("Revert refused — nothing was written."), "{}", result.text());
    for (path, bytes) in files {
        assert_eq!(std::fs::read(ws.path(path)).ok().as_deref(), *bytes, "{path} must be unchanged");
    }
}

#[test]
fn an_edit_is_reverted_byte_for_byte_with_its_bom_and_crlf() {
    let ws = Workspace::new();
    let original = b"\xef\xbb\xbfalpha\r\nbeta\r\ngamma\r\nno newline at end";
    ws.file("a.txt", original);
    ws.read("a.txt");
    let edit = ws.edit("a.txt", set_line(2, "beta", "BETA\nand more"));
    let id = change_id(&edit);
    assert_eq!(ws.bytes("a.txt"), b"\xef\xbb\xbfalpha\r\nBETA\r\nand more\r\ngamma\r\nno newline at end");
    let revert = ws.revert(&id);
    assert!(!revert.is_error, "{}", revert.text());
    assert_eq!(ws.bytes("a.txt"), original);
    let reverted = change_id(&revert);
    assert_ne!(reverted, id);
    assert_eq!(revert.ptc_value()["reverts"], id.as_str());
    let text = revert.text().replace(&id, "<edit>").replace(&reverted, "<revert>");
    assert_snapshot!(text, @r#"
    Reverted a.txt to its content before <edit> (+1 -2 lines).
    snapshot: syp26st1m

    +2:589|beta

    Change <revert> (undo: edit {"revert": "<revert>"})
    "#);
    // The rows the revert showed are anchors the session knows: an edit with one works.
    ws.edit("a.txt", set_line(2, "beta", "b"));
    assert_eq!(ws.bytes("a.txt"), b"\xef\xbb\xbfalpha\r\nb\r\ngamma\r\nno newline at end");
}

#[test]
fn a_reverted_revert_makes_the_change_again_and_a_reverted_change_says_by_what() {
    let ws = Workspace::new();
    ws.file("a.txt", "one\ntwo\n");
    ws.read("a.txt");
    let edit = change_id(&ws.edit("a.txt", set_line(1, "one", "ONE")));
    let undo = change_id(&ws.revert(&edit));
    assert_eq!(ws.bytes("a.txt"), b"one\ntwo\n");
    let again = ws.revert(&edit);
    refused(&ws, &again, "change-reverted", &[("a.txt", Some(b"one\ntwo\n"))]);
    assert_eq!(
        again.text().replace(&edit, "<edit>").replace(&undo, "<undo>"),
        "Revert refused — nothing was written. Change <edit> was already reverted by <undo>; revert <undo> to make <edit> again."
    );
    let redo = ws.revert(&undo);
    assert!(!redo.is_error, "{}", redo.text());
    assert_eq!(ws.bytes("a.txt"), b"ONE\ntwo\n");
}

#[test]
fn an_older_change_waits_for_the_later_ones_of_its_file() {
    let ws = Workspace::new();
    ws.file("a.txt", "one\ntwo\nthree\n");
    ws.read("a.txt");
    let first = change_id(&ws.edit("a.txt", set_line(1, "one", "ONE")));
    let second = change_id(&ws.edit("a.txt", set_line(3, "three", "THREE")));
    let refusal = ws.revert(&first);
    refused(&ws, &refusal, "change-superseded", &[("a.txt", Some(b"ONE\ntwo\nTHREE\n"))]);
    assert_eq!(refusal.ptc_value()["error"]["details"]["files"][0]["standing"], json!([second]));
    assert_snapshot!(refusal.text().replace(&first, "<first>").replace(&second, "<second>"), @r"
    Revert refused — nothing was written. Change <first> was followed by <second> of the same file, which still stands; revert <second> first (newest first), then <first>. a.txt changed since <first>; its lines now (+ rows, anchored) against what <first> left (- rows):

    @@ -1,3 +1,3 @@
     1:322|ONE
     2:2f4|two
    -3:7f8|three
    +3:3c7|THREE
    ");
    assert!(!ws.revert(&second).is_error);
    let now = ws.revert(&first);
    assert!(!now.is_error, "{}", now.text());
    assert_eq!(ws.bytes("a.txt"), b"one\ntwo\nthree\n");
}

#[test]
fn a_multi_file_change_is_reverted_whole_and_a_failure_leaves_every_file() {
    let ws = Workspace::new();
    ws.file("a.txt", "a\n");
    ws.file("b.txt", "b\n");
    ws.read("a.txt");
    ws.read("b.txt");
    let result = ws.call::<EditTool>(json!({"files": [
        {"path": "a.txt", "edits": set_line(1, "a", "A")},
        {"path": "b.txt", "edits": set_line(1, "b", "B")},
    ]}));
    let id = change_id(&result);
    assert_eq!(result.ptc_value()["files"][1]["changeId"], id.as_str(), "each file names the change too");
    // A commit that fails after its first file: both files stay as the change left them.
    let failing = Session::new(
        SessionConfig::builder()
            .root(ws.root())
            .hook(|stage, path: &std::path::Path| match stage {
                Stage::AfterCommit if path.ends_with("b.txt") => Err(std::io::Error::other("stopped")),
                _ => Ok(()),
            })
            .build(),
    )
    .expect("session");
    failing.restore_changes(std::mem::take(&mut *ws.session.changes()));
    let stopped =
        hashline_tools::execute::<EditTool>(&failing, json!({"revert": id}), &hashline_tools::CallContext::top_level());
    assert!(stopped.is_error, "{}", stopped.text());
    assert_eq!((ws.bytes("a.txt"), ws.bytes("b.txt")), (b"A\n".to_vec(), b"B\n".to_vec()));
    ws.session.restore_changes(std::mem::take(&mut *failing.changes()));
    let reverted = ws.revert(&id);
    assert!(!reverted.is_error, "{}", reverted.text());
    assert_eq!((ws.bytes("a.txt"), ws.bytes("b.txt")), (b"a\n".to_vec(), b"b\n".to_vec()));
    assert_eq!(reverted.ptc_value()["files"].as_array().map(Vec::len), Some(2));
}

#[test]
fn a_created_file_goes_and_comes_back() {
    let ws = Workspace::new();
    let write = ws.call::<WriteTool>(json!({"path": "new/made.txt", "content": "made\r\n"}));
    let id = change_id(&write);
    let revert = ws.revert(&id);
    assert!(!revert.is_error, "{}", revert.text());
    assert!(!ws.path("new/made.txt").exists(), "the file the write made is gone");
    let undo = change_id(&revert);
    assert_snapshot!(revert.text().replace(&id, "<write>").replace(&undo, "<undo>"), @r#"
    Removed new/made.txt: <write> made it.

    Change <undo> (undo: edit {"revert": "<undo>"})
    "#);
    let redo = ws.revert(&undo);
    assert!(!redo.is_error, "{}", redo.text());
    assert_eq!(ws.bytes("new/made.txt"), b"made\r\n");
    assert!(
        redo.text().starts_with(&format!("Made new/made.txt again: {undo} removed it (+1 line).")),
        "{}",
        redo.text()
    );
}

#[test]
fn a_write_over_a_file_is_reverted_to_its_old_bytes() {
    let ws = Workspace::new();
    ws.file("w.bin", b"\x00\x01old binary");
    let write = ws.call::<WriteTool>(json!({"path": "w.bin", "content": "text now\n"}));
    let id = change_id(&write);
    assert!(!ws.revert(&id).is_error);
    assert_eq!(ws.bytes("w.bin"), b"\x00\x01old binary");
}

#[test]
fn a_file_another_program_changed_is_refused_with_its_rows_now() {
    let ws = Workspace::new();
    ws.file("a.txt", "one\ntwo\nthree\n");
    ws.read("a.txt");
    let id = change_id(&ws.edit("a.txt", set_line(1, "one", "ONE")));
    std::fs::write(ws.path("a.txt"), "ONE\ntwo\nthree\nfour\n").expect("another program");
    let refusal = ws.revert(&id);
    refused(&ws, &refusal, "change-conflict", &[("a.txt", Some(b"ONE\ntwo\nthree\nfour\n"))]);
    assert_snapshot!(refusal.text().replace(&id, "<id>"), @r"
    Revert refused — nothing was written. Change <id> can only be reverted while its files are exactly as it left them, and another program (or a call outside this session) changed them. a.txt changed since <id>; its lines now (+ rows, anchored) against what <id> left (- rows):

    @@ -2,2 +2,3 @@
     2:2f4|two
     3:7f8|three
    +4:add|four

    Decide against the current content: edit it with these LINE:HASH anchors, or leave it.
    ");
    // The rows shown are anchors: an edit with the new row works at once.
    ws.edit("a.txt", set_line(4, "four", "FOUR"));
    // A removed file and a file made where the change removed one are refused too.
    let made = change_id(&ws.call::<WriteTool>(json!({"path": "m.txt", "content": "m\n"})));
    std::fs::remove_file(ws.path("m.txt")).expect("remove");
    let gone = ws.revert(&made);
    refused(&ws, &gone, "change-conflict", &[("m.txt", None)]);
    assert!(gone.text().contains("m.txt is gone since"), "{}", gone.text());
}

#[test]
fn unknown_and_expired_ids_and_a_revert_with_other_arguments_are_refused() {
    let ws = Workspace::new();
    let unknown = ws.revert("c9-abcd");
    refused(&ws, &unknown, "change-unknown", &[]);
    assert_eq!(
        unknown.text(),
        "Revert refused — nothing was written. No change c9-abcd in this session (it has made none yet). A change id is the c<N>-<tag> an edit or write result of this session named."
    );
    let first = change_id(&ws.call::<WriteTool>(json!({"path": "f.txt", "content": "0\n"})));
    for i in 1..=MAX_CHANGES {
        ws.call::<WriteTool>(json!({"path": "f.txt", "content": format!("{i}\n")}));
    }
    let expired = ws.revert(&first);
    refused(&ws, &expired, "change-expired", &[("f.txt", Some(format!("{MAX_CHANGES}\n").as_bytes()))]);
    assert_eq!(
        expired.text().replace(&first, "<first>"),
        "Revert refused — nothing was written. Change <first> is no longer kept: a session keeps its last 100 changes and 64 MiB of their content (less when a server holds many sessions), and this change is older or was larger on its own."
    );
    let combined = ws.call::<EditTool>(json!({"revert": first, "path": "f.txt"}));
    assert_eq!(code(&combined), "invalid-params-combo");
    assert_eq!(
        combined.text(),
        "Edit rejected — nothing was written. revert takes a change id alone: give no path, edits, files, oldText, newText or snapshot with it."
    );
    assert_eq!(MAX_CHANGE_BYTES, 64 << 20, "the text above names the bound");
}

#[test]
fn an_edit_that_changes_nothing_has_no_change_id() {
    let ws = Workspace::new();
    ws.file("a.txt", "one\n");
    ws.read("a.txt");
    let result = ws.edit("a.txt", set_line(1, "one", "one"));
    assert!(result.ptc_value().get("changeId").is_none(), "{}", result.ptc_value());
    assert!(!result.text().contains("Change c"), "{}", result.text());
}

/// Two calls reverting one change at once: one reverts it, the other is told it was
/// reverted (it waited for the first one's locks), and the file is as before the change.
#[test]
fn concurrent_reverts_of_one_change_revert_it_once() {
    let ws = Workspace::new();
    ws.file("a.txt", "one\ntwo\n");
    ws.read("a.txt");
    for round in 0..20 {
        let before = ws.bytes("a.txt");
        let text = String::from_utf8(before.clone()).expect("utf8");
        let first = text.lines().next().expect("a line").to_owned();
        let id = change_id(&ws.edit("a.txt", set_line(1, &first, &format!("round {round}"))));
        let results: Vec<ToolResult> = std::thread::scope(|scope| {
            let calls: Vec<_> = (0..2).map(|_| scope.spawn(|| ws.revert(&id))).collect();
            calls.into_iter().map(|c| c.join().expect("no panic")).collect()
        });
        let codes: Vec<&str> = results.iter().map(|r| if r.is_error { code(r) } else { "ok" }).collect();
        assert!(codes.contains(&"ok") && codes.contains(&"change-reverted"), "round {round}: {codes:?}");
        assert_eq!(ws.bytes("a.txt"), before, "round {round}");
    }
}

/// The refusals that have nothing to diff: a file the change removed that exists again, and
/// kept bytes that are gone.
#[test]
// Under Wine, listing the undo store's directory through its handle after every blob in it was
// removed by path hangs in GetFileInformationByHandleEx (seen at 309e4eb; not reproduced on
// Linux or with the portable backend). Not run there until it is understood: see the notes.
#[cfg_attr(windows, ignore = "hangs under Wine: listing an emptied store directory through its handle")]
fn a_file_made_again_by_another_program_and_lost_bytes_are_refused() {
    let ws = Workspace::new();
    let made = change_id(&ws.call::<WriteTool>(json!({"path": "m.txt", "content": "m\n"})));
    let removal = change_id(&ws.revert(&made));
    std::fs::write(ws.path("m.txt"), "theirs\n").expect("another program");
    let refusal = ws.revert(&removal);
    refused(&ws, &refusal, "change-conflict", &[("m.txt", Some(b"theirs\n"))]);
    assert_eq!(
        refusal.text().replace(&removal, "<id>"),
        "Revert refused — nothing was written. Change <id> can only be reverted while its files are exactly as it left them, and another program (or a call outside this session) changed them. m.txt exists again since <id> removed it.\n\nDecide against the current content: edit it with these LINE:HASH anchors, or leave it."
    );
    assert_eq!(refusal.ptc_value()["error"]["details"]["files"][0]["state"], "present");

    // Kept bytes that are gone (a directory store whose blob was removed).
    let dir = tempfile::tempdir().expect("tempdir");
    ws.session.restore_changes(hashline_tools::changes::ChangeLog::on_disk(None, dir.path().join("kept"), None));
    ws.file("k.txt", "k\n");
    ws.read("k.txt");
    let id = change_id(&ws.edit("k.txt", set_line(1, "k", "K")));
    for entry in std::fs::read_dir(dir.path().join("kept")).expect("blobs") {
        std::fs::remove_file(entry.expect("entry").path()).expect("remove");
    }
    let lost = ws.revert(&id);
    refused(&ws, &lost, "change-expired", &[("k.txt", Some(b"K\n"))]);
    assert_eq!(
        lost.text().replace(&id, "<id>"),
        "Revert refused — nothing was written. The bytes kept for k.txt before <id> are gone or were altered, so the change cannot be reverted."
    );
}

/// Step 5's compare before commit: another program that writes a file after the revert's
/// check (step 3) and before its commit makes the revert refuse, and its bytes stay; the
/// change stands, and reverts once the file is as it left it again.
#[test]
fn a_file_written_between_the_check_and_the_commit_is_not_reverted() {
    let ws = Workspace::new();
    ws.file("a.txt", "one\ntwo\n");
    ws.read("a.txt");
    let id = change_id(&ws.edit("a.txt", set_line(1, "one", "ONE")));
    let racing = Session::new(
        SessionConfig::builder()
            .root(ws.root())
            .hook(|stage, path: &std::path::Path| {
                if stage == Stage::BeforeCommit && path.ends_with("a.txt") {
                    let mut file = std::fs::OpenOptions::new().append(true).open(path)?;
                    std::io::Write::write_all(&mut file, b"appended\n")?;
                }
                Ok(())
            })
            .build(),
    )
    .expect("session");
    racing.restore_changes(std::mem::take(&mut *ws.session.changes()));
    let raced =
        hashline_tools::execute::<EditTool>(&racing, json!({"revert": id}), &hashline_tools::CallContext::top_level());
    refused(&ws, &raced, "change-conflict", &[("a.txt", Some(b"ONE\ntwo\nappended\n"))]);
    assert_snapshot!(raced.text().replace(&id, "<id>"), @r"
    Revert refused — nothing was written. Change <id> can only be reverted while its files are exactly as it left them, and another program (or a call outside this session) changed them. a.txt changed since <id>; its lines now (+ rows, anchored) against what <id> left (- rows):

    @@ -1,2 +1,3 @@
     1:322|ONE
     2:2f4|two
    +3:68a|appended

    Decide against the current content: edit it with these LINE:HASH anchors, or leave it.
    ");
    ws.session.restore_changes(std::mem::take(&mut *racing.changes()));
    std::fs::write(ws.path("a.txt"), "ONE\ntwo\n").expect("as the change left it");
    let reverted = ws.revert(&id);
    assert!(!reverted.is_error, "{}", reverted.text());
    assert_eq!(ws.bytes("a.txt"), b"one\ntwo\n");
}

/// A later change of the file whose bytes were not kept (over the bound on its own) stands
/// on it for good: reverting the earlier change is refused, and the text says that the later
/// one cannot be reverted either (not "revert it first").
#[test]
fn a_change_followed_by_one_not_kept_cannot_be_reverted() {
    let ws = Workspace::new();
    ws.file("a.txt", "one\n");
    ws.read("a.txt");
    let first = change_id(&ws.edit("a.txt", set_line(1, "one", "ONE")));
    let line = "x".repeat(1023) + "\n";
    let big = line.repeat((MAX_CHANGE_BYTES / 1024) as usize + 1);
    let written = ws.call::<WriteTool>(json!({"path": "a.txt", "content": big}));
    assert!(!written.is_error, "{}", written.text());
    let later = written.ptc_value()["changeId"].as_str().expect("an id").to_owned();
    let refusal = ws.revert(&first);
    assert_eq!(code(&refusal), "change-superseded", "{}", refusal.text());
    let text = refusal.text().replace(&first, "<first>").replace(&later, "<later>");
    let head = text.lines().next().unwrap_or_default();
    assert_eq!(
        head,
        "Revert refused — nothing was written. Change <first> was followed by <later> of the same file, which still stands; <later> cannot be reverted (its bytes were not kept: over the bound), so neither can <first>. a.txt changed since <first>; its lines now (+ rows, anchored) against what <first> left (- rows):"
    );
    // 1024-byte lines: the budget (50 KB less 512 bytes) cuts the rows before the 400-row cap.
    assert!(text.contains("[Diff cut at 50 rows; read the file for the rest.]"), "the rows shown are bounded: {text}");
    assert!(text.ends_with("Edit the current content instead, with these LINE:HASH anchors."), "{text}");
    assert_eq!(std::fs::metadata(ws.path("a.txt")).expect("meta").len(), big.len() as u64);
    assert_eq!(code(&ws.revert(&later)), "change-expired");
}

/// The change a `change-superseded` refusal says to revert first.
fn revert_first(result: &ToolResult) -> Option<String> {
    let text = result.text();
    let at = text.find("; revert ")? + "; revert ".len();
    let rest = &text[at..];
    let id = &rest[..rest.find(" first")?];
    Some(id.to_owned())
}

/// Hostile-testing UX1: with a file also changed outside the session, following the
/// refusals' advice converges. A revert that cancelled a later change is never named as
/// the one to revert first (reverting it would make that change again, and the next try
/// named the revert of the revert, without end); the advice names the newest change that
/// still stands in the way, and the walk ends in a `change-conflict` on the file the other
/// program changed.
#[test]
fn following_the_advice_converges_when_a_file_also_changed_outside() {
    let ws = Workspace::new();
    ws.file("a.txt", "a\nb\nc\nd\n");
    ws.read("a.txt");
    let c1 = change_id(&ws.edit("a.txt", set_line(1, "a", "A")));
    let c2 = change_id(&ws.edit("a.txt", set_line(2, "b", "B")));
    std::fs::write(ws.path("a.txt"), "A\nB\nc\nd\nEXTRA\n").expect("another program");
    ws.read("a.txt");
    let c3 = change_id(&ws.edit("a.txt", set_line(3, "c", "C")));
    let mut steps = Vec::new();
    let mut target = c1.clone();
    for _ in 0..8 {
        let result = ws.revert(&target);
        let outcome = if result.is_error { code(&result).to_owned() } else { "reverted".to_owned() };
        steps.push(format!("{target}: {outcome}"));
        match (result.is_error, revert_first(&result)) {
            (false, _) => target = c1.clone(),
            (true, Some(first)) if code(&result) == "change-superseded" => target = first,
            _ => break,
        }
    }
    let names = |s: &str| s.replace(&c1, "c1").replace(&c2, "c2").replace(&c3, "c3");
    let steps: Vec<String> = steps.iter().map(|s| names(s)).collect();
    assert_eq!(
        steps,
        ["c1: change-superseded", "c3: reverted", "c1: change-superseded", "c2: change-conflict"],
        "the advice loops"
    );
    assert_eq!(ws.bytes("a.txt"), b"A\nB\nc\nd\nEXTRA\n");
}

/// Hostile-testing U1-F: a revert writes only where its change wrote. When a directory on
/// the way was replaced (here `sub/` by a symlink to `other/`, where a file holds the
/// change's exact bytes), the path now leads elsewhere: refused (`change-conflict`), naming
/// both places, and nothing written in either.
#[cfg(unix)]
#[test]
fn a_revert_whose_path_now_leads_elsewhere_is_refused() {
    let ws = Workspace::new();
    std::fs::create_dir(ws.path("sub")).expect("mkdir");
    ws.file("sub/f.txt", "one\n");
    ws.read("sub/f.txt");
    let id = change_id(&ws.edit("sub/f.txt", set_line(1, "one", "ONE")));
    std::fs::rename(ws.path("sub"), ws.path("moved")).expect("rename");
    std::fs::create_dir(ws.path("other")).expect("mkdir");
    std::fs::write(ws.path("other/f.txt"), "ONE\n").expect("the change's bytes, elsewhere");
    std::os::unix::fs::symlink("other", ws.path("sub")).expect("symlink");
    let refusal = ws.revert(&id);
    refused(&ws, &refusal, "change-conflict", &[("other/f.txt", Some(b"ONE\n")), ("moved/f.txt", Some(b"ONE\n"))]);
    assert_snapshot!(refusal.text().replace(&id, "<id>"), @"Revert refused — nothing was written. Change <id> wrote sub/f.txt, and that path now leads to other/f.txt (a directory on its way was replaced or moved): a revert writes only the file its change wrote. Decide against the file there, or leave it.");
    let details = &refusal.ptc_value()["error"]["details"];
    assert_eq!(details["files"][0]["state"], "elsewhere", "{details}");
}
