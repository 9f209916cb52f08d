//! The fixture script (`session.json`): the steps a fixture plays against its workspace.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A fixture's script.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    /// What the fixture shows, in a sentence or two.
    pub description: String,
    /// The steps, in order.
    pub steps: Vec<Step>,
}

/// One step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub enum Step {
    /// One tool call.
    Call(Call),
    /// Calls made together (as a model's parallel tool calls): they run concurrently;
    /// the log holds the calls, then the results, in the order given.
    Parallel(Vec<Call>),
    /// A change made outside the tools (an editor, a formatter, another agent).
    External(External),
}

/// A tool call. `{{cwd}}` in the arguments stands for the workspace's path.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Call {
    /// The call's id (as a model's tool-call id).
    pub id: String,
    /// The tool's name.
    pub tool: String,
    /// The arguments.
    pub args: Value,
    /// The id of the call this one runs inside (a nested, program-driven call).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
}

/// A file change outside the tools.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub enum External {
    /// Replace (or create) a file's content.
    Write {
        /// The file, relative to the workspace.
        path: String,
        /// The new content.
        content: String,
    },
    /// Append to a file.
    Append {
        /// The file, relative to the workspace.
        path: String,
        /// What to append.
        content: String,
    },
    /// Delete a file.
    Delete {
        /// The file, relative to the workspace.
        path: String,
    },
}
