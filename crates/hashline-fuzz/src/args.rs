//! Every tool's argument parsing (and whatever arguments can reach) on a small workspace:
//! arbitrary JSON, or tool-shaped objects with odd values, through the registry as every
//! front end calls it. Nothing may panic; a result is an error exactly when its value
//! says `ok: false`, with a code.

use std::sync::{Mutex, OnceLock};

use arbitrary::Unstructured;
use hashline::{CallContext, Session, SessionConfig, Toolbox};
use serde_json::{Map, Value, json};

/// The registry's tools, and one name that is none.
const TOOLS: &[&str] = &["read", "edit", "write", "ls", "find", "grep"];

/// Keys the tools know, and some they do not.
const KEYS: &[&str] = &[
    "path",
    "offset",
    "limit",
    "symbol",
    "map",
    "bundle",
    "content",
    "edits",
    "oldText",
    "newText",
    "files",
    "postEditVerify",
    "syntaxValidate",
    "glob",
    "pattern",
    "type",
    "maxDepth",
    "sortBy",
    "reverse",
    "modifiedSince",
    "minSize",
    "maxSize",
    "regex",
    "errorMode",
    "extra",
];

/// Files the workspace starts with (and is reset to now and then).
const FILES: &[(&str, &str)] =
    &[("a.txt", "alpha\nbeta\n"), ("src/lib.rs", "fn main() {\n    x();\n}\n"), ("crlf.txt", "one\r\ntwo")];

/// How many calls run between resets of the workspace.
const RESET_EVERY: u32 = 64;

struct Workspace {
    dir: tempfile::TempDir,
    session: Session,
    toolbox: Toolbox,
    calls: u32,
}

impl Workspace {
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let session = Session::new(SessionConfig::builder().root(dir.path()).stateful(true).build()).expect("session");
        let mut workspace = Self { dir, session, toolbox: Toolbox::new(), calls: 0 };
        workspace.reset();
        workspace
    }

    fn reset(&mut self) {
        if let Ok(entries) = std::fs::read_dir(self.dir.path()) {
            for entry in entries.flatten() {
                let path = entry.path();
                let _ = if path.is_dir() { std::fs::remove_dir_all(&path) } else { std::fs::remove_file(&path) };
            }
        }
        for (name, content) in FILES {
            let path = self.dir.path().join(name);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(path, content).expect("write");
        }
    }
}

fn workspace() -> &'static Mutex<Workspace> {
    static WORKSPACE: OnceLock<Mutex<Workspace>> = OnceLock::new();
    WORKSPACE.get_or_init(|| Mutex::new(Workspace::new()))
}

/// Runs one tool on arguments made from the input.
pub fn tool_args(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let tool = u.choose(TOOLS).copied().unwrap_or("read");
    let rest = u.peek_bytes(u.len()).unwrap_or_default();
    let args = serde_json::from_slice::<Value>(rest).unwrap_or_else(|_| shaped(&mut u));
    let mut workspace = workspace().lock().unwrap_or_else(|p| p.into_inner());
    workspace.calls += 1;
    if workspace.calls.is_multiple_of(RESET_EVERY) {
        workspace.reset();
    }
    let result = workspace.toolbox.execute(&workspace.session, tool, args, &CallContext::top_level());
    let value = result.ptc_value().clone();
    assert_eq!(value["ok"] == false, result.is_error, "isError agrees with ok: {value}");
    if result.is_error {
        assert!(value["error"]["code"].as_str().is_some_and(|c| !c.is_empty()), "an error has a code: {value}");
    }
    let text = serde_json::to_string(&result).expect("a result serializes");
    assert_eq!(result.to_json(), text, "the direct JSON line is the serialized result");
}

/// An object with known and unknown keys and values of every JSON type.
fn shaped(u: &mut Unstructured<'_>) -> Value {
    let mut object = Map::new();
    for _ in 0..u.int_in_range(0..=5).unwrap_or(0) {
        let Ok(key) = u.choose(KEYS) else { break };
        object.insert((*key).to_owned(), value(u, 2));
    }
    Value::Object(object)
}

fn value(u: &mut Unstructured<'_>, depth: u8) -> Value {
    match u.int_in_range(0..=12).unwrap_or(0) {
        0 => Value::Null,
        1 => json!(u.arbitrary::<bool>().unwrap_or(false)),
        2 => json!(u.arbitrary::<i64>().unwrap_or(0)),
        3 => json!(u.int_in_range(0..=5).unwrap_or(1)),
        4 => json!(u.arbitrary::<f64>().unwrap_or(0.5)),
        5 => json!(
            [
                "a.txt",
                "src",
                "src/lib.rs",
                "../x",
                "~",
                "@a.txt",
                "",
                "*.rs",
                "[z-a]",
                "{a,b",
                "1:3c8",
                "2:589",
                "10K",
                "1d",
                "2024-01-02",
                "-1",
                "4294967296",
                "new/f.txt",
                "crlf.txt",
                "\u{0}"
            ][u.int_in_range(0..=19).unwrap_or(0)]
        ),
        6 => json!(u.arbitrary::<String>().unwrap_or_default()),
        7 if depth > 0 => Value::Array((0..u.int_in_range(0..=3).unwrap_or(0)).map(|_| value(u, depth - 1)).collect()),
        8 if depth > 0 => edit_item(u),
        9 if depth > 0 => json!([edit_item(u), edit_item(u)]),
        10 if depth > 0 => json!([{"path": value(u, depth - 1), "edits": [edit_item(u)]}]),
        11 if depth > 0 => {
            let mut object = Map::new();
            for _ in 0..u.int_in_range(0..=3).unwrap_or(0) {
                object.insert(u.arbitrary::<String>().unwrap_or_default(), value(u, depth - 1));
            }
            Value::Object(object)
        }
        _ => json!("x"),
    }
}

fn edit_item(u: &mut Unstructured<'_>) -> Value {
    let anchor = || ["1:3c8", "2:589", "1:000", "3c8", "99:d05", "x"];
    let pick = |u: &mut Unstructured<'_>| json!(anchor()[u.int_in_range(0..=5).unwrap_or(0)]);
    let text = json!(["", "\n", "X", "1:3c8|alpha", "+Y\nZ"][u.int_in_range(0..=4).unwrap_or(0)]);
    match u.int_in_range(0..=6).unwrap_or(0) {
        0 => json!({"set_line": {"anchor": pick(u), "new_text": text}}),
        1 => json!({"replace_lines": {"start_anchor": pick(u), "end_anchor": pick(u), "new_text": text}}),
        2 => {
            json!({"insert_after": {"anchor": pick(u), "new_text": text, "literal": u.arbitrary::<bool>().unwrap_or(false)}})
        }
        3 => json!({"replace": {"old_text": "alpha", "new_text": text, "all": u.arbitrary::<bool>().unwrap_or(false)}}),
        4 => json!({"move_lines": {"start_anchor": pick(u), "end_anchor": pick(u), "after_anchor": pick(u)}}),
        5 => {
            json!({"copy_lines": {"start_anchor": pick(u), "end_anchor": pick(u), "after_anchor": pick(u), "from_path": "a.txt"}})
        }
        _ => json!({"set_line": {"anchor": pick(u)}, "replace": {}}),
    }
}
