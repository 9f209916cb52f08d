//! `find` (SPEC §5.3): entries below a directory whose name matches a glob or a regex,
//! found with the `ignore` crate's parallel walker (nested `.gitignore` and `.ignore`
//! respected, `.git` skipped, hidden files included), then filtered, sorted and limited.

mod filters;

use hashline_fs::lookup as fs;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use hashline_core::display::escape_name;
use hashline_search::{IgnoreConfig, SkippedIgnoreFile, TreeRules};
use ignore::{DirEntry, ParallelVisitor, ParallelVisitorBuilder, WalkState};
use regex::Regex;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use typed_builder::TypedBuilder;

pub use filters::{SizeArg, parse_modified_since, parse_size};

use super::ls::{
    EntryKind, effective_limit, effective_path, frame_of, kind_through_link, paths_meta, quoted, render_listing,
    root_error, shown_path, with_warnings,
};
use crate::error::{ErrorCode, ToolError};
use crate::result::{CallContext, ToolOutput, ToolValue};
use crate::session::Session;
use crate::tool::Tool;
use crate::tools::pattern::{NameGlob, name_glob, name_regex};
use crate::warning::Warning;

/// How many entries `find` shows when `limit` is not given.
pub const DEFAULT_LIMIT: u32 = 1000;

/// Arguments of `find`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema, TypedBuilder)]
#[serde(rename_all = "camelCase")]
pub struct FindArgs {
    /// A glob matched against each name alone, never its directories (`*.rs`,
    /// `*.{ts,tsx}`, `Cargo.toml`), or a regular expression with `regex: true`. A directory
    /// goes in `path`.
    #[builder(setter(into))]
    pub pattern: String,
    /// The directory to search (default: the working directory).
    #[builder(default, setter(strip_option, into))]
    pub path: Option<String>,
    /// `file` (default), `dir` or `any`.
    #[serde(rename = "type")]
    #[builder(default, setter(strip_option))]
    pub kind: Option<FindType>,
    /// At most this many entries (default 1000), after filters and sorting.
    #[builder(default, setter(strip_option))]
    pub limit: Option<u32>,
    /// 1 = direct children of `path` only (default: unlimited).
    #[builder(default, setter(strip_option))]
    pub max_depth: Option<u32>,
    /// `pattern` is a regular expression (Rust syntax).
    #[builder(default, setter(strip_option))]
    pub regex: Option<bool>,
    /// `name` (the path; default), `mtime` (oldest first) or `size` (smallest first).
    #[builder(default, setter(strip_option))]
    pub sort_by: Option<SortBy>,
    /// Reverse the order.
    #[builder(default, setter(strip_option))]
    pub reverse: Option<bool>,
    /// Only entries modified after a date `2024-01-31`, a time `2024-01-31T12:00:00Z`, or
    /// a span back from now: `30m`, `12h`, `7d`.
    #[builder(default, setter(strip_option, into))]
    pub modified_since: Option<String>,
    /// Only files at least this large: bytes, or `500K`, `1.5MB` (1024-based).
    #[builder(default, setter(strip_option, into))]
    pub min_size: Option<SizeArg>,
    /// Only files at most this large (as `minSize`).
    #[builder(default, setter(strip_option, into))]
    pub max_size: Option<SizeArg>,
}

/// The `type` filter of `find`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FindType {
    /// Files (and symlinks to files) only.
    #[default]
    File,
    /// Directories (and symlinks to directories) only.
    Dir,
    /// Both.
    Any,
}

/// The order of `find` results.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SortBy {
    /// By relative path, byte-wise (case-sensitive).
    #[default]
    Name,
    /// By modification time, oldest first; ties by path.
    Mtime,
    /// By size in bytes, smallest first; ties by path.
    Size,
}

/// One entry found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct FindEntry {
    /// The path relative to the working directory (absolute when outside it), without a
    /// trailing `/`.
    pub path: String,
    /// File or directory.
    #[serde(rename = "type")]
    pub kind: EntryKind,
}

