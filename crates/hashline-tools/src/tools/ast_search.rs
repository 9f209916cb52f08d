//! `ast_search` (SPEC §5.6): a thin adapter over `hashline-search`'s structural search. It
//! checks the arguments, runs the search, admits the first `limit` raw matches in path order,
//! merges their line ranges, renders whole blocks under the budget and records the rows it
//! returned as served.

use hashline_fs::lookup as fs;
use std::borrow::Cow;

use hashline_core::display::{display_line, escape_name};
use hashline_search::LanguageId;
use hashline_search::{AstFileHits, AstLimits, AstPatternError, AstQuery, ast_search_cancellable, merge_ranges};
use hashline_view::{MatchesMeta, SearchFileMatches, SearchLineMatch};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use typed_builder::TypedBuilder;

use super::grep::clip_line;
use super::ls::{effective_path, file_target_error, quoted, root_error};
use crate::budget::{Budget, format_size};
use crate::error::{ErrorCode, ToolError};
use crate::ptc::{PtcLine, PtcRange};
use crate::result::{CallContext, ToolOutput, ToolValue};
use crate::session::Session;
use crate::tool::Tool;
use crate::warning::Warning;

mod completeness;

pub use completeness::{AstCompleteness, AstSearchState, NotSearchedFile, NotSearchedReason};

/// How many raw matches `ast_search` admits when `limit` is not given.
pub const DEFAULT_LIMIT: u32 = 100;

/// Arguments of `ast_search`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, JsonSchema, TypedBuilder)]
#[serde(rename_all = "camelCase")]
pub struct AstSearchArgs {
    /// Code of the language with metavariables: `$X` matches one node, `$$$ARGS` any number,
    /// `$_` one without capturing.
    #[builder(setter(into))]
    pub pattern: String,
    /// Default: each file's, from its extension (`typescript` also searches `.tsx` files).
    #[builder(default, setter(strip_option, into))]
    #[serde(default)]
    #[schemars(schema_with = "lang_schema")]
    pub lang: Option<String>,
    /// A directory (searched recursively) or one file; default: the working directory.
    #[builder(default, setter(strip_option, into))]
    pub path: Option<String>,
    /// Only files matching this glob, e.g. `src/**/*.rs`.
    #[builder(default, setter(strip_option, into))]
    pub glob: Option<String>,
    /// At most this many matches (default 100), in path order.
    #[builder(default, setter(strip_option))]
    pub limit: Option<u32>,
}

/// One file's admitted matches.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AstFile {
    /// The file's absolute path.
    pub path: String,
    /// The language it was searched as.
    pub language: String,
    /// The merged line ranges of its admitted matches.
    pub ranges: Vec<PtcRange>,
    /// Every line of those ranges, anchored.
    pub lines: Vec<PtcLine>,
    /// The tag of the file's bytes the rows were taken from, for `edit`'s `snapshot`
    /// (docs/protocol.md §1.5).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<String>,
}

/// The typed value of `ast_search`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AstSearchValue {
    /// Files with admitted matches, in path order, with all their admitted lines (the text
    /// may show fewer blocks when the budget cut them).
    pub files: Vec<AstFile>,
    /// Every raw match found.
    pub total_matches: u64,
    /// Raw matches admitted under `limit`.
    pub returned_matches: u64,
    /// `limit` left matches out.
    pub limit_reached: bool,
    /// Blocks (merged ranges) the budget left out of the text.
    pub omitted_blocks: u64,
    /// Files skipped because they are not UTF-8 text or could not be read.
    pub skipped_files: u64,
    /// Files the search's bounds kept from being searched (size, time, depth).
    pub completeness: AstCompleteness,
    /// Warnings shown above the results.
    pub warnings: Vec<Warning>,
}

impl ToolValue for AstSearchValue {
    fn warnings_mut(&mut self) -> &mut Vec<Warning> {
        &mut self.warnings
    }
}

/// The `ast_search` tool.
pub struct AstSearchTool;

impl Tool for AstSearchTool {
    const NAME: &'static str = "ast_search";
    type Args = AstSearchArgs;
    type Value = AstSearchValue;

