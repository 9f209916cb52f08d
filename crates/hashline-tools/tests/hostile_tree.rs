//! `grep`, `find` and `ast_search` on trees built to hang or exhaust them: FIFOs and
//! devices as targets, files that keep growing. Every call runs on a thread with a
//! generous deadline, so a regression fails instead of hanging the test run.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::{Workspace as Ws, code};
use hashline_tools::ToolResult;
use hashline_tools::ast_search::AstSearchTool;
use hashline_tools::grep::GrepTool;
use serde_json::{Value, json};

/// How long any call may take before it counts as hung.
const DEADLINE: Duration = Duration::from_secs(10);

/// Runs `T` on `args` on its own thread; fails if it has not returned by `DEADLINE`.
fn call<T: hashline_tools::Tool>(ws: &Arc<Ws>, args: Value) -> ToolResult {
    let (tx, rx) = mpsc::channel();
    let ws = Arc::clone(ws);
    let shown = args.to_string();
    std::thread::spawn(move || {
        let _ = tx.send(ws.call::<T>(args));
    });
    match rx.recv_timeout(DEADLINE) {
        Ok(result) => result,
        Err(_) => panic!("{} {shown} did not return within {DEADLINE:?}", T::NAME),
    }
}

#[cfg(unix)]
fn mkfifo(path: &std::path::Path) {
    let status = std::process::Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(status.success(), "mkfifo {path:?}");
}

#[cfg(unix)]
#[test]
fn a_fifo_or_device_as_path_is_refused_at_once() {
    let ws = Arc::new(Ws::new());
    mkfifo(&ws.path("pipe.rs"));
    let _listener = std::os::unix::net::UnixListener::bind(ws.path("socket.rs")).expect("socket");
    for name in ["pipe.rs", "socket.rs"] {
        let grep = call::<GrepTool>(&ws, json!({"pattern": "x", "path": name}));
        assert_eq!(code(&grep), "fs-error", "grep {name}");
        assert_eq!(
            grep.text().lines().next(),
            Some(
                format!("Not a regular file: {name} (a FIFO, socket or device). The tools only read regular files.")
                    .as_str()
            ),
            "grep {name}"
        );
        let ast = call::<AstSearchTool>(&ws, json!({"pattern": "$X.unwrap()", "path": name}));
        assert_eq!(code(&ast), "fs-error", "ast_search {name}");
        assert_eq!(grep.text().lines().next(), ast.text().lines().next(), "ast_search {name}");
    }
}

/// A file that grows while it is searched is read to the length it had when it was opened,
/// so the search ends. (A guard against hangs: how fast the writer outruns a reader varies,
/// so the exact bound is pinned by `hashline-search`'s
/// `open::tests::a_read_stops_at_the_length_seen_at_open`.)
#[test]
fn a_growing_file_is_searched_to_its_length_at_open() {
    let ws = Arc::new(Ws::new());
    let path = ws.file("grow.log", "needle\n");
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            use std::io::Write;
            let mut file = std::fs::OpenOptions::new().append(true).open(&path).expect("append");
            let chunk = "hay\n".repeat(1 << 13);
            let started = Instant::now();
            // Bounded whatever happens to the search (a failed run leaves its files behind):
            // about 30 MB/s, for at most 15 s and 256 MiB.
            let mut written = 0;
            while !stop.load(Ordering::Relaxed) && started.elapsed() < DEADLINE + DEADLINE / 2 && written < 256 << 20 {
                file.write_all(chunk.as_bytes()).expect("write");
                written += chunk.len();
                std::thread::sleep(Duration::from_millis(1));
            }
            let _ = std::fs::remove_file(&path);
        })
    };
    std::thread::sleep(Duration::from_millis(100));
    for path in ["grow.log", "."] {
        let result = call::<GrepTool>(&ws, json!({"pattern": "needle", "path": path, "summary": true}));
        assert!(!result.is_error, "{}", result.text());
    }
    stop.store(true, Ordering::Relaxed);
    writer.join().expect("writer");
}

