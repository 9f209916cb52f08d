//! `read`'s symbol, map and bundle paths (SPEC §5.1, §6.3–§6.5): the adapter between the
//! read tool and `hashline-symbols`.

use std::path::Path;
use std::sync::{Arc, OnceLock};
use std::time::SystemTime;

use hashline_core::Document;
use hashline_symbols::{
    Bundle, FileStamp, Located, MapCache, Selection, SymbolMap, Tier, local_bundle, map_document, map_parsed,
    render_map, select,
};
use hashline_syntax::{LanguageId, ParseLimits, census, parse_document};
use schemars::JsonSchema;
use serde::Serialize;

use crate::map_store::ContentKey;
use crate::paths::ResolvedPath;
use crate::session::Session;
use crate::tree_cache::CachedTree;
use crate::warning::{FuzzySymbol, Warning, WarningCode};

/// The symbol a read selected.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SymbolInfo {
    /// The selector as given.
    pub query: String,
    /// The symbol's name.
    pub name: String,
    /// Its kind (`function`, `class`, ...).
    pub kind: String,
    /// The enclosing symbol's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_name: Option<String>,
    /// Its first line (doc comments and attributes included).
    pub start_line: u32,
    /// Its last line.
    pub end_line: u32,
    /// How the selector found it: `exact`, `path`, `line`, `caseInsensitive`, `prefix`,
    /// `camelCase`, `substring`.
    pub tier: String,
}

/// An ambiguous selector's candidates (a successful read with no rows).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Ambiguity {
    /// The selector as given.
    pub query: String,
    /// The tier that found several.
    pub tier: String,
    /// How many symbols fit.
    pub total_candidates: u32,
    /// The first five, in file order.
    pub displayed_candidates: Vec<Candidate>,
    /// How many were not listed.
    pub omitted_count: u32,
}

/// One candidate of an ambiguous selector.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Candidate {
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
    /// The selector that picks it: `Name@LINE`.
    pub selector: String,
}

/// What a `symbol` resolved to, for the read (built and consumed at once).
#[allow(clippy::large_enum_variant)]
pub(crate) enum SymbolOutcome {
    /// Show these lines of the file (1-based, inclusive), with an optional banner.
    Found { info: SymbolInfo, located: Located, banner: Option<Warning>, map: Arc<SymbolMap> },
    /// Several fit: the text to show instead of rows.
    Ambiguous { text: String, ambiguity: Ambiguity },
    /// Show the whole file with this warning.
    Fallback(Warning),
}

/// The process-wide map cache (read's symbol paths and grep's symbol scope share it).
pub(crate) fn cache() -> &'static MapCache {
    static CACHE: OnceLock<MapCache> = OnceLock::new();
    CACHE.get_or_init(MapCache::new)
}

/// The file's map: `Ok(None)` when files of its type have none, `Err(reason)` when it could
/// not be built.
pub(crate) fn file_map(
    session: &Session,
    path: &ResolvedPath,
    doc: &Document,
) -> Result<Option<Arc<SymbolMap>>, String> {
    let mtime = session.modified(&path.key);
    cached_map(session, &path.key, &path.display, doc, mtime)
}

/// The map of `doc`, the file `key` (its real path) named `name`, last modified at `mtime`:
/// from the process's cache, else from the session's map store, else built (and kept in
/// both). `Ok(None)` when files of its type have no map.
pub(crate) fn cached_map(
    session: &Session,
    key: &Path,
    name: &str,
    doc: &Document,
    mtime: Option<SystemTime>,
) -> Result<Option<Arc<SymbolMap>>, String> {
    cached_map_keyed(session, key, name, doc, mtime, None, &mut None)
}

/// [`cached_map`] with the bytes' store key when the caller has it (so they are not hashed
/// again); `text` receives the map's text when the map was built and stored now.
fn cached_map_keyed(
    session: &Session,
    key: &Path,
    name: &str,
    doc: &Document,
    mtime: Option<SystemTime>,
    content: Option<ContentKey>,
    text: &mut Option<String>,
) -> Result<Option<Arc<SymbolMap>>, String> {
    if !hashline_symbols::has_map(name) {
        return Ok(None);
    }
    // With a store the bytes are hashed once, for its key, and the cache's stamp takes
    // that hash too (without one, the stamp's own).
    let store = session.map_store().map(|store| (store, content.unwrap_or_else(|| ContentKey::of(doc.as_bytes()))));
    let stamp = match &store {
        Some((_, content)) => FileStamp { size: content.size, mtime, content_hash: content.hash as u64 },
        None => FileStamp::of(doc.as_bytes(), mtime),
    };
    cache()
        .get_or_build(key, stamp, || {
            let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
            if let Some((store, content)) = store
                && let Some(map) = store.load(key, base, content)
            {
                return Ok(map);
            }
            if let Some(lang) = LanguageId::from_path(name) {
                // The tree is in hand: it goes to the session's trees (the next edit's syntax
                // check reparses only what that edit changes, issue 21), and its census to the
                // store too. What cannot be stored is built again next time.
                let parsed = parse_document(lang, doc, ParseLimits::DEFAULT).map_err(|err| err.to_string())?;
                let map = map_parsed(&parsed, doc);
                let found = census(&parsed.tree, doc, parsed.text_start);
                if let Some((store, content)) = store {
                    *text = store.store_rendered(key, base, content, &map).ok().flatten();
                    let _ = store.store_census(key, base, content, &found);
                }
                session.syntax_trees().put(key, doc.as_bytes(), CachedTree { parsed, census: found });
                return Ok(map);
            }
            let map = match map_document(name, doc) {
                Some(result) => result.map_err(|err| err.to_string())?,
                None => return Err("no map for this file type".to_owned()),
            };
            if let Some((store, content)) = store {
                // A map that cannot be stored is built again next time.
                *text = store.store_rendered(key, base, content, &map).ok().flatten();
            }
            Ok(map)
        })
        .map(Some)
}

