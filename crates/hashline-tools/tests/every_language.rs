//! Issue 10's acceptance over the realistic file of each of the 8 tree-sitter languages
//! (`hashline-symbols/tests/data`): `replace_symbol`, `insert_before_symbol` and
//! `insert_after_symbol` give byte-exact files (the changed region by snapshot, every other
//! byte compared with the original), and a deliberately broken edit is warned in `warn` mode
//! and refused in `block` mode naming only its own line — also when the file already had an
//! error elsewhere, which is never blamed on the edit.

mod common;

use std::sync::Arc;

use common::{Workspace, code};
use hashline_core::{Document, LineHash, LineNo};
use hashline_syntax::{Census, IssueKind, LanguageId, LineSpan, ParseLimits, SyntaxIssue, census, parse_document};
use hashline_tools::edit::EditTool;
use hashline_tools::map_store::{ContentKey, MapStore};
use hashline_tools::read::ReadTool;
use hashline_tools::{Session, SessionConfig};
use insta::assert_snapshot;
use serde_json::{Value, json};

/// One language's cases.
struct Case {
    file: &'static str,
    source: &'static str,
    /// `replace_symbol`: (selector, new body).
    replace: (&'static str, &'static str),
    /// `insert_before_symbol`: (selector, new text).
    before: (&'static str, &'static str),
    /// `insert_after_symbol`: (selector, new text).
    after: (&'static str, &'static str),
    /// A line inside a function body, where appending ` )))` is a syntax error.
    body_line: usize,
}

macro_rules! data {
    ($file:literal) => {
        include_str!(concat!("../../hashline-symbols/tests/data/", $file))
    };
}

const CASES: &[Case] = &[
    Case {
        file: "accounts.rs",
        source: data!("accounts.rs"),
        replace: (
            "Balances.of",
            "pub fn of(&self, key: &K) -> Cents {\n    self.by_key.get(key).copied().unwrap_or_default()\n}",
        ),
        before: (
            "Balances.add",
            "/// Whether nothing was posted.\npub fn is_empty(&self) -> bool {\n    self.by_key.is_empty()\n}",
        ),
        after: ("Postable.memo", "/// A short tag.\nfn tag(&self) -> &'static str {\n    \"\"\n}"),
        body_line: 120,
    },
    Case {
        file: "scheduler.py",
        source: data!("scheduler.py"),
        replace: (
            "RetryPolicy.delay",
            "def delay(self, attempt: int) -> float:\n    \"\"\"The wait before retry `attempt`.\"\"\"\n    return self.backoff * self.multiplier ** attempt",
        ),
        before: ("RetryPolicy.never", "def always(self) -> bool:\n    return True"),
        after: ("RetryPolicy.delay", "def total(self) -> float:\n    return self.backoff * self.attempts"),
        body_line: 76,
    },
    Case {
        file: "cart.ts",
        source: data!("cart.ts"),
        replace: (
            "PercentOff.saving",
            "saving(items: readonly LineItem[]): number {\n  const total = items.reduce((sum, i) => sum + i.quantity * i.unitPrice.amount, 0);\n  return Math.floor((total * this.percent) / 100);\n}",
        ),
        before: ("PercentOff.constructor", "static readonly kind = \"percent\";"),
        after: ("Discount.stacks", "/** A short description. */\ndescribe(): string {\n  return this.label;\n}"),
        body_line: 94,
    },
    Case {
        file: "board.jsx",
        source: data!("board.jsx"),
        replace: ("FilterStore.hiddenCount", "get hiddenCount() {\n  return this.#hidden.size || 0;\n}"),
        before: ("FilterStore.#reset", "clearText() {\n  this.text = \"\";\n}"),
        after: ("FilterStore.toggle", "show(label) {\n  this.#hidden.delete(label);\n}"),
        body_line: 157,
    },
    Case {
        file: "cache.go",
        source: data!("cache.go"),
        replace: (
            "Cache.Stats",
            "// Stats returns a copy of the counters.\nfunc (c *Cache[K, V]) Stats() Stats {\n\tc.mu.Lock()\n\ts := c.stats\n\tc.mu.Unlock()\n\treturn s\n}",
        ),
        before: ("Cache.expired", "func (c *Cache[K, V]) Len() int {\n\treturn len(c.items)\n}"),
        after: (
            "Cache.Close",
            "// Closed tells whether Close was called.\nfunc (c *Cache[K, V]) Closed() bool {\n\treturn c.closed\n}",
        ),
        body_line: 230,
    },
    Case {
        file: "EventBus.java",
        source: data!("EventBus.java"),
        replace: ("label@64", "public String label() {\n    return label.trim();\n}"),
        before: (
            "DeadEventHandler.ignoring",
            "/** A handler that prints dead events. */\nstatic DeadEventHandler printing() {\n    return System.out::println;\n}",
        ),
        after: ("Subscription.compareTo", "@Override\npublic String toString() {\n    return \"subscription\";\n}"),
        body_line: 66,
    },
    Case {
        file: "matrix.hpp",
        source: data!("matrix.hpp"),
        replace: (
            "Matrix.row",
            "RowView row(index_t r) const {\n    LINALG_CHECK(r < shape_.rows, \"row out of range\");\n    return RowView(&data_[r * shape_.cols], shape_.cols);\n}",
        ),
        before: (
            "Matrix.operator+=",
            "Matrix& operator-=(const Matrix& other) {\n    *this = combine(*this, other, Op::Sub);\n    return *this;\n}",
        ),
        after: ("Matrix.row", "/// The number of rows.\nindex_t rows() const noexcept { return shape_.rows; }"),
        body_line: 100,
    },
    Case {
        file: "arena.c",
        source: data!("arena.c"),
        replace: (
            "arena_strerror",
            "const char *arena_strerror(const struct arena *a) {\n    return a ? error_names[a->last_error] : \"no arena\";\n}",
        ),
        before: (
            "arena_set_hook",
            "/** Removes the hook. */\nvoid arena_clear_hook(void) {\n    current_hook = NULL;\n}",
        ),
        after: (
            "arena_alloc",
            "void *arena_alloc_zeroed(struct arena *a, size_t size) {\n    void *p = arena_alloc(a, size);\n    return p ? memset(p, 0, size) : NULL;\n}",
        ),
        body_line: 184,
    },
];

