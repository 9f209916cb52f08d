//! `replace_symbol`, `insert_before_symbol`, `insert_after_symbol`: byte-exact results in
//! every language, every byte outside the symbol kept, and the edges (docs, attributes,
//! decorators, nested classes, multi-line constants, no final newline).

mod common;

use common::{Workspace, code};
use hashline_tools::edit::EditTool;
use hashline_tools::read::ReadTool;
use insta::assert_snapshot;
use serde_json::{Value, json};

/// Writes `source`, reads it, applies `item`; returns the new content (or panics with the error).
fn apply(name: &str, source: &str, item: Value) -> (String, hashline_tools::ToolResult) {
    let ws = Workspace::new();
    ws.file(name, source);
    ws.call::<ReadTool>(json!({"path": name}));
    let result = ws.call::<EditTool>(json!({"path": name, "edits": [item]}));
    assert!(!result.is_error, "{}", result.text());
    (std::fs::read_to_string(ws.path(name)).expect("read back"), result)
}

fn replace(symbol: &str, body: &str) -> Value {
    json!({"replace_symbol": {"symbol": symbol, "new_body": body}})
}

fn before(symbol: &str, text: &str) -> Value {
    json!({"insert_before_symbol": {"symbol": symbol, "new_text": text}})
}

fn after(symbol: &str, text: &str) -> Value {
    json!({"insert_after_symbol": {"symbol": symbol, "new_text": text}})
}

/// Everything outside the changed lines is byte-identical.
fn kept_outside(old: &str, new: &str, first: usize, old_last: usize) {
    let (old_lines, new_lines): (Vec<&str>, Vec<&str>) =
        (old.split_inclusive('\n').collect(), new.split_inclusive('\n').collect());
    assert_eq!(old_lines[..first - 1], new_lines[..first - 1], "head");
    let tail = old_lines.len() - old_last;
    assert_eq!(old_lines[old_last..], new_lines[new_lines.len() - tail..], "tail");
}

const RUST: &str = "use std::fmt;\n\n/// A point.\n#[derive(Debug)]\npub struct Point {\n    x: i32,\n}\n\nimpl Point {\n    /// Its norm.\n    #[inline]\n    pub fn norm(&self) -> i32 {\n        self.x.abs()\n    }\n\n    pub fn flip(&self) -> Point {\n        Point { x: -self.x }\n    }\n}\n";

