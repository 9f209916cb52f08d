//! `find` on a real file system, through the typed function and the JSON entry point.

use std::time::{Duration, SystemTime};

use hashline_tools::tools::find::{FindArgs, FindTool, FindType, SortBy, find};
mod common;

use common::{Workspace as Ws, code};
use hashline_tools::{CallContext, ErrorCode, ToolResult, execute};
use insta::assert_snapshot;
use serde_json::{Value, json};

/// `find` helpers on the shared test workspace.
trait Finding {
    /// Writes a file of `len` bytes (creating parents).
    fn sized(&self, rel: &str, len: usize);
    /// Writes a one-byte file (creating parents).
    fn make(&self, rel: &str);
    /// Writes a file's text.
    fn write(&self, rel: &str, text: &str);
    /// Creates a directory (and its parents).
    fn dir(&self, rel: &str);
    /// Sets a file's modification time to `secs` after the Unix epoch.
    fn touch(&self, rel: &str, secs: u64);
    /// Runs `find` on JSON arguments.
    fn run(&self, args: Value) -> ToolResult;
    /// The text of a call, with the workspace path replaced by `{{cwd}}`.
    fn text(&self, args: Value) -> String;
}

impl Finding for Ws {
    fn sized(&self, rel: &str, len: usize) {
        self.file(rel, "x".repeat(len));
    }

    fn make(&self, rel: &str) {
        self.sized(rel, 1);
    }

    fn write(&self, rel: &str, text: &str) {
        std::fs::write(self.path(rel), text).expect("write");
    }

    fn dir(&self, rel: &str) {
        std::fs::create_dir_all(self.path(rel)).expect("mkdir");
    }

    fn touch(&self, rel: &str, secs: u64) {
        let file = std::fs::File::options().append(true).open(self.path(rel)).expect("open");
        file.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(secs)).expect("set mtime");
    }

    fn run(&self, args: Value) -> ToolResult {
        self.call::<FindTool>(args)
    }

    fn text(&self, args: Value) -> String {
        self.redact(&self.run(args).text())
    }
}

/// A small repository: sources, ignored build output, a `.git` folder, hidden files.
fn repo() -> Ws {
    let ws = Ws::new();
    for file in [
        "Cargo.toml",
        "src/lib.rs",
        "src/main.rs",
        "src/tools/find.rs",
        "src/gen/out.rs",
        "src/gen/keep.rs",
        "tests/it.rs",
        "target/debug/build.rs",
        ".hidden.rs",
        ".config/settings.rs",
        ".git/hooks/pre-commit.rs",
        "notes.log",
        "src/debug.log",
        "scratch/tmp.rs",
    ] {
        ws.make(file);
    }
    ws.write(".gitignore", "target/\n*.log\n");
    ws.write("src/.gitignore", "gen/*\n!gen/keep.rs\n");
    ws.write(".ignore", "scratch/\n");
    ws
}

