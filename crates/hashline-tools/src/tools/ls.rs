//! `ls` (SPEC §5.3): the entries of one directory, directories first.
//!
//! Also home to what `ls` and `find` share: the entry kinds, the mapping of a search root's I/O errors, and the byte-capped listing.

use hashline_fs::lookup as fs;
use std::io;
use std::path::Path;

use hashline_core::display::escape_name;
use hashline_view::PathsMeta;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use typed_builder::TypedBuilder;

use crate::budget::Budget;
#[cfg(test)]
use crate::budget::MAX_BYTES;
use crate::error::{ErrorCode, ToolError};
use crate::paths::ResolvedPath;
use crate::result::{CallContext, ToolOutput, ToolValue};
use crate::session::Session;
use crate::tool::Tool;
use crate::tools::pattern::name_glob;
use crate::warning::Warning;

/// How many entries `ls` shows when `limit` is not given.
pub const DEFAULT_LIMIT: u32 = 500;

/// The notice appended when the listing was cut at the default budget.
pub(crate) const BYTES_NOTICE: &str = "\n[… truncated at 50 KB]";

/// The notice appended when the listing was cut at `budget`.
fn bytes_notice(budget: Budget) -> String {
    if budget.is_default() { BYTES_NOTICE.to_owned() } else { format!("\n[… truncated{}]", budget.named()) }
}

/// Arguments of `ls`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, JsonSchema, TypedBuilder)]
#[serde(rename_all = "camelCase")]
pub struct LsArgs {
    /// The directory (default: the working directory).
    #[builder(default, setter(strip_option, into))]
    pub path: Option<String>,
    /// At most this many entries (default 500).
    #[builder(default, setter(strip_option))]
    pub limit: Option<u32>,
    /// Only names matching this glob, e.g. `*.rs` or `{src,tests}`.
    #[builder(default, setter(strip_option, into))]
    pub glob: Option<String>,
}

/// Whether an entry is a file or a directory. A symlink counts as what it points to; a
/// dangling symlink (and anything else that is not a directory) is a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum EntryKind {
    /// Not a directory.
    File,
    /// A directory (shown with a trailing `/`).
    Dir,
}

/// One entry of a directory listing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct LsEntry {
    /// The entry's name (lossy UTF-8), without a trailing `/`.
    pub name: String,
    /// File or directory.
    #[serde(rename = "type")]
    pub kind: EntryKind,
}

/// The typed value of `ls`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LsValue {
    /// The absolute path of the listed directory.
    pub path: String,
    /// How many entries matched (before `limit`).
    pub total_entries: u64,
    /// Whether `limit` left entries out.
    pub truncated: bool,
    /// The entries within `limit`, in listing order. The text may show fewer when it hits
    /// the 50 KB budget.
    pub entries: Vec<LsEntry>,
    /// Warnings shown above the listing.
    pub warnings: Vec<Warning>,
}

impl ToolValue for LsValue {
    fn warnings_mut(&mut self) -> &mut Vec<Warning> {
        &mut self.warnings
    }
}

/// The `ls` tool.
pub struct LsTool;

impl Tool for LsTool {
    const NAME: &'static str = "ls";
    type Args = LsArgs;
    type Value = LsValue;

    fn run(session: &Session, args: LsArgs, ctx: &CallContext) -> Result<ToolOutput<LsValue>, ToolError> {
        ls_in(session, args, ctx)
    }
}

/// Runs `ls` as a top-level call.
pub fn ls(session: &Session, args: LsArgs) -> Result<ToolOutput<LsValue>, ToolError> {
    ls_in(session, args, &CallContext::top_level())
}

