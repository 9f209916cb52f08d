//! A call's budget (`CallContext::budget`) holds every tool's text whole: what a host that
//! shows 4 KB at once gets is at most 4 KB, cut by the tool at a row with its own note.

use hashline::{Budget, CallContext, Session, Toolbox};
use serde_json::{Value, json};

const BYTES: usize = 4096;

fn small() -> CallContext {
    CallContext { budget: Budget::new(2000, BYTES), ..CallContext::top_level() }
}

fn workspace() -> (tempfile::TempDir, Session) {
    let dir = tempfile::tempdir().expect("tempdir");
    let body: String = (1..=600).map(|n| format!("fn item_{n}() -> usize {{\n    {n}\n}}\n")).collect();
    std::fs::write(dir.path().join("big.rs"), body).expect("write");
    for n in 0..300 {
        std::fs::write(dir.path().join(format!("file_with_a_long_name_{n:03}.txt")), "x\n").expect("write");
    }
    std::fs::write(dir.path().join("AGENTS.md"), "Be brief. ".repeat(2000)).expect("write");
    let session = Session::open(dir.path()).expect("session");
    (dir, session)
}

fn call(session: &Session, tool: &str, args: Value) -> String {
    let result = Toolbox::new().execute(session, tool, args, &small());
    let text = result.text();
    assert!(text.len() <= BYTES, "{tool}: {} bytes over {BYTES}:\n{}", text.len(), &text[text.len() - 400..]);
    text
}

#[test]
fn every_tools_text_fits_the_calls_budget() {
    let (_dir, session) = workspace();
    let whole = call(&session, "read", json!({"path": "big.rs"}));
    assert!(whole.contains("at this client's 2000-line / 4.0KB budget"), "{whole}");
    let limited = call(&session, "read", json!({"path": "big.rs", "offset": 100, "limit": 1000}));
    assert!(limited.contains("Use offset="), "{limited}");
    let mapped = call(&session, "read", json!({"path": "big.rs", "limit": 5, "map": true}));
    assert!(mapped.contains("File Map: big.rs"), "{mapped}");
    let grep = call(&session, "grep", json!({"pattern": "x", "limit": 1000}));
    assert!(grep.contains("[Output truncated at this client's 2000-line / 4.0KB budget: showing "), "{grep}");
    let summary = call(&session, "grep", json!({"pattern": "x", "summary": true}));
    assert!(summary.starts_with("[300 matches in 300 files]"), "{summary}");
    let ast =
        call(&session, "ast_search", json!({"pattern": "fn $F() -> usize { $$$ }", "path": "big.rs", "limit": 600}));
    assert!(ast.contains("at this client's"), "{ast}");
    let ls = call(&session, "ls", json!({}));
    assert!(ls.contains("truncated at this client's"), "{ls}");
    let find = call(&session, "find", json!({"pattern": "*.txt"}));
    assert!(find.contains("truncated at this client's"), "{find}");

    let rows = whole.lines().filter(|l| l.contains('|')).count();
    assert!(rows > 50, "{rows} rows");
    // An edit that adds 1000 lines: its added lines' anchors cut at the budget, at a whole
    // anchor, with its note.
    let anchors: Vec<&str> = whole
        .lines()
        .filter(|l| !l.starts_with("snapshot: "))
        .filter_map(|l| l.split('|').next())
        .filter(|a| a.contains(':'))
        .collect();
    let (first, last) = (anchors[0], anchors[59]);
    let new_text: String = (0..1000).map(|n| format!("// replaced line {n}\n")).collect();
    let edited = call(
        &session,
        "edit",
        json!({"path": "big.rs", "edits": [{"replace_lines": {"start_anchor": first, "end_anchor": last, "new_text": new_text}}]}),
    );
    assert!(edited.contains("[Anchors cut at "), "{edited}");
    assert!(edited.len() <= 4096, "{} bytes", edited.len());
    // A write of the whole file: its rows cut at the budget.
    let written = call(&session, "write", json!({"path": "new.rs", "content": "let x = 1;\n".repeat(1000)}));
    assert!(written.contains("over the 2000-line / 4.0KB result budget"), "{written}");
}

#[test]
fn the_default_budget_is_the_specs() {
    assert_eq!(CallContext::top_level().budget, Budget::DEFAULT);
    assert_eq!((Budget::DEFAULT.lines, Budget::DEFAULT.bytes), (2000, 50 * 1024));
    assert_eq!(Budget::DEFAULT.to_string(), "2000-line / 50 KB");
    assert_eq!(Budget::DEFAULT.named(), "");
}