    fn run(session: &Session, args: AstSearchArgs, ctx: &CallContext) -> Result<ToolOutput<AstSearchValue>, ToolError> {
        ast_search_in(session, args, ctx)
    }
}

/// Runs `ast_search` in a call context.
pub fn ast_search_in(
    session: &Session,
    args: AstSearchArgs,
    ctx: &CallContext,
) -> Result<ToolOutput<AstSearchValue>, ToolError> {
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
    let lang = match args.lang.as_deref().map(str::trim).filter(|l| !l.is_empty()) {
        Some(name) => Some(LanguageId::from_name(name).ok_or_else(|| unsupported(name))?),
        None => None,
    };
    let mut adjustments = Vec::new();
    let raw_path = effective_path(args.path.as_deref(), &mut adjustments);
    let path = session.resolve(raw_path)?;
    let meta = fs::metadata(&path.real).map_err(|err| root_error(&err, &path))?;
    if !meta.is_dir() && lang.is_none() && LanguageId::from_path(&path.display).is_none() {
        return Err(ToolError::new(
            ErrorCode::UnsupportedLanguage,
            format!("Cannot tell the language of {}: pass lang (one of {}).", quoted(&path.shown()), names()),
        )
        .with_path(path.absolute_str()));
    }
    let query = AstQuery::new(&args.pattern, lang).map_err(|err| pattern_error(&args.pattern, err))?;
    let glob = args.glob.as_deref().filter(|g| !g.is_empty());
    // Only the files of the first `limit` matches (in path order) can show rows.
    let limits = AstLimits { keep_documents: limit as u64, ..AstLimits::DEFAULT };
    let cancel = ctx.cancel.as_atomic();
    let found = ast_search_cancellable(&path.real, &query, glob, 0, limits, cancel).map_err(|err| match err {
        hashline_search::SearchError::Glob { glob, message } => {
            ToolError::new(ErrorCode::InvalidPattern, format!("Invalid glob {}: {message}", quoted(&glob)))
        }
        err @ hashline_search::SearchError::GlobTooLong { .. } => {
            ToolError::new(ErrorCode::InvalidPattern, format!("Invalid glob: {err}."))
        }
        hashline_search::SearchError::Io(err) => file_target_error(&err, &path),
    })?;
    ctx.cancel.check_search("Ast_search")?;

    let mut warnings = Vec::new();
    if !adjustments.is_empty() {
        warnings.push(Warning::params_adjusted("Ast_search params", &adjustments));
    }
    warnings.extend(Warning::ignore_files_skipped(&found.skipped_ignore_files, |p| session.shown_display(p)));
    let mut files = Vec::new();
    let mut blocks = Vec::new();
    let mut admitted = 0usize;
    for hits in &found.files {
        if admitted == limit {
            break;
        }
        let take = hits.matches.len().min(limit - admitted);
        admitted += take;
        let file = admit_file(session, hits, &hits.matches[..take], &mut blocks);
        session.record_served(&hits.path, file.lines.iter().filter_map(served_row), false);
        session.note_visible(&hits.path, ctx);
        files.push(file);
    }
    let total = found.total_matches;
    let limit_cut = total > admitted as u64;
    let mut text: String = warnings.iter().map(|w| format!("{}\n\n", w.message)).collect();
    let budget = Budget { lines: ctx.budget.lines, bytes: ctx.budget.bytes_after(text.len()) };
    let rendered = render(&args.pattern, &blocks, limit_cut.then_some((admitted as u64, total)), budget);
    text.push_str(&rendered.text);
    if let Some(notice) = completeness::notice(session, &found, limits) {
        text.push_str("\n\n");
        text.push_str(&notice);
    }
    let shown_blocks = rendered.shown.iter().filter(|s| **s).count();
    let meta = matches_meta(&blocks, &rendered.shown, total, limit_cut || shown_blocks < blocks.len());
    let value = AstSearchValue {
        files,
        total_matches: total,
        returned_matches: admitted as u64,
        limit_reached: limit_cut,
        omitted_blocks: (blocks.len() - shown_blocks) as u64,
        skipped_files: found.skipped_files,
        completeness: AstCompleteness::of(&found),
        warnings,
    };
    Ok(ToolOutput::text(value, text).with_meta(meta))
}

