//! The fault-injection suite (SPEC §12), run by `.ci/run` with `--ignored`: the release
//! of `hashline` killed with SIGKILL at random moments of single-file, hard-linked and
//! multi-file edits and of reverts (`hashline undo`) of a multi-file edit and of a made
//! file; an appender and a second `hashline` racing edits; a symlink swapped during writes
//! and edits; edits and writes on a full tmpfs; hostile names and lines through every tool.
//! Each prints `rounds run / violations`; any violation fails.
//!
//! `HASHLINE_FAULT_BIN` names another `hashline` to put through the same rounds (for example
//! a build from before the file-system layer, behind a wrapper that drops `--stateless`), so
//! that the suite can be seen failing where the guarantees do not hold.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use hashline::core::LineHash;
use serde_json::json;

/// Rounds per group: 100, or `HASHLINE_FAULT_ROUNDS` (the Wine lane runs fewer: each
/// `hashline.exe` there takes half a second to start).
fn rounds() -> usize {
    std::env::var("HASHLINE_FAULT_ROUNDS").ok().and_then(|n| n.parse().ok()).unwrap_or(100)
}

/// A small random generator (xorshift), seeded from the clock; the seed is printed.
struct Rng(u64);

impl Rng {
    fn new() -> Self {
        let seed =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64);
        // The hashline processes under test inherit HASHLINE_FS_BACKEND from this one.
        match std::env::var_os("HASHLINE_FAULT_BIN") {
            Some(bin) => println!("fault suite seed: {seed}; hashline under test: {}", bin.to_string_lossy()),
            None => println!("fault suite seed: {seed}; file-system backend: {}", hashline::fs::backend().name()),
        }
        Self(seed | 1)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }
}

fn anchor(line: u32, text: &str) -> String {
    format!("{line}:{}", LineHash::of(text.as_bytes()))
}

/// The `hashline` under test: this build's, or the one `HASHLINE_FAULT_BIN` names.
fn binary() -> PathBuf {
    std::env::var_os("HASHLINE_FAULT_BIN").map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_hashline")), PathBuf::from)
}

fn spawn(root: &Path, tool: &str, args: serde_json::Value) -> Child {
    spawn_with(root, tool, args, Stdio::null())
}

fn spawn_with(root: &Path, tool: &str, args: serde_json::Value, stderr: Stdio) -> Child {
    // Stateless: these races are about the file system, not the session (whose lock
    // would make the processes take turns).
    Command::new(binary())
        .args(["--stateless", "--root"])
        .arg(root)
        .args(["call", tool, &args.to_string()])
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .expect("spawn hashline")
}

/// Opens a session on `root` (recovery runs at session start). An `ls` that fails is
/// reported on one line and tried again (twice, half a second apart) before the test fails:
/// the Wine lane's `ls` failed once in a clean-clone run after a full-disk round (its
/// message was lost to the log's cut, and thousands of rounds here did not repeat it), and
/// what each group checks is the files after recovery, which a retried recovery still is.
fn recover(root: &Path) {
    run_thrice(root, "ls", &json!({"path": "."}), "recovery's ls", || ());
}

/// Runs `tool` until it succeeds, at most three times, half a second apart, each failure
/// reported on one line with its status and output (`before` runs before each try), and
/// fails the test after the third; gives how long the try that succeeded took: a call that is not under test (recovery's `ls`, the
/// uninterrupted edit that times the kills) once failed in a clean-clone run of the Wine
/// lane with nothing on its standard output, and many runs here did not repeat it.
fn run_thrice(root: &Path, tool: &str, args: &serde_json::Value, what: &str, before: impl Fn()) -> Duration {
    let mut failures = Vec::new();
    for attempt in 1..=3 {
        before();
        let started = Instant::now();
        let out = spawn_with(root, tool, args.clone(), Stdio::piped()).wait_with_output().expect(what);
        if out.status.success() {
            return started.elapsed();
        }
        let failure = format!(
            "attempt {attempt}: {}: {}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout).trim_end(),
            String::from_utf8_lossy(&out.stderr).trim_end()
        );
        println!("fault: {what} failed ({}): {failure}", root.display());
        failures.push(failure);
        std::thread::sleep(Duration::from_millis(500));
    }
    panic!("{what} failed three times: {failures:#?}");
}

/// Names in `root` other than the expected files.
fn strays(root: &Path, expected: &[&str]) -> Vec<String> {
    std::fs::read_dir(root)
        .expect("ls")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !expected.contains(&n.as_str()))
        .collect()
}

/// What each of `files` in `root` holds now: `Some(false)` the old text, `Some(true)` the
/// new one, `None` anything else (a torn or missing file).
fn states_of(root: &Path, files: &[&str], old: &str, new: &str) -> Vec<Option<bool>> {
    files
        .iter()
        .map(|f| match std::fs::read_to_string(root.join(f)) {
            Ok(text) if text == old => Some(false),
            Ok(text) if text == new => Some(true),
            _ => None,
        })
        .collect()
}

