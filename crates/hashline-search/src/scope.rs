//! Symbol scope: the matches of one file grouped by their smallest enclosing symbol (from
//! `hashline-symbols`' map of the file), with the lines each group shows — the whole symbol,
//! or windows of `scope_context` lines around each match, clipped to the symbol and merged.
//! Matches outside every symbol are left for the caller to show as plain rows.

use hashline_core::{Document, LineNo};
use hashline_symbols::{Symbol, SymbolMap};

use crate::scan::{HitKind, HitLine};

/// The matches of one symbol and the lines shown for them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScopeGroup<'m> {
    /// The smallest symbol that encloses the matches.
    pub symbol: &'m Symbol,
    /// The symbol's parent, when it has one (the enclosing symbol's name, or a Go method's
    /// receiver).
    pub parent: Option<&'m str>,
    /// The matched lines, ascending, each once.
    pub matches: Vec<LineNo>,
    /// The lines shown, as inclusive ranges: ascending, neither overlapping nor adjacent
    /// (a gap of at least one line lies between two of them). One range, the whole symbol,
    /// without `scope_context`.
    pub windows: Vec<(LineNo, LineNo)>,
}

/// One part of a file's scoped result, in the order it is shown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScopeSection<'m> {
    /// Matches inside a symbol.
    Symbol(ScopeGroup<'m>),
    /// Matches inside no symbol (ascending): shown as plain rows.
    Unscoped(Vec<LineNo>),
}

impl ScopeSection<'_> {
    /// The first line the section is about: its symbol's start, or its first match.
    fn order(&self) -> (u32, &str) {
        match self {
            ScopeSection::Symbol(group) => (group.symbol.start_line, group.symbol.name.as_str()),
            ScopeSection::Unscoped(lines) => (lines.first().map_or(u32::MAX, |l| l.get()), ""),
        }
    }
}

/// One shown line of a group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScopeRow {
    /// A `--` gap comes before this row (it starts a window after the first).
    pub gap_before: bool,
    /// The line, anchored; a match when it is one of the group's matches, else context.
    pub line: HitLine,
}

impl ScopeGroup<'_> {
    /// How many lines the group shows.
    pub fn row_count(&self) -> usize {
        self.windows.iter().map(|(start, end)| end.get().saturating_sub(start.get()) as usize + 1).sum()
    }

    /// The shown lines of `doc` (the file the map was built from), in order. Lines past the
    /// end of `doc` are skipped.
    pub fn rows<'d>(&'d self, doc: &'d Document) -> impl Iterator<Item = ScopeRow> + 'd {
        self.windows.iter().enumerate().flat_map(move |(window, &(start, end))| {
            doc.lines_in(start.index()..(end.index() + 1).min(doc.line_count())).enumerate().map(move |(i, line)| {
                let kind =
                    if self.matches.binary_search(&line.number).is_ok() { HitKind::Match } else { HitKind::Context };
                ScopeRow {
                    gap_before: window > 0 && i == 0,
                    line: HitLine {
                        line: line.number,
                        hash: line.hash(),
                        content: line.content.to_vec(),
                        kind,
                        measured: None,
                    },
                }
            })
        })
    }
}

/// The smallest symbol of `map` whose lines (doc comments and attributes included) hold
/// `line`, with its parent's name; ties go to the earlier start, then the name.
pub fn enclosing_symbol(map: &SymbolMap, line: LineNo) -> Option<(&Symbol, Option<&str>)> {
    fn walk<'a>(
        symbols: &'a [Symbol],
        parent: Option<&'a str>,
        line: u32,
        best: &mut Option<(&'a Symbol, Option<&'a str>)>,
    ) {
        for symbol in symbols {
            if symbol.start_line <= line && line <= symbol.end_line {
                let size = |s: &Symbol| s.end_line - s.start_line;
                let better = best.is_none_or(|(b, _)| {
                    (size(symbol), symbol.start_line, symbol.name.as_str()) < (size(b), b.start_line, b.name.as_str())
                });
                if better {
                    *best = Some((symbol, symbol.parent.as_deref().or(parent)));
                }
            }
            walk(&symbol.children, Some(symbol.name.as_str()), line, best);
        }
    }
    let mut best = None;
    walk(&map.symbols, None, line.get(), &mut best);
    best
}

/// Groups `matches` (the shown matches of one file) by their smallest enclosing symbol of
/// `map`. Each group shows its whole symbol, or with `scope_context` the lines within that
/// many lines of each of its matches, clipped to the symbol, windows that touch or overlap
/// merged. Sections come in line order: groups by their symbol's first line, the unscoped
/// matches by their first match.
pub fn scope_matches<'m>(map: &'m SymbolMap, matches: &[LineNo], scope_context: Option<u32>) -> Vec<ScopeSection<'m>> {
    let mut groups: Vec<ScopeGroup<'m>> = Vec::new();
    let mut unscoped = Vec::new();
    let mut sorted = matches.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    for line in sorted {
        let Some((symbol, parent)) = enclosing_symbol(map, line) else {
            unscoped.push(line);
            continue;
        };
        match groups.iter_mut().find(|g| std::ptr::eq(g.symbol, symbol)) {
            Some(group) => group.matches.push(line),
            None => groups.push(ScopeGroup { symbol, parent, matches: vec![line], windows: Vec::new() }),
        }
    }
    let last_line = map.line_count.max(1);
    for group in &mut groups {
        group.windows = windows(group.symbol, &group.matches, scope_context, last_line);
    }
    let mut sections: Vec<ScopeSection<'m>> = groups.into_iter().map(ScopeSection::Symbol).collect();
    if !unscoped.is_empty() {
        sections.push(ScopeSection::Unscoped(unscoped));
    }
    sections.sort_by(|a, b| a.order().cmp(&b.order()));
    sections
}

