//! Drawing cards with `hashline-view` alone: a UI receives a tool's name, its arguments and
//! the durable part of its result (from a live call or a session log), asks the presenters
//! for views, and draws them — here as text.
//!
//! Run with `cargo run -p hashline-view --example cards`.

use hashline_view::{SearchResultView, ToolCallView, ToolResultRecord, ToolResultView, present_call, present_result};
use serde_json::{Value, json};

/// Three calls as a session log keeps them: name, arguments, `{content, isError, meta}`.
fn calls() -> Vec<(&'static str, Value, Value)> {
    vec![
        (
            "read",
            json!({"path": "src/lib.rs", "offset": 1, "limit": 2}),
            json!({"content": [{"type": "text", "text": "1:f9b|fn main() {\n2:78b|    println!(\"hello\");"}],
                   "isError": false,
                   "meta": {"path": "/work/src/lib.rs", "offset": 1, "totalLines": 3, "lang": "rs", "lines": [
                       {"number": 1, "text": "fn main() {", "hash": "f9b"},
                       {"number": 2, "text": "    println!(\"hello\");", "hash": "78b"}]}}),
        ),
        (
            "edit",
            json!({"path": "src/lib.rs", "edits": [{"set_line": {"anchor": "2:78b", "new_text": "    run();"}}]}),
            json!({"content": [{"type": "text", "text": "Edited src/lib.rs (1 change, +1 -1 line)"}],
                   "isError": false,
                   "meta": {"diffs": [{"path": "src/lib.rs", "oldText": "fn main() {\n    println!(\"hello\");\n}",
                                       "newText": "fn main() {\n    run();\n}", "oldStart": 1, "newStart": 1}]}}),
        ),
        (
            "find",
            json!({"pattern": "*.toml"}),
            json!({"content": [{"type": "text", "text": "Found nothing"}], "isError": true}),
        ),
    ]
}

fn main() -> Result<(), serde_json::Error> {
    for (tool, args, result) in calls() {
        let record: ToolResultRecord = serde_json::from_value(result)?;
        let title = match present_call(tool, &args) {
            Some(ToolCallView::Generic(view)) => view.title,
            Some(ToolCallView::Diff(view)) => view.title,
            Some(ToolCallView::Terminal(view)) => view.title,
            None => tool.to_owned(),
        };
        println!("┌ {title}");
        match present_result(tool, &args, &record) {
            Some(ToolResultView::Read(read)) => {
                for line in &read.lines {
                    println!("│ {:>4} {}", line.number, line.text);
                }
                println!("└ {} of {} lines, language {:?}", read.lines.len(), read.total_lines, read.lang);
            }
            Some(ToolResultView::Diff(diff)) => {
                for hunk in &diff.diffs {
                    for old in hunk.old_text.as_deref().unwrap_or("").lines() {
                        println!("│ - {old}");
                    }
                    for new in hunk.new_text.lines() {
                        println!("│ + {new}");
                    }
                }
                println!("└ {} hunk(s)", diff.diffs.len());
            }
            Some(ToolResultView::Search(SearchResultView::Paths(paths))) => println!("└ {:?}", paths.paths),
            Some(other) => println!("└ {}", serde_json::to_string(&other)?),
            // `None` means "render the raw content" (errors, unknown tools, old logs).
            None => {
                for block in &record.content {
                    println!("│ {}", block.as_text().unwrap_or("[image]"));
                }
                println!("└ raw content{}", if record.is_error { " (error)" } else { "" });
            }
        }
    }
    Ok(())
}
