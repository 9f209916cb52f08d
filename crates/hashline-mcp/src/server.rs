//! The MCP handler: the registry's tools, one session per connection.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use hashline::core::display::escape_name;
use hashline::tools::log::LogWriter;
use hashline::view::ContentBlock;
use hashline::{
    Budget, CallContext, CancelFlag, ErrorCode, Session, SessionConfig, ToolError, ToolResult, ToolSpec, Toolbox,
};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CustomRequest, CustomResult, Implementation, JsonObject,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ProgressToken, ServerCapabilities,
    ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, Peer, RoleServer, ServerHandler};
use serde_json::{Map, Value};
use tokio::sync::OnceCell;

use crate::error::Error;
use crate::roots::usable_client_roots;
use crate::undo::UndoBound;

/// What the server tells a model about the tools as a whole (MCP `instructions`).
pub const INSTRUCTIONS: &str = "\
hashline: file tools whose rows carry anchors. Every line a tool shows is `LINE:HASH|content`, \
e.g. `12:3c8|let x = 1;`; `12:3c8` is that line's anchor.
1. `read` the file (rows from `write` or an earlier edit's result count too).
2. `edit` by anchors copied from those rows, e.g. \
{\"path\": \"src/lib.rs\", \"edits\": [{\"set_line\": {\"anchor\": \"12:3c8\", \"new_text\": \"let x = 2;\"}}]}; \
`new_text` is plain content, without row prefixes. Nothing is written unless every edit is valid.
3. If an edit is refused with `hash-mismatch`, the file changed since you saw it: the error carries \
fresh rows (and `updatedAnchors`). Retry with those anchors; no re-read is needed.
An edit of a file you have not read is refused (`file-not-read`). Relative paths resolve against the \
working directory (the first root).";

/// The answer to a `tools/list` with a cursor: the tools come in one page, so no cursor
/// was ever given.
const INVALID_CURSOR: &str =
    "Invalid params for tools/list: unknown cursor. Every tool is listed in one page; list them without a cursor.";

/// The answer to an `initialize` of protocol 2026-07-28 (its version in the request's `_meta`),
/// a revision without one (`-32601`; HTTP 404). MCP asks a server to name the versions it
/// speaks in any error it returns to an `initialize`.
const NO_INITIALIZE: &str = "Method not found: initialize. Protocol 2026-07-28 has no initialize: each request carries its protocol version in _meta (server/discover lists the versions this server speaks). An initialize without that _meta opens a session of an earlier version.";

/// How often a call whose request carries a `progressToken` reports that it is still
/// running (`notifications/progress`, the progress being the seconds it has run).
const PROGRESS_EVERY: Duration = Duration::from_secs(1);

/// How long the server waits for the client's answer to `roots/list`.
const ROOTS_TIMEOUT: Duration = Duration::from_secs(5);

/// What a `tools/call` result carries besides the text a model reads, and whether each
/// tool lists an `outputSchema` (docs/protocol.md §10, "What a host shows its model").
///
/// Hosts differ in what they show their model: Claude Code and Codex show
/// `JSON.stringify(structuredContent)` when a result has one and drop the text; Gemini CLI
/// and opencode show the text; Copilot CLI shows both. So by default a result is its text
/// alone, which every host shows as it is; programs and code-mode hosts that want the typed
/// value ask for [`StructuredContent::Full`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StructuredContent {
    /// Text (and image) content only, and no `outputSchema`: every host shows the model
    /// the rows as they are. The session's ledger holds exactly the rows that text shows.
    #[default]
    Off,
    /// `structuredContent` is the tool's typed value (the `ptcValue`, with its per-line
    /// objects) and every tool lists its `outputSchema`.
    Full,
}

impl StructuredContent {
    /// The option's value as `--structured-content` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Off => "off",
            Self::Full => "full",
        }
    }
}

impl std::str::FromStr for StructuredContent {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "off" => Ok(Self::Off),
            "full" => Ok(Self::Full),
            other => Err(format!("expected `off` or `full`, not `{other}`")),
        }
    }
}

