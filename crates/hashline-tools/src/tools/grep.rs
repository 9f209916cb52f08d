//! `grep` (SPEC §5.5): a thin adapter over `hashline-search`. It checks the arguments, runs
//! the search, admits matches under `limit` in path order, applies the per-file cap, renders
//! the text (`render.rs`) and records the rows it returned as served (where the model sees the
//! text alone, the rows the text shows).

mod admit;
mod render;
mod scoped;

pub(crate) use render::clip_line;

use hashline_core::snapshot::SnapshotTag;
use hashline_fs::lookup as fs;
use std::collections::HashMap;

use hashline_search::{FileScan, HitKind, HitLine, Query, QueryError, SearchOptions, search, search_file};
use hashline_view::MatchesMeta;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use typed_builder::TypedBuilder;

use super::ls::{effective_path, file_target_error, quoted, root_error};
use crate::error::{ErrorCode, ToolError};
use crate::result::{CallContext, ToolOutput, ToolValue};
use crate::session::Session;
use crate::tool::Tool;
use crate::warning::Warning;

pub use admit::{PER_FILE_CAP, PER_FILE_CAP_ABOVE};
pub use scoped::{GrepScopeGroup, GrepScopeWarning, GrepScopes, MAX_SCOPE_RECORDS, MAX_SCOPED_FILE_BYTES, ScopeSymbol};

/// How many matches `grep` returns when `limit` is not given.
pub const DEFAULT_LIMIT: u32 = 100;

/// Arguments of `grep`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, JsonSchema, TypedBuilder)]
#[serde(rename_all = "camelCase")]
pub struct GrepArgs {
    /// A regular expression (Rust syntax), or exact text with `literal: true`.
    #[builder(setter(into))]
    pub pattern: String,
    /// A directory (searched recursively) or one file; default: the working directory.
    #[builder(default, setter(strip_option, into))]
    pub path: Option<String>,
    /// Only files matching this glob: `*.rs`, `src/**/*.ts`; `!` excludes.
    #[builder(default, setter(strip_option, into))]
    pub glob: Option<String>,
    /// Ignore case.
    #[builder(default, setter(strip_option))]
    pub ignore_case: Option<bool>,
    /// `pattern` is plain text.
    #[builder(default, setter(strip_option))]
    pub literal: Option<bool>,
    /// Lines of context around each match.
    #[builder(default, setter(strip_option))]
    pub context: Option<u32>,
    /// At most this many matches (default 100), in path order; above 50, each file shows
    /// its first 10.
    #[builder(default, setter(strip_option))]
    pub limit: Option<u32>,
    /// Per-file match counts only.
    #[builder(default, setter(strip_option))]
    pub summary: Option<bool>,
    /// `symbol`: group matches by their enclosing function, method or class, each shown
    /// whole (or `scopeContext` lines around each match).
    #[builder(default, setter(strip_option))]
    pub scope: Option<GrepScope>,
    /// With `scope`: this many lines around each match inside its symbol (0 = the matching
    /// lines only).
    #[builder(default, setter(strip_option))]
    pub scope_context: Option<u32>,
}

/// The `scope` of `grep`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum GrepScope {
    /// Group matches by the smallest enclosing symbol.
    Symbol,
}

/// Whether a record is a matching line or context around one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RecordKind {
    /// A line that matched.
    Match,
    /// A line near a match.
    Context,
}

/// One anchored line of the result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct GrepRecord {
    /// The file's absolute path.
    // Shared by the file's records: an unbounded search returns ~100k of them.
    pub path: std::sync::Arc<str>,
    /// 1-based line number.
    pub line: u32,
    /// `LINE:HASH`, as the row shows it.
    pub anchor: String,
    /// Match or context.
    pub kind: RecordKind,
}

/// One file with matches.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GrepFile {
    /// The file's absolute path.
    pub path: String,
    /// Every line of the file that matched.
    pub matches: u64,
    /// How many of them are in `records`.
    pub returned_matches: u64,
    /// The tag of the file's bytes the rows were taken from, for `edit`'s `snapshot`
    /// (docs/protocol.md §1.5): given for the first files whose rows the text shows, when
    /// the file read again still holds every row shown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<String>,
}

