//! `edit` (SPEC §5.4): anchored edits that never land on a stale view and never lose a
//! byte. The pure engine (`hashline_core::edit`) does the work; this module parses the
//! arguments, applies the session's guards, writes atomically (several files all or
//! nothing), and reports the result with fresh anchors.

mod cited;
mod commit;
mod items;
mod prepare;
mod render;
mod revert;
mod revert_to;
mod symbols;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use typed_builder::TypedBuilder;

use crate::error::{ErrorCode, ToolError};
use crate::ptc::PtcLine;
use crate::result::{CallContext, ToolOutput, ToolValue};
use crate::session::Session;
use crate::tool::Tool;
use crate::warning::{Warning, WarningCode};

pub use crate::validate::{SyntaxMode, SyntaxOutcome};
pub use items::{EditItemSchema, MAX_EDIT_ITEMS, OPS};
pub use render::{DiffData, DiffEntry, DiffStats, change_line};

/// Arguments of `edit`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, JsonSchema, TypedBuilder)]
#[serde(rename_all = "camelCase")]
pub struct EditArgs {
    /// The file to edit (`files` edits several).
    #[builder(default, setter(strip_option, into))]
    pub path: Option<String>,
    /// The edit items, applied together; each has exactly one key.
    #[builder(default, setter(strip_option))]
    #[schemars(with = "Option<EditsParam>")]
    pub edits: Option<Value>,
    /// Legacy: replace this exact text (prefer `edits` with `replace`).
    #[builder(default, setter(strip_option, into))]
    #[serde(rename = "oldText")]
    pub old_text: Option<String>,
    /// Legacy: the replacement for `oldText`.
    #[builder(default, setter(strip_option, into))]
    #[serde(rename = "newText")]
    pub new_text: Option<String>,
    /// Re-read the file after writing and compare its bytes.
    #[builder(default, setter(strip_option))]
    pub post_edit_verify: Option<bool>,
    /// The syntax check after the edit: `warn` (default), `block` (refuse an edit that
    /// breaks the syntax) or `off`.
    #[builder(default, setter(strip_option))]
    pub syntax_validate: Option<SyntaxMode>,
    /// Several files, all or nothing: `[{path, edits}]`, every file checked before any is
    /// written.
    #[builder(default, setter(strip_option))]
    pub files: Option<Vec<FileEdits>>,
    /// Undo a change: the id (`c<N>-<tag>`) an edit or write result gave. Every file of it
    /// goes back to its bytes before, all or none, only while each is exactly as the change
    /// left it. Given alone (no path, edits or files).
    #[builder(default, setter(strip_option, into))]
    pub revert: Option<String>,
    /// The snapshot the anchors were copied from: the `snapshot: s…` tag shown with those
    /// rows. Anchors then follow their lines exactly, however the file changed since; a line
    /// that changed is refused with fresh rows. With `files`, give it per file.
    #[builder(default, setter(strip_option, into))]
    pub snapshot: Option<String>,
}

/// The `edits` parameter's accepted shapes (schema only): the items, or a JSON string of
/// them. No descriptions of their own: the parameter's says it.
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)] // A schema-only type: never built, only described.
enum EditsParam {
    Items(Vec<EditItemSchema>),
    Json(String),
}

/// One file of a multi-file edit.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
pub struct FileEdits {
    /// The file.
    pub path: String,
    /// Its edit items, as in `edits`.
    #[schemars(with = "Vec<serde_json::Map<String, Value>>")]
    pub edits: Value,
    /// The snapshot this file's anchors were copied from (as `snapshot` above).
    #[serde(default)]
    pub snapshot: Option<String>,
}

/// The typed value of a one-file `edit`.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FileEditValue {
    /// The absolute path.
    pub path: String,
    /// `Edited <path> (...)`, or the no-op sentence.
    pub summary: String,
    /// The anchored compact diff: `+`/context rows carry the new anchors.
    pub diff: String,
    /// The logical diff as entries.
    pub diff_data: DiffData,
    /// The first line of the new file that differs.
    pub first_changed_line: Option<u32>,
    /// Indices of edits that changed nothing.
    pub noop_edits: Vec<usize>,
    /// Whether the whole batch changed nothing (then nothing was written).
    pub noop: bool,
    /// Unified diff of the physical bytes (BOM and line endings included).
    pub patch: String,
    /// Fresh anchored lines around every change (±2 lines).
    pub anchors: Vec<PtcLine>,
    /// The syntax check.
    pub syntax: SyntaxOutcome,
    /// Warnings.
    pub warnings: Vec<Warning>,
    /// The id of the change this call committed (`c<N>-<tag>`; absent when it wrote
    /// nothing): `edit` with `revert` set to it undoes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change_id: Option<String>,
    /// For a revert: the change it reverted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reverts: Option<String>,
    /// The tag of the file's bytes after the edit (`snapshot` for the next edit with the
    /// rows shown here).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<String>,
}

/// The typed value of `edit`.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum EditValue {
    /// One file.
    File(Box<FileEditValue>),
    /// Several files (`files`), in request order.
    Files {
        /// Each file's outcome.
        files: Vec<FileEditValue>,
        /// Warnings about the call as a whole.
        warnings: Vec<Warning>,
        /// The id of the change this call committed (absent when it wrote nothing).
        #[serde(rename = "changeId", skip_serializing_if = "Option::is_none")]
        change_id: Option<String>,
        /// For a revert: the change it reverted.
        #[serde(skip_serializing_if = "Option::is_none")]
        reverts: Option<String>,
    },
}