/// The typed value of `find`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FindValue {
    /// The pattern searched for.
    pub pattern: String,
    /// The absolute path of the searched directory.
    pub path: String,
    /// How many entries matched every filter (before `limit`).
    pub total_entries: u64,
    /// Whether `limit` left entries out.
    pub truncated: bool,
    /// The entries within `limit`, in result order. The text may show fewer when it hits
    /// the 50 KB budget.
    pub entries: Vec<FindEntry>,
    /// Warnings shown above the results.
    pub warnings: Vec<Warning>,
}

impl ToolValue for FindValue {
    fn warnings_mut(&mut self) -> &mut Vec<Warning> {
        &mut self.warnings
    }
}

/// The `find` tool.
pub struct FindTool;

impl Tool for FindTool {
    const NAME: &'static str = "find";
    type Args = FindArgs;
    type Value = FindValue;

    fn run(session: &Session, args: FindArgs, ctx: &CallContext) -> Result<ToolOutput<FindValue>, ToolError> {
        find_in(session, args, ctx)
    }

    fn integer_error_code(name: &str) -> ErrorCode {
        match name {
            "limit" => ErrorCode::InvalidLimit,
            "maxDepth" => ErrorCode::InvalidParamsCombo,
            _ => ErrorCode::InvalidType,
        }
    }
}

/// The guidance added when a glob with a `/` found nothing.
const BASENAME_GUIDANCE: &str =
    "find matches basenames only; move the directory part into path (e.g. path: \"src\", pattern: \"*.rs\").";

/// Runs `find` as a top-level call.
pub fn find(session: &Session, args: FindArgs) -> Result<ToolOutput<FindValue>, ToolError> {
    find_in(session, args, &CallContext::top_level())
}

/// Runs `find` in `ctx` (its budget).
pub fn find_in(session: &Session, args: FindArgs, ctx: &CallContext) -> Result<ToolOutput<FindValue>, ToolError> {
    let mut adjustments = Vec::new();
    let limit = effective_limit(args.limit, DEFAULT_LIMIT, &mut adjustments);
    let raw_path = effective_path(args.path.as_deref(), &mut adjustments);
    let regex = args.regex == Some(true);
    let matcher = NameMatcher::new(&args.pattern, regex)?;
    let filters = Filters::new(&args)?;

    let path = session.resolve(raw_path)?;
    let meta = fs::metadata(&path.real).map_err(|err| root_error(&err, &path))?;
    if !meta.is_dir() {
        let p = &path.shown();
        return Err(ToolError::new(ErrorCode::PathNotDirectory, format!("Error: '{p}' is not a directory"))
            .with_hint(format!("Use ls on a directory, or read({}) for a single file.", quoted(p)))
            .with_path(path.absolute_str()));
    }

    let search = Search {
        session,
        matcher: &matcher,
        kind: args.kind.unwrap_or_default(),
        needs_stat: filters.needs_stat(args.sort_by.unwrap_or_default()),
        cancel: &ctx.cancel,
    };
    let (mut found, skipped, unread) = search.walk(&path.real, args.max_depth);
    ctx.cancel.check_search("Find")?;
    found.retain(|candidate| filters.keep(candidate));
    sort(&mut found, args.sort_by.unwrap_or_default(), args.reverse == Some(true));

    let total = found.len();
    found.truncate(limit);
    let entries: Vec<FindEntry> = found.into_iter().map(|c| FindEntry { path: c.path, kind: c.kind }).collect();
    let lines: Vec<String> = entries.iter().map(|e| shown_path(&e.path, e.kind)).collect();
    let more = (total > entries.len())
        .then(|| format!("[… {} more entries — refine pattern or increase limit]", total - entries.len()));
    let mut warnings = Vec::new();
    if !adjustments.is_empty() {
        warnings.push(Warning::params_adjusted("Find params", &adjustments));
    }
    warnings.extend(Warning::ignore_files_skipped(&skipped, |p| session.shown_display(p)));
    warnings.extend(Warning::files_skipped(
        &[(
            unread.count,
            "directory that could not be read",
            "directories that could not be read",
            unread.named.iter().map(|p| session.shown_display(p)).collect(),
        )],
        "What is below them is not listed.",
    ));
    let listing = render_listing(lines, more, ctx.budget, frame_of(&warnings));
    let body = if total == 0 {
        let mut none = format!("No files found matching pattern: {}", escape_name(&args.pattern));
        if !regex && args.pattern.contains('/') {
            none.push('\n');
            none.push_str(BASENAME_GUIDANCE);
        }
        none
    } else {
        listing.text
    };
    let text = with_warnings(&warnings, &body);
    let meta = paths_meta(listing.shown, total);
    let value = FindValue {
        pattern: args.pattern,
        path: path.absolute_str(),
        total_entries: total as u64,
        truncated: total > entries.len(),
        entries,
        warnings,
    };
    Ok(ToolOutput::text(value, text).with_meta(meta))
}

