//! What can stop the server.

use std::path::PathBuf;

/// An error that stops the server (tool failures never do: they are `isError` results).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A `--root` directory cannot be used as a session root.
    #[error("cannot use {} as a root: {message}", root.display())]
    InvalidRoot {
        /// The directory as given.
        root: PathBuf,
        /// Why it cannot be used.
        message: String,
    },
    /// The working directory (the fallback root) cannot be read.
    #[error("cannot read the working directory: {0}")]
    WorkingDirectory(#[source] std::io::Error),
    /// The MCP handshake failed for a reason other than the client going away.
    #[error("MCP handshake failed: {0}")]
    Handshake(#[source] Box<rmcp::service::ServerInitializeError>),
    /// The service task ended abnormally.
    #[error("the MCP service task failed: {0}")]
    Service(#[source] tokio::task::JoinError),
}
