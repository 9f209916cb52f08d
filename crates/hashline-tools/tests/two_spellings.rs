//! One file under two names stays one file (issue 22, macOS semantics): APFS folds case
//! and Unicode normalization, so `Notes.txt`, `notes.txt` and an NFD spelling name one file
//! with one link. Linux shows one file with one link under two paths through a bind mount
//! (needs root; SKIPPED elsewhere), and under two names through hard links; on a
//! case-folding directory (macOS, an ext4 directory with `+F`) the test runs on case too.
//! To the ledger, the locks and `files[]` the file is one: anchors read through one name
//! edit it through the other, and listing both in one edit is refused at once — before,
//! the second exclusive lock on the same file waited forever for the first.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use hashline_core::LineHash;
use hashline_tools::edit::EditTool;
use hashline_tools::read::ReadTool;
use hashline_tools::{CallContext, Session, ToolResult, execute};
use serde_json::{Value, json};

fn anchor(line: u32, text: &str) -> String {
    format!("{line}:{}", LineHash::of(text.as_bytes()))
}

/// Runs `call` with a deadline: a hang fails the test instead of holding it.
fn within<T: Send + 'static>(what: &str, call: impl FnOnce() -> T + Send + 'static) -> T {
    let (send, recv) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(call());
    });
    recv.recv_timeout(Duration::from_secs(20))
        .unwrap_or_else(|_| panic!("{what}: no answer in 20 s (a lock waits for itself)"))
}

fn call<T: hashline_tools::Tool + 'static>(session: &std::sync::Arc<Session>, args: Value) -> ToolResult {
    let session = session.clone();
    within("tool call", move || execute::<T>(&session, args, &CallContext::top_level()))
}

/// Reads the file through `first`, edits it through `second`, then lists both in one edit.
fn one_file_under_two_names(root: &Path, first: &str, second: &str) {
    let session = std::sync::Arc::new(Session::open(root).expect("session"));
    let read = call::<ReadTool>(&session, json!({"path": first}));
    assert!(!read.is_error, "{}", read.text());
    let edited = call::<EditTool>(
        &session,
        json!({"path": second, "edits": [{"set_line": {"anchor": anchor(2, "two"), "new_text": "TWO"}}]}),
    );
    assert!(!edited.is_error, "anchors read through {first} edit the file through {second}: {}", edited.text());
    let both = call::<EditTool>(
        &session,
        json!({"files": [
            {"path": first, "edits": [{"set_line": {"anchor": anchor(1, "one"), "new_text": "ONE"}}]},
            {"path": second, "edits": [{"set_line": {"anchor": anchor(3, "three"), "new_text": "THREE"}}]},
        ]}),
    );
    assert!(both.is_error, "one file listed twice is refused");
    assert!(both.text().contains("lists the same file twice"), "{}", both.text());
    assert_eq!(std::fs::read_to_string(root.join(first)).expect("read"), "one\nTWO\nthree\n", "nothing else written");
}

/// A bind mount that is undone when dropped.
struct Bind(PathBuf);

impl Drop for Bind {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn one_file_with_one_link_under_two_paths_is_one_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = hashline_fs::lookup::canonicalize(dir.path()).expect("canonical");
    std::fs::create_dir_all(root.join("a")).expect("a");
    std::fs::create_dir_all(root.join("b")).expect("b");
    std::fs::write(root.join("a/f.txt"), "one\ntwo\nthree\n").expect("write");
    let mounted = std::process::Command::new("mount")
        .args(["--bind"])
        .arg(root.join("a"))
        .arg(root.join("b"))
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        eprintln!("SKIPPED: one file with one link under two paths (a bind mount needs root)");
        return;
    }
    let _bind = Bind(root.join("b"));
    one_file_under_two_names(&root, "a/f.txt", "b/f.txt");
}

#[test]
fn one_file_under_two_hard_links_is_one_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = hashline_fs::lookup::canonicalize(dir.path()).expect("canonical");
    std::fs::write(root.join("Notes.txt"), "one\ntwo\nthree\n").expect("write");
    // NFC "é" and an NFD spelling of the same name, as APFS would fold them.
    std::fs::hard_link(root.join("Notes.txt"), root.join("cafe\u{301}.txt")).expect("link");
    one_file_under_two_names(&root, "Notes.txt", "cafe\u{301}.txt");
}

#[test]
fn names_that_differ_only_in_case_are_one_file_on_a_case_folding_directory() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = hashline_fs::lookup::canonicalize(dir.path()).expect("canonical");
    std::fs::write(root.join("Notes.txt"), "one\ntwo\nthree\n").expect("write");
    if !root.join("NOTES.TXT").exists() {
        eprintln!("SKIPPED: names that differ only in case ({} does not fold case)", root.display());
        return;
    }
    one_file_under_two_names(&root, "Notes.txt", "notes.txt");
}