/// The schema of `lang`: a registry name or alias, or null.
fn lang_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let mut names: Vec<serde_json::Value> = Vec::new();
    // The registry's names; their aliases (`rs`, `py`, `ts`, ...) and any case are accepted
    // too, unlisted.
    for &lang in LanguageId::ALL {
        names.push(lang.name().into());
    }
    names.push(serde_json::Value::Null);
    schemars::json_schema!({
        "type": ["string", "null"],
        "enum": names,
    })
}

fn names() -> String {
    LanguageId::name_list()
}

fn unsupported(name: &str) -> ToolError {
    ToolError::new(
        ErrorCode::UnsupportedLanguage,
        format!("Unsupported language {}. Supported: {}.", quoted(name), names()),
    )
}

fn pattern_error(pattern: &str, err: AstPatternError) -> ToolError {
    let code = match err {
        AstPatternError::Parse(_) => ErrorCode::PatternParseError,
        AstPatternError::Empty
        | AstPatternError::Shape(_)
        | AstPatternError::TooLarge { .. }
        | AstPatternError::TooDeep { .. }
        | AstPatternError::Unbounded { .. } => ErrorCode::InvalidPattern,
    };
    ToolError::new(code, format!("Invalid pattern {}: {err}", quoted(&clip_pattern(pattern))))
        .with_hint("Write the pattern as code of the language (one expression, statement or item), with $NAME and $$$NAME metavariables, and set lang.")
}

/// The pattern as an error message quotes it: at most 200 characters, then `…`.
fn clip_pattern(pattern: &str) -> Cow<'_, str> {
    const SHOWN: usize = 200;
    match pattern.char_indices().nth(SHOWN) {
        Some((cut, _)) => Cow::Owned(format!("{}…", &pattern[..cut])),
        None => Cow::Borrowed(pattern),
    }
}

fn served_row(line: &PtcLine) -> Option<(hashline_core::LineNo, hashline_core::LineHash)> {
    Some((hashline_core::LineNo::new(line.line)?, hashline_core::LineHash::parse_hex(&line.hash)?))
}

/// One rendered block: a merged range of one file.
struct Block {
    /// The file as shown (relative path).
    display: String,
    /// Whether this is the file's first block (it carries the header).
    first: bool,
    /// The rows: `(line number, matched, row text)`.
    rows: Vec<(u32, bool, String)>,
    /// The file's snapshot, named in its header.
    tag: Option<hashline_core::snapshot::SnapshotTag>,
}

/// The value of one file and its blocks.
fn admit_file(
    session: &Session,
    hits: &AstFileHits,
    matches: &[(hashline_core::LineNo, hashline_core::LineNo)],
    blocks: &mut Vec<Block>,
) -> AstFile {
    let display = session.relative_display(&hits.path);
    let total_lines = hits.document.line_count() as u32;
    let tag = hits.document_kept.then(|| session.show_snapshot(hits.document.as_bytes()));
    let mut ranges = Vec::new();
    let mut lines = Vec::new();
    for (index, range) in merge_ranges(matches).into_iter().enumerate() {
        ranges.push(PtcRange { start_line: range.0.get(), end_line: range.1.get(), total_lines });
        let mut rows = Vec::new();
        for line in hits.lines(range) {
            let matched = matches.iter().any(|(s, e)| *s <= line.line && line.line <= *e);
            let mark = if matched { ">>" } else { "  " };
            rows.push((
                line.line.get(),
                matched,
                format!("{mark}{}|{}", line.anchor(), clip_line(&display_line(&line.content)).0),
            ));
            lines.push(PtcLine::new(line.line, line.hash, &line.content));
        }
        blocks.push(Block { display: display.clone(), first: index == 0, rows, tag });
    }
    if let Some(tag) = tag {
        session.note_shown(tag, lines.iter().map(|line| line.line));
    }
    AstFile {
        path: hits.path.to_string_lossy().into_owned(),
        language: hits.language.name().to_owned(),
        ranges,
        lines,
        snapshot: tag.map(|tag| tag.to_string()),
    }
}

