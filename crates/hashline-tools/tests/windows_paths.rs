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

/// Past 260 characters a path is read, edited, written and searched below the root like any
/// other (Windows' own canonical form of such a path is the verbatim `\\?\C:\…`, which is
/// no prefix match for the root's ordinary form; hashline writes it in the ordinary form).
#[test]
fn a_path_past_260_characters_is_below_the_root_like_any_other() {
    let ws = Workspace::new();
    let deep = (0..10).map(|i| format!("a-directory-name-of-thirty-{i:02}")).collect::<Vec<_>>().join("/");
    let rel = format!("{deep}/file.txt");
    let file = ws.file(&rel, "alpha\nbeta\n");
    assert!(file.as_os_str().len() > 300, "{}", file.display());
    let read = ws.call::<ReadTool>(json!({"path": rel}));
    assert!(!read.is_error, "{}", read.text());
    let anchor = read.ptc_value()["lines"][1]["anchor"].as_str().expect("anchor").to_owned();
    let edit =
        ws.call::<EditTool>(json!({"path": rel, "edits": [{"set_line": {"anchor": anchor, "new_text": "BETA"}}]}));
    assert!(!edit.is_error, "{}", edit.text());
    assert_eq!(std::fs::read_to_string(&file).expect("read"), "alpha\nBETA\n");
    let write = ws.call::<WriteTool>(json!({"path": format!("{deep}/new.txt"), "content": "new\n"}));
    assert!(!write.is_error, "{}", write.text());
    let grep = ws.call::<GrepTool>(json!({"pattern": "BETA"}));
    assert!(grep.text().contains(&format!("--- {rel}")), "{}", grep.text());
}

/// A UNC path keeps its share: `..` never climbs above `\\server\share`, the verbatim
/// `\\?\UNC\…` spelling is the same path, and a share outside the roots is refused.
#[test]
fn a_unc_path_keeps_its_share_and_is_outside_the_roots() {
    let ws = Workspace::new();
    for path in ["\\\\server\\share\\a\\..\\..\\..\\x.txt", "\\\\?\\UNC\\server\\share\\x.txt", "//server/share/x.txt"]
    {
        let read = ws.call::<ReadTool>(json!({"path": path}));
        assert_eq!(code(&read), "path-outside-root", "{path}: {}", read.text());
        assert!(read.text().contains("(resolves to \\\\server\\share\\x.txt)"), "{path}: {}", read.text());
    }
}

/// A file another program holds open sharing nothing (an editor, an indexer, a virus
/// scanner) is waited for about a second, then refused with a message that says so:
/// nothing is written, and a read says the same.
#[test]
fn a_file_another_program_holds_unshared_is_refused_in_words_and_left_alone() {
    use std::os::windows::fs::OpenOptionsExt;
    let ws = Workspace::new();
    let file = ws.file("a.txt", "alpha\nbeta\n");
    let read = ws.call::<ReadTool>(json!({"path": "a.txt"}));
    let anchor = read.ptc_value()["lines"][1]["anchor"].as_str().expect("anchor").to_owned();
    let held = std::fs::OpenOptions::new().read(true).share_mode(0).open(&file).expect("held unshared");
    let busy = |doing: &str, then: &str| {
        format!(
            "File in use — cannot {doing}: a.txt is held open by another program that shares it with no one (an editor, an indexer, a virus scanner); waited 1 s. {then}"
        )
    };
    // An edit meets it when it loads the file; a read, and a write replacing it, too.
    let edit =
        ws.call::<EditTool>(json!({"path": "a.txt", "edits": [{"set_line": {"anchor": anchor, "new_text": "B"}}]}));
    assert_eq!(code(&edit), "file-busy", "{}", edit.text());
    assert_eq!(edit.text(), busy("read", "Try again once it lets go."));
    assert_eq!(edit.ptc_value()["error"]["details"]["errno"], 32, "ERROR_SHARING_VIOLATION");
    let again = ws.call::<ReadTool>(json!({"path": "a.txt"}));
    assert_eq!(code(&again), "file-busy", "{}", again.text());
    assert_eq!(again.text(), busy("read", "Try again once it lets go."));
    let write = ws.call::<WriteTool>(json!({"path": "a.txt", "content": "replaced\n"}));
    assert_eq!(code(&write), "file-busy", "{}", write.text());
    assert_eq!(write.text(), busy("write", "Nothing was written."));
    drop(held);
    assert_eq!(std::fs::read_to_string(&file).expect("read"), "alpha\nbeta\n", "nothing written");
    let edit =
        ws.call::<EditTool>(json!({"path": "a.txt", "edits": [{"set_line": {"anchor": anchor, "new_text": "B"}}]}));
    assert!(!edit.is_error, "once let go: {}", edit.text());
}