impl ToolValue for EditValue {
    fn warnings_mut(&mut self) -> &mut Vec<Warning> {
        match self {
            EditValue::File(file) => &mut file.warnings,
            EditValue::Files { warnings, .. } => warnings,
        }
    }
}

/// The `edit` tool.
pub struct EditTool;

impl Tool for EditTool {
    const NAME: &'static str = "edit";
    type Args = EditArgs;
    type Value = EditValue;

    fn run(session: &Session, args: EditArgs, ctx: &CallContext) -> Result<ToolOutput<EditValue>, ToolError> {
        edit_in(session, args, ctx)
    }
}

/// One file's request: its path and its edits (as JSON).
#[derive(Clone, Debug)]
pub(crate) struct Request {
    pub path: String,
    pub edits: Value,
    /// The snapshot its anchors cite, parsed.
    pub snapshot: Option<hashline_core::snapshot::SnapshotTag>,
}

/// Runs `edit` as a top-level call.
pub fn edit(session: &Session, args: EditArgs) -> Result<ToolOutput<EditValue>, ToolError> {
    edit_in(session, args, &CallContext::top_level())
}

/// Goes back to the change `id`: every change in effect from the session's newest back to
/// and including `id` reverted at once, newest first, all or nothing (the CLI's `undo --to`;
/// docs/protocol.md §4.10, "Going back to a change"). Not an argument of the tool: a front
/// end calls it, and projects the outcome with [`crate::run::project`].
pub fn revert_to(session: &Session, id: &str, ctx: &CallContext) -> Result<ToolOutput<EditValue>, ToolError> {
    revert_to::run_to(session, id, ctx)
}

/// Runs `edit` in a call context.
pub fn edit_in(session: &Session, args: EditArgs, ctx: &CallContext) -> Result<ToolOutput<EditValue>, ToolError> {
    if let Some(id) = &args.revert {
        let alone = args.path.is_none()
            && args.edits.is_none()
            && args.files.is_none()
            && args.old_text.is_none()
            && args.new_text.is_none()
            && args.snapshot.is_none();
        if !alone {
            return Err(ToolError::new(
                ErrorCode::InvalidParamsCombo,
                "Edit rejected — nothing was written. revert takes a change id alone: give no path, edits, files, oldText, newText or snapshot with it.",
            ));
        }
        return revert::run(session, id, ctx);
    }
    let mut notes = Vec::new();
    let options = prepare::Options {
        verify: args.post_edit_verify == Some(true),
        syntax: args.syntax_validate.unwrap_or_default(),
        multi: args.files.is_some(),
    };
    let requests = requests(args, &mut notes)?;
    commit::run(session, requests, &options, notes, ctx)
}

/// The per-file requests of a call, with the shape rules of SPEC §5.4 (the edits are
/// moved out of the arguments, not copied).
fn requests(args: EditArgs, notes: &mut Vec<Warning>) -> Result<Vec<Request>, ToolError> {
    let legacy = args.old_text.is_some() || args.new_text.is_some();
    let tag = |raw: Option<String>| raw.as_deref().map(cited::parse).transpose();
    if let Some(files) = args.files {
        if args.path.is_some() || args.edits.is_some() || legacy {
            return Err(ToolError::new(
                ErrorCode::InvalidParamsCombo,
                "Edit rejected — nothing was written. Use either files: [{path, edits}] or path + edits, not both.",
            ));
        }
        if args.snapshot.is_some() {
            return Err(ToolError::new(
                ErrorCode::InvalidParamsCombo,
                "Edit rejected — nothing was written. With files, give each file's snapshot in its entry: files: [{path, snapshot, edits}].",
            ));
        }
        if files.is_empty() {
            return Err(items::variant("files must contain at least one {path, edits} entry.".to_owned()));
        }
        return files
            .into_iter()
            .map(|f| Ok(Request { path: f.path, edits: f.edits, snapshot: tag(f.snapshot)? }))
            .collect();
    }
    let snapshot = tag(args.snapshot)?;
    let Some(path) = args.path else {
        return Err(ToolError::new(
            ErrorCode::InvalidType,
            "Invalid path: expected string, received nothing (path is required unless files is given).",
        ));
    };
    let edits = match (args.edits, legacy) {
        (Some(_), true) => {
            return Err(ToolError::new(
                ErrorCode::InvalidParamsCombo,
                "Edit rejected — nothing was written. Use either edits or the legacy oldText/newText, not both.",
            ));
        }
        (Some(edits), false) => edits,
        (None, true) => {
            let (Some(old), Some(new)) = (&args.old_text, &args.new_text) else {
                return Err(items::variant(
                    "Legacy input needs both oldText and newText; prefer edits: [{\"replace\": {\"old_text\", \"new_text\"}}].".to_owned(),
                ));
            };
            notes.push(Warning::new(
                WarningCode::LegacyInput,
                "Legacy top-level oldText/newText input was normalized to edits[0].replace. Prefer the edits[] format.",
            ));
            serde_json::json!([{ "replace": { "old_text": old, "new_text": new } }])
        }
        (None, false) => {
            return Err(items::variant(format!(
                "edits is required: an array of edit items, each with one of {}.",
                OPS.join(", ")
            )));
        }
    };
    Ok(vec![Request { path, edits, snapshot }])
}
