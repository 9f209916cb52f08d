//! Selectors (SPEC §6.4): `Name`, `Parent.name` (any depth, `.` or `::`), `Name@LINE`, then
//! case-insensitive, prefix, camelCase/underscore word and substring tiers.

use serde::Serialize;

use crate::kind::SymbolKind;
use crate::symbol::{Symbol, SymbolMap};

/// Ambiguity lists at most this many candidates.
pub const MAX_CANDIDATES: usize = 5;
/// A fuzzy match names at most this many other candidates.
pub const MAX_OTHERS: usize = 4;
/// A not-found warning names at most this many top-level symbols.
pub const MAX_AVAILABLE: usize = 20;

/// Which rule found a symbol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Tier {
    /// The exact name.
    Exact,
    /// A dotted path (`Parent.name`).
    Path,
    /// `Name@LINE`.
    Line,
    /// The name, ignoring case.
    CaseInsensitive,
    /// A prefix of the name (fuzzy).
    Prefix,
    /// A camelCase or underscore word of the name (fuzzy).
    CamelCase,
    /// A substring of the name (fuzzy).
    Substring,
}

impl Tier {
    /// Whether the match is a guess that the reader should confirm.
    pub fn is_fuzzy(self) -> bool {
        matches!(self, Tier::Prefix | Tier::CamelCase | Tier::Substring)
    }

    /// How the banner names the tier.
    pub fn describe(self) -> &'static str {
        match self {
            Tier::Prefix => "prefix",
            Tier::CamelCase => "camelCase word boundary",
            Tier::Substring => "substring",
            Tier::Exact => "exact name",
            Tier::Path => "dotted path",
            Tier::Line => "name@line",
            Tier::CaseInsensitive => "case-insensitive name",
        }
    }
}

/// A symbol with its place in the map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    /// The symbol, without its children (they are in the map).
    pub symbol: Symbol,
    /// Its ancestors' names, outermost first (shared by the symbols of one level).
    pub path: std::sync::Arc<[String]>,
}

/// What a selector found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selection {
    /// One symbol.
    Found {
        /// The symbol.
        found: Located,
        /// The rule that found it.
        tier: Tier,
        /// For a fuzzy match, other close names (at most [`MAX_OTHERS`]).
        others: Vec<String>,
    },
    /// Several symbols fit equally well.
    Ambiguous {
        /// The first [`MAX_CANDIDATES`] candidates, in document order.
        candidates: Vec<Located>,
        /// How many there were.
        total: usize,
        /// The rule that found them.
        tier: Tier,
    },
    /// Nothing fits.
    NotFound {
        /// The first [`MAX_AVAILABLE`] top-level names.
        available: Vec<String>,
        /// How many top-level symbols there are.
        total: usize,
    },
}

/// Resolves `query` against `map`.
///
/// ```
/// use hashline_core::Document;
/// use hashline_symbols::{map_document, select, Selection, Tier};
///
/// let doc = Document::parse(b"class Cart:\n    def add_item(self):\n        pass\n".to_vec());
/// let map = map_document("cart.py", &doc).unwrap().unwrap();
/// let Selection::Found { found, tier, .. } = select(&map, "Cart.add_item") else { panic!() };
/// assert_eq!((found.symbol.start_line, tier), (2, Tier::Path));
/// ```
pub fn select(map: &SymbolMap, query: &str) -> Selection {
    let query = query.trim();
    let all = locate(map);
    if let Some((name, line)) = split_line(query) {
        let candidates: Vec<&Located> = all.iter().filter(|l| matches_name_or_path(l, name)).collect();
        if let Some(best) = nearest(&candidates, line) {
            return found(best.clone(), Tier::Line, Vec::new());
        }
        return not_found(map);
    }
    let exact: Vec<&Located> = all.iter().filter(|l| l.symbol.name == query).collect();
    if !exact.is_empty() {
        return decide(prefer_declarations(exact), Tier::Exact);
    }
    if query.contains('.') || query.contains("::") {
        let by_path: Vec<&Located> = all.iter().filter(|l| matches_path(l, query)).collect();
        if !by_path.is_empty() {
            return decide(prefer_declarations(by_path), Tier::Path);
        }
    }
    let lower = query.to_lowercase();
    let insensitive: Vec<&Located> = all.iter().filter(|l| l.symbol.name.to_lowercase() == lower).collect();
    if !insensitive.is_empty() {
        return decide(prefer_declarations(insensitive), Tier::CaseInsensitive);
    }
    let camel: Vec<&Located> = all.iter().filter(|l| words(&l.symbol.name).contains(&lower)).collect();
    let substring: Vec<&Located> = all.iter().filter(|l| l.symbol.name.to_lowercase().contains(&lower)).collect();
    let others = |chosen: &Located| -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for l in camel.iter().chain(&substring) {
            if l.symbol.name != chosen.symbol.name && !names.contains(&l.symbol.name) && names.len() < MAX_OTHERS {
                names.push(l.symbol.name.clone());
            }
        }
        names
    };
    let prefix: Vec<&Located> = all.iter().filter(|l| l.symbol.name.to_lowercase().starts_with(&lower)).collect();
    for (tier, pool) in [(Tier::Prefix, &prefix), (Tier::CamelCase, &camel), (Tier::Substring, &substring)] {
        match pool.as_slice() {
            [] => continue,
            [one] => return found((*one).clone(), tier, others(one)),
            many => return ambiguous(many, tier),
        }
    }
    not_found(map)
}

