//! The tool registry: every tool's name, description, schemas, annotations, dispatch
//! and presenters, in one table.

use hashline_tools::ast_search::AstSearchTool;
use hashline_tools::edit::EditTool;
use hashline_tools::find::FindTool;
use hashline_tools::grep::GrepTool;
use hashline_tools::ls::LsTool;
use hashline_tools::read::ReadTool;
use hashline_tools::run::execute_content;
use hashline_tools::schema::{generated_input_schema, input_schema, output_schema};
use hashline_tools::write::WriteTool;
use hashline_tools::{CallContext, ErrorCode, Session, Tool, ToolError, ToolResult, execute};
use hashline_view::{ContentBlock, ToolCallView, ToolResultRecord, ToolResultView};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::descriptions;

/// Hints for clients about what a tool does (MCP tool annotations).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    /// A short human title.
    pub title: &'static str,
    /// The tool does not change anything.
    pub read_only_hint: bool,
    /// The tool may overwrite or delete existing data.
    pub destructive_hint: bool,
    /// Calling it again with the same arguments has no further effect.
    pub idempotent_hint: bool,
    /// The tool reaches outside the local file system.
    pub open_world_hint: bool,
}

/// One registered tool.
#[derive(Clone, Copy)]
pub struct ToolSpec {
    /// The tool's name.
    pub name: &'static str,
    /// The description written for models, made when first asked for: three of them list
    /// the languages, whose names lie scattered among the grammars' data, and a call that
    /// never shows them (the CLI's tool commands) should not page those in.
    description: fn() -> &'static str,
    /// Client hints.
    pub annotations: Annotations,
    input_schema: fn() -> Value,
    generated_input_schema: fn() -> Value,
    output_schema: fn() -> Value,
    execute: fn(&Session, Value, &CallContext) -> ToolResult,
    execute_content: fn(&Session, Value, &CallContext) -> (Vec<ContentBlock>, bool),
}

impl std::fmt::Debug for ToolSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolSpec").field("name", &self.name).finish_non_exhaustive()
    }
}

impl ToolSpec {
    fn of<T: Tool>(description: fn() -> &'static str, annotations: Annotations) -> Self {
        Self {
            name: T::NAME,
            description,
            annotations,
            input_schema: || input_schema::<T>().clone(),
            generated_input_schema: || generated_input_schema::<T>().clone(),
            output_schema: output_schema::<T>,
            execute: execute::<T>,
            execute_content: execute_content::<T>,
        }
    }

    /// The description written for models.
    pub fn description(&self) -> &'static str {
        (self.description)()
    }

    /// The JSON Schema of the arguments (the committed one, `fixtures/schemas/`).
    pub fn input_schema(&self) -> Value {
        (self.input_schema)()
    }

    /// The JSON Schema of the arguments as generated from their type: what
    /// `cargo xtask fixtures` commits (equal to [`ToolSpec::input_schema`] while the
    /// fixtures are current).
    pub fn generated_input_schema(&self) -> Value {
        (self.generated_input_schema)()
    }

    /// The JSON Schema of `details.ptcValue` on success.
    pub fn output_schema(&self) -> Value {
        (self.output_schema)()
    }

    /// Runs the tool on JSON arguments (SPEC §4.1 projection).
    pub fn execute(&self, session: &Session, args: Value, ctx: &CallContext) -> ToolResult {
        (self.execute)(session, args, ctx)
    }

    /// Runs the tool and returns only what the model sees and whether it is an error,
    /// skipping the structured projection (faster, for text front ends).
    pub fn execute_content(&self, session: &Session, args: Value, ctx: &CallContext) -> (Vec<ContentBlock>, bool) {
        (self.execute_content)(session, args, ctx)
    }

    /// The pending view of a call (`None` = generic).
    pub fn present_call(&self, args: &Value) -> Option<ToolCallView> {
        hashline_view::present_call(self.name, args)
    }

    /// The completed view of a result (`None` = render the raw content).
    pub fn present_result(&self, args: &Value, result: &ToolResult) -> Option<ToolResultView> {
        hashline_view::present_result(self.name, args, &record_of(result))
    }
}

/// The durable part of a result that presenters see.
pub fn record_of(result: &ToolResult) -> ToolResultRecord {
    ToolResultRecord {
        content: result.content.clone(),
        is_error: result.is_error,
        meta: result.meta.clone().map(hashline_tools::structured::LazyJson::into_value),
    }
}

const fn read_only(title: &'static str) -> Annotations {
    Annotations { title, read_only_hint: true, destructive_hint: false, idempotent_hint: true, open_world_hint: false }
}

const fn destructive(title: &'static str, idempotent: bool) -> Annotations {
    Annotations {
        title,
        read_only_hint: false,
        destructive_hint: true,
        idempotent_hint: idempotent,
        open_world_hint: false,
    }
}

/// The registry of tools.
///
/// ```
/// use hashline::{CallContext, Session, Toolbox};
/// use serde_json::json;
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "alpha\nbeta").unwrap();
/// let session = Session::open(dir.path()).unwrap();
/// let toolbox = Toolbox::new();
/// let result = toolbox.execute(&session, "read", json!({"path": "a.txt"}), &CallContext::top_level());
/// assert_eq!(result.text(), "snapshot: s2xbcrg96\n1:3c8|alpha\n2:589|beta");
/// assert_eq!(result.ptc_value()["lines"][1]["anchor"], "2:589");
/// ```
#[derive(Debug, Clone)]
pub struct Toolbox {
    tools: Vec<ToolSpec>,
}