/// The shown ranges of a symbol's group.
fn windows(symbol: &Symbol, matches: &[LineNo], scope_context: Option<u32>, last_line: u32) -> Vec<(LineNo, LineNo)> {
    let first = symbol.start_line.max(1);
    let last = symbol.end_line.min(last_line).max(first);
    let line = |n: u32| LineNo::new(n).unwrap_or(LineNo::FIRST);
    let Some(around) = scope_context else { return vec![(line(first), line(last))] };
    let mut merged: Vec<(u32, u32)> = Vec::new();
    for m in matches {
        let start = m.get().saturating_sub(around).max(first);
        let end = m.get().saturating_add(around).min(last);
        if start > end {
            // A match past the map's last line (the map is of another version): no rows.
            continue;
        }
        match merged.last_mut() {
            Some(previous) if start <= previous.1 + 1 => previous.1 = previous.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    merged.into_iter().map(|(s, e)| (line(s), line(e))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use hashline_symbols::map_document;

    fn line(n: u32) -> LineNo {
        LineNo::new(n).expect("line")
    }

    const SOURCE: &str = "\
use std::fmt; // lonely
/// Docs.
fn alpha() {
    let target = 1;
    let a = 2;
    let b = 3;
    target
}

struct S;

impl S {
    fn beta(&self) -> u32 {
        target()
    }
    const TARGET: u32 = 1; // target
}
";

    fn map() -> (Document, SymbolMap) {
        let doc = Document::parse(SOURCE.as_bytes().to_vec());
        let map = map_document("a.rs", &doc).expect("rust has maps").expect("parses");
        (doc, map)
    }

    fn describe(sections: &[ScopeSection<'_>]) -> Vec<String> {
        sections
            .iter()
            .map(|section| match section {
                ScopeSection::Symbol(g) => format!(
                    "{} {}{} {:?} {:?}",
                    g.symbol.kind.as_str(),
                    g.symbol.name,
                    g.parent.map(|p| format!(" in {p}")).unwrap_or_default(),
                    g.matches.iter().map(|l| l.get()).collect::<Vec<_>>(),
                    g.windows.iter().map(|(s, e)| (s.get(), e.get())).collect::<Vec<_>>()
                ),
                ScopeSection::Unscoped(lines) => {
                    format!("none {:?}", lines.iter().map(|l| l.get()).collect::<Vec<_>>())
                }
            })
            .collect()
    }

    #[test]
    fn matches_group_by_their_smallest_symbol_in_line_order() {
        let (_, map) = map();
        let matches = [line(14), line(4), line(7), line(1), line(16), line(4)];
        assert_eq!(
            describe(&scope_matches(&map, &matches, None)),
            [
                "none [1]",
                "function alpha [4, 7] [(2, 8)]",
                "method beta in S [14] [(13, 15)]",
                "constant TARGET in S [16] [(16, 16)]",
            ]
        );
    }

    #[test]
    fn scope_context_windows_are_clipped_to_the_symbol_and_merged() {
        let (doc, map) = map();
        let sections = scope_matches(&map, &[line(4), line(8)], Some(1));
        assert_eq!(describe(&sections), ["function alpha [4, 8] [(3, 5), (7, 8)]"]);
        // Windows that touch merge.
        let sections = scope_matches(&map, &[line(4), line(7)], Some(1));
        assert_eq!(describe(&sections), ["function alpha [4, 7] [(3, 8)]"]);
        let sections = scope_matches(&map, &[line(4)], Some(0));
        assert_eq!(describe(&sections), ["function alpha [4] [(4, 4)]"]);
        let sections = scope_matches(&map, &[line(4), line(7)], Some(9));
        assert_eq!(describe(&sections), ["function alpha [4, 7] [(2, 8)]"]);
        let ScopeSection::Symbol(group) = &scope_matches(&map, &[line(4), line(7)], Some(0))[0] else { panic!() };
        let rows: Vec<(bool, u32, HitKind)> =
            group.rows(&doc).map(|r| (r.gap_before, r.line.line.get(), r.line.kind)).collect();
        assert_eq!(rows, [(false, 4, HitKind::Match), (true, 7, HitKind::Match)]);
        assert_eq!(group.row_count(), 2);
    }

    #[test]
    fn whole_symbol_rows_mark_the_matches() {
        let (doc, map) = map();
        let ScopeSection::Symbol(group) = &scope_matches(&map, &[line(14)], None)[0] else { panic!() };
        let rows: Vec<String> = group
            .rows(&doc)
            .map(|r| format!("{}{}", if r.line.kind == HitKind::Match { ">>" } else { "  " }, r.line.anchor()))
            .collect();
        assert_eq!(rows.len(), 3);
        assert!(rows[1].starts_with(">>14:"), "{rows:?}");
        assert!(rows[0].starts_with("  13:") && rows[2].starts_with("  15:"), "{rows:?}");
    }

    #[test]
    fn a_symbol_past_the_end_of_the_file_is_clipped() {
        let (_, mut map) = map();
        map.symbols[0].end_line = 900;
        let sections = scope_matches(&map, &[line(4)], None);
        assert_eq!(describe(&sections), [format!("function alpha [4] [(2, {})]", map.line_count)]);
        assert!(enclosing_symbol(&map, line(10_000)).is_none());
        // A match past the map's last line (a stale map) shows no window, and no panic.
        let sections = scope_matches(&map, &[line(850)], Some(2));
        assert_eq!(describe(&sections), ["function alpha [850] []"]);
    }
}
