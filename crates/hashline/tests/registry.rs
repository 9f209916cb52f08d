//! The facade: the registry's table, dispatch, the programmatic API, presenters.

use hashline::view::{ToolCallView, ToolResultView};
use hashline::{CallContext, Session, Toolbox};
use serde_json::{Value, json};

fn workspace() -> (tempfile::TempDir, Session) {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("a.txt"), "alpha\nbeta").expect("write");
    let session = Session::open(dir.path()).expect("session");
    (dir, session)
}

/// Every tool's annotations, pinned: hosts act on them (Codex's approval modes and Claude
/// Code's plan mode let a `readOnlyHint` tool run without asking), so a read-only tool that
/// lost its hint would stop working in them, and an editing tool that gained it would run
/// unasked. The MCP server passes them on as they are (hashline-mcp's tool-list test).
#[test]
fn every_tool_is_registered_with_annotations() {
    let toolbox = Toolbox::new();
    let summary: Vec<(&str, bool, bool, bool, bool)> = toolbox
        .tools()
        .iter()
        .map(|t| {
            let a = &t.annotations;
            (t.name, a.read_only_hint, a.destructive_hint, a.idempotent_hint, a.open_world_hint)
        })
        .collect();
    // (name, readOnly, destructive, idempotent, openWorld)
    assert_eq!(
        summary,
        [
            ("read", true, false, true, false),
            ("edit", false, true, false, false),
            ("write", false, true, true, false),
            ("ls", true, false, true, false),
            ("find", true, false, true, false),
            ("grep", true, false, true, false),
            ("ast_search", true, false, true, false)
        ]
    );
}

/// The model-facing descriptions and schemas are protocol: pinned here.
#[test]
fn descriptions_and_schemas_are_pinned() {
    let toolbox = Toolbox::new();
    for tool in toolbox.tools() {
        let listing = json!({
            "name": tool.name,
            "description": tool.description(),
            "annotations": tool.annotations,
            "inputSchema": tool.input_schema(),
            "outputSchema": tool.output_schema(),
        });
        insta::assert_json_snapshot!(format!("tool_{}", tool.name), listing);
    }
}

/// What a model reads of the tools on every turn — each tool's name, description and input
/// schema, as compact JSON — stays within 16 KB for the seven (issue 47; it was 28.9 KB).
/// `cargo xtask tokens` counts it in tokens.
#[test]
fn the_tool_definitions_a_model_reads_fit_in_16_kb() {
    let tools = Toolbox::new();
    let sizes: Vec<(&str, usize)> = tools
        .tools()
        .iter()
        .map(|tool| {
            let definition =
                json!({"name": tool.name, "description": tool.description(), "inputSchema": tool.input_schema()});
            (tool.name, definition.to_string().len())
        })
        .collect();
    let total: usize = sizes.iter().map(|(_, size)| size).sum();
    assert_eq!(sizes.len(), 7);
    assert!(total <= 16 * 1024, "{total} bytes in all: {sizes:?}");
}

#[test]
fn schemas_are_self_contained_objects() {
    for tool in Toolbox::new().tools() {
        for schema in [tool.input_schema(), tool.output_schema()] {
            assert_eq!(schema["type"], "object", "{}", tool.name);
            assert!(!schema.to_string().contains("\"$ref\""), "{} has a $ref", tool.name);
        }
    }
}

/// A validating client (the TypeScript MCP SDK validates error results too) must accept
/// every result: each output schema is `{tool, ok}` plus a `oneOf` tagged by `ok` — the
/// tool's value, or the one error envelope that every tool shares.
#[test]
fn output_schemas_are_the_value_or_the_shared_error_envelope() {
    let toolbox = Toolbox::new();
    let envelope = toolbox.tools()[0].output_schema()["oneOf"][1].clone();
    assert_eq!(envelope["title"], "ToolFailure");
    assert_eq!(envelope["properties"]["ok"], json!({"const": false}));
    for tool in toolbox.tools() {
        let schema = tool.output_schema();
        assert_eq!(schema["properties"]["tool"]["const"], tool.name);
        assert_eq!(schema["required"], json!(["tool", "ok"]));
        let branches = schema["oneOf"].as_array().expect("oneOf");
        assert_eq!(branches.len(), 2, "{}", tool.name);
        assert_eq!(branches[0]["properties"]["ok"], json!({"const": true}), "{}", tool.name);
        assert_eq!(branches[1], envelope, "{}: one envelope for all tools", tool.name);
    }
}

/// Standard validators know no `uint32`-style formats (Ajv warns about each one).
#[test]
fn schemas_have_no_custom_formats() {
    for tool in Toolbox::new().tools() {
        for schema in [tool.input_schema(), tool.output_schema()] {
            assert!(!schema.to_string().contains("\"format\""), "{} has a format", tool.name);
        }
    }
}

#[test]
fn unknown_tools_are_error_results() {
    let (_dir, session) = workspace();
    let result = Toolbox::new().execute(&session, "rm", json!({}), &CallContext::top_level());
    assert!(result.is_error);
    assert_eq!(result.error_code(), Some("unknown-tool"));
    assert_eq!(result.text(), "Unknown tool: rm. Available tools: read, edit, write, ls, find, grep, ast_search.");
}

