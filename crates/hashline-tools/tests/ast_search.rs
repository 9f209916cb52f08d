//! `ast_search` on a real file system: the text format, merged ranges, the budget, every
//! error code, and anchors that `edit` accepts.

mod common;

use common::{Workspace as Ws, code};
use hashline_tools::ToolResult;
use hashline_tools::ast_search::AstSearchTool;
use hashline_tools::edit::EditTool;
use insta::assert_snapshot;
use serde_json::{Value, json};

fn search(ws: &Ws, args: Value) -> ToolResult {
    ws.call::<AstSearchTool>(args)
}

fn text(ws: &Ws, args: Value) -> String {
    ws.redact(&search(ws, args).text())
}

fn sample() -> Ws {
    let ws = Ws::new();
    ws.file(
        "src/lib.rs",
        "fn parse(s: &str) -> u32 {\n    s.parse().unwrap()\n}\n\nfn twice(a: Option<u32>) -> u32 {\n    let x = a.unwrap();\n    let y = a\n        .unwrap();\n    x + y\n}\n",
    );
    ws.file("web/app.tsx", "const App = () => <div>{console.log(1)}</div>;\nconsole.log(2);\n");
    ws.file("web/util.ts", "export function f() {\n  console.log(3);\n}\n");
    ws.file("notes.md", "x.unwrap()\n");
    ws
}

