//! A call cancelled before it commits writes nothing (MCP `notifications/cancelled`).

mod common;

use common::{Workspace, code};
use hashline_tools::ast_search::AstSearchTool;
use hashline_tools::edit::EditTool;
use hashline_tools::find::FindTool;
use hashline_tools::grep::GrepTool;
use hashline_tools::read::ReadTool;
use hashline_tools::write::WriteTool;
use hashline_tools::{CallContext, CancelFlag, execute};
use insta::assert_snapshot;
use serde_json::json;

fn cancelled() -> CallContext {
    let cancel = CancelFlag::default();
    cancel.cancel();
    CallContext { cancel, ..CallContext::top_level() }
}

#[test]
fn a_cancelled_edit_or_write_writes_nothing() {
    let ws = Workspace::new();
    let file = ws.file("a.txt", "alpha\nbeta\n");
    ws.call::<ReadTool>(json!({"path": "a.txt"}));
    let edit = json!({"path": "a.txt", "edits": [{"set_line": {"anchor": "2:589", "new_text": "BETA"}}]});
    let result = execute::<EditTool>(&ws.session, edit.clone(), &cancelled());
    assert_eq!(code(&result), "cancelled");
    assert_snapshot!(result.text(), @"Edit cancelled — nothing was written. The client cancelled the call before it committed.");
    let write = json!({"path": "a.txt", "content": "gone\n"});
    let result = execute::<WriteTool>(&ws.session, write.clone(), &cancelled());
    assert_eq!(code(&result), "cancelled");
    let new = json!({"path": "new/b.txt", "content": "b\n"});
    assert_eq!(code(&execute::<WriteTool>(&ws.session, new, &cancelled())), "cancelled");
    assert!(!ws.path("new").exists(), "not even the parent directory is made");
    assert_eq!(std::fs::read(&file).expect("read"), b"alpha\nbeta\n");

    // The same calls, not cancelled, go through.
    assert!(!ws.call::<EditTool>(edit).is_error);
    assert_eq!(std::fs::read(&file).expect("read"), b"alpha\nBETA\n");
    assert!(!ws.call::<WriteTool>(write).is_error);
    assert_eq!(std::fs::read(&file).expect("read"), b"gone\n");
}

#[test]
fn a_cancel_flag_is_shared_by_its_clones() {
    let flag = CancelFlag::default();
    let ctx = CallContext { cancel: flag.clone(), ..CallContext::top_level() };
    assert!(!ctx.cancel.is_cancelled());
    flag.cancel();
    assert!(ctx.cancel.is_cancelled());
    assert_ne!(CancelFlag::default(), flag);
}

/// A search cancelled stops its walk and ends `cancelled`: what it found part way is not
/// the answer (grep and find since stop 55; ast_search before).
#[test]
fn a_cancelled_search_ends_cancelled_and_the_same_search_otherwise_answers() {
    let ws = Workspace::new();
    for i in 0..50 {
        ws.file(&format!("d{}/f{i}.txt", i % 5), "needle\n");
    }
    let run = |tool: &str, args: &serde_json::Value, ctx: &CallContext| match tool {
        "grep" => execute::<GrepTool>(&ws.session, args.clone(), ctx),
        "find" => execute::<FindTool>(&ws.session, args.clone(), ctx),
        _ => execute::<AstSearchTool>(&ws.session, args.clone(), ctx),
    };
    for (tool, args) in [
        ("grep", json!({"pattern": "needle"})),
        ("find", json!({"pattern": "*.txt"})),
        ("ast_search", json!({"pattern": "needle", "language": "rust"})),
    ] {
        let result = run(tool, &args, &cancelled());
        assert_eq!(code(&result), "cancelled", "{tool}: {}", result.text());
        let name = format!("{}{}", tool[..1].to_uppercase(), &tool[1..]);
        assert_eq!(
            result.text(),
            format!("{name} cancelled: the client cancelled the call, and the search stopped before its end.")
        );
        let answered = run(tool, &args, &CallContext::top_level());
        assert!(!answered.is_error, "{tool}: {}", answered.text());
    }
}