/// Content of `lines` lines, the first one being `first`.
fn content(first: &str, lines: usize) -> String {
    let mut text = format!("{first}\n");
    for n in 1..lines {
        text.push_str(&format!("line {n} of a file large enough that writing it takes a while\n"));
    }
    text
}

/// Runs `rounds` kill -9 rounds of an edit of `files` (each set line 1 `old` → `new`),
/// with `link` adding a hard link to the first file. Returns violations.
fn kill_rounds(name: &str, files: &[&str], link: bool, rng: &mut Rng) -> usize {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = hashline::fs::lookup::canonicalize(dir.path()).expect("canonical");
    let lines = 20_000;
    let (old, new) = (content("old", lines), content("new", lines));
    let edits =
        |path: &str| json!({"path": path, "edits": [{"set_line": {"anchor": anchor(1, "old"), "new_text": "new"}}]});
    let args = if files.len() == 1 {
        edits(files[0])
    } else {
        json!({"files": files.iter().map(|f| edits(f)).collect::<Vec<_>>()})
    };
    let mut expected: Vec<&str> = files.to_vec();
    if link {
        expected.push("link.txt");
    }
    let reset = || {
        for file in files {
            let _ = std::fs::remove_file(root.join(file));
            std::fs::write(root.join(file), &old).expect("write");
        }
        if link {
            let _ = std::fs::remove_file(root.join("link.txt"));
            std::fs::hard_link(root.join(files[0]), root.join("link.txt")).expect("link");
        }
    };
    // How long one uninterrupted edit takes: kills land anywhere in it.
    let took = run_thrice(&root, "edit", &args, &format!("{name}: the uninterrupted edit"), reset);
    let span = took.as_micros() as u64 * 12 / 10;
    let mut violations = 0;
    let mut outcomes = [0usize; 2];
    let rounds = rounds();
    for _ in 0..rounds {
        reset();
        let mut child = spawn(&root, "edit", args.clone());
        std::thread::sleep(Duration::from_micros(rng.below(span)));
        let _ = child.kill();
        let _ = child.wait();
        recover(&root);
        let states = states_of(&root, files, &old, &new);
        let whole = states.iter().all(Option::is_some) && states.windows(2).all(|w| w[0] == w[1]);
        let linked = !link || std::fs::read(root.join("link.txt")).ok() == std::fs::read(root.join(files[0])).ok();
        let stray = strays(&root, &expected);
        if !whole || !linked || !stray.is_empty() {
            violations += 1;
            eprintln!("{name}: violation: states {states:?}, link ok {linked}, strays {stray:?}");
        } else {
            outcomes[usize::from(states[0] == Some(true))] += 1;
        }
    }
    println!(
        "fault: kill -9 during {name}: rounds {rounds} / violations {violations} (old {}, new {})",
        outcomes[0], outcomes[1]
    );
    violations
}

#[test]
#[ignore = "fault-injection suite: run by .ci/run with --ignored"]
fn kill_9_during_single_file_hard_linked_and_multi_file_edits() {
    let mut rng = Rng::new();
    let violations = kill_rounds("single-file edits", &["f.txt"], false, &mut rng)
        + kill_rounds("hard-linked edits", &["f.txt"], true, &mut rng)
        + kill_rounds("multi-file edits", &["a.txt", "b.txt", "c.txt"], false, &mut rng);
    assert_eq!(violations, 0);
}

/// Runs `hashline --session <session> <args>` (stateful: the change log lives there).
fn stateful(session: &Path, root: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(binary());
    command.arg("--session").arg(session).arg("--root").arg(root).args(args);
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    command
}