/// A 10 MB pattern, and a short one whose program would be huge, are `invalid-pattern` at
/// once (the first took 11 s and 2 GB to compile).
#[test]
fn oversized_patterns_are_refused_at_once() {
    let ws = Arc::new(Ws::new());
    ws.file("a.rs", "fn a() {}\n");
    let huge = "a".repeat(10 << 20);
    let started = Instant::now();
    let grep = call::<GrepTool>(&ws, json!({"pattern": huge}));
    assert_eq!(code(&grep), "invalid-pattern");
    assert_eq!(
        grep.text().lines().next(),
        Some("Invalid pattern: the pattern is 10485760 bytes long; the limit is 16384 bytes.")
    );
    let literal = call::<GrepTool>(&ws, json!({"pattern": huge, "literal": true}));
    assert_eq!(code(&literal), "invalid-pattern");
    let ast = call::<AstSearchTool>(&ws, json!({"pattern": huge, "lang": "rust"}));
    assert_eq!(code(&ast), "invalid-pattern");
    let first = ast.text().lines().next().unwrap_or_default().to_owned();
    assert!(first.ends_with("the pattern has 10485760 bytes, more than the 262144-byte limit"), "{first}");
    assert!(first.len() < 400, "the pattern is not quoted back whole: {} bytes", first.len());
    let program = call::<GrepTool>(&ws, json!({"pattern": r"\w{1000}"}));
    assert_eq!(code(&program), "invalid-pattern");
    assert!(program.text().contains("size limit"), "{}", program.text());
    assert!(started.elapsed() < DEADLINE);
}

