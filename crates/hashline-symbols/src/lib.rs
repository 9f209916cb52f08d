//! # hashline-symbols
//!
//! Symbol maps of source files, on `hashline-syntax`: per-language tree-sitter queries
//! (`queries/*.scm`: knowledge as data) find declarations with their kind, parent, lines
//! (doc comments, attributes and decorators included) and signature; Markdown, JSON, YAML,
//! TOML and shell files get maps from small scanners. On top: the map's text under a
//! budget ladder ([`render_map`]), selectors ([`select`]), local bundles
//! ([`local_bundle`]), a map cache ([`MapCache`]) and symbol edits ([`replace_symbol`],
//! [`insert_beside_symbol`]).
//!
//! ```
//! use hashline_core::Document;
//! use hashline_symbols::{map_document, select, Selection};
//!
//! let source = b"/// A point.\n#[derive(Debug)]\npub struct Point {\n    x: i32,\n}\n\nimpl Point {\n    pub fn norm(&self) -> i32 {\n        self.x.abs()\n    }\n}\n";
//! let doc = Document::parse(source.to_vec());
//! let map = map_document("src/geo.rs", &doc).unwrap().unwrap();
//! let Selection::Found { found, .. } = select(&map, "Point.norm") else { panic!() };
//! assert_eq!((found.symbol.kind.as_str(), found.symbol.start_line, found.symbol.end_line), ("method", 8, 10));
//! let Selection::Found { found, .. } = select(&map, "Point") else { panic!() };
//! assert_eq!((found.symbol.start_line, found.symbol.decl_line), (1, 3));
//! ```
#![warn(missing_docs)]

mod bundle;
mod cache;
mod edit;
mod extract;
mod family;
mod formats;
mod kind;
mod langs;
mod render;
mod select;
mod stored;
mod symbol;

use hashline_core::Document;
use hashline_syntax::{LanguageId, ParseLimits, SyntaxError};

pub use bundle::{Bundle, local_bundle};
pub use cache::{CACHE_CAPACITY, FileStamp, MapCache};
pub use edit::{Placement, SymbolEdit, insert_beside_symbol, replace_symbol};
pub use extract::{map_parsed, map_source};
pub use formats::{Format, map_format};
pub use kind::SymbolKind;
pub use render::{MAX_MAP_BYTES, MapDetail, RenderedMap, render_map, render_map_within};
pub use select::{Located, MAX_AVAILABLE, MAX_CANDIDATES, MAX_OTHERS, Selection, Tier, locate, select};
pub use stored::{DecodeError, MAX_STORED_DEPTH};
pub use symbol::{MAX_NESTING, Symbol, SymbolMap};

/// Whether files like `path` have maps (a tree-sitter language or a scanned format).
pub fn has_map(path: &str) -> bool {
    LanguageId::from_path(path).is_some() || Format::from_path(path).is_some()
}

/// The map of `doc`, a file named `path`: `None` when files of its type have no map,
/// `Some(Err)` when it could not be parsed within the bounds.
pub fn map_document(path: &str, doc: &Document) -> Option<Result<SymbolMap, SyntaxError>> {
    if let Some(lang) = LanguageId::from_path(path) {
        return Some(map_source(lang, doc, ParseLimits::DEFAULT));
    }
    Format::from_path(path).map(|format| Ok(map_format(format, doc)))
}
