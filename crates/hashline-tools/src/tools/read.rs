//! `read` (SPEC §5.1): anchored rows of a file window, or an image.

use base64::Engine as _;
use hashline_core::row::into_text;
use hashline_core::window::Rows;
use hashline_core::{Document, LineHash, LineIndex, LineNo, looks_binary};
use hashline_view::{ContentBlock, ReadFileLine, ReadMeta, lang_from_path};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use typed_builder::TypedBuilder;

use crate::budget::{Budget, cut_at_char_boundary, format_size};
use crate::error::{ErrorCode, ToolError};
use crate::ptc::{PtcLine, PtcRange};
use crate::result::{CallContext, Meta, ToolOutput, ToolValue};
use crate::session::Session;
use crate::tool::Tool;
use crate::tools::symbol_read::{self, Ambiguity, SymbolInfo, SymbolOutcome};
use crate::warning::{Warning, WarningCode};

/// Arguments of `read`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, JsonSchema, TypedBuilder)]
#[serde(rename_all = "camelCase")]
pub struct ReadArgs {
    /// The file: relative to the working directory, or absolute.
    #[builder(setter(into))]
    pub path: String,
    /// The first line to show, 1-based.
    #[builder(default, setter(strip_option))]
    pub offset: Option<u32>,
    /// At most this many lines.
    #[builder(default, setter(strip_option))]
    pub limit: Option<u32>,
    /// One declaration (function, class, method, ...) by name: `name`, `Parent.name`,
    /// `name@LINE`, or part of a name.
    #[builder(default, setter(strip_option, into))]
    pub symbol: Option<String>,
    /// Append the file's outline: its symbols with their line ranges.
    #[builder(default, setter(strip_option))]
    pub map: Option<bool>,
    /// `local`, with `symbol`: also the file's other symbols that it uses.
    #[builder(default, setter(strip_option))]
    pub bundle: Option<BundleMode>,
}

/// The `bundle` mode of `read`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum BundleMode {
    /// The symbol plus the same-file symbols it references.
    Local,
}

/// The typed value of `read`.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum ReadValue {
    /// A text file window.
    Text(TextRead),
    /// An image (no anchors).
    Image(ImageRead),
}

/// A text read: the window's anchored lines and how it relates to the file.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TextRead {
    /// The absolute path.
    pub path: String,
    /// The lines shown.
    pub range: PtcRange,
    /// Exactly the rows of the text, in order (with `bundle`, those of the requested symbol;
    /// the support section's rows are in `bundle.localSupport[].lines`).
    pub lines: Vec<PtcLine>,
    /// Warnings shown above the rows.
    pub warnings: Vec<Warning>,
    /// Set when the 2000-line / 50 KB budget cut the window.
    pub truncation: Option<Truncation>,
    /// Whether a structural map was requested and appended.
    pub map: MapState,
    /// Where to continue, when lines remain after the window.
    pub continuation: Option<Continuation>,
    /// The symbol read, when `symbol` found one.
    pub symbol: Option<Box<SymbolInfo>>,
    /// The local bundle, when `bundle` was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bundle: Option<Box<BundleInfo>>,
    /// The candidates, when `symbol` was ambiguous (then `lines` is empty).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ambiguity: Option<Box<Ambiguity>>,
    /// The tag of the file's bytes these rows were taken from (`s` + 8 characters): give it
    /// to `edit` as `snapshot` with anchors copied from these rows (docs/protocol.md §1.5).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<String>,
}

/// A local bundle (`bundle: "local"`).
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BundleInfo {
    /// Always `local`.
    pub mode: BundleMode,
    /// Whether the support section was shown.
    pub applied: bool,
    /// The support symbols shown, in file order.
    pub local_support: Vec<SupportSymbol>,
}

/// One support symbol of a bundle.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SupportSymbol {
    /// Its name.
    pub name: String,
    /// Its kind.
    pub kind: String,
    /// The enclosing symbol's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_name: Option<String>,
    /// Its first line.
    pub start_line: u32,
    /// Its last line.
    pub end_line: u32,
    /// The anchors of its rows, as shown.
    pub line_anchors: Vec<String>,
    /// Its rows as shown in the `## Local support` section (line, hash, anchor, raw and
    /// display, as in `lines`).
    pub lines: Vec<PtcLine>,
}