/// Runs `ls` in `ctx` (its budget).
pub fn ls_in(session: &Session, args: LsArgs, ctx: &CallContext) -> Result<ToolOutput<LsValue>, ToolError> {
    let mut adjustments = Vec::new();
    let limit = effective_limit(args.limit, DEFAULT_LIMIT, &mut adjustments);
    let raw_path = effective_path(args.path.as_deref(), &mut adjustments);
    let glob = match args.glob.as_deref() {
        Some("") => {
            adjustments.push("ignored empty glob".to_owned());
            None
        }
        Some(glob) => Some(name_glob(glob)?),
        None => None,
    };

    let path = session.resolve(raw_path)?;
    let meta = fs::metadata(&path.real).map_err(|err| root_error(&err, &path))?;
    if !meta.is_dir() {
        let p = &path.shown();
        return Err(ToolError::new(
            ErrorCode::PathNotDirectory,
            format!("Error: '{p}' is a file, not a directory. Use read to inspect files."),
        )
        .with_hint(format!("Use read({}) to inspect files.", quoted(p)))
        .with_path(path.absolute_str()));
    }

    let mut entries = Vec::new();
    let mut unfiltered = 0usize;
    let dir = fs::read_dir(&path.real).map_err(|err| root_error(&err, &path))?;
    for entry in dir {
        let entry = entry.map_err(|err| root_error(&err, &path))?;
        unfiltered += 1;
        let name = entry.file_name();
        if glob.as_ref().is_some_and(|g| !g.is_match(&name)) {
            continue;
        }
        let kind = match entry.file_type() {
            Ok(t) if t.is_symlink() => kind_through_link(&entry.path()),
            Ok(t) if t.is_dir() => EntryKind::Dir,
            _ => EntryKind::File,
        };
        entries.push(LsEntry { name: name.to_string_lossy().into_owned(), kind });
    }
    sort_entries(&mut entries);

    let total = entries.len();
    entries.truncate(limit);
    let lines: Vec<String> = entries.iter().map(|e| shown_path(&e.name, e.kind)).collect();
    let more = (total > entries.len())
        .then(|| format!("[… {} more entries — use glob to narrow results]", total - entries.len()));
    let mut warnings = Vec::new();
    if !adjustments.is_empty() {
        warnings.push(Warning::params_adjusted("Ls params", &adjustments));
    }
    let listing = render_listing(lines, more, ctx.budget, frame_of(&warnings));
    let body = match (total, &args.glob) {
        (0, Some(g)) if unfiltered > 0 => format!("(no entries match glob {})", quoted(g)),
        (0, _) => "(empty directory)".to_owned(),
        _ => listing.text,
    };
    let text = with_warnings(&warnings, &body);
    let meta = paths_meta(listing.shown, total);
    let value = LsValue {
        path: path.absolute_str(),
        total_entries: total as u64,
        truncated: total > entries.len(),
        entries,
        warnings,
    };
    Ok(ToolOutput::text(value, text).with_meta(meta))
}

/// The `limit` to apply: `default` when absent; 0 is ignored (noted in `adjustments`).
pub(crate) fn effective_limit(limit: Option<u32>, default: u32, adjustments: &mut Vec<String>) -> usize {
    match limit {
        Some(0) => {
            adjustments.push("ignored limit 0".to_owned());
            default as usize
        }
        Some(limit) => limit as usize,
        None => default as usize,
    }
}

/// The directory argument to resolve: `.` when absent; an empty string is ignored (noted
/// in `adjustments`).
pub(crate) fn effective_path<'a>(path: Option<&'a str>, adjustments: &mut Vec<String>) -> &'a str {
    match path {
        Some("") => {
            adjustments.push("ignored empty path".to_owned());
            "."
        }
        Some(path) => path,
        None => ".",
    }
}

/// A JSON-quoted string, as messages show arguments.
pub(crate) fn quoted(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}

/// The kind of the entry a symlink points to (a dangling link is a file).
pub(crate) fn kind_through_link(path: &Path) -> EntryKind {
    match fs::metadata(path) {
        Ok(meta) if meta.is_dir() => EntryKind::Dir,
        _ => EntryKind::File,
    }
}

/// Maps an I/O error on the directory a listing starts from.
pub(crate) fn root_error(err: &io::Error, path: &ResolvedPath) -> ToolError {
    let p = &path.shown();
    let error = match err.kind() {
        io::ErrorKind::NotFound => ToolError::new(ErrorCode::PathNotFound, format!("Error: path '{p}' does not exist")),
        io::ErrorKind::PermissionDenied => {
            ToolError::new(ErrorCode::PermissionDenied, format!("Error: permission denied for path '{p}'"))
        }
        _ => ToolError::new(ErrorCode::FsError, format!("Error: could not access path '{p}': {err}")).with_details(
            json!({
                "fsCode": format!("{:?}", err.kind()),
                "errno": err.raw_os_error(),
                "fsMessage": err.to_string(),
            }),
        ),
    };
    error.with_path(path.absolute_str())
}

/// The error of a searched path that could not be opened as a file (`grep` and
/// `ast_search` given one file): a FIFO, socket or device is refused as `read` refuses it,
/// anything else as [`root_error`].
pub(crate) fn file_target_error(err: &io::Error, path: &ResolvedPath) -> ToolError {
    if !hashline_search::NotRegularFile::is(err) {
        return root_error(err, path);
    }
    ToolError::new(
        ErrorCode::FsError,
        format!("Not a regular file: {} (a FIFO, socket or device). The tools only read regular files.", path.shown()),
    )
    .with_path(path.absolute_str())
}

/// A path as a listing line shows it: escaped as every name is
/// ([`hashline_core::display::escape_name`]), and a trailing `/` for a directory.
pub(crate) fn shown_path(path: &str, kind: EntryKind) -> String {
    let shown = escape_name(path);
    match kind {
        EntryKind::Dir => format!("{shown}/"),
        EntryKind::File => shown.into_owned(),
    }
}

