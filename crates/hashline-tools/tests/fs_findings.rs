//! The file-system findings of issue 8, one test each: what was checked is what is opened,
//! a file is its (device, inode), read-only files stay read-only, long names can be written.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use common::code;
use hashline_core::LineHash;
use hashline_tools::edit::EditTool;
use hashline_tools::read::ReadTool;
use hashline_tools::write::WriteTool;
use hashline_tools::{CallContext, Session, Tool, ToolResult, execute};
use serde_json::{Value, json};

/// A root `r/` with a secret beside it in `out/`.
struct Jail {
    _dir: tempfile::TempDir,
    base: PathBuf,
    session: Session,
}

impl Jail {
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = dir.path().canonicalize().expect("canonical");
        std::fs::create_dir_all(base.join("r/a/b/c")).expect("mkdir");
        std::fs::create_dir_all(base.join("out")).expect("mkdir");
        std::fs::write(base.join("out/s.txt"), "secret\n").expect("write");
        let session = Session::open(base.join("r")).expect("session");
        Self { _dir: dir, base, session }
    }

    fn call<T: Tool>(&self, args: Value) -> ToolResult {
        execute::<T>(&self.session, args, &CallContext::top_level())
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.base.join(rel)
    }
}

fn anchor(line: u32, text: &str) -> String {
    format!("{line}:{}", LineHash::of(text.as_bytes()))
}

fn set_line(line: u32, old: &str, new: &str) -> Value {
    json!({"set_line": {"anchor": anchor(line, old), "new_text": new}})
}

fn secret_untouched(jail: &Jail) {
    assert_eq!(std::fs::read(jail.path("out/s.txt")).expect("secret"), b"secret\n");
}

/// Finding 1: `l/../../out/s.txt` with `l -> a/b/c` resolves (as the kernel does it) to
/// `r/a/out/s.txt`, inside the root; the lexical path `out/s.txt` beside the root must
/// never be what is opened.
#[test]
fn finding_1_symlink_then_dotdot_never_opens_the_lexical_path() {
    let jail = Jail::new();
    std::os::unix::fs::symlink("a/b/c", jail.path("r/l")).expect("symlink");
    let read = jail.call::<ReadTool>(json!({"path": "l/../../out/s.txt"}));
    assert!(read.is_error, "read must not show the secret: {}", read.text());
    assert!(!read.text().contains("secret"), "{}", read.text());

    let write = jail.call::<WriteTool>(json!({"path": "l/../../out/s.txt", "content": "owned\n"}));
    secret_untouched(&jail);
    if !write.is_error {
        // The kernel's meaning: r/a/out/s.txt, inside the root.
        assert_eq!(std::fs::read(jail.path("r/a/out/s.txt")).expect("in-root file"), b"owned\n");
    }

    let made = jail.call::<WriteTool>(json!({"path": "l/../../newdir/x", "content": "x\n"}));
    assert!(!jail.path("newdir").exists(), "a folder was created outside the root: {}", made.text());

    // An edit through the same path never touches the secret either.
    let edit = jail.call::<EditTool>(json!({"path": "l/../../out/s.txt", "edits": [set_line(1, "secret", "x")]}));
    assert!(edit.is_error || !edit.text().contains("secret"));
    secret_untouched(&jail);
}

/// Finding 2: a path checked as a regular file inside the root and swapped for a symlink to
/// a file outside before the write: the outside file never changes.
#[test]
fn finding_2_symlink_swapped_in_after_the_check_is_not_followed() {
    let jail = Jail::new();
    let inside = jail.path("r/f.txt");
    std::fs::write(&inside, "one\n").expect("write");
    let swapped = jail.path("r/.swap");
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let swapper = {
        let (inside, swapped, stop, outside) = (inside.clone(), swapped.clone(), stop.clone(), jail.path("out/s.txt"));
        std::thread::spawn(move || {
            let mut n = 0u32;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let _ = std::fs::remove_file(&swapped);
                if n.is_multiple_of(2) {
                    let _ = std::os::unix::fs::symlink(&outside, &swapped);
                } else {
                    let _ = std::fs::write(&swapped, "one\n");
                }
                let _ = std::fs::rename(&swapped, &inside);
                n += 1;
            }
        })
    };
    for round in 0..300 {
        let _ = jail.call::<WriteTool>(json!({"path": "f.txt", "content": format!("w{round}\n")}));
        let _ = jail.call::<ReadTool>(json!({"path": "f.txt"}));
        let _ = jail.call::<EditTool>(json!({"path": "f.txt", "edits": [set_line(1, "one", "e")]}));
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    swapper.join().expect("swapper");
    secret_untouched(&jail);
}

