//! # hashline-fuzz
//!
//! The fuzz targets of hashline, as plain functions from bytes to checked invariants: each
//! panics when an invariant breaks. The libFuzzer binaries in `fuzz/` call them under
//! coverage guidance (stable toolchain, `fuzz/run`); this crate's tests run them on the
//! committed seed corpus, on every regression input, and on random bytes, so
//! `cargo test` checks them too.
//!
//! ```
//! hashline_fuzz::anchor(b"12:ABC|let x = 1;");
//! hashline_fuzz::mcp_line(b"{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}");
//! ```
#![warn(missing_docs)]

mod anchor;
mod args;
mod engine;
mod mcp;
mod meta;

pub use anchor::anchor;
pub use args::tool_args;
pub use engine::edit_engine;
pub use mcp::mcp_line;
pub use meta::read_meta;

/// A fuzz target: panics when an invariant breaks.
pub type Target = fn(&[u8]);

/// Every target by name, as `fuzz/` and the corpus tests know them.
pub const TARGETS: &[(&str, Target)] = &[
    ("anchor", anchor),
    ("edit_engine", edit_engine),
    ("tool_args", tool_args),
    ("read_meta", read_meta),
    ("mcp_line", mcp_line),
];