/// An image read.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImageRead {
    /// The absolute path.
    pub path: String,
    /// `image/png`, `image/jpeg`, `image/gif` or `image/webp`.
    pub mime_type: String,
    /// The file's size in bytes.
    pub bytes: u64,
    /// Warnings.
    pub warnings: Vec<Warning>,
}

/// How the budget cut a window. Byte counts are the file's bytes for those lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Truncation {
    /// Lines shown.
    pub output_lines: u32,
    /// Lines in the requested window.
    pub total_lines: u32,
    /// Bytes of the lines shown.
    pub output_bytes: u64,
    /// Bytes of the requested window.
    pub total_bytes: u64,
}

/// The `map` state of a read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, JsonSchema)]
pub struct MapState {
    /// `map: true` was given.
    pub requested: bool,
    /// A map was appended to the text.
    pub appended: bool,
}

/// Where the next read continues.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Continuation {
    /// The `offset` for the next call.
    pub next_offset: u32,
}

impl ToolValue for ReadValue {
    fn warnings_mut(&mut self) -> &mut Vec<Warning> {
        match self {
            ReadValue::Text(text) => &mut text.warnings,
            ReadValue::Image(image) => &mut image.warnings,
        }
    }
}

/// The `read` tool.
pub struct ReadTool;

impl Tool for ReadTool {
    const NAME: &'static str = "read";
    type Args = ReadArgs;
    type Value = ReadValue;

    fn run(session: &Session, args: ReadArgs, ctx: &CallContext) -> Result<ToolOutput<ReadValue>, ToolError> {
        read_in(session, args, ctx)
    }
}

/// Marker line appended to a single row too long for the budget.
const LONG_LINE_NOTE: &str = " … [line truncated for display; the anchor covers the whole line]";

/// Runs `read` as a top-level call.
pub fn read(session: &Session, args: ReadArgs) -> Result<ToolOutput<ReadValue>, ToolError> {
    read_in(session, args, &CallContext::top_level())
}

