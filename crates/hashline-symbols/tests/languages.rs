//! Every mapped language and format: a realistic file's map (kinds, parents, ranges with
//! docs/attributes/decorators, signatures) pinned by snapshot, and the rendered map.

use hashline_core::Document;
use hashline_symbols::{Symbol, map_document, render_map};
use insta::assert_snapshot;

fn outline(symbols: &[Symbol], depth: usize, out: &mut String) {
    for s in symbols {
        let parent = s.parent.as_deref().map(|p| format!(" in {p}")).unwrap_or_default();
        let decl = if s.decl_line != s.start_line { format!(" (decl {})", s.decl_line) } else { String::new() };
        let sig = s.signature.as_deref().map(|g| format!(" sig `{g}`")).unwrap_or_default();
        out.push_str(&format!(
            "{}{} {}{parent} {}-{}{decl}{sig}\n",
            "  ".repeat(depth),
            s.kind,
            s.name,
            s.start_line,
            s.end_line
        ));
        outline(&s.children, depth + 1, out);
    }
}

/// A test file: in `tests/data`, or a language's acceptance sample in `hashline-syntax`'s
/// `languages/<lang>/` folder.
fn data_path(name: &str) -> String {
    let local = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    if std::path::Path::new(&local).exists() {
        return local;
    }
    let lang = hashline_syntax::LanguageId::from_path(name).expect("a language");
    format!("{}/../hashline-syntax/languages/{}/{name}", env!("CARGO_MANIFEST_DIR"), lang.name())
}

fn map_of(name: &str) -> String {
    let path = data_path(name);
    let doc = Document::parse(std::fs::read(&path).expect("fixture"));
    let map = map_document(name, &doc).expect("mapped").expect("parsed");
    let mut out = String::new();
    if !map.imports.is_empty() {
        out.push_str(&format!("imports: {}\n", map.imports.join(", ")));
    }
    outline(&map.symbols, 0, &mut out);
    out.push('\n');
    out.push_str(&render_map(name, &map).text);
    out
}

#[test]
fn rust() {
    assert_snapshot!(map_of("inventory.rs"));
}

/// A realistic file of hundreds of lines: nested modules, generic impls, trait defaults,
/// attributes, doc comments, an exported macro, items inside a test function.
#[test]
fn rust_realistic() {
    assert_snapshot!(map_of("accounts.rs"));
}

#[test]
fn c() {
    assert_snapshot!(map_of("ring.c"));
}

/// A realistic file of hundreds of lines: a struct nested in a struct, anonymous-struct and
/// function-pointer typedefs, static globals and arrays, conditional macros, Doxygen docs.
#[test]
fn c_realistic() {
    assert_snapshot!(map_of("arena.c"));
}

#[test]
fn cpp_header() {
    assert_snapshot!(map_of("shapes.h"));
}

/// A realistic header of hundreds of lines: a class template with a nested class, friend
/// operators, out-of-class member definitions, `enum class`, attributes, macros, a nested
/// namespace, `///` docs throughout.
#[test]
fn cpp_realistic() {
    assert_snapshot!(map_of("matrix.hpp"));
}

#[test]
fn python() {
    assert_snapshot!(map_of("orders.py"));
}

/// A realistic file of hundreds of lines: decorators, dataclasses with nested classes,
/// async methods, a Protocol, a closure inside a decorator, comment-documented constants.
#[test]
fn python_realistic() {
    assert_snapshot!(map_of("scheduler.py"));
}

#[test]
fn javascript_jsx() {
    assert_snapshot!(map_of("widgets.jsx"));
}

/// A realistic file of hundreds of lines: function and arrow components with JSX, hooks, a
/// decorated class with static, private and accessor members, a generator, JSDoc throughout.
#[test]
fn javascript_realistic() {
    assert_snapshot!(map_of("board.jsx"));
}

#[test]
fn typescript() {
    assert_snapshot!(map_of("service.ts"));
}

/// A realistic file of hundreds of lines: overloads, abstract classes, decorated classes and
/// methods, accessors, private `#` members, nested namespaces, `declare global`.
#[test]
fn typescript_realistic() {
    assert_snapshot!(map_of("cart.ts"));
}

#[test]
fn java() {
    assert_snapshot!(map_of("Library.java"));
}

/// A realistic file of hundreds of lines: a generic class holding an annotation type, an enum
/// with a constructor, records (one with a compact constructor), a sealed interface, Javadoc
/// and annotations throughout.
#[test]
fn java_realistic() {
    assert_snapshot!(map_of("EventBus.java"));
}

