//! Presenters and meta narrowing are total: mutated and random JSON never makes them panic,
//! and whatever they accept is well-formed.

use hashline_view::{
    ContentBlock, ToolCallView, ToolResultRecord, ToolResultView, diffs_from_meta, matches_from_meta, paths_from_meta,
    present_call, present_result, read_meta_from_meta,
};
use serde_json::{Value, json};

const TOOLS: [&str; 8] = ["read", "write", "edit", "ls", "find", "grep", "ast_search", "bash"];

/// Values that break type expectations: nulls, booleans, edge numbers, odd strings, nesting.
fn junk() -> Vec<Value> {
    let mut deep = json!("bottom");
    for _ in 0..200 {
        deep = json!([deep]);
    }
    vec![
        json!(null),
        json!(true),
        json!(0),
        json!(-1),
        json!(1.5),
        json!(2.0),
        json!(-0.0),
        json!(u64::MAX),
        json!(i64::MIN),
        json!(1e300),
        json!(""),
        json!("  "),
        json!("2"),
        json!("-2"),
        json!("\u{0}\u{202e}é"),
        json!("x".repeat(1_000)),
        json!([]),
        json!([null, 1, "a"]),
        json!({}),
        json!({"a": {"b": [1, {"c": null}]}}),
        deep,
    ]
}

/// Well-formed arguments of every tool: seeds the mutations start from.
fn arg_seeds() -> Vec<Value> {
    vec![
        json!({"path": "src/lib.rs", "offset": 5, "limit": "4"}),
        json!({"path": "data.txt", "content": "replaced"}),
        json!({"path": "a.rs", "oldText": "blue", "newText": "green", "edits": []}),
        json!({"files": [{"path": "a.rs", "edits": []}, {"path": "b.rs", "edits": []}]}),
        json!({"pattern": "fn main", "path": "src", "limit": 10}),
    ]
}

/// Well-formed metas of every tool: seeds the mutations start from.
fn meta_seeds() -> Vec<Value> {
    vec![
        json!({"path": "/w/a.rs", "offset": 2, "totalLines": 4, "lang": "rs",
               "lines": [{"number": 2, "text": "a", "hash": "3c8"}, {"number": 3, "text": "b"}]}),
        json!({"diffs": [{"path": "a", "oldText": null, "newText": "b", "oldStart": 0, "newStart": 1}]}),
        json!({"paths": ["src/", "a.rs"], "truncated": false, "total": 2}),
        json!({"files": [{"path": "a.rs", "matches": [{"lineNumber": 1, "line": "x"}]}],
               "truncated": true, "total": 9}),
    ]
}

/// Every variant of `value` with one node replaced by each junk value or, in objects, removed.
fn mutations(value: &Value) -> Vec<Value> {
    let mut out: Vec<Value> = junk();
    match value {
        Value::Object(object) => {
            for (key, child) in object {
                let mut removed = object.clone();
                removed.remove(key);
                out.push(Value::Object(removed));
                for replacement in mutations(child) {
                    let mut changed = object.clone();
                    changed.insert(key.clone(), replacement);
                    out.push(Value::Object(changed));
                }
            }
        }
        Value::Array(items) => {
            for (index, child) in items.iter().enumerate() {
                for replacement in mutations(child) {
                    let mut changed = items.clone();
                    changed[index] = replacement;
                    out.push(Value::Array(changed));
                }
            }
        }
        _ => {}
    }
    out
}

