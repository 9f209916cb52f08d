//! # hashline-search
//!
//! Text search for hashline, in process, with ripgrep's own library crates: the `ignore`
//! crate's parallel walker (`.gitignore`, `.ignore`, `.rgignore`, hidden files skipped, as
//! `rg` does), `grep-regex` for the pattern and `grep-searcher` for the lines. Every line it
//! returns carries its anchor computed on hashline's line model (SPEC §3): a UTF-8 BOM is not
//! part of line 1, `\r\n` ends a line like `\n`, and a file with bare `\r` line endings is
//! searched line by line on the real model, so its anchors are right too.
//!
//! Nothing in the searched tree can hold a search or fill memory: files are opened without
//! waiting and checked to be regular through the handle, read only to their length at open,
//! and read through a bounded buffer (never held whole); the walker reads no ignore file itself —
//! [`TreeRules`] reads them through the same guarded open, bounded, with the `ignore`
//! crate's precedence, and reports the ones it skipped. Patterns and globs are bounded
//! ([`MAX_PATTERN_BYTES`], [`MATCHER_SIZE_LIMIT`], [`MAX_GLOB_BYTES`]).
//!
//! Structural search ([`ast_search`]) runs `ast-grep-core` patterns over the grammars of
//! `hashline-syntax`'s language registry, with the same walk.
//!
//! Results come back sorted by path, whatever the number of threads.
//!
//! ```
//! use hashline_search::{Query, SearchOptions, search};
//!
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::write(dir.path().join("a.txt"), "\u{feff}alpha\r\nbeta\r\n").unwrap();
//! std::fs::write(dir.path().join("b.txt"), "x\rbeta\r").unwrap();
//! let query = Query::new("beta").compile().unwrap();
//! let found = search(dir.path(), &query, &SearchOptions::default()).unwrap();
//! let hits: Vec<String> = found.files.iter()
//!     .flat_map(|f| f.lines.iter().map(move |l| format!("{}:{}", f.path.file_name().unwrap().to_string_lossy(), l.anchor())))
//!     .collect();
//! assert_eq!(hits, ["a.txt:2:589", "b.txt:2:589"]);
//! assert_eq!(found.total_matches, 2);
//! ```
#![warn(missing_docs)]

mod ast;
mod ast_bounds;
mod ast_files;
mod ordered;
mod query;
mod rules;
mod scan;
mod scope;
mod stream;
mod walk;

pub use ast::{AstFileHits, AstLanguage, AstPatternError, AstQuery, merge_ranges};
pub use ast_bounds::{AstLimits, MAX_COMPARE_DEPTH, MAX_PATTERN_BYTES as MAX_AST_PATTERN_BYTES, MAX_PATTERN_DEPTH};
pub use ast_files::{AstOutcome, MAX_NOT_SEARCHED_KEPT, NotSearched, ast_search, ast_search_cancellable};
pub use hashline_fs::NotRegularFile;
pub use hashline_syntax::LanguageId;
pub use query::{CompiledQuery, DFA_SIZE_LIMIT, MATCHER_SIZE_LIMIT, MAX_PATTERN_BYTES, Query, QueryError};
pub use rules::{IgnoreConfig, MAX_IGNORE_FILE_BYTES, RESERVED_DIR, SkipReason, SkippedIgnoreFile, TreeRules};
pub use scan::{FileHits, FileScan, HitKind, HitLine, Measured, scan_bytes};
pub use scope::{ScopeGroup, ScopeRow, ScopeSection, enclosing_symbol, scope_matches};
pub use stream::{MAX_KEPT_BYTES, MAX_LINE_BYTES};
pub use walk::{
    BINARY_SNIFF_BYTES, Cancel, MAX_GLOB_BYTES, NAMED_SKIPS, SearchError, SearchOptions, SearchOutcome, Skipped,
    error_path, relative_to, search, search_file, shown_path,
};
