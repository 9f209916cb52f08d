//! `read` through its JSON entry point, on a real file system.

mod common;

use common::{Workspace, assert_rows_match_value, code};
use hashline_core::LineNo;
use hashline_core::snapshot::SnapshotTag;
use hashline_tools::CallContext;
use hashline_tools::read::ReadTool;
use insta::assert_snapshot;
use serde_json::json;

#[test]
fn reads_alpha_beta_as_rows_with_matching_value_and_meta() {
    let ws = Workspace::new();
    ws.file("a.txt", "alpha\nbeta");
    let result = ws.call::<ReadTool>(json!({"path": "a.txt"}));
    assert!(!result.is_error);
    assert_eq!(result.text(), format!("snapshot: {}\n1:3c8|alpha\n2:589|beta", SnapshotTag::of(b"alpha\nbeta")));
    assert_rows_match_value(&result);
    let meta = result.meta.as_ref().expect("top-level read has meta");
    let narrowed = hashline_view::read_meta_from_meta(meta).expect("meta narrows");
    assert_eq!((narrowed.offset, narrowed.total_lines, narrowed.lines.len()), (1, 2, 2));
    assert_snapshot!(ws.json(&result));
}

#[test]
fn nested_calls_get_no_meta() {
    let ws = Workspace::new();
    ws.file("a.txt", "x");
    let ctx = hashline_tools::CallContext {
        call_id: Some("c2".into()),
        parent_call_id: Some("c1".into()),
        ..Default::default()
    };
    let result = hashline_tools::execute::<ReadTool>(&ws.session, json!({"path": "a.txt"}), &ctx);
    assert!(result.meta.is_none());
}

