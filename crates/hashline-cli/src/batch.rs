//! `batch`: one JSON object `{"tool", "args", "callId"?, "parentCallId"?}` per input line,
//! one result line per call, all in one session. No line can end the batch: a line that
//! is not UTF-8 or not JSON, or is too long, gets an `invalid-type` result, and a tool
//! that panics gets an `internal-error` result; the batch goes on with the next line.

use std::io::{BufRead, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};

use anyhow::{Context, Result};
use hashline::{CallContext, ErrorCode, ToolError, ToolResult};
use serde_json::Value;

/// The longest batch line, in bytes (as for an MCP message); a longer one is skipped
/// without being kept in memory.
pub const MAX_LINE: usize = 64 * 1024 * 1024;

/// What the batch reports back.
pub struct Outcome {
    /// Whether any line's result was an error.
    pub failed: bool,
}

/// Runs every line of `input` through `execute`, writing one JSON result line each to
/// `output` (flushed per line).
pub fn run<R, W, E>(mut input: R, mut output: W, mut execute: E) -> Result<Outcome>
where
    R: BufRead,
    W: Write,
    E: FnMut(&str, Value, &CallContext) -> ToolResult,
{
    let mut failed = false;
    let mut line = Vec::new();
    loop {
        line.clear();
        let result = match read_line(&mut input, &mut line).context("cannot read standard input")? {
            Line::Eof => break,
            Line::TooLong => invalid(format!("Invalid batch line: longer than the limit of {MAX_LINE} bytes.")),
            Line::Complete => match std::str::from_utf8(&line) {
                Err(err) => invalid(format!(
                    "Invalid batch line: not valid UTF-8 (invalid byte at offset {}).",
                    err.valid_up_to()
                )),
                Ok(text) if text.trim().is_empty() => continue,
                Ok(text) => match serde_json::from_str::<Value>(text) {
                    Ok(request) => call(&request, &mut execute),
                    Err(err) => invalid(format!("Invalid batch line: {err}.")),
                },
            },
        };
        failed |= result.is_error;
        writeln!(output, "{}", result.to_json())?;
        output.flush()?;
    }
    Ok(Outcome { failed })
}

/// Runs one request; a panic in the tool becomes that line's `internal-error` result.
fn call<E>(request: &Value, execute: &mut E) -> ToolResult
where
    E: FnMut(&str, Value, &CallContext) -> ToolResult,
{
    let tool = request.get("tool").and_then(Value::as_str).unwrap_or("");
    let args = request.get("args").cloned().unwrap_or(Value::Null);
    let ctx = CallContext {
        call_id: request.get("callId").and_then(Value::as_str).map(str::to_owned),
        parent_call_id: request.get("parentCallId").and_then(Value::as_str).map(str::to_owned),
        ..Default::default()
    };
    match catch_unwind(AssertUnwindSafe(|| execute(tool, args, &ctx))) {
        Ok(result) => result,
        Err(panic) => ToolResult::failure(tool, &ToolError::panicked(tool, panic.as_ref())),
    }
}

fn invalid(message: String) -> ToolResult {
    ToolResult::failure("batch", &ToolError::new(ErrorCode::InvalidType, message))
}

enum Line {
    Complete,
    TooLong,
    Eof,
}

/// Reads one `\n`-terminated line (a last line without one counts) into `line`, without
/// its terminator; a line longer than [`MAX_LINE`] is consumed without being kept.
fn read_line(input: &mut impl BufRead, line: &mut Vec<u8>) -> std::io::Result<Line> {
    let mut too_long = false;
    let mut seen = false;
    loop {
        let available = match input.fill_buf() {
            Ok(available) => available,
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        };
        if available.is_empty() {
            return Ok(match (too_long, seen) {
                (true, _) => Line::TooLong,
                (false, false) => Line::Eof,
                (false, true) => Line::Complete,
            });
        }
        seen = true;
        let newline = memchr(available);
        let end = newline.unwrap_or(available.len());
        if !too_long {
            if line.len() + end > MAX_LINE {
                too_long = true;
                line.clear();
            } else {
                line.extend_from_slice(&available[..end]);
            }
        }
        let take = newline.map_or(end, |at| at + 1);
        input.consume(take);
        if newline.is_some() {
            return Ok(if too_long { Line::TooLong } else { Line::Complete });
        }
    }
}

