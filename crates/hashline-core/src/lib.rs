//! # hashline-core
//!
//! The anchor model of hashline, with no I/O: the 12-bit line hash, anchors
//! (`LINE:HASH`) and their forgiving parser, the row format (`LINE:HASH|content`) with
//! display escaping, and the physical [`Document`] that keeps every line's exact bytes
//! and terminator so that untouched bytes are written back unchanged.
//!
//! ```
//! use hashline_core::{parse_anchor, row::render_rows, AnchorRef, Document, LineNo};
//!
//! let doc = Document::parse(b"alpha\r\nbeta\r\n".to_vec());
//! let text = render_rows(&doc, LineNo::FIRST, LineNo::new(2).unwrap());
//! assert_eq!(text, "1:3c8|alpha\n2:589|beta");
//!
//! // A model pastes a row back; the parser takes the anchor and checks it later.
//! let AnchorRef::Line { anchor, .. } = parse_anchor(">>> 2:589|beta").unwrap() else { unreachable!() };
//! let line = doc.line(anchor.line).unwrap();
//! assert_eq!(line.hash(), anchor.hash);
//! assert_eq!(doc.as_bytes(), b"alpha\r\nbeta\r\n");
//! ```
#![warn(missing_docs)]

pub mod anchor;
pub mod binary;
pub mod display;
pub mod document;
pub mod edit;
pub mod hash;
pub mod line_index;
pub mod line_no;
pub mod row;
pub mod snapshot;
pub mod window;

pub use anchor::{Anchor, AnchorError, AnchorRef, parse_anchor};
pub use binary::looks_binary;
pub use document::{Document, Line, Terminator};
pub use hash::LineHash;
pub use line_index::LineIndex;
pub use line_no::LineNo;