/// `.EXT` of a path for messages, or `these`.
fn extension_label(display: &str) -> String {
    let base = display.rsplit(['/', '\\']).next().unwrap_or(display);
    match base.rfind('.') {
        Some(dot) if dot > 0 && dot + 1 < base.len() => base[dot..].to_owned(),
        _ => "extensionless".to_owned(),
    }
}

/// Resolves `query` in the file.
pub(crate) fn resolve(session: &Session, path: &ResolvedPath, doc: &Document, query: &str) -> SymbolOutcome {
    let map = match file_map(session, path, doc) {
        Ok(Some(map)) => map,
        Ok(None) => {
            return SymbolOutcome::Fallback(Warning::new(
                WarningCode::SymbolWarning,
                format!(
                    "[Warning: symbol lookup not available for {} files — showing full file]",
                    extension_label(&path.display)
                ),
            ));
        }
        Err(reason) => {
            return SymbolOutcome::Fallback(Warning::new(
                WarningCode::SymbolWarning,
                format!("[Warning: symbol lookup failed ({reason}) — showing full file]"),
            ));
        }
    };
    match select(&map, query) {
        Selection::Found { found, tier, others } => {
            let symbol = &found.symbol;
            let banner = tier.is_fuzzy().then(|| {
                let mut text = format!(
                    "[Symbol '{query}' not exact-matched. Closest match: `{}` ({}, lines {}-{}) via {}.",
                    symbol.name,
                    symbol.kind,
                    symbol.start_line,
                    symbol.end_line,
                    tier.describe()
                );
                if !others.is_empty() {
                    let list: Vec<String> = others.iter().map(|o| format!("`{o}`")).collect();
                    text.push_str(&format!(" Other candidates: {}.", list.join(", ")));
                }
                text.push_str(&format!(
                    " To confirm: read({{ symbol: \"{}\" }}) or {}@{} to select by start line.]",
                    symbol.name, symbol.name, symbol.start_line
                ));
                Warning {
                    symbol: Some(Box::new(FuzzySymbol {
                        query: query.to_owned(),
                        tier: tier_name(tier).to_owned(),
                        name: symbol.name.clone(),
                        kind: symbol.kind.as_str().to_owned(),
                        parent_name: symbol.parent.clone(),
                        start_line: symbol.start_line,
                        end_line: symbol.end_line,
                        candidates: others.iter().map(ToString::to_string).collect(),
                    })),
                    ..Warning::new(WarningCode::FuzzySymbolMatch, text)
                }
            });
            let info = SymbolInfo {
                query: query.to_owned(),
                name: symbol.name.clone(),
                kind: symbol.kind.as_str().to_owned(),
                parent_name: symbol.parent.clone(),
                start_line: symbol.start_line,
                end_line: symbol.end_line,
                tier: tier_name(tier).to_owned(),
            };
            SymbolOutcome::Found { info, located: found, banner, map }
        }
        Selection::Ambiguous { candidates, total, tier } => {
            let listed: Vec<Candidate> = candidates
                .iter()
                .map(|c| Candidate {
                    name: c.symbol.name.clone(),
                    kind: c.symbol.kind.as_str().to_owned(),
                    parent_name: c.symbol.parent.clone(),
                    start_line: c.symbol.start_line,
                    end_line: c.symbol.end_line,
                    selector: format!("{}@{}", c.symbol.name, c.symbol.start_line),
                })
                .collect();
            let mut text = format!("Symbol '{query}' is ambiguous.\nMatches:\n");
            for c in &listed {
                let parent = c.parent_name.as_deref().map(|p| format!(" in {p}")).unwrap_or_default();
                text.push_str(&format!("- {} ({}){parent} — lines {}-{}\n", c.name, c.kind, c.start_line, c.end_line));
            }
            if total > listed.len() {
                text.push_str(&format!("- … {} more\n", total - listed.len()));
            }
            let selectors: Vec<&str> = listed.iter().map(|c| c.selector.as_str()).collect();
            text.push_str(&format!("Use {} to select by start line.", or_list(&selectors)));
            let ambiguity = Ambiguity {
                query: query.to_owned(),
                tier: tier_name(tier).to_owned(),
                total_candidates: total as u32,
                omitted_count: (total - listed.len()) as u32,
                displayed_candidates: listed,
            };
            SymbolOutcome::Ambiguous { text, ambiguity }
        }
        Selection::NotFound { available, total } => {
            let mut list = available.join(", ");
            if total > available.len() {
                list.push_str(", …");
            }
            if available.is_empty() {
                list = "(none)".to_owned();
            }
            SymbolOutcome::Fallback(Warning::new(
                WarningCode::SymbolWarning,
                format!("[Warning: symbol '{query}' not found. Available symbols: {list}]"),
            ))
        }
    }
}