/// Ignore files that would hang or fill memory: a FIFO `.ignore`, a `.gitignore` linked to
/// `/dev/zero`, a worktree `.git` file naming a FIFO `commondir`. Each walk returns at once
/// with an `ignore-file-skipped` warning per file and searches what the other rules allow
/// (before, the first hung grep, find and ast_search, and the second grew memory ~0.5 GB/s).
#[cfg(unix)]
#[test]
fn hostile_ignore_files_are_skipped_with_a_warning() {
    let ws = Arc::new(Ws::new());
    ws.file("a.rs", "fn main() { x.unwrap(); }\n");
    ws.file("sub/b.rs", "fn b() { y.unwrap(); }\n");
    ws.file("sub/.ignore", "skipped.rs\n");
    ws.file("sub/skipped.rs", "fn s() { z.unwrap(); }\n");
    ws.file("wt/.git", "gitdir: gd\n");
    ws.file("wt/c.rs", "fn c() { w.unwrap(); }\n");
    mkfifo(&ws.path(".ignore"));
    mkfifo(
        &ws.path("wt/gd/commondir")
            .parent()
            .map(|p| {
                std::fs::create_dir_all(p).expect("mkdir");
                p.join("commondir")
            })
            .expect("parent"),
    );
    std::os::unix::fs::symlink("/dev/zero", ws.path("sub/.gitignore")).expect("symlink");

    let grep = call::<GrepTool>(&ws, json!({"pattern": "unwrap"}));
    assert!(!grep.is_error, "{}", grep.text());
    insta::assert_snapshot!(ws.redact(&grep.text()), @"
    [Warning: ignore file .ignore skipped (not a regular file); its rules were not applied]

    [Warning: ignore file sub/.gitignore skipped (not a regular file); its rules were not applied]

    [Warning: ignore file wt/gd/commondir skipped (not a regular file); its rules were not applied]

    [3 matches in 3 files]
    --- a.rs (1 matches; snapshot: s1kzhf4vb) ---
    a.rs:>>1:44e|fn main() { x.unwrap(); }
    --- sub/b.rs (1 matches; snapshot: sb6w95snh) ---
    sub/b.rs:>>1:4e2|fn b() { y.unwrap(); }
    --- wt/c.rs (1 matches; snapshot: sm5xmzf1m) ---
    wt/c.rs:>>1:490|fn c() { w.unwrap(); }
    ");
    assert_eq!(grep.ptc_value()["completeness"]["search"], "complete");
    let codes: Vec<&str> =
        grep.ptc_value()["warnings"].as_array().expect("warnings").iter().filter_map(|w| w["code"].as_str()).collect();
    assert_eq!(codes, ["ignore-file-skipped"; 3]);

    let find = call::<hashline_tools::find::FindTool>(&ws, json!({"pattern": "*.rs"}));
    assert!(!find.is_error, "{}", find.text());
    insta::assert_snapshot!(ws.redact(&find.text()), @r"
        [Warning: ignore file .ignore skipped (not a regular file); its rules were not applied]

        [Warning: ignore file sub/.gitignore skipped (not a regular file); its rules were not applied]

        [Warning: ignore file wt/gd/commondir skipped (not a regular file); its rules were not applied]

        a.rs
        sub/b.rs
        wt/c.rs
        ");

    let ast = call::<AstSearchTool>(&ws, json!({"pattern": "$X.unwrap()", "lang": "rust"}));
    assert!(!ast.is_error, "{}", ast.text());
    insta::assert_snapshot!(ws.redact(&ast.text()), @"
    [Warning: ignore file .ignore skipped (not a regular file); its rules were not applied]

    [Warning: ignore file sub/.gitignore skipped (not a regular file); its rules were not applied]

    [Warning: ignore file wt/gd/commondir skipped (not a regular file); its rules were not applied]

    --- a.rs (snapshot: s1kzhf4vb) ---
    >>1:44e|fn main() { x.unwrap(); }
    --- sub/b.rs (snapshot: sb6w95snh) ---
    >>1:4e2|fn b() { y.unwrap(); }
    --- wt/c.rs (snapshot: sm5xmzf1m) ---
    >>1:490|fn c() { w.unwrap(); }
    ");
}

/// The peak resident memory of this test process, in bytes.
#[cfg(target_os = "linux")]
fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("status");
    let kib = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .expect("VmHWM");
    kib * 1024
}

/// A 64 GiB sparse file (all NUL) is binary after its first chunk: grep neither reads nor
/// allocates it, and ast_search skips it by its size (before, both tried to allocate it
/// whole; a 6 GB one took 6.3 GB).
#[cfg(target_os = "linux")]
#[test]
fn a_huge_sparse_file_is_binary_at_once_in_bounded_memory() {
    let ws = Arc::new(Ws::new());
    ws.file("a.rs", "fn a() { needle.unwrap(); }\n");
    std::fs::File::create(ws.path("sparse.rs")).expect("create").set_len(64 << 30).expect("sparse");
    let before = peak_rss();
    let single = call::<GrepTool>(&ws, json!({"pattern": "needle", "path": "sparse.rs"}));
    assert!(!single.is_error, "{}", single.text());
    insta::assert_snapshot!(single.text(), @"[Warning: 'sparse.rs' appears to be a binary file — grep skips binary files by default. Use a hex tool or the read tool to inspect it.]");
    assert_eq!(single.ptc_value()["binaryFiles"], 1);
    let tree = call::<GrepTool>(&ws, json!({"pattern": "needle"}));
    assert_eq!((&tree.ptc_value()["totalMatches"], &tree.ptc_value()["binaryFiles"]), (&json!(1), &json!(1)));
    let ast = call::<AstSearchTool>(&ws, json!({"pattern": "$X.unwrap()", "lang": "rust"}));
    assert_eq!(&ast.ptc_value()["totalMatches"], &json!(1));
    assert_eq!(&ast.ptc_value()["completeness"]["tooLargeFiles"], &json!(1), "{}", ast.ptc_value());
    let grown = peak_rss().saturating_sub(before);
    assert!(grown < 1 << 30, "the peak memory grew by {grown} bytes");
}

/// A 10 MB `glob` is `invalid-pattern` at once, not quoted back (it was compiled before).
#[test]
fn an_oversized_glob_is_refused_at_once() {
    let ws = Arc::new(Ws::new());
    ws.file("a.rs", "fn a() { x.unwrap(); }\n");
    let glob = "*".repeat(10 << 20);
    let grep = call::<GrepTool>(&ws, json!({"pattern": "x", "glob": glob}));
    assert_eq!(code(&grep), "invalid-pattern");
    assert_eq!(grep.text(), "Invalid glob: the glob is 10485760 bytes long; the limit is 4096 bytes.");
    let ast = call::<AstSearchTool>(&ws, json!({"pattern": "$X.unwrap()", "lang": "rust", "glob": glob}));
    assert_eq!(code(&ast), "invalid-pattern");
    assert_eq!(ast.text(), grep.text());
}

/// `scope: "symbol"` reads a file with matches again for its map: at most
/// `MAX_SCOPED_FILE_BYTES`, through the guarded open. A larger Markdown file (its map is
/// scanned, not parsed, so nothing else bounded it) shows plain rows with a warning.
#[test]
fn symbol_scope_reads_no_file_over_its_bound() {
    let ws = Arc::new(Ws::new());
    let filler = "text\n".repeat(hashline_tools::grep::MAX_SCOPED_FILE_BYTES as usize / 5 + 1);
    ws.file("big.md", format!("# Title\n\nneedle\n{filler}"));
    ws.file("small.md", "# Title\n\nneedle\n");
    let result = call::<GrepTool>(&ws, json!({"pattern": "needle", "scope": "symbol"}));
    assert!(!result.is_error, "{}", result.text());
    insta::assert_snapshot!(ws.redact(&result.text()), @r"
        [Warning: symbol scoping unavailable for big.md — showing normal grep lines for this file]

        [2 matches in 2 files]
        --- big.md (1 matches) ---
        big.md:>>3:fae|needle
        --- small.md :: heading Title (1-3, 1 matches) ---
        small.md:  1:7d8|# Title
        small.md:  2:d05|
        small.md:>>3:fae|needle
        ");
}

#[cfg(not(unix))]
#[test]
fn unix_only_tests() {
    common::skipped_here(
        &["a_fifo_or_device_as_path_is_refused_at_once", "hostile_ignore_files_are_skipped_with_a_warning"],
        "FIFOs, sockets and /dev/zero are Unix's (Windows' device names: hashline-fs's reserved-name tests)",
    );
    common::skipped_here(
        &["a_huge_sparse_file_is_binary_at_once_in_bounded_memory"],
        "its peak-memory measure reads Linux's /proc/self/status",
    );
}

/// Issue 48 P2: the root renamed away and another directory put at its path mid-session.
/// Before, read, edit and write went on in the old directory (through the root's handle) while
/// ls, find and grep walked the new one: one root, two meanings. Now every tool refuses with
/// `root-moved`, nothing read or written in either directory.
#[cfg(unix)]
#[test]
fn a_root_moved_mid_session_is_refused_by_every_tool() {
    use hashline_tools::edit::EditTool;
    use hashline_tools::find::FindTool;
    use hashline_tools::ls::LsTool;
    use hashline_tools::read::ReadTool;
    use hashline_tools::write::WriteTool;
    let ws = Arc::new(Ws::new());
    ws.file("a.txt", "old\n");
    assert!(!ws.call::<ReadTool>(json!({"path": "a.txt"})).is_error);
    let root = ws.root();
    let away = root.with_file_name(format!("{}-away", root.file_name().expect("name").to_string_lossy()));
    std::fs::rename(&root, &away).expect("rename the root away");
    std::fs::create_dir(&root).expect("another directory at its path");
    std::fs::write(root.join("a.txt"), "new\n").expect("its file");
    let calls: Vec<(&str, ToolResult)> = vec![
        ("read", ws.call::<ReadTool>(json!({"path": "a.txt"}))),
        (
            "edit",
            ws.call::<EditTool>(
                json!({"path": "a.txt", "edits": [{"set_line": {"anchor": "1:b6b", "new_text": "x"}}]}),
            ),
        ),
        ("write", ws.call::<WriteTool>(json!({"path": "b.txt", "content": "x\n"}))),
        ("ls", ws.call::<LsTool>(json!({}))),
        ("find", ws.call::<FindTool>(json!({"pattern": "*.txt"}))),
        ("grep", call::<GrepTool>(&ws, json!({"pattern": "old|new"}))),
        ("ast_search", call::<AstSearchTool>(&ws, json!({"pattern": "$X", "lang": "rust"}))),
    ];
    for (tool, result) in &calls {
        assert_eq!(code(result), "root-moved", "{tool}: {}", result.text());
    }
    assert!(calls[0].1.text().starts_with("The root "), "{}", calls[0].1.text());
    assert_eq!(std::fs::read(away.join("a.txt")).expect("old"), b"old\n");
    assert_eq!(std::fs::read(root.join("a.txt")).expect("new"), b"new\n");
    assert!(!root.join("b.txt").exists() && !away.join("b.txt").exists());
    let _ = std::fs::remove_dir_all(&away);
}
