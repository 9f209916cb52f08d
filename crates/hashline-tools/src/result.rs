//! What a tool call returns: the typed value, the model's text, the presentation meta,
//! and the JSON projection of SPEC §4.1 (`ToolResult`).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use hashline_view::ContentBlock;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::budget::Budget;
use crate::error::{ErrorCode, ToolError};
use crate::structured::LazyJson;
use crate::warning::Warning;

/// Who made a call: a top-level (model-visible) call or a nested one (`parentCallId`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CallContext {
    /// The call's id, when the caller has one.
    pub call_id: Option<String>,
    /// The id of the call this one runs inside; `None` for a top-level call.
    pub parent_call_id: Option<String>,
    /// Raised by the caller to cancel the call (an MCP `notifications/cancelled`): a tool
    /// that writes checks it just before committing, and then writes nothing.
    pub cancel: CancelFlag,
    /// The caller uses only what the model sees ([`execute_content`](crate::run::execute_content), the CLI's text
    /// mode): a tool may leave out of its value and meta what only the structured
    /// projection shows (per-line values, `diffData`, the patch). Text, ledger and files
    /// are the same either way.
    pub text_only: bool,
    /// The model sees the result's text and nothing else (the CLI's text mode, whether or
    /// not a session log has the value built too; [`execute_content`](crate::run::execute_content)):
    /// the ledger then holds only the rows that text shows (SPEC §7.1, every row shown to
    /// the model). It differs only for a `grep` whose records run past its text's budget:
    /// the rows past it are not served.
    pub sees_text_only: bool,
    /// How much text the call's result may show ([`Budget::DEFAULT`] unless the caller
    /// knows its reader shows less at once, as an MCP server does per agent host).
    pub budget: Budget,
}

/// A cancellation flag shared between a call and whoever may cancel it.
#[derive(Clone, Debug, Default)]
pub struct CancelFlag(Arc<AtomicBool>);

impl CancelFlag {
    /// Cancels the call.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    /// Whether the call was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }

    /// The flag itself, for work that checks it where this crate's types are unknown (a
    /// structural search's walk and match loop).
    pub fn as_atomic(&self) -> &AtomicBool {
        &self.0
    }

    /// The flag, shared, for work that outlives a borrow of the context (a search's
    /// walker threads).
    pub fn shared(&self) -> Arc<AtomicBool> {
        self.0.clone()
    }

    /// `Err(cancelled)` once the call was cancelled: a search (`Grep`, `Find`,
    /// `Ast_search`) stopped part way; what it found is not the answer.
    pub fn check_search(&self, what: &str) -> Result<(), ToolError> {
        self.cancelled(|| {
            format!("{what} cancelled: the client cancelled the call, and the search stopped before its end.")
        })
    }

    /// `Err(cancelled)` once the call was cancelled: `what` (`Edit`, `Write`) was not
    /// written.
    pub fn check(&self, what: &str) -> Result<(), ToolError> {
        self.cancelled(|| {
            format!("{what} cancelled — nothing was written. The client cancelled the call before it committed.")
        })
    }

    fn cancelled(&self, message: impl FnOnce() -> String) -> Result<(), ToolError> {
        match self.is_cancelled() {
            true => Err(ToolError::new(ErrorCode::Cancelled, message())),
            false => Ok(()),
        }
    }
}

/// Two flags are equal when they are the same flag.
impl PartialEq for CancelFlag {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for CancelFlag {}

impl CallContext {
    /// A top-level call.
    pub fn top_level() -> Self {
        Self::default()
    }

    /// Whether the call is top-level (its result is shown to the model and gets `meta`).
    pub fn is_top_level(&self) -> bool {
        self.parent_call_id.is_none()
    }
}

/// A tool's typed value (`ptcValue` without `tool`/`ok`), with its warnings reachable. It
/// has no `tool`, `ok` or `error` field of its own (the projection adds `tool` and `ok`).
pub trait ToolValue: Serialize + JsonSchema + Send + Sync + 'static {
    /// The value's warnings.
    fn warnings_mut(&mut self) -> &mut Vec<Warning>;
}

/// A tool's presentation meta (SPEC §8), typed until a result is projected.
#[derive(Clone, Debug, PartialEq)]
pub enum Meta {
    /// The read window (`read`).
    Read(hashline_view::ReadMeta),
    /// Applied hunks (`write`, `edit`).
    Diffs(hashline_view::DiffsMeta),
    /// Listed paths (`ls`, `find`).
    Paths(hashline_view::PathsMeta),
    /// Matching lines by file (`grep`, `ast_search`).
    Matches(hashline_view::MatchesMeta),
}

impl Meta {
    /// The meta as a JSON part of a result, kept typed until used.
    pub fn into_json(self) -> LazyJson {
        LazyJson::typed(self)
    }
}

/// The meta's own JSON (each kind as itself).
impl Serialize for Meta {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Meta::Read(meta) => meta.serialize(serializer),
            Meta::Diffs(meta) => meta.serialize(serializer),
            Meta::Paths(meta) => meta.serialize(serializer),
            Meta::Matches(meta) => meta.serialize(serializer),
        }
    }
}

impl From<hashline_view::ReadMeta> for Meta {
    fn from(meta: hashline_view::ReadMeta) -> Self {
        Meta::Read(meta)
    }
}

impl From<hashline_view::DiffsMeta> for Meta {
    fn from(meta: hashline_view::DiffsMeta) -> Self {
        Meta::Diffs(meta)
    }
}

impl From<hashline_view::MatchesMeta> for Meta {
    fn from(meta: hashline_view::MatchesMeta) -> Self {
        Meta::Matches(meta)
    }
}