/// `a`, `a or b`, `a, b or c`.
fn or_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

fn tier_name(tier: Tier) -> &'static str {
    match tier {
        Tier::Exact => "exact",
        Tier::Path => "path",
        Tier::Line => "line",
        Tier::CaseInsensitive => "caseInsensitive",
        Tier::Prefix => "prefix",
        Tier::CamelCase => "camelCase",
        Tier::Substring => "substring",
    }
}

/// The symbol header: `[Symbol: NAME (KIND)[ in PARENT], lines S-E of TOTAL]`.
pub(crate) fn header(info: &SymbolInfo, total: usize) -> String {
    let parent = info.parent_name.as_deref().map(|p| format!(" in {p}")).unwrap_or_default();
    format!("[Symbol: {} ({}){parent}, lines {}-{} of {total}]", info.name, info.kind, info.start_line, info.end_line)
}

/// The map text to append, at most `max_bytes` long (the ladder's rungs held to it), or the
/// warning that says why there is none.
pub(crate) fn map_text_within(
    session: &Session,
    path: &ResolvedPath,
    doc: &Document,
    max_bytes: usize,
) -> Result<String, Warning> {
    let text = map_text(session, path, doc)?;
    if text.len() <= max_bytes {
        return Ok(text);
    }
    let name = path.display.rsplit(['/', '\\']).next().unwrap_or(&path.display);
    let mtime = session.modified(&path.key);
    match cached_map_keyed(session, &path.key, &path.display, doc, mtime, None, &mut None) {
        Ok(Some(map)) => Ok(hashline_symbols::render_map_within(name, &map, max_bytes).text),
        Ok(None) => Err(no_map_warning(path)),
        Err(reason) => {
            Err(Warning::new(WarningCode::MapUnavailable, format!("[Warning: structural map not available: {reason}]")))
        }
    }
}

/// The map text to append, or the warning that says why there is none.
///
/// With a map store (the CLI), the text itself is kept for the file's bytes: a warm read
/// reads it back instead of decoding the map and rendering it (about half of such a read).
pub(crate) fn map_text(session: &Session, path: &ResolvedPath, doc: &Document) -> Result<String, Warning> {
    let name = path.display.rsplit(['/', '\\']).next().unwrap_or(&path.display);
    let store = session
        .map_store()
        .filter(|_| hashline_symbols::has_map(name))
        .map(|store| (store, ContentKey::of(doc.as_bytes())));
    let stored = || store.as_ref().and_then(|(store, content)| store.load_map_text(&path.key, name, *content));
    if let Some(text) = stored() {
        return Ok(text);
    }
    let mtime = session.modified(&path.key);
    let mut built = None;
    let content = store.as_ref().map(|(_, content)| *content);
    match cached_map_keyed(session, &path.key, &path.display, doc, mtime, content, &mut built) {
        Ok(Some(map)) => {
            // A map built now was stored with its text, which comes back here (a cold read
            // hashes the bytes once and reads nothing back); one taken from the store whose
            // text entry was lost gets its text back (a text that cannot be stored is
            // rendered again next time).
            if let Some(text) = built.or_else(stored) {
                return Ok(text);
            }
            let text = render_map(name, &map).text;
            if let Some((store, content)) = &store {
                let _ = store.store_map_text(&path.key, name, *content, &text);
            }
            Ok(text)
        }
        Ok(None) => Err(no_map_warning(path)),
        Err(reason) => {
            Err(Warning::new(WarningCode::MapUnavailable, format!("[Warning: structural map not available: {reason}]")))
        }
    }
}

/// Whether files of `path`'s type have a structural map (without one, [`map_text`] gives
/// [`no_map_warning`] and looks at no byte).
pub(crate) fn has_map(path: &ResolvedPath) -> bool {
    hashline_symbols::has_map(&path.display)
}

/// The warning of a file whose type has no structural map.
pub(crate) fn no_map_warning(path: &ResolvedPath) -> Warning {
    Warning::new(
        WarningCode::MapUnavailable,
        format!("[Warning: structural map not available for {} files]", extension_label(&path.display)),
    )
}

/// The local bundle of a found symbol: its support symbols, or the warning why none.
pub(crate) fn bundle(map: &SymbolMap, doc: &Document, located: &Located) -> Result<Vec<Located>, Warning> {
    match local_bundle(map, doc, located) {
        Bundle::Support(support) => Ok(support),
        Bundle::Ambiguous { name, count } => Err(Warning::new(
            WarningCode::BundleContextUnavailable,
            format!(
                "[Warning: local bundle unavailable — '{name}' names {count} symbols in this file, so its support cannot be chosen safely. Showing the requested symbol only.]"
            ),
        )),
    }
}