/// Issue 27: kill -9 during `hashline undo` of a change, after which recovery runs, then
/// an `undo` that is not killed. `made` reverts a write that made a file (the revert
/// removes it); otherwise the change is an edit of every file of `files`. Every file is
/// the change's before or after after the kill, all alike (never a mix, never torn), and
/// before after the second undo; no stray file in the root. Returns violations.
fn revert_rounds(name: &str, files: &[&str], made: bool, rng: &mut Rng) -> usize {
    let dir = tempfile::tempdir().expect("tempdir");
    let state = tempfile::tempdir().expect("state");
    let session = state.path().join("s.json");
    let root = hashline::fs::lookup::canonicalize(dir.path()).expect("canonical");
    let lines = 20_000;
    let (old, new) = (content("old", lines), content("new", lines));
    let setup = || {
        let _ = std::fs::remove_file(&session);
        let _ = std::fs::remove_dir_all(session_changes(&session));
        let mut input = String::new();
        for file in files {
            let _ = std::fs::remove_file(root.join(file));
            if made {
                input.push_str(&json!({"tool": "write", "args": {"path": file, "content": new}}).to_string());
            } else {
                std::fs::write(root.join(file), &old).expect("write");
                input.push_str(&json!({"tool": "read", "args": {"path": file, "limit": 1}}).to_string());
            }
            input.push('\n');
        }
        if !made {
            let edits =
                |f: &&str| json!({"path": f, "edits": [{"set_line": {"anchor": anchor(1, "old"), "new_text": "new"}}]});
            let edit = json!({"tool": "edit", "args": {"files": files.iter().map(edits).collect::<Vec<_>>()}});
            input.push_str(&edit.to_string());
            input.push('\n');
        }
        let mut batch = stateful(&session, &root, &["batch"]).stdin(Stdio::piped()).spawn().expect("batch");
        std::io::Write::write_all(&mut batch.stdin.take().expect("stdin"), input.as_bytes()).expect("input");
        let out = batch.wait_with_output().expect("batch");
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stdout));
    };
    // What the files hold: Some(false) the change's before (absent for a made file),
    // Some(true) its after, None anything else.
    let states = || -> Vec<Option<bool>> {
        files
            .iter()
            .map(|f| match std::fs::read_to_string(root.join(f)) {
                Ok(text) if text == new => Some(true),
                Ok(text) if text == old && !made => Some(false),
                Err(err) if err.kind() == std::io::ErrorKind::NotFound && made => Some(false),
                _ => None,
            })
            .collect()
    };
    setup();
    let started = Instant::now();
    let out = stateful(&session, &root, &["undo"]).output().expect("undo");
    assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
    let span = started.elapsed().as_micros() as u64 * 12 / 10;
    let (mut violations, mut outcomes) = (0, [0usize; 2]);
    // Half the rounds of the other groups: each round is four processes, not two.
    let rounds = (rounds() / 2).max(10);
    for _ in 0..rounds {
        setup();
        let mut child = stateful(&session, &root, &["undo"]).spawn().expect("undo");
        std::thread::sleep(Duration::from_micros(rng.below(span)));
        let _ = child.kill();
        let _ = child.wait();
        recover(&root);
        let after_kill = states();
        let whole = after_kill.iter().all(Option::is_some) && after_kill.windows(2).all(|w| w[0] == w[1]);
        // Whatever the killed undo did, a second one leaves every file as before the change
        // (it reverts, or the change was reverted already, or it refuses with nothing written).
        let _ = stateful(&session, &root, &["undo"]).output().expect("undo");
        let finally = states();
        let expected: Vec<&str> = if made { Vec::new() } else { files.to_vec() };
        let stray = strays(&root, &expected);
        if !whole || finally.iter().any(|s| *s != Some(false)) || !stray.is_empty() {
            violations += 1;
            eprintln!("{name}: violation: after the kill {after_kill:?}, after undo {finally:?}, strays {stray:?}");
        } else {
            outcomes[usize::from(after_kill[0] == Some(false))] += 1;
        }
    }
    println!(
        "fault: kill -9 during {name}: rounds {rounds} / violations {violations} (not reverted {}, reverted {})",
        outcomes[0], outcomes[1]
    );
    violations
}

/// The directory of a session file's change bytes (`<file>.changes`).
fn session_changes(session: &Path) -> PathBuf {
    let mut dir = session.as_os_str().to_owned();
    dir.push(".changes");
    PathBuf::from(dir)
}

#[test]
#[ignore = "fault-injection suite: run by .ci/run with --ignored"]
fn kill_9_during_reverts_of_a_multi_file_edit_and_of_a_made_file() {
    let mut rng = Rng::new();
    let violations = revert_rounds("reverts of multi-file edits", &["a.txt", "b.txt", "c.txt"], false, &mut rng)
        + revert_rounds("reverts of a made file", &["made.txt"], true, &mut rng);
    assert_eq!(violations, 0);
}

#[test]
#[ignore = "fault-injection suite: run by .ci/run with --ignored"]
fn an_appender_and_a_second_hashline_racing_edits_lose_nothing_reported_as_success() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = hashline::fs::lookup::canonicalize(dir.path()).expect("canonical");
    let lines = 20_000;
    let mut rng = Rng::new();
    let (mut violations, mut refused) = (0, 0);
    // The append lands in the first 20 ms: before, while or after the edits load and compare
    // (here; hashline.exe under Wine takes half a second to start, so there it lands before).
    // Not later: an append between an edit's compare and its rename is lost, the window
    // docs/protocol.md states (a span as long as a whole edit met it in 1 round of 100).
    let span = 20_000;
    let rounds = rounds();
    for round in 0..rounds {
        let text = content("one", lines).replacen("line 1 of", "two of", 1);
        std::fs::write(root.join("f.txt"), &text).expect("write");
        let second_line = text.lines().nth(1).expect("line 2").to_owned();
        let first = spawn(
            &root,
            "edit",
            json!({"path": "f.txt", "edits": [{"set_line": {"anchor": anchor(1, "one"), "new_text": "ONE"}}]}),
        );
        let second = spawn(
            &root,
            "edit",
            json!({"path": "f.txt", "edits": [{"set_line": {"anchor": anchor(2, &second_line), "new_text": "TWO"}}]}),
        );
        std::thread::sleep(Duration::from_micros(rng.below(span)));
        let marker = format!("appended {round}\n");
        {
            let mut f = std::fs::OpenOptions::new().append(true).open(root.join("f.txt")).expect("open");
            std::io::Write::write_all(&mut f, marker.as_bytes()).expect("append");
        }
        let ok1 = first.wait_with_output().expect("first").status.success();
        let ok2 = second.wait_with_output().expect("second").status.success();
        refused += usize::from(!ok1) + usize::from(!ok2);
        let after = std::fs::read_to_string(root.join("f.txt")).expect("read");
        // The append may land on a file that a commit then replaced only if that commit
        // checked first; an append lost while an edit reported success is a violation.
        let lost_append = !after.contains(&marker) && (ok1 || ok2);
        let lost_first = ok1 && !after.starts_with("ONE\n");
        let lost_second = ok2 && after.lines().nth(1) != Some("TWO");
        if lost_append || lost_first || lost_second {
            violations += 1;
            eprintln!("race round {round}: ok {ok1}/{ok2}, append kept {}", after.contains(&marker));
        }
    }
    println!(
        "fault: appender + second hashline racing edits: rounds {rounds} / violations {violations} ({refused} edits refused as stale)"
    );
    assert_eq!(violations, 0);
}

