//! Maps of data and document formats by small line scanners: Markdown headings, JSON and
//! YAML top-level keys, TOML tables, shell functions (SPEC §6.7).

use std::sync::OnceLock;

use hashline_core::Document;
use regex::Regex;

use crate::kind::SymbolKind;
use crate::symbol::{Symbol, SymbolMap};

/// A format mapped by a scanner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Markdown (`.md .markdown .mdx`): headings.
    Markdown,
    /// JSON (`.json .jsonc`): top-level keys.
    Json,
    /// YAML (`.yaml .yml`): top-level keys.
    Yaml,
    /// TOML (`.toml`): tables (and keys before the first table).
    Toml,
    /// Zsh scripts (`.zsh`): functions. (`.sh` and `.bash` are the registry's Bash grammar.)
    Shell,
}

impl Format {
    /// The format of `path` by its last extension.
    pub fn from_path(path: &str) -> Option<Format> {
        let base = path.rsplit(['/', '\\']).next().unwrap_or(path);
        let ext = match base.rfind('.') {
            Some(dot) if dot > 0 => base[dot + 1..].to_ascii_lowercase(),
            _ => return None,
        };
        Some(match ext.as_str() {
            "md" | "markdown" | "mdx" => Format::Markdown,
            "json" | "jsonc" => Format::Json,
            "yaml" | "yml" => Format::Yaml,
            "toml" => Format::Toml,
            "zsh" => Format::Shell,
            _ => return None,
        })
    }

    /// The name people write.
    pub fn display_name(self) -> &'static str {
        match self {
            Format::Markdown => "Markdown",
            Format::Json => "JSON",
            Format::Yaml => "YAML",
            Format::Toml => "TOML",
            Format::Shell => "Shell",
        }
    }
}

/// The map of `doc` in `format`.
pub fn map_format(format: Format, doc: &Document) -> SymbolMap {
    let lines: Vec<String> = doc.lines().map(|l| String::from_utf8_lossy(l.content).into_owned()).collect();
    let symbols = match format {
        Format::Markdown => markdown(&lines),
        Format::Json => json(&lines),
        Format::Yaml => yaml(&lines),
        Format::Toml => toml(&lines),
        Format::Shell => shell(&lines),
    };
    SymbolMap {
        language: format.display_name().to_owned(),
        line_count: doc.line_count() as u32,
        byte_count: doc.as_bytes().len() as u64,
        imports: Vec::new(),
        symbols,
    }
}

fn leaf(name: impl Into<String>, kind: SymbolKind, start: usize, end: usize) -> Symbol {
    Symbol {
        name: name.into(),
        kind,
        parent: None,
        start_line: start as u32 + 1,
        decl_line: start as u32 + 1,
        end_line: end.max(start) as u32 + 1,
        signature: None,
        doc: None,
        children: Vec::new(),
    }
}

/// The last line before `next` (0-based) that is not blank.
fn last_content_before(lines: &[String], start: usize, next: usize) -> usize {
    (start..next).rev().find(|&i| !lines[i].trim().is_empty()).unwrap_or(start)
}

/// Symbols that start at the given lines and run to the next one (blank lines trimmed).
fn sections(lines: &[String], starts: Vec<(usize, String, SymbolKind)>) -> Vec<Symbol> {
    let mut out = Vec::with_capacity(starts.len());
    for (i, (start, name, kind)) in starts.iter().enumerate() {
        let next = starts.get(i + 1).map_or(lines.len(), |s| s.0);
        out.push(leaf(name.clone(), *kind, *start, last_content_before(lines, *start, next)));
    }
    out
}

fn markdown(lines: &[String]) -> Vec<Symbol> {
    static ATX: OnceLock<Regex> = OnceLock::new();
    let atx =
        ATX.get_or_init(|| Regex::new(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$").expect("static regex"));
    let mut headings: Vec<(usize, usize, String)> = Vec::new();
    let mut fence: Option<String> = None;
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        if let Some(open) = &fence {
            if trimmed.starts_with(open.as_str()) {
                fence = None;
            }
            continue;
        }
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fence = Some(trimmed[..3].to_owned());
            continue;
        }
        if let Some(c) = atx.captures(line) {
            let level = c[1].len();
            let title = c.get(2).map_or("", |m| m.as_str()).trim().to_owned();
            headings.push((i, level, title));
        } else if i > 0 && !lines[i - 1].trim().is_empty() && !line.is_empty() {
            let underline = line.trim_end();
            let level = if underline.chars().all(|c| c == '=') {
                1
            } else if underline.chars().all(|c| c == '-') && underline.len() >= 2 {
                2
            } else {
                0
            };
            if level > 0 && headings.last().is_none_or(|h| h.0 != i - 1) {
                headings.push((i - 1, level, lines[i - 1].trim().to_owned()));
            }
        }
    }
    // Each heading runs to the line before the next heading of the same or a higher level.
    let mut flat: Vec<(usize, Symbol)> = Vec::with_capacity(headings.len());
    for (k, (start, level, title)) in headings.iter().enumerate() {
        let next = headings[k + 1..].iter().find(|h| h.1 <= *level).map_or(lines.len(), |h| h.0);
        let mut symbol = leaf(title.clone(), SymbolKind::Heading, *start, last_content_before(lines, *start, next));
        symbol.signature = Some("#".repeat(*level));
        flat.push((*level, symbol));
    }
    fn build(
        items: &mut std::iter::Peekable<std::vec::IntoIter<(usize, Symbol)>>,
        level: usize,
        parent: Option<&str>,
    ) -> Vec<Symbol> {
        let mut out = Vec::new();
        while let Some((l, _)) = items.peek() {
            if *l <= level {
                break;
            }
            let Some((l, mut symbol)) = items.next() else { break };
            symbol.parent = parent.map(str::to_owned);
            symbol.children = build(items, l, Some(&symbol.name.clone()));
            out.push(symbol);
        }
        out
    }
    build(&mut flat.into_iter().peekable(), 0, None)
}