/// The lines of `text`, each with its terminator.
fn lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

/// A fresh workspace holding `source` as `file`, read once (so edits are allowed).
fn workspace(file: &str, source: &str) -> Workspace {
    let ws = Workspace::new();
    ws.file(file, source);
    let read = ws.call::<ReadTool>(json!({"path": file, "offset": 1, "limit": 2000}));
    assert!(!read.is_error, "{}", read.text());
    ws
}

/// The symbol's (start, end) lines as `read` finds it.
fn symbol_lines(ws: &Workspace, file: &str, selector: &str) -> (usize, usize) {
    let result = ws.call::<ReadTool>(json!({"path": file, "symbol": selector}));
    let value = result.ptc_value();
    let symbol = &value["symbol"];
    assert!(symbol.is_object(), "{file} {selector}: {value}");
    (symbol["startLine"].as_u64().unwrap() as usize, symbol["endLine"].as_u64().unwrap() as usize)
}

/// Applies one symbol edit; returns the new content, after checking it is clean and checked.
fn symbol_edit(ws: &Workspace, case: &Case, item: Value) -> String {
    let result = ws.call::<EditTool>(json!({"path": case.file, "edits": [item]}));
    assert!(!result.is_error, "{}: {}", case.file, result.text());
    let value = result.ptc_value();
    assert_eq!(value["syntax"]["checked"], true, "{}: {}", case.file, result.text());
    assert_eq!(value["syntax"]["newProblems"], json!([]), "{}: {}", case.file, result.text());
    std::fs::read_to_string(ws.path(case.file)).expect("read back")
}

/// The new file's lines `from..=to` (1-based, clipped), numbered, for a snapshot.
fn region(new: &str, from: usize, to: usize) -> String {
    let new = lines(new);
    let (from, to) = (from.max(1), to.min(new.len()));
    (from..=to).map(|n| format!("{n:>4}|{}", new[n - 1])).collect()
}