#[test]
#[ignore = "fault-injection suite: run by .ci/run with --ignored"]
#[cfg(unix)]
fn a_symlink_swapped_during_writes_and_edits_never_changes_the_outside_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = hashline::fs::lookup::canonicalize(dir.path()).expect("canonical");
    let root = base.join("r");
    std::fs::create_dir_all(&root).expect("mkdir");
    let outside: PathBuf = base.join("outside.txt");
    std::fs::write(&outside, "one\n").expect("write");
    std::fs::write(root.join("f.txt"), "one\n").expect("write");
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let swapper = {
        let (root, outside, stop) = (root.clone(), outside.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut n = 0u64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let temp = root.join(".swap");
                let _ = std::fs::remove_file(&temp);
                if n.is_multiple_of(2) {
                    let _ = std::os::unix::fs::symlink(&outside, &temp);
                } else {
                    let _ = std::fs::write(&temp, "one\n");
                }
                let _ = std::fs::rename(&temp, root.join("f.txt"));
                n += 1;
            }
        })
    };
    let rounds = 200;
    let mut violations = 0;
    for round in 0..rounds {
        let write = json!({"path": "f.txt", "content": format!("w{round}\n")});
        let edit = json!({"path": "f.txt", "edits": [{"set_line": {"anchor": anchor(1, "one"), "new_text": "e"}}]});
        let _ = spawn(&root, "write", write).wait();
        let _ = spawn(&root, "edit", edit).wait();
        if std::fs::read(&outside).expect("outside") != b"one\n" {
            violations += 1;
            std::fs::write(&outside, "one\n").expect("reset");
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    swapper.join().expect("swapper");
    println!("fault: symlink swapped during write/edit: rounds {} / violations {violations}", rounds * 2);
    assert_eq!(violations, 0);
}

/// Fills the file system of `root` and then frees `free` bytes again (rounded by the file
/// system to whole pages), so the next commit runs out of space at a different point in
/// each round.
fn fill_leaving(root: &Path, free: u64) {
    let path = root.join("filler");
    let mut filler = std::fs::File::create(&path).expect("filler");
    while std::io::Write::write_all(&mut filler, &[b'x'; 4096]).is_ok() {}
    let len = filler.metadata().expect("filler size").len();
    filler.set_len(len.saturating_sub(free)).expect("shrink the filler");
}

#[test]
#[ignore = "fault-injection suite: run by .ci/run with --ignored"]
fn edits_and_writes_on_a_full_disk_leave_every_file_old_or_new_and_no_temp_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = hashline::fs::lookup::canonicalize(dir.path()).expect("canonical");
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=256k", "tmpfs"])
        .arg(&root)
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        println!("fault: full tmpfs: SKIPPED (cannot mount a tmpfs: needs root)");
        return;
    }
    struct Unmount<'a>(&'a Path);
    impl Drop for Unmount<'_> {
        fn drop(&mut self) {
            let _ = Command::new("umount").arg(self.0).status();
        }
    }
    let _unmount = Unmount(&root);
    let old = content("old", 400);
    let new = old.replacen("old\n", &format!("{}\n", "n".repeat(12_000)), 1);
    let set_first = |path: &str| json!({"path": path, "edits": [{"set_line": {"anchor": anchor(1, "old"), "new_text": "n".repeat(12_000)}}]});
    // (what runs, the files it changes, whether h.txt's second name must follow)
    let cases: [(&str, serde_json::Value, &[&str]); 4] = [
        ("edit of a one-link file", set_first("p.txt"), &["p.txt"]),
        ("edit of a hard-linked file", set_first("h.txt"), &["h.txt"]),
        ("multi-file edit", json!({"files": [set_first("a.txt"), set_first("b.txt")]}), &["a.txt", "b.txt"]),
        ("write over a hard-linked file", json!({"path": "h.txt", "content": new.clone()}), &["h.txt"]),
    ];
    let expected = ["a.txt", "b.txt", "filler", "h.txt", "h2.txt", "p.txt"];
    let mut rng = Rng::new();
    let rounds = 120;
    let (mut violations, mut refused) = (0, 0);
    for round in 0..rounds {
        let (name, args, changed) = &cases[round % cases.len()];
        let _ = std::fs::remove_file(root.join("filler"));
        for file in ["a.txt", "b.txt", "h.txt", "h2.txt", "p.txt"] {
            let _ = std::fs::remove_file(root.join(file));
        }
        for file in ["a.txt", "b.txt", "h.txt", "p.txt"] {
            std::fs::write(root.join(file), &old).expect("seed");
        }
        std::fs::hard_link(root.join("h.txt"), root.join("h2.txt")).expect("link");
        fill_leaving(&root, rng.below(96 * 1024));
        let tool = if args.get("content").is_some() { "write" } else { "edit" };
        let out = spawn(&root, tool, args.clone()).wait_with_output().expect("run");
        let ok = out.status.success();
        refused += usize::from(!ok);
        let _ = std::fs::remove_file(root.join("filler"));
        recover(&root);
        let states = states_of(&root, changed, &old, &new);
        let consistent = states.iter().all(|s| *s == Some(ok));
        let linked = std::fs::read(root.join("h2.txt")).ok() == std::fs::read(root.join("h.txt")).ok();
        let others_kept = ["a.txt", "b.txt", "h.txt", "p.txt"]
            .iter()
            .filter(|f| !changed.contains(f))
            .all(|f| std::fs::read_to_string(root.join(f)).ok().as_deref() == Some(old.as_str()));
        let mut stray = strays(&root, &expected);
        stray.sort();
        if !consistent || !linked || !others_kept || !stray.is_empty() {
            violations += 1;
            eprintln!(
                "full disk, {name}: violation: reported ok {ok}, states {states:?}, link ok {linked}, others kept {others_kept}, strays {stray:?}: {}",
                String::from_utf8_lossy(&out.stdout).chars().take(300).collect::<String>()
            );
        }
    }
    println!(
        "fault: edits and writes on a full tmpfs: rounds {rounds} / violations {violations} ({refused} refused for lack of space)"
    );
    assert_eq!(violations, 0);
}

