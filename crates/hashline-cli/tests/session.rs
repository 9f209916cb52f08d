//! The CLI's session across invocations (docs/decisions/003-cli-session-default.md): one
//! per root by default, outside the project; `--session FILE`; `--stateless`.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::Env;

use hashline::core::LineHash;
use serde_json::{Value, json};

impl Env {
    fn file(&self, name: &str, text: &str) {
        std::fs::write(self.project.path().join(name), text).expect("write");
    }

    fn text(&self, name: &str) -> String {
        std::fs::read_to_string(self.project.path().join(name)).expect("read")
    }

    fn edit(&self, extra: &[&str], path: &str, edits: Value) -> Output {
        let edits = edits.to_string();
        let mut args: Vec<&str> = extra.to_vec();
        args.extend(["edit", path, "--edits", &edits]);
        self.run(&args)
    }

    /// Writes `name` with `text`, reads it (a session file is made) and returns that file.
    fn session_after_reading(&self, name: &str, text: &str) -> PathBuf {
        self.file(name, text);
        assert_eq!(self.run(&["read", name]).status.code(), Some(0));
        self.session_files().pop().expect("session file")
    }

    /// Every session file under the state directory.
    fn session_files(&self) -> Vec<PathBuf> {
        let dir = self.state.path().join("hashline/sessions");
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        files
    }
}

fn anchor(line: u32, text: &str) -> String {
    format!("{line}:{}", LineHash::of(text.as_bytes()))
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("dir")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn lone_calls_keep_one_session_per_root_outside_the_project() {
    let env = Env::new();
    env.file("a.txt", "alpha\nbeta\n");
    // The read gate holds across invocations: an edit of an unread file is refused.
    let unread = env.edit(&[], "a.txt", json!([{"set_line": {"anchor": anchor(2, "beta"), "new_text": "BETA"}}]));
    assert_eq!(unread.status.code(), Some(1));
    assert!(stderr(&unread).contains("You must get fresh anchors"), "{}", stderr(&unread));
    assert_eq!(env.run(&["read", "a.txt"]).status.code(), Some(0));
    let edited = env.edit(&[], "a.txt", json!([{"set_line": {"anchor": anchor(2, "beta"), "new_text": "BETA"}}]));
    assert_eq!(edited.status.code(), Some(0), "{}", stderr(&edited));
    assert_eq!(env.text("a.txt"), "alpha\nBETA\n");
    // One file, named for the root, in the state directory; nothing new in the project.
    let files = env.session_files();
    assert_eq!(files.len(), 1, "{files:?}");
    let root_name = env.project.path().file_name().expect("name").to_string_lossy().trim_start_matches('.').to_owned();
    let name = files[0].file_name().expect("name").to_string_lossy().into_owned();
    assert!(name.starts_with(&format!("{root_name}-")), "{name}");
    assert_eq!(listing(env.project.path()), ["a.txt"]);
    // Another root, another session.
    let sub = env.project.path().join("sub");
    std::fs::create_dir(&sub).expect("mkdir");
    std::fs::write(sub.join("s.txt"), "s\n").expect("write");
    assert_eq!(env.run(&["--root", "sub", "read", "s.txt"]).status.code(), Some(0));
    assert_eq!(env.session_files().len(), 2);
}

#[test]
fn a_stale_anchor_to_a_repeated_line_is_never_misplaced_with_a_session() {
    // Issue 9, finding 8 (seen on real history): blank lines 3 and 6; three lines
    // inserted at the top move them to 6 and 9; `set_line 6:d05` from the first read
    // means the old blank line 6 (now 9), but line 6 is blank again.
    let text = "a\nb\n\nc\nd\n\ne\n";
    let top = json!([{"insert_after": {"anchor": anchor(1, "a"), "new_text": "x\ny\nz"}}]);
    let stale = json!([{"set_line": {"anchor": anchor(6, ""), "new_text": "// six"}}]);

    // With the default session: refused as ambiguous (both blank lines were shown as
    // 6:d05), nothing written; the refusal's fresh row of the line meant works at once.
    let with = Env::new();
    with.file("m.txt", text);
    assert_eq!(with.run(&["read", "m.txt"]).status.code(), Some(0));
    assert_eq!(with.edit(&[], "m.txt", top.clone()).status.code(), Some(0));
    let out = with.edit(&[], "m.txt", stale.clone());
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("lines 6 and 9 could each be the line it names"), "{}", stderr(&out));
    assert_eq!(with.text("m.txt"), "a\nx\ny\nz\nb\n\nc\nd\n\ne\n");
    let retry = with.edit(&[], "m.txt", json!([{"set_line": {"anchor": anchor(9, ""), "new_text": "// six"}}]));
    assert_eq!(retry.status.code(), Some(0), "{}", stderr(&retry));
    assert_eq!(with.text("m.txt"), "a\nx\ny\nz\nb\n\nc\nd\n// six\ne\n");

    // Statelessly the same call lands on the look-alike; the hint names the hazard.
    let without = Env::new();
    without.file("m.txt", text);
    assert_eq!(without.edit(&["--stateless"], "m.txt", top).status.code(), Some(0));
    let out = without.edit(&["--stateless"], "m.txt", stale);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(without.text("m.txt"), "a\nx\ny\nz\nb\n// six\nc\nd\n\ne\n", "misplaced, as documented");
    let printed = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        printed.contains(
            "Stateless edit: the text of anchor 6:d05 occurs more than once within ±20 lines, so a stale anchor to such a line can land on a look-alike. Keep a session (the CLI's default; drop --stateless) so anchors follow their lines."
        ),
        "{printed}"
    );
    assert!(without.session_files().is_empty(), "--stateless keeps no session file");
}