fn json(lines: &[String]) -> Vec<Symbol> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut key_start: Option<(usize, usize)> = None; // where a depth-1 string began
    let mut last_string: Option<(usize, String)> = None;
    let mut current: Option<(usize, String)> = None;
    let mut value_end: Option<usize> = None; // the last line of the current key's value
    let mut last_line = 0usize; // the line of the last non-blank byte seen
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        for (j, &b) in line.as_bytes().iter().enumerate() {
            if in_string {
                if escaped {
                    escaped = false;
                } else if b == b'\\' {
                    escaped = true;
                } else if b == b'"' {
                    in_string = false;
                    if let Some((l, s)) = key_start.take() {
                        last_string = Some((l, line_slice(lines, l, s, i, j)));
                    }
                }
                last_line = i;
                continue;
            }
            match b {
                b'"' => {
                    in_string = true;
                    if depth == 1 {
                        key_start = Some((i, j + 1));
                    }
                }
                b':' if depth == 1 => {
                    if let Some((l, name)) = last_string.take() {
                        if let Some((start, prev)) = current.take() {
                            out.push(leaf(prev, SymbolKind::Variable, start, value_end.unwrap_or(start)));
                        }
                        current = Some((l, name));
                    }
                }
                b',' if depth == 1 => value_end = Some(last_line),
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0
                        && let Some((start, prev)) = current.take()
                    {
                        out.push(leaf(prev, SymbolKind::Variable, start, last_line.max(start)));
                    }
                }
                _ => {}
            }
            if !b.is_ascii_whitespace() {
                last_line = i;
            }
        }
    }
    if let Some((start, prev)) = current.take() {
        out.push(leaf(prev, SymbolKind::Variable, start, last_line.max(start)));
    }
    out
}

fn line_slice(lines: &[String], l1: usize, s: usize, l2: usize, e: usize) -> String {
    if l1 == l2 { lines[l1].get(s..e).unwrap_or("").to_owned() } else { lines[l1].get(s..).unwrap_or("").to_owned() }
}

fn yaml(lines: &[String]) -> Vec<Symbol> {
    static KEY: OnceLock<Regex> = OnceLock::new();
    let key = KEY.get_or_init(|| {
        Regex::new(r#"^("(?:[^"\\]|\\.)*"|'[^']*'|[^\s#\-?:][^:#]*?|-[^\s:][^:#]*?)\s*:(?:\s|$)"#)
            .expect("static regex")
    });
    let starts = lines
        .iter()
        .enumerate()
        .filter_map(|(i, line)| {
            let c = key.captures(line)?;
            Some((i, c[1].trim_matches(['"', '\'']).to_owned(), SymbolKind::Variable))
        })
        .collect();
    sections(lines, starts)
}

fn toml(lines: &[String]) -> Vec<Symbol> {
    static TABLE: OnceLock<Regex> = OnceLock::new();
    static KEY: OnceLock<Regex> = OnceLock::new();
    let table =
        TABLE.get_or_init(|| Regex::new(r"^\s*\[(\[?)\s*([^\[\]]+?)\s*\]\]?\s*(?:#.*)?$").expect("static regex"));
    let key = KEY.get_or_init(|| Regex::new(r#"^\s*("[^"]*"|'[^']*'|[A-Za-z0-9_.-]+)\s*="#).expect("static regex"));
    let mut starts = Vec::new();
    let mut in_table = false;
    let mut in_multiline = false;
    for (i, line) in lines.iter().enumerate() {
        let was_inside = in_multiline;
        if (line.matches("\"\"\"").count() + line.matches("'''").count()) % 2 == 1 {
            in_multiline = !in_multiline;
        }
        if was_inside {
            continue;
        }
        if let Some(c) = table.captures(line) {
            in_table = true;
            let name = if c[1].is_empty() { c[2].to_owned() } else { format!("[{}]", &c[2]) };
            starts.push((i, name, SymbolKind::Module));
        } else if !in_table && let Some(c) = key.captures(line) {
            starts.push((i, c[1].trim_matches(['"', '\'']).to_owned(), SymbolKind::Variable));
        }
    }
    sections(lines, starts)
}

fn shell(lines: &[String]) -> Vec<Symbol> {
    static FUNCTION: OnceLock<Regex> = OnceLock::new();
    let function = FUNCTION.get_or_init(|| {
        Regex::new(
            r"^(\s*)(?:function\s+([A-Za-z_][\w:.-]*)\s*(?:\(\s*\))?|([A-Za-z_][\w:.-]*)\s*\(\s*\))\s*(?:\{|\(|$)",
        )
        .expect("static regex")
    });
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(c) = function.captures(line) else { continue };
        let indent = c[1].len();
        let name = c.get(2).or(c.get(3)).map_or("", |m| m.as_str());
        // A one-line function ends on its line; another at the first later line that
        // closes at its indentation.
        let end = if line.trim_end().ends_with('}') {
            i
        } else {
            lines[i + 1..]
                .iter()
                .position(|l| {
                    let t = l.trim_start();
                    (t.starts_with('}') || t.starts_with(')')) && l.len() - t.len() == indent
                })
                .map_or(i, |k| i + 1 + k)
        };
        out.push(leaf(name, SymbolKind::Function, i, end));
    }
    out
}
