//! `hashline show`: a session log drawn as cards, as a user runs it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/sessions").join(name).join("session.jsonl")
}

fn show(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hashline"));
    command.arg("show").args(args).env_remove("NO_COLOR").env_remove("CLICOLOR_FORCE").env_remove("CLICOLOR");
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().expect("run hashline show")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn a_pipe_gets_plain_text_and_forced_colour_gets_escapes() {
    let log = fixture("fs-edit");
    let log = log.to_str().expect("utf-8 path");
    let piped = show(&[log], &[]);
    assert!(piped.status.success(), "{}", text(&piped.stderr));
    let plain = text(&piped.stdout);
    assert!(plain.contains("[2] Edit config.txt · edit · call_edit"), "{plain}");
    assert!(!plain.contains('\u{1b}'), "no colour into a pipe");

    let forced = text(&show(&[log], &[("CLICOLOR_FORCE", "1")]).stdout);
    assert!(forced.contains("\u{1b}["), "CLICOLOR_FORCE gives colour");
    let no_color = text(&show(&[log], &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]).stdout);
    assert_eq!(no_color, plain, "NO_COLOR wins");
    let plain_flag = text(&show(&[log, "--plain"], &[("CLICOLOR_FORCE", "1")]).stdout);
    assert_eq!(plain_flag, plain, "--plain wins");
}

#[test]
fn call_selects_one_call_and_an_unknown_id_is_a_usage_error() {
    let log = fixture("nested-stale-context");
    let log = log.to_str().expect("utf-8 path");
    let one = text(&show(&[log, "--call", "call_program"], &[]).stdout);
    assert!(one.contains("[2] List . · ls · call_program"), "{one}");
    assert!(one.contains("↳ [3] Edit s.txt"), "nested calls come along: {one}");
    assert!(!one.contains("call_read"), "{one}");

    let missing = show(&[log, "--call", "nope"], &[]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing.stderr).contains("no call with id \"nope\" in the log"), "{}", text(&missing.stderr));
}

#[test]
fn html_writes_one_self_contained_page() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("page.html");
    let run = show(&[fixture("workspace-edit").to_str().expect("utf-8"), "--html", out.to_str().expect("utf-8")], &[]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert!(run.stdout.is_empty(), "the page goes to the file only");
    let page = std::fs::read_to_string(&out).expect("page");
    assert!(page.starts_with("<!DOCTYPE html>") && page.contains("<style>") && page.contains("<script>"));
    assert_eq!(page.matches("<section class=\"card ").count(), 3);
    assert!(!page.contains("src=\"http") && !page.contains("href=\"http"));
}

#[test]
fn a_damaged_log_shows_what_came_before_and_says_where() {
    let dir = tempfile::tempdir().expect("tempdir");
    let whole = std::fs::read_to_string(fixture("workspace-edit")).expect("log");
    let cut = &whole[..whole.len() - 40];
    let log = dir.path().join("cut.jsonl");
    std::fs::write(&log, cut).expect("write");
    let run = show(&[log.to_str().expect("utf-8")], &[]);
    assert!(run.status.success());
    let out = text(&run.stdout);
    assert!(out.contains("[3] Edit greeting.txt") && out.contains("pending"), "{out}");
    assert!(out.contains("! session log line 7 is truncated or corrupted"), "{out}");

    let missing = show(&[dir.path().join("none.jsonl").to_str().expect("utf-8")], &[]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing.stderr).contains("cannot read the session log"));
}
