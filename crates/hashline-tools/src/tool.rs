//! The one trait every tool implements: a name, typed arguments and value, and the function
//! that runs it in a session. Running a tool on JSON arguments is `crate::run`'s.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use crate::error::{ErrorCode, ToolError};
use crate::result::{CallContext, ToolOutput, ToolValue};
use crate::session::Session;

/// One tool: a name, typed arguments and value, and the function that runs it.
pub trait Tool {
    /// The tool's name, e.g. `read`.
    const NAME: &'static str;
    /// The typed arguments.
    type Args: DeserializeOwned + JsonSchema + 'static;
    /// The typed value.
    type Value: ToolValue;

    /// Runs the tool.
    fn run(session: &Session, args: Self::Args, ctx: &CallContext) -> Result<ToolOutput<Self::Value>, ToolError>;

    /// The code for a malformed integer parameter `name`.
    fn integer_error_code(name: &str) -> ErrorCode {
        match name {
            "offset" => ErrorCode::InvalidOffset,
            "limit" => ErrorCode::InvalidLimit,
            _ => ErrorCode::InvalidType,
        }
    }
}
