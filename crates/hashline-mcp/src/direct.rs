//! `structuredContent` written straight from the typed value (issue 23).
//!
//! rmcp's `CallToolResult` holds `structuredContent` as a `serde_json::Value`; building that
//! tree for a read of 1,400 lines (five fields per line) and writing it out again cost more
//! than the read itself. On the stdio transport the server instead hands rmcp a stand-in
//! object, `{MARK: "<the JSON text>"}`, whose one string holds the value's JSON as
//! [`LazyJson::write_json`] writes it from the typed value; the transport swaps the text
//! back in when it writes the response line ([`encode_response`]). The bytes are those the
//! `Value` path writes (a test checks it for every fixture result).
//!
//! The stand-in is an object, so that rmcp keeps it for peers on older protocol versions
//! (which drop a `structuredContent` that is not one). The HTTP transport serializes inside
//! rmcp, where nothing can swap it back: it keeps the `Value` path.

use hashline::tools::structured::LazyJson;
use rmcp::model::{JsonRpcMessage, ServerJsonRpcMessage, ServerResult};
use serde_json::{Map, Value};

/// The stand-in's one key. A NUL opens and closes it: no result of ours has a key like it.
const MARK: &str = "\u{0}hashline-structured-content\u{0}";

/// The stand-in for `value` in a `CallToolResult`.
pub(crate) fn stand_in(value: &LazyJson) -> Value {
    let mut json = Vec::with_capacity(4096);
    value.write_json(&mut json);
    match String::from_utf8(json) {
        Ok(text) => Value::Object(Map::from_iter([(MARK.to_owned(), Value::String(text))])),
        // JSON text is UTF-8; should it ever not be, the value goes the slow way.
        Err(_) => value.value().clone(),
    }
}

/// The JSON text held by a stand-in, taken out of it (which is left `{MARK: null}`).
fn take_text(message: &mut ServerJsonRpcMessage) -> Option<String> {
    let JsonRpcMessage::Response(response) = message else { return None };
    let ServerResult::CallToolResult(result) = &mut response.result else { return None };
    let Some(Value::Object(object)) = &mut result.structured_content else { return None };
    if object.len() != 1 {
        return None;
    }
    match object.get_mut(MARK) {
        Some(slot @ Value::String(_)) => match std::mem::take(slot) {
            Value::String(text) => Some(text),
            _ => None,
        },
        _ => None,
    }
}

/// `message` as JSON, with a stand-in's text written in its place.
pub(crate) fn encode_response(mut message: ServerJsonRpcMessage) -> serde_json::Result<Vec<u8>> {
    let Some(text) = take_text(&mut message) else { return serde_json::to_vec(&message) };
    let mut rest = Vec::with_capacity(8192);
    serde_json::to_writer(&mut rest, &message)?;
    // Where the stand-in was written. The key's quotes are the JSON's own (a quote inside
    // a string is written `\"`), so these bytes occur nowhere else; the field comes after
    // the content blocks, so the search starts from the end.
    let needle = stand_in_bytes();
    let Some(at) = memchr::memmem::rfind(&rest, needle.as_bytes()) else {
        // Unreachable: the stand-in was just written. Put the value back the slow way.
        let value: Value = serde_json::from_str(&text)?;
        if let JsonRpcMessage::Response(response) = &mut message
            && let ServerResult::CallToolResult(result) = &mut response.result
        {
            result.structured_content = Some(value);
        }
        return serde_json::to_vec(&message);
    };
    let key = at + "\"structuredContent\":".len();
    let end = at + needle.len();
    // One allocation, with room for the line's newline.
    let mut out = Vec::with_capacity(rest.len() - (end - key) + text.len() + 1);
    out.extend_from_slice(&rest[..key]);
    out.extend_from_slice(text.as_bytes());
    out.extend_from_slice(&rest[end..]);
    Ok(out)
}

/// `"structuredContent":{MARK:null}` as serde_json writes it.
fn stand_in_bytes() -> String {
    let key = serde_json::to_string(MARK).unwrap_or_default();
    format!("\"structuredContent\":{{{key}:null}}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{CallToolResult, ContentBlock, JsonRpcResponse, JsonRpcVersion2_0, RequestId};
    use serde_json::json;

    fn response(structured: Value, text: &str) -> ServerJsonRpcMessage {
        let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
        result.structured_content = Some(structured);
        JsonRpcMessage::Response(JsonRpcResponse {
            jsonrpc: JsonRpcVersion2_0,
            id: RequestId::Number(7),
            result: ServerResult::CallToolResult(result),
        })
    }

    #[test]
    fn the_text_goes_where_the_value_would_be() {
        let value = json!({"tool": "read", "ok": true, "lines": [{"raw": "a \"q\" \u{0} é"}], "n": 1.5});
        let typed = LazyJson::typed(value.clone());
        // Text that looks like the stand-in (written escaped) stays text.
        let text = format!("row {}{MARK} \"structuredContent\":{{", stand_in_bytes());
        let slow = serde_json::to_vec(&response(value, &text)).expect("json");
        let fast = encode_response(response(stand_in(&typed), &text)).expect("json");
        assert_eq!(String::from_utf8(fast).expect("utf-8"), String::from_utf8(slow).expect("utf-8"));
    }

    #[test]
    fn other_messages_and_plain_objects_are_written_as_they_are() {
        let plain = response(json!({MARK: "not ours: two keys", "x": 1}), "t");
        assert_eq!(encode_response(plain.clone()).expect("json"), serde_json::to_vec(&plain).expect("json"));
        let number = response(json!({MARK: 5}), "t");
        assert_eq!(encode_response(number.clone()).expect("json"), serde_json::to_vec(&number).expect("json"));
    }
}