/// Runs `read` in a call context.
pub fn read_in(session: &Session, args: ReadArgs, ctx: &CallContext) -> Result<ToolOutput<ReadValue>, ToolError> {
    let mut adjustments = Vec::new();
    let offset = match args.offset {
        Some(0) => {
            adjustments.push("ignored offset 0".to_owned());
            None
        }
        other => other,
    };
    let limit = match args.limit {
        Some(0) => {
            adjustments.push("ignored limit 0".to_owned());
            None
        }
        other => other,
    };
    let symbol = match args.symbol.as_deref().map(str::trim) {
        Some("") => {
            adjustments.push("ignored empty symbol".to_owned());
            None
        }
        other => other,
    };
    if symbol.is_some() && offset.is_some() {
        return Err(ToolError::new(
            ErrorCode::InvalidParamsCombo,
            "Cannot combine symbol with offset. Either omit offset and use limit to cap the symbol, or use a trailing symbol@line selector.",
        ));
    }
    if args.bundle.is_some() && symbol.is_none() {
        return Err(ToolError::new(
            ErrorCode::InvalidParamsCombo,
            "Cannot use bundle without symbol. Use read({ path, symbol, bundle: \"local\" }).",
        ));
    }
    let path = session.resolve(&args.path)?;
    let bytes = session.read_file(&path)?;
    let absolute = path.absolute_str();
    let mut warnings = Vec::new();
    if !adjustments.is_empty() {
        warnings.push(Warning::params_adjusted("Read params", &adjustments));
    }
    if let Some(mime_type) = image_mime_type(&bytes) {
        warnings.splice(0..0, agent_instructions(session, &path, ctx));
        return Ok(image_output(absolute, mime_type, &bytes, warnings));
    }

    // A symbol read parses the file, so it splits every line; any other read counts the
    // lines of the bytes it loaded and splits only those its window shows.
    let mut loaded = if symbol.is_some() { Loaded::Parsed(Document::parse(bytes)) } else { Loaded::Bytes(bytes) };
    // The structural map goes after the rows, inside the same budget: when it is asked
    // for, or a whole-file read will be cut, it is made first and the rows get what it
    // leaves.
    let map_requested = args.map == Some(true);
    let full_read = offset.is_none() && limit.is_none() && symbol.is_none();
    let mut early_map = None;
    if map_requested || (full_read && symbol_read::has_map(&path) && rows_overrun(loaded.bytes(), ctx.budget)) {
        early_map = Some(map_of(session, &path, &mut loaded, ctx.budget.bytes / 2));
    }
    let index = LineIndex::new(loaded.bytes());
    let total = index.line_count();
    let start = offset.map_or(1, |o| o as usize);
    if start > total {
        return Err(ToolError::new(
            ErrorCode::OffsetPastEnd,
            format!(
                "Offset {start} is past end of file ({total} {}): {}",
                if total == 1 { "line" } else { "lines" },
                path.shown()
            ),
        )
        .with_hint(format!("Use an offset from 1 to {total}."))
        .with_path(absolute));
    }
    let mut requested_end = limit.map_or(total, |l| (start - 1).saturating_add(l as usize).min(total));
    warnings.splice(0..0, agent_instructions(session, &path, ctx));
    let mut start = start;
    let mut selected = None;
    if let (Some(query), Some(doc)) = (symbol, loaded.document()) {
        match symbol_read::resolve(session, &path, doc, query) {
            SymbolOutcome::Found { info, located, banner, map } => {
                warnings.extend(banner);
                start = info.start_line as usize;
                let end = (info.end_line as usize).min(total);
                requested_end = limit.map_or(end, |l| (start - 1).saturating_add(l as usize).min(end));
                selected = Some((info, located, map));
            }
            SymbolOutcome::Ambiguous { text, ambiguity } => {
                return Ok(ambiguous_output(session, &path, ctx, absolute, total, warnings, text, ambiguity));
            }
            SymbolOutcome::Fallback(warning) => warnings.push(warning),
        }
    }
    let mut bundle_info = None;
    let mut support = Vec::new();
    if let (Some(BundleMode::Local), Some((_, located, map)), Some(doc)) = (args.bundle, &selected, loaded.document()) {
        match symbol_read::bundle(map, doc, located) {
            Ok(found) => support = found,
            Err(warning) => {
                warnings.push(warning);
                bundle_info = Some(BundleInfo { mode: BundleMode::Local, applied: false, local_support: Vec::new() });
            }
        }
    } else if args.bundle.is_some() && symbol.is_some() {
        bundle_info = Some(BundleInfo { mode: BundleMode::Local, applied: false, local_support: Vec::new() });
    }
    if looks_binary(loaded.bytes()) {
        warnings.push(Warning::new(
            WarningCode::BinaryContent,
            "[Warning: file appears to be binary — output may be garbled]",
        ));
    }
    if index.has_bare_cr() {
        warnings.push(Warning::new(
            WarningCode::BareCr,
            "[Warning: file contains bare CR (\\r) line endings — line numbering may be inconsistent with grep and other tools]",
        ));
    }

    // What the text holds besides rows: the warnings, the symbol's header, the notes.
    let bundled = selected.is_some() && args.bundle.is_some() && bundle_info.is_none();
    let header = selected.as_ref().map(|(info, _, _)| symbol_read::header(info, total));
    let snapshot = session.show_snapshot(loaded.bytes());
    let snapshot_line = snapshot_line(snapshot);
    let mut frame = snapshot_line.len()
        + warnings.iter().map(|w| w.message.len() + 2).sum::<usize>()
        + header.as_ref().map_or(0, |h| h.len() + 2)
        + if bundled { 40 } else { 0 }
        + NOTE_RESERVE;
    // A map over half the budget is left out below, with a note: the rows keep their room
    // less the note's. A read that may get its map after the rows keeps room for that note.
    match &early_map {
        Some(Ok(map)) if map.len() <= ctx.budget.bytes / 2 => frame += map.len() + 2,
        Some(Ok(_)) => frame += NOTE_RESERVE,
        _ if full_read && symbol_read::has_map(&path) => frame += NOTE_RESERVE,
        _ => {}
    }
    let rows_budget = Budget { lines: ctx.budget.lines, bytes: ctx.budget.bytes_after(frame) };
    let window = render_window(
        loaded.rows(&index, start - 1..requested_end),
        index.as_bytes().len(),
        ctx.text_only,
        rows_budget,
    );
    let shown_end = start + window.shown() - 1;
    let mut text = String::with_capacity(window.rows.len() + 256);
    text.push_str(&snapshot_line);
    for warning in &warnings {
        text.push_str(&warning.message);
        text.push_str("\n\n");
    }
    if let Some(header) = &header {
        text.push_str(header);
        text.push_str("\n\n");
    }
    if bundled {
        text.push_str("## Requested symbol\n");
    }
    text.push_str(&window.rows);
    let mut served: Vec<(LineNo, LineHash)> = window.served.clone();
    if bundled {
        let mut used = window.rows.len();
        let mut local_support = Vec::new();
        text.push_str("\n\n## Local support");
        for located in &support {
            let symbol = &located.symbol;
            let lines = (symbol.start_line as usize).saturating_sub(1)..(symbol.end_line as usize).min(total);
            let part = render_window(loaded.rows(&index, lines), index.as_bytes().len(), false, rows_budget);
            if used + part.rows.len() > rows_budget.bytes {
                break;
            }
            used += part.rows.len();
            // The heading's first rows follow it directly, as the requested symbol's do;
            // a blank line separates one support symbol from the next.
            text.push_str(if local_support.is_empty() { "\n" } else { "\n\n" });
            text.push_str(&part.rows);
            served.extend(part.served.iter().copied());
            local_support.push(SupportSymbol {
                name: symbol.name.clone(),
                kind: symbol.kind.as_str().to_owned(),
                parent_name: symbol.parent.clone(),
                start_line: symbol.start_line,
                end_line: symbol.end_line,
                line_anchors: part.lines.iter().map(|l| l.anchor.clone()).collect(),
                lines: part.lines,
            });
        }
        if local_support.is_empty() {
            text.push_str("\n(none)");
        }
        bundle_info = Some(BundleInfo { mode: BundleMode::Local, applied: true, local_support });
    }
    let truncation = (shown_end < requested_end).then(|| {
        let output_bytes = window_bytes(&index, start, shown_end);
        let total_bytes = window_bytes(&index, start, requested_end);
        Truncation {
            output_lines: window.shown() as u32,
            total_lines: (requested_end + 1 - start) as u32,
            output_bytes,
            total_bytes,
        }
    });
    if let Some(t) = &truncation {
        text.push_str(&format!(
            "\n\n[Output truncated{}: showing {} of {} lines ({} of {}). Use offset={} to continue.]",
            ctx.budget.named(),
            t.output_lines,
            t.total_lines,
            format_size(t.output_bytes as usize),
            format_size(t.total_bytes as usize),
            shown_end + 1
        ));
    } else if shown_end < total
        && (selected.is_none() || selected.as_ref().is_some_and(|(i, _, _)| (shown_end as u32) < i.end_line))
    {
        text.push_str(&format!(
            "\n\n[Showing lines {start}-{shown_end} of {total}. Use offset={} to continue.]",
            shown_end + 1
        ));
    }

    let mut map_appended = false;
    if map_requested || (full_read && truncation.is_some()) {
        let map = match early_map {
            Some(map) => map,
            None => map_of(session, &path, &mut loaded, ctx.budget.bytes / 2),
        };
        match map {
            // A map made after the rows (a whole-file read cut by its line budget) goes
            // only where it fits.
            Ok(map) if text.len() + 2 + map.len() <= ctx.budget.bytes => {
                text.push_str("\n\n");
                text.push_str(&map);
                map_appended = true;
            }
            Ok(map) => text.push_str(&format!(
                "\n\n[Structural map left out: its {} do not fit this result's {} budget; read with map=true and a smaller limit.]",
                format_size(map.len()),
                ctx.budget
            )),
            Err(warning) if map_requested => {
                text = format!("{}\n\n{text}", warning.message);
                warnings.push(warning);
            }
            Err(_) => {}
        }
    }
    session.note_shown(snapshot, served.iter().map(|(line, _)| line.get()));
    session.record_read(&path.key, served.iter().copied(), start == 1 && shown_end == total && !bundled);
    session.note_visible(&path.key, ctx);
    let value = ReadValue::Text(TextRead {
        path: absolute,
        range: PtcRange { start_line: start as u32, end_line: shown_end as u32, total_lines: total as u32 },
        lines: window.lines,
        warnings,
        truncation,
        map: MapState { requested: map_requested, appended: map_appended },
        symbol: selected.map(|(info, _, _)| Box::new(info)),
        bundle: bundle_info.map(Box::new),
        ambiguity: None,
        continuation: (shown_end < total).then(|| Continuation { next_offset: shown_end as u32 + 1 }),
        snapshot: Some(snapshot.to_string()),
    });
    // The first edit's syntax check then reparses only what it changes (issue 23): the
    // tree is built off this call's time, unless a map built above kept it already.
    if session.parses_on_read()
        && let Some(lang) = hashline_syntax::LanguageId::from_path(&path.display)
    {
        session.syntax_trees().prefetch(&path.key, lang, loaded.into_bytes());
    }
    Ok(ToolOutput::text(value, text).with_meta_of(window_meta))
}

