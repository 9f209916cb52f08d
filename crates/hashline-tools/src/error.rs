//! Tool errors: a stable code, a message a model can act on, and a hint.

use serde::Serialize;
use serde_json::Value;

/// Every error code a tool can return (SPEC §4.2), one table. `docs/protocol.md` says
/// when each fires.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ErrorCode {
    /// A required parameter was JSON `null`.
    InvalidNull,
    /// Parameters that cannot be combined, or a malformed parameter value.
    InvalidParamsCombo,
    /// `offset` is not a positive base-10 integer.
    InvalidOffset,
    /// `limit` is not a positive base-10 integer.
    InvalidLimit,
    /// An anchor string is not any accepted form.
    InvalidAnchor,
    /// `edit`'s `snapshot` is not a snapshot tag (`s` + 8 characters of base 32).
    InvalidSnapshot,
    /// An anchor names a line the file does not have.
    LineOutOfRange,
    /// The file does not exist.
    FileNotFound,
    /// The directory or search root does not exist.
    PathNotFound,
    /// A file was expected, a directory was given.
    PathIsDirectory,
    /// A directory was expected, a file was given.
    PathNotDirectory,
    /// The path resolves outside the session's roots.
    PathOutsideRoot,
    /// The path lies in hashline's own journal directory (`.hashline-journal/`), which no
    /// tool reads, writes, lists or searches.
    PathReserved,
    /// The operating system refused access.
    PermissionDenied,
    /// Any other file-system failure.
    FsError,
    /// Another program holds the file open and shares it with no one (Windows): waited
    /// for about a second, then refused, nothing written.
    FileBusy,
    /// The file is larger than the tools will load.
    FileTooLarge,
    /// An edit has more items than one call may carry ([`crate::edit::MAX_EDIT_ITEMS`]).
    TooManyEdits,
    /// A session root's path no longer leads to the directory the session opened.
    RootMoved,
    /// `offset` is past the last line.
    OffsetPastEnd,
    /// An edit names a file the session holds no anchors for.
    FileNotRead,
    /// An anchor's hash does not match the current line.
    HashMismatch,
    /// Two edits of one batch touch the same lines.
    OverlappingEdit,
    /// `replace.old_text` occurs more than once.
    AmbiguousMatch,
    /// `replace.old_text` does not occur.
    TextNotFound,
    /// An edit item has the wrong shape.
    InvalidEditVariant,
    /// The target is binary.
    BinaryFile,
    /// Content holds bare `\r` line endings.
    BareCr,
    /// An edit would add syntax errors (block mode).
    SyntaxRegression,
    /// A search pattern is invalid.
    InvalidPattern,
    /// A structural pattern does not parse.
    PatternParseError,
    /// The language (or the feature for it) is not supported.
    UnsupportedLanguage,
    /// Re-reading the file after an edit failed.
    PostEditVerificationReadFailed,
    /// The file read back after an edit differs from what was written.
    PostEditVerificationMismatch,
    /// A parameter has the wrong JSON type (or a required one is missing).
    InvalidType,
    /// A consistent snapshot for a symbol read could not be taken.
    ReadSnapshotUnavailable,
    /// No tool has the requested name.
    UnknownTool,
    /// The tool failed unexpectedly (a bug): the front end reports it for that call and
    /// serves on.
    InternalError,
    /// The client cancelled the call before it committed anything.
    Cancelled,
    /// `revert` names no change of this session.
    ChangeUnknown,
    /// `revert` names a change of this session that is no longer kept (past the bound,
    /// over it on its own, or its kept bytes are gone).
    ChangeExpired,
    /// `revert` names a change that a revert already undid.
    ChangeReverted,
    /// `revert`: a later change of the session stands on a file of the change.
    ChangeSuperseded,
    /// `revert`: a file of the change is no longer exactly what the change left (another
    /// program changed it).
    ChangeConflict,
}