/// How the server sets up each connection's session.
#[derive(Clone, Debug, Default)]
pub struct ServerOptions {
    /// The session's roots; the first one is the working directory. When empty, the
    /// client's `file://` roots are used if it declares the `roots` capability (asked once,
    /// right after the handshake; later `roots/list_changed` notifications do not move an
    /// open session), else the process working directory.
    pub roots: Vec<PathBuf>,
    /// Allow paths outside every root.
    pub unconfined: bool,
    /// Where to log every call and its result (SPEC §9.1); no log when `None`.
    pub log: Option<Arc<LogWriter>>,
    /// Whether results carry the typed value as `structuredContent` (off by default).
    pub structured: StructuredContent,
    /// How much text one result may show. `None` (the default): what the host that
    /// connected shows at once ([`crate::hosts::budget_for`] of its `clientInfo.name`).
    pub budget: Option<Budget>,
    /// The store of the snapshots the principal was shown (docs/protocol.md §1.5), shared by
    /// its sessions; `None`: each session keeps its own. The HTTP server gives each token one.
    pub snapshots: Option<Arc<dyn hashline::tools::snapshots::Snapshots>>,
}

/// The MCP server for one connection: every tool of the [`Toolbox`] over one stateful
/// [`Session`] (read-before-edit gate and served-lines guard on).
pub struct HashlineServer {
    toolbox: Arc<Toolbox>,
    tools: Vec<Tool>,
    options: ServerOptions,
    session: OnceCell<Result<Arc<Session>, ToolError>>,
    /// Hand rmcp a stand-in for `structuredContent` that the transport writes from the
    /// typed value (`direct.rs`); only a transport that does so may set it.
    direct: bool,
    /// The bound this session's changes share with other sessions' (HTTP), if any.
    undo: Option<Arc<UndoBound>>,
}

impl std::fmt::Debug for HashlineServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HashlineServer").field("options", &self.options).finish_non_exhaustive()
    }
}

impl HashlineServer {
    /// A server over every tool of this build. With explicit roots the session is opened
    /// now, so a bad `--root` is reported before any client connects.
    pub fn new(options: ServerOptions) -> Result<Self, Error> {
        let toolbox = Toolbox::new();
        let tools = toolbox.tools().iter().map(|spec| mcp_tool(spec, options.structured)).collect();
        let session = if options.roots.is_empty() {
            OnceCell::new()
        } else {
            let session = open_session(&options.roots, &options).map_err(|err| Error::InvalidRoot(err.message))?;
            OnceCell::new_with(Some(Ok(Arc::new(session))))
        };
        Ok(Self { toolbox: Arc::new(toolbox), tools, options, session, direct: false, undo: None })
    }

    /// Another server over the same session (an HTTP principal's sessionless requests
    /// share one).
    pub(crate) fn share(&self) -> Self {
        let session = match self.session.get() {
            Some(session) => OnceCell::new_with(Some(session.clone())),
            None => OnceCell::new(),
        };
        Self {
            toolbox: Arc::clone(&self.toolbox),
            tools: self.tools.clone(),
            options: self.options.clone(),
            session,
            direct: self.direct,
            undo: self.undo.clone(),
        }
    }

    /// Puts the session's changes under `bound`, shared with other sessions: after each
    /// call, the oldest changes across them are dropped until they fit.
    pub(crate) fn share_undo_bound(&mut self, bound: Arc<UndoBound>) {
        if let Some(Ok(session)) = self.session.get() {
            bound.register(session);
        }
        self.undo = Some(bound);
    }

    /// Answers `tools/call` with a `structuredContent` stand-in that the stdio transport
    /// swaps for the JSON written from the typed value.
    pub(crate) fn write_structured_directly(&mut self) {
        self.direct = true;
    }

    /// The tools as MCP lists them.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// How this server's results carry the typed value.
    fn structured(&self) -> Structured {
        match (self.options.structured, self.direct) {
            (StructuredContent::Off, _) => Structured::Off,
            (StructuredContent::Full, false) => Structured::Value,
            (StructuredContent::Full, true) => Structured::StandIn,
        }
    }

