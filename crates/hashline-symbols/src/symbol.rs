//! A symbol and a file's map of them.

use serde::Serialize;

use crate::kind::SymbolKind;

/// How deeply a map nests symbols: a symbol declared deeper (a generated or hostile file
/// nesting thousands of modules or functions) is listed as a child of its enclosing symbol
/// at this depth, so that every walk of a map stays shallow.
pub const MAX_NESTING: usize = 32;

/// One symbol: a declaration with its lines (1-based, inclusive).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Symbol {
    /// Its name.
    pub name: String,
    /// What it is.
    pub kind: SymbolKind,
    /// The name of the enclosing symbol (or, for a Go method, its receiver type).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// The first line, including leading doc comments, attributes and decorators.
    pub start_line: u32,
    /// The line where the declaration itself starts (after its docs and attributes).
    pub decl_line: u32,
    /// The last line.
    pub end_line: u32,
    /// The declaration's head on one line (parameters, return type, ...), when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// The first line of its doc comment, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub doc: Option<String>,
    /// The symbols declared inside it, in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<Symbol>,
}

/// The structural map of one file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SymbolMap {
    /// The language or format, as people write it (`Rust`, `Markdown`, `JSON`, ...).
    pub language: String,
    /// Lines in the file.
    pub line_count: u32,
    /// Bytes in the file.
    pub byte_count: u64,
    /// What the file imports (modules, headers, paths), in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub imports: Vec<String>,
    /// The top-level symbols, in order, each with its children.
    pub symbols: Vec<Symbol>,
}

impl SymbolMap {
    /// Every symbol, depth first, in document order.
    pub fn all(&self) -> Vec<&Symbol> {
        fn walk<'a>(symbols: &'a [Symbol], out: &mut Vec<&'a Symbol>) {
            for symbol in symbols {
                out.push(symbol);
                walk(&symbol.children, out);
            }
        }
        let mut out = Vec::new();
        walk(&self.symbols, &mut out);
        out
    }

    /// The number of symbols at every depth.
    pub fn count(&self) -> usize {
        self.all().len()
    }
}
