//! A log is untrusted: file rows, paths, tool names, ids, messages and diff lines it holds may
//! carry terminal control sequences (OSC 52 clipboard writes, OSC window titles, CSI screen
//! clears, C1 controls). None of them may reach the terminal raw, nor the page.

use hashline_show::{HtmlOptions, TerminalOptions, Timeline, render_html, render_terminal};
use serde_json::{Value, json};

/// OSC 52 (clipboard), OSC 0 (window title), CSI 2J (clear), C1 CSI and OSC, DEL, BEL, CR.
const PAYLOAD: &str =
    "a\u{1b}]52;c;ZWNobyBwd25lZA==\u{7}b\u{1b}]0;owned\u{1b}\\c\u{1b}[2Jd\u{9b}31me\u{9d}0;t\u{9c}f\u{7f}g\rh";

fn line(value: Value) -> String {
    let mut text = serde_json::to_string(&value).expect("json");
    text.push('\n');
    text
}

/// A log whose every free-text field carries [`PAYLOAD`].
fn hostile_log() -> String {
    let p = PAYLOAD;
    let path = format!("/w/src/{p}.rs");
    let mut log = line(json!({"type": "session", "version": 1, "root": format!("/w{p}")}));
    log += &line(json!({"type": "tool/call", "callId": format!("c1{p}"), "name": "read", "args": {"path": path}}));
    log += &line(json!({"type": "tool/result", "callId": format!("c1{p}"), "result": {
        "content": [{"type": "text", "text": format!("1:a1c|fn {p}() {{}}")}],
        "isError": false,
        "meta": {"path": path, "offset": 1, "lines": [{"number": 1, "text": format!("fn {p}() {{}}"), "hash": "a1c"}], "totalLines": 1}
    }}));
    log += &line(json!({"type": "tool/call", "callId": "c2", "name": "edit", "args": {"path": path}}));
    log += &line(json!({"type": "tool/result", "callId": "c2", "result": {
        "content": [{"type": "text", "text": format!("Edited {p}")}],
        "isError": false,
        "meta": {"diffs": [{"path": path, "oldText": format!("keep {p}\nold {p}"), "newText": format!("keep {p}\nnew {p}"), "oldStart": 1, "newStart": 1}]}
    }}));
    log += &line(json!({"type": "tool/call", "callId": "c3", "name": "grep", "args": {"pattern": p}}));
    log += &line(json!({"type": "tool/result", "callId": "c3", "result": {
        "content": [{"type": "text", "text": format!("{path}:1: {p}")}],
        "isError": false,
        "meta": {"files": [{"path": path, "matches": [{"lineNumber": 1, "line": p}]}], "total": 1, "truncated": false}
    }}));
    log += &line(json!({"type": "tool/call", "callId": "c4", "name": format!("tool{p}"), "args": {"x": p}}));
    log += &line(json!({"type": "tool/result", "callId": "c4", "result": {
        "content": [{"type": "text", "text": format!("Error {p}\n{p}")}],
        "isError": true,
        "details": {"ptcValue": {"ok": false, "error": {"code": format!("code{p}"), "message": p}}}
    }}));
    log += &line(json!({"type": "tool/call", "callId": "c5", "name": "ls", "args": {"path": p}}));
    log += &line(json!({"type": "tool/result", "callId": "c5", "result": {
        "content": [{"type": "text", "text": format!("[Stale read context: {p} changed]\n\n{p}")}],
        "isError": false
    }}));
    log += &line(json!({"type": "tool/result", "callId": format!("orphan{p}"), "result": {
        "content": [{"type": "text", "text": p}],
        "isError": true,
        "details": {"ptcValue": {"ok": false, "error": {"code": format!("code{p}"), "message": p}}}
    }}));
    log +=
        &line(json!({"type": "tool/call", "callId": format!("pending{p}"), "name": "write", "args": {"path": path}}));
    log
}

/// The controls a terminal acts on that `text` holds, other than the SGR colour sequences
/// `ESC [ digits ; m` the renderer adds itself (and `\n`, `\t`).
fn raw_controls(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (at, c) in text.char_indices() {
        if c == '\u{1b}' {
            let rest = &text[at + 1..];
            let sgr = rest.strip_prefix('[').and_then(|r| {
                let end = r.find(|c: char| !c.is_ascii_digit() && c != ';')?;
                (r.as_bytes()[end] == b'm').then_some(end)
            });
            if sgr.is_none() {
                found.push(format!("ESC at {at}: {:?}", &text[at..(at + 12).min(text.len())]));
            }
        } else if c.is_control() && c != '\n' && c != '\t' {
            found.push(format!("{c:?} at {at}"));
        }
    }
    found
}

#[test]
fn no_control_sequence_from_the_log_reaches_the_terminal() {
    let timeline = Timeline::from_log_text(&hostile_log());
    for colour in [false, true] {
        let text = render_terminal(&timeline, TerminalOptions { colour });
        assert_eq!(raw_controls(&text), Vec::<String>::new(), "colour {colour}:\n{text}");
        // The payload is still there, in its display form.
        assert!(text.contains("a\\u001b]52;c;ZWNobyBwd25lZA==\\u0007b"), "colour {colour}:\n{text}");
        assert!(text.contains("\\u009b31me\\u009d0;t\\u009cf\\u007fg\\u000dh"), "colour {colour}:\n{text}");
        // Every card was drawn.
        for marker in ["[1] ", "[2] ", "[3] ", "[4] ", "[5] ", "[6] ", "[?] "] {
            assert!(text.contains(marker), "colour {colour}: {marker} missing:\n{text}");
        }
    }
    let coloured = render_terminal(&timeline, TerminalOptions { colour: true });
    assert!(coloured.contains("\u{1b}["), "our own colours stay");
}

#[test]
fn the_page_holds_no_control_character_from_the_log() {
    let page = render_html(&Timeline::from_log_text(&hostile_log()), &HtmlOptions::default());
    let raw: Vec<char> = page.chars().filter(|c| c.is_control() && !matches!(c, '\n' | '\t')).collect();
    assert!(raw.is_empty(), "raw controls in the page: {raw:?}");
    assert!(page.contains("a\\u001b]52;c;ZWNobyBwd25lZA==\\u0007b"), "shown in display form");
}