/// Matches an entry's name.
enum NameMatcher {
    Glob(NameGlob),
    Regex(Regex),
}

impl NameMatcher {
    fn new(pattern: &str, regex: bool) -> Result<Self, ToolError> {
        if pattern.is_empty() {
            return Err(ToolError::new(
                ErrorCode::InvalidParamsCombo,
                "Error: pattern is empty. Give a glob such as \"*.rs\" (or a regex with regex: true).",
            ));
        }
        if !regex {
            return name_glob(pattern).map(NameMatcher::Glob);
        }
        name_regex(pattern).map(NameMatcher::Regex)
    }

    fn is_match(&self, name: &OsStr) -> bool {
        match self {
            NameMatcher::Glob(glob) => glob.is_match(name),
            NameMatcher::Regex(regex) => regex.is_match(&name.to_string_lossy()),
        }
    }
}

/// The filters that need file metadata.
struct Filters {
    modified_since: Option<SystemTime>,
    min_size: Option<u64>,
    max_size: Option<u64>,
}

impl Filters {
    fn new(args: &FindArgs) -> Result<Self, ToolError> {
        let invalid = |message: String| ToolError::new(ErrorCode::InvalidParamsCombo, format!("Error: {message}"));
        let modified_since = args
            .modified_since
            .as_deref()
            .map(|value| parse_modified_since(value, SystemTime::now()))
            .transpose()
            .map_err(invalid)?;
        let min_size = args.min_size.as_ref().map(|v| parse_size("minSize", v)).transpose().map_err(invalid)?;
        let max_size = args.max_size.as_ref().map(|v| parse_size("maxSize", v)).transpose().map_err(invalid)?;
        if let (Some(min), Some(max)) = (min_size, max_size)
            && min > max
        {
            return Err(invalid(format!(
                "minSize ({min} bytes) is larger than maxSize ({max} bytes), so no file can match."
            )));
        }
        Ok(Self { modified_since, min_size, max_size })
    }

    fn needs_stat(&self, sort_by: SortBy) -> bool {
        sort_by != SortBy::Name || self.modified_since.is_some() || self.min_size.is_some() || self.max_size.is_some()
    }

    /// Whether a candidate passes: modified strictly after `modifiedSince`, and (files
    /// only) within the size bounds. Entries without metadata fail any of these filters.
    fn keep(&self, candidate: &Candidate) -> bool {
        if let Some(since) = self.modified_since {
            let modified = candidate.stat.and_then(|s| s.modified);
            if modified.is_none_or(|m| m <= since) {
                return false;
            }
        }
        if candidate.kind == EntryKind::File && (self.min_size.is_some() || self.max_size.is_some()) {
            let Some(size) = candidate.stat.map(|s| s.size) else {
                return false;
            };
            if self.min_size.is_some_and(|min| size < min) || self.max_size.is_some_and(|max| size > max) {
                return false;
            }
        }
        true
    }
}