    /// The connection's session, opened on first use once the roots are known.
    async fn session(&self, peer: &Peer<RoleServer>) -> Result<Arc<Session>, ToolError> {
        self.session.get_or_init(|| self.open_lazily(peer)).await.clone()
    }

    async fn open_lazily(&self, peer: &Peer<RoleServer>) -> Result<Arc<Session>, ToolError> {
        let from_client = client_roots(peer).await;
        if !from_client.is_empty() {
            match open_session(&from_client, &self.options) {
                Ok(session) => return Ok(self.registered(Arc::new(session))),
                Err(err) => {
                    warn(&format!("the client's roots cannot be used ({}); using the working directory", err.message))
                }
            }
        }
        let cwd = std::env::current_dir().map_err(|err| {
            ToolError::new(ErrorCode::PathNotFound, format!("Cannot read the server's working directory: {err}"))
        })?;
        open_session(&[cwd], &self.options).map(|session| self.registered(Arc::new(session)))
    }

    /// `session`, under the shared bound on changes if there is one.
    fn registered(&self, session: Arc<Session>) -> Arc<Session> {
        if let Some(bound) = &self.undo {
            bound.register(&session);
        }
        session
    }

    /// The budget of a call: the server's own, else the connected host's. The client is
    /// the one `initialize` named, or on protocol 2026-07-28 (no `initialize`) the one the
    /// request's `_meta` names.
    fn budget(&self, context: &RequestContext<RoleServer>) -> Budget {
        if let Some(budget) = self.options.budget {
            return budget;
        }
        let name = match context.peer.peer_info() {
            Some(info) => Some(info.client_info.name.clone()),
            None => context.meta.client_info().map(|info| info.name),
        };
        crate::hosts::budget_for(name.as_deref(), self.options.structured)
    }

    /// `Ok` when `name` is one of the tools; else the `-32602` error MCP asks for (the
    /// call is neither run nor logged).
    fn known(&self, name: &str) -> Result<(), ErrorData> {
        if self.toolbox.get(name).is_some() {
            return Ok(());
        }
        let names: Vec<&str> = self.toolbox.tools().iter().map(|tool| tool.name).collect();
        Err(ErrorData::invalid_params(
            format!("Unknown tool: {}. Available tools: {}.", escape_name(name), names.join(", ")),
            None,
        ))
    }

    /// Runs one tool call on a thread of its own ([`run_isolated`]), so calls run in parallel. A
    /// `notifications/cancelled` for the request raises the call's cancel flag: an edit or
    /// write that has not committed yet then writes nothing, an ast_search stops its walk
    /// (rmcp drops the reply). When the client disconnects, calls in flight get 5 seconds
    /// to finish before rmcp cancels them the same way. With a `progressToken` in the
    /// request's `_meta`, the call reports progress every second while it runs.
    async fn execute(
        &self,
        name: String,
        args: Value,
        context: &RequestContext<RoleServer>,
    ) -> Result<ToolResult, ErrorData> {
        let session = match self.session(&context.peer).await {
            Ok(session) => session,
            Err(err) => return Ok(ToolResult::failure(&name, &err)),
        };
        let cancel = CancelFlag::default();
        let text = self.options.structured == StructuredContent::Off;
        let call = CallContext {
            call_id: Some(context.id.to_string()),
            parent_call_id: None,
            cancel: cancel.clone(),
            // What no one reads is not built: without structuredContent and without a log
            // (which keeps the value and the read's meta), only the text leaves the server.
            text_only: text && self.options.log.is_none(),
            sees_text_only: text,
            budget: self.budget(context),
        };
        let toolbox = Arc::clone(&self.toolbox);
        // rmcp cancels the request's token on `notifications/cancelled` (before it reads
        // the next message), and for calls still running when the connection is wound up.
        let token = context.ct.clone();
        let watcher = tokio::spawn(async move {
            token.cancelled().await;
            cancel.cancel();
        });
        let progress =
            context.meta.get_progress_token().map(|token| tokio::spawn(report_progress(context.peer.clone(), token)));
        let tool = name.clone();
        let undo = self.undo.clone();
        let outcome = run_isolated(&tool, move || {
            let next = |session: &Session| session.changes().state().next;
            let before = next(&session);
            let result = toolbox.execute(&session, &name, args, &call);
            // Only a call that recorded a change can have taken the sessions past the bound.
            if let Some(undo) = undo
                && next(&session) != before
            {
                undo.enforce();
            }
            result
        })
        .await;
        watcher.abort();
        if let Some(progress) = progress {
            // Before the reply is sent: no progress follows it.
            progress.abort();
        }
        Ok(outcome)
    }
}

