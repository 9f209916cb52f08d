//! The `hashline` binary, driven as a user would.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

/// A project directory, and a state directory of its own for the default session.
struct Dir(tempfile::TempDir, tempfile::TempDir);

impl Dir {
    fn new() -> Self {
        let dir = Self(tempfile::tempdir().expect("tempdir"), tempfile::tempdir().expect("state"));
        std::fs::write(dir.0.path().join("a.txt"), "alpha\nbeta").expect("write");
        dir
    }

    fn run(&self, args: &[&str], stdin: Option<&str>) -> Output {
        let mut child = Command::new(env!("CARGO_BIN_EXE_hashline"))
            .args(args)
            .current_dir(self.0.path())
            .env("XDG_STATE_HOME", self.1.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn hashline");
        let mut input = child.stdin.take().expect("stdin");
        input.write_all(stdin.unwrap_or("").as_bytes()).expect("stdin write");
        drop(input);
        child.wait_with_output().expect("wait")
    }
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The snapshot tag a result names for `bytes`.
fn tag(bytes: &[u8]) -> String {
    hashline::core::snapshot::SnapshotTag::of(bytes).to_string()
}

#[test]
fn read_prints_anchored_rows() {
    let dir = Dir::new();
    let out = dir.run(&["read", "a.txt"], None);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), format!("snapshot: {}\n1:3c8|alpha\n2:589|beta\n", tag(b"alpha\nbeta")));
}

#[test]
fn call_prints_the_json_projection_with_anchors_matching_the_rows() {
    let dir = Dir::new();
    let out = dir.run(&["call", "read", r#"{"path":"a.txt"}"#], None);
    assert_eq!(out.status.code(), Some(0));
    let result: Value = serde_json::from_str(&stdout(&out)).expect("json");
    let text = result["content"][0]["text"].as_str().expect("text");
    let anchors: Vec<&str> = result["details"]["ptcValue"]["lines"]
        .as_array()
        .expect("lines")
        .iter()
        .filter_map(|l| l["anchor"].as_str())
        .collect();
    let rows: Vec<&str> = text.lines().filter_map(|row| row.split_once('|').map(|(a, _)| a)).collect();
    assert_eq!(anchors, rows);
    assert_eq!(result["isError"], false);
    assert!(hashline::view::read_meta_from_meta(&result["meta"]).is_some());
}

#[test]
fn call_reads_arguments_from_stdin() {
    let dir = Dir::new();
    let out = dir.run(&["call", "read", "-"], Some(r#"{"path":"a.txt","limit":1}"#));
    let result: Value = serde_json::from_str(&stdout(&out)).expect("json");
    assert_eq!(result["details"]["ptcValue"]["lines"].as_array().map(Vec::len), Some(1));
}

#[test]
fn batch_runs_calls_in_one_session_one_line_each() {
    let dir = Dir::new();
    let input = concat!(
        r#"{"tool":"read","args":{"path":"a.txt"}}"#,
        "\n",
        r#"{"tool":"read","args":{"path":"a.txt","offset":2}}"#,
        "\n",
        "not json\n",
    );
    let out = dir.run(&["batch"], Some(input));
    let lines: Vec<Value> = stdout(&out).lines().map(|l| serde_json::from_str(l).expect("json line")).collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["content"][0]["text"], format!("snapshot: {}\n1:3c8|alpha\n2:589|beta", tag(b"alpha\nbeta")));
    assert_eq!(lines[1]["content"][0]["text"], format!("snapshot: {}\n2:589|beta", tag(b"alpha\nbeta")));
    assert_eq!(lines[2]["isError"], true);
    assert_eq!(out.status.code(), Some(1), "a failed line makes the batch exit 1");
}

#[test]
fn exit_codes() {
    let dir = Dir::new();
    let missing = dir.run(&["read", "missing.txt"], None);
    assert_eq!(missing.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&missing.stderr), "File not found: missing.txt\n");
    assert_eq!(dir.run(&["frobnicate"], None).status.code(), Some(2));
    assert_eq!(dir.run(&["call", "read", "{not json"], None).status.code(), Some(2));
    let unknown = dir.run(&["call", "nope", "{}"], None);
    assert_eq!(unknown.status.code(), Some(1));
    let result: Value = serde_json::from_str(&stdout(&unknown)).expect("json");
    assert_eq!(result["details"]["ptcValue"]["error"]["code"], "unknown-tool");
}

#[test]
fn write_from_stdin_then_json_output() {
    let dir = Dir::new();
    let out = dir.run(&["write", "new.txt"], Some("one\ntwo\n"));
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    let (rows, change) = text.split_once("\n\nChange c1-").expect("the change line");
    assert_eq!(rows, format!("snapshot: {}\n1:260|one\n2:2f4|two", tag(b"one\ntwo\n")));
    assert!(
        change.ends_with("\"})\n") && change.len() == "0000 (undo: edit {\"revert\": \"c1-0000\"})\n".len(),
        "{change}"
    );
    let json = dir.run(&["--json", "read", "new.txt"], None);
    let result: Value = serde_json::from_str(&stdout(&json)).expect("json");
    assert_eq!(result["details"]["ptcValue"]["lines"][1]["anchor"], "2:2f4");
}

#[test]
fn roots_confine_paths() {
    let dir = Dir::new();
    let out = dir.run(&["read", "../outside.txt"], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("Path is outside the session roots: ../outside.txt"));
    let sub = dir.0.path().join("sub");
    std::fs::create_dir(&sub).expect("mkdir");
    std::fs::write(sub.join("s.txt"), "s").expect("write");
    let out = dir.run(&["--root", "sub", "read", "s.txt"], None);
    assert_eq!(stdout(&out), format!("snapshot: {}\n1:{}|s\n", tag(b"s"), hashline::core::LineHash::of(b"s")));
}

#[test]
fn session_file_keeps_served_rows_across_invocations() {
    let dir = Dir::new();
    let file = dir.0.path().join("session.json");
    let file_arg = file.to_string_lossy().into_owned();
    assert_eq!(dir.run(&["--session", &file_arg, "read", "a.txt"], None).status.code(), Some(0));
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&file).expect("saved")).expect("json");
    assert_eq!(saved["version"], 3);
    let files = saved["ledger"]["files"].as_object().expect("files");
    assert_eq!(files.len(), 1);
    std::fs::write(&file, "{broken").expect("write");
    assert_eq!(dir.run(&["--session", &file_arg, "read", "a.txt"], None).status.code(), Some(2));
}

