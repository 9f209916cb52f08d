//! The render-intent view union of hashline: what a UI draws for a tool call and its result.
//!
//! A tool call is shown twice: pending, as a [`ToolCallView`], and completed, as a
//! [`ToolResultView`]. Both are closed unions tagged by `card` on the wire, with optional fields
//! omitted rather than `null`:
//!
//! - calls: [`GenericCallView`] | [`TerminalCallView`] | [`DiffCallView`];
//! - results: [`GenericResultView`] | [`TerminalResultView`] | [`DiffResultView`] |
//!   [`SearchResultView`] (matches or paths, tagged by `shape`) | [`ReadResultView`].
//!
//! The views are derived, never stored: [`present_call`] and [`present_result`] are pure and
//! total, and take only the call's arguments and the durable projection of its result
//! ([`ToolResultRecord`]: content, error flag, `presentationMeta`). They give the same view live
//! and on replay of a session log; `None` always means "render the raw content".
//!
//! Tools persist structured data for their cards as `presentationMeta`. This crate owns those
//! shapes ([`ReadMeta`], [`DiffsMeta`], [`PathsMeta`], [`MatchesMeta`]) and narrows untrusted
//! metas back defensively ([`read_meta_from_meta`], [`diffs_from_meta`], [`paths_from_meta`],
//! [`matches_from_meta`]). [`lang_from_path`] gives the read card its syntax hint.
//!
//! The crate depends on serde and serde_json only; the `schema` feature derives
//! `schemars::JsonSchema` for every view and meta type.
//!
//! # Example
//!
//! ```
//! use hashline_view::{
//!     ContentBlock, ReadFileLine, ReadMeta, ToolCallView, ToolResultRecord, ToolResultView,
//!     present_call, present_result,
//! };
//! use serde_json::json;
//!
//! // The pending card of a read.
//! let args = json!({"path": "src/main.rs", "offset": 2});
//! let Some(ToolCallView::Generic(call)) = present_call("read", &args) else {
//!     unreachable!("read calls have a generic card");
//! };
//! assert_eq!(call.title, "Read src/main.rs (from line 2)");
//!
//! // The tool stored its window as meta; the completed card comes from it alone.
//! let line = ReadFileLine { number: 2, text: "fn main() {}".into(), hash: Some("5e2".into()) };
//! let meta = ReadMeta::new("/work/src/main.rs", 2, vec![line], 2);
//! let result = ToolResultRecord {
//!     content: vec![ContentBlock::text("2:5e2|fn main() {}")],
//!     is_error: false,
//!     meta: Some(serde_json::to_value(&meta)?),
//! };
//! let Some(ToolResultView::Read(read)) = present_result("read", &args, &result) else {
//!     unreachable!("a well-formed read meta gives the read card");
//! };
//! assert_eq!((read.offset, read.total_lines, read.lang.as_deref()), (2, 2, Some("rs")));
//!
//! // The wire format: tagged by `card`, camelCase, absent fields omitted.
//! let wire = serde_json::to_value(ToolResultView::Read(read))?;
//! assert_eq!(wire["card"], "read");
//! assert_eq!(wire["totalLines"], 2);
//! assert!(wire.get("title").is_none());
//! # Ok::<(), serde_json::Error>(())
//! ```

#![warn(missing_docs)]

mod call;
mod json;
mod lang;
mod meta;
mod present;
mod read_meta;
mod result;
mod vocab;

pub use call::{DiffCallView, GenericCallView, TerminalCallView, ToolCallView};
pub use lang::lang_from_path;
pub use meta::{DiffsMeta, MatchesMeta, PathsMeta, diffs_from_meta, matches_from_meta, paths_from_meta};
pub use present::{ToolResultRecord, present_call, present_result};
pub use read_meta::{ReadMeta, read_meta_from_meta};
pub use result::{
    DiffResultView, GenericResultView, ReadResultView, SearchFileMatches, SearchLineMatch, SearchMatchesResultView,
    SearchPathsResultView, SearchResultView, TerminalResultView, ToolResultView,
};
pub use vocab::{ContentBlock, FileDiff, FileLocation, ReadFileLine, ToolCallKind};