/// The line that names the snapshot a read's rows come from, first in its text.
pub(crate) fn snapshot_line(tag: hashline_core::snapshot::SnapshotTag) -> String {
    format!("snapshot: {tag}\n")
}

/// The presentation meta of a text read: its window's lines as shown (built only when a
/// front end asks for it; it repeats the value's lines).
fn window_meta(value: &ReadValue) -> Meta {
    let ReadValue::Text(read) = value else {
        // Only a text read has a window; no other value is given this maker.
        return ReadMeta::new(String::new(), 1, Vec::new(), 0).into();
    };
    ReadMeta {
        path: read.path.clone(),
        offset: read.range.start_line,
        lines: read
            .lines
            .iter()
            .map(|l| ReadFileLine { number: l.line, text: l.raw.clone(), hash: Some(l.hash.clone()) })
            .collect(),
        total_lines: read.range.total_lines,
        lang: lang_from_path(&read.path).map(str::to_owned),
    }
    .into()
}

/// The rows of a window that fit the budget, as text and (unless `text_only`) as values.
struct Window {
    rows: String,
    /// Empty when the window was rendered for text only.
    lines: Vec<PtcLine>,
    served: Vec<(LineNo, LineHash)>,
}

impl Window {
    /// How many rows the window shows.
    fn shown(&self) -> usize {
        self.served.len()
    }
}

