//! The MCP line transport: every line is passed on, answered, or ignored by rule; an
//! answer is a JSON-RPC error with an `id` member that is null or the request's own id.

use hashline_mcp::fuzzing::{LineOutcome, classify_line};
use serde_json::Value;

/// Classifies the input as one line of the stdio transport.
pub fn mcp_line(data: &[u8]) {
    let outcome = classify_line(data);
    let trimmed = trim(data);
    let parsed = serde_json::from_slice::<Value>(trimmed).ok();
    match &outcome {
        LineOutcome::Reply(bytes) => {
            assert_eq!(bytes.last(), Some(&b'\n'), "a reply is one line");
            let reply: Value = serde_json::from_slice(bytes).expect("a reply is JSON");
            assert_eq!(reply["jsonrpc"], "2.0");
            let code = reply["error"]["code"].as_i64().expect("an error code");
            assert!([-32700, -32600, -32602].contains(&code), "{reply}");
            let id = reply.get("id").expect("a reply has an id member");
            match &parsed {
                None => assert_eq!((code, id), (-32700, &Value::Null), "not JSON: a parse error"),
                Some(request) if !id.is_null() => assert_eq!(same_id(&request["id"]), same_id(id), "{reply}"),
                Some(_) => {}
            }
        }
        LineOutcome::Message(message) => {
            let request = parsed.as_ref().expect("a message passed on was JSON");
            assert_eq!(message["method"], request["method"], "the method passes unchanged");
            if !request["id"].is_null() {
                assert_eq!(same_id(&message["id"]), same_id(&request["id"]), "the id passes unchanged");
            }
        }
        LineOutcome::Ignore => {
            if let Some(Value::Object(object)) = &parsed {
                // Only notifications and responses are ignored: a member `id` on anything
                // else is answered.
                let response = object.contains_key("result") || object.contains_key("error");
                assert!(!object.contains_key("id") || response, "a request was ignored: {object:?}");
            } else {
                assert!(
                    trimmed.iter().all(u8::is_ascii_whitespace),
                    "only blank lines are ignored when not JSON objects"
                );
            }
        }
    }
}

/// An id as a comparable value: integers written as `2.0` equal `2`.
fn same_id(id: &Value) -> Value {
    match id.as_f64() {
        Some(f) if id.is_number() && f.fract() == 0.0 && f.abs() < 9.0e15 => Value::from(f as i64),
        _ => id.clone(),
    }
}

fn trim(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line)
}
