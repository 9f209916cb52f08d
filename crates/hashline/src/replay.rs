//! Replay (SPEC §9.1): the views of a session, rebuilt from its log alone — no file
//! system, no tools — by the same pure presenters the live path uses.

use hashline_tools::log::{LogEvent, ReadLog};
use hashline_view::{ToolCallView, ToolResultView};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The view of one logged event: a call's pending card or a result's completed card.
/// `None` means "render the raw content" (and nested calls never get cards).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "for", rename_all = "lowercase")]
pub enum EventView {
    /// A `tool/call` event.
    Call {
        /// The call's id.
        #[serde(rename = "callId")]
        call_id: String,
        /// Its pending view.
        view: Option<ToolCallView>,
    },
    /// A `tool/result` event.
    Result {
        /// The call's id.
        #[serde(rename = "callId")]
        call_id: String,
        /// Its completed view.
        view: Option<ToolResultView>,
    },
}

/// The pending view of a call as the live path draws it (nested calls get none).
pub fn call_view(name: &str, args: &Value, nested: bool) -> Option<ToolCallView> {
    if nested { None } else { hashline_view::present_call(name, args) }
}

/// Rebuilds every event's view from a log. A result whose call is missing from the log
/// (or whose entry is malformed) degrades to `None`, never to an error.
///
/// ```
/// use hashline::replay::{replay, EventView};
/// use hashline::tools::log::read_log;
/// let log = read_log(concat!(
///     "{\"type\":\"session\",\"version\":1,\"root\":\"/w\"}\n",
///     "{\"type\":\"tool/call\",\"callId\":\"c1\",\"name\":\"read\",\"args\":{\"path\":\"a.txt\"}}\n",
///     "{\"type\":\"tool/result\",\"callId\":\"c1\",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"1:d05|\"}],\"isError\":false}}\n",
/// ));
/// let views = replay(&log);
/// assert!(matches!(&views[0], EventView::Call { view: Some(_), .. }));
/// assert!(matches!(&views[1], EventView::Result { view: None, .. }), "no meta: raw content");
/// ```
pub fn replay(log: &ReadLog) -> Vec<EventView> {
    let mut calls: Vec<(&str, &str, &Value, bool)> = Vec::new();
    let mut views = Vec::new();
    for event in &log.events {
        match event {
            LogEvent::Session { .. } => {}
            LogEvent::Call { call_id, name, args, parent_call_id } => {
                let nested = parent_call_id.is_some();
                calls.push((call_id, name, args, nested));
                views.push(EventView::Call { call_id: call_id.clone(), view: call_view(name, args, nested) });
            }
            LogEvent::Result { call_id, result } => {
                let call = calls.iter().rev().find(|(id, ..)| *id == call_id.as_str());
                let view = call.and_then(|(_, name, args, nested)| {
                    if *nested { None } else { hashline_view::present_result(name, args, &result.record()) }
                });
                views.push(EventView::Result { call_id: call_id.clone(), view });
            }
        }
    }
    views
}