#[test]
fn matches_merge_and_carry_anchors() {
    let ws = sample();
    let result = search(&ws, json!({"pattern": "$X.unwrap()", "lang": "rust"}));
    assert_snapshot!(ws.redact(&result.text()), @"
    --- src/lib.rs (snapshot: ss1xrta2z) ---
    >>2:635|    s.parse().unwrap()
    >>6:217|    let x = a.unwrap();
    >>7:1e3|    let y = a
    >>8:520|        .unwrap();
    ");
    let value = result.ptc_value();
    assert_eq!(value["totalMatches"], 3);
    assert_eq!(
        value["files"][0]["ranges"],
        json!([{"startLine": 2, "endLine": 2, "totalLines": 10}, {"startLine": 6, "endLine": 8, "totalLines": 10}])
    );
    insta::assert_snapshot!("ast_json", ws.json(&result));
}

#[test]
fn language_is_inferred_and_typescript_covers_tsx() {
    let ws = sample();
    assert_snapshot!(text(&ws, json!({"pattern": "console.log($A)"})), @"
    --- web/app.tsx (snapshot: s2w8knxjx) ---
    >>1:37c|const App = () => <div>{console.log(1)}</div>;
    >>2:391|console.log(2);
    --- web/util.ts (snapshot: sazqtqhh8) ---
    >>2:9ab|  console.log(3);
    ");
    assert_snapshot!(text(&ws, json!({"pattern": "console.log($A)", "lang": "typescript", "limit": 2})), @"
    --- web/app.tsx (snapshot: s2w8knxjx) ---
    >>1:37c|const App = () => <div>{console.log(1)}</div>;
    >>2:391|console.log(2);

    [Results truncated: showing 2 of 3 matches (1 omitted). Narrow path/pattern or increase limit.]
    ");
    assert_snapshot!(text(&ws, json!({"pattern": "console.log($A)", "glob": "*.ts"})), @"
    --- web/util.ts (snapshot: sazqtqhh8) ---
    >>2:9ab|  console.log(3);
    ");
    assert_snapshot!(text(&ws, json!({"pattern": "fn nothing_like_this() {}", "lang": "rust"})), @"No matches found for pattern: fn nothing_like_this() {}");
}

#[test]
fn an_oversized_block_is_omitted_with_guidance() {
    let ws = Ws::new();
    let body: String = (0..3000).map(|n| format!("    let v{n} = {n};\n")).collect();
    ws.file("big.rs", format!("fn huge() {{\n{body}}}\n\n\nfn small() {{ a.unwrap(); }}\n"));
    let result = search(&ws, json!({"pattern": "fn $NAME() { $$$BODY }", "lang": "rust"}));
    assert_snapshot!(ws.redact(&result.text()), @"
    --- big.rs (snapshot: sfhvrn9ae) ---
    >>3005:218|fn small() { a.unwrap(); }

    [Output truncated: showing 1 of 2 complete blocks (2 of 3004 lines, 75B of 93.5KB). Narrow path/pattern or lower limit.]
    ");
    assert_eq!(result.ptc_value()["omittedBlocks"], 1);
    assert_eq!(result.ptc_value()["files"][0]["ranges"].as_array().map(Vec::len), Some(2));
}

#[test]
fn every_error_code() {
    let ws = sample();
    let cases = [
        (json!({"pattern": ""}), "invalid-pattern"),
        (json!({"pattern": "$$$A", "lang": "rust"}), "invalid-pattern"),
        (json!({"pattern": "fn (", "lang": "rust"}), "pattern-parse-error"),
        (json!({"pattern": "x", "lang": "cobol"}), "unsupported-language"),
        (json!({"pattern": "x", "path": "notes.md"}), "unsupported-language"),
        (json!({"pattern": "x", "path": "missing"}), "path-not-found"),
        (json!({"pattern": "x", "limit": 0}), "invalid-limit"),
        (json!({"pattern": "x", "path": "/"}), "path-outside-root"),
        (json!({"pattern": "x", "lang": "rust", "glob": "a["}), "invalid-pattern"),
    ];
    for (args, expected) in cases {
        assert_eq!(code(&search(&ws, args.clone())), expected, "{args}");
    }
    assert_snapshot!(search(&ws, json!({"pattern": "fn (", "lang": "rust"})).text(), @r#"
    Invalid pattern "fn (": the pattern has syntax errors as Rust
    Write the pattern as code of the language (one expression, statement or item), with $NAME and $$$NAME metavariables, and set lang.
    "#);
    // The list is the registry's (one row per language), in table order.
    let names = hashline_syntax::LanguageId::name_list();
    assert!(names.starts_with("rust, c, cpp, python, javascript, typescript, tsx, java, go, "), "{names}");
    assert_eq!(
        search(&ws, json!({"pattern": "x", "lang": "cobol"})).text(),
        format!("Unsupported language \"cobol\". Supported: {names}.")
    );
}

/// The rows count as served: an edit of a CRLF+BOM file lands without a read.
#[test]
fn anchors_edit_without_a_read() {
    let ws = Ws::new();
    ws.file("a.rs", b"\xEF\xBB\xBFfn a() {\r\n    b.unwrap();\r\n}\r\n");
    let result = search(&ws, json!({"pattern": "$X.unwrap()", "lang": "rust"}));
    let anchor = result.ptc_value()["files"][0]["lines"][0]["anchor"].as_str().expect("anchor").to_owned();
    assert_eq!(anchor, "2:e43");
    let edited = ws.call::<EditTool>(
        json!({"path": "a.rs", "edits": [{"set_line": {"anchor": anchor, "new_text": "    b.expect(\"b\");"}}]}),
    );
    assert!(!edited.is_error, "{}", edited.text());
    assert_eq!(std::fs::read(ws.path("a.rs")).expect("read"), b"\xEF\xBB\xBFfn a() {\r\n    b.expect(\"b\");\r\n}\r\n");
}

#[test]
fn a_line_between_merged_matches_is_a_context_row() {
    let ws = Ws::new();
    ws.file("m.py", "print(1)\nx = 2\nprint(3)\n\n\nprint(6)\n");
    let result = search(&ws, json!({"pattern": "print($A)"}));
    assert_snapshot!(ws.redact(&result.text()), @"
    --- m.py (snapshot: sdhksyzdb) ---
    >>1:408|print(1)
      2:019|x = 2
    >>3:5d5|print(3)
    >>6:c5a|print(6)
    ");
    assert_eq!(result.ptc_value()["files"][0]["lines"].as_array().map(Vec::len), Some(4));
}

/// A pattern nested 30,000 deep (issue 20) used to overflow the stack and abort the process;
/// it is refused, in every language and without `lang`, and one just under the bound works.
#[test]
fn a_pattern_nested_too_deep_is_refused() {
    let ws = Ws::new();
    ws.file("a.js", "let a = ((x));\nlet b = [[[y]]];\n");
    let parens = "(".repeat(30_000) + "x" + &")".repeat(30_000);
    let brackets = "[".repeat(30_000) + "]".repeat(30_000).as_str();
    let chain = "a".to_owned() + &".b".repeat(30_000);
    for pattern in [&parens, &brackets, &chain] {
        for lang in [Some("js"), Some("rust"), Some("python"), None] {
            let mut args = json!({"pattern": pattern});
            if let Some(lang) = lang {
                args["lang"] = json!(lang);
            }
            let result = search(&ws, args);
            assert_eq!(
                code(&result),
                "invalid-pattern",
                "{lang:?}: {}",
                &result.text()[..200.min(result.text().len())]
            );
        }
    }
    let result = search(&ws, json!({"pattern": parens, "lang": "js"}));
    assert_snapshot!(result.text().replace(&"(".repeat(200), "<200 x (>"), @r#"
    Invalid pattern "<200 x (>…": the pattern nests more than 256 levels deep as JavaScript
    Write the pattern as code of the language (one expression, statement or item), with $NAME and $$$NAME metavariables, and set lang.
    "#);
    let shallow = "(".repeat(200) + "x" + &")".repeat(200);
    assert!(!search(&ws, json!({"pattern": shallow, "lang": "js"})).is_error);
}
/// A pattern that repeats a metavariable compares subtrees recursively: a file nesting
/// deeper than the bound is not searched (and reported), and the search survives.
#[test]
fn a_repeated_metavariable_skips_a_file_nested_too_deep() {
    let ws = Ws::new();
    let deep = "(".repeat(20_000) + "x" + &")".repeat(20_000);
    ws.file("deep.js", format!("let v = {deep} + {deep};\n"));
    ws.file("flat.js", "let w = y + y;\n");
    let result = search(&ws, json!({"pattern": "$A + $A", "lang": "js"}));
    assert!(!result.is_error, "{}", result.text());
    let value = result.ptc_value();
    assert_eq!(value["totalMatches"], 1);
    assert_eq!(value["completeness"]["tooDeepFiles"], 1);
    assert_eq!(value["completeness"]["search"], "partial");
}

/// A file over the size bound is not read, and the result says so (issue 20: a 40 MB file
/// took 9.8 GB and 95 s).
#[test]
fn a_file_over_the_size_bound_is_reported_not_searched() {
    let ws = Ws::new();
    let line = "console.log(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20);\n";
    ws.file("big.js", line.repeat(4 * 1024 * 1024 / line.len() + 1));
    ws.file("small.js", "console.log(1);\n");
    let result = search(&ws, json!({"pattern": "console.log($$$A)"}));
    assert!(!result.is_error, "{}", result.text());
    assert_snapshot!(ws.redact(&result.text()), @"
    --- small.js (snapshot: sms70b8xd) ---
    >>1:545|console.log(1);

    [Not searched: 1 file over the 4 MiB ast_search limit (big.js). Use grep on them.]
    ");
    let value = result.ptc_value();
    assert_eq!(value["totalMatches"], 1);
    assert_eq!(value["completeness"]["search"], "partial");
    assert_eq!(value["completeness"]["tooLargeFiles"], 1);
    assert_eq!(value["completeness"]["notSearched"][0]["reason"], "too-large");
    let alone = search(&ws, json!({"pattern": "console.log($$$A)", "path": "big.js"}));
    assert_eq!(alone.ptc_value()["completeness"]["tooLargeFiles"], 1);
    let small = search(&ws, json!({"pattern": "console.log($$$A)", "path": "small.js"}));
    assert_eq!(
        small.ptc_value()["completeness"],
        json!({"search": "complete", "tooLargeFiles": 0, "timedOutFiles": 0, "tooDeepFiles": 0, "notSearched": []})
    );
}

/// A wide pattern (many distinct words, shallow) is answered promptly: a pattern over the
/// size bound is refused, and one under it with 20,000 distinct words neither stalls on
/// its words nor scans each file once per word.
#[test]
fn a_wide_pattern_is_answered_promptly() {
    let ws = Ws::new();
    ws.file("a.js", "let a = f(1);\n".repeat(2000));
    let started = std::time::Instant::now();
    let huge = "f(".to_owned() + &(0..60_000).map(|i| format!("w{i}")).collect::<Vec<_>>().join(", ") + ")";
    let result = search(&ws, json!({"pattern": huge}));
    assert_eq!(code(&result), "invalid-pattern", "{}", &result.text()[..200.min(result.text().len())]);
    assert!(
        result.text().contains("more than the 262144-byte limit"),
        "{}",
        &result.text()[..300.min(result.text().len())]
    );
    let wide = "f(".to_owned() + &(0..20_000).map(|i| format!("w{i}")).collect::<Vec<_>>().join(", ") + ")";
    let result = search(&ws, json!({"pattern": wide, "lang": "js"}));
    assert!(!result.is_error, "{}", &result.text()[..200.min(result.text().len())]);
    assert!(started.elapsed() < std::time::Duration::from_secs(60), "took {:?}", started.elapsed());
}
