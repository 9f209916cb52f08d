//! The tools, one module each.

pub mod ast_search;
pub mod edit;
pub mod find;
pub mod grep;
pub mod ls;
pub mod outline;
pub mod pattern;
pub mod read;
pub mod symbol_read;
pub mod write;