#[test]
fn go() {
    assert_snapshot!(map_of("server.go"));
}

/// A realistic file of hundreds of lines: generic types and methods, grouped `const`, `var`
/// and `type` declarations with doc comments, value and pointer receivers.
#[test]
fn go_realistic() {
    assert_snapshot!(map_of("cache.go"));
}

#[test]
fn markdown() {
    assert_snapshot!(map_of("guide.md"));
}

#[test]
fn json() {
    assert_snapshot!(map_of("package.json"));
}

#[test]
fn yaml() {
    assert_snapshot!(map_of("config.yaml"));
}

#[test]
fn toml() {
    assert_snapshot!(map_of("Cargo.toml"));
}

/// A `.sh` script is mapped by the Bash grammar of the registry.
#[test]
fn shell() {
    assert_snapshot!(map_of("deploy.sh"));
}

/// A `.zsh` script keeps the shell line scanner: on the same script it finds the functions
/// the Bash grammar finds, with the same lines.
#[test]
fn zsh_keeps_the_shell_scanner() {
    let doc = Document::parse(std::fs::read(data_path("deploy.sh")).expect("fixture"));
    let functions = |name: &str| {
        let map = map_document(name, &doc).expect("mapped").expect("parsed");
        let found: Vec<(String, u32, u32)> = map
            .symbols
            .iter()
            .filter(|s| s.kind.as_str() == "function")
            .map(|s| (s.name.clone(), s.start_line, s.end_line))
            .collect();
        (map.language, found)
    };
    let (scanned_as, scanned) = functions("deploy.zsh");
    let (parsed_as, parsed) = functions("deploy.sh");
    assert_eq!((scanned_as.as_str(), parsed_as.as_str()), ("Shell", "Bash"));
    assert_eq!(scanned.len(), 3, "{scanned:?}");
    assert_eq!(scanned, parsed);
}

/// Two modules that both `use super::*` import it once in the map.
#[test]
fn an_import_is_listed_once() {
    let path = data_path("accounts.rs");
    let doc = Document::parse(std::fs::read(&path).expect("fixture"));
    let map = map_document("accounts.rs", &doc).expect("mapped").expect("parsed");
    let mut seen = std::collections::HashSet::new();
    let repeated: Vec<&String> = map.imports.iter().filter(|i| !seen.insert(*i)).collect();
    assert!(repeated.is_empty(), "{repeated:?} in {:?}", map.imports);
}

/// A TypeScript namespace's constants, variables and arrow functions are mapped as the
/// file's own are, exported or not; a function's locals are not.
#[test]
fn a_namespace_maps_its_constants_and_arrow_functions() {
    let source = "namespace Outer {\n  export const VERSION = 2;\n  let count = 0;\n  const twice = (n: number) => n * 2;\n  export namespace Inner {\n    export const LIMIT = 9;\n  }\n  export function f() {\n    const local = 1;\n  }\n}\n";
    let map = map_document("ns.ts", &Document::parse(source.as_bytes().to_vec())).expect("mapped").expect("parsed");
    let mut out = String::new();
    outline(&map.symbols, 0, &mut out);
    assert_eq!(
        out,
        "namespace Outer 1-11\n  constant VERSION in Outer 2-2\n  variable count in Outer 3-3\n  function twice in Outer 4-4 sig `twice = (n: number)`\n  namespace Inner in Outer 5-7\n    constant LIMIT in Inner 6-6\n  function f in Outer 8-10 sig `f()`\n"
    );
}

/// Go groups: each spec of a `type (...)` or `var (...)` group is its own symbol with its own
/// range and doc, a lone spec spans its whole declaration, and a generic receiver's methods
/// belong to the bare type name.
#[test]
fn go_groups_and_generic_receivers() {
    let source = "package p\n\ntype (\n\t// A is a.\n\tA int\n\tB struct{ x int }\n)\n\nvar (\n\t// X is x.\n\tX = 1\n\tY = 2\n)\n\nvar Z = 3\n\n// S is a stack.\ntype S[T any] struct{ items []T }\n\nfunc (s *S[T]) Push(v T) {}\n\ntype (\n\tD int\n\tE = D\n)\n";
    let map = map_document("p.go", &Document::parse(source.as_bytes().to_vec())).expect("mapped").expect("parsed");
    let mut out = String::new();
    outline(&map.symbols, 0, &mut out);
    assert_eq!(
        out,
        "type A 4-5 (decl 5)\nstruct B 6-6\nvariable X 10-11 (decl 11)\nvariable Y 12-12\nvariable Z 15-15\nstruct S 17-18 (decl 18)\nmethod Push in S 20-20 sig `Push(v T)`\ntype D 23-23\ntype E 24-24\n"
    );
}

