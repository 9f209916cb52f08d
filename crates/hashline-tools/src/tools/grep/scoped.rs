//! `grep` with `scope: "symbol"`: the admitted matches of each file grouped by their
//! enclosing symbol (`hashline_search::scope_matches` over the file's map), rendered as
//! symbol sections, with the `unmappable-file` and `no-enclosing-symbol` fallbacks to plain
//! rows. The grouping is the search crate's; this module fetches maps and renders.

use std::path::Path;
use std::sync::Arc;

use hashline_core::Document;
use hashline_search::{HitKind, HitLine, ScopeGroup, ScopeSection, scope_matches};
use hashline_symbols::{SymbolMap, has_map};
use schemars::JsonSchema;
use serde::Serialize;

use super::GrepScope;
use super::admit::{Admitted, AdmittedFile, lines_near};
use super::render::{self, GAP_ROW, Rendered, Unshown};
use crate::budget::MAX_LINES;
use crate::session::Session;
use crate::warning::{Warning, WarningCode};

/// At most this many scoped rows are kept as records (and served); later rows only count in
/// the budget notice. The text never shows more rows than this.
pub const MAX_SCOPE_RECORDS: usize = MAX_LINES;

/// The symbol-scope part of the value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct GrepScopes {
    /// Always `symbol`.
    pub mode: GrepScope,
    /// One group per symbol with matches, in the order shown.
    pub groups: Vec<GrepScopeGroup>,
    /// The fallbacks, in the order shown: `unmappable-file` (the file has no map: plain
    /// rows) and `no-enclosing-symbol` (a match outside every symbol: plain rows).
    pub warnings: Vec<GrepScopeWarning>,
}

/// The matches of one symbol.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GrepScopeGroup {
    /// The file's absolute path.
    pub path: String,
    /// The path as the text shows it.
    pub display_path: String,
    /// The enclosing symbol.
    pub symbol: ScopeSymbol,
    /// How many of its lines matched.
    pub match_count: u64,
    /// The matched lines, ascending.
    pub match_lines: Vec<u32>,
    /// The anchors of the group's rows, in order (matches and context).
    pub line_anchors: Vec<String>,
    /// `scopeContext`, when given (without it the group shows the whole symbol).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_lines: Option<u32>,
}

/// A symbol a group of matches lies in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScopeSymbol {
    /// Its name.
    pub name: String,
    /// Its kind (`function`, `method`, `struct`, ...).
    pub kind: String,
    /// The enclosing symbol's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_name: Option<String>,
    /// Its first line (doc comments and attributes included).
    pub start_line: u32,
    /// Its last line.
    pub end_line: u32,
}

/// A fallback to plain rows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct GrepScopeWarning {
    /// `unmappable-file` or `no-enclosing-symbol`.
    pub code: WarningCode,
    /// The text shown above the results.
    pub message: String,
    /// The file's absolute path.
    pub path: String,
    /// The match outside every symbol (`no-enclosing-symbol` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

/// A scoped result, ready for the value.
pub(crate) struct Scoped {
    /// The text (header, sections, notices, budget).
    pub rendered: Rendered,
    /// The rows kept as records, per file in path order.
    pub records: Vec<(std::path::PathBuf, Vec<HitLine>)>,
    /// Where each record's row is among the text's rows after its header, in the records'
    /// order (rising: the text shows a prefix of the rows).
    pub record_rows: Vec<usize>,
    /// The value's `scopes`.
    pub scopes: GrepScopes,
}

/// Collects rows and their records under [`MAX_SCOPE_RECORDS`].
struct Rows {
    text: Vec<String>,
    records: Vec<(std::path::PathBuf, Vec<HitLine>)>,
    record_rows: Vec<usize>,
    kept: usize,
    unshown: Unshown,
    clipped: bool,
}

impl Rows {
    fn full(&self) -> bool {
        self.kept >= MAX_SCOPE_RECORDS
    }

    /// A row without a record (a header, a gap, a `... +K more` line).
    fn plain(&mut self, row: String) {
        if self.full() {
            self.unshown.rows += 1;
            self.unshown.bytes += row.len() + 1;
        } else {
            self.text.push(row);
        }
    }

    /// An anchored row; returns whether it was kept.
    fn line(&mut self, display: &str, line: HitLine) -> bool {
        let (row, cut) = render::row(display, &line);
        if self.full() {
            self.unshown.rows += 1;
            self.unshown.bytes += row.len() + 1;
            return false;
        }
        self.clipped |= cut;
        if let Some((_, lines)) = self.records.last_mut() {
            self.record_rows.push(self.text.len());
            lines.push(line);
        }
        self.text.push(row);
        self.kept += 1;
        true
    }
}