/// Every file below `dir` with its bytes (symlinks as their targets), sorted.
#[cfg(unix)]
fn tree_state(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(at) = pending.pop() {
        for entry in std::fs::read_dir(&at).expect("list").filter_map(Result::ok) {
            let path = entry.path();
            let kind = entry.file_type().expect("type");
            let bytes = if kind.is_symlink() {
                std::fs::read_link(&path).expect("link").into_os_string().into_encoded_bytes()
            } else if kind.is_dir() {
                pending.push(path.clone());
                b"<dir>".to_vec()
            } else if kind.is_file() {
                match entry.metadata().expect("meta").len() {
                    // A huge (sparse) file is compared by its length.
                    len if len > 1 << 20 => format!("<{len} bytes>").into_bytes(),
                    _ => std::fs::read(&path).expect("read"),
                }
            } else {
                b"<special>".to_vec()
            };
            out.push((path, bytes));
        }
    }
    out.sort();
    out
}

/// Runs `hashline <mode> --root <root> ls` with a deadline: whether it finished in time.
#[cfg(unix)]
fn ls_within(root: &Path, stateless: bool, deadline: Duration) -> bool {
    let mut command = Command::new(binary());
    if stateless {
        command.arg("--stateless");
    }
    // The session (and the journal key) in a state directory beside the root, not in the
    // user's own.
    let state = root.with_file_name("state");
    let mut child = command
        .env("XDG_STATE_HOME", &state)
        .arg("--root")
        .arg(root)
        .arg("ls")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn hashline");
    let started = Instant::now();
    while started.elapsed() < deadline {
        if child.try_wait().expect("wait").is_some() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    false
}

/// Issue 20: a repository that ships `.hashline-journal/` (or an agent that plants one)
/// must not make any session start act outside the root, block, or read without a bound.
/// Planted records of every phase, in the record form of 9b00c33 (absolute `dir`, free
/// `temp`/`backup`/`copy` names, absolute and `..` ones) and in hashline's present form
/// with a tag that does not verify; a FIFO record, a 3 GiB sparse one, a record that is a
/// symlink to an outside file, a journal that is a symlink to an outside directory; each
/// under the stateful CLI and `--stateless`. Counts rounds and outside changes (on
/// 9b00c33 the first round already deleted and overwrote outside files).
#[test]
#[ignore = "fault-injection suite: run by .ci/run with --ignored"]
#[cfg(unix)]
fn a_hostile_journal_changes_nothing_outside_the_root_and_never_blocks() {
    use std::os::unix::ffi::OsStrExt;
    let bytes = |p: &Path| json!(p.as_os_str().as_bytes());
    let (mut rounds, mut violations) = (0, 0);
    for phase in ["prep", "intent", "commit"] {
        for shape in 0..8 {
            for stateless in [false, true] {
                let dir = tempfile::tempdir().expect("tempdir");
                let base = hashline::fs::lookup::canonicalize(dir.path()).expect("canonical");
                let (root, outside) = (base.join("repo"), base.join("outside"));
                let journal = root.join(".hashline-journal");
                std::fs::create_dir_all(&outside).expect("outside");
                std::fs::create_dir_all(root.join("sub")).expect("root");
                for (name, text) in
                    [("precious.txt", "p\n"), ("other.txt", "o\n"), ("bashrc", "rc\n"), ("secret", "s\n")]
                {
                    std::fs::write(outside.join(name), text).expect("outside file");
                }
                std::fs::write(root.join("payload"), "evil\n").expect("payload");
                let rename = |temp: &str, backup: &str| json!({"rename": {"temp": temp, "backup": backup}});
                let old_form = |dir: serde_json::Value, name: &str, how: serde_json::Value| {
                    json!({"pid": 1, "entries": [{"dir": dir, "name": name.as_bytes(), "how": how}]}).to_string()
                };
                let record = format!("0000000{shape}.{phase}");
                match shape {
                    0 => std::fs::create_dir(&journal).map(|()| {
                        let text = old_form(bytes(&outside), "other.txt", rename("precious.txt", "other.txt"));
                        std::fs::write(journal.join(&record), text).expect("plant");
                    }),
                    1 => std::fs::create_dir(&journal).map(|()| {
                        let how = json!({"inPlace": {"copy": "../payload"}});
                        std::fs::write(journal.join(&record), old_form(bytes(&outside), "bashrc", how)).expect("plant");
                    }),
                    2 => std::fs::create_dir(&journal).map(|()| {
                        let how = json!({"inPlace": {"copy": outside.join("secret").to_string_lossy()}});
                        std::fs::write(journal.join(&record), old_form(bytes(&root), "stolen", how)).expect("plant");
                    }),
                    3 => std::fs::create_dir(&journal).map(|()| {
                        // The present form, relative names that climb out, a forged tag.
                        let body = json!({"pid": 1, "entries": [
                            {"dir": b"../outside".to_vec(), "name": b"precious.txt".to_vec()},
                            {"dir": b"sub/../../outside".to_vec(), "name": b"bashrc".to_vec(), "inPlace": true},
                        ]});
                        let text = format!("hashline-journal 2 {}\n{body}", "0".repeat(64));
                        std::fs::write(journal.join(&record), text).expect("plant");
                        std::fs::write(outside.join(".hl0000000030.bak"), "b\n").expect("backup-shaped");
                    }),
                    4 => std::fs::create_dir(&journal).map(|()| {
                        let status = Command::new("mkfifo").arg(journal.join(&record)).status().expect("mkfifo");
                        assert!(status.success());
                    }),
                    5 => std::fs::create_dir(&journal).map(|()| {
                        let huge = std::fs::File::create(journal.join(&record)).expect("huge");
                        huge.set_len(3 << 30).expect("sparse");
                    }),
                    6 => std::fs::create_dir(&journal).map(|()| {
                        std::os::unix::fs::symlink(outside.join("secret"), journal.join(&record)).expect("symlink");
                    }),
                    _ => {
                        let records = outside.join("records");
                        std::fs::create_dir(&records).expect("records");
                        let text = old_form(bytes(&outside), "other.txt", rename("precious.txt", "other.txt"));
                        std::fs::write(records.join(&record), text).expect("plant");
                        std::os::unix::fs::symlink(&records, &journal)
                    }
                }
                .expect("scene");
                let before = tree_state(&outside);
                let root_before = tree_state(&root);
                rounds += 1;
                let finished = ls_within(&root, stateless, Duration::from_secs(20));
                let after = tree_state(&outside);
                let changed_root = tree_state(&root) != root_before;
                if !finished || after != before || changed_root {
                    violations += 1;
                    eprintln!(
                        "violation: {phase} shape {shape} stateless {stateless}: finished {finished}, outside changed {}, root changed {changed_root}",
                        after != before
                    );
                }
            }
        }
    }
    eprintln!("hostile journal: {rounds} rounds run / {violations} violations");
    assert_eq!(violations, 0);
}

/// Issue 48 (N1, N2, R1): names and text from the tree that try to drive the terminal or
/// forge rows, random each round: file, directory and journal entry names and line content
/// built from ESC sequences, BEL, C1 and bidi controls, DEL, line separators, tabs and
/// newlines followed by a forged row. Every tool through `batch` (the registry path the MCP
/// server serves) and the commands a terminal shows (`read`, `grep`, `map`, `changes`,
/// `undo`): a violation is any output holding a raw control (but the newlines between its
/// own lines, and tab) or a line starting with the forged row.
#[test]
#[ignore = "fault-injection suite: run by .ci/run with --ignored"]
#[cfg(unix)]
fn hostile_names_through_every_tool_reach_no_output_raw() {
    use hashline::core::display::is_escaped_control;
    const FORGED: &str = ">>1:d8b|";
    const PIECES: &[&str] = &[
        "\u{1b}]0;TITLE\u{7}",
        "\u{1b}]52;c;ZXZpbA==\u{7}",
        "\u{1b}[2J",
        "\u{9b}1m",
        "\u{85}",
        "\u{7f}",
        "\u{202e}",
        "\u{2066}",
        "\u{200f}",
        "\u{2028}",
        "\u{2029}",
        "\t",
        "\r",
        "\n>>1:d8b|forged row\n",
        "\u{8}\u{8}",
        "ok",
        "é",
    ];
    let mut rng = Rng::new();
    let hostile = |rng: &mut Rng, tail: &str| {
        let mut name = String::from("n");
        for _ in 0..1 + rng.below(4) {
            name.push_str(PIECES[rng.below(PIECES.len() as u64) as usize]);
        }
        name.push_str(tail);
        name
    };
    let bad = |text: &str| {
        text.chars().any(|c| c != '\n' && c != '\t' && is_escaped_control(c))
            || text.lines().any(|l| l.trim_start().starts_with(FORGED))
    };
    let (mut rounds_run, mut outputs, mut violations) = (0, 0, 0);
    for round in 0..rounds().min(40) {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("root");
        let sub = hostile(&mut rng, "");
        let file = hostile(&mut rng, ".rs");
        let nested = format!("{sub}/{}", hostile(&mut rng, ".py"));
        let line = hostile(&mut rng, "");
        let content =
            format!("fn main() {{\n    let s = \"{}\";\n    s.unwrap();\n}}\n", line.replace(['\n', '\r'], " "));
        std::fs::create_dir_all(root.join(&sub)).expect("dir");
        std::fs::write(root.join(&file), &content).expect("file");
        std::fs::write(root.join(&nested), "def f():\n    return g.unwrap()\n").expect("nested");
        std::fs::create_dir_all(root.join(".hashline-journal")).expect("journal");
        std::fs::write(root.join(".hashline-journal").join(hostile(&mut rng, "")), "").expect("entry");
        let state = dir.path().join("state");
        let session = dir.path().join("s.json");
        let anchor3 = anchor(3, "    s.unwrap();");
        let calls = [
            json!({"tool": "read", "args": {"path": file}}),
            json!({"tool": "read", "args": {"path": nested, "offset": 2}}),
            json!({"tool": "read", "args": {"path": sub}}),
            json!({"tool": "read", "args": {"path": format!("{}.missing", hostile(&mut rng, ""))}}),
            json!({"tool": "grep", "args": {"pattern": "unwrap", "context": 1}}),
            json!({"tool": "grep", "args": {"pattern": "unwrap", "summary": true}}),
            json!({"tool": "ast_search", "args": {"pattern": "$X.unwrap()", "lang": "rust"}}),
            json!({"tool": "ls", "args": {}}),
            json!({"tool": "ls", "args": {"path": sub}}),
            json!({"tool": "find", "args": {"pattern": "*"}}),
            json!({"tool": "edit", "args": {"path": file, "edits": [{"set_line": {"anchor": anchor3, "new_text": format!("    s.expect(\"{}\");", line.replace(['\n', '\r'], " "))}}]}}),
            json!({"tool": "edit", "args": {"path": file, "edits": [{"set_line": {"anchor": anchor3, "new_text": "x"}}]}}),
            json!({"tool": "write", "args": {"path": format!("{}.txt", hostile(&mut rng, "")), "content": line}}),
            json!({"tool": "write", "args": {"path": format!("../{}", hostile(&mut rng, "")), "content": "x"}}),
        ];
        let script: String = calls.iter().map(|c| format!("{c}\n")).collect();
        let mut batch = Command::new(binary())
            .env("XDG_STATE_HOME", &state)
            .arg("--session")
            .arg(&session)
            .arg("--root")
            .arg(&root)
            .arg("batch")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn batch");
        {
            use std::io::Write;
            batch.stdin.take().expect("stdin").write_all(script.as_bytes()).expect("script");
        }
        let output = batch.wait_with_output().expect("batch");
        let mut texts: Vec<(String, String)> = Vec::new();
        for (call, result) in calls.iter().zip(String::from_utf8_lossy(&output.stdout).lines()) {
            let value: serde_json::Value = serde_json::from_str(result).expect("a JSON result line");
            let text = value["content"][0]["text"].as_str().unwrap_or_default().to_owned();
            texts.push((format!("batch {}", call["tool"]), text));
        }
        texts.push(("batch stderr".into(), String::from_utf8_lossy(&output.stderr).into_owned()));
        for args in [
            vec!["read".to_owned(), file.clone()],
            vec!["grep".to_owned(), "-C".into(), "1".into(), "unwrap".into()],
            vec!["map".to_owned(), file.clone()],
            vec!["changes".to_owned()],
            vec!["undo".to_owned()],
            vec!["ls".to_owned(), sub.clone()],
        ] {
            let out = stateful(&session, &root, &args.iter().map(String::as_str).collect::<Vec<_>>())
                .env("XDG_STATE_HOME", &state)
                .current_dir(&root)
                .output()
                .expect("run hashline");
            let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
            text.push_str(&String::from_utf8_lossy(&out.stderr));
            texts.push((args[0].clone(), text));
        }
        rounds_run += 1;
        for (what, text) in &texts {
            outputs += 1;
            if bad(text) {
                violations += 1;
                eprintln!("violation: round {round} {what}: {text:?}");
            }
        }
    }
    eprintln!("hostile names: {rounds_run} rounds run, {outputs} outputs / {violations} violations");
    assert_eq!(violations, 0);
}

/// Issue 49: the CLI's snapshot store (the state directory's `snapshots/`) is untrusted when
/// read back. A tag is shown by a read; its stored copy is then altered, truncated, replaced
/// by a symlink to other bytes, a FIFO, a directory, a sparse file over the cap, or marked
/// collided; another program moves the line; an edit citing the tag must never write
/// anything but the edit meant (the uncited rules then decide: here they refuse, the line
/// having moved past their window), never block, and never touch the file a symlink names.
#[test]
#[ignore = "fault-injection suite: run by .ci/run with --ignored"]
#[cfg(unix)]
fn a_planted_snapshot_store_entry_never_misdirects_an_edit() {
    let (mut rounds_run, mut violations) = (0, 0);
    let mut rng = Rng::new();
    for round in 0..rounds() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (root, state, outside) = (dir.path().join("repo"), dir.path().join("state"), dir.path().join("outside"));
        std::fs::create_dir_all(&root).expect("root");
        std::fs::create_dir_all(&outside).expect("outside");
        // Two look-alikes: the edit means the second.
        let original = "alpha\ntarget\nbeta\ntarget\ngamma\n";
        // Trusted, these bytes would send the anchor to the first (line 4 is `target` here,
        // and the diff pairs it with the first `target` now).
        let misdirecting = "x\ny\nz\ntarget\nbeta\n";
        std::fs::write(root.join("f.txt"), original).expect("write");
        std::fs::write(outside.join("other"), misdirecting).expect("outside");
        let run = |args: &[&str]| {
            let started = Instant::now();
            let out = Command::new(binary())
                .args(["--stateless", "--root"])
                .arg(&root)
                .args(args)
                .env("XDG_STATE_HOME", &state)
                .output()
                .expect("hashline");
            (out, started.elapsed())
        };
        let (read, _) = run(&["read", "f.txt"]);
        let shown = String::from_utf8_lossy(&read.stdout).into_owned();
        let Some(tag) = shown.lines().next().and_then(|l| l.strip_prefix("snapshot: ")).map(str::to_owned) else {
            violations += 1;
            eprintln!("violation: round {round}: no tag in {shown:?}");
            continue;
        };
        let snap = state.join("hashline/snapshots").join(format!("{tag}.snap"));
        let shape = (round + rng.below(8) as usize) % 8;
        let planted = match shape {
            // Bytes under which the edit's anchor names another line.
            0 => std::fs::write(&snap, misdirecting),
            1 => std::fs::write(&snap, "alpha\nbe"),
            2 => std::fs::remove_file(&snap).and_then(|()| std::os::unix::fs::symlink(outside.join("other"), &snap)),
            3 => std::fs::remove_file(&snap).and_then(|()| {
                let status = Command::new("mkfifo").arg(&snap).status()?;
                if status.success() { Ok(()) } else { Err(std::io::Error::other("mkfifo")) }
            }),
            4 => std::fs::remove_file(&snap).and_then(|()| std::fs::create_dir(&snap)),
            5 => std::fs::OpenOptions::new().write(true).open(&snap).and_then(|f| f.set_len(1 << 30)),
            6 => std::fs::write(snap.with_extension("collided"), ""),
            _ => std::fs::remove_file(&snap),
        };
        if let Err(err) = planted {
            violations += 1;
            eprintln!("violation: round {round} shape {shape}: could not plant: {err}");
            continue;
        }
        let header: String = (0..60).map(|i| format!("header {i}\n")).collect();
        let moved = format!("{header}{original}");
        std::fs::write(root.join("f.txt"), &moved).expect("move");
        let edits = json!([{"set_line": {"anchor": anchor(4, "target"), "new_text": "TARGET"}}]).to_string();
        let (edit, took) = run(&["edit", "f.txt", "--snapshot", &tag, "--edits", &edits]);
        rounds_run += 1;
        let now = std::fs::read_to_string(root.join("f.txt")).unwrap_or_default();
        let meant = format!("{header}alpha\ntarget\nbeta\nTARGET\ngamma\n");
        let outside_now = std::fs::read_to_string(outside.join("other")).unwrap_or_default();
        let wrong = if now != moved && now != meant {
            Some(format!("the file became {now:?}"))
        } else if edit.status.success() && now != meant {
            Some("a success that wrote nothing".to_owned())
        } else if outside_now != misdirecting {
            Some(format!("the symlinked file became {outside_now:?}"))
        } else if took > Duration::from_secs(20) {
            Some(format!("the edit took {took:?}"))
        } else {
            None
        };
        if let Some(what) = wrong {
            violations += 1;
            eprintln!(
                "violation: round {round} shape {shape}: {what}; {}{}",
                String::from_utf8_lossy(&edit.stdout),
                String::from_utf8_lossy(&edit.stderr)
            );
        }
    }
    eprintln!("planted snapshot store: {rounds_run} rounds run / {violations} violations");
    assert_eq!(violations, 0);
}
