//! Symbol edits, computed on the text (no I/O): what lines `replace_symbol` replaces and
//! with what, and where `insert_before_symbol` / `insert_after_symbol` put new code.

use std::sync::OnceLock;

use hashline_core::{Document, LineNo};
use regex::Regex;

use crate::select::Located;
use crate::symbol::{Symbol, SymbolMap};

/// A symbol edit as lines: replace `first..=last` (or, when `last < first`, insert after
/// line `first - 1`) with `lines`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SymbolEdit {
    /// The first line replaced (or the line the insert goes before; 1 past the end to append).
    pub first: u32,
    /// The last line replaced; `first - 1` for an insert.
    pub last: u32,
    /// The new lines (no terminators).
    pub lines: Vec<String>,
    /// Warnings (`name-mismatch: expected X, got Y`).
    pub warnings: Vec<String>,
}

/// Which side of a symbol new code goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// Before its docs and attributes.
    Before,
    /// After its last line.
    After,
}

/// Replaces `target`'s declaration with `new_body`: dedented, then indented like the
/// declaration's first line. The symbol's leading docs and attributes stay unless the new
/// body starts with its own. Errors: an empty body.
pub fn replace_symbol(doc: &Document, target: &Located, new_body: &str) -> Result<SymbolEdit, String> {
    if new_body.trim().is_empty() {
        return Err("replace_symbol.new_body must not be empty or whitespace-only.".to_owned());
    }
    let symbol = &target.symbol;
    let indent = indent_of(doc, symbol.decl_line);
    let lines = reindent(new_body, &indent);
    let brings_docs = lines.iter().find(|l| !l.trim().is_empty()).is_some_and(|l| starts_like_docs(l.trim_start()));
    let first = if brings_docs { symbol.start_line } else { symbol.decl_line };
    let mut warnings = Vec::new();
    if let Some(name) = declared_name(&lines)
        && name != symbol.name
        && !symbol.name.ends_with(&format!("::{name}"))
    {
        warnings.push(format!("name-mismatch: expected {}, got {name}", symbol.name));
    }
    Ok(SymbolEdit { first, last: symbol.end_line, lines, warnings })
}

/// Inserts `new_text` before or after `target`, indented like it, separated from it by as
/// many blank lines as the file puts between such symbols (1 when it has no example).
pub fn insert_beside_symbol(
    doc: &Document,
    map: &SymbolMap,
    target: &Located,
    new_text: &str,
    placement: Placement,
) -> Result<SymbolEdit, String> {
    if new_text.trim().is_empty() {
        return Err("new_text must not be empty or whitespace-only.".to_owned());
    }
    let symbol = &target.symbol;
    let indent = indent_of(doc, symbol.decl_line);
    let body = reindent(new_text, &indent);
    let separation = blank_lines_between_siblings(doc, siblings(map, target), symbol);
    let blanks = std::iter::repeat_n(String::new(), separation);
    match placement {
        Placement::Before => {
            let lines = body.into_iter().chain(blanks).collect();
            Ok(SymbolEdit { first: symbol.start_line, last: symbol.start_line - 1, lines, warnings: Vec::new() })
        }
        Placement::After => {
            let lines = blanks.chain(body).collect();
            Ok(SymbolEdit { first: symbol.end_line + 1, last: symbol.end_line, lines, warnings: Vec::new() })
        }
    }
}

/// The symbols at the same level as `target`.
fn siblings<'a>(map: &'a SymbolMap, target: &Located) -> &'a [Symbol] {
    let mut level: &[Symbol] = &map.symbols;
    for name in target.path.iter() {
        let contains = |s: &&Symbol| {
            &s.name == name && s.start_line <= target.symbol.start_line && s.end_line >= target.symbol.end_line
        };
        match level.iter().find(contains) {
            Some(parent) => level = &parent.children,
            None => break,
        }
    }
    level
}

/// The blank lines between `symbol` and a neighbour (the one after, else the one before),
/// else between any two neighbours at its level; 1 without an example.
fn blank_lines_between_siblings(doc: &Document, siblings: &[Symbol], symbol: &Symbol) -> usize {
    let gap = |a: &Symbol, b: &Symbol| -> Option<usize> {
        if b.start_line <= a.end_line {
            return None;
        }
        let between = (a.end_line + 1)..b.start_line;
        let blank = between.clone().filter(|&n| is_blank(doc, n)).count();
        // Only a gap of blank lines alone is a convention (not comments between them).
        (blank == between.len()).then_some(blank)
    };
    let index = siblings.iter().position(|s| s.start_line == symbol.start_line && s.name == symbol.name);
    let near = index.and_then(|i| {
        let after = siblings.get(i + 1).and_then(|next| gap(symbol, next));
        let before = i.checked_sub(1).and_then(|p| gap(&siblings[p], symbol));
        after.or(before)
    });
    near.or_else(|| siblings.windows(2).find_map(|w| gap(&w[0], &w[1]))).unwrap_or(1).min(3)
}