impl From<hashline_view::PathsMeta> for Meta {
    fn from(meta: hashline_view::PathsMeta) -> Self {
        Meta::Paths(meta)
    }
}

/// A successful call.
#[derive(Clone, Debug)]
pub struct ToolOutput<V> {
    /// The typed structured value.
    pub value: V,
    /// What the model sees.
    pub content: Vec<ContentBlock>,
    /// The presentation meta (SPEC §8), before the top-level rule is applied.
    pub meta: Option<Meta>,
    /// The presentation meta as made from the value, only when a front end projects it
    /// (a meta that repeats the value's lines costs a read as much as the lines); it takes
    /// the place of `meta`.
    pub meta_of: Option<fn(&V) -> Meta>,
}

impl<V> ToolOutput<V> {
    /// An output with one text block and no meta.
    pub fn text(value: V, text: String) -> Self {
        Self { value, content: vec![ContentBlock::Text { text }], meta: None, meta_of: None }
    }

    /// Adds presentation meta.
    pub fn with_meta(mut self, meta: impl Into<Meta>) -> Self {
        self.meta = Some(meta.into());
        self
    }

    /// Adds presentation meta that `make` builds from the value when a front end asks for
    /// it (a session log, `--json`); a call whose meta nobody projects never builds it.
    pub fn with_meta_of(mut self, make: fn(&V) -> Meta) -> Self {
        self.meta_of = Some(make);
        self
    }
}

/// `details` of a result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResultDetails {
    /// The typed structured value, as JSON: `{tool, ok, ...}` (kept typed until used).
    pub ptc_value: LazyJson,
}

/// The JSON projection of a call's result (SPEC §4.1): persisted in session logs,
/// printed by `hashline call`, mapped onto MCP.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResult {
    /// What the model sees.
    pub content: Vec<ContentBlock>,
    /// Whether the call failed.
    pub is_error: bool,
    /// The structured value.
    pub details: ResultDetails,
    /// The presentation meta; only for top-level calls of tools that define one (kept typed
    /// until used).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<LazyJson>,
}

impl ToolResult {
    /// The structured value (built from the typed value on first use).
    pub fn ptc_value(&self) -> &Value {
        self.details.ptc_value.value()
    }

    /// All text blocks joined by a blank line.
    pub fn text(&self) -> String {
        let texts: Vec<&str> = self
            .content
            .iter()
            .filter_map(|block| match block {
                ContentBlock::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        texts.join("\n\n")
    }

    /// The error code, for an error result.
    pub fn error_code(&self) -> Option<&str> {
        // A successful call's typed value has no `error` field (see `ToolValue`).
        if self.details.ptc_value.is_typed() {
            return None;
        }
        self.ptc_value().get("error")?.get("code")?.as_str()
    }

    /// The result as one line of JSON: the bytes of `serde_json::to_string` of it, with a
    /// typed value written straight from its fields (no JSON value built).
    pub fn to_json(&self) -> String {
        let mut out = Vec::with_capacity(4096);
        out.extend_from_slice(b"{\"content\":");
        // Writing into a `Vec` fails only for a value that cannot be JSON; content blocks and
        // JSON values always can.
        let _ = serde_json::to_writer(&mut out, &self.content);
        out.extend_from_slice(if self.is_error { b",\"isError\":true" } else { b",\"isError\":false" });
        out.extend_from_slice(b",\"details\":{\"ptcValue\":");
        self.details.ptc_value.write_json(&mut out);
        out.push(b'}');
        if let Some(meta) = &self.meta {
            out.extend_from_slice(b",\"meta\":");
            meta.write_json(&mut out);
        }
        out.push(b'}');
        // Every piece above is JSON text, which is UTF-8.
        String::from_utf8(out).unwrap_or_default()
    }

    /// The result of a successful call.
    pub fn success<V: ToolValue>(tool: &str, output: ToolOutput<V>, ctx: &CallContext) -> Self {
        let (ptc_value, meta) = match (ctx.is_top_level(), output.meta_of) {
            (true, Some(make)) => {
                let (ptc, meta) = LazyJson::success_and_derived(tool, output.value, make);
                (ptc, Some(meta))
            }
            (top, _) => (LazyJson::success(tool, output.value), output.meta.filter(|_| top).map(Meta::into_json)),
        };
        Self { content: output.content, is_error: false, details: ResultDetails { ptc_value }, meta }
    }

    /// The result of a failed call.
    pub fn failure(tool: &str, error: &ToolError) -> Self {
        let ptc = serde_json::to_value(ToolFailure::new(tool, error)).unwrap_or(Value::Null);
        Self {
            content: vec![ContentBlock::Text { text: error.text() }],
            is_error: true,
            details: ResultDetails { ptc_value: ptc.into() },
            meta: None,
        }
    }
}

/// The error envelope every tool returns on failure, as MCP `structuredContent` and as
/// `details.ptcValue`: `{tool, ok: false, path?, error: {code, message, hint?, details?}}`.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[schemars(title = "ToolFailure")]
pub struct ToolFailure<'a> {
    /// The tool that failed.
    pub tool: &'a str,
    /// Always `false`.
    #[schemars(extend("const" = false))]
    pub ok: bool,
    /// The absolute path the call was about, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<&'a str>,
    /// The error.
    pub error: &'a ToolError,
}

impl<'a> ToolFailure<'a> {
    /// The envelope of `error`, returned by `tool`.
    pub fn new(tool: &'a str, error: &'a ToolError) -> Self {
        Self { tool, ok: false, path: error.path.as_deref(), error }
    }
}