/// Whether the search was complete and what the result left out (every field is
/// independent of the others).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Completeness {
    /// `complete`: every file under the path was searched (binary, hidden and ignored
    /// files are skipped by design); `unknown`: some files or directories could not be
    /// read, so matches may be missing.
    pub search: SearchState,
    /// `all`: every file was searched and counted (summary mode, or fewer matches than
    /// `limit`); `stoppedAtLimit`: the search stopped, in path order, at the file that
    /// took it past `limit`, so `totalMatches`, `omittedMatches` and `files` are lower
    /// bounds / partial (the records are exactly a full search's); `summary: true` counts
    /// every match.
    pub counted: Counted,
    /// `limit` cut matches: more matches exist than were admitted (an exact-limit result
    /// is not flagged).
    pub limit_reached: bool,
    /// A native output bound cut the search. Always false: the search has none.
    pub native_truncated: bool,
    /// Matched lines found but not in `records` (after `limit` and the per-file cap);
    /// `null` when nothing was interpreted (a binary file target).
    pub omitted_matches: Option<u64>,
    /// The text shows less than `records` (the 2000-line / 50 KB budget, or long lines
    /// clipped at 500 characters).
    pub display_truncated: bool,
}

/// How far a search counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Counted {
    /// Every file was searched and its matches counted.
    All,
    /// The search stopped once it had more than `limit` matches in path order.
    StoppedAtLimit,
}

/// Whether a search covered everything it should have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SearchState {
    /// Every searchable file was searched.
    Complete,
    /// Some files could not be read.
    Unknown,
}

/// The typed value of `grep`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GrepValue {
    /// Whether this was a summary (counts only, no records).
    pub summary: bool,
    /// Every matched line found: all of them with `completeness.counted: "all"`, a lower
    /// bound (more than `limit`) with `"stoppedAtLimit"`.
    pub total_matches: u64,
    /// The anchored lines returned, in path then line order: matches and their context.
    /// Empty in summary mode.
    pub records: Vec<GrepRecord>,
    /// The files with matches, in path order (the first ones only when the search stopped
    /// at `limit`).
    pub files: Vec<GrepFile>,
    /// Symbol-scope groups and fallbacks; `null` without `scope` (and in summary mode).
    pub scopes: Option<GrepScopes>,
    /// What the result left out.
    pub completeness: Completeness,
    /// Files skipped because they are binary.
    pub binary_files: u64,
    /// Files or directories that could not be read.
    pub unreadable_files: u64,
    /// Warnings shown above the results.
    pub warnings: Vec<Warning>,
}

impl ToolValue for GrepValue {
    fn warnings_mut(&mut self) -> &mut Vec<Warning> {
        &mut self.warnings
    }
}

/// The `grep` tool.
pub struct GrepTool;

impl Tool for GrepTool {
    const NAME: &'static str = "grep";
    type Args = GrepArgs;
    type Value = GrepValue;

    fn run(session: &Session, args: GrepArgs, ctx: &CallContext) -> Result<ToolOutput<GrepValue>, ToolError> {
        grep_in(session, args, ctx)
    }

    fn integer_error_code(name: &str) -> ErrorCode {
        match name {
            "limit" => ErrorCode::InvalidLimit,
            "context" | "scopeContext" => ErrorCode::InvalidParamsCombo,
            _ => ErrorCode::InvalidType,
        }
    }
}

/// Runs `grep` as a top-level call.
pub fn grep(session: &Session, args: GrepArgs) -> Result<ToolOutput<GrepValue>, ToolError> {
    grep_in(session, args, &CallContext::top_level())
}

