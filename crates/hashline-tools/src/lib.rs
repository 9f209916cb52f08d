//! # hashline-tools
//!
//! The session, the path policy, file I/O and the tools of hashline. Each tool is a
//! [`Tool`]: typed arguments in, a typed value plus model-facing text and
//! presentation meta out; [`execute`] runs one on JSON arguments and
//! returns the JSON projection every front end shares (SPEC §4.1).
//!
//! ```
//! use hashline_tools::{read::{read, ReadArgs, ReadValue}, Session};
//!
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::write(dir.path().join("notes.txt"), "alpha\nbeta").unwrap();
//! let session = Session::open(dir.path()).unwrap();
//! let out = read(&session, ReadArgs::builder().path("notes.txt").build()).unwrap();
//! let ReadValue::Text(text) = &out.value else { unreachable!() };
//! assert_eq!(text.lines[1].anchor, "2:589");
//! ```
#![warn(missing_docs)]

pub mod args;
pub mod budget;
pub mod changes;
pub mod diff;
pub mod error;
pub mod fsio;
pub mod lean_schema;
pub mod ledger;
pub mod log;
pub mod map_store;
pub mod paths;
pub mod ptc;
pub mod result;
pub mod run;
pub mod schema;
pub mod session;
pub mod snapshot_store;
pub mod snapshots;
pub mod structured;
pub mod tool;
pub mod tools;
pub mod tree_cache;
pub mod validate;
pub mod warning;

pub use budget::Budget;
pub use error::{ErrorCode, ToolError};
/// The file-system layer the tools stand on.
pub use hashline_fs as fs;
pub use result::{CallContext, CancelFlag, ToolOutput, ToolResult, ToolValue};
pub use run::{execute, execute_content, run_json};
pub use session::{Session, SessionConfig};
pub use tool::Tool;
pub use tools::{ast_search, edit, find, grep, ls, read, write};
pub use warning::{Warning, WarningCode};