/// A read file's bytes: as loaded, or parsed into a [`Document`] for a symbol read.
enum Loaded {
    Bytes(Vec<u8>),
    Parsed(Document),
}

impl Loaded {
    fn bytes(&self) -> &[u8] {
        match self {
            Loaded::Bytes(bytes) => bytes,
            Loaded::Parsed(doc) => doc.as_bytes(),
        }
    }

    fn document(&self) -> Option<&Document> {
        match self {
            Loaded::Bytes(_) => None,
            Loaded::Parsed(doc) => Some(doc),
        }
    }

    /// The document, split now if it was not (the bytes are moved, not copied).
    fn into_bytes(self) -> Vec<u8> {
        match self {
            Loaded::Bytes(bytes) => bytes,
            Loaded::Parsed(doc) => doc.into_bytes(),
        }
    }

    fn into_document(self) -> Document {
        match self {
            Loaded::Bytes(bytes) => Document::parse(bytes),
            Loaded::Parsed(doc) => doc,
        }
    }

    /// The rows of the lines with 0-based indices in `range`: from the document's spans
    /// when it was parsed, else found in `index` (which indexes these bytes) as they render.
    fn rows<'a>(&'a self, index: &LineIndex<'a>, range: std::ops::Range<usize>) -> Rows<'a> {
        match self {
            Loaded::Bytes(_) => Rows::over(index, range),
            Loaded::Parsed(doc) => Rows::new(doc, range),
        }
    }
}