#[test]
fn tools_lists_every_tool_with_schemas() {
    let dir = Dir::new();
    let out = dir.run(&["tools"], None);
    let tools: Value = serde_json::from_str(&stdout(&out)).expect("json");
    let names: Vec<&str> = tools.as_array().expect("array").iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["read", "edit", "write", "ls", "find", "grep", "ast_search"]);
    for tool in tools.as_array().expect("array") {
        assert_eq!(tool["inputSchema"]["type"], "object", "{}", tool["name"]);
        assert!(tool["outputSchema"]["properties"]["tool"].is_object());
    }
}

#[test]
fn grep_prints_sections_of_anchored_rows() {
    let dir = Dir::new();
    std::fs::write(dir.0.path().join("b.txt"), "Beta\n").expect("write");
    let out = dir.run(&["grep", "BETA", "-i", "-C", "1"], None);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        stdout(&out),
        format!(
            "[2 matches in 2 files]\n--- a.txt (1 matches; snapshot: {}) ---\na.txt:  1:3c8|alpha\na.txt:>>2:589|beta\n\
             --- b.txt (1 matches; snapshot: {}) ---\nb.txt:>>1:5c0|Beta\n",
            tag(b"alpha\nbeta"),
            tag(b"Beta\n")
        )
    );
    let out = dir.run(&["grep", "(", "--summary"], None);
    assert_eq!(out.status.code(), Some(1));
    let out = dir.run(&["--json", "grep", "(", "--literal", "--limit", "1"], None);
    let result: Value = serde_json::from_str(&stdout(&out)).expect("json");
    assert_eq!(result["details"]["ptcValue"]["completeness"]["search"], "complete");
}

