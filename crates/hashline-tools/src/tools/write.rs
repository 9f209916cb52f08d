//! `write` (SPEC §5.2): create or replace a file atomically, answer with its anchors.

use hashline_core::row::into_text;
use hashline_core::window::Rows;
use hashline_core::{Document, looks_binary};
use hashline_view::DiffsMeta;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use typed_builder::TypedBuilder;

use crate::budget::format_size;
use crate::changes::{Before, NewFile};
use crate::diff::{changes_between, file_diffs, unified};
use crate::error::{ErrorCode, ToolError};
use crate::fsio::{WriteState, fs_details, write_error};
use crate::paths::ResolvedPath;
use crate::ptc::PtcLine;
use crate::result::{CallContext, ToolOutput, ToolValue};
use crate::session::Session;
use crate::tool::Tool;
use crate::validate::{Memo, SyntaxMode, SyntaxOutcome, Trees, check, judge, line_map_of};
use crate::warning::{Warning, WarningCode};
use hashline_fs::{CommitError, Member};

/// The largest old file whose content is read to diff an overwrite against.
const DIFF_BASIS_MAX: u64 = 10 * 1024 * 1024;

/// Arguments of `write`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, JsonSchema, TypedBuilder)]
#[serde(rename_all = "camelCase")]
pub struct WriteArgs {
    /// The file: relative to the working directory, or absolute.
    #[builder(setter(into))]
    pub path: String,
    /// The whole new content.
    #[builder(setter(into))]
    pub content: String,
    /// Not available yet (ignored with a warning).
    #[builder(default, setter(strip_option))]
    pub map: Option<bool>,
    /// The syntax check: `warn` (default) reports errors the write adds, `block` refuses
    /// them, `off`.
    #[builder(default, setter(strip_option))]
    pub syntax_validate: Option<SyntaxMode>,
}

/// The typed value of `write`.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WriteValue {
    /// The absolute path written.
    pub path: String,
    /// Whether the file was created or replaced.
    pub write_state: WriteState,
    /// The anchored lines of the new content (empty when omitted or binary).
    pub lines: Vec<PtcLine>,
    /// Set when the content was too large for anchors in the result.
    pub truncated: bool,
    /// Lines in the new content.
    pub total_lines: u32,
    /// Bytes written.
    pub bytes: u64,
    /// Unified diff against the previous content (overwrites with anchors only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// The syntax check.
    pub syntax: SyntaxOutcome,
    /// Warnings.
    pub warnings: Vec<Warning>,
    /// The id of the change this write committed (`c<N>-<tag>`): `edit` with `revert`
    /// set to it undoes it.
    pub change_id: String,
    /// The tag of the bytes written, when their rows are shown (`snapshot` for `edit` with
    /// anchors from those rows; docs/protocol.md §1.5).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<String>,
}

impl ToolValue for WriteValue {
    fn warnings_mut(&mut self) -> &mut Vec<Warning> {
        &mut self.warnings
    }
}

/// The `write` tool.
pub struct WriteTool;

impl Tool for WriteTool {
    const NAME: &'static str = "write";
    type Args = WriteArgs;
    type Value = WriteValue;

    fn run(session: &Session, args: WriteArgs, ctx: &CallContext) -> Result<ToolOutput<WriteValue>, ToolError> {
        write_in(session, args, ctx)
    }
}

/// Runs `write` as a top-level call.
pub fn write(session: &Session, args: WriteArgs) -> Result<ToolOutput<WriteValue>, ToolError> {
    write_in(session, args, &CallContext::top_level())
}

