//! # hashline
//!
//! Hash-anchored file tools for coding agents. Every line a tool shows carries an anchor
//! `LINE:HASH` (`12:3c8|let x = 1;`); edits address lines by those anchors, and a stale
//! view is refused instead of silently applied. Each result is both text for the model
//! and a typed structured value for programs, plus presentation meta that the
//! render-intent views ([`view`]) turn into UI cards, live and on replay.
//!
//! This crate is the facade: the [`Toolbox`] registry (names, model-facing descriptions,
//! input and output JSON Schemas, annotations, dispatch, presenters), the programmatic
//! [`Toolbox::invoke`] API, typed entry points, and re-exports of the layers below:
//! [`core`] (anchors and the line model), [`view`] (the view union) and [`tools`]
//! (the session and the tools).
//!
//! ```
//! use hashline::{read, ReadArgs, ReadValue, Session, Toolbox, CallContext};
//! use serde_json::json;
//!
//! let dir = tempfile::tempdir()?;
//! std::fs::write(dir.path().join("notes.txt"), "alpha\nbeta")?;
//! let session = Session::open(dir.path())?;
//!
//! // Typed: arguments from a builder, a typed value back.
//! let out = read(&session, ReadArgs::builder().path("notes.txt").build())?;
//! let ReadValue::Text(text) = &out.value else { unreachable!() };
//! assert_eq!(text.lines[0].anchor, "1:3c8");
//!
//! // Dynamic: JSON in, the SPEC §4.1 projection out, and a card for a UI.
//! let toolbox = Toolbox::new();
//! let args = json!({"path": "notes.txt", "limit": "1"});
//! let result = toolbox.execute(&session, "read", args.clone(), &CallContext::top_level());
//! assert_eq!(result.text(), "snapshot: s2xbcrg96\n1:3c8|alpha\n\n[Showing lines 1-1 of 2. Use offset=2 to continue.]");
//! let card = toolbox.get("read").unwrap().present_result(&args, &result);
//! assert!(matches!(card, Some(hashline::view::ToolResultView::Read(_))));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![warn(missing_docs)]

mod descriptions;
mod registry;
pub mod replay;

pub use hashline_core as core;
pub use hashline_fs as fs;
pub use hashline_tools as tools;
pub use hashline_view as view;

pub use hashline_tools::ast_search::{AstSearchArgs, AstSearchValue};
pub use hashline_tools::edit::{EditArgs, EditValue, edit};
pub use hashline_tools::find::{FindArgs, FindValue, find};
pub use hashline_tools::grep::{GrepArgs, GrepValue, grep};
pub use hashline_tools::ls::{LsArgs, LsValue, ls};
pub use hashline_tools::read::{ReadArgs, ReadValue, read};
pub use hashline_tools::write::{WriteArgs, WriteValue, write};
pub use hashline_tools::{
    Budget, CallContext, CancelFlag, ErrorCode, Session, SessionConfig, ToolError, ToolOutput, ToolResult, Warning,
    WarningCode,
};
pub use registry::{Annotations, ToolSpec, Toolbox, record_of};