#[test]
fn grep_scope_symbol_shows_the_enclosing_symbol() {
    let dir = Dir::new();
    std::fs::write(dir.0.path().join("m.rs"), "fn one() -> u32 {\n    let x = 1;\n    x\n}\n\nfn two() {}\n")
        .expect("write");
    let out = dir.run(&["grep", "let x", "m.rs", "--scope", "symbol"], None);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let text = stdout(&out);
    assert!(text.contains("1:") && text.contains("fn one() -> u32 {") && text.contains("4:"), "{text}");
    assert!(!text.contains("fn two"), "{text}");
    let out = dir.run(&["--json", "grep", "let x", "m.rs", "--scope", "symbol", "--scope-context", "0"], None);
    let result: Value = serde_json::from_str(&stdout(&out)).expect("json");
    let group = &result["details"]["ptcValue"]["scopes"]["groups"][0];
    assert_eq!(group["symbol"]["name"], "one", "{result}");
    // --scope-context needs --scope; --scope takes only `symbol`.
    assert_eq!(dir.run(&["grep", "x", "--scope-context", "1"], None).status.code(), Some(2));
    assert_eq!(dir.run(&["grep", "x", "--scope", "file"], None).status.code(), Some(2));
}

#[test]
fn read_by_symbol_with_map_and_bundle_and_syntax_validate_flags() {
    let dir = Dir::new();
    let source = "const LIMIT: u32 = 3;\n\nfn helper() -> u32 {\n    LIMIT\n}\n\nfn main() {\n    helper();\n}\n";
    std::fs::write(dir.0.path().join("m.rs"), source).expect("write");
    let out = dir.run(&["read", "m.rs", "--symbol", "main"], None);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        stdout(&out),
        format!(
            "snapshot: {}\n[Symbol: main (function), lines 7-9 of 9]\n\n7:f9b|fn main() {{\n8:75a|    helper();\n9:b18|}}\n",
            tag(source.as_bytes())
        )
    );
    let out = dir.run(&["read", "m.rs", "--symbol", "main", "--bundle", "local"], None);
    let text = stdout(&out);
    assert!(text.contains("## Local support") && text.contains("fn helper() -> u32 {"), "{text}");
    let out = dir.run(&["read", "m.rs", "--map"], None);
    assert!(stdout(&out).contains("File Map: m.rs"), "{}", stdout(&out));
    assert_eq!(dir.run(&["read", "m.rs", "--bundle", "local"], None).status.code(), Some(2), "--bundle needs --symbol");
    // --syntax-validate block refuses an edit and a write that add syntax errors.
    let edits = r#"[{"set_line":{"anchor":"7:f9b","new_text":"fn main( {"}}]"#;
    let out = dir.run(&["edit", "m.rs", "--edits", edits, "--syntax-validate", "block"], None);
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("syntax-regression: lines 7"), "{said}");
    let out = dir.run(&["write", "m.rs", "--content", "fn (", "--syntax-validate", "block"], None);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert_eq!(std::fs::read_to_string(dir.0.path().join("m.rs")).expect("read"), source, "nothing written");
    let out = dir.run(&["edit", "m.rs", "--edits", edits, "--syntax-validate", "off"], None);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
}

#[test]
fn search_prints_structural_matches() {
    let dir = Dir::new();
    std::fs::write(dir.0.path().join("m.rs"), "fn main() {\n    x.unwrap();\n}\n").expect("write");
    let out = dir.run(&["search", "$X.unwrap()", "--lang", "rust"], None);
    assert_eq!(out.status.code(), Some(0));
    let tag = tag(b"fn main() {\n    x.unwrap();\n}\n");
    assert_eq!(stdout(&out), format!("--- m.rs (snapshot: {tag}) ---\n>>2:c0f|    x.unwrap();\n"));
    let out = dir.run(&["search", "x", "-l", "cobol"], None);
    assert_eq!(out.status.code(), Some(1));
}

