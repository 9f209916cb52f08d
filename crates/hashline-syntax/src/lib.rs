//! # hashline-syntax
//!
//! The tree-sitter side of hashline, with no file system: the language registry
//! ([`LanguageId`], one row of data per language: [`LanguageSpec`], chosen by file extension), bounded parsing ([`parse`], [`ParseLimits`]), the error census
//! ([`census`]: every ERROR and MISSING node with its lines), and the change check
//! ([`introduced`]: only the problems a change added, located in the new file). A census
//! has a byte form ([`Census::to_bytes`]) for caches kept between processes.
//!
//! ```
//! use hashline_core::Document;
//! use hashline_syntax::{census, introduced, line_list, parse_document, LanguageId, ParseLimits};
//!
//! let lang = LanguageId::from_path("src/lib.rs").unwrap();
//! let scan = |doc: &Document| {
//!     let parsed = parse_document(lang, doc, ParseLimits::DEFAULT).unwrap();
//!     census(&parsed.tree, doc, parsed.text_start)
//! };
//! let before = Document::parse(b"fn a() {}\nfn b() {}\n".to_vec());
//! let after = Document::parse(b"fn a() {}\nfn b() {\n".to_vec());
//! let new = introduced(&scan(&before), &scan(&after), Some);
//! assert_eq!(format!("syntax-regression: lines {}", line_list(new.iter().map(|i| i.lines))), "syntax-regression: lines 2");
//! ```
//!
//! The grammars are exposed per language ([`LanguageId::ts_language`]) so other crates
//! (symbol queries, `ast-grep-core` languages) use exactly the same ones; [`tree_sitter`] is
//! re-exported so they use the same tree-sitter too.
#![warn(missing_docs)]

mod census;
mod error;
mod lang;
mod parse;
mod region;
mod registry;
mod regression;
mod stored;

pub use census::{Census, IssueKind, LineIndex, LineSpan, SyntaxIssue, census};
pub use error::SyntaxError;
pub use lang::LanguageId;
pub use parse::{ParseLimits, Parsed, TextEdits, parse, parse_document, reparse, reparse_edits};
pub use region::{proven_clean, region_language};
pub use registry::{LanguageSpec, SymbolRules};
pub use regression::{introduced, line_list};
pub use tree_sitter;