#[test]
fn symbol_edits_are_byte_exact_in_every_language() {
    for case in CASES {
        let old = lines(case.source);
        let mut report = String::new();

        // replace_symbol: everything before the symbol's first line and after its last kept.
        let ws = workspace(case.file, case.source);
        let (start, end) = symbol_lines(&ws, case.file, case.replace.0);
        let new =
            symbol_edit(&ws, case, json!({"replace_symbol": {"symbol": case.replace.0, "new_body": case.replace.1}}));
        let new_lines = lines(&new);
        let grown = new_lines.len() + end - old.len();
        assert_eq!(new_lines[..start - 1], old[..start - 1], "{}: replace head", case.file);
        assert_eq!(new_lines[grown..], old[end..], "{}: replace tail", case.file);
        report += &format!("replace_symbol {} (lines {start}-{end}):\n", case.replace.0);
        report += &region(&new, start - 1, grown + 1);

        // insert_before_symbol: the old lines all kept, the new text before the symbol's first.
        let ws = workspace(case.file, case.source);
        let (start, _) = symbol_lines(&ws, case.file, case.before.0);
        let new = symbol_edit(
            &ws,
            case,
            json!({"insert_before_symbol": {"symbol": case.before.0, "new_text": case.before.1}}),
        );
        let new_lines = lines(&new);
        let added = new_lines.len() - old.len();
        assert_eq!(new_lines[..start - 1], old[..start - 1], "{}: before head", case.file);
        assert_eq!(new_lines[start - 1 + added..], old[start - 1..], "{}: before tail", case.file);
        report += &format!("\ninsert_before_symbol {} (line {start}):\n", case.before.0);
        report += &region(&new, start - 1, start + added);

        // insert_after_symbol: the old lines all kept, the new text after the symbol's last.
        let ws = workspace(case.file, case.source);
        let (_, end) = symbol_lines(&ws, case.file, case.after.0);
        let new =
            symbol_edit(&ws, case, json!({"insert_after_symbol": {"symbol": case.after.0, "new_text": case.after.1}}));
        let new_lines = lines(&new);
        let added = new_lines.len() - old.len();
        assert_eq!(new_lines[..end], old[..end], "{}: after head", case.file);
        assert_eq!(new_lines[end + added..], old[end..], "{}: after tail", case.file);
        report += &format!("\ninsert_after_symbol {} (line {end}):\n", case.after.0);
        report += &region(&new, end, end + added + 1);

        insta::with_settings!({snapshot_suffix => case.file}, {
            assert_snapshot!("symbol_edits", report);
        });
    }
}

/// A `set_line` of `line` appending ` )))` to it.
fn break_line(source: &str, line: usize) -> Value {
    let old = lines(source)[line - 1].trim_end_matches(['\n', '\r']);
    json!({"set_line": {"anchor": format!("{line}:{}", LineHash::of(old.as_bytes())), "new_text": format!("{old} )))")}})
}

/// The (start, end) lines of a result's new syntax problems.
fn new_problems(result: &hashline_tools::ToolResult) -> Vec<(u64, u64)> {
    let problems = result.ptc_value()["syntax"]["newProblems"].as_array().cloned().unwrap_or_default();
    problems.iter().map(|p| (p["startLine"].as_u64().unwrap(), p["endLine"].as_u64().unwrap())).collect()
}

#[test]
fn a_broken_edit_is_warned_or_blocked_naming_its_own_line_in_every_language() {
    for case in CASES {
        let line = case.body_line as u64;
        // warn (the default): written, one warning naming the line.
        let ws = workspace(case.file, case.source);
        let result =
            ws.call::<EditTool>(json!({"path": case.file, "edits": [break_line(case.source, case.body_line)]}));
        assert!(!result.is_error, "{}: {}", case.file, result.text());
        assert_eq!(new_problems(&result), vec![(line, line)], "{}: {}", case.file, result.text());
        let warnings = result.ptc_value()["warnings"].as_array().cloned().unwrap_or_default();
        assert!(warnings.iter().any(|w| w["code"] == "syntax-regression"), "{}: {warnings:?}", case.file);
        assert!(
            result.text().contains(&format!("syntax-regression: lines {line} ")),
            "{}: {}",
            case.file,
            result.text()
        );
        assert!(std::fs::read_to_string(ws.path(case.file)).unwrap().contains(" )))"), "{}", case.file);

        // block: refused, nothing written.
        let ws = workspace(case.file, case.source);
        let result = ws.call::<EditTool>(
            json!({"path": case.file, "syntaxValidate": "block", "edits": [break_line(case.source, case.body_line)]}),
        );
        assert_eq!(code(&result), "syntax-regression", "{}", case.file);
        assert!(
            result.text().contains(&format!("syntax-regression: lines {line} ")),
            "{}: {}",
            case.file,
            result.text()
        );
        assert_eq!(std::fs::read_to_string(ws.path(case.file)).unwrap(), case.source, "{}", case.file);
    }
}