#[test]
fn window_with_continuation_footer() {
    let ws = Workspace::new();
    let text: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    ws.file("big.txt", text);
    let result = ws.call::<ReadTool>(json!({"path": "big.txt", "offset": 5, "limit": "4"}));
    assert_snapshot!(result.text(), @"
    snapshot: shz3ajnxk
    5:3f9|line 5
    6:789|line 6
    7:47d|line 7
    8:b92|line 8

    [Showing lines 5-8 of 10. Use offset=9 to continue.]
    ");
    assert_eq!(result.ptc_value()["continuation"]["nextOffset"], 9);
    assert_eq!(result.ptc_value()["range"], json!({"startLine": 5, "endLine": 8, "totalLines": 10}));
    assert_rows_match_value(&result);
}

#[test]
fn budget_cuts_at_2000_rows() {
    let ws = Workspace::new();
    let text: String = (1..=2500).map(|i| format!("{i}\n")).collect();
    ws.file("long.txt", text);
    let result = ws.call::<ReadTool>(json!({"path": "long.txt"}));
    let text = result.text();
    assert_eq!(text.lines().filter(|l| l.contains('|')).count(), 2000);
    assert_snapshot!(text.lines().last().unwrap_or_default(), @"[Output truncated: showing 2000 of 2500 lines (8.7KB of 11.1KB). Use offset=2001 to continue.]");
    assert_eq!(result.ptc_value()["lines"].as_array().map(Vec::len), Some(2000));
    assert_eq!(result.ptc_value()["truncation"]["outputLines"], 2000);
    let second = ws.call::<ReadTool>(json!({"path": "long.txt", "offset": 2001}));
    assert!(rows(&second.text()).starts_with("2001:"));
    assert!(!second.text().contains("[Output truncated"));
}

#[test]
fn budget_cuts_at_50_kib_of_text() {
    let ws = Workspace::new();
    let line = "x".repeat(1000);
    let text: String = (0..100).map(|_| format!("{line}\n")).collect();
    ws.file("wide.txt", text);
    let result = ws.call::<ReadTool>(json!({"path": "wide.txt"}));
    let body = result.text();
    let rows = body.lines().filter(|l| l.contains('|')).count();
    assert!(rows < 100 && rows > 40, "{rows}");
    let rows_text: usize = body.lines().filter(|l| l.contains('|')).map(|l| l.len() + 1).sum();
    assert!(rows_text <= 50 * 1024);
    assert!(
        body.ends_with(&format!("Use offset={} to continue.]", rows + 1)),
        "{}",
        body.lines().last().unwrap_or_default()
    );
    assert_rows_match_value(&result);
}

#[test]
fn one_giant_line_is_shown_cut_with_a_usable_anchor() {
    let ws = Workspace::new();
    ws.file("min.js", format!("{}\nsecond", "y".repeat(200_000)));
    let result = ws.call::<ReadTool>(json!({"path": "min.js"}));
    let text = result.text();
    assert!(text.len() < 52 * 1024, "{}", text.len());
    assert!(rows(&text).starts_with("1:"));
    assert!(text.contains("[line truncated for display; the anchor covers the whole line]"));
    assert_eq!(
        result.ptc_value()["lines"][0]["anchor"].as_str(),
        Some(format!("1:{}", hashline_core::LineHash::of("y".repeat(200_000).as_bytes())).as_str())
    );
    assert!(text.contains("Use offset=2 to continue.]\n\n───"), "the map follows the notice: {text}");
    assert_eq!(result.ptc_value()["map"]["appended"], true);
}

#[test]
fn zero_offset_and_limit_and_unknown_keys_are_adjusted_not_silent() {
    let ws = Workspace::new();
    ws.file("a.txt", "alpha\nbeta");
    let result = ws.call::<ReadTool>(json!({"path": "a.txt", "offset": 0, "limit": 0, "colour": "red"}));
    assert_snapshot!(result.text(), @r#"
    [Params adjusted: ignored unknown key "colour"]

    snapshot: s2xbcrg96
    [Read params adjusted: ignored offset 0; ignored limit 0]

    1:3c8|alpha
    2:589|beta
    "#);
    let codes: Vec<&str> = result.ptc_value()["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .filter_map(|w| w["code"].as_str())
        .collect();
    assert_eq!(codes, ["params-adjusted", "params-adjusted"]);
}

#[test]
fn parameter_errors() {
    let ws = Workspace::new();
    ws.file("a.txt", "alpha\nbeta");
    let cases = [
        (json!({"path": null}), "invalid-null"),
        (json!({"path": 3}), "invalid-type"),
        (json!({"path": "a.txt", "offset": "two"}), "invalid-offset"),
        (json!({"path": "a.txt", "limit": 1.5}), "invalid-limit"),
        (json!({"path": "a.txt", "offset": 3}), "offset-past-end"),
        (json!({"path": "a.txt", "symbol": "main", "offset": 2}), "invalid-params-combo"),
        (json!({"path": "a.txt", "bundle": "local"}), "invalid-params-combo"),
    ];
    for (args, expected) in cases {
        let result = ws.call::<ReadTool>(args.clone());
        assert_eq!(code(&result), expected, "{args}");
    }
    let past = ws.call::<ReadTool>(json!({"path": "a.txt", "offset": 3}));
    assert_snapshot!(past.text(), @r"
    Offset 3 is past end of file (2 lines): a.txt
    Use an offset from 1 to 2.
    ");
    let null = ws.call::<ReadTool>(json!({"path": null}));
    assert_eq!(null.text(), "Invalid path: expected string, received null.");
    let ok = ws.call::<ReadTool>(json!({"path": "a.txt", "symbol": "  ", "map": false}));
    assert!(!ok.is_error, "a blank symbol is ignored: {}", ok.text());
}

#[test]
fn file_errors_have_codes_and_hints() {
    let ws = Workspace::new();
    std::fs::create_dir(ws.path("dir")).expect("mkdir");
    assert_eq!(code(&ws.call::<ReadTool>(json!({"path": "missing.txt"}))), "file-not-found");
    let dir = ws.call::<ReadTool>(json!({"path": "dir"}));
    assert_eq!(code(&dir), "path-is-directory");
    assert_snapshot!(dir.text(), @r#"
    Path is a directory: dir. Use ls to inspect directories.
    Use ls("dir") to inspect directories.
    "#);
    #[cfg(unix)]
    {
        let fifo = ws.path("pipe");
        let status = std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
        assert!(status.success());
        let result = ws.call::<ReadTool>(json!({"path": "pipe"}));
        assert_eq!(code(&result), "fs-error");
        assert!(result.text().starts_with("Not a regular file: pipe"));
    }
}

#[test]
fn paths_outside_the_root_are_refused() {
    let ws = Workspace::new();
    let outside = tempfile::tempdir().expect("outside");
    std::fs::write(outside.path().join("secret.txt"), "s").expect("write");
    let direct = outside.path().join("secret.txt").to_string_lossy().into_owned();
    let mut paths = vec![direct.as_str(), "../secret.txt"];
    let test = "paths_outside_the_root_are_refused (through symlinks)";
    if common::symlink(outside.path().join("secret.txt"), ws.path("link.txt"), test)
        && common::symlink(outside.path(), ws.path("linkdir"), test)
    {
        paths.extend(["link.txt", "linkdir/secret.txt", "linkdir/../../x"]);
    }
    for path in paths {
        let result = ws.call::<ReadTool>(json!({"path": path}));
        assert_eq!(code(&result), "path-outside-root", "{path}");
    }
}

#[test]
fn line_endings_bom_empty_and_controls() {
    let ws = Workspace::new();
    ws.file("crlf.txt", b"\xEF\xBB\xBFalpha\r\nbeta\r\n");
    assert_eq!(rows(&ws.call::<ReadTool>(json!({"path": "crlf.txt"})).text()), "1:3c8|alpha\n2:589|beta");
    ws.file("empty.txt", b"");
    assert_eq!(ws.call::<ReadTool>(json!({"path": "empty.txt"})).text(), "snapshot: s5m38019r\n1:d05|");
    ws.file("ctl.txt", b"bell\x07\ttab");
    let ctl = ws.call::<ReadTool>(json!({"path": "ctl.txt"}));
    assert_eq!(rows(&ctl.text()), format!("1:{}|bell\\u0007\ttab", hashline_core::LineHash::of(b"bell\x07\ttab")));
    assert_eq!(ctl.ptc_value()["lines"][0]["raw"], "bell\u{7}\ttab");
}

#[test]
fn bare_cr_and_binary_warnings() {
    let ws = Workspace::new();
    ws.file("cr.txt", b"one\rtwo\r");
    let cr = ws.call::<ReadTool>(json!({"path": "cr.txt"}));
    assert_snapshot!(cr.text(), @r"
    snapshot: s3a7mxc1m
    [Warning: file contains bare CR (\r) line endings — line numbering may be inconsistent with grep and other tools]

    1:260|one
    2:2f4|two
    ");
    ws.file("bin.dat", b"head\x00\x01\x02tail\n");
    let bin = ws.call::<ReadTool>(json!({"path": "bin.dat"}));
    assert!(rows(&bin.text()).starts_with("[Warning: file appears to be binary — output may be garbled]\n\n1:"));
    assert_eq!(bin.ptc_value()["warnings"][0]["code"], "binary-content");
}

#[test]
fn images_are_detected_by_magic_bytes() {
    let ws = Workspace::new();
    let png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR".to_vec();
    ws.file("picture", &png);
    let result = ws.call::<ReadTool>(json!({"path": "picture"}));
    assert!(!result.is_error);
    assert_eq!(result.ptc_value()["kind"], "image");
    assert_eq!(result.ptc_value()["mimeType"], "image/png");
    match &result.content[..] {
        [hashline_view::ContentBlock::Image { mime_type, data }] => {
            assert_eq!(mime_type, "image/png");
            assert_eq!(data, "iVBORw0KGgoAAAANSUhEUg==");
        }
        other => panic!("{other:?}"),
    }
    assert!(result.meta.is_none());
}

#[test]
fn served_rows_are_recorded_in_the_session() {
    let ws = Workspace::new();
    let path = ws.file("a.txt", "one\ntwo\nthree\n");
    assert!(ws.session.ledger().served(&path).is_none());
    ws.call::<ReadTool>(json!({"path": "a.txt", "offset": 2, "limit": 1}));
    let ledger = ws.session.ledger();
    let served = ledger.served(&path).expect("served");
    assert_eq!(served.len(), 1);
    assert_eq!(served.hash_at(LineNo::new(2).expect("2")), Some(hashline_core::LineHash::of(b"two")));
}

#[test]
fn files_over_the_size_limit_are_refused_without_loading() {
    let ws = Workspace::new();
    let file = std::fs::File::create(ws.path("huge.log")).expect("create");
    file.set_len(hashline_fs::MAX_FILE_BYTES + 1).expect("sparse file");
    let result = ws.call::<ReadTool>(json!({"path": "huge.log"}));
    assert_eq!(code(&result), "file-too-large");
    assert_snapshot!(result.text(), @r"
    File too large: huge.log is over 256 MiB.
    Use grep to find what you need in it.
    ");
}

/// A plain read finds its window's lines in the loaded bytes (issue 21); a symbol read
/// that falls back to the whole file splits the document. Both show the same text, rows,
/// counts and cut, over every line-ending shape and the budget's edges.
#[test]
fn a_lazily_indexed_read_shows_what_a_parsed_one_does() {
    let ws = Workspace::new();
    let long_line = format!("{}\n", "y".repeat(60 * 1024));
    let many: String = (1..=2500).map(|i| format!("row {i}\r\n")).collect();
    let wide: String = (1..=1200).map(|i| format!("{i:>60}\n")).collect();
    for (name, bytes) in [
        ("empty.txt", Vec::new()),
        ("bom_only.txt", b"\xEF\xBB\xBF".to_vec()),
        ("bom.txt", b"\xEF\xBB\xBFalpha\nbeta\n".to_vec()),
        ("crlf.txt", b"alpha\r\nbeta\r\n\r\n".to_vec()),
        ("bare_cr.txt", b"alpha\rbeta\r\ngamma\rdelta".to_vec()),
        ("no_final_newline.txt", b"alpha\nbeta".to_vec()),
        ("controls.txt", b"a\x01b\n\xff\xfe\ttab\n".to_vec()),
        ("long_line.txt", format!("first\n{long_line}last").into_bytes()),
        ("many_lines.txt", many.into_bytes()),
        ("wide_lines.txt", wide.into_bytes()),
    ] {
        ws.file(name, bytes);
        for limit in [None, Some(1), Some(3), Some(2000)] {
            let mut args = json!({"path": name});
            if let Some(limit) = limit {
                args["limit"] = json!(limit);
            }
            let lazy = ws.call::<ReadTool>(args.clone());
            assert!(!lazy.is_error, "{name} {args}");
            // A symbol a `.txt` file cannot have: the whole file, parsed, after a warning.
            // The warning takes its room in the budget (§3.6): the parsed read gets a budget
            // larger by it, so that both have the same room for rows.
            args["symbol"] = json!("anything");
            let warned = ws.call::<ReadTool>(args.clone());
            let warning = warned.ptc_value()["warnings"][0]["message"].as_str().expect("a warning").len() + 2;
            let budget = hashline_tools::Budget { bytes: hashline_tools::Budget::DEFAULT.bytes + warning, lines: 2000 };
            let parsed = ws.call_in::<ReadTool>(args.clone(), &CallContext { budget, ..CallContext::top_level() });
            assert!(!parsed.is_error, "{name} {args}");
            for field in ["range", "lines", "truncation", "continuation"] {
                assert_eq!(lazy.ptc_value()[field], parsed.ptc_value()[field], "{name} {args}: {field}");
            }
            // The parsed read's cut names its budget; the lazy one's, the default, does not.
            let rows = |text: String| {
                let text = text.replace(&budget.named(), "");
                text.split_once("showing full file]\n\n").map_or(text.clone(), |(tag, rows)| {
                    format!("{}{rows}", tag.lines().next().map(|l| format!("{l}\n")).unwrap_or_default())
                })
            };
            assert_eq!(lazy.text(), rows(parsed.text()), "{name} {args}");
            assert_rows_match_value(&lazy);
        }
    }
}

/// A read's text without its first line, the `snapshot: s…` tag (every read names one).
fn rows(text: &str) -> &str {
    let rest = text.strip_prefix("snapshot: s").unwrap_or_else(|| panic!("no snapshot line first: {text}"));
    &rest[rest.find('\n').map_or(rest.len(), |at| at + 1)..]
}