#[test]
fn stateless_calls_have_no_read_gate() {
    let env = Env::new();
    env.file("a.txt", "alpha\nbeta\n");
    let out =
        env.edit(&["--stateless"], "a.txt", json!([{"set_line": {"anchor": anchor(2, "beta"), "new_text": "B"}}]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(env.text("a.txt"), "alpha\nB\n");
    assert_eq!(env.run(&["--stateless", "--session", "s.json", "read", "a.txt"]).status.code(), Some(2));
    assert_eq!(env.run(&["--stateless", "batch"]).status.code(), Some(2));
}

#[test]
fn the_session_file_holds_each_files_rows_as_one_string_as_documented() {
    let env = Env::new();
    env.file("a.txt", "alpha\nbeta\n");
    assert_eq!(env.run(&["read", "a.txt"]).status.code(), Some(0));
    let out = env.edit(&[], "a.txt", json!([{"insert_after": {"anchor": anchor(1, "alpha"), "text": "new"}}]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let file = env.session_files().pop().expect("session file");
    let real = hashline::fs::lookup::canonicalize(&env.project.path().join("a.txt")).expect("real path");
    // docs/protocol.md, "The session file is JSON": the same example, under this root (the
    // change's time aside).
    let path = serde_json::to_string(&real).expect("path");
    let expected = format!(
        r#"{{"version":3,"ledger":{{"files":{{{path}:"1:3c8bdc 3:589@2"}}}},"changes":{{"next":2,"changes":[{{"id":"c1-8fa4","seq":1,"time":TIME,"tool":"edit","files":[{{"path":{path},"display":"a.txt","before":{{"sha256":"e49c81e2d2f84e259d40e2fb8192f3bcd198b355184845d76d8f58807d0d78ee","len":11}},"after":{{"sha256":"5b242b6ad483c742605178e79569006a93eec7b06435e193ee4c39d4a1ed9c79","len":15}},"added":1,"removed":0}}]}}],"expired":[]}}}}"#
    );
    let saved = std::fs::read_to_string(&file).expect("saved");
    let time = serde_json::from_str::<Value>(&saved).expect("json")["changes"]["changes"][0]["time"].to_string();
    assert_eq!(saved, expected.replace("TIME", &time));

    // A version-2 file (an object per row) is read, and written back as version 3.
    let v2 = format!(
        r#"{{"version":2,"ledger":{{"files":{{{}:{{"rows":{{"1":{{"hash":968,"names":[1]}},"2":{{"hash":3036,"names":[2]}},"3":{{"hash":1417,"names":[2,3]}}}}}}}}}}}}"#,
        serde_json::to_string(&real).expect("path")
    );
    std::fs::write(&file, v2).expect("write v2");
    // The anchor `2:589` names `beta` (shown as line 2 before the edit moved it to 3).
    let out = env.edit(&[], "a.txt", json!([{"set_line": {"anchor": anchor(2, "beta"), "new_text": "BETA"}}]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stderr(&out).contains("new session"), "{}", stderr(&out));
    assert_eq!(env.text("a.txt"), "alpha\nnew\nBETA\n");
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&file).expect("saved")).expect("json");
    assert_eq!(saved["version"], 3);

    // A string that does not read as rows is a damaged file: a fresh session, said on stderr.
    std::fs::write(&file, r#"{"version":3,"ledger":{"files":{"/x":"1:3C8"}}}"#).expect("damage");
    let out = env.run(&["read", "a.txt"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("starting a new session"), "{}", stderr(&out));
}

/// A call decodes only the rows it uses: the others are checked when loaded (a damaged
/// file is still refused whole) and written back exactly as they were stored.
#[test]
fn rows_a_call_does_not_use_are_written_back_as_they_were_stored() {
    let env = Env::new();
    env.file("a.txt", "alpha\nbeta\n");
    env.file("b.txt", "one\n");
    assert_eq!(env.run(&["read", "b.txt"]).status.code(), Some(0));
    let file = env.session_files().pop().expect("session file");
    let real = |name: &str| hashline::fs::lookup::canonicalize(&env.project.path().join(name)).expect("real path");
    let key = |name: &str| serde_json::to_string(&real(name)).expect("path");
    // a.txt's rows in a spelling this build does not write (one segment a row).
    let stored = format!(r#"{{"version":3,"ledger":{{"files":{{{}:"1:3c8 2:589"}}}}}}"#, key("a.txt"));
    std::fs::write(&file, &stored).expect("write session");
    let rows_of = |name: &str| -> Value {
        let saved: Value = serde_json::from_str(&std::fs::read_to_string(&file).expect("saved")).expect("json");
        saved["ledger"]["files"][real(name).to_str().expect("utf-8")].clone()
    };
    assert_eq!(env.run(&["read", "b.txt"]).status.code(), Some(0));
    assert_eq!(rows_of("a.txt"), json!("1:3c8 2:589"), "kept as stored");
    assert!(rows_of("b.txt").is_string(), "b.txt's read is recorded");
    // Used, the stored rows are the rows they say: `2:589` names `beta`.
    let out = env.edit(&[], "a.txt", json!([{"set_line": {"anchor": anchor(2, "beta"), "new_text": "BETA"}}]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(env.text("a.txt"), "alpha\nBETA\n");
    assert_ne!(rows_of("a.txt"), json!("1:3c8 2:589"), "changed rows are written anew");
    // A damaged file's rows are refused when loaded, even when the call does not use them.
    std::fs::write(&file, stored.replace("2:589", "2:58")).expect("damage");
    let out = env.run(&["read", "b.txt"]);
    assert!(stderr(&out).contains("starting a new session"), "{}", stderr(&out));
}

#[test]
fn a_damaged_default_session_file_starts_a_new_session() {
    let env = Env::new();
    let file = env.session_after_reading("a.txt", "alpha\n");
    // Version 1 (rows without names) is damaged too (docs/protocol.md).
    let v1 = r#"{"version":1,"ledger":{"files":{"/x":{"rows":{"1":{"hash":968}}}}}}"#;
    for damage in ["{broken", "", "{\"version\": 99, \"ledger\": {\"files\": {}}}", v1, "\u{0}\u{1}binary"] {
        std::fs::write(&file, damage).expect("damage");
        let out = env.run(&["read", "a.txt"]);
        assert_eq!(out.status.code(), Some(0), "{damage:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("starting a new session"), "{damage:?}: {}", stderr(&out));
        let saved: Value = serde_json::from_str(&std::fs::read_to_string(&file).expect("saved")).expect("repaired");
        assert_eq!(saved["version"], 3);
    }
    // A named file that is not a session is the user's: refused, left alone.
    std::fs::write(env.project.path().join("notes.json"), "my notes").expect("write");
    assert_eq!(env.run(&["--session", "notes.json", "read", "a.txt"]).status.code(), Some(2));
    assert_eq!(env.text("notes.json"), "my notes");
}

/// `ls` and `find` neither read nor change the session: their calls leave the default
/// session file unopened — not locked (they finish while another process holds its lock), not
/// loaded (a damaged one is not reported), not saved (nor rewritten). A file named with
/// `--session` is opened whatever the call.
#[test]
fn ls_and_find_leave_the_default_session_file_unopened() {
    let env = Env::new();
    let file = env.session_after_reading("a.txt", "alpha\n");
    std::fs::write(&file, "{broken").expect("damage");
    let mut lock_path = file.clone().into_os_string();
    lock_path.push(".lock");
    let lock = std::fs::OpenOptions::new().read(true).write(true).open(&lock_path).expect("lock file");
    lock.lock().expect("hold the session's lock");
    let calls: [&[&str]; 4] =
        [&["ls"], &["find", "*.txt"], &["call", "ls", "{}"], &["call", "find", r#"{"pattern": "*"}"#]];
    for args in calls {
        let mut child = env.command(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn");
        let deadline = Instant::now() + Duration::from_secs(20);
        while child.try_wait().expect("wait").is_none() {
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("{args:?} waited for the session's lock");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let out = child.wait_with_output().expect("output");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        assert!(String::from_utf8_lossy(&out.stdout).contains("a.txt"), "{args:?}");
        assert!(!stderr(&out).contains("starting a new session"), "{args:?}: {}", stderr(&out));
        assert_eq!(std::fs::read_to_string(&file).expect("kept"), "{broken", "{args:?}");
    }
    drop(lock);
    // Any other call reads it (and finds it damaged).
    let out = env.run(&["read", "a.txt"]);
    assert!(stderr(&out).contains("starting a new session"), "{}", stderr(&out));
    // A named file is opened: one that is not a session is refused, left alone.
    std::fs::write(env.project.path().join("notes.json"), "my notes").expect("write");
    assert_eq!(env.run(&["--session", "notes.json", "ls"]).status.code(), Some(2));
    assert_eq!(env.text("notes.json"), "my notes");
}

#[test]
fn concurrent_cli_processes_share_the_session_without_losing_rows() {
    let env = Env::new();
    let names: Vec<String> = (0..12).map(|i| format!("f{i}.txt")).collect();
    for name in &names {
        env.file(name, &format!("{name}\n"));
    }
    let children: Vec<_> = names
        .iter()
        .map(|name| {
            Command::new(env!("CARGO_BIN_EXE_hashline"))
                .args(["read", name])
                .current_dir(env.project.path())
                .env("XDG_STATE_HOME", env.state.path())
                .output()
        })
        .collect();
    for child in children {
        assert_eq!(child.expect("run").status.code(), Some(0));
    }
    // Spawned one after another above; now truly in parallel.
    let handles: Vec<_> = names
        .iter()
        .map(|name| {
            let (project, state, name) =
                (env.project.path().to_path_buf(), env.state.path().to_path_buf(), name.clone());
            std::thread::spawn(move || {
                let edits = json!([{"set_line": {"anchor": anchor(1, &name), "new_text": "edited"}}]).to_string();
                Command::new(env!("CARGO_BIN_EXE_hashline"))
                    .args(["edit", &name, "--edits", &edits])
                    .current_dir(project)
                    .env("XDG_STATE_HOME", state)
                    .output()
                    .expect("run")
            })
        })
        .collect();
    for handle in handles {
        let out = handle.join().expect("thread");
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    for name in &names {
        assert_eq!(env.text(name), "edited\n", "{name}");
    }
    let file = env.session_files().pop().expect("session file");
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(file).expect("saved")).expect("valid JSON");
    assert_eq!(
        saved["ledger"]["files"].as_object().map(|f| f.len()),
        Some(names.len()),
        "no process lost another's rows"
    );
}

#[test]
fn the_help_states_the_default_session_and_the_stateless_hazard() {
    let env = Env::new();
    let help = String::from_utf8_lossy(&env.run(&["--help"]).stdout).into_owned();
    // Words only: clap wraps to the terminal's width.
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    for needle in [
        "Calls keep a session per root by default",
        "~/.local/state/hashline/sessions/, never in the project",
        "--stateless Keep no session",
        "Hazard: a stale anchor to a line whose text repeats nearby (a blank line, a lone `}`) lands on whichever equal line now has its number",
    ] {
        assert!(help.contains(needle), "{needle:?} not in:\n{help}");
    }
}

/// A directory every user may write to (like `/tmp`: mode 1777), holding `--session` files.
#[cfg(unix)]
fn shared_dir(env: &Env) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let shared = env.state.path().join("shared");
    std::fs::create_dir(&shared).expect("mkdir");
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777)).expect("chmod");
    shared
}

#[cfg(unix)]
fn is_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    // A file this process makes is owned by its effective user.
    let probe = tempfile::NamedTempFile::new().expect("probe");
    probe.as_file().metadata().expect("meta").uid() == 0
}

/// A session file (and lock) that saw `a.txt` read, in `dir`.
#[cfg(unix)]
fn ledger_with_a_read(env: &Env, dir: &Path) -> PathBuf {
    let file = dir.join("s.json");
    let out = env.run(&["--session", file.to_str().expect("utf-8"), "read", "a.txt"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(file.is_file());
    file
}

#[cfg(unix)]
fn set_beta(env: &Env, session: &Path) -> Output {
    let session = session.to_str().expect("utf-8");
    env.edit(&["--session", session], "a.txt", json!([{"set_line": {"anchor": anchor(2, "beta"), "new_text": "BETA"}}]))
}

#[test]
#[cfg(unix)]
fn a_planted_lock_symlink_neither_creates_nor_truncates_its_target() {
    let env = Env::new();
    env.file("a.txt", "alpha\nbeta\n");
    let shared = shared_dir(&env);
    let outside = tempfile::tempdir().expect("outside");
    let missing = outside.path().join("created-by-hashline");
    let existing = outside.path().join("precious");
    std::fs::write(&existing, "keep me\n").expect("write");
    for (name, target) in [("m.json", &missing), ("e.json", &existing)] {
        let session = shared.join(name);
        std::os::unix::fs::symlink(target, shared.join(format!("{name}.lock"))).expect("plant");
        let out = env.run(&["--session", session.to_str().expect("utf-8"), "read", "a.txt"]);
        assert_eq!(out.status.code(), Some(2), "{name}: {}", stderr(&out));
        assert!(stderr(&out).contains("refusing the session lock"), "{name}: {}", stderr(&out));
        assert!(stderr(&out).contains("is a symlink"), "{name}: {}", stderr(&out));
        assert!(!session.exists(), "{name}: no session written");
    }
    assert!(!missing.exists(), "the lock's symlink target was created");
    assert_eq!(std::fs::read_to_string(&existing).expect("kept"), "keep me\n");

    // The same lock planted for the default session file: the call runs statelessly.
    assert_eq!(env.run(&["read", "a.txt"]).status.code(), Some(0));
    let default = env.session_files().pop().expect("default session file");
    let mut lock = default.clone().into_os_string();
    lock.push(".lock");
    std::fs::remove_file(&lock).expect("remove the lock");
    std::os::unix::fs::symlink(&missing, &lock).expect("plant");
    let out = env.run(&["read", "a.txt"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("running --stateless"), "{}", stderr(&out));
    assert!(!missing.exists(), "the default lock's symlink target was created");
}

#[test]
#[cfg(unix)]
fn a_symlinked_session_file_is_refused() {
    let env = Env::new();
    env.file("a.txt", "alpha\nbeta\n");
    let shared = shared_dir(&env);
    let real = ledger_with_a_read(&env, &shared);
    let link = shared.join("link.json");
    std::os::unix::fs::symlink(&real, &link).expect("symlink");
    let out = set_beta(&env, &link);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("refusing the session file"), "{}", stderr(&out));
    assert!(stderr(&out).contains("is a symlink"), "{}", stderr(&out));
    assert_eq!(env.text("a.txt"), "alpha\nbeta\n", "the planted ledger let an edit through");
}

#[test]
#[cfg(unix)]
fn a_session_file_others_may_write_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    env.file("a.txt", "alpha\nbeta\n");
    let shared = shared_dir(&env);
    let file = ledger_with_a_read(&env, &shared);
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o666)).expect("chmod");
    let out = set_beta(&env, &file);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("refusing the session file"), "{}", stderr(&out));
    assert!(stderr(&out).contains("writable by group or others (mode 0666)"), "{}", stderr(&out));
    assert_eq!(env.text("a.txt"), "alpha\nbeta\n");
}

#[test]
#[cfg(unix)]
fn a_session_file_or_lock_of_another_user_is_refused() {
    if !is_root() {
        eprintln!("SKIPPED a_session_file_or_lock_of_another_user_is_refused: needs root to chown");
        return;
    }
    let env = Env::new();
    env.file("a.txt", "alpha\nbeta\n");
    let shared = shared_dir(&env);
    let file = ledger_with_a_read(&env, &shared);
    std::os::unix::fs::chown(&file, Some(4242), Some(4242)).expect("chown");
    let out = set_beta(&env, &file);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("refusing the session file"), "{}", stderr(&out));
    assert!(stderr(&out).contains("owned by uid 4242"), "{}", stderr(&out));
    assert_eq!(env.text("a.txt"), "alpha\nbeta\n", "a planted ledger let an edit through");

    // A lock someone else planted (they could hold it forever) is refused too.
    let other = shared.join("o.json");
    let lock = shared.join("o.json.lock");
    std::fs::write(&lock, "").expect("plant");
    std::os::unix::fs::chown(&lock, Some(4242), Some(4242)).expect("chown");
    let out = env.run(&["--session", other.to_str().expect("utf-8"), "read", "a.txt"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("refusing the session lock"), "{}", stderr(&out));
    assert!(stderr(&out).contains("owned by uid 4242"), "{}", stderr(&out));
}

#[test]
#[cfg(unix)]
fn the_state_directory_is_private_and_new_session_files_are_the_users_alone() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    env.file("a.txt", "alpha\n");
    assert_eq!(env.run(&["read", "a.txt"]).status.code(), Some(0));
    for dir in ["hashline", "hashline/sessions"] {
        let mode = std::fs::metadata(env.state.path().join(dir)).expect("dir").permissions().mode() & 0o777;
        assert_eq!(mode, 0o700, "{dir}: {mode:o}");
    }
    let file = env.session_files().pop().expect("session file");
    let mut lock = file.clone().into_os_string();
    lock.push(".lock");
    for path in [file.as_os_str(), lock.as_os_str()] {
        let mode = std::fs::metadata(path).expect("file").permissions().mode() & 0o777;
        assert_eq!(mode & 0o077, 0, "{path:?}: {mode:o}");
    }
}

#[test]
#[cfg(unix)]
fn a_group_writable_lock_in_a_private_directory_still_works() {
    use std::os::unix::fs::PermissionsExt;
    // Earlier versions made the lock with the umask's mode (0664 under umask 002): in the
    // user's own directory that is no danger, and such a session keeps working.
    let env = Env::new();
    env.file("a.txt", "alpha\nbeta\n");
    let private = env.state.path().join("private");
    std::fs::create_dir(&private).expect("mkdir");
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let file = ledger_with_a_read(&env, &private);
    let lock = private.join("s.json.lock");
    std::fs::set_permissions(&lock, std::fs::Permissions::from_mode(0o664)).expect("chmod");
    let out = set_beta(&env, &file);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(env.text("a.txt"), "alpha\nBETA\n");
}

/// `<session file>.changes`, the undo store beside a session file.
#[cfg(unix)]
fn changes_dir(session: &Path) -> PathBuf {
    let mut dir = session.as_os_str().to_owned();
    dir.push(".changes");
    PathBuf::from(dir)
}

/// A session in `dir` that read `a.txt` and changed `beta` to `BETA` (its undo store holds
/// the two versions); returns the session file.
#[cfg(unix)]
fn session_with_a_change(env: &Env, dir: &Path) -> PathBuf {
    let file = ledger_with_a_read(env, dir);
    let out = set_beta(env, &file);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(listing(&changes_dir(&file)).len(), 2, "two versions kept");
    file
}

/// docs/protocol.md §8 Sessions: a `.changes` symlink someone planted beside a session file
/// in a shared directory is refused before anything is read, written or removed through it
/// (it would have taken the victim's file versions and removed its `*.blob` files).
#[test]
#[cfg(unix)]
fn a_planted_changes_symlink_is_refused_and_its_target_untouched() {
    let env = Env::new();
    env.file("a.txt", "alpha\nbeta\n");
    let shared = shared_dir(&env);
    let victim = tempfile::tempdir().expect("victim");
    std::fs::write(victim.path().join("precious.blob"), "keep me\n").expect("write");
    let session = shared.join("s.json");
    std::os::unix::fs::symlink(victim.path(), changes_dir(&session)).expect("plant");
    for args in [&["read", "a.txt"][..], &["undo"][..]] {
        let mut all = vec!["--session", session.to_str().expect("utf-8")];
        all.extend_from_slice(args);
        let out = env.run(&all);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let expected = format!(
            "hashline: refusing the session changes directory {}: it is a symlink (the session's files are never followed)\n",
            changes_dir(&session).display()
        );
        assert_eq!(stderr(&out), expected, "{args:?}");
    }
    assert!(!session.exists(), "no session written");
    let out = set_beta(&env, &session);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(env.text("a.txt"), "alpha\nbeta\n");
    assert_eq!(listing(victim.path()), ["precious.blob"], "the symlink's target was written or emptied");
    assert_eq!(std::fs::read_to_string(victim.path().join("precious.blob")).expect("kept"), "keep me\n");
}

/// A `.changes` directory that group or others may write, in a shared directory, is refused
/// (they could remove or replace the kept versions); in the user's own directory it is the
/// user's choice, as for the session file and its lock.
#[test]
#[cfg(unix)]
fn a_changes_directory_others_may_write_is_refused_in_a_shared_directory() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    env.file("a.txt", "alpha\nbeta\n");
    let shared = shared_dir(&env);
    let session = session_with_a_change(&env, &shared);
    let dir = changes_dir(&session);
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).expect("chmod");
    let out = env.run(&["--session", session.to_str().expect("utf-8"), "undo"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        format!(
            "hashline: refusing the session changes directory {}: writable by group or others (mode 0777)\n",
            dir.display()
        )
    );
    assert_eq!(env.text("a.txt"), "alpha\nBETA\n", "nothing undone");

    let private = env.state.path().join("private");
    std::fs::create_dir(&private).expect("mkdir");
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    std::fs::write(env.project.path().join("a.txt"), "alpha\nbeta\n").expect("reset");
    let session = session_with_a_change(&env, &private);
    std::fs::set_permissions(changes_dir(&session), std::fs::Permissions::from_mode(0o770)).expect("chmod");
    let out = env.run(&["--session", session.to_str().expect("utf-8"), "undo"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(env.text("a.txt"), "alpha\nbeta\n");
}

#[test]
#[cfg(unix)]
fn a_changes_directory_of_another_user_is_refused() {
    if !is_root() {
        eprintln!("SKIPPED a_changes_directory_of_another_user_is_refused: needs root to chown");
        return;
    }
    let env = Env::new();
    env.file("a.txt", "alpha\nbeta\n");
    let shared = shared_dir(&env);
    let session = session_with_a_change(&env, &shared);
    let dir = changes_dir(&session);
    std::os::unix::fs::chown(&dir, Some(4242), Some(4242)).expect("chown");
    let out = env.run(&["--session", session.to_str().expect("utf-8"), "undo"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        format!(
            "hashline: refusing the session changes directory {}: owned by uid 4242, not by this user (uid 0)\n",
            dir.display()
        )
    );
    assert_eq!(env.text("a.txt"), "alpha\nBETA\n", "nothing undone");
    assert_eq!(listing(&dir).len(), 2, "no version removed");

    // In the user's own directory too: another user's store could be emptied by them.
    let private = env.state.path().join("private");
    std::fs::create_dir(&private).expect("mkdir");
    let session = private.join("p.json");
    std::fs::create_dir(changes_dir(&session)).expect("mkdir");
    std::os::unix::fs::chown(changes_dir(&session), Some(4242), Some(4242)).expect("chown");
    let out = env.run(&["--session", session.to_str().expect("utf-8"), "read", "a.txt"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("owned by uid 4242"), "{}", stderr(&out));
}

#[cfg(not(unix))]
#[test]
fn unix_only_tests() {
    for test in [
        "a_planted_lock_symlink_neither_creates_nor_truncates_its_target",
        "a_symlinked_session_file_is_refused",
        "a_session_file_others_may_write_is_refused",
        "a_session_file_or_lock_of_another_user_is_refused",
        "the_state_directory_is_private_and_new_session_files_are_the_users_alone",
        "a_group_writable_lock_in_a_private_directory_still_works",
        "a_planted_changes_symlink_is_refused_and_its_target_untouched",
        "a_changes_directory_others_may_write_is_refused_in_a_shared_directory",
        "a_changes_directory_of_another_user_is_refused",
    ] {
        eprintln!("SKIPPED {test}: Unix modes and owners (on Windows the state directory is in the user's profile)");
    }
}

/// In text mode the model sees the text alone: a grep whose records run past the text's
/// budget serves only the rows its text shows, with a session log kept or not; with `--json`
/// it serves every record (docs/protocol.md §4.4).
#[test]
fn a_text_mode_grep_serves_the_rows_its_text_shows_with_a_log_or_without() {
    let env = Env::new();
    for file in 0..50 {
        let body: String = (0..60).map(|n| format!("needle {file} {n} {}\n", "x".repeat(200))).collect();
        env.file(&format!("f{file:02}.txt"), &body);
    }
    // Above 50 matches, 10 a file: f49.txt's first match is line 1, past the 50 KB budget.
    let last = format!("needle 49 0 {}", "x".repeat(200));
    let edit = json!([{"set_line": {"anchor": anchor(1, &last), "new_text": "edited"}}]);
    let grep = ["grep", "needle", "--limit", "100000"];
    for (mode, extra) in
        [("text", &["--session", "a.json"][..]), ("text, logged", &["--session", "b.json", "--log", "b.jsonl"])]
    {
        let out = env.run(&[extra, &grep[..]].concat());
        assert_eq!(out.status.code(), Some(0), "{mode}: {}", stderr(&out));
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("[Output truncated") && !text.contains("--- f49.txt"), "{mode}: {text}");
        let refused = env.edit(extra, "f49.txt", edit.clone());
        assert_ne!(refused.status.code(), Some(0), "{mode}: an unshown row was served");
        assert_eq!(env.text("f49.txt").lines().next(), Some(last.as_str()), "{mode}");
        assert!(stderr(&refused).contains("You must get fresh anchors"), "{mode}: {}", stderr(&refused));
    }
    let out = env.run(&[&["--session", "c.json", "--json"][..], &grep[..]].concat());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let served = env.edit(&["--session", "c.json"], "f49.txt", edit);
    assert_eq!(served.status.code(), Some(0), "--json: {}", stderr(&served));
    assert_eq!(env.text("f49.txt").lines().next(), Some("edited"));
}