/// Issue 21 item 7: `hashline map FILE` (SPEC §10.2) prints the map `read` appends to a
/// truncated view, `--json` the symbols; a file type without a map exits 1 (the command did
/// not exist on 9b00c33: clap's usage error, exit 2).
#[test]
fn map_prints_a_files_symbols_as_text_and_json() {
    let dir = Dir::new();
    let source = "struct Calc;\nimpl Calc {\n    fn add(&self, x: i32) -> i32 {\n        x\n    }\n}\nfn main() {}\n";
    std::fs::write(dir.0.path().join("calc.rs"), source).expect("write");
    let out = dir.run(&["map", "calc.rs"], None);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    insta::assert_snapshot!("map_text", stdout(&out));
    let out = dir.run(&["--json", "map", "calc.rs"], None);
    assert_eq!(out.status.code(), Some(0));
    let value: Value = serde_json::from_str(&stdout(&out)).expect("json");
    assert_eq!(value["lines"], 7);
    let symbols = &value["map"]["symbols"];
    assert_eq!(symbols[1]["kind"], "impl");
    assert_eq!(symbols[1]["children"][0]["name"], "add");
    assert_eq!(
        (symbols[1]["children"][0]["startLine"].as_u64(), symbols[1]["children"][0]["endLine"].as_u64()),
        (Some(3), Some(5))
    );
    let out = dir.run(&["map", "a.txt"], None);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "[Warning: structural map not available for .txt files]\n");
    let out = dir.run(&["--json", "map", "missing.rs"], None);
    assert_eq!(out.status.code(), Some(1));
    let value: Value = serde_json::from_str(&stdout(&out)).expect("json");
    assert_eq!(value["error"]["code"], "file-not-found");
}

