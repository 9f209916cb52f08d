//! `ls` on a real file system, through the typed function and the JSON entry point.

use hashline_tools::tools::ls::{LsArgs, LsTool, ls};
mod common;

use common::{Workspace as Ws, code};
use hashline_tools::{CallContext, ErrorCode, ToolResult, execute};
use insta::assert_snapshot;
use serde_json::{Value, json};

/// `ls` helpers on the shared test workspace.
trait Listing {
    /// Creates a file whose content is its own path.
    fn touch(&self, rel: &str);
    /// Creates a directory (and its parents).
    fn dir(&self, rel: &str);
    /// Runs `ls` on JSON arguments.
    fn run(&self, args: Value) -> ToolResult;
    /// The text of a call, with the workspace path replaced by `{{cwd}}`.
    fn text(&self, args: Value) -> String;
}

impl Listing for Ws {
    fn touch(&self, rel: &str) {
        self.file(rel, rel);
    }

    fn dir(&self, rel: &str) {
        std::fs::create_dir_all(self.path(rel)).expect("mkdir");
    }

    fn run(&self, args: Value) -> ToolResult {
        self.call::<LsTool>(args)
    }

    fn text(&self, args: Value) -> String {
        self.redact(&self.run(args).text())
    }
}

/// Whether names that differ only in case are two files here; where they are one (Windows,
/// macOS' default volumes) a test of their order prints SKIPPED and returns.
fn two_cases(ws: &Ws, test: &str) -> bool {
    let distinct = std::fs::read_dir(ws.root()).expect("list").count() == 10;
    if !distinct {
        eprintln!("SKIPPED {test}: this file system folds case (A.md and a.md are one file)");
    }
    distinct
}

/// A mixed directory: directories, files and dotfiles in both cases.
fn mixed() -> Ws {
    let ws = Ws::new();
    for dir in ["src", "Docs", ".git", "assets"] {
        ws.dir(dir);
    }
    for file in ["b.txt", "A.md", ".env", "a.md", "Z", "_notes"] {
        ws.touch(file);
    }
    ws
}

#[test]
fn directories_first_then_files_case_insensitively_dotfiles_included() {
    let ws = mixed();
    if !two_cases(&ws, "directories_first_then_files_case_insensitively_dotfiles_included") {
        return;
    }
    let out = ls(&ws.session, LsArgs::builder().build()).expect("ls");
    let names: Vec<&str> = out.value.entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, [".git", "assets", "Docs", "src", ".env", "_notes", "A.md", "a.md", "b.txt", "Z"]);
    assert_eq!(out.value.path, ws.session.cwd().to_string_lossy());
    assert_eq!((out.value.total_entries, out.value.truncated), (10, false));
    let result = ws.run(json!({}));
    assert_snapshot!(result.text(), @r"
    .git/
    assets/
    Docs/
    src/
    .env
    _notes
    A.md
    a.md
    b.txt
    Z
    ");
    assert_snapshot!("json_projection", ws.redact(&serde_json::to_string_pretty(&result).expect("json")));
}

#[test]
fn meta_is_the_paths_meta_of_the_shown_names() {
    let ws = mixed();
    if !two_cases(&ws, "meta_is_the_paths_meta_of_the_shown_names") {
        return;
    }
    let result = ws.run(json!({"path": ".", "limit": 3}));
    let meta = hashline_view::paths_from_meta(result.meta.as_ref().expect("meta")).expect("narrows");
    assert_eq!(meta.paths, [".git/", "assets/", "Docs/"]);
    assert_eq!((meta.truncated, meta.total), (true, 10));
    let nested = CallContext { call_id: Some("c2".into()), parent_call_id: Some("c1".into()), ..Default::default() };
    assert!(execute::<LsTool>(&ws.session, json!({}), &nested).meta.is_none());
}