/// Runs `grep` in a call context.
pub fn grep_in(session: &Session, args: GrepArgs, ctx: &CallContext) -> Result<ToolOutput<GrepValue>, ToolError> {
    let limit = match args.limit {
        Some(0) => {
            return Err(ToolError::new(
                ErrorCode::InvalidLimit,
                "Invalid limit: expected a positive integer, received 0.",
            ));
        }
        Some(limit) => limit as usize,
        None => DEFAULT_LIMIT as usize,
    };
    if args.scope_context.is_some() && args.scope.is_none() {
        return Err(ToolError::new(
            ErrorCode::InvalidParamsCombo,
            "Invalid scopeContext: requires scope: \"symbol\". For normal surrounding-line context outside symbol scope, use the `context` parameter.",
        ));
    }
    let query = Query {
        pattern: args.pattern.clone(),
        literal: args.literal == Some(true),
        ignore_case: args.ignore_case == Some(true),
        context: args.context.unwrap_or(0),
    };
    let query = query.compile().map_err(|err| match err {
        // Too long to quote back.
        QueryError::TooLong { .. } => ToolError::new(ErrorCode::InvalidPattern, format!("Invalid pattern: {err}."))
            .with_hint("Search for a shorter, distinctive part of the text; run one grep per alternative."),
        _ => ToolError::new(ErrorCode::InvalidPattern, format!("Invalid pattern {}: {err}", quoted(&args.pattern)))
            .with_hint("Escape regex metacharacters, or pass literal: true to search for the text as written."),
    })?;
    let mut adjustments = Vec::new();
    let raw_path = effective_path(args.path.as_deref(), &mut adjustments);
    let path = session.resolve(raw_path)?;
    let meta = fs::metadata(&path.real).map_err(|err| root_error(&err, &path))?;
    let summary = args.summary == Some(true);
    let mut warnings = Vec::new();
    if !adjustments.is_empty() {
        warnings.push(Warning::params_adjusted("Grep params", &adjustments));
    }

    if !meta.is_dir() {
        let scan = search_file(&path.real, &query, 0).map_err(|err| file_target_error(&err, &path))?;
        if scan == FileScan::Binary {
            return Ok(binary_target(&path.shown(), summary, warnings));
        }
    }
    let glob = args.glob.as_deref().filter(|g| !g.is_empty());
    // Rows need at most 50 matches a file (more admitted means 10 a file); once more than
    // 50 are found, 10 a file. Rows stop the search in path order once `limit` is passed:
    // what it shows is then known (summary counts everything).
    let capped = limit > PER_FILE_CAP_ABOVE;
    let options = SearchOptions {
        glob: glob.map(str::to_owned),
        threads: 0,
        keep_per_file: if summary { 0 } else { limit.min(PER_FILE_CAP_ABOVE) },
        stop_after: (!summary).then_some(limit as u64),
        keep_above: capped.then_some((PER_FILE_CAP_ABOVE as u64, PER_FILE_CAP)),
        // Text alone, in sections: each file has a row, so the text's rows end within the
        // first `MAX_LINES` files and the later ones are only counted; their lines' bytes
        // are not needed, nor kept (the value's card, which shows them, is not made).
        measure_after: (ctx.text_only && !summary && args.scope.is_none())
            .then_some((ctx.budget.lines, render::MAX_LINE_CHARS)),
        cancel: Some(hashline_search::Cancel(ctx.cancel.shared())),
    };
    let found = search(&path.real, &query, &options).map_err(|err| match err {
        hashline_search::SearchError::Glob { glob, message } => {
            ToolError::new(ErrorCode::InvalidPattern, format!("Invalid glob {}: {message}", quoted(&glob)))
        }
        err @ hashline_search::SearchError::GlobTooLong { .. } => {
            ToolError::new(ErrorCode::InvalidPattern, format!("Invalid glob: {err}."))
        }
        hashline_search::SearchError::Io(err) => file_target_error(&err, &path),
    })?;
    ctx.cancel.check_search("Grep")?;

    warnings.extend(Warning::ignore_files_skipped(&found.skipped_ignore_files, |p| session.shown_display(p)));
    if meta.is_dir() {
        let named = |why: hashline_search::Skipped| {
            found.skipped.iter().filter(|(_, w)| *w == why).map(|(p, _)| session.shown_display(p)).collect()
        };
        warnings.extend(Warning::files_skipped(
            &[
                (
                    found.binary_files,
                    "binary file (a NUL byte in its first 8 KiB)",
                    "binary files (a NUL byte in their first 8 KiB)",
                    named(hashline_search::Skipped::Binary),
                ),
                (
                    found.unreadable,
                    "file or directory that could not be read",
                    "files or directories that could not be read",
                    named(hashline_search::Skipped::Unreadable),
                ),
            ],
            "Read a file to see it.",
        ));
    }
    let admitted =
        if summary { admit::Admitted::default() } else { admit::admit(&found.files, limit, query.context()) };
    let shown = |p: &std::path::Path| session.shown_display(p);
    let limit_cut = found.total_matches > admitted.total as u64;
    let scope = if summary { None } else { args.scope };
    // The rows shown, by file: the scoped rows (their own lines: a symbol's context), or
    // the admitted ones, borrowed from the search's (an unbounded search admits ~100k).
    let mut scoped_records: Vec<(std::path::PathBuf, Vec<HitLine>)> = Vec::new();
    let mut scoped_text = None;
    if let Some(GrepScope::Symbol) = scope {
        let scoped =
            scoped::scoped(session, &admitted, shown, args.scope_context, query.context(), limit_cut, ctx.budget);
        warnings.extend(scoped::warnings_of(&scoped.scopes));
        scoped_records = scoped.records;
        scoped_text = Some((scoped.rendered, scoped.scopes, scoped.record_rows));
    }
    let scoped_lines: Vec<Vec<&HitLine>> = scoped_records.iter().map(|(_, lines)| lines.iter().collect()).collect();
    // Without symbol scope the rows are the admitted files' own, listed by no vector (an
    // unbounded search admits ~11k files), with the identity each file had when the search
    // opened it (no second look-up per file for its ledger key).
    let scoped_rows: Vec<ShownRows<'_>> = scoped_records
        .iter()
        .zip(&scoped_lines)
        .map(|((path, _), lines)| (path.as_path(), lines.as_slice(), None))
        .collect();
    let is_scoped = scoped_text.is_some();
    // The snapshot of each of the first files shown (plain sections).
    let tags: HashMap<&std::path::Path, SnapshotTag> = if summary || is_scoped {
        HashMap::new()
    } else {
        admitted
            .files
            .iter()
            .take(MAX_TAGGED_FILES)
            .filter_map(|file| {
                Some((file.hits.path.as_path(), snapshot_of_rows(session, &file.hits.path, &file.lines)?))
            })
            .collect()
    };
    let shown_rows = || {
        let admitted_rows = admitted
            .files
            .iter()
            .filter(move |_| !is_scoped)
            .map(|file| (file.hits.path.as_path(), file.lines.as_slice(), file.hits.identity));
        admitted_rows.chain(scoped_rows.iter().copied())
    };
    // The CLI's text mode drops the value: its records (one per admitted row, ~100k for an
    // unbounded search) and the card's copies of the matching lines are not built.
    let in_value = || shown_rows().take(if ctx.text_only { 0 } else { usize::MAX });
    let records: Vec<GrepRecord> = in_value()
        .flat_map(|(path, lines, _)| {
            let path: std::sync::Arc<str> = path.to_string_lossy().into();
            lines.iter().map(move |line| GrepRecord {
                path: path.clone(),
                line: line.line.get(),
                anchor: line.anchor().to_string(),
                kind: match line.kind {
                    HitKind::Match => RecordKind::Match,
                    HitKind::Context => RecordKind::Context,
                },
            })
        })
        .collect();
    let record_file = |(path, lines, identity): &ShownRows<'_>| {
        let key = session.key_of_known(path, *identity);
        session.record_served(&key, lines.iter().map(|l| (l.line, l.hash)), false);
        session.note_visible(&key, ctx);
    };
    let record = || shown_rows().for_each(|rows| record_file(&rows));
    let (rendered, scopes) = match scoped_text {
        Some((rendered, scopes, _)) if !ctx.sees_text_only => {
            record();
            (rendered, Some(scopes))
        }
        Some((rendered, scopes, record_rows)) => {
            // The model sees the text alone: the records whose rows it shows.
            let mut rows = record_rows.iter();
            for (path, lines, identity) in shown_rows() {
                let shown = rows.by_ref().take(lines.len()).filter(|&&row| row < rendered.shown_rows).count();
                if shown > 0 {
                    record_file(&(path, &lines[..shown], identity));
                }
            }
            (rendered, Some(scopes))
        }
        None => {
            let render = || {
                if summary {
                    render::summary(&found, ctx.budget)
                } else {
                    render::sections(&admitted, shown, &tags, limit_cut, ctx.budget)
                }
            };
            let rendered = if ctx.sees_text_only && !summary {
                // The model sees the text alone: the rows past its budget (an unbounded
                // search: ~100k) are not served, and not recorded.
                let rendered = render();
                for ((path, lines, identity), shown) in
                    shown_rows().zip(render::lines_shown(&admitted, rendered.shown_rows))
                {
                    if shown > 0 {
                        record_file(&(path, &lines[..shown], identity));
                    }
                }
                rendered
            } else if shown_rows().map(|(_, lines, _)| lines.len()).sum::<usize>() >= RECORD_BESIDE_ROWS {
                // Many rows: they are recorded in the session on another thread while the
                // text is made (the search's threads are done; neither reads what the other
                // writes).
                std::thread::scope(|threads| {
                    threads.spawn(record);
                    render()
                })
            } else {
                record();
                render()
            };
            (rendered, None)
        }
    };
    // A line shown as a match in two symbol sections (nested symbols) is one match.
    let returned_of = |lines: &[&HitLine]| {
        let mut matched: Vec<u32> = lines.iter().filter(|l| l.kind == HitKind::Match).map(|l| l.line.get()).collect();
        matched.sort_unstable();
        matched.dedup();
        matched.len() as u64
    };
    let returned_matches: u64 = shown_rows().map(|(_, lines, _)| returned_of(lines)).sum();
    // By path, once (a lookup per file with matches: a scan of the rows per file was
    // quadratic with many matching files).
    // Text mode leaves the file list out, and so needs no map for it.
    let listed = if ctx.text_only { &[][..] } else { &found.files[..] };
    let mut returned_by_path: HashMap<&std::path::Path, u64> = HashMap::with_capacity(listed.len());
    for (path, lines, _) in in_value() {
        returned_by_path.entry(path).or_insert_with(|| returned_of(lines));
    }
    let files = listed
        .iter()
        .map(|hits| GrepFile {
            path: hits.path.to_string_lossy().into_owned(),
            matches: hits.match_count,
            returned_matches: returned_by_path.get(hits.path.as_path()).copied().unwrap_or(0),
            snapshot: tags.get(hits.path.as_path()).map(ToString::to_string),
        })
        .collect();
    let completeness = Completeness {
        search: if found.unreadable > 0 { SearchState::Unknown } else { SearchState::Complete },
        counted: if found.stopped { Counted::StoppedAtLimit } else { Counted::All },
        limit_reached: !summary && limit_cut,
        native_truncated: false,
        omitted_matches: Some(found.total_matches - returned_matches),
        display_truncated: rendered.display_truncated,
    };
    let truncated = completeness.omitted_matches != Some(0);
    let meta = if ctx.text_only {
        MatchesMeta { files: Vec::new(), truncated, total: found.total_matches }
    } else {
        matches_meta(&admitted, shown, found.total_matches, truncated)
    };
    let mut text = String::new();
    for warning in &warnings {
        text.push_str(&warning.message);
        text.push_str("\n\n");
    }
    text.push_str(&rendered.text);
    let value = GrepValue {
        summary,
        total_matches: found.total_matches,
        records,
        files,
        scopes,
        completeness,
        binary_files: found.binary_files,
        unreadable_files: found.unreadable,
        warnings,
    };
    Ok(ToolOutput::text(value, text).with_meta(meta))
}