/// Issue 27: changes and undo across processes of the root's session. Each call is its own
/// process; the change log and the bytes it keeps live in the state directory.
#[test]
fn changes_and_undo_work_across_processes() {
    let dir = Dir::new();
    std::fs::write(dir.0.path().join("crlf.txt"), b"\xef\xbb\xbfone\r\ntwo\r\n").expect("write");
    let changes = |dir: &Dir| stdout(&dir.run(&["changes"], None));
    assert_eq!(changes(&dir), "No changes in this session.\n");
    assert_eq!(dir.run(&["read", "crlf.txt"], None).status.code(), Some(0));
    let edit = dir.run(&["edit", "crlf.txt", "--edits", r#"[{"set_line":{"anchor":"2:2f4","new_text":"TWO"}}]"#], None);
    assert_eq!(edit.status.code(), Some(0), "{}", String::from_utf8_lossy(&edit.stderr));
    let write = dir.run(&["--json", "write", "made/new.txt", "--content", "new\n"], None);
    let written: Value = serde_json::from_str(&stdout(&write)).expect("json");
    let made = written["details"]["ptcValue"]["changeId"].as_str().expect("id").to_owned();
    let listed = changes(&dir);
    let lines: Vec<&str> = listed.lines().collect();
    assert_eq!(lines.len(), 2, "{listed}");
    assert!(lines[0].starts_with("c1-") && lines[0].ends_with("edit    crlf.txt +1 -1"), "{listed}");
    assert!(lines[1].starts_with(&made) && lines[1].ends_with("write   made/new.txt (made) +1 -0"), "{listed}");
    // `undo` takes the latest change that stands: the write, then the edit.
    let undo = dir.run(&["undo"], None);
    assert_eq!(undo.status.code(), Some(0));
    assert!(stdout(&undo).starts_with(&format!("Removed made/new.txt: {made} made it.")), "{}", stdout(&undo));
    assert!(!dir.0.path().join("made/new.txt").exists());
    assert_eq!(dir.run(&["undo"], None).status.code(), Some(0));
    assert_eq!(std::fs::read(dir.0.path().join("crlf.txt")).expect("read"), b"\xef\xbb\xbfone\r\ntwo\r\n");
    let none = dir.run(&["undo"], None);
    assert_eq!(none.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&none.stderr),
        "hashline: no change to undo in this session (hashline changes lists them)\n"
    );
    // A revert is a change too: undoing it by id makes the write again.
    let json: Value = serde_json::from_str(&stdout(&dir.run(&["changes", "--json"], None))).expect("json");
    let all = json.as_array().expect("changes");
    assert_eq!(all.len(), 4);
    assert_eq!(all[1]["revertedBy"], all[2]["id"]);
    assert_eq!(all[2]["reverts"], made.as_str());
    assert_eq!(all[2]["files"][0]["state"], "removed");
    let redo = dir.run(&["undo", all[2]["id"].as_str().expect("id")], None);
    assert_eq!(redo.status.code(), Some(0), "{}", String::from_utf8_lossy(&redo.stderr));
    assert_eq!(std::fs::read(dir.0.path().join("made/new.txt")).expect("made again"), b"new\n");
    // An unknown id is a tool error (exit 1) with its code.
    let unknown = dir.run(&["--json", "undo", "c99-0000"], None);
    assert_eq!(unknown.status.code(), Some(1));
    let result: Value = serde_json::from_str(&stdout(&unknown)).expect("json");
    assert_eq!(result["details"]["ptcValue"]["error"]["code"], "change-unknown");
    // The bytes live beside the session file, never in the project.
    let project: Vec<String> = std::fs::read_dir(dir.0.path())
        .expect("ls")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert!(project.iter().all(|name| !name.contains("change")), "{project:?}");
    let sessions = dir.1.path().join("hashline/sessions");
    let kept = std::fs::read_dir(&sessions).expect("sessions").filter_map(Result::ok);
    assert!(kept.into_iter().any(|e| e.file_name().to_string_lossy().ends_with(".json.changes")));
}

/// `--stateless` keeps no session: nothing to undo, and no change log is written.
#[test]
fn a_stateless_call_has_nothing_to_undo() {
    let dir = Dir::new();
    assert_eq!(dir.run(&["--stateless", "write", "s.txt", "--content", "s\n"], None).status.code(), Some(0));
    assert_eq!(dir.run(&["--stateless", "undo"], None).status.code(), Some(1));
    assert_eq!(stdout(&dir.run(&["changes"], None)), "No changes in this session.\n");
}

/// A change whose bytes are over the change log's bound on their own (a write over a file
/// larger than 64 MiB, whose old bytes are not even read) is listed as not kept, and its
/// undo is refused as expired, the file as written.
#[test]
fn a_change_over_the_bound_is_listed_as_not_kept() {
    let dir = Dir::new();
    let big = dir.0.path().join("big.bin");
    // Sparse: its bytes are never read (over the bound by its size alone).
    std::fs::File::create(&big).expect("create").set_len(65 * 1024 * 1024).expect("size");
    let write = dir.run(&["write", "big.bin", "--content", "small\n"], None);
    assert_eq!(write.status.code(), Some(0), "{}", String::from_utf8_lossy(&write.stderr));
    let listed = stdout(&dir.run(&["changes"], None));
    assert!(listed.trim_end().ends_with("write   big.bin +1 -0  (not kept: over the bound)"), "{listed}");
    let json: Value = serde_json::from_str(&stdout(&dir.run(&["changes", "--json"], None))).expect("json");
    assert_eq!(json[0]["kept"], false);
    let undo = dir.run(&["--json", "undo"], None);
    assert_eq!(undo.status.code(), Some(1));
    let result: Value = serde_json::from_str(&stdout(&undo)).expect("json");
    assert_eq!(result["details"]["ptcValue"]["error"]["code"], "change-expired");
    assert_eq!(std::fs::read(&big).expect("read"), b"small\n");
}

/// Kept bytes that cannot be stored (here the change directory's name is taken by a file;
/// a full disk alike) do not fail the edit: its undo says the bytes are gone
/// (`change-expired`) and writes nothing.
#[test]
fn bytes_that_could_not_be_kept_make_the_undo_say_they_are_gone() {
    let dir = Dir::new();
    std::fs::write(dir.0.path().join("a.txt"), "one\n").expect("write");
    assert_eq!(dir.run(&["read", "a.txt"], None).status.code(), Some(0));
    let sessions = dir.1.path().join("hashline/sessions");
    let session = std::fs::read_dir(&sessions)
        .expect("sessions")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "json"))
        .expect("the root's session file");
    let mut taken = session.into_os_string();
    taken.push(".changes");
    std::fs::write(&taken, "not a directory").expect("take the name");
    let edit = dir.run(&["edit", "a.txt", "--edits", r#"[{"set_line":{"anchor":"1:260","new_text":"ONE"}}]"#], None);
    assert_eq!(edit.status.code(), Some(0), "{}", String::from_utf8_lossy(&edit.stderr));
    let undo = dir.run(&["--json", "undo"], None);
    assert_eq!(undo.status.code(), Some(1));
    let result: Value = serde_json::from_str(&stdout(&undo)).expect("json");
    assert_eq!(result["details"]["ptcValue"]["error"]["code"], "change-expired", "{result}");
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("are gone or were altered"), "{text}");
    assert_eq!(std::fs::read(dir.0.path().join("a.txt")).expect("read"), b"ONE\n");
}