/// Renders the rows `renderer` gives (of a file of `file_len` bytes), as many as fit the
/// budget.
fn render_window(mut renderer: Rows<'_>, file_len: usize, text_only: bool, budget: Budget) -> Window {
    let count = renderer.remaining().min(budget.lines);
    let mut rows = Vec::with_capacity(budget.bytes.min(file_len + count * 12));
    let mut lines = Vec::with_capacity(if text_only { 0 } else { count });
    let mut served = Vec::with_capacity(count);
    loop {
        let separator = usize::from(!rows.is_empty());
        let before = rows.len();
        rows.extend(std::iter::repeat_n(b'\n', separator));
        let Some((line, hash)) = renderer.push_next_line(&mut rows) else {
            rows.truncate(before);
            break;
        };
        let row_len = rows.len() - before - separator;
        if served.is_empty() && row_len > budget.bytes {
            // One row alone is over the budget: show its start so the anchor is usable.
            let keep = budget.bytes.saturating_sub(LONG_LINE_NOTE.len() + 32);
            let text = into_text(std::mem::take(&mut rows));
            rows.extend_from_slice(cut_at_char_boundary(&text, keep).as_bytes());
            rows.extend_from_slice(LONG_LINE_NOTE.as_bytes());
            if !text_only {
                let mut ptc = PtcLine::new(line.number, hash, line.content);
                ptc.raw = cut_at_char_boundary(&ptc.raw, keep).to_owned();
                ptc.display = cut_at_char_boundary(&ptc.display, keep).to_owned();
                lines.push(ptc);
            }
            served.push((line.number, hash));
            break;
        }
        if served.len() == budget.lines || rows.len() > budget.bytes {
            rows.truncate(before);
            break;
        }
        if !text_only {
            lines.push(PtcLine::new(line.number, hash, line.content));
        }
        served.push((line.number, hash));
    }
    Window { rows: into_text(rows), lines, served }
}

/// Whether the rows of all of `bytes` would not fit `budget` (estimated: each row is its
/// line and a `LINE:HASH|` prefix; exact enough to know when a whole-file read is cut, so
/// that its map is made first and has its room).
fn rows_overrun(bytes: &[u8], budget: Budget) -> bool {
    if bytes.len() > budget.bytes {
        return true;
    }
    let lines = bytes.iter().filter(|&&b| b == b'\n').count() + 1;
    let prefix = lines.to_string().len() + 5;
    lines > budget.lines || bytes.len() + lines * prefix > budget.bytes.saturating_sub(NOTE_RESERVE)
}

/// Room kept in a read's budget for its continuation note.
const NOTE_RESERVE: usize = 160;

/// The structural map of the file, at most `max_bytes` long (half the call's budget), or
/// the warning that says why there is none. The map needs the whole document: `loaded` is
/// split now unless its file type has no map.
fn map_of(
    session: &Session,
    path: &crate::paths::ResolvedPath,
    loaded: &mut Loaded,
    max_bytes: usize,
) -> Result<String, Warning> {
    if !symbol_read::has_map(path) {
        return Err(symbol_read::no_map_warning(path));
    }
    let doc = std::mem::replace(loaded, Loaded::Bytes(Vec::new())).into_document();
    let map = symbol_read::map_text_within(session, path, &doc, max_bytes);
    *loaded = Loaded::Parsed(doc);
    map
}

/// Bytes of lines `first..=last` (1-based) in the file, terminators included.
fn window_bytes(index: &LineIndex<'_>, first: usize, last: usize) -> u64 {
    index.line_start(last).saturating_sub(index.line_start(first - 1)) as u64
}

