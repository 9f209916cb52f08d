//! Every committed session fixture drawn as cards: each call appears, the plain text of three
//! fixtures is pinned, and the page has one card per call of the kind the live views say.

use std::path::{Path, PathBuf};

use hashline_show::{CardKind, HtmlOptions, TerminalOptions, Timeline, render_html, render_terminal};
use serde_json::Value;

fn sessions() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/sessions")
}

/// Every fixture's name and log text.
fn fixtures() -> Vec<(String, String)> {
    let mut all: Vec<(String, String)> = std::fs::read_dir(sessions())
        .expect("fixtures/sessions")
        .map(|entry| entry.expect("entry").path())
        .filter(|dir| dir.join("session.jsonl").is_file())
        .map(|dir| {
            let name = dir.file_name().expect("name").to_string_lossy().into_owned();
            (name, std::fs::read_to_string(dir.join("session.jsonl")).expect("log"))
        })
        .collect();
    all.sort();
    assert!(all.len() >= 8, "expected the committed fixtures, found {}", all.len());
    all
}

fn plain(log: &str) -> String {
    render_terminal(&Timeline::from_log_text(log), TerminalOptions { colour: false })
}

fn log_of(name: &str) -> String {
    std::fs::read_to_string(sessions().join(name).join("session.jsonl")).expect("log")
}

#[test]
fn every_call_of_every_fixture_is_printed() {
    for (name, log) in fixtures() {
        let text = plain(&log);
        let calls: Vec<Value> = log
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).expect("json"))
            .filter(|e| e["type"] == "tool/call")
            .collect();
        assert!(!calls.is_empty(), "{name}: no calls");
        for (i, call) in calls.iter().enumerate() {
            let id = call["callId"].as_str().expect("id");
            assert!(text.contains(&format!("[{}] ", i + 1)), "{name}: call {} missing:\n{text}", i + 1);
            assert!(text.contains(&format!(" · {id}")), "{name}: call id {id} missing:\n{text}");
        }
        assert!(!text.contains('\u{1b}'), "{name}: plain text has escapes");
    }
}

#[test]
fn plain_read() {
    insta::assert_snapshot!(plain(&log_of("fs-read")));
}

#[test]
fn plain_edit_refused_then_retried() {
    insta::assert_snapshot!(plain(&log_of("workspace-edit")));
}

#[test]
fn plain_multi_file_edit() {
    insta::assert_snapshot!(plain(&log_of("edit-multi-file-rollback")));
}

/// Issue 27: the cards that made a change name it; a reverted one says by what, a revert
/// what it reverts, in the terminal and on the page.
#[test]
fn plain_edits_and_reverts_are_labelled_with_their_changes() {
    let log = log_of("edit-revert");
    insta::assert_snapshot!(plain(&log));
    let page = render_html(&Timeline::from_log_text(&log), &HtmlOptions::default());
    assert!(
        page.contains(
            "<span class=\"change\">change c1-41ce</span><span class=\"change reverted\">reverted by c4-5440</span>"
        ),
        "{page}"
    );
    assert!(page.contains("<span class=\"title\">Revert c2-b33b</span>"), "{page}");
    assert!(page.contains("<span class=\"change\">reverts c2-b33b</span>"), "{page}");
}

#[test]
fn plain_nested_call_and_stale_notice() {
    insta::assert_snapshot!(plain(&log_of("nested-stale-context")));
}

#[test]
fn colour_adds_only_escapes() {
    for name in ["fs-edit", "workspace-edit", "parallel-tool-calls"] {
        let timeline = Timeline::from_log_text(&log_of(name));
        let coloured = render_terminal(&timeline, TerminalOptions { colour: true });
        assert!(coloured.contains("\u{1b}["), "{name}: no colour");
        assert_eq!(strip_ansi(&coloured), render_terminal(&timeline, TerminalOptions { colour: false }), "{name}");
    }
}

/// `text` without CSI escape sequences.
fn strip_ansi(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The card kind the live path drew for each result: views.jsonl holds the recorded view (or
/// null), session.jsonl the error flag. Independent of this crate's own classification.
fn recorded_kinds(name: &str) -> Vec<&'static str> {
    let dir = sessions().join(name);
    let log = std::fs::read_to_string(dir.join("session.jsonl")).expect("log");
    let views = std::fs::read_to_string(dir.join("views.jsonl")).expect("views");
    let views: Vec<Value> = views.lines().map(|l| serde_json::from_str(l).expect("json")).collect();
    let mut kinds = Vec::new();
    for line in log.lines() {
        let event: Value = serde_json::from_str(line).expect("json");
        if event["type"] != "tool/result" {
            continue;
        }
        let view = views
            .iter()
            .find(|v| v["for"] == "result" && v["callId"] == event["callId"])
            .map(|v| v["view"]["card"].as_str().unwrap_or(""));
        kinds.push(match (event["result"]["isError"].as_bool(), view) {
            (Some(true), _) => "error",
            (_, Some("read")) => "read",
            (_, Some("diff")) => "diff",
            (_, Some("search")) => "search",
            _ => "generic",
        });
    }
    kinds
}

#[test]
fn the_page_has_one_card_per_result_of_the_recorded_kind() {
    for (name, log) in fixtures() {
        let page = render_html(&Timeline::from_log_text(&log), &HtmlOptions::default());
        let expected = recorded_kinds(&name);
        for kind in CardKind::ALL {
            let want = expected.iter().filter(|k| **k == kind.name()).count();
            let marker = format!("<section class=\"card card-{0}\" data-card=\"{0}\">", kind.name());
            assert_eq!(page.matches(&marker).count(), want, "{name}: {} cards", kind.name());
        }
        assert!(!page.contains("http://") && !page.contains("https://"), "{name}: the page refers outside");
    }
}

#[test]
fn the_page_escapes_what_the_log_says() {
    let page = render_html(&Timeline::from_log_text(&log_of("agent-instructions")), &HtmlOptions::default());
    assert!(page.contains("&lt;/system-reminder&gt;"), "a path with markup is escaped");
    assert!(!page.contains("</system-reminder>"));
}

#[test]
fn search_results_link_to_the_read_card_of_the_same_file() {
    let page = render_html(&Timeline::from_log_text(&log_of("nested-stale-context")), &HtmlOptions::default());
    assert!(page.contains("<a class=\"path\" href=\"#call-1\">s.txt</a>"), "{page}");
    assert!(page.contains("<p class=\"notice stale\">[Stale read context: s.txt changed"));
    assert!(page.contains("<div class=\"children\">\n<details class=\"call nested\" id=\"call-3\""));
}