/// A small deterministic generator of arbitrary JSON (xorshift; no dependency needed).
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn pick<'a>(&mut self, items: &'a [&'a str]) -> &'a str {
        items[(self.next() % items.len() as u64) as usize]
    }

    fn value(&mut self, depth: u32) -> Value {
        const KEYS: &[&str] = &[
            "path",
            "offset",
            "limit",
            "lines",
            "number",
            "text",
            "hash",
            "totalLines",
            "lang",
            "diffs",
            "oldText",
            "newText",
            "oldStart",
            "newStart",
            "paths",
            "truncated",
            "total",
            "files",
            "matches",
            "lineNumber",
            "line",
            "pattern",
            "content",
            "edits",
        ];
        match (self.next() % if depth == 0 { 5 } else { 7 }, self.next()) {
            (0, _) => Value::Null,
            (1, n) => json!(n % 2 == 0),
            (2, n) => match n % 4 {
                0 => json!(n % 10),
                1 => json!(-((n % 10) as i64)),
                2 => json!((n % 1000) as f64 / 4.0),
                _ => json!(n),
            },
            (3, n) => json!(format!("{:x}", n % 5000)),
            (4, _) => json!(self.pick(KEYS)),
            (5, n) => Value::Array((0..n % 4).map(|_| self.value(depth - 1)).collect()),
            _ => {
                let size = self.next() % 6;
                let object = (0..size).map(|_| (self.pick(KEYS).to_owned(), self.value(depth - 1))).collect();
                Value::Object(object)
            }
        }
    }
}

fn record(content: Vec<ContentBlock>, is_error: bool, meta: Option<Value>) -> ToolResultRecord {
    ToolResultRecord { content, is_error, meta }
}

/// Runs every narrowing function on `meta` and checks that what they accept re-narrows to itself.
fn narrow_all(meta: &Value) {
    if let Some(read) = read_meta_from_meta(meta) {
        let json = serde_json::to_value(&read).expect("read meta serializes");
        assert_eq!(read_meta_from_meta(&json), Some(read));
    }
    if let Some(diffs) = diffs_from_meta(meta) {
        assert_eq!(diffs_from_meta(&json!({"diffs": diffs})), Some(diffs));
    }
    if let Some(paths) = paths_from_meta(meta) {
        let json = serde_json::to_value(&paths).expect("paths meta serializes");
        assert_eq!(paths_from_meta(&json), Some(paths));
    }
    if let Some(matches) = matches_from_meta(meta) {
        let json = serde_json::to_value(&matches).expect("matches meta serializes");
        assert_eq!(matches_from_meta(&json), Some(matches));
    }
}

/// Runs every presenter on `args` and `meta`; accepted views must round-trip through serde.
fn present_all(args: &Value, meta: &Value) {
    let mut results = Vec::new();
    for content in [vec![ContentBlock::text("1:3c8|a")], vec![]] {
        for is_error in [false, true] {
            results.push(record(content.clone(), is_error, Some(meta.clone())));
        }
    }
    for tool in TOOLS {
        if let Some(view) = present_call(tool, args) {
            let json = serde_json::to_value(&view).expect("call views serialize");
            assert_eq!(serde_json::from_value::<ToolCallView>(json).ok(), Some(view));
        }
        for result in &results {
            if let Some(view) = present_result(tool, args, result) {
                assert!(!result.is_error, "{tool} presented an error result");
                let json = serde_json::to_value(&view).expect("result views serialize");
                assert_eq!(serde_json::from_value::<ToolResultView>(json).ok(), Some(view));
            }
        }
    }
}

#[test]
fn mutated_arguments_and_metas_never_panic() {
    let (args, metas) = (arg_seeds(), meta_seeds());
    let mut count = 0;
    for seed in &args {
        for mutated in mutations(seed) {
            metas.iter().for_each(|meta| present_all(&mutated, meta));
            count += 1;
        }
    }
    for seed in &metas {
        for mutated in mutations(seed) {
            narrow_all(&mutated);
            args.iter().for_each(|args| present_all(args, &mutated));
            count += 1;
        }
    }
    assert!(count > 1000, "only {count} mutations");
}

#[test]
fn random_values_never_panic() {
    let mut random = Random(0x9e37_79b9_7f4a_7c15);
    let (args, metas) = (arg_seeds(), meta_seeds());
    for _ in 0..500 {
        let value = random.value(4);
        narrow_all(&value);
        present_all(&value, &value);
        metas.iter().for_each(|meta| present_all(&value, meta));
        args.iter().for_each(|args| present_all(args, &value));
    }
}
