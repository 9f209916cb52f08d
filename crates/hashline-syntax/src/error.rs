//! Why a source could not be parsed.

use std::time::Duration;

use crate::lang::LanguageId;

/// A parse that did not produce a tree. Callers that only check syntax treat every one of
/// these as "not checked", never as a syntax error of the file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SyntaxError {
    /// The source is larger than the parse bound.
    #[error("the file has {bytes} bytes, more than the {limit}-byte parse limit")]
    TooLarge {
        /// The source's size.
        bytes: usize,
        /// The bound.
        limit: usize,
    },
    /// The parse ran longer than the time bound and was cancelled.
    #[error("parsing as {lang} took longer than {} ms", limit.as_millis())]
    TimedOut {
        /// The language.
        lang: LanguageId,
        /// The bound.
        limit: Duration,
    },
    /// The grammar could not be loaded (an ABI mismatch: a build problem, not the file's).
    #[error("the {lang} grammar could not be loaded: {message}")]
    Grammar {
        /// The language.
        lang: LanguageId,
        /// tree-sitter's message.
        message: String,
    },
}

impl SyntaxError {
    /// A stable kebab-case code: `too-large`, `timed-out` or `grammar`.
    pub fn code(&self) -> &'static str {
        match self {
            SyntaxError::TooLarge { .. } => "too-large",
            SyntaxError::TimedOut { .. } => "timed-out",
            SyntaxError::Grammar { .. } => "grammar",
        }
    }
}