/// Renders the admitted matches grouped by symbol.
pub(crate) fn scoped(
    session: &Session,
    admitted: &Admitted<'_>,
    shown: impl Fn(&Path) -> String,
    scope_context: Option<u32>,
    context: usize,
    limit_cut: bool,
    budget: crate::budget::Budget,
) -> Scoped {
    let mut rows = Rows {
        text: Vec::new(),
        records: Vec::new(),
        record_rows: Vec::new(),
        kept: 0,
        unshown: Unshown::default(),
        clipped: false,
    };
    let mut scopes = GrepScopes { mode: GrepScope::Symbol, groups: Vec::new(), warnings: Vec::new() };
    for file in admitted.files.iter() {
        let display = shown(&file.hits.path);
        let absolute = file.hits.path.to_string_lossy().into_owned();
        rows.records.push((file.hits.path.clone(), Vec::new()));
        match mapped(session, file) {
            Some((doc, map)) => {
                let matches: Vec<_> = file.lines.iter().filter(|l| l.kind == HitKind::Match).map(|l| l.line).collect();
                for section in scope_matches(&map, &matches, scope_context) {
                    match section {
                        ScopeSection::Symbol(group) => {
                            let entry = symbol_section(&mut rows, &display, &absolute, &doc, &group, scope_context);
                            scopes.groups.push(entry);
                        }
                        ScopeSection::Unscoped(lines) => {
                            for line in &lines {
                                scopes.warnings.push(GrepScopeWarning {
                                    code: WarningCode::NoEnclosingSymbol,
                                    message: format!(
                                        "[Warning: no enclosing symbol for {display}:{line} — showing normal grep lines for this match]"
                                    ),
                                    path: absolute.clone(),
                                    line: Some(line.get()),
                                });
                            }
                            let kept: Vec<u32> = lines.iter().map(|l| l.get()).collect();
                            let near = lines_near(file.lines.iter().copied(), &kept, context);
                            plain_section(&mut rows, &display, kept.len(), &near);
                        }
                    }
                }
            }
            None => {
                scopes.warnings.push(GrepScopeWarning {
                    code: WarningCode::UnmappableFile,
                    message: format!(
                        "[Warning: symbol scoping unavailable for {display} — showing normal grep lines for this file]"
                    ),
                    path: absolute.clone(),
                    line: None,
                });
                plain_section(&mut rows, &display, file.admitted, &file.lines);
            }
        }
        if file.more > 0 {
            rows.plain(render::more_row(file.more));
        }
    }
    let Rows { text, records, record_rows, unshown, clipped, .. } = rows;
    let rendered = render::matches_text(admitted, text, unshown, clipped, limit_cut, budget);
    Scoped { rendered, records, record_rows, scopes }
}

/// The warnings of the scoped result, for the value's `warnings` and the text.
pub(crate) fn warnings_of(scopes: &GrepScopes) -> Vec<Warning> {
    scopes.warnings.iter().map(|w| Warning::new(w.code, w.message.clone())).collect()
}

/// A section of plain rows: `--- PATH (K matches) ---` and the lines.
fn plain_section(rows: &mut Rows, display: &str, matches: usize, lines: &[&HitLine]) {
    rows.plain(format!("--- {display} ({matches} matches) ---"));
    let mut previous: Option<u32> = None;
    for line in lines {
        let number = line.line.get();
        if previous.is_some_and(|p| number > p + 1) {
            rows.plain(GAP_ROW.to_owned());
        }
        previous = Some(number);
        rows.line(display, (*line).clone());
    }
}

/// A symbol's section: `--- PATH :: KIND NAME[ in PARENT] (S-E, K matches[, scoped to ±N
/// lines]) ---`, then its rows with `--` between windows.
fn symbol_section(
    rows: &mut Rows,
    display: &str,
    absolute: &str,
    doc: &Document,
    group: &ScopeGroup<'_>,
    scope_context: Option<u32>,
) -> GrepScopeGroup {
    let symbol = group.symbol;
    let parent = group.parent.map(|p| format!(" in {p}")).unwrap_or_default();
    let scoped = scope_context.map(|n| format!(", scoped to ±{n} lines")).unwrap_or_default();
    rows.plain(format!(
        "--- {display} :: {} {}{parent} ({}-{}, {} matches{scoped}) ---",
        symbol.kind.as_str(),
        symbol.name,
        symbol.start_line,
        symbol.end_line,
        group.matches.len()
    ));
    let mut anchors = Vec::new();
    for row in group.rows(doc) {
        if row.gap_before {
            rows.plain(GAP_ROW.to_owned());
        }
        let anchor = row.line.anchor().to_string();
        if rows.line(display, row.line) {
            anchors.push(anchor);
        }
    }
    GrepScopeGroup {
        path: absolute.to_owned(),
        display_path: display.to_owned(),
        symbol: ScopeSymbol {
            name: symbol.name.clone(),
            kind: symbol.kind.as_str().to_owned(),
            parent_name: group.parent.map(str::to_owned),
            start_line: symbol.start_line,
            end_line: symbol.end_line,
        },
        match_count: group.matches.len() as u64,
        match_lines: group.matches.iter().map(|l| l.get()).collect(),
        line_anchors: anchors,
        context_lines: scope_context,
    }
}

/// The largest file whose matches are grouped by symbol (8 MiB, the largest source the
/// parser maps): a larger one shows plain rows with an `unmappable-file` warning.
pub const MAX_SCOPED_FILE_BYTES: u64 = hashline_syntax::ParseLimits::DEFAULT.max_bytes as u64;

/// The file as it is now and its map, when files of its type have maps, it is at most
/// [`MAX_SCOPED_FILE_BYTES`], it parses, and its matched lines are still the ones the search
/// saw (else: `None`, plain rows).
fn mapped(session: &Session, file: &AdmittedFile<'_>) -> Option<(Document, Arc<SymbolMap>)> {
    let path = &file.hits.path;
    let name = path.to_string_lossy();
    if !has_map(&name) {
        return None;
    }
    // Through the guarded open (a file swapped for a FIFO since the search cannot hold
    // the call) and no larger than a map is ever built from.
    let (bytes, mtime) = hashline_fs::open::read_regular_stamped(path, MAX_SCOPED_FILE_BYTES).ok()?;
    let doc = Document::parse(bytes);
    let unchanged = file.lines.iter().all(|l| doc.line(l.line).is_some_and(|now| now.hash() == l.hash));
    if !unchanged {
        return None;
    }
    let key = session.key_of(path);
    let map = super::super::symbol_read::cached_map(session, &key, &name, &doc, mtime).ok()??;
    Some((doc, map))
}