/// Every symbol with its ancestors' names, depth first.
pub fn locate(map: &SymbolMap) -> Vec<Located> {
    use std::sync::Arc;
    fn walk(symbols: &[Symbol], path: &Arc<[String]>, out: &mut Vec<Located>) {
        for symbol in symbols {
            let full = match &symbol.parent {
                // A Go method's receiver is its parent without nesting.
                Some(parent) if path.is_empty() => Arc::from([parent.clone()]),
                _ => Arc::clone(path),
            };
            // Without its children: the map has them, and a clone of every subtree for every
            // ancestor would grow with the square of a deeply nested file.
            let shallow = Symbol {
                name: symbol.name.clone(),
                kind: symbol.kind,
                parent: symbol.parent.clone(),
                start_line: symbol.start_line,
                decl_line: symbol.decl_line,
                end_line: symbol.end_line,
                signature: symbol.signature.clone(),
                doc: symbol.doc.clone(),
                children: Vec::new(),
            };
            out.push(Located { symbol: shallow, path: full });
            if !symbol.children.is_empty() {
                let inner: Arc<[String]> = path.iter().cloned().chain([symbol.name.clone()]).collect();
                walk(&symbol.children, &inner, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(&map.symbols, &Arc::from([]), &mut out);
    out
}

fn split_line(query: &str) -> Option<(&str, u32)> {
    let (name, line) = query.rsplit_once('@')?;
    if name.trim().is_empty() || line.is_empty() || !line.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((name.trim(), line.parse().ok()?))
}

fn segments(query: &str) -> Vec<&str> {
    query.split("::").flat_map(|part| part.split('.')).map(str::trim).filter(|s| !s.is_empty()).collect()
}

fn matches_path(located: &Located, query: &str) -> bool {
    let segs = segments(query);
    let Some((leaf, parents)) = segs.split_last() else { return false };
    if located.symbol.name != *leaf || parents.len() > located.path.len() {
        return false;
    }
    let tail = &located.path[located.path.len() - parents.len()..];
    tail.iter().zip(parents).all(|(a, b)| a == b)
}

fn matches_name_or_path(located: &Located, name: &str) -> bool {
    located.symbol.name == name || matches_path(located, name)
}

/// The candidate whose range holds `line`, else the nearest starting at or after it, else
/// the nearest above.
fn nearest<'a>(candidates: &[&'a Located], line: u32) -> Option<&'a Located> {
    let within = candidates
        .iter()
        .filter(|l| l.symbol.start_line <= line && line <= l.symbol.end_line)
        .min_by_key(|l| l.symbol.end_line - l.symbol.start_line);
    let after = candidates.iter().filter(|l| l.symbol.start_line >= line).min_by_key(|l| l.symbol.start_line);
    let above = candidates.iter().filter(|l| l.symbol.start_line < line).max_by_key(|l| l.symbol.start_line);
    within.or(after).or(above).copied()
}

/// Of several candidates, a single one that is not an `impl` block or a declaration-only
/// signature is the one meant (`Point` names the struct, not `impl Point`).
fn prefer_declarations(candidates: Vec<&Located>) -> Vec<&Located> {
    if candidates.len() > 1 {
        let real: Vec<&Located> = candidates.iter().copied().filter(|l| l.symbol.kind != SymbolKind::Impl).collect();
        if real.len() == 1 {
            return real;
        }
    }
    candidates
}

fn decide(candidates: Vec<&Located>, tier: Tier) -> Selection {
    match candidates.as_slice() {
        [one] => found((*one).clone(), tier, Vec::new()),
        many => ambiguous(many, tier),
    }
}

fn found(found: Located, tier: Tier, others: Vec<String>) -> Selection {
    Selection::Found { found, tier, others }
}

fn ambiguous(many: &[&Located], tier: Tier) -> Selection {
    Selection::Ambiguous {
        candidates: many.iter().take(MAX_CANDIDATES).map(|l| (*l).clone()).collect(),
        total: many.len(),
        tier,
    }
}

fn not_found(map: &SymbolMap) -> Selection {
    Selection::NotFound {
        available: map.symbols.iter().take(MAX_AVAILABLE).map(|s| s.name.clone()).collect(),
        total: map.symbols.len(),
    }
}

/// The lower-case words of a name split at camelCase humps, `_`, `-` and digits.
fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let chars: Vec<char> = name.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c == '_' || c == '-' || c == '.' {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current).to_lowercase());
            }
            continue;
        }
        let boundary = i > 0
            && c.is_uppercase()
            && (chars[i - 1].is_lowercase() || chars.get(i + 1).is_some_and(|n| n.is_lowercase()));
        if boundary && !current.is_empty() {
            out.push(std::mem::take(&mut current).to_lowercase());
        }
        current.push(c);
    }
    if !current.is_empty() {
        out.push(current.to_lowercase());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_at_humps_and_underscores() {
        assert_eq!(words("parseHTTPRequest"), ["parse", "http", "request"]);
        assert_eq!(words("add_user_id"), ["add", "user", "id"]);
        assert_eq!(words("URL"), ["url"]);
    }

    #[test]
    fn line_selectors_need_digits_at_the_very_end() {
        assert_eq!(split_line("foo@12"), Some(("foo", 12)));
        assert_eq!(split_line("foo@bar"), None);
        assert_eq!(split_line("@Override"), None);
        assert_eq!(split_line("@12"), None);
    }
}
