//! What can go wrong when drawing a session.

/// An error of this crate.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShowError {
    /// `--call ID` named a call that is not in the log.
    #[error("no call with id {call_id:?} in the log (its calls include: {})", known.join(", "))]
    CallNotFound {
        /// The id asked for.
        call_id: String,
        /// The first ids of the log, to help the user.
        known: Vec<String>,
    },
}
