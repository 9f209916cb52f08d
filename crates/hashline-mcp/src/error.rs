//! What can stop the server.

/// An error that stops the server (tool failures never do: they are `isError` results).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A `--root` directory cannot be used as a session root (the message names it).
    #[error("{0}")]
    InvalidRoot(String),
    /// The working directory (the fallback root) cannot be read.
    #[error("cannot read the working directory: {0}")]
    WorkingDirectory(#[source] std::io::Error),
    /// The MCP handshake failed for a reason other than the client going away.
    #[error("MCP handshake failed: {0}")]
    Handshake(#[source] Box<rmcp::service::ServerInitializeError>),
    /// The service task ended abnormally.
    #[error("the MCP service task failed: {0}")]
    Service(#[source] tokio::task::JoinError),
    /// The HTTP server cannot start (the message says why).
    #[error("{0}")]
    Http(String),
}
