//! Recording a fixture: its script played through the real [`Toolbox`] against a
//! temporary copy of its workspace, with the log and the live views captured.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use hashline::replay::{EventView, call_view};
use hashline::tools::log::LogWriter;
use hashline::{CallContext, Session, SessionConfig, ToolResult, Toolbox, record_of};
use serde_json::Value;

use crate::script::{Call, External, Script, Step};
use crate::{CWD_TOKEN, FixtureError};

/// What a run of a fixture produced, with the workspace path tokenized as `{{cwd}}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recording {
    /// The session log (JSONL).
    pub log: String,
    /// The views the live path drew, one JSON line per event.
    pub views: String,
}

/// A `Write` into shared memory, for capturing the log.
#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl Write for Buffer {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Plays `script` against a temporary copy of `workspace` and returns the recording.
/// The copy is removed before this returns.
pub fn record(workspace: &Path, script: &Script) -> Result<Recording, FixtureError> {
    record_observed(workspace, script, |_, _| {})
}

/// Like [`record`], and hands every call's full result (structured value included, which
/// the log does not keep) to `observe`, in call order.
pub fn record_observed(
    workspace: &Path,
    script: &Script,
    mut observe: impl FnMut(&Call, &ToolResult),
) -> Result<Recording, FixtureError> {
    let scratch = tempfile::tempdir().map_err(|e| FixtureError::io("create a scratch directory", e))?;
    let root = scratch.path().join("workspace");
    copy_tree(workspace, &root)?;
    let root = root.canonicalize().map_err(|e| FixtureError::io("resolve the scratch workspace", e))?;
    let buffer = Buffer::default();
    let config = SessionConfig::builder().root(&root).log(Arc::new(LogWriter::new(buffer.clone()))).build();
    let session = Session::new(config).map_err(|e| FixtureError::Script(e.text()))?;
    let toolbox = Toolbox::new();
    let cwd = root.to_string_lossy().into_owned();
    let mut views = Vec::new();
    for step in &script.steps {
        match step {
            Step::Call(call) => {
                let args = substitute(&call.args, &cwd);
                let nested = call.parent.is_some();
                views.push(EventView::Call { call_id: call.id.clone(), view: call_view(&call.tool, &args, nested) });
                let result = toolbox.execute(&session, &call.tool, args.clone(), &context(call));
                observe(call, &result);
                views.push(result_view(call, &args, &result));
            }
            Step::Parallel(calls) => {
                let args: Vec<Value> = calls.iter().map(|c| substitute(&c.args, &cwd)).collect();
                for (call, args) in calls.iter().zip(&args) {
                    session.log_call(&call.id, &call.tool, args, call.parent.as_deref());
                    views.push(EventView::Call {
                        call_id: call.id.clone(),
                        view: call_view(&call.tool, args, call.parent.is_some()),
                    });
                }
                let results: Vec<ToolResult> = std::thread::scope(|scope| {
                    let handles: Vec<_> = calls
                        .iter()
                        .zip(&args)
                        .map(|(call, args)| {
                            let (toolbox, session) = (&toolbox, &session);
                            scope.spawn(move || {
                                toolbox.get(&call.tool).map(|tool| tool.execute(session, args.clone(), &context(call)))
                            })
                        })
                        .collect();
                    handles.into_iter().map(|h| h.join().ok().flatten()).collect::<Option<Vec<_>>>()
                })
                .ok_or_else(|| FixtureError::Script("a parallel call named an unknown tool or panicked".into()))?;
                for ((call, args), result) in calls.iter().zip(&args).zip(&results) {
                    session.log_result(&call.id, result);
                    observe(call, result);
                    views.push(result_view(call, args, result));
                }
            }
            Step::External(change) => external(&root, change)?,
        }
    }
    if let Some(err) = session.log_error() {
        return Err(FixtureError::Script(format!("the session log failed: {err}")));
    }
    let log = String::from_utf8_lossy(&buffer.0.lock().unwrap_or_else(|p| p.into_inner())).into_owned();
    let views: String = views
        .iter()
        .map(|v| serde_json::to_string(v).map(|line| line + "\n"))
        .collect::<Result<_, _>>()
        .map_err(|e| FixtureError::Script(format!("a view does not serialize: {e}")))?;
    Ok(Recording { log: tokenize(&log, &cwd), views: tokenize(&views, &cwd) })
}

fn context(call: &Call) -> CallContext {
    CallContext { call_id: Some(call.id.clone()), parent_call_id: call.parent.clone(), ..Default::default() }
}

fn result_view(call: &Call, args: &Value, result: &ToolResult) -> EventView {
    let view =
        if call.parent.is_some() { None } else { hashline::view::present_result(&call.tool, args, &record_of(result)) };
    EventView::Result { call_id: call.id.clone(), view }
}

/// Replaces `{{cwd}}` in every string of the arguments.
fn substitute(args: &Value, cwd: &str) -> Value {
    match args {
        Value::String(s) => Value::String(s.replace(CWD_TOKEN, cwd)),
        Value::Array(items) => Value::Array(items.iter().map(|v| substitute(v, cwd)).collect()),
        Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), substitute(v, cwd))).collect()),
        other => other.clone(),
    }
}

/// Replaces the workspace path with `{{cwd}}` (as written in JSON: the same text, since
/// paths here need no escaping beyond what JSON does to the rest of the string).
fn tokenize(text: &str, cwd: &str) -> String {
    let escaped = serde_json::to_string(cwd).map(|s| s[1..s.len() - 1].to_owned()).unwrap_or_default();
    text.replace(&escaped, CWD_TOKEN).replace(cwd, CWD_TOKEN)
}

fn external(root: &Path, change: &External) -> Result<(), FixtureError> {
    let target = |path: &str| -> Result<PathBuf, FixtureError> {
        if path.split('/').any(|part| part == "..") || path.starts_with('/') {
            return Err(FixtureError::Script(format!("external change outside the workspace: {path}")));
        }
        Ok(root.join(path))
    };
    let io = |what: &str| {
        let what = what.to_owned();
        move |e| FixtureError::io(&what, e)
    };
    match change {
        External::Write { path, content } => std::fs::write(target(path)?, content).map_err(io("write a file")),
        External::Append { path, content } => std::fs::OpenOptions::new()
            .append(true)
            .open(target(path)?)
            .and_then(|mut f| f.write_all(content.as_bytes()))
            .map_err(io("append to a file")),
        External::Delete { path } => std::fs::remove_file(target(path)?).map_err(io("delete a file")),
    }
}

/// Copies a directory tree (regular files and directories).
pub(crate) fn copy_tree(from: &Path, to: &Path) -> Result<(), FixtureError> {
    std::fs::create_dir_all(to).map_err(|e| FixtureError::io("create a directory", e))?;
    let entries = std::fs::read_dir(from).map_err(|e| FixtureError::io("list a workspace directory", e))?;
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let (source, dest) = (entry.path(), to.join(entry.file_name()));
        if source.is_dir() {
            copy_tree(&source, &dest)?;
        } else {
            std::fs::copy(&source, &dest).map_err(|e| FixtureError::io("copy a workspace file", e))?;
        }
    }
    Ok(())
}