/// From this many rows served on, a grep records them in the session beside making its text.
const RECORD_BESIDE_ROWS: usize = 4096;

/// A file's rows shown: its path, the rows, and its identity and link count as the search
/// opened it (`None`: look it up).
type ShownRows<'a> = (&'a std::path::Path, &'a [&'a HitLine], Option<(hashline_fs::FileId, u64)>);

/// A single binary file target: a warning, not an error.
fn binary_target(display: &str, summary: bool, warnings: Vec<Warning>) -> ToolOutput<GrepValue> {
    let mut text: String = warnings.iter().map(|w| format!("{}\n\n", w.message)).collect();
    text.push_str(&format!(
        "[Warning: '{display}' appears to be a binary file — grep skips binary files by default. Use a hex tool or the read tool to inspect it.]"
    ));
    let value = GrepValue {
        summary,
        total_matches: 0,
        records: Vec::new(),
        files: Vec::new(),
        scopes: None,
        completeness: Completeness {
            search: SearchState::Complete,
            counted: Counted::All,
            limit_reached: false,
            native_truncated: false,
            omitted_matches: None,
            display_truncated: false,
        },
        binary_files: 1,
        unreadable_files: 0,
        warnings,
    };
    ToolOutput::text(value, text)
}

/// The search card's data: the matching lines shown, by file.
fn matches_meta(
    admitted: &admit::Admitted<'_>,
    shown: impl Fn(&std::path::Path) -> String,
    total: u64,
    truncated: bool,
) -> MatchesMeta {
    let files = admitted
        .files
        .iter()
        .map(|file| hashline_view::SearchFileMatches {
            path: shown(&file.hits.path),
            matches: file
                .lines
                .iter()
                .filter(|l| l.kind == HitKind::Match)
                .map(|l| hashline_view::SearchLineMatch {
                    line_number: l.line.get(),
                    line: hashline_core::display::display_line(&l.content).into_owned(),
                })
                .collect(),
        })
        .collect();
    MatchesMeta { files, truncated, total }
}

/// How many files of one grep result are given a snapshot tag: each costs a second read of
/// the file (the search does not keep every file's bytes).
const MAX_TAGGED_FILES: usize = 100;

/// The snapshot of the file at `path` when its bytes read now still hold every row the
/// search found in it (the rows are then rows of that snapshot); `None` otherwise (it
/// changed in between, or cannot be read again): its rows are shown without a tag.
fn snapshot_of_rows(session: &Session, path: &std::path::Path, rows: &[&HitLine]) -> Option<SnapshotTag> {
    let resolved = session.resolve(&path.to_string_lossy()).ok()?;
    let bytes = session.read_file(&resolved).ok()?;
    let doc = hashline_core::Document::parse(bytes);
    let holds = rows.iter().all(|row| doc.line(row.line).is_some_and(|line| line.hash() == row.hash));
    let tag = holds.then(|| session.show_snapshot(doc.as_bytes()))?;
    session.note_shown(tag, rows.iter().map(|row| row.line.get()));
    Some(tag)
}