#[test]
fn an_error_the_file_already_had_is_never_blamed_in_every_language() {
    for case in CASES {
        // The file ends with a stray line that is a syntax error in every one of the languages.
        let broken = format!("{})))\n", case.source);
        let last = lines(&broken).len() as u64;
        // A clean symbol edit: checked, nothing new, even in block mode.
        let ws = workspace(case.file, &broken);
        let result = ws.call::<EditTool>(json!({
            "path": case.file,
            "syntaxValidate": "block",
            "edits": [{"replace_symbol": {"symbol": case.replace.0, "new_body": case.replace.1}}],
        }));
        assert!(!result.is_error, "{}: {}", case.file, result.text());
        assert_eq!(result.ptc_value()["syntax"]["checked"], true, "{}", case.file);
        assert_eq!(new_problems(&result), vec![], "{}: {}", case.file, result.text());
        // A broken edit in that file: only its own line is named, never the old error's.
        let ws = workspace(case.file, &broken);
        let line = case.body_line as u64;
        let result = ws.call::<EditTool>(json!({"path": case.file, "edits": [break_line(&broken, case.body_line)]}));
        assert!(!result.is_error, "{}: {}", case.file, result.text());
        let problems = new_problems(&result);
        assert_eq!(problems, vec![(line, line)], "{}: {}", case.file, result.text());
        assert!(problems.iter().all(|&(s, e)| s != last && e != last), "{}", case.file);
    }
}

// The CLI's census store (issue 12): an edit whose old content has a stored census takes it
// instead of parsing the old file, and its result is byte for byte the two-parse one.

/// A workspace whose session keeps censuses and maps in `store` (as the CLI does).
fn stored_workspace(file: &str, source: &str, store: &Arc<MapStore>) -> Workspace {
    let dir = tempfile::tempdir().expect("tempdir");
    // As the CLI's session: its read keeps no tree, so the store's census is what an edit
    // takes for the old file.
    let mut config = SessionConfig::builder().root(dir.path()).parse_on_read(false).build();
    config.map_store = Some(Arc::clone(store));
    let ws = Workspace { session: Session::new(config).expect("session"), dir };
    ws.file(file, source);
    let read = ws.call::<ReadTool>(json!({"path": file, "offset": 1, "limit": 2000}));
    assert!(!read.is_error, "{}", read.text());
    ws
}

/// The census of a fresh parse of `text` as the language of `file`.
fn fresh_census(file: &str, text: &str) -> Census {
    let doc = Document::parse(text.as_bytes().to_vec());
    let lang = LanguageId::from_path(file).expect("a language");
    let parsed = parse_document(lang, &doc, ParseLimits::DEFAULT).expect("parses");
    census(&parsed.tree, &doc, parsed.text_start)
}

/// The result as the model and a client see it (text, JSON, and the file afterwards),
/// with the workspace's path redacted.
fn seen(ws: &Workspace, file: &str, result: &hashline_tools::ToolResult) -> (String, String, String) {
    (ws.redact(&result.text()), ws.json(result), std::fs::read_to_string(ws.path(file)).expect("read back"))
}

/// Every edit of the comparison: a broken `set_line` and a clean symbol edit, each in
/// `warn` and `block` mode.
fn comparison_edits(case: &Case, source: &str) -> Vec<Value> {
    let broken = break_line(source, case.body_line);
    let clean = json!({"replace_symbol": {"symbol": case.replace.0, "new_body": case.replace.1}});
    let mut edits = Vec::new();
    for item in [broken, clean] {
        for mode in ["warn", "block"] {
            edits.push(json!({"path": case.file, "syntaxValidate": mode, "edits": [item.clone()]}));
        }
    }
    edits
}