/// A Java record's compact constructor and an annotation type's elements are mapped as
/// methods, with their Javadoc and annotations.
#[test]
fn java_compact_constructors_and_annotation_elements() {
    let source = "record Range(int lo, int hi) {\n    /** Checks the bounds. */\n    @Deprecated\n    public Range {\n        if (lo > hi) throw new IllegalArgumentException();\n    }\n}\n\n@interface Tag {\n    /** The tag's name. */\n    String value() default \"\";\n    int weight();\n}\n";
    let map =
        map_document("Range.java", &Document::parse(source.as_bytes().to_vec())).expect("mapped").expect("parsed");
    let mut out = String::new();
    outline(&map.symbols, 0, &mut out);
    assert_eq!(
        out,
        "class Range 1-7\n  method Range in Range 2-6 (decl 4) sig `Range`\ninterface Tag 9-13\n  method value in Tag 10-11 (decl 11) sig `value() default \"\"`\n  method weight in Tag 12-12 sig `weight()`\n"
    );
}

/// C++ functions returning a reference or pointer are mapped whatever their name (an operator,
/// a qualified member), and a class nested in a class or a friend function keeps its doc.
#[test]
fn cpp_reference_returns_nested_classes_and_friends() {
    let source = "class V {\npublic:\n    /// An inner type.\n    class In {};\n\n    /// Adds.\n    V& operator+=(const V& o) { return *this; }\n\n    /// Equal.\n    friend bool operator==(V a, V b) { return true; }\n\n    int& get();\n};\n\nint& V::get() { static int x; return x; }\n\nint* V::ptr() { return nullptr; }\n\n/// Prints.\nstd::ostream& operator<<(std::ostream& os, const V& v) { return os; }\n";
    let map = map_document("v.hpp", &Document::parse(source.as_bytes().to_vec())).expect("mapped").expect("parsed");
    let mut out = String::new();
    outline(&map.symbols, 0, &mut out);
    assert_eq!(
        out,
        "class V 1-13\n  class In in V 3-4 (decl 4)\n  method operator+= in V 6-7 (decl 7) sig `operator+=(const V& o)`\n  method operator== in V 9-10 (decl 10) sig `operator==(V a, V b)`\nmethod get in V 15-15 sig `get()`\nmethod ptr in V 17-17 sig `ptr()`\nfunction operator<< 19-20 (decl 20) sig `operator<<(std::ostream& os, const V& v)`\n"
    );
}

/// C file-level variables are mapped with or without an initializer, through pointers and
/// arrays (a prototype is not); a function-pointer or pointer typedef is a type; a struct
/// nested in a struct keeps its doc comment.
#[test]
fn c_variables_typedefs_and_nested_structs() {
    let source = "static int plain;\nstatic char *name;\nstatic const char *const names[] = {\"a\"};\nint table[4];\nint ready = 1;\nint f(void);\n\n/** A hook. */\ntypedef void (*hook)(int);\ntypedef int *intp;\n\nstruct outer {\n    /** Inner. */\n    struct inner {\n        int x;\n    } in;\n};\n";
    let map = map_document("v.c", &Document::parse(source.as_bytes().to_vec())).expect("mapped").expect("parsed");
    let mut out = String::new();
    outline(&map.symbols, 0, &mut out);
    assert_eq!(
        out,
        "variable plain 1-1\nvariable name 2-2\nvariable names 3-3\nvariable table 4-4\nvariable ready 5-5\ntype hook 8-9 (decl 9)\ntype intp 10-10\nstruct outer 12-17\n  struct inner in outer 13-16 (decl 14)\n"
    );
}

/// C++ (and so `.h`) maps file- and namespace-level variables and pointer typedefs as C does.
#[test]
fn cpp_variables_and_pointer_typedefs() {
    let source = "/** A hook. */\ntypedef void (*hook)(int);\n\nstatic int plain;\nconstexpr int kMax = 4;\n\nnamespace n {\n/** The names. */\nconst char *const names[] = {\"a\"};\nint f();\nvoid g() { int local = 0; }\n}\n";
    let map = map_document("v.h", &Document::parse(source.as_bytes().to_vec())).expect("mapped").expect("parsed");
    let mut out = String::new();
    outline(&map.symbols, 0, &mut out);
    assert_eq!(
        out,
        "type hook 1-2 (decl 2)\nvariable plain 4-4\nvariable kMax 5-5\nnamespace n 7-12\n  variable names in n 8-9 (decl 9)\n  function g in n 11-11 sig `g()`\n"
    );
}