/// Runs `write` in a call context.
pub fn write_in(session: &Session, args: WriteArgs, ctx: &CallContext) -> Result<ToolOutput<WriteValue>, ToolError> {
    let path = session.resolve(&args.path)?;
    let bytes = args.content.into_bytes();
    if has_bare_cr(&bytes) {
        return Err(ToolError::new(
            ErrorCode::BareCr,
            format!(
                "Cannot write {}\n⚠️ File content contains bare CR (\\r) line endings; write refuses to emit anchors that read/edit would normalize differently.",
                path.shown()
            ),
        )
        .with_hint("Use \\n or \\r\\n line endings.")
        .with_path(path.absolute_str()));
    }

    let lock = session.lock_path(&path.key);
    let _guard = lock.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    // A call cancelled before this point creates no directory either.
    ctx.cancel.check("Write")?;
    // Opened beneath the root and locked against other hashline processes; missing
    // parent directories are created beneath the root too.
    let target = match session.open_target(&path, false) {
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => session.open_target(&path, true).map_err(|err| {
            if hashline_fs::is_escape(&err) {
                return write_error(&err, &path);
            }
            ToolError::new(ErrorCode::FsError, format!("Cannot create parent directories for {}: {err}", path.shown()))
                .with_details(fs_details(&err))
                .with_path(path.absolute_str())
        })?,
        other => other.map_err(|err| write_error(&err, &path))?,
    };
    if !target.is_regular() {
        return Err(ToolError::new(
            ErrorCode::FsError,
            format!(
                "Not a regular file: {} (a FIFO, socket or device); write replaces regular files only.",
                path.shown()
            ),
        )
        .with_path(path.absolute_str()));
    }
    // The old content, for the diff: only when it is a readable regular file of at most
    // DIFF_BASIS_MAX bytes; a larger or unreadable file is replaced without a diff.
    // Kept for a revert up to the change log's bound; diffed up to DIFF_BASIS_MAX.
    let kept_before = match target.snapshot {
        Some(snapshot) if snapshot.size <= crate::changes::MAX_CHANGE_BYTES => target.read().ok().flatten(),
        _ => None,
    };
    let before = kept_before.as_deref().filter(|old| old.len() as u64 <= DIFF_BASIS_MAX).map(<[u8]>::to_vec);
    let new_doc = Document::parse(bytes);
    let old_doc = before.as_deref().filter(|old| !looks_binary(old)).map(|old| Document::parse(old.to_vec()));
    let trees = Some(Memo { trees: session.syntax_trees(), key: &path.key, store: session.map_store() });
    let syntax =
        syntax_check(args.syntax_validate.unwrap_or_default(), &path.display, old_doc.as_ref(), &new_doc, trees);
    let syntax_warning = judge(&syntax, &path.display, &new_doc).map_err(|err| {
        let mut err = err.with_path(path.absolute_str());
        err.message = err.message.replacen("Edit rejected", "Write rejected", 1);
        err
    })?;
    let bytes = new_doc.into_bytes();
    // The last moment a cancelled call can still leave the file alone.
    ctx.cancel.check("Write")?;
    let member = Member {
        target: &target,
        old: before.as_deref().unwrap_or_default(),
        new: &bytes,
        check: false,
        remove: false,
    };
    let write_state = match session.commit(&[member]) {
        Ok(states) => states.first().copied().unwrap_or(WriteState::Created),
        Err((_, CommitError::Io(err))) => return Err(write_error(&err, &path)),
        Err((_, CommitError::Changed)) => return Err(write_error(&std::io::Error::other("the file changed"), &path)),
    };
    let existed = target.exists();
    drop(target);
    let change_id = record_change(session, &path, existed, kept_before.as_deref(), &bytes);
    drop(kept_before);
    session.note_mutation(&path.key, &path.display, ctx);
    // Rows shown before describe content that is gone; the rows of this result (if any)
    // are recorded below.
    session.ledger().forget(&path.key);

    let absolute = path.absolute_str();
    let mut warnings = Vec::new();
    if args.map == Some(true) {
        warnings.push(Warning::new(
            WarningCode::MapUnavailable,
            "[Warning: structural maps are not available in this build yet; no map was appended]",
        ));
    }
    warnings.extend(syntax_warning);
    let doc = Document::parse(bytes);
    let total_lines = doc.line_count() as u32;
    let byte_count = doc.as_bytes().len() as u64;
    let mut value = WriteValue {
        path: absolute.clone(),
        write_state,
        lines: Vec::new(),
        truncated: false,
        total_lines,
        bytes: byte_count,
        diff: None,
        syntax,
        warnings,
        change_id,
        snapshot: None,
    };
    let change_line = crate::edit::change_line(&value.change_id);

    let notes: String = value.warnings.iter().map(|w| format!("{}\n\n", w.message)).collect();
    if looks_binary(doc.as_bytes()) {
        value.warnings.push(Warning::new(
            WarningCode::BinaryContent,
            "⚠️ File content appears to be binary — hashlines not generated.",
        ));
        let text = format!(
            "{notes}Wrote {}\n⚠️ File content appears to be binary — hashlines not generated.\n\n{change_line}",
            path.shown()
        );
        return Ok(ToolOutput::text(value, text).with_meta(empty_diffs()));
    }

    let mut rows = Vec::new();
    // The rows, the notes before them and the summary and change lines around them fit
    // the call's budget.
    let rows_bytes = ctx.budget.bytes_after(notes.len() + change_line.len() + path.display.len() + 96);
    let mut over_budget = doc.line_count() > ctx.budget.lines;
    if !over_budget {
        let mut renderer = Rows::new(&doc, 0..doc.line_count());
        while renderer.remaining() > 0 {
            if !rows.is_empty() {
                rows.push(b'\n');
            }
            renderer.push_next(&mut rows);
            if rows.len() > rows_bytes {
                over_budget = true;
                break;
            }
        }
    }
    if over_budget {
        value.truncated = true;
        let warning = Warning::new(
            WarningCode::AnchorsOmitted,
            format!(
                "[Anchors omitted: {} is {total_lines} lines ({}), over the {} result budget. Use read with offset/limit to get anchors.]",
                path.shown(),
                format_size(byte_count as usize),
                ctx.budget
            ),
        );
        let text = format!(
            "{notes}Wrote {} ({total_lines} lines, {}).\n{}\n\n{change_line}",
            path.shown(),
            format_size(byte_count as usize),
            warning.message
        );
        value.warnings.push(warning);
        return Ok(ToolOutput::text(value, text).with_meta(empty_diffs()));
    }

    value.lines = doc.lines().map(|l| PtcLine::new(l.number, l.hash(), l.content)).collect();
    session.record_served(&path.key, doc.lines().map(|l| (l.number, l.hash())), true);
    session.note_visible(&path.key, ctx);
    let new_lines = display_lines(&doc);
    let meta = match before.as_deref().filter(|old| !looks_binary(old)) {
        Some(old) => {
            let old_lines = display_lines(&Document::parse(old.to_vec()));
            let diff = unified(&format!("a/{}", path.display), &format!("b/{}", path.display), &old_lines, &new_lines);
            value.diff = (!diff.is_empty()).then_some(diff);
            DiffsMeta { diffs: file_diffs(&path.display, &old_lines, &new_lines) }
        }
        None => empty_diffs(),
    };
    let tag = session.show_snapshot(doc.as_bytes());
    session.note_shown(tag, 1..=doc.line_count() as u32);
    value.snapshot = Some(tag.to_string());
    let mut text = String::with_capacity(rows.len() + 128);
    text.push_str(&crate::tools::read::snapshot_line(tag));
    for warning in &value.warnings {
        text.push_str(&warning.message);
        text.push_str("\n\n");
    }
    text.push_str(&into_text(rows));
    text.push_str("\n\n");
    text.push_str(&change_line);
    Ok(ToolOutput::text(value, text).with_meta(meta))
}

