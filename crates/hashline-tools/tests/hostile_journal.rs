//! Issue 20, case 1: a journal that hashline did not write. A repository can ship
//! `.hashline-journal/` records, and a confined agent could try to write one; recovery at
//! session start must act only on records hashline wrote, only beneath the root, and must
//! never block or read without a bound. Seen failing on 9b00c33: a planted record made
//! session start delete, rename and overwrite files outside the root.

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use hashline_fs::JOURNAL_DIR;
use hashline_tools::{CallContext, Session, execute, ls, read, write};
use serde_json::{Value, json};

/// A root and, beside it, an outside directory holding files a hostile record aims at.
struct Scene {
    _dir: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
}

impl Scene {
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = hashline_fs::lookup::canonicalize(dir.path()).expect("canonical");
        let root = base.join("repo");
        let outside = base.join("outside");
        std::fs::create_dir_all(root.join(JOURNAL_DIR)).expect("journal");
        std::fs::create_dir_all(&outside).expect("outside");
        for (name, text) in
            [("precious.txt", "precious\n"), ("other.txt", "other\n"), ("bashrc", "rc\n"), ("secret", "s3cret\n")]
        {
            std::fs::write(outside.join(name), text).expect("outside file");
        }
        std::fs::write(root.join("payload"), "evil\n").expect("payload");
        std::fs::write(root.join("a.txt"), "a\n").expect("a");
        Self { _dir: dir, root, outside }
    }

    fn plant(&self, name: &str, bytes: &[u8]) {
        std::fs::write(self.root.join(JOURNAL_DIR).join(name), bytes).expect("plant");
    }

    /// Every file outside, with its bytes.
    fn outside_state(&self) -> Vec<(String, Vec<u8>)> {
        let mut state: Vec<_> = std::fs::read_dir(&self.outside)
            .expect("list")
            .map(|e| {
                let e = e.expect("entry");
                (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap_or_default())
            })
            .collect();
        state.sort();
        state
    }

    fn untouched(&self) -> Vec<(String, Vec<u8>)> {
        let mut state: Vec<_> =
            [("bashrc", "rc\n"), ("other.txt", "other\n"), ("precious.txt", "precious\n"), ("secret", "s3cret\n")]
                .iter()
                .map(|(n, t)| (n.to_string(), t.as_bytes().to_vec()))
                .collect();
        state.sort();
        state
    }
}

fn bytes_of(path: &Path) -> Value {
    json!(path.as_os_str().as_encoded_bytes())
}

/// The record format of 9b00c33 (absolute `dir`, free names), aimed outside.
fn hostile_record(outside: &Path) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "pid": 1,
        "entries": [
            {"dir": bytes_of(outside), "name": b"other.txt".to_vec(),
             "how": {"rename": {"temp": "precious.txt", "backup": "other.txt"}}},
            {"dir": bytes_of(outside), "name": b"bashrc".to_vec(), "how": {"inPlace": {"copy": "../payload"}}},
            {"dir": bytes_of(outside), "name": b"x".to_vec(),
             "how": {"inPlace": {"copy": outside.join("secret").to_string_lossy()}}},
        ]
    }))
    .expect("json")
}

/// Opens a session on `root` on another thread: it must come back within a few seconds.
fn open_within(root: &Path) -> Session {
    let (tx, rx) = std::sync::mpsc::channel();
    let root = root.to_path_buf();
    std::thread::spawn(move || {
        let _ = tx.send(Session::open(&root));
    });
    rx.recv_timeout(Duration::from_secs(10)).expect("session start must not block").expect("session")
}

#[test]
fn planted_records_of_every_phase_touch_nothing_outside_and_are_reported_once() {
    for phase in ["prep", "intent", "commit"] {
        let scene = Scene::new();
        scene.plant(&format!("0000000000000001.{phase}"), &hostile_record(&scene.outside));
        scene.plant(&format!("00000001.{phase}"), &hostile_record(&scene.outside));
        let session = open_within(&scene.root);
        assert_eq!(scene.outside_state(), scene.untouched(), "{phase}: nothing outside changes");
        assert_eq!(std::fs::read(scene.root.join("payload")).expect("payload"), b"evil\n");
        assert!(!scene.root.join("secret").exists(), "{phase}: no outside secret is copied in");
        let listed = execute::<ls::LsTool>(&session, json!({"path": "."}), &CallContext::top_level());
        let text = listed.text();
        assert!(text.contains("not written by hashline"), "{phase}: {text}");
        let warnings = &listed.ptc_value()["warnings"];
        assert!(
            warnings.as_array().is_some_and(|w| w.iter().any(|w| w["code"] == "journal-record-ignored")),
            "{phase}: {}",
            listed.ptc_value()
        );
        let again = execute::<ls::LsTool>(&session, json!({"path": "."}), &CallContext::top_level());
        assert!(!again.text().contains("not written by hashline"), "{phase}: reported once: {}", again.text());
        // The records stay where they were (hashline does not act on them at all).
        assert!(scene.root.join(JOURNAL_DIR).join(format!("00000001.{phase}")).exists());
    }
}

