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
    /// Dropped before `dir` (fields drop in order): Windows removes no directory a session
    /// still holds open.
    pub session: Session,
    pub dir: tempfile::TempDir,
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

    /// An absolute path below the workspace (`rel` is written with `/`; on Windows the
    /// path is made with the system's separator, as hashline makes the paths it keys by).
    pub fn path(&self, rel: &str) -> PathBuf {
        let mut path = self.root();
        path.extend(rel.split('/').filter(|part| !part.is_empty()));
        path
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
        self.call_in::<T>(args, &CallContext::top_level())
    }

    /// [`Workspace::call`] in a context of the test's (its budget).
    #[allow(dead_code)]
    pub fn call_in<T: Tool>(&self, args: Value, ctx: &CallContext) -> ToolResult {
        let result = execute::<T>(&self.session, args.clone(), ctx);
        assert_matches_output_schema::<T>(&result, &args);
        result
    }

    /// Replaces the workspace path with `{{cwd}}` so snapshots are stable. On Windows the
    /// separators of a path below it are written `/`, as on Unix (in JSON text too, where
    /// they are escaped), so that one snapshot serves both.
    pub fn redact(&self, text: &str) -> String {
        let root = self.root().to_string_lossy().into_owned();
        if !cfg!(windows) {
            return text.replace(&root, "{{cwd}}");
        }
        let text = text.replace(&root.replace('\\', "\\\\"), "{{cwd}}").replace(&root, "{{cwd}}");
        let mut out = String::with_capacity(text.len());
        let mut rest = text.as_str();
        while let Some(at) = rest.find("{{cwd}}") {
            let (before, from) = rest.split_at(at + "{{cwd}}".len());
            out.push_str(before);
            let end = from.find(|c: char| c == '"' || c.is_whitespace() || c == ')' || c == ',').unwrap_or(from.len());
            out.push_str(&from[..end].replace("\\\\", "/").replace('\\', "/"));
            rest = &from[end..];
        }
        out.push_str(rest);
        out
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

/// Makes a symbolic link at `link` to `target` (relative targets are read from the link's
/// directory) and says whether it exists. On Unix it always does (a failure fails the test);
/// where Windows makes none (without the privilege, or under Wine, whose
/// `CreateSymbolicLinkW` reports success and makes nothing) it prints SKIPPED with the
/// test's name, and the test returns.
#[must_use]
pub fn symlink(target: impl AsRef<Path>, link: impl AsRef<Path>, test: &str) -> bool {
    let (target, link) = (target.as_ref(), link.as_ref());
    #[cfg(unix)]
    {
        let _ = test;
        std::os::unix::fs::symlink(target, link).expect("symlink");
        true
    }
    #[cfg(windows)]
    {
        let resolved = link.parent().map_or_else(|| target.to_path_buf(), |dir| dir.join(target));
        let made = if resolved.is_dir() {
            std::os::windows::fs::symlink_dir(target, link)
        } else {
            std::os::windows::fs::symlink_file(target, link)
        };
        let exists = std::fs::symlink_metadata(link).is_ok_and(|m| m.file_type().is_symlink());
        if !exists {
            eprintln!("SKIPPED {test}: this system makes no symbolic link ({made:?})");
        }
        exists
    }
}

/// Says that tests of Unix's own facilities (permission bits, owners, FIFOs, sockets,
/// devices) are compiled out on this system; the lane that runs the suite collects the line.
pub fn skipped_here(tests: &[&str], why: &str) {
    for test in tests {
        eprintln!("SKIPPED {test}: {why}");
    }
}