#[test]
fn finds_by_basename_respecting_ignores_skipping_git_including_hidden() {
    let ws = repo();
    let result = ws.run(json!({"pattern": "*.rs"}));
    assert_snapshot!(result.text(), @r"
    .config/settings.rs
    .hidden.rs
    src/gen/keep.rs
    src/lib.rs
    src/main.rs
    src/tools/find.rs
    tests/it.rs
    ");
    assert_snapshot!("json_projection", ws.json(&result));
    let meta = hashline_view::paths_from_meta(result.meta.as_ref().expect("meta")).expect("narrows");
    assert_eq!((meta.paths.len(), meta.total, meta.truncated), (7, 7, false));
    let nested = CallContext { call_id: Some("c2".into()), parent_call_id: Some("c1".into()), ..Default::default() };
    assert!(execute::<FindTool>(&ws.session, json!({"pattern": "*"}), &nested).meta.is_none());
}

#[test]
fn paths_are_relative_to_the_working_directory_and_parent_ignores_apply() {
    let ws = repo();
    let out = find(&ws.session, FindArgs::builder().pattern("*.rs").path("src").build()).expect("find");
    let paths: Vec<&str> = out.value.entries.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(paths, ["src/gen/keep.rs", "src/lib.rs", "src/main.rs", "src/tools/find.rs"]);
    assert_eq!(out.value.path, ws.path("src").to_string_lossy());
    assert_eq!(out.value.pattern, "*.rs");
    // The root's `.gitignore` still applies when searching below it.
    assert_eq!(ws.text(json!({"pattern": "*.log", "path": "src"})), "No files found matching pattern: *.log");
}

#[test]
fn type_dir_and_any() {
    let ws = repo();
    assert_snapshot!(ws.text(json!({"pattern": "*", "type": "dir"})), @r"
    .config/
    src/
    src/gen/
    src/tools/
    tests/
    ");
    assert_snapshot!(ws.text(json!({"pattern": "*i*", "type": "any", "maxDepth": 1})), @r"
    .config/
    .gitignore
    .hidden.rs
    .ignore
    ");
    let out = find(&ws.session, FindArgs::builder().pattern("src").kind(FindType::Dir).build()).expect("find");
    assert_eq!(serde_json::to_value(&out.value.entries).expect("json"), json!([{"path": "src", "type": "dir"}]));
}

#[test]
fn symlinks_count_as_their_targets_and_are_not_followed() {
    let ws = Ws::new();
    ws.make("real/inner.txt");
    let test = "symlinks_count_as_their_targets_and_are_not_followed";
    if !(common::symlink("real", ws.path("dir_link"), test)
        && common::symlink("real/inner.txt", ws.path("file_link.txt"), test)
        && common::symlink("missing", ws.path("dangling.txt"), test))
    {
        return;
    }
    assert_snapshot!(ws.text(json!({"pattern": "*", "type": "any"})), @r"
    dangling.txt
    dir_link/
    file_link.txt
    real/
    real/inner.txt
    ");
}

#[test]
fn max_depth() {
    let ws = repo();
    assert_snapshot!(ws.text(json!({"pattern": "*.rs", "maxDepth": 1})), @".hidden.rs");
    assert_snapshot!(ws.text(json!({"pattern": "*.rs", "maxDepth": "2"})), @r"
    .config/settings.rs
    .hidden.rs
    src/lib.rs
    src/main.rs
    tests/it.rs
    ");
    assert_eq!(ws.text(json!({"pattern": "*", "maxDepth": 0})), "No files found matching pattern: *");
    let negative = ws.run(json!({"pattern": "*", "maxDepth": -1}));
    assert_eq!(code(&negative), "invalid-params-combo");
    assert_snapshot!(negative.text(), @"Invalid maxDepth: expected an integer between 0 and 4294967295, received -1.");
    assert_eq!(code(&ws.run(json!({"pattern": "*", "maxDepth": "deep"}))), "invalid-params-combo");
}

/// Three files with distinct sizes and modification times, in no order of either.
fn dated() -> Ws {
    let ws = Ws::new();
    ws.sized("b.txt", 300);
    ws.sized("a.txt", 10);
    ws.sized("c.txt", 20);
    ws.sized("d.txt", 20);
    ws.touch("b.txt", 1_000);
    ws.touch("a.txt", 3_000);
    ws.touch("c.txt", 2_000);
    ws.touch("d.txt", 2_000);
    ws
}

#[test]
fn sort_by_name_mtime_and_size_with_reverse() {
    let ws = dated();
    let order = |sort: &str, reverse: bool| {
        ws.text(json!({"pattern": "*.txt", "sortBy": sort, "reverse": reverse})).replace('\n', " ")
    };
    assert_eq!(order("name", false), "a.txt b.txt c.txt d.txt");
    assert_eq!(order("name", true), "d.txt c.txt b.txt a.txt");
    assert_eq!(order("mtime", false), "b.txt c.txt d.txt a.txt");
    assert_eq!(order("mtime", true), "a.txt c.txt d.txt b.txt");
    assert_eq!(order("size", false), "a.txt c.txt d.txt b.txt");
    assert_eq!(order("size", true), "b.txt c.txt d.txt a.txt");
    let typed =
        find(&ws.session, FindArgs::builder().pattern("*").sort_by(SortBy::Size).reverse(true).limit(1).build())
            .expect("find");
    assert_eq!(typed.value.entries[0].path, "b.txt", "sorting happens before limit");
    assert_eq!(code(&ws.run(json!({"pattern": "*", "sortBy": "colour"}))), "invalid-type");
}

#[test]
fn modified_since_in_all_three_forms() {
    let ws = Ws::new();
    ws.make("old.txt");
    ws.make("edge.txt");
    ws.make("new.txt");
    ws.touch("old.txt", 1_577_836_800); // 2020-01-01T00:00:00Z
    ws.touch("edge.txt", 1_640_995_200); // 2022-01-01T00:00:00Z
    let since = |value: &str| ws.text(json!({"pattern": "*", "modifiedSince": value})).replace('\n', " ");
    assert_eq!(since("2021-06-01"), "edge.txt new.txt");
    assert_eq!(since("2022-01-01"), "new.txt", "strictly after");
    assert_eq!(since("2022-01-01T01:00:00+02:00"), "edge.txt new.txt");
    assert_eq!(since("2021-12-31T23:59:59Z"), "edge.txt new.txt");
    assert_eq!(since("1d"), "new.txt");
    assert_eq!(since("24h"), "new.txt");
    assert_eq!(since("600m"), "new.txt");
    let invalid = ws.run(json!({"pattern": "*", "modifiedSince": "last tuesday"}));
    assert_eq!(code(&invalid), "invalid-params-combo");
    assert_snapshot!(invalid.text(), @"Error: Invalid modifiedSince value: \"last tuesday\" (expected ISO date/timestamp or relative shorthand like '1h', '24h', '7d', '30m')");
}

#[test]
fn size_bounds_with_suffixes_apply_to_files_only() {
    let ws = Ws::new();
    ws.sized("tiny.bin", 10);
    ws.sized("kilo.bin", 2048);
    ws.dir("folder");
    let big = std::fs::File::create(ws.path("mega.bin")).expect("create");
    big.set_len(3 << 20).expect("set_len");
    let sized = |args: Value| ws.text(args).replace('\n', " ");
    assert_eq!(sized(json!({"pattern": "*", "minSize": "1K"})), "kilo.bin mega.bin");
    assert_eq!(sized(json!({"pattern": "*", "minSize": 2048, "maxSize": "2KB"})), "kilo.bin");
    assert_eq!(sized(json!({"pattern": "*", "maxSize": "1.5m"})), "kilo.bin tiny.bin");
    assert_eq!(sized(json!({"pattern": "*", "minSize": "3MB", "maxSize": "1G"})), "mega.bin");
    assert_eq!(sized(json!({"pattern": "*", "type": "any", "minSize": "1GB"})), "folder/");
    let typed =
        find(&ws.session, FindArgs::builder().pattern("*").min_size(11).max_size("2047B").build()).expect("find");
    assert_eq!(typed.value.total_entries, 0);

    let mut errors = Vec::new();
    for (key, value) in [("minSize", json!("1XB")), ("maxSize", json!("lots")), ("minSize", json!(-5))] {
        let mut args = json!({"pattern": "*"});
        args[key] = value;
        let result = ws.run(args);
        assert_eq!(code(&result), "invalid-params-combo");
        errors.push(result.text());
    }
    let crossed = ws.run(json!({"pattern": "*", "minSize": "2K", "maxSize": "1K"}));
    assert_eq!(code(&crossed), "invalid-params-combo");
    errors.push(crossed.text());
    assert_eq!(code(&ws.run(json!({"pattern": "*", "minSize": true}))), "invalid-type");
    assert_snapshot!(errors.join("\n"), @r#"
    Error: Invalid minSize value: "1XB" (unknown unit 'XB'; accepted: B, K, KB, M, MB, G, GB)
    Error: Invalid maxSize value: "lots" (expected a number with optional B/K/KB/M/MB/G/GB suffix; units are 1024-based)
    Error: Invalid minSize value: -5 (expected a non-negative number of bytes)
    Error: minSize (2048 bytes) is larger than maxSize (1024 bytes), so no file can match.
    "#);
}

#[test]
fn regex_mode_and_invalid_regex() {
    let ws = repo();
    assert_snapshot!(ws.text(json!({"pattern": "^(lib|main)\\.rs$", "regex": true})), @r"
    src/lib.rs
    src/main.rs
    ");
    let invalid = ws.run(json!({"pattern": "([", "regex": true}));
    assert_eq!(code(&invalid), "invalid-pattern");
    assert_snapshot!(invalid.text(), @r#"
    Error: invalid regex for fields 'pattern'/'regex' ("(["): regex parse error:
        ([
         ^
    error: unclosed character class
    "#);
    // In regex mode a `/` gets no glob guidance.
    assert_eq!(ws.text(json!({"pattern": "src/.*", "regex": true})), "No files found matching pattern: src/.*");
}

#[test]
fn invalid_globs_are_refused() {
    let ws = repo();
    let mut texts = Vec::new();
    for glob in ["*.rs]", "{a,b", "[z-a]"] {
        let result = ws.run(json!({"pattern": glob}));
        assert_eq!(code(&result), "invalid-pattern", "{glob}");
        texts.push(result.text());
    }
    let empty = find(&ws.session, FindArgs::builder().pattern("").build()).expect_err("empty");
    assert_eq!(empty.code, ErrorCode::InvalidParamsCombo);
    texts.push(empty.message);
    assert_snapshot!(texts.join("\n"), @r#"
    Invalid glob "*.rs]": Unmatched ']'.
    Invalid glob "{a,b": Unterminated brace expansion.
    Invalid glob "[z-a]": invalid range; 'z' > 'a'.
    Error: pattern is empty. Give a glob such as "*.rs" (or a regex with regex: true).
    "#);
    assert_eq!(code(&ws.run(json!({"pattern": null}))), "invalid-null");
}

#[test]
fn huge_patterns_are_invalid_patterns() {
    let ws = repo();
    let text = "lorem ipsum ".repeat(400_000 / 12);
    let mut texts = Vec::new();
    for args in [
        json!({"pattern": "*".repeat(87_000)}),
        json!({"pattern": text}),
        json!({"pattern": text, "regex": true}),
        json!({"pattern": "\\w{1000}\\w{1000}\\w{1000}", "regex": true}),
    ] {
        let result = ws.run(args);
        assert_eq!(code(&result), "invalid-pattern");
        texts.push(result.text());
    }
    assert_snapshot!(texts.join("\n"), @r#"
    Invalid glob: the pattern is 87000 bytes long; the limit is 4096 bytes.
    Invalid glob: the pattern is 399996 bytes long; the limit is 4096 bytes.
    Error: invalid regex for fields 'pattern'/'regex': the pattern is 399996 bytes long; the limit is 4096 bytes.
    Error: invalid regex for fields 'pattern'/'regex' ("\\w{1000}\\w{1000}\\w{1000}"): Compiled regex exceeds size limit of 10485760 bytes.
    "#);
}

#[test]
fn a_glob_with_a_slash_gets_guidance() {
    let ws = repo();
    assert_snapshot!(ws.text(json!({"pattern": "src/*.rs"})), @r#"
    No files found matching pattern: src/*.rs
    find matches basenames only; move the directory part into path (e.g. path: "src", pattern: "*.rs").
    "#);
    assert_eq!(ws.text(json!({"pattern": "*.zig"})), "No files found matching pattern: *.zig");
}

#[test]
fn limit_notice_and_limit_values() {
    let ws = repo();
    let result = ws.run(json!({"pattern": "*.rs", "limit": 2}));
    assert_snapshot!(result.text(), @r"
    .config/settings.rs
    .hidden.rs
    [… 5 more entries — refine pattern or increase limit]
    ");
    let value = result.ptc_value();
    assert_eq!((value["totalEntries"].as_u64(), value["truncated"].as_bool()), (Some(7), Some(true)));
    let meta = hashline_view::paths_from_meta(result.meta.as_ref().expect("meta")).expect("narrows");
    assert_eq!(
        (meta.paths, meta.total, meta.truncated),
        (vec![".config/settings.rs".to_owned(), ".hidden.rs".to_owned()], 7, true)
    );
    let zero = ws.run(json!({"pattern": "lib.rs", "limit": 0}));
    assert_snapshot!(zero.text(), @r"
    [Find params adjusted: ignored limit 0]

    src/lib.rs
    ");
    for bad in [json!(-3), json!("many")] {
        assert_eq!(code(&ws.run(json!({"pattern": "*", "limit": bad}))), "invalid-limit", "{bad}");
    }
}

#[test]
fn path_errors() {
    let ws = repo();
    let file = ws.run(json!({"pattern": "*", "path": "Cargo.toml"}));
    assert_eq!(code(&file), "path-not-directory");
    assert_snapshot!(file.text(), @r#"
    Error: 'Cargo.toml' is not a directory
    Use ls on a directory, or read("Cargo.toml") for a single file.
    "#);
    let missing = ws.run(json!({"pattern": "*", "path": "nowhere"}));
    assert_eq!(code(&missing), "path-not-found");
    assert_snapshot!(missing.text(), @"Error: path 'nowhere' does not exist");

    let outside = tempfile::tempdir().expect("outside");
    std::fs::write(outside.path().join("secret.rs"), "s").expect("write");
    assert_eq!(code(&ws.run(json!({"pattern": "*", "path": "../"}))), "path-outside-root");
    if !common::symlink(outside.path(), ws.path("escape"), "path_errors") {
        return;
    }
    let link = ws.run(json!({"pattern": "*", "path": "escape"}));
    assert_eq!(code(&link), "path-outside-root");
    // Walking the root does not follow the link out of it.
    assert!(!ws.text(json!({"pattern": "secret.rs"})).contains("escape/"));
}

#[test]
fn output_is_cut_at_50_kb_at_whole_entries() {
    let ws = Ws::new();
    for i in 0..300 {
        ws.make(&format!("deep/{i:03}{}", "y".repeat(200)));
    }
    let result = ws.run(json!({"pattern": "*"}));
    let text = result.text();
    assert!(text.ends_with("\n[… truncated at 50 KB]"));
    let lines: Vec<&str> = text.lines().collect();
    let shown = lines.len() - 1;
    assert!(lines[..shown].iter().all(|l| l.len() == "deep/".len() + 203));
    assert!(text.len() - "\n[… truncated at 50 KB]".len() <= 50 * 1024);
    let meta = hashline_view::paths_from_meta(result.meta.as_ref().expect("meta")).expect("narrows");
    assert_eq!((meta.paths.len(), meta.total, meta.truncated), (shown, 300, true));
    assert_eq!(meta.paths[0], lines[0]);
}

#[test]
fn gitignore_applies_without_a_git_folder() {
    let ws = Ws::new();
    ws.make("keep.txt");
    ws.make("drop.txt");
    ws.make("sub/drop.txt");
    ws.make("sub/also.txt");
    ws.write(".gitignore", "drop.txt\n");
    ws.write("sub/.gitignore", "also.txt\n");
    assert_eq!(ws.text(json!({"pattern": "*.txt"})), "keep.txt");
}