/// The session's change ids, oldest first.
fn change_ids(dir: &Dir) -> Vec<String> {
    let json: Value = serde_json::from_str(&stdout(&dir.run(&["changes", "--json"], None))).expect("json");
    json.as_array().expect("changes").iter().map(|c| c["id"].as_str().expect("id").to_owned()).collect()
}

/// Sets line `line` (now `old`) of `path` to `new` in the root's session.
fn set(dir: &Dir, path: &str, line: u32, old: &str, new: &str) {
    let anchor = format!("{line}:{}", hashline::core::LineHash::of(old.as_bytes()));
    let edits = serde_json::json!([{"set_line": {"anchor": anchor, "new_text": new}}]).to_string();
    let out = dir.run(&["edit", path, "--edits", &edits], None);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
}

/// Hostile-testing UX1 from a shell: two edits, the file changed outside, a third edit.
/// `undo --to <first>` would revert the three newest first, but the second cannot follow
/// the third: refused whole, nothing written, naming how far it goes through; going back
/// that far works, and then `undo <first>`'s advice (revert the second first) ends in a
/// `change-conflict`, not in a loop.
#[test]
fn undo_to_is_all_or_nothing_and_the_advice_converges() {
    let dir = Dir::new();
    let file = dir.0.path().join("f.txt");
    std::fs::write(&file, "a\nb\nc\nd\n").expect("write");
    assert_eq!(dir.run(&["read", "f.txt"], None).status.code(), Some(0));
    set(&dir, "f.txt", 1, "a", "A");
    set(&dir, "f.txt", 2, "b", "B");
    std::fs::write(&file, "A\nB\nc\nd\nEXTRA\n").expect("another program");
    assert_eq!(dir.run(&["read", "f.txt"], None).status.code(), Some(0));
    set(&dir, "f.txt", 3, "c", "C");
    let ids = change_ids(&dir);
    let names = |text: &str| text.replace(&ids[0], "<c1>").replace(&ids[1], "<c2>").replace(&ids[2], "<c3>");

    let refused = dir.run(&["undo", "--to", &ids[0]], None);
    assert_eq!(refused.status.code(), Some(1));
    insta::assert_snapshot!(names(&String::from_utf8_lossy(&refused.stderr)), @"Revert refused — nothing was written. Going back to <c1> reverts <c3>, <c2>, <c1> newest first, but f.txt changed outside this session between <c2> and <c3> (its next change), so once <c3> is reverted it would not be what <c2> left. Going back to <c3> goes through; then decide against the content.");
    let json = dir.run(&["--json", "undo", "--to", &ids[0]], None);
    let result: Value = serde_json::from_str(&stdout(&json)).expect("json");
    let error = &result["details"]["ptcValue"]["error"];
    assert_eq!(error["code"], "change-conflict", "{result}");
    assert_eq!(error["details"]["changeId"], ids[1].as_str());
    assert_eq!(error["details"]["to"], ids[0].as_str());
    assert_eq!(std::fs::read_to_string(&file).expect("read"), "A\nB\nC\nd\nEXTRA\n", "nothing written");
    assert_eq!(change_ids(&dir).len(), 3, "nothing recorded");

    let through = dir.run(&["undo", "--to", &ids[2]], None);
    assert_eq!(through.status.code(), Some(0), "{}", String::from_utf8_lossy(&through.stderr));
    assert_eq!(std::fs::read_to_string(&file).expect("read"), "A\nB\nc\nd\nEXTRA\n");
    let advice = dir.run(&["undo", &ids[0]], None);
    let text = names(&String::from_utf8_lossy(&advice.stderr));
    assert!(text.contains("revert <c2> first (newest first), then <c1>"), "{text}");
    let conflict = dir.run(&["--json", "undo", &ids[1]], None);
    let result: Value = serde_json::from_str(&stdout(&conflict)).expect("json");
    assert_eq!(result["details"]["ptcValue"]["error"]["code"], "change-conflict", "{result}");
}