impl ServerHandler for HashlineServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("hashline", env!("CARGO_PKG_VERSION")).with_title("hashline"))
            .with_instructions(INSTRUCTIONS)
    }

    /// Every tool in one page: a cursor is never given, so any cursor is invalid (`-32602`).
    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        if request.is_some_and(|request| request.cursor.is_some()) {
            return Err(ErrorData::invalid_params(INVALID_CURSOR, None));
        }
        Ok(ListToolsResult::with_all_items(self.tools.clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.known(&request.name)?;
        let args = request.arguments.map_or_else(|| Value::Object(Map::new()), Value::Object);
        let result = self.execute(request.name.into_owned(), args, &context).await?;
        Ok(CallToolResponse::Complete(call_tool_result(result, self.structured())))
    }

    /// Requests whose params do not fit their method arrive here. `tools/call` with
    /// arguments that are not an object still runs: the tool's own argument check
    /// answers with an `invalid-type` tool error the model can act on.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let method = request.method.as_str();
        let params = request.params.unwrap_or(Value::Null);
        match method {
            "tools/call" => {
                let Some(name) = params.get("name").and_then(Value::as_str) else {
                    return Err(ErrorData::invalid_params(
                        "Invalid params for tools/call: `name` must be a string.",
                        None,
                    ));
                };
                self.known(name)?;
                let args = params.get("arguments").cloned().unwrap_or(Value::Null);
                let structured = match self.options.structured {
                    StructuredContent::Off => Structured::Off,
                    StructuredContent::Full => Structured::Value,
                };
                let mut result = call_tool_result(self.execute(name.to_owned(), args, &context).await?, structured);
                result.result_type = None;
                let value =
                    serde_json::to_value(result).map_err(|err| ErrorData::internal_error(err.to_string(), None))?;
                Ok(CustomResult::new(value))
            }
            // Protocol 2026-07-28 has neither: a request of that revision (its version in
            // `_meta`) names a method this server does not have (HTTP 404).
            "initialize" | "ping" if is_sessionless(&context) => Err(ErrorData::new(
                rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                if method == "initialize" { NO_INITIALIZE.to_owned() } else { format!("Method not found: {method}") },
                None,
            )),
            "initialize" | "ping" | "tools/list" => {
                Err(ErrorData::invalid_params(format!("Invalid params for {method}: {params}"), None))
            }
            _ => Err(ErrorData::new(
                rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                format!("Method not found: {method}"),
                None,
            )),
        }
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        // Ask for the roots now, so the first call does not wait for them.
        let _ = self.session(&context.peer).await;
    }
}

/// Sends `notifications/progress` with `token` every [`PROGRESS_EVERY`] until aborted, the
/// progress being the whole seconds the call has run (no total: it is not known).
async fn report_progress(peer: Peer<RoleServer>, token: ProgressToken) {
    let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + PROGRESS_EVERY, PROGRESS_EVERY);
    let mut progress = 0.0;
    loop {
        ticks.tick().await;
        progress += PROGRESS_EVERY.as_secs_f64();
        if peer.notify_progress(ProgressNotificationParam::new(token.clone(), progress)).await.is_err() {
            return;
        }
    }
}

/// Whether a request is of a revision without sessions (2026-07-28 on): its version is in
/// its own `_meta`, and that version has no `initialize`.
fn is_sessionless(context: &RequestContext<RoleServer>) -> bool {
    context.meta.protocol_version().is_some_and(|version| !version.has_initialize())
}

