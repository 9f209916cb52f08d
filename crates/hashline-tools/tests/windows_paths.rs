//! Windows' path syntax through the tools (issue 25): both separators, a drive letter in
//! either case, verbatim `\\?\` paths, names Windows gives another meaning, and names that
//! differ only in case. Run under Wine in CI; compiled out elsewhere.
#![cfg(windows)]

mod common;

use common::{Workspace, code};
use hashline_tools::edit::EditTool;
use hashline_tools::grep::GrepTool;
use hashline_tools::read::ReadTool;
use hashline_tools::write::WriteTool;
use serde_json::json;

/// The spellings a Windows user or model may give for `<root>\sub\a.txt`.
fn spellings(ws: &Workspace) -> Vec<String> {
    let root = ws.root().to_string_lossy().into_owned();
    let mut lower_drive = root.clone();
    lower_drive.replace_range(..1, &root[..1].to_ascii_lowercase());
    vec![
        "sub/a.txt".to_owned(),
        "sub\\a.txt".to_owned(),
        ".\\sub\\..\\sub/a.txt".to_owned(),
        format!("{root}\\sub\\a.txt"),
        format!("{}/sub/a.txt", root.replace('\\', "/")),
        format!("{lower_drive}\\SUB\\A.TXT"),
        format!("\\\\?\\{root}\\sub\\a.txt"),
    ]
}

#[test]
fn every_spelling_of_a_path_names_one_file_below_the_root() {
    let ws = Workspace::new();
    let file = ws.file("sub/a.txt", "alpha\nbeta\n");
    assert!(!ws.root().to_string_lossy().starts_with("\\\\?\\"), "the root is in the form a user writes");
    for path in spellings(&ws) {
        let read = ws.call::<ReadTool>(json!({"path": path}));
        assert!(!read.is_error, "{path}: {}", read.text());
        // The absolute path keeps the spelling given (a verbatim one stays verbatim); it
        // names the file below the root.
        let shown = read.ptc_value()["path"].as_str().expect("path").to_owned();
        let plain = shown.strip_prefix("\\\\?\\").unwrap_or(&shown).replace('/', "\\");
        assert!(plain.eq_ignore_ascii_case(&file.to_string_lossy()), "{path}: {shown}");
    }
    // Relative paths in results are written with `/`, as on every system.
    let grep = ws.call::<GrepTool>(json!({"pattern": "beta"}));
    assert!(grep.text().contains("--- sub/a.txt"), "{}", grep.text());
    assert_eq!(
        grep.ptc_value()["records"][0]["path"],
        file.to_string_lossy().as_ref(),
        "absolute, as the system writes it"
    );
}

#[test]
fn a_read_through_one_spelling_serves_edits_through_others() {
    let ws = Workspace::new();
    let file = ws.file("sub/a.txt", "alpha\nbeta\n");
    let read = ws.call::<ReadTool>(json!({"path": "sub/a.txt"}));
    let mut anchor = read.ptc_value()["lines"][1]["anchor"].as_str().expect("anchor").to_owned();
    for (path, text) in [("SUB\\A.TXT", "BETA"), ("sub\\a.txt", "gamma")] {
        let edit =
            ws.call::<EditTool>(json!({"path": path, "edits": [{"set_line": {"anchor": anchor, "new_text": text}}]}));
        assert!(!edit.is_error, "{path}: {}", edit.text());
        assert_eq!(std::fs::read_to_string(&file).expect("read"), format!("alpha\n{text}\n"));
        let fresh = edit.ptc_value()["anchors"].as_array().expect("anchors");
        anchor = fresh.iter().find(|row| row["line"] == 2).expect("line 2")["anchor"].as_str().expect("a").to_owned();
    }
}

#[test]
fn names_windows_gives_another_meaning_are_refused_and_nothing_is_made() {
    let ws = Workspace::new();
    for name in ["aux.txt", "CON", "nul.rs", "com1", "LPT9.log", "sub/prn.md", "trailing.", "space "] {
        // A device name resolves to the device, outside every root; where resolution keeps
        // the name, the open refuses it (ERROR_INVALID_NAME).
        let write = ws.call::<WriteTool>(json!({"path": name, "content": "x\n"}));
        match code(&write) {
            "path-outside-root" => {}
            "fs-error" => assert_eq!(write.ptc_value()["error"]["details"]["errno"], 123, "{name}: {}", write.text()),
            other => panic!("{name}: {other}: {}", write.text()),
        }
        let read = ws.call::<ReadTool>(json!({"path": name}));
        assert!(read.is_error, "{name}: {}", read.text());
    }
    // `a:stream` is no stream of `a`: Windows reads it as the path `stream` on drive A:.
    let stream = ws.call::<WriteTool>(json!({"path": "a:stream", "content": "x\n"}));
    assert_eq!(code(&stream), "path-outside-root", "{}", stream.text());
    let made: Vec<_> = std::fs::read_dir(ws.root()).expect("list").map(|e| e.expect("entry").file_name()).collect();
    assert!(made.iter().all(|name| name == "sub"), "{made:?}");
}