/// `undo --to <id>`: every change in effect from the newest back to and including `<id>`,
/// over several files, in one commit; each step is recorded as its own revert. A change
/// already undone (and its revert) is skipped.
#[test]
fn undo_to_reverts_every_change_in_effect_back_to_the_one_named() {
    let dir = Dir::new();
    std::fs::write(dir.0.path().join("f.txt"), "one\ntwo\n").expect("write");
    std::fs::write(dir.0.path().join("g.txt"), "uno\n").expect("write");
    assert_eq!(dir.run(&["read", "f.txt"], None).status.code(), Some(0));
    assert_eq!(dir.run(&["read", "g.txt"], None).status.code(), Some(0));
    set(&dir, "f.txt", 1, "one", "ONE");
    set(&dir, "g.txt", 1, "uno", "UNO");
    set(&dir, "f.txt", 2, "two", "TWO");
    let undone = dir.run(&["undo"], None);
    assert_eq!(undone.status.code(), Some(0), "{}", String::from_utf8_lossy(&undone.stderr));
    set(&dir, "f.txt", 2, "two", "2");
    let ids = change_ids(&dir);
    assert_eq!(ids.len(), 5);
    let out = dir.run(&["undo", "--to", &ids[0]], None);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let after = change_ids(&dir);
    assert_eq!(after.len(), 8, "one revert per change in effect");
    let mut text = stdout(&out);
    for (i, id) in after.iter().enumerate() {
        text = text.replace(id.as_str(), &format!("<c{}>", i + 1));
    }
    insta::assert_snapshot!(text, @r#"
    Reverted 3 changes, newest first, back to and including <c1>: <c5> (by <c6>), <c2> (by <c7>), <c1> (by <c8>).

    Reverted f.txt to its content before <c1> (+2 -2 lines).
    snapshot: sdsh88aea

    +1:260|one
    +2:2f4|two

    Reverted g.txt to its content before <c2> (+1 -1 line).
    snapshot: synk44sa2

    +1:431|uno

    Changes <c6>, <c7>, <c8> (undo: revert them newest first, from <c8>: edit {"revert": "<c8>"})
    "#);
    assert_eq!(std::fs::read_to_string(dir.0.path().join("f.txt")).expect("read"), "one\ntwo\n");
    assert_eq!(std::fs::read_to_string(dir.0.path().join("g.txt")).expect("read"), "uno\n");
    let listed = stdout(&dir.run(&["changes"], None));
    // Every edit is reverted (the third by the plain `undo`, whose revert stays in effect).
    for id in [&ids[0], &ids[1], &ids[2], &ids[4]] {
        assert!(listed.lines().any(|l| l.starts_with(id.as_str()) && l.contains("reverted by")), "{id}: {listed}");
    }
    let none = dir.run(&["undo"], None);
    assert_eq!(none.status.code(), Some(1), "nothing in effect is left to undo: {}", stdout(&none));
}

/// Issue 49: a tag printed by one call serves the edit of a later process — with a session
/// or `--stateless` — however far another program moved the line since; the store is in the
/// state directory, never in the project.
#[test]
fn a_snapshot_tag_printed_by_a_read_serves_a_later_stateless_edit() {
    let dir = Dir::new();
    let path = dir.0.path().join("far.txt");
    std::fs::write(&path, "keep\ntarget\nend\n").expect("write");
    let out = dir.run(&["--stateless", "read", "far.txt"], None);
    let shown = stdout(&out);
    let tag = shown.lines().next().and_then(|l| l.strip_prefix("snapshot: ")).expect("a tag line").to_owned();
    let header: String = (0..300).map(|i| format!("header {i}\n")).collect();
    std::fs::write(&path, format!("{header}keep\ntarget\nend\n")).expect("write");
    let anchor = format!("2:{}", hashline::core::LineHash::of(b"target"));
    let edits = serde_json::json!([{"set_line": {"anchor": anchor, "new_text": "TARGET"}}]).to_string();
    let out = dir.run(&["--stateless", "edit", "far.txt", "--snapshot", &tag, "--edits", &edits], None);
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(&path).expect("read"), format!("{header}keep\nTARGET\nend\n"));
    assert!(dir.1.path().join("hashline/snapshots").join(format!("{tag}.snap")).is_file());
    let in_project: Vec<_> = std::fs::read_dir(dir.0.path()).expect("ls").flatten().map(|e| e.file_name()).collect();
    assert!(in_project.iter().all(|name| !name.to_string_lossy().contains(".snap")), "{in_project:?}");
}