/// At most this much of an `AGENTS.md` is shown.
const MAX_INSTRUCTIONS_BYTES: usize = 16 * 1024;

/// `AGENTS.md` files in the directories between the root (exclusive) and the file,
/// outermost first, each surfaced once per session as a notice on a top-level read.
fn agent_instructions(session: &Session, path: &crate::paths::ResolvedPath, ctx: &CallContext) -> Vec<Warning> {
    if !ctx.is_top_level() {
        return Vec::new();
    }
    let Some(root) = session.roots().iter().find(|r| path.real.starts_with(r)) else { return Vec::new() };
    let mut dirs: Vec<&std::path::Path> =
        path.real.ancestors().skip(1).take_while(|d| d.starts_with(root) && *d != root.as_path()).collect();
    dirs.reverse();
    let mut notices = Vec::new();
    for dir in dirs {
        let file = dir.join("AGENTS.md");
        if !file.is_file() || !session.claim_instructions(dir) {
            continue;
        }
        let Ok(bytes) = hashline_fs::open::read_regular(&file, hashline_fs::MAX_FILE_BYTES) else { continue };
        let text = String::from_utf8_lossy(&bytes);
        // At most 16 KB, and at most a third of the result's budget: the rows come too.
        let max = MAX_INSTRUCTIONS_BYTES.min(ctx.budget.bytes / 3);
        let shown = cut_at_char_boundary(text.trim_end(), max);
        let cut = if shown.len() < text.trim_end().len() {
            format!(
                "\n[… instructions cut at {}]",
                if max == MAX_INSTRUCTIONS_BYTES { "16 KB".to_owned() } else { format_size(max) }
            )
        } else {
            String::new()
        };
        notices.push(Warning::new(
            WarningCode::AgentInstructions,
            format!("[Instructions from {}:]\n{shown}{cut}", session.shown_display(&file)),
        ));
    }
    notices
}

/// The MIME type of an image file, by its magic bytes.
pub fn image_mime_type(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(b"\xFF\xD8\xFF") {
        Some("image/jpeg")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if bytes.len() >= 12 && bytes.starts_with(b"RIFF") && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

/// An ambiguous `symbol`: the candidates instead of rows (a success; nothing served).
#[allow(clippy::too_many_arguments)]
fn ambiguous_output(
    session: &Session,
    path: &crate::paths::ResolvedPath,
    ctx: &CallContext,
    absolute: String,
    total: usize,
    warnings: Vec<Warning>,
    ambiguity_text: String,
    ambiguity: Ambiguity,
) -> ToolOutput<ReadValue> {
    session.note_visible(&path.key, ctx);
    let mut text = String::new();
    for warning in &warnings {
        text.push_str(&warning.message);
        text.push_str("\n\n");
    }
    text.push_str(&ambiguity_text);
    let value = ReadValue::Text(TextRead {
        path: absolute,
        range: PtcRange { start_line: 1, end_line: 0, total_lines: total as u32 },
        lines: Vec::new(),
        warnings,
        truncation: None,
        map: MapState::default(),
        continuation: None,
        symbol: None,
        bundle: None,
        ambiguity: Some(Box::new(ambiguity)),
        snapshot: None,
    });
    ToolOutput::text(value, text)
}

fn image_output(path: String, mime_type: &str, bytes: &[u8], warnings: Vec<Warning>) -> ToolOutput<ReadValue> {
    let data = base64::engine::general_purpose::STANDARD.encode(bytes);
    let notes: Vec<&str> = warnings.iter().map(|w| w.message.as_str()).collect();
    let mut content = Vec::new();
    if !notes.is_empty() {
        content.push(ContentBlock::Text { text: notes.join("\n\n") });
    }
    content.push(ContentBlock::Image { data, mime_type: mime_type.to_owned() });
    let value =
        ReadValue::Image(ImageRead { path, mime_type: mime_type.to_owned(), bytes: bytes.len() as u64, warnings });
    ToolOutput { value, content, meta: None, meta_of: None }
}