#[test]
fn invoke_honours_error_mode() {
    let (_dir, session) = workspace();
    let toolbox = Toolbox::new();
    let ok = toolbox.invoke(&session, "read", json!({"path": "a.txt"})).expect("ok");
    assert_eq!((ok["tool"].as_str(), ok["ok"].as_bool()), (Some("read"), Some(true)));
    let tag = hashline::core::snapshot::SnapshotTag::of(b"alpha\nbeta");
    assert_eq!(ok["text"], format!("snapshot: {tag}\n1:3c8|alpha\n2:589|beta"));
    let thrown =
        toolbox.invoke(&session, "read", json!({"path": "nope.txt", "errorMode": "throw"})).expect_err("throw");
    assert_eq!((thrown.code.as_str(), thrown.message.as_str()), ("file-not-found", "File not found: nope.txt"));
    let mut value = toolbox.invoke(&session, "read", json!({"path": "nope.txt", "errorMode": "value"})).expect("value");
    let path = value.as_object_mut().and_then(|v| v.remove("path")).expect("the error names its path");
    assert!(path.as_str().is_some_and(|p| p.ends_with(&format!("{}nope.txt", std::path::MAIN_SEPARATOR))), "{path}");
    assert_eq!(
        value,
        json!({"text": "File not found: nope.txt", "tool": "read", "ok": false,
               "error": {"code": "file-not-found", "message": "File not found: nope.txt"}})
    );
    let bad_mode = toolbox.invoke(&session, "read", json!({"path": "a.txt", "errorMode": "loud"})).expect_err("mode");
    assert_eq!(bad_mode.code.as_str(), "invalid-type");
    assert_eq!(toolbox.invoke(&session, "nope", json!({})).expect_err("unknown").code.as_str(), "unknown-tool");
    let unknown = toolbox.invoke(&session, "nope", json!({"errorMode": "value"})).expect("value mode");
    assert_eq!(unknown["error"]["code"], "unknown-tool");
}

#[test]
fn presenters_run_on_live_results() {
    let (_dir, session) = workspace();
    let toolbox = Toolbox::new();
    let read = toolbox.get("read").expect("read");
    let args = json!({"path": "a.txt", "offset": 2});
    assert!(
        matches!(read.present_call(&args), Some(ToolCallView::Generic(g)) if g.title == "Read a.txt (from line 2)")
    );
    let result = read.execute(&session, args.clone(), &CallContext::top_level());
    match read.present_result(&args, &result) {
        Some(ToolResultView::Read(view)) => {
            assert_eq!((view.offset, view.total_lines, view.lines.len()), (2, 2, 1));
            assert_eq!(view.lines[0].hash.as_deref(), Some("589"));
        }
        other => panic!("{other:?}"),
    }
    let write = toolbox.get("write").expect("write");
    let args = json!({"path": "a.txt", "content": "alpha\nBETA\n"});
    let result = write.execute(&session, args.clone(), &CallContext::top_level());
    match write.present_result(&args, &result) {
        Some(ToolResultView::Diff(view)) => {
            assert_eq!(view.diffs.len(), 1);
            assert_eq!(view.diffs[0].new_text, "alpha\nBETA");
            assert_eq!(view.diffs[0].old_start, Some(1));
        }
        other => panic!("{other:?}"),
    }
    let grep = toolbox.get("grep").expect("grep");
    let args = json!({"pattern": "alpha"});
    let result = grep.execute(&session, args.clone(), &CallContext::top_level());
    match grep.present_result(&args, &result) {
        Some(ToolResultView::Search(hashline::view::SearchResultView::Matches(view))) => {
            assert_eq!((view.total, view.truncated, view.files.len()), (1, false, 1));
            assert_eq!((view.files[0].matches[0].line_number, view.files[0].matches[0].line.as_str()), (1, "alpha"));
        }
        other => panic!("{other:?}"),
    }
    let failed = read.execute(&session, json!({"path": "nope"}), &CallContext::top_level());
    assert!(read.present_result(&json!({"path": "nope"}), &failed).is_none());
}

#[test]
fn every_tool_refuses_paths_outside_the_roots() {
    let (dir, session) = workspace();
    let outside = tempfile::tempdir().expect("outside");
    std::fs::write(outside.path().join("o.txt"), "o").expect("write");
    let toolbox = Toolbox::new();
    let direct = outside.path().to_string_lossy().into_owned();
    let mut targets = vec![direct.as_str(), ".."];
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).expect("symlink");
        targets.push("out");
    }
    #[cfg(windows)]
    if std::os::windows::fs::symlink_dir(outside.path(), dir.path().join("out")).is_ok()
        && dir.path().join("out").is_symlink()
    {
        targets.push("out");
    } else {
        eprintln!("SKIPPED every_tool_refuses_paths_outside_the_roots (through a symlink): this system makes none");
    }
    for target in targets {
        let file = format!("{target}/o.txt");
        let calls: [(&str, Value); 7] = [
            ("read", json!({"path": file})),
            ("edit", json!({"path": file, "edits": [{"replace": {"old_text": "o", "new_text": "x"}}]})),
            ("write", json!({"path": file, "content": "x"})),
            ("ls", json!({"path": target})),
            ("find", json!({"pattern": "*", "path": target})),
            ("grep", json!({"pattern": "o", "path": target})),
            ("ast_search", json!({"pattern": "$X", "lang": "rust", "path": target})),
        ];
        for (tool, args) in calls {
            let result = toolbox.execute(&session, tool, args.clone(), &CallContext::top_level());
            assert_eq!(result.error_code(), Some("path-outside-root"), "{tool} {args}");
        }
    }
    assert_eq!(std::fs::read(outside.path().join("o.txt")).expect("read"), b"o");
}