/// Runs one call on a thread of its own: on a multi-threaded runtime the worker thread it
/// arrived on (`block_in_place`, which moves the worker's other tasks elsewhere), else a
/// blocking thread. A panic in it (a bug) is caught there and becomes the
/// call's `internal-error` result: the connection, its other calls and every other session
/// serve on.
async fn run_isolated(tool: &str, call: impl FnOnce() -> ToolResult + Send + 'static) -> ToolResult {
    if tokio::runtime::Handle::current().runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread {
        // On this worker thread, which hands its other tasks to the runtime meanwhile: no
        // hand-off to a blocking thread and back (each a wake-up of another thread).
        return tokio::task::block_in_place(|| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(call))
                .unwrap_or_else(|payload| ToolResult::failure(tool, &ToolError::panicked(tool, payload.as_ref())))
        });
    }
    match tokio::task::spawn_blocking(call).await {
        Ok(result) => result,
        Err(join) => {
            let error = match join.try_into_panic() {
                Ok(payload) => ToolError::panicked(tool, payload.as_ref()),
                Err(join) => ToolError::panicked(tool, &join.to_string()),
            };
            ToolResult::failure(tool, &error)
        }
    }
}

/// A stateful session over `roots` (the first is the working directory).
fn open_session(roots: &[PathBuf], options: &ServerOptions) -> Result<Session, ToolError> {
    let mut config = SessionConfig::builder()
        .root(roots[0].clone())
        .extra_roots(roots[1..].to_vec())
        .unconfined(options.unconfined)
        .stateful(true)
        .build();
    config.log.clone_from(&options.log);
    config.snapshots.clone_from(&options.snapshots);
    Session::new(config)
}

/// The client's usable roots, when it declares the `roots` capability and answers.
#[expect(deprecated, reason = "roots are deprecated only from protocol 2026-07-28 on, which has no initialize")]
async fn client_roots(peer: &Peer<RoleServer>) -> Vec<PathBuf> {
    let declared = peer.peer_info().is_some_and(|info| info.capabilities.roots.is_some());
    if !declared {
        return Vec::new();
    }
    match tokio::time::timeout(ROOTS_TIMEOUT, peer.list_roots()).await {
        Ok(Ok(result)) => {
            let roots = usable_client_roots(&result.roots);
            if roots.is_empty() {
                warn("the client lists no existing file:// root; using the working directory");
            }
            roots
        }
        Ok(Err(err)) => {
            warn(&format!("roots/list failed ({err}); using the working directory"));
            Vec::new()
        }
        Err(_) => {
            warn("the client did not answer roots/list in time; using the working directory");
            Vec::new()
        }
    }
}

fn warn(message: &str) {
    eprintln!("hashline mcp: {message}");
}

/// One registry entry as an MCP tool: its output schema only when results carry the
/// typed value (a client holds `structuredContent` to a listed `outputSchema`).
fn mcp_tool(spec: &ToolSpec, structured: StructuredContent) -> Tool {
    let hints = spec.annotations;
    let annotations = ToolAnnotations::with_title(hints.title)
        .read_only(hints.read_only_hint)
        .destructive(hints.destructive_hint)
        .idempotent(hints.idempotent_hint)
        .open_world(hints.open_world_hint);
    let tool = Tool::new(spec.name, spec.description(), Arc::new(object_schema(spec.input_schema())))
        .with_title(hints.title)
        .with_annotations(annotations);
    match structured {
        StructuredContent::Off => tool,
        StructuredContent::Full => tool.with_raw_output_schema(Arc::new(object_schema(spec.output_schema()))),
    }
}

/// A schema as the JSON object MCP wants (a non-object schema accepts any object).
fn object_schema(schema: Value) -> JsonObject {
    match schema {
        Value::Object(object) => object,
        _ => Map::from_iter([("type".to_owned(), Value::from("object"))]),
    }
}

/// How a result carries the typed value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Structured {
    /// Not at all.
    Off,
    /// As `structuredContent`, a `Value`.
    Value,
    /// As `structuredContent`, the stand-in the stdio transport swaps for the JSON text
    /// (`direct.rs`).
    StandIn,
}

