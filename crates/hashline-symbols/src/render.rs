//! The map as text, under a budget ladder: full detail ≤ 10 KB, compact (no signatures)
//! ≤ 20 KB, minimal (children flattened onto one line) ≤ 25 KB, outline (top level only,
//! no imports) ≤ 50 KB, then ≤ 100 KB, then the first and last symbols of the outline
//! with a note of what was left out.

use hashline_core::display::escape_name;
use serde::Serialize;

use crate::kind::SymbolKind;
use crate::symbol::{Symbol, SymbolMap};

const KB: usize = 1024;
const RULE: &str = "───────────────────────────────────────";
/// At most this many imports are named.
const MAX_IMPORTS: usize = 10;
/// The truncated rung keeps at least this many symbols at each end.
const MIN_KEPT: usize = 10;

/// How much detail a rendered map kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MapDetail {
    /// Signatures and doc lines.
    Full,
    /// Names and lines.
    Compact,
    /// Top-level symbols, each one's children on one line.
    Minimal,
    /// Top-level symbols only.
    Outline,
    /// The first and last top-level symbols only.
    Truncated,
}

/// A rendered map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RenderedMap {
    /// The text (starts and ends with a rule line).
    pub text: String,
    /// The rung of the ladder it fit on.
    pub detail: MapDetail,
    /// Symbols shown (at every depth).
    pub shown: usize,
    /// Symbols in the map.
    pub total: usize,
}

/// Renders `map` of the file named `file_name` at the most detail that fits.
///
/// ```
/// use hashline_core::Document;
/// use hashline_symbols::{map_document, render_map, MapDetail};
///
/// let doc = Document::parse(b"struct Point {\n    x: i32,\n}\n\nfn origin() -> Point {\n    Point { x: 0 }\n}\n".to_vec());
/// let map = map_document("geo.rs", &doc).unwrap().unwrap();
/// let rendered = render_map("geo.rs", &map);
/// assert_eq!(rendered.detail, MapDetail::Full);
/// assert!(rendered.text.contains("struct Point: [1-3]\norigin() -> Point: [5-7]"));
/// ```
pub fn render_map(file_name: &str, map: &SymbolMap) -> RenderedMap {
    render_map_within(file_name, map, MAX_MAP_BYTES)
}

/// The largest map [`render_map`] makes.
pub const MAX_MAP_BYTES: usize = 100 * KB;

/// Renders `map` at the most detail that fits `max_bytes` (at most [`MAX_MAP_BYTES`]): each
/// rung of the ladder held to the smaller of its own size and `max_bytes`, its label saying
/// the size it was held to; the last rung keeps the first and last top-level symbols (at
/// least ten of each, so a very small `max_bytes` may be passed).
///
/// ```
/// use hashline_core::Document;
/// use hashline_symbols::{map_document, render_map_within, MapDetail};
///
/// let source: String = (0..400).map(|n| format!("/// Item {n}.\nfn item_{n}(value: u32) -> u32 {{\n    value\n}}\n")).collect();
/// let doc = Document::parse(source.into_bytes());
/// let map = map_document("items.rs", &doc).unwrap().unwrap();
/// let small = render_map_within("items.rs", &map, 4096);
/// assert!(small.text.len() <= 4096, "{} bytes:\n{}", small.text.len(), small.text);
/// assert_eq!(small.detail, MapDetail::Truncated);
/// assert!(small.text.contains("[Map ≤4.0 KB | "));
/// ```
pub fn render_map_within(file_name: &str, map: &SymbolMap, max_bytes: usize) -> RenderedMap {
    let total = map.count();
    let cap = max_bytes.min(MAX_MAP_BYTES);
    let mut tried: Option<(MapDetail, usize)> = None;
    for (detail, rung, name) in [
        (MapDetail::Full, 10 * KB, None),
        (MapDetail::Compact, 20 * KB, Some("compact")),
        (MapDetail::Minimal, 25 * KB, Some("minimal")),
        (MapDetail::Outline, 50 * KB, Some("outline")),
        (MapDetail::Outline, 100 * KB, Some("outline")),
    ] {
        let limit = rung.min(cap);
        if tried == Some((detail, limit)) {
            continue;
        }
        tried = Some((detail, limit));
        // A body over the limit cannot fit once framed: it is not finished.
        let Some(body) = body(map, detail, limit) else { continue };
        let label = name.map(|name| format!("[Map ≤{} | {name}]", kilobytes_label(limit)));
        let text = frame(file_name, map, label.as_deref(), &body, None);
        if text.len() <= limit {
            let shown = if matches!(detail, MapDetail::Outline) { map.symbols.len() } else { total };
            return RenderedMap { text, detail, shown, total };
        }
    }
    truncated(file_name, map, total, cap)
}