/// An entry that matched the name and type, before the metadata filters.
#[derive(Debug)]
struct Candidate {
    path: String,
    kind: EntryKind,
    stat: Option<Stat>,
}

/// What sorting and filtering need of an entry's metadata (symlinks followed).
#[derive(Clone, Copy, Debug)]
struct Stat {
    modified: Option<SystemTime>,
    size: u64,
}

/// One walk: what to match and what to collect.
struct Search<'a> {
    session: &'a Session,
    matcher: &'a NameMatcher,
    kind: FindType,
    needs_stat: bool,
    /// The call's cancellation: once set, every walker thread quits.
    cancel: &'a crate::result::CancelFlag,
}

impl Search<'_> {
    /// Walks `root` in parallel and returns the matching entries, unordered, and the ignore
    /// files it could not apply. The ignore files are read by `hashline-search`'s
    /// [`TreeRules`] (guarded, bounded reads), never by the walker itself.
    fn walk(&self, root: &Path, max_depth: Option<u32>) -> (Vec<Candidate>, Vec<SkippedIgnoreFile>, Unread) {
        let found = Mutex::new(Vec::new());
        let unread = Mutex::new(Unread::default());
        let rules = Arc::new(TreeRules::new(root, IgnoreConfig::FIND, None));
        rules.walk_builder(0).max_depth(max_depth.map(|d| d as usize)).build_parallel().visit(&mut CollectorBuilder {
            search: self,
            found: &found,
            unread: &unread,
        });
        let mut unread = unread.into_inner().unwrap_or_else(|p| p.into_inner());
        unread.named.sort();
        unread.named.truncate(hashline_search::NAMED_SKIPS);
        (found.into_inner().unwrap_or_else(|p| p.into_inner()), rules.skipped(), unread)
    }

    /// The candidate for one walked entry, when it matches.
    fn candidate(&self, entry: &DirEntry) -> Option<Candidate> {
        if entry.depth() == 0 {
            return None;
        }
        let file_type = entry.file_type()?;
        let kind = if file_type.is_symlink() {
            kind_through_link(entry.path())
        } else if file_type.is_dir() {
            EntryKind::Dir
        } else {
            EntryKind::File
        };
        let wanted = match self.kind {
            FindType::File => kind == EntryKind::File,
            FindType::Dir => kind == EntryKind::Dir,
            FindType::Any => true,
        };
        if !wanted || !self.matcher.is_match(entry.file_name()) {
            return None;
        }
        let stat = self.needs_stat.then(|| stat_of(entry)).flatten();
        Some(Candidate { path: self.session.relative_display(entry.path()), kind, stat })
    }
}

fn stat_of(entry: &DirEntry) -> Option<Stat> {
    let meta = if entry.path_is_symlink() { fs::metadata(entry.path()).ok()? } else { entry.metadata().ok()? };
    Some(Stat { modified: meta.modified().ok(), size: meta.len() })
}

/// Builds one collector per walker thread.
struct CollectorBuilder<'a> {
    search: &'a Search<'a>,
    found: &'a Mutex<Vec<Candidate>>,
    unread: &'a Mutex<Unread>,
}

/// Entries the walk could not read (a directory without permission, a path too deep for the
/// system): how many, and the first by path.
#[derive(Default)]
struct Unread {
    count: u64,
    named: Vec<PathBuf>,
}

impl<'s> ParallelVisitorBuilder<'s> for CollectorBuilder<'s> {
    fn build(&mut self) -> Box<dyn ParallelVisitor + 's> {
        Box::new(Collector { search: self.search, found: self.found, unread: self.unread, local: Vec::new() })
    }
}

/// Collects one thread's matches and hands them over when the thread is done.
struct Collector<'a> {
    search: &'a Search<'a>,
    found: &'a Mutex<Vec<Candidate>>,
    unread: &'a Mutex<Unread>,
    local: Vec<Candidate>,
}