#[test]
fn a_stored_census_gives_the_two_parse_result_in_every_language() {
    let mut compared = 0;
    for case in CASES {
        // The realistic file, and the same file with an error it already had at its end.
        let already_broken = format!("{})))\n", case.source);
        for source in [case.source, already_broken.as_str()] {
            for args in comparison_edits(case, source) {
                let what = format!("{} {}", case.file, args["edits"]);
                // Two parses: a session without a store (the in-process path of today).
                let plain = workspace(case.file, source);
                let two_parses = plain.call::<EditTool>(args.clone());
                // The census of the old bytes stored beforehand: the old file is not parsed.
                let state = tempfile::tempdir().expect("tempdir");
                let store = Arc::new(MapStore::new(state.path().join("maps"), 1));
                let ws = stored_workspace(case.file, source, &store);
                let key = std::fs::canonicalize(ws.path(case.file)).expect("real path");
                let old = ContentKey::of(source.as_bytes());
                store.store_census(&key, case.file, old, &fresh_census(case.file, source)).expect("stored");
                // And its map, as a full read would have left it: the edit keeps the map current.
                let old_map = hashline_symbols::map_document(case.file, &Document::parse(source.as_bytes().to_vec()));
                store.store(&key, case.file, old, &old_map.unwrap().unwrap()).expect("stored");
                let one_parse = ws.call::<EditTool>(args.clone());
                assert_eq!(seen(&ws, case.file, &one_parse), seen(&plain, case.file, &two_parses), "{what}");
                // And with an empty store (the CLI's first edit: two parses, both censuses
                // stored): the same result again.
                let state = tempfile::tempdir().expect("tempdir");
                let empty = Arc::new(MapStore::new(state.path().join("maps"), 1));
                let cold = stored_workspace(case.file, source, &empty);
                let first = cold.call::<EditTool>(args.clone());
                assert_eq!(seen(&cold, case.file, &first), seen(&plain, case.file, &two_parses), "{what}");
                let key = std::fs::canonicalize(cold.path(case.file)).expect("real path");
                assert_eq!(empty.load_census(&key, case.file, old), Some(fresh_census(case.file, source)), "{what}");
                // What the file holds now has its census (and map) stored as a fresh parse
                // would make them, for the next edit and the next read.
                let now = std::fs::read_to_string(cold.path(case.file)).expect("read back");
                let content = ContentKey::of(now.as_bytes());
                assert_eq!(empty.load_census(&key, case.file, content), Some(fresh_census(case.file, &now)), "{what}");
                let after = std::fs::read_to_string(ws.path(case.file)).expect("read back");
                let ws_key = std::fs::canonicalize(ws.path(case.file)).expect("real path");
                let content = ContentKey::of(after.as_bytes());
                assert_eq!(store.load_census(&ws_key, case.file, content), Some(fresh_census(case.file, &after)));
                if !one_parse.is_error {
                    let map = hashline_symbols::map_document(case.file, &Document::parse(after.clone().into_bytes()));
                    assert_eq!(store.load(&ws_key, case.file, content), Some(map.unwrap().unwrap()), "{what}");
                }
                compared += 1;
            }
        }
    }
    assert_eq!(compared, CASES.len() * 2 * 4);
}

#[test]
fn a_stored_census_is_used_for_its_own_bytes_only() {
    for case in CASES {
        let line = case.body_line;
        let edit = json!({"path": case.file, "edits": [break_line(case.source, line)]});
        // A planted census claiming an error around the edited line (the lines before and
        // after it are kept): taken for the old file, it excuses the edit's new error there.
        let mut planted = fresh_census(case.file, case.source);
        let around = |n: usize| LineNo::new(n as u32).expect("a line");
        planted.issues.push(SyntaxIssue {
            kind: IssueKind::Error,
            lines: LineSpan { start: around(line - 1), end: around(line + 1) },
            bytes: 0..1,
            missing: None,
        });
        let state = tempfile::tempdir().expect("tempdir");
        let store = Arc::new(MapStore::new(state.path().join("maps"), 1));
        let ws = stored_workspace(case.file, case.source, &store);
        let key = std::fs::canonicalize(ws.path(case.file)).expect("real path");
        store.store_census(&key, case.file, ContentKey::of(case.source.as_bytes()), &planted).expect("stored");
        let result = ws.call::<EditTool>(edit.clone());
        assert_eq!(new_problems(&result), vec![], "{}: the stored census was used: {}", case.file, result.text());

        // The same census stored for other bytes of the same size (one byte changed): not
        // used, the old file is parsed and the edit's error is reported.
        let mut other = case.source.as_bytes().to_vec();
        let last = other.len() - 2;
        other[last] = if other[last] == b' ' { b'\t' } else { b' ' };
        let state = tempfile::tempdir().expect("tempdir");
        let store = Arc::new(MapStore::new(state.path().join("maps"), 1));
        let ws = stored_workspace(case.file, case.source, &store);
        let key = std::fs::canonicalize(ws.path(case.file)).expect("real path");
        store.store_census(&key, case.file, ContentKey::of(&other), &planted).expect("stored");
        let result = ws.call::<EditTool>(edit);
        let n = line as u64;
        assert_eq!(new_problems(&result), vec![(n, n)], "{}: {}", case.file, result.text());
    }
}