/// `20.0 KB`, as a rung's label says its size.
fn kilobytes_label(bytes: usize) -> String {
    format!("{:.1} KB", bytes as f64 / KB as f64)
}

/// The first and last `n` top-level symbols, the largest `n` that fits `cap` (at least
/// [`MIN_KEPT`]).
fn truncated(file_name: &str, map: &SymbolMap, total: usize, cap: usize) -> RenderedMap {
    let top = &map.symbols;
    let render = |n: usize| {
        let n = n.min(top.len() / 2);
        let mut body = String::new();
        for symbol in &top[..n] {
            line(&mut body, symbol, 0, MapDetail::Outline);
        }
        let omitted = &top[n..top.len() - n];
        body.push_str(&format!("  ─ ─ ─ {} more symbols ─ ─ ─\n", omitted.len()));
        for symbol in &top[top.len() - n..] {
            line(&mut body, symbol, 0, MapDetail::Outline);
        }
        let (first, last) = (omitted.first().map_or(0, |s| s.start_line), omitted.last().map_or(0, |s| s.end_line));
        let footer = format!(
            "Omitted symbols are in lines {first}-{last}.\nUse read(path, offset=LINE, limit=N) to view specific sections."
        );
        (n, body, footer)
    };
    let (mut low, mut high) = (MIN_KEPT, top.len() / 2);
    while low < high {
        let mid = (low + high).div_ceil(2);
        let (kept, body, footer) = render(mid);
        let label = format!("[Map ≤{} | {} of {} symbols]", kilobytes_label(cap), 2 * kept, top.len());
        if frame(file_name, map, Some(&label), &body, Some(&footer)).len() <= cap {
            low = mid;
        } else {
            high = mid - 1;
        }
    }
    let (n, body, footer) = render(low);
    let label = format!("[Map ≤{} | {} of {} symbols]", kilobytes_label(cap), 2 * n, top.len());
    let text = frame(file_name, map, Some(&label), &body, Some(&footer));
    RenderedMap { text, detail: MapDetail::Truncated, shown: 2 * n, total }
}

fn frame(file_name: &str, map: &SymbolMap, label: Option<&str>, body: &str, footer: Option<&str>) -> String {
    let mut text = String::with_capacity(body.len() + 512);
    text.push_str(RULE);
    text.push_str(&format!(
        "\nFile Map: {}\n{} {} │ {} │ {}\n",
        escape_name(file_name),
        thousands(map.line_count as u64),
        if map.line_count == 1 { "line" } else { "lines" },
        kilobytes(map.byte_count),
        map.language
    ));
    text.push_str(RULE);
    text.push_str("\n\n");
    if let Some(label) = label.filter(|l| !l.is_empty()) {
        text.push_str(label);
        text.push_str("\n\n");
    }
    text.push_str(body);
    text.push('\n');
    text.push_str(RULE);
    text.push('\n');
    text.push_str(footer.unwrap_or("Use read(path, offset=LINE, limit=N) for targeted reads."));
    text.push('\n');
    text.push_str(RULE);
    text
}