/// Finding 5: one file under two hard-linked names is one file: a `files` edit naming both
/// is refused like a symlink alias, and so is a move from one name into the other.
#[test]
fn finding_5_hard_link_aliases_are_one_file() {
    let jail = Jail::new();
    std::fs::write(jail.path("r/src.txt"), "a1\na2\na3\n").expect("write");
    std::fs::hard_link(jail.path("r/src.txt"), jail.path("r/hard.txt")).expect("link");
    for file in ["src.txt", "hard.txt"] {
        assert!(!jail.call::<ReadTool>(json!({"path": file})).is_error);
    }
    let both = jail.call::<EditTool>(json!({"files": [
        {"path": "src.txt", "edits": [set_line(1, "a1", "x1")]},
        {"path": "hard.txt", "edits": [set_line(2, "a2", "x2")]},
    ]}));
    assert_eq!(code(&both), "invalid-params-combo", "{}", both.text());
    assert_eq!(std::fs::read(jail.path("r/src.txt")).expect("read"), b"a1\na2\na3\n");

    let moved = jail.call::<EditTool>(json!({"path": "src.txt", "edits": [{"move_lines": {
        "start_anchor": anchor(1, "a1"), "end_anchor": anchor(1, "a1"), "after_anchor": anchor(3, "a3"),
        "from_path": "hard.txt"}}]}));
    let after = std::fs::read(jail.path("r/src.txt")).expect("read");
    assert!(
        moved.is_error || after == b"a2\na3\na1\n",
        "a move between two names of one file lost a line: {:?} / {}",
        String::from_utf8_lossy(&after),
        moved.text()
    );
    // A read through one name serves the other: the gate does not ask for a second read.
    std::fs::write(jail.path("r/one.txt"), "b1\n").expect("write");
    std::fs::hard_link(jail.path("r/one.txt"), jail.path("r/two.txt")).expect("link");
    assert!(!jail.call::<ReadTool>(json!({"path": "one.txt"})).is_error);
    let via_alias = jail.call::<EditTool>(json!({"path": "two.txt", "edits": [set_line(1, "b1", "c1")]}));
    assert!(!via_alias.is_error, "{}", via_alias.text());
    assert_eq!(std::fs::read(jail.path("r/one.txt")).expect("read"), b"c1\n");
}

/// Finding 7: a file without write permission is refused, nothing written, with the OS error.
#[test]
fn finding_7_read_only_files_are_refused() {
    let jail = Jail::new();
    let file = jail.path("r/ro.txt");
    std::fs::write(&file, "keep\n").expect("write");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o444)).expect("chmod");
    assert!(!jail.call::<ReadTool>(json!({"path": "ro.txt"})).is_error);
    let edit = jail.call::<EditTool>(json!({"path": "ro.txt", "edits": [set_line(1, "keep", "x")]}));
    assert_eq!(code(&edit), "permission-denied", "{}", edit.text());
    assert!(edit.text().starts_with("Edit rejected"), "{}", edit.text());
    assert_eq!(edit.ptc_value()["error"]["details"]["errno"], 13);
    let write = jail.call::<WriteTool>(json!({"path": "ro.txt", "content": "new\n"}));
    assert_eq!(code(&write), "permission-denied", "{}", write.text());
    assert_eq!(write.ptc_value()["error"]["details"]["errno"], 13);
    assert_eq!(std::fs::read(&file).expect("read"), b"keep\n");
    assert_eq!(std::fs::metadata(&file).expect("meta").permissions().mode() & 0o777, 0o444);
}

/// Finding 8: names of 235–255 bytes can be written (the temporary name stays short), and
/// an OS error keeps its errno.
#[test]
fn finding_8_long_names_are_written_and_errno_is_kept() {
    let jail = Jail::new();
    for len in [235, 250, 255] {
        let name = "n".repeat(len);
        let write = jail.call::<WriteTool>(json!({"path": name, "content": "x\n"}));
        assert!(!write.is_error, "{len}: {}", write.text());
        assert!(!jail.call::<ReadTool>(json!({"path": name})).is_error);
        let edit = jail.call::<EditTool>(json!({"path": name, "edits": [set_line(1, "x", "y")]}));
        assert!(!edit.is_error, "{len}: {}", edit.text());
        assert_eq!(std::fs::read(jail.path(&format!("r/{name}"))).expect("read"), b"y\n");
    }
    let too_long = "n".repeat(256);
    let write = jail.call::<WriteTool>(json!({"path": too_long, "content": "x\n"}));
    assert!(write.is_error);
    assert_eq!(write.ptc_value()["error"]["details"]["errno"], 36, "{}", write.text());
    assert!(no_temp_files(&jail.path("r")), "{:?}", std::fs::read_dir(jail.path("r")).map(|d| d.count()));
}

fn no_temp_files(dir: &Path) -> bool {
    std::fs::read_dir(dir).expect("read_dir").filter_map(Result::ok).all(|e| {
        !e.file_name().to_string_lossy().starts_with(".hl") && !e.file_name().to_string_lossy().ends_with("tmp")
    })
}