/// A tool result as MCP's: text and image blocks, and `structuredContent` = the ptcValue
/// unless `structured` is off.
fn call_tool_result(result: ToolResult, structured: Structured) -> CallToolResult {
    let content = result
        .content
        .into_iter()
        .map(|block| match block {
            ContentBlock::Text { text } => rmcp::model::ContentBlock::text(text),
            ContentBlock::Image { data, mime_type } => rmcp::model::ContentBlock::image(data, mime_type),
        })
        .collect();
    let mut out = if result.is_error { CallToolResult::error(content) } else { CallToolResult::success(content) };
    out.structured_content = match structured {
        Structured::Off => None,
        Structured::Value => Some(result.details.ptc_value.into_value()),
        Structured::StandIn => Some(crate::direct::stand_in(&result.details.ptc_value)),
    };
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_registry_tool_is_listed_with_its_schemas_and_hints() {
        let toolbox = Toolbox::new();
        for structured in [StructuredContent::Off, StructuredContent::Full] {
            let server = HashlineServer::new(ServerOptions { structured, ..Default::default() }).expect("server");
            let names: Vec<&str> = server.tools().iter().map(|t| t.name.as_ref()).collect();
            let expected: Vec<&str> = toolbox.tools().iter().map(|t| t.name).collect();
            assert_eq!(names, expected);
            for (tool, spec) in server.tools().iter().zip(toolbox.tools()) {
                assert_eq!(tool.description.as_deref(), Some(spec.description()));
                assert_eq!(Value::Object((*tool.input_schema).clone()), spec.input_schema());
                match structured {
                    StructuredContent::Off => assert!(tool.output_schema.is_none(), "{}: an output schema", spec.name),
                    StructuredContent::Full => {
                        let output = tool.output_schema.as_ref().expect("output schema");
                        assert_eq!(Value::Object((**output).clone()), spec.output_schema());
                    }
                }
                let hints = tool.annotations.as_ref().expect("annotations");
                assert_eq!(hints.read_only_hint, Some(spec.annotations.read_only_hint));
                assert_eq!(hints.destructive_hint, Some(spec.annotations.destructive_hint));
                assert_eq!(hints.idempotent_hint, Some(spec.annotations.idempotent_hint));
                assert_eq!(hints.open_world_hint, Some(false));
                assert_eq!(tool.title.as_deref(), Some(spec.annotations.title));
            }
        }
    }

    #[test]
    fn by_default_a_result_is_its_content_alone() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("a.txt"), "alpha\n").expect("write");
        let session = Session::open(dir.path()).expect("session");
        let read =
            Toolbox::new().execute(&session, "read", serde_json::json!({"path": "a.txt"}), &CallContext::top_level());
        let mapped = serde_json::to_value(call_tool_result(read.clone(), Structured::Off)).expect("json");
        assert_eq!(
            mapped,
            serde_json::json!({"resultType": "complete", "content": [{"type": "text", "text": "snapshot: s7fetm0c9\n1:3c8|alpha"}], "isError": false})
        );
    }

    #[test]
    fn results_map_text_image_error_flag_and_structured_value() {
        let dir = tempfile::tempdir().expect("tempdir");
        let session = Session::open(dir.path()).expect("session");
        let missing =
            Toolbox::new().execute(&session, "read", serde_json::json!({"path": "x"}), &CallContext::top_level());
        let mapped = serde_json::to_value(call_tool_result(missing.clone(), Structured::Value)).expect("json");
        assert_eq!(mapped["isError"], true);
        assert_eq!(mapped["content"][0]["type"], "text");
        assert_eq!(mapped["content"][0]["text"], missing.text());
        assert_eq!(mapped["structuredContent"], *missing.ptc_value());

        let mut image = missing;
        image.is_error = false;
        image.content = vec![ContentBlock::Image { data: "iVBORw0KGgo=".into(), mime_type: "image/png".into() }];
        let mapped = serde_json::to_value(call_tool_result(image, Structured::Value)).expect("json");
        assert_eq!(mapped["isError"], false);
        assert_eq!(
            mapped["content"][0],
            serde_json::json!({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"})
        );
    }

    /// Every fixture result (each tool, errors, images, nested calls), answered as the stdio
    /// transport writes it, is byte for byte the answer the `Value` path writes, for both
    /// protocol generations' result shapes.
    #[test]
    #[cfg_attr(
        windows,
        ignore = "the committed fixtures name a file Windows cannot hold (agent-instructions: `</system-reminder>`)"
    )]
    fn direct_structured_content_is_byte_equal_to_the_value_path_for_every_fixture_result() {
        use rmcp::model::{JsonRpcMessage, JsonRpcResponse, JsonRpcVersion2_0, RequestId, ServerResult};
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
        let fixtures = hashline_fixtures::discover(&root).expect("fixtures");
        assert!(fixtures.len() >= 10, "the fixtures are found: {}", fixtures.len());
        let message = |result: CallToolResult, legacy: bool| {
            let mut result = ServerResult::CallToolResult(result);
            if legacy {
                result.strip_result_type_for_legacy_peer();
                result.strip_non_object_output_for_legacy_peer();
            }
            JsonRpcMessage::Response(JsonRpcResponse { jsonrpc: JsonRpcVersion2_0, id: RequestId::Number(3), result })
        };
        let mut compared = 0;
        let mut tools = std::collections::BTreeSet::new();
        for fixture in fixtures {
            fixture
                .record_observed(|call, result| {
                    for legacy in [false, true] {
                        let slow =
                            serde_json::to_vec(&message(call_tool_result(result.clone(), Structured::Value), legacy))
                                .expect("json");
                        let fast = crate::direct::encode_response(message(
                            call_tool_result(result.clone(), Structured::StandIn),
                            legacy,
                        ))
                        .expect("json");
                        assert!(
                            fast == slow,
                            "{} {}: direct\n{}\nvalue\n{}",
                            fixture.name,
                            call.id,
                            String::from_utf8_lossy(&fast),
                            String::from_utf8_lossy(&slow)
                        );
                        compared += 1;
                    }
                    tools.insert(call.tool.clone());
                })
                .expect("the fixture records");
        }
        assert!(tools.len() >= 7, "every tool is among the results: {tools:?}");
        assert!(compared > 100, "{compared} results compared");
    }

    /// On a multi-threaded runtime a call runs on its worker thread (`block_in_place`).
    #[tokio::test(flavor = "multi_thread")]
    async fn a_panicking_call_is_an_internal_error_result() {
        panicking_and_fine_calls().await;
    }

    /// On a single-threaded one it runs on a blocking thread.
    #[tokio::test(flavor = "current_thread")]
    async fn a_panicking_call_on_a_blocking_thread_is_an_internal_error_result() {
        panicking_and_fine_calls().await;
    }

    async fn panicking_and_fine_calls() {
        let result = run_isolated("read", || panic!("index out of bounds\nmore")).await;
        assert!(result.is_error);
        assert_eq!(result.ptc_value()["error"]["code"], "internal-error");
        assert_eq!(
            result.text(),
            "Internal error: read failed unexpectedly (index out of bounds). This is a bug in hashline. A file it was writing holds its old or its new bytes, never a mix; re-read the files this call names before editing them."
        );
        let fine = run_isolated("read", || {
            let dir = tempfile::tempdir().expect("tempdir");
            let session = Session::open(dir.path()).expect("session");
            Toolbox::new().execute(&session, "ls", serde_json::json!({}), &CallContext::top_level())
        })
        .await;
        assert!(!fine.is_error, "{}", fine.text());
    }

    #[test]
    fn a_root_that_is_not_a_directory_is_refused_up_front() {
        let dir = tempfile::tempdir().expect("tempdir");
        let options = ServerOptions { roots: vec![dir.path().join("missing")], ..Default::default() };
        let err = HashlineServer::new(options).expect_err("missing root");
        assert!(err.to_string().contains("missing"), "{err}");
    }
}