/// The map's lines at `detail`; `None` as soon as they are longer than `limit` bytes.
fn body(map: &SymbolMap, detail: MapDetail, limit: usize) -> Option<String> {
    let mut body = String::new();
    if detail != MapDetail::Outline && !map.imports.is_empty() {
        let shown: Vec<&str> = map.imports.iter().take(MAX_IMPORTS).map(String::as_str).collect();
        body.push_str("imports: ");
        body.push_str(&shown.join(", "));
        if map.imports.len() > MAX_IMPORTS {
            body.push_str(&format!(", ...{} more", map.imports.len() - MAX_IMPORTS));
        }
        body.push_str("\n\n");
    }
    if map.symbols.is_empty() {
        body.push_str("(no symbols found)\n");
    }
    for symbol in &map.symbols {
        line(&mut body, symbol, 0, detail);
        if body.len() > limit {
            return None;
        }
    }
    Some(body)
}

fn line(out: &mut String, symbol: &Symbol, depth: usize, detail: MapDetail) {
    let full = detail == MapDetail::Full;
    for _ in 0..depth {
        out.push_str("  ");
    }
    push_head(out, symbol, full);
    if full && let Some(doc) = &symbol.doc {
        out.push_str(" — ");
        out.push_str(doc);
    }
    out.push('\n');
    match detail {
        MapDetail::Full | MapDetail::Compact => {
            for child in &symbol.children {
                line(out, child, depth + 1, detail);
            }
        }
        MapDetail::Minimal if !symbol.children.is_empty() => {
            out.push_str("  ");
            let mut first = true;
            flatten(&symbol.children, out, &mut first);
            out.push('\n');
        }
        _ => {}
    }
}

/// The names of `symbols` and all their children, depth first, `, `-separated.
fn flatten(symbols: &[Symbol], out: &mut String, first: &mut bool) {
    for symbol in symbols {
        if !*first {
            out.push_str(", ");
        }
        *first = false;
        out.push_str(&escape_name(&symbol.name));
        flatten(&symbol.children, out, first);
    }
}

/// One symbol's entry: `KIND NAME: [S-E]`, `NAME(sig): [S-E]`, `NAME = ... [S-E]`.
fn push_head(out: &mut String, symbol: &Symbol, full: bool) {
    match symbol.kind {
        SymbolKind::Constant | SymbolKind::Variable => {
            out.push_str(&escape_name(&symbol.name));
            out.push_str(" = ... ");
        }
        SymbolKind::Function | SymbolKind::Method => {
            out.push_str(&escape_name(symbol.signature.as_deref().filter(|_| full).unwrap_or(&symbol.name)));
            out.push_str(": ");
        }
        SymbolKind::Heading => {
            out.push_str(&escape_name(symbol.signature.as_deref().unwrap_or("#")));
            out.push(' ');
            out.push_str(&escape_name(&symbol.name));
            out.push_str(": ");
        }
        SymbolKind::Impl if full && symbol.signature.is_some() => {
            out.push_str(&escape_name(symbol.signature.as_deref().unwrap_or_default()));
            out.push_str(": ");
        }
        kind => {
            out.push_str(kind.as_str());
            out.push(' ');
            out.push_str(&escape_name(&symbol.name));
            out.push_str(": ");
        }
    }
    // `[S]` or `[S-E]`.
    let mut digits = itoa::Buffer::new();
    out.push('[');
    out.push_str(digits.format(symbol.start_line));
    if symbol.start_line != symbol.end_line {
        out.push('-');
        out.push_str(digits.format(symbol.end_line));
    }
    out.push(']');
}

fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn kilobytes(bytes: u64) -> String {
    format!("{:.1} KB", bytes as f64 / 1024.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_and_kilobytes() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(2345), "2,345");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(kilobytes(62_669), "61.2 KB");
    }
}