#[test]
fn symlinks_show_as_what_they_point_to() {
    let ws = Ws::new();
    ws.dir("real_dir");
    ws.touch("real.txt");
    let test = "symlinks_show_as_what_they_point_to";
    if !(common::symlink("real_dir", ws.path("dir_link"), test)
        && common::symlink("real.txt", ws.path("file_link"), test)
        && common::symlink("missing", ws.path("dangling"), test))
    {
        return;
    }
    assert_snapshot!(ws.text(json!({})), @r"
    dir_link/
    real_dir/
    dangling
    file_link
    real.txt
    ");
}

#[test]
fn glob_filters_entry_names() {
    let ws = mixed();
    if !two_cases(&ws, "glob_filters_entry_names") {
        return;
    }
    assert_snapshot!(ws.text(json!({"glob": "*.md"})), @r"
    A.md
    a.md
    ");
    assert_snapshot!(ws.text(json!({"glob": ".*"})), @r"
    .git/
    .env
    ");
    assert_snapshot!(ws.text(json!({"glob": "{src,Docs,[bZ]*}"})), @r"
    Docs/
    src/
    b.txt
    Z
    ");
    let out = ls(&ws.session, LsArgs::builder().glob("*").build()).expect("ls");
    assert_eq!(out.value.total_entries, 10, "`*` matches dotfiles too");
}

#[test]
fn unbalanced_and_invalid_globs_are_refused() {
    let ws = mixed();
    let mut texts = Vec::new();
    for glob in ["a]", "a}", "[abc", "{a,b", "[z-a]"] {
        let result = ws.run(json!({"glob": glob}));
        assert_eq!(code(&result), "invalid-pattern", "{glob}");
        texts.push(result.text());
    }
    assert_snapshot!(texts.join("\n"), @r#"
    Invalid glob "a]": Unmatched ']'.
    Invalid glob "a}": Unmatched '}'.
    Invalid glob "[abc": Unterminated character class.
    Invalid glob "{a,b": Unterminated brace expansion.
    Invalid glob "[z-a]": invalid range; 'z' > 'a'.
    "#);
}

#[test]
fn a_huge_glob_is_an_invalid_pattern() {
    let ws = mixed();
    // globset's own matcher panics on this glob ("regex compilation shouldn't fail").
    let result = ws.run(json!({"glob": "lorem ipsum ".repeat(400_000 / 12)}));
    assert_eq!(code(&result), "invalid-pattern");
    assert_snapshot!(result.text(), @"Invalid glob: the pattern is 399996 bytes long; the limit is 4096 bytes.");
    assert_eq!(code(&ws.run(json!({"glob": "*".repeat(87_000)}))), "invalid-pattern");
    let at_limit = ws.run(json!({"glob": "*".repeat(4096)}));
    assert!(!at_limit.is_error, "{}", at_limit.text());
}

#[test]
fn limit_notice_and_limit_values() {
    let ws = Ws::new();
    for name in ["e", "d", "c", "b", "a"] {
        ws.touch(name);
    }
    let result = ws.run(json!({"limit": "2"}));
    assert_snapshot!(result.text(), @r"
    a
    b
    [… 3 more entries — use glob to narrow results]
    ");
    let value = result.ptc_value();
    assert_eq!((value["totalEntries"].as_u64(), value["truncated"].as_bool()), (Some(5), Some(true)));
    assert_eq!(value["entries"], json!([{"name": "a", "type": "file"}, {"name": "b", "type": "file"}]));

    let zero = ws.run(json!({"limit": 0}));
    assert!(!zero.is_error);
    assert_eq!(zero.ptc_value()["warnings"][0]["code"], "params-adjusted");
    assert_snapshot!(zero.text(), @r"
    [Ls params adjusted: ignored limit 0]

    a
    b
    c
    d
    e
    ");
    for bad in [json!(-1), json!("two"), json!(1.5)] {
        assert_eq!(code(&ws.run(json!({"limit": bad}))), "invalid-limit", "{bad}");
    }
}

#[test]
fn empty_directory_and_no_match() {
    let ws = Ws::new();
    assert_eq!(ws.text(json!({})), "(empty directory)");
    ws.dir("empty");
    ws.touch("x.txt");
    assert_eq!(ws.text(json!({"path": "empty"})), "(empty directory)");
    let none = ws.run(json!({"glob": "*.rs"}));
    assert_eq!(none.text(), "(no entries match glob \"*.rs\")");
    assert_eq!(none.ptc_value()["entries"], json!([]));
    let meta = hashline_view::paths_from_meta(none.meta.as_ref().expect("meta")).expect("narrows");
    assert_eq!((meta.paths.len(), meta.total, meta.truncated), (0, 0, false));
}

#[test]
fn lists_a_subdirectory_by_relative_or_absolute_path() {
    let ws = Ws::new();
    ws.touch("sub/inner/deep.txt");
    ws.touch("sub/one.txt");
    assert_eq!(ws.text(json!({"path": "sub"})), "inner/\none.txt");
    let absolute = ws.path("sub").to_string_lossy().into_owned();
    let result = ws.run(json!({"path": format!("@{absolute}")}));
    assert_eq!(result.text(), "inner/\none.txt");
    assert_eq!(result.ptc_value()["path"], absolute.as_str());
}

#[test]
fn a_file_is_not_a_directory() {
    let ws = Ws::new();
    ws.touch("notes.txt");
    let result = ws.run(json!({"path": "notes.txt"}));
    assert_eq!(code(&result), "path-not-directory");
    assert_snapshot!(result.text(), @r#"
    Error: 'notes.txt' is a file, not a directory. Use read to inspect files.
    Use read("notes.txt") to inspect files.
    "#);
    assert_eq!(result.ptc_value()["error"]["hint"], "Use read(\"notes.txt\") to inspect files.");
}

#[test]
fn missing_paths() {
    let ws = Ws::new();
    let result = ws.run(json!({"path": "no/such"}));
    assert_eq!(code(&result), "path-not-found");
    assert_snapshot!(result.text(), @"Error: path 'no/such' does not exist");
    let typed = ls(&ws.session, LsArgs::builder().path("gone").build()).expect_err("missing");
    assert_eq!(typed.code, ErrorCode::PathNotFound);
}

#[test]
fn paths_outside_the_roots_are_refused() {
    let ws = Ws::new();
    let outside = tempfile::tempdir().expect("outside");
    std::fs::write(outside.path().join("secret.txt"), "s").expect("write");
    let up = ws.run(json!({"path": ".."}));
    assert_eq!(code(&up), "path-outside-root");
    if !common::symlink(outside.path(), ws.path("escape"), "paths_outside_the_roots_are_refused") {
        return;
    }
    let link = ws.run(json!({"path": "escape"}));
    assert_eq!(code(&link), "path-outside-root");
    assert!(!link.text().contains("secret.txt"));
    // Listing the root still shows the link itself.
    assert_eq!(ws.text(json!({})), "escape/");
}

#[cfg(unix)]
#[test]
fn unreadable_directory_is_permission_denied() {
    use std::os::unix::fs::PermissionsExt;
    let ws = Ws::new();
    ws.touch("locked/x.txt");
    let locked = ws.path("locked");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).expect("chmod");
    let readable_anyway = std::fs::read_dir(&locked).is_ok();
    let result = ws.run(json!({"path": "locked"}));
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).expect("chmod back");
    if readable_anyway {
        // Running with privileges that ignore permission bits (root): nothing to refuse.
        assert!(!result.is_error);
        return;
    }
    assert_eq!(code(&result), "permission-denied");
    assert_eq!(result.text(), "Error: permission denied for path 'locked'");
}

#[test]
fn output_is_cut_at_50_kb_at_whole_entries() {
    let ws = Ws::new();
    for i in 0..300 {
        ws.touch(&format!("{i:03}{}", "x".repeat(200)));
    }
    let result = ws.run(json!({}));
    let text = result.text();
    assert!(text.ends_with("\n[… truncated at 50 KB]"), "{}", &text[text.len() - 80..]);
    let lines: Vec<&str> = text.lines().collect();
    let shown = lines.len() - 1;
    assert!(lines[..shown].iter().all(|l| l.len() == 203), "whole entries only");
    assert!(text.len() - "\n[… truncated at 50 KB]".len() <= 50 * 1024);
    assert_eq!(result.ptc_value()["entries"].as_array().map(Vec::len), Some(300));
    let meta = hashline_view::paths_from_meta(result.meta.as_ref().expect("meta")).expect("narrows");
    assert_eq!((meta.paths.len(), meta.total, meta.truncated), (shown, 300, true));
}

#[test]
fn unknown_keys_and_wrong_types() {
    let ws = Ws::new();
    ws.touch("a");
    let unknown = ws.run(json!({"colour": "red"}));
    assert_snapshot!(unknown.text(), @r#"
    [Params adjusted: ignored unknown key "colour"]

    a
    "#);
    assert_eq!(code(&ws.run(json!({"glob": 3}))), "invalid-type");
    assert_eq!(ws.text(json!({"path": null, "glob": null})), "a");
}

#[cfg(not(unix))]
#[test]
fn unix_only_tests() {
    common::skipped_here(&["unreadable_directory_is_permission_denied"], "Unix permission bits");
}