#[test]
fn a_fifo_a_huge_record_and_a_symlinked_journal_neither_block_nor_act() {
    let scene = Scene::new();
    #[cfg(unix)]
    {
        let fifo = scene.root.join(JOURNAL_DIR).join("0000dead.intent");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo").success());
    }
    let huge = std::fs::File::create(scene.root.join(JOURNAL_DIR).join("0000beef.intent")).expect("huge");
    huge.set_len(3 << 30).expect("sparse 3 GiB");
    let session = open_within(&scene.root);
    let listed = execute::<ls::LsTool>(&session, json!({"path": "."}), &CallContext::top_level());
    assert!(listed.text().contains("not written by hashline"), "{}", listed.text());
    assert_eq!(listed.ptc_value()["warnings"][0]["code"], "journal-record-ignored");
    drop(session);

    // A journal that is a symlink to a directory of records outside: not followed.
    let scene = Scene::new();
    std::fs::remove_dir(scene.root.join(JOURNAL_DIR)).expect("rmdir");
    let elsewhere = scene.outside.join("records");
    std::fs::create_dir(&elsewhere).expect("records");
    std::fs::write(elsewhere.join("00000001.intent"), hostile_record(&scene.outside)).expect("record");
    if !common::symlink(&elsewhere, scene.root.join(JOURNAL_DIR), "a_symlinked_journal_neither_blocks_nor_acts") {
        return;
    }
    let _session = open_within(&scene.root);
    let mut expected = scene.untouched();
    expected.push(("records".into(), Vec::new()));
    expected.sort();
    assert_eq!(scene.outside_state(), expected);
    assert!(elsewhere.join("00000001.intent").exists());
}

#[test]
fn the_tools_refuse_the_journal_directory_by_its_own_code() {
    let ws = common::Workspace::new();
    ws.file(".hashline-journal/.keep", "");
    let linked =
        common::symlink(".hashline-journal", ws.path("j"), "the_tools_refuse_the_journal_directory (via a link)");
    let mut calls: Vec<(&str, hashline_tools::ToolResult)> = vec![
        ("write", ws.call::<write::WriteTool>(json!({"path": ".hashline-journal/00000001.intent", "content": "{}"}))),
        ("read", ws.call::<read::ReadTool>(json!({"path": ".hashline-journal/.keep"}))),
        ("ls", ws.call::<ls::LsTool>(json!({"path": ".hashline-journal"}))),
        ("ls sub", ws.call::<ls::LsTool>(json!({"path": "./x/../.hashline-journal/"}))),
    ];
    if linked {
        calls.push((
            "write via link",
            ws.call::<write::WriteTool>(json!({"path": "j/00000002.intent", "content": "{}"})),
        ));
    }
    for (what, result) in calls {
        assert!(result.is_error, "{what}: {}", result.text());
        assert_eq!(result.error_code(), Some("path-reserved"), "{what}: {}", result.text());
    }
    assert!(!ws.path(".hashline-journal/00000001.intent").exists());
    assert!(!ws.path(".hashline-journal/00000002.intent").exists());
}

/// Walks never enter the journal: `find` (which lists hidden files) and `grep` with a glob
/// naming it find nothing in it (on 9b00c33 `find '**/*'` listed a planted record).
#[test]
fn find_and_grep_never_enter_the_journal() {
    let ws = common::Workspace::new();
    ws.file(".hashline-journal/00000001.intent", "needle\n");
    ws.file("a.txt", "needle\n");
    let found = ws.call::<hashline_tools::find::FindTool>(json!({"pattern": "**/*"}));
    assert!(!found.text().contains("00000001"), "{}", found.text());
    assert!(found.text().contains("a.txt"), "{}", found.text());
    let grep = ws.call::<hashline_tools::grep::GrepTool>(json!({"pattern": "needle", "glob": ".hashline-journal/**"}));
    assert!(!grep.text().contains("00000001"), "{}", grep.text());
    let grep = ws.call::<hashline_tools::grep::GrepTool>(json!({"pattern": "needle"}));
    assert_eq!(grep.ptc_value()["totalMatches"], 1, "{}", grep.text());
}
