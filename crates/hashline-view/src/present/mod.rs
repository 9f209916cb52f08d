//! Presenters: pure, total functions from a call's arguments (and its durable result) to a
//! view. They run identically on live results and on replay from a session log; `None` always
//! means "render the raw content".

mod args;
mod mutate;
mod read;
mod search;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{ContentBlock, ToolCallView, ToolResultView};

/// The durable projection of a tool result that a presenter receives: what a session log keeps
/// of it (`{content, isError, meta?}`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ToolResultRecord {
    /// What the model saw (the error text for an error result).
    pub content: Vec<ContentBlock>,
    /// Whether the call failed.
    #[serde(default)]
    pub is_error: bool,
    /// The tool's `presentationMeta`, present only for top-level calls of tools that define one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
}

/// The pending view of a call to `tool` with `args`, or `None` for the generic presentation
/// (unknown tool, or arguments that do not fit the tool's parameters).
///
/// Integer arguments may be JSON numbers or base-10 strings (`"2"`); an optional `null` counts
/// as omitted. Never panics.
///
/// ```
/// use hashline_view::{ToolCallView, present_call};
/// use serde_json::json;
///
/// let Some(ToolCallView::Generic(view)) =
///     present_call("read", &json!({"path": "src/lib.rs", "offset": "5", "limit": 4}))
/// else {
///     panic!("a read call has a generic view");
/// };
/// assert_eq!(view.title, "Read src/lib.rs (5 - 8)");
/// ```
pub fn present_call(tool: &str, args: &Value) -> Option<ToolCallView> {
    match tool {
        "read" => read::call(args),
        "write" => mutate::write_call(args),
        "edit" => mutate::edit_call(args),
        "ls" => search::ls_call(args),
        "find" => search::find_call(args),
        "grep" => search::grep_call(args, "Grep"),
        "ast_search" => search::grep_call(args, "Search"),
        _ => None,
    }
}

/// The completed view of a call to `tool` with `args` that returned `result`, or `None` to
/// render the raw result content (unknown tool, mismatched arguments, an error result, or a
/// meta that is absent or malformed where the view needs it). Never panics.
///
/// ```
/// use hashline_view::{ContentBlock, ToolResultRecord, ToolResultView, present_result};
/// use serde_json::json;
///
/// let result = ToolResultRecord {
///     content: vec![ContentBlock::text("Wrote a.txt")],
///     is_error: false,
///     meta: Some(json!({"diffs": []})),
/// };
/// let view = present_result("write", &json!({"path": "a.txt", "content": "x"}), &result);
/// assert!(matches!(view, Some(ToolResultView::Diff(d)) if d.diffs[0].new_text == "x"));
/// ```
pub fn present_result(tool: &str, args: &Value, result: &ToolResultRecord) -> Option<ToolResultView> {
    match tool {
        "read" => read::result(args, result),
        "write" => mutate::write_result(args, result),
        "edit" => mutate::edit_result(args, result),
        "ls" => search::ls_result(args, result),
        "find" => search::find_result(args, result),
        "grep" | "ast_search" => search::grep_result(args, result),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn unknown_tools_have_no_views() {
        let result = ToolResultRecord {
            content: vec![ContentBlock::text("ok")],
            is_error: false,
            meta: Some(json!({"diffs": [{"path": "a", "oldText": null, "newText": "b"}]})),
        };
        let args = json!({"path": "a", "content": "b", "pattern": "x"});
        for tool in ["bash", "Read", "", "web_fetch"] {
            assert_eq!(present_call(tool, &args), None);
            assert_eq!(present_result(tool, &args, &result), None);
        }
    }

    #[test]
    fn record_uses_the_log_field_names() {
        let record: ToolResultRecord = serde_json::from_value(json!({"content": [{"type": "text", "text": "x"}]}))
            .expect("a record without isError and meta");
        assert!(!record.is_error && record.meta.is_none());
        let record = ToolResultRecord { is_error: true, ..record };
        assert_eq!(
            serde_json::to_value(&record).expect("serializable"),
            json!({"content": [{"type": "text", "text": "x"}], "isError": true})
        );
    }
}
