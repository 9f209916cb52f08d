//! The session log (SPEC §9.1): JSONL, one event per line — a `session` header, then
//! `tool/call` and `tool/result` events as calls happen. A result is stored as what the
//! model saw plus what presenters need (content, error flag and code, `meta` for
//! top-level calls); the structured value is never stored, so replay reproduces views,
//! not programs' values. `docs/decisions/001-session-log.md` says why.

use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

use hashline_view::{ContentBlock, ToolResultRecord};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::result::ToolResult;
use crate::structured::LazyJson;

/// The log format's version.
pub const LOG_VERSION: u32 = 1;

/// One line of the log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum LogEvent {
    /// The header: the format version and the session's working directory.
    #[serde(rename = "session")]
    Session {
        /// [`LOG_VERSION`].
        version: u32,
        /// The working directory (absolute).
        root: String,
    },
    /// A call, as it started.
    #[serde(rename = "tool/call")]
    Call {
        /// The call's id.
        #[serde(rename = "callId")]
        call_id: String,
        /// The tool's name.
        name: String,
        /// The arguments, as given.
        args: Value,
        /// The call this one ran inside (a nested, program-driven call).
        #[serde(rename = "parentCallId", default, skip_serializing_if = "Option::is_none")]
        parent_call_id: Option<String>,
    },
    /// A call's result.
    #[serde(rename = "tool/result")]
    Result {
        /// The call's id.
        #[serde(rename = "callId")]
        call_id: String,
        /// What was returned.
        result: LoggedResult,
    },
}

/// A result as logged.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoggedResult {
    /// What the model saw.
    pub content: Vec<ContentBlock>,
    /// Whether the call failed.
    #[serde(default)]
    pub is_error: bool,
    /// The error code, for a failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<LoggedError>,
    /// The presentation meta (top-level calls of tools that define one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
    /// The change the call committed (`edit`, `write`; docs/protocol.md §4.10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change_id: Option<String>,
    /// For a revert: the change it reverted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverts: Option<String>,
}

/// The error part of a logged result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoggedError {
    /// The stable error code.
    pub code: String,
}

impl LoggedResult {
    /// The logged form of a result.
    pub fn of(result: &ToolResult) -> Self {
        Self {
            content: result.content.clone(),
            is_error: result.is_error,
            error: result.error_code().map(|code| LoggedError { code: code.to_owned() }),
            meta: result.meta.clone().map(LazyJson::into_value),
            change_id: text_field(result, "changeId"),
            reverts: text_field(result, "reverts"),
        }
    }

    /// What presenters receive.
    pub fn record(&self) -> ToolResultRecord {
        ToolResultRecord { content: self.content.clone(), is_error: self.is_error, meta: self.meta.clone() }
    }
}

/// A string field of a successful result's value.
fn text_field(result: &ToolResult, name: &str) -> Option<String> {
    match result.is_error {
        true => None,
        false => result.ptc_value().get(name).and_then(Value::as_str).map(str::to_owned),
    }
}

/// Appends events to a log, one JSON line each, flushed as it goes.
pub struct LogWriter {
    out: Mutex<Box<dyn Write + Send>>,
}

impl std::fmt::Debug for LogWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LogWriter")
    }
}

impl LogWriter {
    /// A log written to `out`.
    pub fn new(out: impl Write + Send + 'static) -> Self {
        Self { out: Mutex::new(Box::new(out)) }
    }

    /// A log appended to a file (created if missing). It must be a regular file: a FIFO,
    /// socket or device is refused at once (the open never waits).
    pub fn to_file(path: &Path) -> std::io::Result<Self> {
        let file = hashline_fs::open::open_append_regular(path)?;
        Ok(Self::new(std::io::BufWriter::new(file)))
    }

    /// Appends one event.
    pub fn append(&self, event: &LogEvent) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(event).map_err(std::io::Error::other)?;
        line.push(b'\n');
        let mut out = self.out.lock().unwrap_or_else(|p| p.into_inner());
        out.write_all(&line)?;
        out.flush()
    }
}

/// What a log holds: its readable events, and where it was damaged, if it was.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReadLog {
    /// Events up to the damage (lines that are JSON but no known event are skipped).
    pub events: Vec<LogEvent>,
    /// Lines that are JSON objects but not events this version knows (kept verbatim).
    pub unknown: Vec<Value>,
    /// The first line that could not be read, if any; reading stopped there.
    pub damage: Option<LogDamage>,
}

/// Where and why a log could not be read further.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("session log line {line} is truncated or corrupted ({reason}); {events} event(s) before it were read")]
pub struct LogDamage {
    /// 1-based line number.
    pub line: usize,
    /// The parser's complaint.
    pub reason: String,
    /// Events read before the damage.
    pub events: usize,
}

/// Reads a log back. Never panics: a truncated or corrupted line stops reading with a
/// [`LogDamage`] saying where; everything before it is returned.
///
/// ```
/// use hashline_tools::log::read_log;
/// let log = read_log("{\"type\":\"session\",\"version\":1,\"root\":\"/w\"}\n{\"type\":\"tool/ca");
/// assert_eq!(log.events.len(), 1);
/// assert_eq!(log.damage.unwrap().line, 2);
/// ```
pub fn read_log(text: &str) -> ReadLog {
    let mut log = ReadLog::default();
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(line) {
            Ok(value) => match serde_json::from_value::<LogEvent>(value.clone()) {
                Ok(event) => log.events.push(event),
                Err(_) => log.unknown.push(value),
            },
            Err(err) => {
                log.damage = Some(LogDamage { line: index + 1, reason: err.to_string(), events: log.events.len() });
                break;
            }
        }
    }
    log
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> String {
        let events = [
            LogEvent::Session { version: LOG_VERSION, root: "/w".into() },
            LogEvent::Call {
                call_id: "c1".into(),
                name: "read".into(),
                args: serde_json::json!({"path": "a"}),
                parent_call_id: None,
            },
            LogEvent::Result {
                call_id: "c1".into(),
                result: LoggedResult {
                    content: vec![ContentBlock::Text { text: "1:d05|".into() }],
                    is_error: false,
                    error: None,
                    meta: Some(serde_json::json!({"path": "/w/a"})),
                    change_id: None,
                    reverts: None,
                },
            },
        ];
        events.iter().map(|e| serde_json::to_string(e).expect("json") + "\n").collect()
    }

    #[test]
    fn round_trips_and_stops_at_damage() {
        let text = sample();
        let log = read_log(&text);
        assert_eq!((log.events.len(), log.damage.clone()), (3, None));
        let cut = &text[..text.len() - 10];
        let damaged = read_log(cut);
        assert_eq!(damaged.events.len(), 2);
        let damage = damaged.damage.expect("damage");
        assert_eq!(damage.line, 3);
        assert!(damage.to_string().starts_with("session log line 3 is truncated or corrupted"), "{damage}");
    }

    #[test]
    fn unknown_events_are_kept_aside() {
        let log = read_log("{\"type\":\"turn/start\"}\n{\"type\":\"tool/call\",\"callId\":1}\n");
        assert_eq!((log.events.len(), log.unknown.len(), log.damage), (0, 2, None));
    }

    #[test]
    fn the_writer_appends_lines() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("log.jsonl");
        let writer = LogWriter::to_file(&path).expect("open");
        writer.append(&LogEvent::Session { version: 1, root: "/w".into() }).expect("append");
        writer.append(&LogEvent::Session { version: 1, root: "/v".into() }).expect("append");
        let text = std::fs::read_to_string(&path).expect("read");
        assert_eq!(read_log(&text).events.len(), 2);
    }
}