impl ParallelVisitor for Collector<'_> {
    fn visit(&mut self, entry: Result<DirEntry, ignore::Error>) -> WalkState {
        if self.search.cancel.is_cancelled() {
            return WalkState::Quit;
        }
        // Unreadable subdirectories are skipped, as `fd` does, and counted (the result says
        // so); vanished entries are skipped alone.
        match entry {
            Ok(entry) => {
                if let Some(candidate) = self.search.candidate(&entry) {
                    self.local.push(candidate);
                }
            }
            Err(err) if err.io_error().is_some_and(|e| e.kind() == std::io::ErrorKind::NotFound) => {}
            Err(err) => {
                let mut unread = self.unread.lock().unwrap_or_else(|p| p.into_inner());
                unread.count += 1;
                if let Some(path) = hashline_search::error_path(&err) {
                    unread.named.push(path.to_path_buf());
                }
            }
        }
        WalkState::Continue
    }
}

impl Drop for Collector<'_> {
    fn drop(&mut self) {
        let mut found = self.found.lock().unwrap_or_else(|p| p.into_inner());
        found.append(&mut self.local);
    }
}

/// Sorts candidates: by path; or by mtime / size with ties by path. `reverse` flips the
/// whole name order, or only the primary key of mtime / size.
fn sort(found: &mut [Candidate], sort_by: SortBy, reverse: bool) {
    let key = |c: &Candidate| -> u128 {
        match (sort_by, c.stat) {
            (SortBy::Size, Some(stat)) => u128::from(stat.size),
            (SortBy::Mtime, Some(Stat { modified: Some(m), .. })) => {
                m.duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_nanos())
            }
            _ => 0,
        }
    };
    found.sort_by(|a, b| {
        let primary = key(a).cmp(&key(b));
        let primary = if reverse { primary.reverse() } else { primary };
        let by_path = a.path.cmp(&b.path);
        match sort_by {
            SortBy::Name if reverse => by_path.reverse(),
            SortBy::Name => by_path,
            _ => primary.then(by_path),
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidate(path: &str, size: u64, secs: u64) -> Candidate {
        Candidate {
            path: path.to_owned(),
            kind: EntryKind::File,
            stat: Some(Stat { modified: Some(SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(secs)), size }),
        }
    }

    fn order(sort_by: SortBy, reverse: bool) -> Vec<String> {
        let mut found =
            vec![candidate("b", 1, 30), candidate("a", 2, 10), candidate("C", 1, 20), candidate("d", 2, 20)];
        sort(&mut found, sort_by, reverse);
        found.into_iter().map(|c| c.path).collect()
    }

    #[test]
    fn sorting_by_name_mtime_and_size() {
        assert_eq!(order(SortBy::Name, false), ["C", "a", "b", "d"]);
        assert_eq!(order(SortBy::Name, true), ["d", "b", "a", "C"]);
        assert_eq!(order(SortBy::Mtime, false), ["a", "C", "d", "b"]);
        assert_eq!(order(SortBy::Mtime, true), ["b", "C", "d", "a"]);
        assert_eq!(order(SortBy::Size, false), ["C", "b", "a", "d"]);
        assert_eq!(order(SortBy::Size, true), ["a", "d", "C", "b"]);
    }

    #[test]
    fn regex_and_glob_matchers() {
        let glob = NameMatcher::new("*.rs", false).expect("glob");
        assert!(glob.is_match(OsStr::new(".x.rs")) && !glob.is_match(OsStr::new("a.rsx")));
        let regex = NameMatcher::new("^lib\\.(rs|toml)$", true).expect("regex");
        assert!(regex.is_match(OsStr::new("lib.rs")) && !regex.is_match(OsStr::new("xlib.rs")));
        let err = NameMatcher::new("([", true).err().expect("invalid regex");
        assert_eq!(err.code, ErrorCode::InvalidPattern);
        assert!(
            err.message.starts_with("Error: invalid regex for fields 'pattern'/'regex' (\"([\"): "),
            "{}",
            err.message
        );
        assert_eq!(NameMatcher::new("", false).err().map(|e| e.code), Some(ErrorCode::InvalidParamsCombo));
    }
}