/// A `var` is mapped as `let` is, exported or not: in TypeScript at file level and in a
/// namespace, in JavaScript at file level.
#[test]
fn a_var_is_mapped() {
    let source = "var legacy = 1;\nexport var shared = 2;\nnamespace N {\n  var inner = 3;\n}\n";
    let map = map_document("v.ts", &Document::parse(source.as_bytes().to_vec())).expect("mapped").expect("parsed");
    let mut out = String::new();
    outline(&map.symbols, 0, &mut out);
    assert_eq!(out, "variable legacy 1-1\nvariable shared 2-2\nnamespace N 3-5\n  variable inner in N 4-4\n");
    let map =
        map_document("v.js", &Document::parse(source.lines().take(2).collect::<Vec<_>>().join("\n").into_bytes()))
            .expect("mapped")
            .expect("parsed");
    let mut out = String::new();
    outline(&map.symbols, 0, &mut out);
    assert_eq!(out, "variable legacy 1-1\nvariable shared 2-2\n");
}

/// A TypeScript interface's method signatures are mapped as methods, as a Java interface's
/// and a Rust trait's are; its properties are not (no language maps fields).
#[test]
fn typescript_interface_methods_are_mapped() {
    let source = "interface Gateway {\n  /** Charges. */\n  charge(amount: number): Promise<string>;\n  readonly name: string;\n}\n";
    let map = map_document("g.ts", &Document::parse(source.as_bytes().to_vec())).expect("mapped").expect("parsed");
    let mut out = String::new();
    outline(&map.symbols, 0, &mut out);
    assert_eq!(
        out,
        "interface Gateway 1-5\n  method charge in Gateway 2-3 (decl 3) sig `charge(amount: number): Promise<string>`\n"
    );
}

/// A multi-line C macro's signature is one line without its `\` line continuations.
#[test]
fn a_macro_signature_drops_line_continuations() {
    let source = "#define SWAP(a, b) \\\n    do {            \\\n        int t = a;  \\\n    } while (0)\n";
    let map = map_document("m.c", &Document::parse(source.as_bytes().to_vec())).expect("mapped").expect("parsed");
    let sig = map.symbols[0].signature.as_deref();
    assert_eq!(sig, Some("SWAP(a, b) do { int t = a; } while (0)"));
}

/// The depth of the deepest symbol (1 for top-level symbols only).
fn depth(symbols: &[Symbol]) -> usize {
    symbols.iter().map(|s| 1 + depth(&s.children)).max().unwrap_or(0)
}

/// A file nesting 20,000 declarations (generated or hostile) maps with its nesting capped at
/// `MAX_NESTING`, the deeper ones listed under the deepest kept one; mapping, rendering,
/// selecting and dropping it stay within a small thread stack (they overflowed it, and
/// aborted the process, when the map nested as deep as the file). Every language nests
/// through the same code; Rust and Python stand for the brace and indentation grammars.
#[test]
fn a_file_nested_thousands_deep_maps_within_a_small_stack() {
    use hashline_symbols::{MAX_NESTING, Selection, select};
    const LEVELS: usize = 20_000;
    let rust: String =
        (0..LEVELS).map(|i| format!("mod m{i} {{\n")).collect::<String>() + "fn x() {}\n" + &"}\n".repeat(LEVELS);
    // Python's grammar nests by indentation, and its scanner keeps at most about 500 levels.
    let python: String = (0..400).map(|i| format!("{}class C{i}:\n", " ".repeat(i))).collect::<String>()
        + &" ".repeat(400)
        + "def x(): pass\n";
    let worker = std::thread::Builder::new().stack_size(1 << 20).spawn(move || {
        for (name, source, total) in [("deep.rs", rust, LEVELS + 1), ("deep.py", python, 401)] {
            let doc = Document::parse(source.into_bytes());
            let map = map_document(name, &doc).expect("mapped").expect("parsed");
            assert_eq!(depth(&map.symbols), MAX_NESTING + 2, "{name}");
            assert_eq!(map.count(), total, "{name}: every declaration is kept");
            let Selection::Found { found, .. } = select(&map, "x") else { panic!("{name}: x is found") };
            assert_eq!(found.symbol.start_line as usize, total, "{name}");
            assert!(render_map(name, &map).text.contains("File Map"), "{name}");
        }
    });
    worker.expect("a thread").join().expect("no overflow, no panic");
}