/// A listing as text: the lines that fit the byte budget.
#[derive(Debug)]
pub(crate) struct Listing {
    /// One entry per line, then the "more entries" notice, cut at whole lines, then
    /// [`BYTES_NOTICE`] when the budget cut something.
    pub text: String,
    /// The entry lines the text shows.
    pub shown: Vec<String>,
}

/// Bytes the warnings take before a listing.
pub(crate) fn frame_of(warnings: &[Warning]) -> usize {
    warnings.iter().map(|w| w.message.len() + 2).sum()
}

/// Joins entry lines and an optional "more entries" notice, cut at whole lines so that
/// with `frame` bytes before it and its notice it fits `budget`.
pub(crate) fn render_listing(lines: Vec<String>, more: Option<String>, budget: Budget, frame: usize) -> Listing {
    let notice = bytes_notice(budget);
    let room = budget.bytes_after(frame + notice.len());
    let mut text = String::new();
    let mut fitted = 0usize;
    let total_lines = lines.len() + usize::from(more.is_some());
    for line in lines.iter().chain(more.iter()) {
        let separator = usize::from(!text.is_empty());
        if text.len() + separator + line.len() > room || fitted == budget.lines {
            break;
        }
        if separator == 1 {
            text.push('\n');
        }
        text.push_str(line);
        fitted += 1;
    }
    if fitted < total_lines {
        text.push_str(&notice);
    }
    let mut shown = lines;
    shown.truncate(fitted);
    Listing { text, shown }
}

/// The presentation meta of a listing (`hashline_view::PathsMeta`).
pub(crate) fn paths_meta(shown: Vec<String>, total: usize) -> PathsMeta {
    PathsMeta { truncated: shown.len() < total, total: total as u64, paths: shown }
}

/// The text: each warning, a blank line, then the body.
pub(crate) fn with_warnings(warnings: &[Warning], body: &str) -> String {
    let mut text = String::new();
    for warning in warnings {
        text.push_str(&warning.message);
        text.push_str("\n\n");
    }
    text.push_str(body);
    text
}

/// Directories first, then files; each group by name case-insensitively, ties by exact
/// name.
fn sort_entries(entries: &mut [LsEntry]) {
    entries.sort_by_cached_key(|e| (e.kind != EntryKind::Dir, e.name.to_lowercase(), e.name.clone()));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_first_then_names_case_insensitively_then_exactly() {
        let entry = |name: &str, kind| LsEntry { name: name.to_owned(), kind };
        let mut entries = vec![
            entry("b", EntryKind::File),
            entry("B", EntryKind::File),
            entry("z", EntryKind::Dir),
            entry("a", EntryKind::File),
            entry("C", EntryKind::File),
            entry("_x", EntryKind::File),
            entry("A", EntryKind::File),
            entry("Y", EntryKind::Dir),
        ];
        sort_entries(&mut entries);
        let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["Y", "z", "_x", "A", "a", "B", "b", "C"]);
    }

    #[test]
    fn shown_paths_escape_controls() {
        assert_eq!(shown_path("a\nb", EntryKind::File), "a\\u000ab");
        assert_eq!(shown_path("dir", EntryKind::Dir), "dir/");
        assert_eq!(shown_path("tab\there", EntryKind::File), "tab\\u0009here");
        assert_eq!(shown_path("\u{9b}2J\u{202e}", EntryKind::File), "\\u009b2J\\u202e");
    }

    #[test]
    fn listing_is_cut_at_whole_lines() {
        let lines: Vec<String> = (0..100).map(|i| format!("{i:0>1000}")).collect();
        let listing = render_listing(lines.clone(), Some("[more]".to_owned()), Budget::DEFAULT, 0);
        assert_eq!(listing.shown.len(), 51);
        assert!(listing.text.ends_with(BYTES_NOTICE));
        assert!(listing.text.len() <= MAX_BYTES);
        let small = render_listing(vec!["a".into()], Some("[more]".into()), Budget::DEFAULT, 0);
        assert_eq!(small.text, "a\n[more]");
        // A client's smaller budget: the whole text, warnings before it included, fits.
        let budget = Budget::new(2000, 10_000);
        let listing = render_listing(lines, Some("[more]".to_owned()), budget, 300);
        assert_eq!(listing.shown.len(), 9);
        assert!(
            listing.text.ends_with("\n[… truncated at this client's 2000-line / 9.8KB budget]"),
            "{}",
            listing.text
        );
        assert!(300 + listing.text.len() <= 10_000);
        let few = render_listing((0..100).map(|i| i.to_string()).collect(), None, Budget::new(20, 10_000), 0);
        assert_eq!(few.shown.len(), 20);
    }
}
