//! Shared test workspace: a temporary directory, a session on it, and JSON calls.

#![allow(dead_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use hashline_tools::schema::output_schema;
use hashline_tools::{CallContext, Session, SessionConfig, Tool, ToolResult, execute};
use serde_json::Value;

/// A temporary workspace with a session rooted in it.
pub struct Workspace {
    pub dir: tempfile::TempDir,
    pub session: Session,
}

impl Workspace {
    /// A stateful session in a fresh directory.
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let session = Session::new(SessionConfig::builder().root(dir.path()).build()).expect("session");
        Self { dir, session }
    }

    /// The workspace's real path (symlinks resolved).
    pub fn root(&self) -> PathBuf {
        self.session.cwd().to_path_buf()
    }

    /// An absolute path below the workspace.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.root().join(rel)
    }

    /// Writes a file (creating parents).
    pub fn file(&self, rel: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let path = self.path(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(&path, bytes).expect("write");
        path
    }

    /// Runs a tool on JSON arguments as a top-level call; the structured value, success
    /// or error, must be valid against the tool's output schema.
    pub fn call<T: Tool>(&self, args: Value) -> ToolResult {
        let result = execute::<T>(&self.session, args.clone(), &CallContext::top_level());
        assert_matches_output_schema::<T>(&result, &args);
        result
    }

    /// Replaces the workspace path with `{{cwd}}` so snapshots are stable.
    pub fn redact(&self, text: &str) -> String {
        text.replace(&self.root().to_string_lossy().into_owned(), "{{cwd}}")
    }

    /// A result as pretty JSON with the workspace path redacted.
    pub fn json(&self, result: &ToolResult) -> String {
        self.redact(&serde_json::to_string_pretty(result).expect("json"))
    }
}

/// Every anchored row in `text` has the identical anchor, in order, in `ptcValue.lines`.
pub fn assert_rows_match_value(result: &ToolResult) {
    let text = result.text();
    let rows: Vec<&str> = text
        .lines()
        .filter_map(|line| {
            let (anchor, _) = line.split_once('|')?;
            let (n, h) = anchor.split_once(':')?;
            (n.bytes().all(|b| b.is_ascii_digit()) && h.len() == 3).then_some(anchor)
        })
        .collect();
    let values: Vec<&str> = result.ptc_value()["lines"]
        .as_array()
        .map(|lines| lines.iter().filter_map(|l| l["anchor"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(rows, values, "rows in the text and lines in the value differ");
}

/// The error code of a result (panics on success).
pub fn code(result: &ToolResult) -> &str {
    assert!(result.is_error, "expected an error, got {}", result.text());
    result.error_code().expect("error code")
}

/// Whether a path exists without following symlinks.
pub fn exists(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}

/// Fails when a result's structured value does not match its tool's output schema (read
/// by a standard JSON Schema 2020-12 validator).
pub fn assert_matches_output_schema<T: Tool>(result: &ToolResult, args: &Value) {
    static VALIDATORS: OnceLock<Mutex<HashMap<&'static str, Arc<jsonschema::Validator>>>> = OnceLock::new();
    let validator =
        {
            let mut map = VALIDATORS.get_or_init(Default::default).lock().unwrap_or_else(|p| p.into_inner());
            let schema = output_schema::<T>();
            Arc::clone(map.entry(T::NAME).or_insert_with(|| {
                Arc::new(jsonschema::draft202012::new(&schema).expect("the output schema compiles"))
            }))
        };
    let value = result.ptc_value();
    let errors: Vec<String> = validator.iter_errors(value).map(|e| format!("{e} at {}", e.instance_path())).collect();
    assert!(
        errors.is_empty(),
        "{} {args}: the result does not match the output schema:\n{}\nvalue: {value:#}",
        T::NAME,
        errors.join("\n")
    );
}