struct Rendered {
    text: String,
    /// Which blocks the text shows.
    shown: Vec<bool>,
}

/// Whole blocks in order, each only if it fits what is left of the budget (by default
/// 2000 lines / 50 KB; a block too large is left out and later ones still get their
/// chance), then the notice.
fn render(pattern: &str, blocks: &[Block], limit_cut: Option<(u64, u64)>, budget: Budget) -> Rendered {
    if blocks.is_empty() {
        return Rendered { text: format!("No matches found for pattern: {}", escape_name(pattern)), shown: Vec::new() };
    }
    const RESERVE: usize = 400;
    let header = |b: &Block| match b.tag {
        Some(tag) => format!("--- {} (snapshot: {tag}) ---", escape_name(&b.display)),
        None => format!("--- {} ---", escape_name(&b.display)),
    };
    let rows = |b: &Block| b.rows.iter().map(|(_, _, row)| row.len() + 1).sum::<usize>();
    let total_lines: usize = blocks.iter().map(|b| b.rows.len() + usize::from(b.first)).sum();
    let total_bytes: usize = blocks.iter().map(|b| rows(b) + if b.first { header(b).len() + 1 } else { 0 }).sum();
    let mut out: Vec<String> = Vec::new();
    let mut shown = vec![false; blocks.len()];
    let (mut lines, mut bytes) = (0usize, 0usize);
    let mut last_file: Option<&str> = None;
    for (index, block) in blocks.iter().enumerate() {
        let needs_header = last_file != Some(block.display.as_str());
        let (l, b) = (
            block.rows.len() + usize::from(needs_header),
            rows(block) + if needs_header { header(block).len() + 1 } else { 0 },
        );
        if lines + l > budget.lines.saturating_sub(2) || bytes + b + RESERVE > budget.bytes {
            continue;
        }
        if needs_header {
            out.push(header(block));
        }
        out.extend(block.rows.iter().map(|(_, _, row)| row.clone()));
        lines += l;
        bytes += b;
        shown[index] = true;
        last_file = Some(block.display.as_str());
    }
    let shown_count = shown.iter().filter(|s| **s).count();
    let mut text = out.join("\n");
    let cut = (shown_count < blocks.len()).then(|| {
        format!(
            "showing {shown_count} of {} complete blocks ({lines} of {total_lines} lines, {} of {}){}",
            blocks.len(),
            format_size(bytes),
            format_size(total_bytes),
            budget.named()
        )
    });
    let notice = match (limit_cut, cut) {
        (Some((shown_matches, total)), Some(budget)) => Some(format!(
            "[Results truncated: showing {shown_matches} of {total} matches ({} omitted); output budget {budget}. Narrow path/pattern or lower/increase limit.]",
            total - shown_matches
        )),
        (Some((shown_matches, total)), None) => Some(format!(
            "[Results truncated: showing {shown_matches} of {total} matches ({} omitted). Narrow path/pattern or increase limit.]",
            total - shown_matches
        )),
        (None, Some(budget)) => Some(format!("[Output truncated: {budget}. Narrow path/pattern or lower limit.]")),
        (None, None) => None,
    };
    if let Some(notice) = notice {
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        text.push_str(&notice);
    }
    Rendered { text, shown }
}

/// The search card's data: the matched lines of the shown blocks, by file.
fn matches_meta(blocks: &[Block], shown: &[bool], total: u64, truncated: bool) -> MatchesMeta {
    let mut files: Vec<SearchFileMatches> = Vec::new();
    for (block, _) in blocks.iter().zip(shown).filter(|(_, shown)| **shown) {
        if files.last().is_none_or(|f| f.path != block.display) {
            files.push(SearchFileMatches { path: block.display.clone(), matches: Vec::new() });
        }
        if let Some(file) = files.last_mut() {
            file.matches.extend(block.rows.iter().filter(|(_, matched, _)| *matched).map(|(n, _, row)| {
                SearchLineMatch { line_number: *n, line: row.split_once('|').map_or("", |(_, text)| text).to_owned() }
            }));
        }
    }
    MatchesMeta { files, truncated, total }
}