impl Default for Toolbox {
    fn default() -> Self {
        Self::new()
    }
}

impl Toolbox {
    /// Every tool of this build.
    pub fn new() -> Self {
        Self {
            tools: vec![
                ToolSpec::of::<ReadTool>(|| &descriptions::READ, read_only("Read file")),
                ToolSpec::of::<EditTool>(|| descriptions::EDIT, destructive("Edit file", false)),
                ToolSpec::of::<WriteTool>(|| descriptions::WRITE, destructive("Write file", true)),
                ToolSpec::of::<LsTool>(|| descriptions::LS, read_only("List directory")),
                ToolSpec::of::<FindTool>(|| descriptions::FIND, read_only("Find files")),
                ToolSpec::of::<GrepTool>(|| descriptions::GREP, read_only("Search file contents")),
                ToolSpec::of::<AstSearchTool>(|| descriptions::AST_SEARCH, read_only("Search code structure")),
            ],
        }
    }

    /// The tools, in registry order.
    pub fn tools(&self) -> &[ToolSpec] {
        &self.tools
    }

    /// One tool by name.
    pub fn get(&self, name: &str) -> Option<&ToolSpec> {
        self.tools.iter().find(|t| t.name == name)
    }

    fn unknown(&self, name: &str) -> ToolError {
        let names: Vec<&str> = self.tools.iter().map(|t| t.name).collect();
        ToolError::new(ErrorCode::UnknownTool, format!("Unknown tool: {name}. Available tools: {}.", names.join(", ")))
    }

    /// Runs a tool by name on JSON arguments and returns the SPEC §4.1 projection.
    /// An unknown name is an `unknown-tool` error result. The call and its result are
    /// written to the session's log, when it has one (a call without an id gets one).
    pub fn execute(&self, session: &Session, name: &str, args: Value, ctx: &CallContext) -> ToolResult {
        let call_id = ctx.call_id.clone().unwrap_or_else(|| session.next_call_id());
        let ctx = CallContext { call_id: Some(call_id.clone()), ..ctx.clone() };
        session.log_call(&call_id, name, &args, ctx.parent_call_id.as_deref());
        let result = match self.get(name) {
            Some(tool) => tool.execute(session, args, &ctx),
            None => ToolResult::failure(name, &self.unknown(name)),
        };
        session.log_result(&call_id, &result);
        result
    }

    /// Like [`Toolbox::execute`] but returns only what the model sees and whether it is an
    /// error — faster when no log is kept, since the structured value is never built.
    pub fn execute_content(
        &self,
        session: &Session,
        name: &str,
        args: Value,
        ctx: &CallContext,
    ) -> (Vec<ContentBlock>, bool) {
        match self.get(name) {
            Some(tool) if !session.is_logging() => tool.execute_content(session, args, ctx),
            _ => {
                let result = self.execute(session, name, args, ctx);
                (result.content, result.is_error)
            }
        }
    }

    /// The programmatic call API (SPEC §10.1). On success: the structured value plus its
    /// `text`. On failure: with `errorMode: "throw"` (the default) `Err(ToolError)`; with
    /// `errorMode: "value"`, `Ok({text, tool, ok: false, error})`.
    ///
    /// ```
    /// use hashline::{Session, Toolbox};
    /// use serde_json::json;
    /// let dir = tempfile::tempdir().unwrap();
    /// let session = Session::open(dir.path()).unwrap();
    /// let toolbox = Toolbox::new();
    /// let err = toolbox.invoke(&session, "read", json!({"path": "missing.txt"})).unwrap_err();
    /// assert_eq!(err.code.as_str(), "file-not-found");
    /// let value = toolbox.invoke(&session, "read", json!({"path": "missing.txt", "errorMode": "value"})).unwrap();
    /// assert_eq!(value["error"]["code"], "file-not-found");
    /// ```
    pub fn invoke(&self, session: &Session, name: &str, args: Value) -> Result<Value, ToolError> {
        let value_mode = hashline_tools::args::error_mode_is_value(&args)?;
        let result = self.execute(session, name, args, &CallContext::top_level());
        let text = result.text();
        let mut ptc = match result.details.ptc_value.into_value() {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        if result.is_error {
            let error = ptc.get("error").cloned().unwrap_or(Value::Null);
            if !value_mode {
                return Err(tool_error_from_json(&error, &text));
            }
            let mut out = Map::new();
            out.insert("text".into(), Value::String(text));
            out.insert("tool".into(), Value::from(name));
            out.insert("ok".into(), Value::Bool(false));
            if let Some(path) = ptc.remove("path") {
                out.insert("path".into(), path);
            }
            out.insert("error".into(), error);
            return Ok(Value::Object(out));
        }
        ptc.insert("text".into(), Value::String(text));
        Ok(Value::Object(ptc))
    }
}

/// Rebuilds a [`ToolError`] from its JSON form in a result.
fn tool_error_from_json(error: &Value, text: &str) -> ToolError {
    let code = error
        .get("code")
        .and_then(|c| serde_json::from_value::<ErrorCode>(c.clone()).ok())
        .unwrap_or(ErrorCode::FsError);
    let message = error.get("message").and_then(Value::as_str).unwrap_or(text);
    let mut out = ToolError::new(code, message);
    out.hint = error.get("hint").and_then(Value::as_str).map(str::to_owned);
    out.details = error.get("details").cloned().map(Box::new);
    out
}