impl ErrorCode {
    /// The stable kebab-case string.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidNull => "invalid-null",
            ErrorCode::InvalidParamsCombo => "invalid-params-combo",
            ErrorCode::InvalidOffset => "invalid-offset",
            ErrorCode::InvalidLimit => "invalid-limit",
            ErrorCode::InvalidAnchor => "invalid-anchor",
            ErrorCode::InvalidSnapshot => "invalid-snapshot",
            ErrorCode::LineOutOfRange => "line-out-of-range",
            ErrorCode::FileNotFound => "file-not-found",
            ErrorCode::PathNotFound => "path-not-found",
            ErrorCode::PathIsDirectory => "path-is-directory",
            ErrorCode::PathNotDirectory => "path-not-directory",
            ErrorCode::PathOutsideRoot => "path-outside-root",
            ErrorCode::PathReserved => "path-reserved",
            ErrorCode::PermissionDenied => "permission-denied",
            ErrorCode::FsError => "fs-error",
            ErrorCode::FileBusy => "file-busy",
            ErrorCode::FileTooLarge => "file-too-large",
            ErrorCode::TooManyEdits => "too-many-edits",
            ErrorCode::RootMoved => "root-moved",
            ErrorCode::OffsetPastEnd => "offset-past-end",
            ErrorCode::FileNotRead => "file-not-read",
            ErrorCode::HashMismatch => "hash-mismatch",
            ErrorCode::OverlappingEdit => "overlapping-edit",
            ErrorCode::AmbiguousMatch => "ambiguous-match",
            ErrorCode::TextNotFound => "text-not-found",
            ErrorCode::InvalidEditVariant => "invalid-edit-variant",
            ErrorCode::BinaryFile => "binary-file",
            ErrorCode::BareCr => "bare-cr",
            ErrorCode::SyntaxRegression => "syntax-regression",
            ErrorCode::InvalidPattern => "invalid-pattern",
            ErrorCode::PatternParseError => "pattern-parse-error",
            ErrorCode::UnsupportedLanguage => "unsupported-language",
            ErrorCode::PostEditVerificationReadFailed => "post-edit-verification-read-failed",
            ErrorCode::PostEditVerificationMismatch => "post-edit-verification-mismatch",
            ErrorCode::InvalidType => "invalid-type",
            ErrorCode::ReadSnapshotUnavailable => "read-snapshot-unavailable",
            ErrorCode::UnknownTool => "unknown-tool",
            ErrorCode::InternalError => "internal-error",
            ErrorCode::Cancelled => "cancelled",
            ErrorCode::ChangeUnknown => "change-unknown",
            ErrorCode::ChangeExpired => "change-expired",
            ErrorCode::ChangeReverted => "change-reverted",
            ErrorCode::ChangeSuperseded => "change-superseded",
            ErrorCode::ChangeConflict => "change-conflict",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The schema of [`ToolError::details`]: an object whose keys depend on the code; the one
/// programs act on is named here.
#[derive(schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[expect(dead_code, reason = "describes the JSON of `details`; never built")]
struct ErrorDetails {
    /// The current rows of the lines in question, as `read` shows them (anchor refusals):
    /// retry with these anchors, no re-read needed.
    #[serde(skip_serializing_if = "Option::is_none")]
    updated_anchors: Option<Vec<crate::ptc::PtcLine>>,
    /// `hash-mismatch`: the lines the refused edit aimed at (the rows the text marks with
    /// `>>>`), each with the anchor as sent and the fresh anchor of its line.
    #[serde(skip_serializing_if = "Option::is_none")]
    targets: Option<Vec<RefusalTarget>>,
}

/// One line a refused edit aimed at (`details.targets`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RefusalTarget {
    /// The edit item's index in `edits`, when the refusal is about one item.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edit: Option<usize>,
    /// The anchor as the edit sent it, or (for a line changed on disk) as it was shown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sent: Option<String>,
    /// The line's fresh `LINE:HASH` anchor (`null` when the line no longer exists).
    pub anchor: Option<String>,
}

/// A failed tool call: what the model is told and what a program can match on.
#[derive(Clone, Debug, PartialEq, thiserror::Error, Serialize, schemars::JsonSchema)]
#[error("{message}")]
pub struct ToolError {
    /// The stable code.
    pub code: ErrorCode,
    /// What went wrong, written for a model.
    pub message: String,
    /// How to recover, when there is something to say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// Machine-readable specifics (for example fresh anchors).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<ErrorDetails>")]
    pub details: Option<Box<Value>>,
    /// The absolute path the call was about, when there is one.
    #[serde(skip)]
    pub path: Option<String>,
}

impl ToolError {
    /// The error of a tool call that panicked (a bug in hashline): `internal-error`, with the
    /// first line of the panic message. `payload` is what `catch_unwind` or a join caught.
    pub fn panicked(tool: &str, payload: &(dyn std::any::Any + Send)) -> Self {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".to_owned());
        let what = what.lines().next().unwrap_or_default();
        Self::new(
            ErrorCode::InternalError,
            format!(
                "Internal error: {tool} failed unexpectedly ({what}). This is a bug in hashline. A file it was writing holds its old or its new bytes, never a mix; re-read the files this call names before editing them."
            ),
        )
    }

    /// An error with a code and a message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self { code, message: message.into(), hint: None, details: None, path: None }
    }

    /// Adds a hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Adds details.
    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(Box::new(details));
        self
    }

    /// Names the (absolute) path the error is about.
    pub fn with_path(mut self, path: impl Into<String>) -> Self {
        self.path = Some(path.into());
        self
    }

    /// The text a model sees: the message, then the hint on its own line.
    pub fn text(&self) -> String {
        match &self.hint {
            Some(hint) => format!("{}\n{}", self.message, hint),
            None => self.message.clone(),
        }
    }
}

impl From<hashline_core::AnchorError> for ToolError {
    fn from(err: hashline_core::AnchorError) -> Self {
        let code = match err.code() {
            "hash-mismatch" => ErrorCode::HashMismatch,
            _ => ErrorCode::InvalidAnchor,
        };
        ToolError::new(code, err.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn as_str_is_the_serialized_code() {
        let codes = [
            ErrorCode::InvalidNull,
            ErrorCode::InvalidParamsCombo,
            ErrorCode::PostEditVerificationReadFailed,
            ErrorCode::ReadSnapshotUnavailable,
            ErrorCode::UnknownTool,
            ErrorCode::FileTooLarge,
            ErrorCode::TooManyEdits,
            ErrorCode::RootMoved,
            ErrorCode::InvalidSnapshot,
        ];
        for code in codes {
            assert_eq!(serde_json::to_value(code).ok(), Some(serde_json::Value::from(code.as_str())));
            assert_eq!(serde_json::from_value::<ErrorCode>(code.as_str().into()).ok(), Some(code));
        }
    }

    #[test]
    fn text_puts_the_hint_on_its_own_line() {
        let err = ToolError::new(ErrorCode::FsError, "Broke.").with_hint("Retry.");
        assert_eq!(err.text(), "Broke.\nRetry.");
    }
}