fn is_blank(doc: &Document, number: u32) -> bool {
    LineNo::new(number).and_then(|n| doc.line(n)).is_none_or(|l| l.content.iter().all(u8::is_ascii_whitespace))
}

/// The leading whitespace of line `number`.
fn indent_of(doc: &Document, number: u32) -> String {
    let Some(line) = LineNo::new(number).and_then(|n| doc.line(n)) else { return String::new() };
    let width = line.content.iter().take_while(|b| matches!(b, b' ' | b'\t')).count();
    String::from_utf8_lossy(&line.content[..width]).into_owned()
}

/// `text`'s lines without their common indentation, each non-blank one prefixed with
/// `indent`; blank lines stay empty; one trailing newline is ignored.
fn reindent(text: &str, indent: &str) -> Vec<String> {
    let text = text.strip_suffix('\n').unwrap_or(text);
    let text = text.strip_suffix('\r').unwrap_or(text);
    let lines: Vec<&str> = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).collect();
    let common = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start_matches([' ', '\t']).len())
        .min()
        .unwrap_or(0);
    lines
        .iter()
        .map(|l| if l.trim().is_empty() { String::new() } else { format!("{indent}{}", &l[common..]) })
        .collect()
}

/// Whether a line opens docs or attributes: a comment, `#[...]`, or a decorator.
fn starts_like_docs(line: &str) -> bool {
    // `--` and `{-`: Haskell's comments (Haddock's `-- |`) and Lua's (LuaDoc's `---`).
    ["///", "//", "/*", "*", "#[", "#![", "--", "{-"].iter().any(|p| line.starts_with(p))
        || (line.starts_with('@') && !line.starts_with("@interface"))
        || (line.starts_with('#') && !line.starts_with("#define") && !line.starts_with("#include"))
}

/// The first name the text declares.
fn declared_name(lines: &[String]) -> Option<String> {
    static PATTERNS: OnceLock<[Regex; 4]> = OnceLock::new();
    let patterns = PATTERNS.get_or_init(|| {
        [
            r"\bfunc\s+(?:\([^)]*\)\s*)?([A-Za-z_][A-Za-z0-9_]*)",
            r"\b(?:fn|def|class|struct|enum|trait|interface|type|function|mod|namespace|union|macro_rules!)\s*\*?\s*([A-Za-z_$][A-Za-z0-9_$]*)|\bimpl(?:<[^>]*>)?\s+(?:[A-Za-z_][A-Za-z0-9_:<>, ]*\s+for\s+)?([A-Za-z_][A-Za-z0-9_]*)",
            r"\b(?:const|let|var|static)\s+(?:mut\s+)?([A-Za-z_$][A-Za-z0-9_$]*)\s*[:=;,]",
            r"([A-Za-z_~][A-Za-z0-9_]*)\s*\(",
        ]
        .map(|p| Regex::new(p).expect("static regex"))
    });
    let code = lines.iter().map(|l| l.trim()).find(|l| !l.is_empty() && !starts_like_docs(l))?;
    patterns.iter().find_map(|p| p.captures(code).and_then(|c| c.get(1).or(c.get(2)).map(|m| m.as_str().to_owned())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reindent_moves_the_common_indent() {
        assert_eq!(reindent("  a\n    b\n\n  c\n", "\t"), ["\ta", "\t  b", "", "\tc"]);
        assert_eq!(reindent("fn a() {\n    1\n}", "    "), ["    fn a() {", "        1", "    }"]);
    }

    #[test]
    fn declared_names() {
        let name = |s: &str| declared_name(&[s.to_owned()]);
        assert_eq!(name("pub fn area(&self) -> f64 {"), Some("area".to_owned()));
        assert_eq!(name("async def fetch(url):"), Some("fetch".to_owned()));
        assert_eq!(name("func (c *Cart) Add(item Item) {"), Some("Add".to_owned()));
        assert_eq!(name("public static int add(int a) {"), Some("add".to_owned()));
        assert_eq!(name("export function render() {"), Some("render".to_owned()));
        assert_eq!(name("impl<T> Display for Wrapper<T> {"), Some("Wrapper".to_owned()));
        assert_eq!(name("int main(void) {"), Some("main".to_owned()));
    }
}