#[test]
fn rust_replace_keeps_docs_and_attributes_and_reindents() {
    let (new, result) =
        apply("geo.rs", RUST, replace("Point.norm", "pub fn norm(&self) -> i32 {\n    self.x.abs() * 2\n}"));
    kept_outside(RUST, &new, 12, 14);
    assert_snapshot!(new, @"
    use std::fmt;

    /// A point.
    #[derive(Debug)]
    pub struct Point {
        x: i32,
    }

    impl Point {
        /// Its norm.
        #[inline]
        pub fn norm(&self) -> i32 {
            self.x.abs() * 2
        }

        pub fn flip(&self) -> Point {
            Point { x: -self.x }
        }
    }
    ");
    assert_eq!(result.ptc_value()["syntax"]["newProblems"], json!([]));
}

#[test]
fn a_body_with_its_own_docs_replaces_the_old_ones() {
    let (new, _) = apply(
        "geo.rs",
        RUST,
        replace("norm", "/// Twice the norm.\npub fn norm(&self) -> i32 {\n    self.x.abs() * 2\n}"),
    );
    kept_outside(RUST, &new, 10, 14);
    assert_snapshot!(new, @"
    use std::fmt;

    /// A point.
    #[derive(Debug)]
    pub struct Point {
        x: i32,
    }

    impl Point {
        /// Twice the norm.
        pub fn norm(&self) -> i32 {
            self.x.abs() * 2
        }

        pub fn flip(&self) -> Point {
            Point { x: -self.x }
        }
    }
    ");
}

/// Haskell: the type signature is replaced with the equation, and a body that brings its own
/// Haddock (`-- |`) replaces the old one instead of stacking under it; the name of a function
/// with two equations is ambiguous, refused with both lines.
#[test]
fn haskell_signatures_go_with_the_equation_and_new_haddock_replaces_the_old() {
    const HS: &str = "module M where\n\n-- | Doubles.\ndouble :: Int -> Int\ndouble x = x * 2\n\n-- | Halves.\nhalf :: Int -> Int\nhalf 0 = 0\nhalf x = x `div` 2\n";
    let (new, _) =
        apply("M.hs", HS, replace("double", "-- | Twice x.\ndouble :: Integer -> Integer\ndouble x = 2 * x"));
    kept_outside(HS, &new, 3, 5);
    assert_snapshot!(new, @"
    module M where

    -- | Twice x.
    double :: Integer -> Integer
    double x = 2 * x

    -- | Halves.
    half :: Int -> Int
    half 0 = 0
    half x = x `div` 2
    ");
    let (new, _) = apply("M.hs", HS, replace("double", "double :: Integer -> Integer\ndouble x = 2 * x"));
    assert_snapshot!(new, @"
    module M where

    -- | Doubles.
    double :: Integer -> Integer
    double x = 2 * x

    -- | Halves.
    half :: Int -> Int
    half 0 = 0
    half x = x `div` 2
    ");
    let ws = Workspace::new();
    ws.file("M.hs", HS);
    ws.call::<ReadTool>(json!({"path": "M.hs"}));
    let result = ws.call::<EditTool>(json!({"path": "M.hs", "edits": [replace("half", "half _ = 0")]}));
    assert!(result.is_error, "{}", result.text());
    assert!(result.text().contains("half@7") && result.text().contains("half@10"), "{}", result.text());
    assert_eq!(std::fs::read_to_string(ws.path("M.hs")).unwrap(), HS);
}

#[test]
fn a_body_that_declares_another_name_warns() {
    let (_, result) =
        apply("geo.rs", RUST, replace("flip", "pub fn mirror(&self) -> Point {\n    Point { x: -self.x }\n}"));
    let warnings = result.ptc_value()["warnings"].as_array().unwrap().clone();
    assert!(warnings.iter().any(|w| w["code"] == "name-mismatch"), "{warnings:?}");
    assert_snapshot!(result.text().lines().take(2).collect::<Vec<_>>().join("\n"), @"
    Edited geo.rs (1 change, +1 -1 line)
    snapshot: s5ea1pc42
    ");
}

#[test]
fn rust_inserts_follow_the_blank_line_convention() {
    let (new, _) = apply("geo.rs", RUST, after("norm", "pub fn zero() -> Point {\n    Point { x: 0 }\n}"));
    assert_snapshot!(new, @"
    use std::fmt;

    /// A point.
    #[derive(Debug)]
    pub struct Point {
        x: i32,
    }

    impl Point {
        /// Its norm.
        #[inline]
        pub fn norm(&self) -> i32 {
            self.x.abs()
        }

        pub fn zero() -> Point {
            Point { x: 0 }
        }

        pub fn flip(&self) -> Point {
            Point { x: -self.x }
        }
    }
    ");
    let (new, _) = apply("geo.rs", RUST, before("Point", "/// The origin.\npub const ORIGIN: i32 = 0;"));
    assert_snapshot!(new, @"
    use std::fmt;

    /// The origin.
    pub const ORIGIN: i32 = 0;

    /// A point.
    #[derive(Debug)]
    pub struct Point {
        x: i32,
    }

    impl Point {
        /// Its norm.
        #[inline]
        pub fn norm(&self) -> i32 {
            self.x.abs()
        }

        pub fn flip(&self) -> Point {
            Point { x: -self.x }
        }
    }
    ");
}

#[test]
fn python_decorators_stay_with_their_function_and_classes_nest() {
    let source = "import functools\n\n\nclass Cache:\n    \"\"\"A cache.\"\"\"\n\n    @functools.lru_cache\n    def get(self, key):\n        return key\n\n    def put(self, key, value):\n        pass\n\n\ndef helper():\n    return Cache()\n";
    let (new, _) = apply("cache.py", source, replace("Cache.get", "def get(self, key):\n    return key.lower()"));
    kept_outside(source, &new, 8, 9);
    assert_snapshot!(new, @r#"
    import functools


    class Cache:
        """A cache."""

        @functools.lru_cache
        def get(self, key):
            return key.lower()

        def put(self, key, value):
            pass


    def helper():
        return Cache()
    "#);
    let (new, _) = apply("cache.py", source, before("get", "def size(self):\n    return 0"));
    assert_snapshot!(new, @r#"
    import functools


    class Cache:
        """A cache."""

        def size(self):
            return 0

        @functools.lru_cache
        def get(self, key):
            return key

        def put(self, key, value):
            pass


    def helper():
        return Cache()
    "#);
    let (new, _) = apply("cache.py", source, after("Cache", "class Store:\n    pass"));
    assert_snapshot!(new, @r#"
    import functools


    class Cache:
        """A cache."""

        @functools.lru_cache
        def get(self, key):
            return key

        def put(self, key, value):
            pass


    class Store:
        pass


    def helper():
        return Cache()
    "#);
}

#[test]
fn typescript_nested_class_members_and_tsx() {
    let source = "export class Outer {\n  /** Inner value. */\n  value(): number {\n    return 1;\n  }\n}\n\nexport function View() {\n  return <div className=\"v\">{1}</div>;\n}\n";
    let (new, _) = apply("view.tsx", source, replace("Outer.value", "value(): number {\n  return 2;\n}"));
    assert_snapshot!(new, @r#"
    export class Outer {
      /** Inner value. */
      value(): number {
        return 2;
      }
    }

    export function View() {
      return <div className="v">{1}</div>;
    }
    "#);
    let (new, _) = apply("view.tsx", source, replace("View", "export function View() {\n  return <span />;\n}"));
    assert_snapshot!(new, @"
    export class Outer {
      /** Inner value. */
      value(): number {
        return 1;
      }
    }

    export function View() {
      return <span />;
    }
    ");
}

#[test]
fn multi_line_constants_are_replaced_whole_and_inserts_land_after_them() {
    let source = "const LIMITS = {\n  low: 1,\n  high: 9,\n};\n\nfunction check(v) {\n  return v > LIMITS.low;\n}\n";
    let (new, _) = apply("limits.js", source, after("LIMITS", "const DEFAULT = 5;"));
    assert_snapshot!(new, @"
    const LIMITS = {
      low: 1,
      high: 9,
    };

    const DEFAULT = 5;

    function check(v) {
      return v > LIMITS.low;
    }
    ");
    let go = "package main\n\nconst (\n\tA = 1\n\tB = 2\n)\n\nconst Big = `line one\nline two`\n\nfunc main() {\n}\n";
    let (new, _) = apply("main.go", go, after("Big", "const Small = 1"));
    assert_snapshot!(new, @"
    package main

    const (
    	A = 1
    	B = 2
    )

    const Big = `line one
    line two`

    const Small = 1

    func main() {
    }
    ");
}

#[test]
fn the_last_symbol_of_a_file_without_a_final_newline() {
    let source = "int a(void) {\n    return 1;\n}\n\nint b(void) {\n    return 2;\n}";
    let (new, _) = apply("x.c", source, after("b", "int c(void) {\n    return 3;\n}"));
    assert_eq!(
        new,
        "int a(void) {\n    return 1;\n}\n\nint b(void) {\n    return 2;\n}\n\nint c(void) {\n    return 3;\n}"
    );
    let (new, _) = apply("x.c", source, replace("b", "int b(void) {\n    return 20;\n}"));
    assert_eq!(new, "int a(void) {\n    return 1;\n}\n\nint b(void) {\n    return 20;\n}");
    let (new, _) = apply("x.c", source, before("a", "#include <stdio.h>\n"));
    assert!(new.starts_with("#include <stdio.h>\n\nint a(void)"), "{new}");
}

#[test]
fn java_and_cpp_methods_and_crlf() {
    let java = "package p;\r\n\r\nclass Shop {\r\n    @Override\r\n    public String toString() {\r\n        return \"shop\";\r\n    }\r\n\r\n    static class Item {\r\n        int price() { return 1; }\r\n    }\r\n}\r\n";
    let (new, _) = apply("Shop.java", java, replace("Shop.Item.price", "int price() { return 2; }"));
    assert_eq!(new, java.replace("return 1;", "return 2;"));
    let (new, _) =
        apply("Shop.java", java, replace("toString", "public String toString() {\n    return \"store\";\n}"));
    assert_eq!(new, java.replace("\"shop\"", "\"store\""), "annotation kept, CRLF kept");
    let cpp = "namespace geo {\nclass Box {\n public:\n  int area() const { return w * h; }\n  int w, h;\n};\n}  // namespace geo\n";
    let (new, _) = apply("box.h", cpp, replace("geo.Box.area", "int area() const { return w * h * 1; }"));
    assert_eq!(new, cpp.replace("return w * h;", "return w * h * 1;"));
}

#[test]
fn refusals_write_nothing() {
    let ws = Workspace::new();
    ws.file("geo.rs", RUST);
    ws.file("notes.md", "# Notes\n");
    ws.call::<ReadTool>(json!({"path": "geo.rs"}));
    ws.call::<ReadTool>(json!({"path": "notes.md"}));
    let cases = [
        ("geo.rs", replace("missing", "fn x() {}"), "invalid-edit-variant"),
        ("geo.rs", replace("norm", "  \n"), "invalid-edit-variant"),
        ("geo.rs", replace("Poin", "struct Poin {}"), "invalid-edit-variant"),
        ("notes.md", replace("Notes", "# New"), "unsupported-language"),
    ];
    for (path, item, expected) in cases {
        let before = std::fs::read(ws.path(path)).unwrap();
        let result = ws.call::<EditTool>(json!({"path": path, "edits": [item]}));
        assert_eq!(code(&result), expected, "{}", result.text());
        assert!(result.text().contains("nothing was written"), "{}", result.text());
        assert_eq!(std::fs::read(ws.path(path)).unwrap(), before);
    }
    let overlap = ws.call::<EditTool>(json!({"path": "geo.rs", "edits": [
        replace("norm", "pub fn norm(&self) -> i32 { 0 }"),
        {"set_line": {"anchor": format!("13:{}", hashline_core::LineHash::of(b"        self.x.abs()")), "new_text": "        0"}}
    ]}));
    assert_eq!(code(&overlap), "overlapping-edit", "{}", overlap.text());
    let unread = Workspace::new();
    unread.file("geo.rs", RUST);
    let gated = unread.call::<EditTool>(json!({"path": "geo.rs", "edits": [replace("norm", "fn norm() {}")]}));
    assert_eq!(code(&gated), "file-not-read");
    let texts: Vec<String> = ["missing", "Poin"]
        .iter()
        .map(|q| ws.call::<EditTool>(json!({"path": "geo.rs", "edits": [replace(q, "fn x() {}")]})).text())
        .collect();
    assert_snapshot!(texts.join("\n---\n"), @"
    Edit rejected — nothing was written. edits[0].replace_symbol: symbol 'missing' not found. Available symbols: Point, Point
    ---
    Edit rejected — nothing was written. edits[0].replace_symbol: symbol 'Poin' is ambiguous (2 matches):
    - Point (struct) — lines 3-7
    - Point (impl) — lines 9-19
    Use Point@3 or Point@9 to select by start line.
    ");
    let md = ws.call::<EditTool>(json!({"path": "notes.md", "edits": [replace("Notes", "# New")]}));
    // The list is the registry's display names, in table order.
    let names: Vec<&str> = hashline_syntax::LanguageId::ALL.iter().map(|l| l.display_name()).collect();
    assert_eq!(
        md.text(),
        format!(
            "Edit rejected — nothing was written. edits[0]: replace_symbol needs a source file of a language with symbols ({}); notes.md is not one.\nUse replace_lines / insert_after with anchors from read for this file.",
            names.join(", ")
        )
    );
}

#[test]
fn a_small_change_of_a_long_symbol_is_not_a_large_change() {
    let source = "fn long() -> u32 {\n    let a = 1;\n    let b = 2;\n    let c = 3;\n    let d = 4;\n    let e = 5;\n    let f = 6;\n    a + b + c + d + e + f\n}\n\nfn other() {}\n";
    let body = source.split("\n\n").next().unwrap().replace("let d = 4;", "let d = 40;");
    let (new, result) = apply("long.rs", source, replace("long", &body));
    assert_eq!(new, source.replace("let d = 4;", "let d = 40;"));
    let warnings = result.ptc_value()["warnings"].clone();
    assert_eq!(warnings, json!([]), "{}", result.text());
    // Only the line that differs is rewritten: the rest keep their anchors.
    assert_eq!(result.text().lines().next(), Some("Edited long.rs (1 change, +1 -1 line)"));
    assert_eq!(
        result.ptc_value()["diffData"]["stats"],
        json!({"added": 1, "removed": 1, "context": 4}),
        "{}",
        result.text()
    );
    // The same body again changes nothing.
    let (same, result) = apply("long.rs", source, replace("long", source.split("\n\n").next().unwrap()));
    assert_eq!(same, source);
    assert_eq!(result.ptc_value()["noop"], true, "{}", result.text());
}

/// Issue 21 item 1: an anchored edit inside a `replace_symbol`'s range is refused as
/// `overlapping-edit`, nothing written, naming both — on 9b00c33 it succeeded with "only the
/// last will apply" and the model's `set_line` was lost. The rule is the symbol's range, not
/// the diff the replacement reduces to.
#[test]
fn an_anchored_edit_inside_a_replace_symbol_range_is_refused_naming_both() {
    let ws = Workspace::new();
    let source = "// calc\n\n\nclass Calc {\n  add(x) {\n    return x;\n  }\n}\n";
    ws.file("t.ts", source);
    ws.call::<ReadTool>(json!({"path": "t.ts"}));
    let set = json!({"set_line": {"anchor": anchor(6, "    return x;"), "new_text": "    return 99;"}});
    let body = "add(x) {\n  return x + 1;\n}";
    let result = ws.call::<EditTool>(json!({"path": "t.ts", "edits": [set.clone(), replace("Calc.add", body)]}));
    assert!(result.is_error, "{}", result.text());
    assert_eq!(result.error_code(), Some("overlapping-edit"));
    assert_snapshot!(result.text(), @"Edit rejected — nothing was written. edits[0] (set_line at line 6) falls inside the replace_symbol range of Calc.add (lines 5-7) in edits[1]: both would change the same lines. Put the change into the replace_symbol body, or send it in a separate call.");
    assert_eq!(std::fs::read_to_string(ws.path("t.ts")).expect("read"), source, "nothing written");
    // Either order; and an insert_after inside the range too.
    let result = ws.call::<EditTool>(json!({"path": "t.ts", "edits": [replace("Calc.add", body), set]}));
    assert_eq!(result.error_code(), Some("overlapping-edit"), "{}", result.text());
    let inside = json!({"insert_after": {"anchor": anchor(5, "  add(x) {"), "new_text": "    // hi"}});
    let result = ws.call::<EditTool>(json!({"path": "t.ts", "edits": [inside, replace("Calc.add", body)]}));
    assert_eq!(result.error_code(), Some("overlapping-edit"), "{}", result.text());
    // Edits next to the range (after its last line, on the line before it) are not overlaps.
    let next = json!({"insert_after": {"anchor": anchor(7, "  }"), "new_text": "  // after add"}});
    let above = json!({"set_line": {"anchor": anchor(4, "class Calc {"), "new_text": "class Calc2 {"}});
    let result = ws.call::<EditTool>(json!({"path": "t.ts", "edits": [next, above, replace("Calc.add", body)]}));
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(
        std::fs::read_to_string(ws.path("t.ts")).expect("read"),
        "// calc\n\n\nclass Calc2 {\n  add(x) {\n    return x + 1;\n  }\n  // after add\n}\n"
    );
}

fn anchor(line: u32, text: &str) -> String {
    format!("{line}:{}", hashline_core::LineHash::of(text.as_bytes()))
}