/// The write in the session's change log: the bytes before (when the file existed and
/// they were loaded) and after, with the lines added and removed. Its id.
fn record_change(session: &Session, path: &ResolvedPath, existed: bool, before: Option<&[u8]>, after: &[u8]) -> String {
    let lines = |bytes: &[u8]| display_lines(&Document::parse(bytes.to_vec()));
    let (added, removed) = match before {
        Some(old) if !looks_binary(old) && !looks_binary(after) => {
            let changes = changes_between(&lines(old), &lines(after));
            let added = changes.iter().map(|(_, a)| a.len()).sum::<usize>();
            let removed = changes.iter().map(|(r, _)| r.len()).sum::<usize>();
            (added, removed)
        }
        _ => (lines(after).len(), before.map_or(0, |old| lines(old).len())),
    };
    let before = match (existed, before) {
        (false, _) => Before::Absent,
        (true, Some(bytes)) => Before::Bytes(bytes),
        (true, None) => Before::Unknown,
    };
    let file = NewFile {
        path: &path.key,
        display: &path.display,
        before,
        after: Some(after),
        added: added as u32,
        removed: removed as u32,
    };
    session.changes().record("write", None, &[file])
}

/// Whether `bytes` hold a `\r` that does not start a `\r\n`.
fn has_bare_cr(bytes: &[u8]) -> bool {
    memchr::memchr_iter(b'\r', bytes).any(|pos| bytes.get(pos + 1) != Some(&b'\n'))
}

fn display_lines(doc: &Document) -> Vec<String> {
    doc.lines().map(|l| String::from_utf8_lossy(l.content).into_owned()).collect()
}

/// The syntax check of a write: the old content's lines follow the line diff.
fn syntax_check(
    mode: SyntaxMode,
    display: &str,
    old: Option<&Document>,
    new: &Document,
    trees: Trees<'_>,
) -> SyntaxOutcome {
    if mode != SyntaxMode::Off && looks_binary(new.as_bytes()) {
        return SyntaxOutcome::unchecked(mode, hashline_syntax::LanguageId::from_path(display), "binary content");
    }
    match old {
        Some(old) if mode != SyntaxMode::Off => {
            let changes = changes_between(&display_lines(old), &display_lines(new));
            check(mode, display, Some(old), new, line_map_of(&changes), trees)
        }
        _ => check(mode, display, None, new, |_| None, trees),
    }
}

fn empty_diffs() -> DiffsMeta {
    DiffsMeta { diffs: Vec::new() }
}
