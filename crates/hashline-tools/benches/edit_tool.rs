//! The whole in-process `edit` tool on a large batch: the same 1000 anchored edits on a
//! 100k-line file as `hashline-core`'s `edit` bench, through JSON arguments, the file read,
//! validation, diff and patch rendering, the atomic write and the JSON projection (SPEC §11
//! sets ≤ 50 ms for the engine alone; this shows what the tool adds).
//!
//! Four ways: `syntaxValidate: off` (the file-system layer's figure, comparable with
//! a `.txt` file), `warn` (the default: the old file parsed, the new one reparsed
//! incrementally), and `warn` with the session's tree of the old file already kept (as
//! after the session's previous edit of it); and `off` through `execute_content`, the
//! text-only path of the CLI's text mode. With `off`, also the whole JSON call as each
//! front end finishes it: the `--json` line's bytes, and MCP's `structuredContent` value
//! written out. Beside them, in the same run, the engine alone (`apply` of the same batch
//! on the same bytes), so that the tool / engine ratios come from one bench invocation.
//!
//! Then `read` of a large text file (the same lines cycled to 2^20, a fresh stateless
//! session per call): a 20-row window from its middle beside the default read, which
//! the 50 KB budget cuts, in the same invocation (issue 21: neither splits the whole file).

use std::hint::black_box;
use std::path::Path;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use hashline_core::edit::{EditOp, EditOptions, apply};
use hashline_core::{Anchor, AnchorRef, Document, LineNo};
use hashline_syntax::{LanguageId, ParseLimits, census, parse_document};
use hashline_tools::edit::EditTool;
use hashline_tools::read::ReadTool;
use hashline_tools::run::execute_content;
use hashline_tools::tree_cache::CachedTree;
use hashline_tools::{CallContext, Session, SessionConfig, execute};
use serde_json::{Value, json};

/// Lines of the file.
const LINES: usize = 100_000;
/// Edits of the batch, one every `LINES / EDITS` lines.
const EDITS: usize = 1_000;

/// The file's bytes: the lines of the file named by `HASHLINE_BENCH_INPUT` (`cargo xtask
/// bench` writes a 10k-line file and sets it), else this crate's edit tool sources, cycled
/// to 100,000 lines.
fn hundred_k_lines() -> Vec<u8> {
    let text = match std::env::var_os("HASHLINE_BENCH_INPUT") {
        Some(path) => std::fs::read_to_string(path).expect("HASHLINE_BENCH_INPUT names a readable UTF-8 file"),
        None => [include_str!("../src/tools/edit/mod.rs"), include_str!("../src/tools/edit/commit.rs")].concat(),
    };
    text.lines().cycle().take(LINES).flat_map(|l| [l, "\n"]).collect::<String>().into_bytes()
}

/// The `LINE:HASH` a model would copy from the row of line `index` (0-based).
fn anchor(doc: &Document, index: usize) -> String {
    let line = doc.line(LineNo::from_index(index)).expect("the line exists");
    Anchor::new(line.number, line.hash()).to_string()
}

/// The `edits` argument: one edit every 100 lines, cycling `set_line`, `replace_lines`
/// (two lines into three) and `insert_after` (two lines).
fn edits(doc: &Document) -> Value {
    let step = LINES / EDITS;
    let items: Vec<Value> = (0..EDITS)
        .map(|k| {
            let at = k * step + step / 2;
            match k % 3 {
                0 => json!({ "set_line": { "anchor": anchor(doc, at), "new_text": format!("let edited_{k} = {k};") } }),
                1 => json!({ "replace_lines": {
                    "start_anchor": anchor(doc, at),
                    "end_anchor": anchor(doc, at + 1),
                    "new_text": format!("// range {k}\nlet first_{k} = 1;\nlet second_{k} = 2;"),
                } }),
                _ => json!({ "insert_after": {
                    "anchor": anchor(doc, at),
                    "new_text": format!("    inserted_{k}();\n    inserted_{k}_again();"),
                } }),
            }
        })
        .collect();
    Value::Array(items)
}

/// The same batch as typed ops, for the engine alone (as `hashline-core`'s `edit` bench).
fn ops(doc: &Document) -> Vec<EditOp> {
    let step = LINES / EDITS;
    let at = |index: usize| {
        let line = doc.line(LineNo::from_index(index)).expect("the line exists");
        AnchorRef::Line { anchor: Anchor::new(line.number, line.hash()), content: None }
    };
    (0..EDITS)
        .map(|k| {
            let line = k * step + step / 2;
            match k % 3 {
                0 => EditOp::SetLine { anchor: at(line), new_text: format!("let edited_{k} = {k};"), literal: false },
                1 => EditOp::ReplaceLines {
                    start: at(line),
                    end: at(line + 1),
                    new_text: format!("// range {k}\nlet first_{k} = 1;\nlet second_{k} = 2;"),
                    literal: false,
                },
                _ => EditOp::InsertAfter {
                    anchor: at(line),
                    new_text: format!("    inserted_{k}();\n    inserted_{k}_again();"),
                    literal: false,
                },
            }
        })
        .collect()
}

/// The whole call as `hashline edit --json` prints it: the result line's bytes.
#[inline(never)]
fn json_call(session: &Session, args: Value) -> String {
    execute::<EditTool>(session, args, &CallContext::top_level()).to_json()
}

/// The whole call as the MCP server answers it: `structuredContent` (the ptcValue) as a
/// JSON value, written out.
#[inline(never)]
fn mcp_call(session: &Session, args: Value) -> Vec<u8> {
    let result = execute::<EditTool>(session, args, &CallContext::top_level());
    serde_json::to_vec(result.ptc_value()).expect("the value serialises")
}