fn memchr(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == b'\n')
}

#[cfg(test)]
mod tests {
    use super::*;
    use hashline::view::ContentBlock;

    fn ok(tool: &str) -> ToolResult {
        let mut result = ToolResult::failure(tool, &ToolError::new(ErrorCode::FsError, "x"));
        result.is_error = false;
        result.content = vec![ContentBlock::Text { text: format!("ran {tool}") }];
        result.details.ptc_value = serde_json::json!({"tool": tool, "ok": true}).into();
        result
    }

    fn lines(output: &[u8]) -> Vec<Value> {
        output
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).expect("json"))
            .collect()
    }

    fn code(result: &Value) -> &str {
        result["details"]["ptcValue"]["error"]["code"].as_str().unwrap_or("")
    }

    #[test]
    fn a_panicking_tool_gives_an_internal_error_for_its_line_and_the_batch_goes_on() {
        let input = b"{\"tool\":\"read\"}\n{\"tool\":\"boom\"}\n{\"tool\":\"ls\"}\n";
        let mut output = Vec::new();
        let outcome = run(&input[..], &mut output, |tool, _args, _ctx| {
            if tool == "boom" {
                panic!("the tool exploded\nat its second line");
            }
            ok(tool)
        })
        .expect("batch");
        assert!(outcome.failed);
        let results = lines(&output);
        assert_eq!(results.len(), 3);
        assert_eq!(results[0]["content"][0]["text"], "ran read");
        assert_eq!(code(&results[1]), "internal-error");
        assert_eq!(results[1]["details"]["ptcValue"]["tool"], "boom");
        insta::assert_snapshot!(results[1]["content"][0]["text"].as_str().unwrap_or(""), @"Internal error: boom failed unexpectedly (the tool exploded). This is a bug in hashline. A file it was writing holds its old or its new bytes, never a mix; re-read the files this call names before editing them.");
        assert_eq!(results[2]["content"][0]["text"], "ran ls");
    }

    #[test]
    fn bad_lines_get_invalid_type_results_and_the_batch_goes_on() {
        let mut input = b"{\"tool\":\"read\"}\n\n".to_vec();
        input.extend_from_slice(b"{\"tool\":\"r\xffead\"}\n");
        input.extend_from_slice(b"not json\r\n");
        input.extend_from_slice(b"{\"tool\":\"ls\"}");
        let mut output = Vec::new();
        let outcome = run(&input[..], &mut output, |tool, _, _| ok(tool)).expect("batch");
        assert!(outcome.failed);
        let results = lines(&output);
        let summary: Vec<(String, String)> = results
            .iter()
            .map(|r| (code(r).to_owned(), r["content"][0]["text"].as_str().unwrap_or("").to_owned()))
            .collect();
        insta::assert_debug_snapshot!(summary, @r#"
        [
            (
                "",
                "ran read",
            ),
            (
                "invalid-type",
                "Invalid batch line: not valid UTF-8 (invalid byte at offset 10).",
            ),
            (
                "invalid-type",
                "Invalid batch line: expected ident at line 1 column 2.",
            ),
            (
                "",
                "ran ls",
            ),
        ]
        "#);
    }

    #[test]
    fn a_line_over_the_limit_is_skipped_unkept() {
        let mut input = vec![b' '; MAX_LINE + 10];
        input.extend_from_slice(b"\n{\"tool\":\"ls\"}\n");
        let mut output = Vec::new();
        run(&input[..], &mut output, |tool, _, _| ok(tool)).expect("batch");
        let results = lines(&output);
        assert_eq!(results.len(), 2);
        assert_eq!(code(&results[0]), "invalid-type");
        assert_eq!(results[1]["content"][0]["text"], "ran ls");
    }
}