/// The call for a front end that needs only the text (the CLI's text mode).
#[inline(never)]
fn text_call(session: &Session, args: Value) -> usize {
    let (content, is_error) = execute_content::<EditTool>(session, args, &CallContext::top_level());
    assert!(!is_error, "the batch applies");
    content.len()
}

/// The engine alone on the same batch.
#[inline(never)]
fn engine_call(doc: &Document, ops: &[EditOp]) -> usize {
    apply(doc, ops, &EditOptions::default()).expect("the batch applies").document.line_count()
}

fn edit_tool(c: &mut Criterion) {
    let pristine = hundred_k_lines();
    let pristine_doc = Document::parse(pristine.clone());
    let dir = tempfile::tempdir().expect("a scratch directory");
    let file = dir.path().join("hundred_k.rs");
    // A fresh stateless session per run, as for a lone `hashline edit` call; with `warm`,
    // it already keeps the tree of the pristine file.
    let session = |warm: bool| {
        let session =
            Session::new(SessionConfig::builder().root(dir.path()).stateful(false).build()).expect("a session");
        if warm {
            let key = session.resolve(&file.to_string_lossy()).expect("the file resolves").key;
            let limits = ParseLimits { max_time: std::time::Duration::from_secs(60), ..ParseLimits::DEFAULT };
            let parsed = parse_document(LanguageId::Rust, &pristine_doc, limits).expect("it parses");
            let census = census(&parsed.tree, &pristine_doc, parsed.text_start);
            session.syntax_trees().put(&key, &pristine, CachedTree { parsed, census });
        }
        session
    };
    let edits = edits(&pristine_doc);
    let args = |mode: &str| json!({ "path": file.to_string_lossy(), "edits": edits, "syntaxValidate": mode });
    let restore = |path: &Path| std::fs::write(path, &pristine).expect("the file restores");

    restore(&file);
    let check = execute::<EditTool>(&session(false), args("warn"), &CallContext::top_level());
    assert!(!check.is_error, "the batch applies: {}", check.text());

    let ops = ops(&pristine_doc);
    assert_eq!(engine_call(&pristine_doc, &ops), LINES + EDITS / 3 + 2 * (EDITS / 3));

    let mut group = c.benchmark_group("edit_tool");
    group.sample_size(20);
    group.bench_function("engine_apply_1000_edits_100k_lines", |b| {
        b.iter(|| engine_call(black_box(&pristine_doc), black_box(&ops)))
    });
    for (name, mode, warm) in [
        ("tool_1000_edits_100k_lines/syntax_off", "off", false),
        ("tool_1000_edits_100k_lines/syntax_warn", "warn", false),
        ("tool_1000_edits_100k_lines/syntax_warn_kept_tree", "warn", true),
    ] {
        group.bench_function(name, |b| {
            b.iter_batched(
                || {
                    restore(&file);
                    (session(warm), args(mode))
                },
                |(session, args)| {
                    let result = execute::<EditTool>(&session, black_box(args), &CallContext::top_level());
                    (session, result)
                },
                BatchSize::PerIteration,
            )
        });
    }
    // The whole JSON call as each front end finishes it (syntax check off).
    for (name, mcp) in [
        ("tool_1000_edits_100k_lines/syntax_off_json_line", false),
        ("tool_1000_edits_100k_lines/syntax_off_mcp", true),
    ] {
        group.bench_function(name, |b| {
            b.iter_batched(
                || {
                    restore(&file);
                    (session(false), args("off"))
                },
                |(session, args)| {
                    let bytes = if mcp {
                        mcp_call(&session, black_box(args)).len()
                    } else {
                        json_call(&session, black_box(args)).len()
                    };
                    (session, bytes)
                },
                BatchSize::PerIteration,
            )
        });
    }
    // The same call for a front end that needs only the text (the CLI's text mode): no
    // `diffData`, patch, anchor values or diff cards.
    group.bench_function("tool_1000_edits_100k_lines/syntax_off_text_only", |b| {
        b.iter_batched(
            || {
                restore(&file);
                (session(false), args("off"))
            },
            |(session, args)| {
                let blocks = text_call(&session, black_box(args));
                (session, blocks)
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

/// Lines of the large file `read` is measured on.
const READ_LINES: usize = 1 << 20;

fn read_tool(c: &mut Criterion) {
    let text = String::from_utf8(hundred_k_lines()).expect("the lines are UTF-8");
    let large: String = text.lines().cycle().take(READ_LINES).flat_map(|l| [l, "\n"]).collect();
    let dir = tempfile::tempdir().expect("a scratch directory");
    let file = dir.path().join("large.txt");
    std::fs::write(&file, large).expect("the file is written");
    let path = file.to_string_lossy().into_owned();
    let session =
        || Session::new(SessionConfig::builder().root(dir.path()).stateful(false).build()).expect("a session");
    let mut group = c.benchmark_group("read_tool");
    group.sample_size(20);
    for (name, args) in [
        ("window_20_rows_of_1m_lines", json!({ "path": path, "offset": READ_LINES / 2, "limit": 20 })),
        ("default_read_of_1m_lines", json!({ "path": path })),
    ] {
        let check = execute::<ReadTool>(&session(), args.clone(), &CallContext::top_level());
        assert!(!check.is_error, "the read succeeds: {}", check.text());
        group.bench_function(name, |b| {
            b.iter_batched(
                || (session(), args.clone()),
                |(session, args)| {
                    let result = execute::<ReadTool>(&session, black_box(args), &CallContext::top_level());
                    (session, result)
                },
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, edit_tool, read_tool);
criterion_main!(benches);
