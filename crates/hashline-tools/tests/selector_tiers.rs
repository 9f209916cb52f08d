//! `read` with `symbol` by every selector tier in every tree-sitter language (SPEC §6.4):
//! exact, dotted path (any depth), `Name@LINE`, case-insensitive, prefix, camelCase or
//! underscore word, substring — each query chosen so that only its own tier can find it,
//! and the read shows exactly the symbol's lines.

mod common;

use common::Workspace;
use hashline_tools::read::ReadTool;
use serde_json::json;

/// One selector: (query, the symbol's name, its start line, the tier that finds it).
type Row = (&'static str, &'static str, u64, &'static str);

/// (file, source, rows) over the language test files of `hashline-symbols`.
const TABLE: &[(&str, &str, &[Row])] = &[
    (
        "inventory.rs",
        include_str!("../../hashline-symbols/tests/data/inventory.rs"),
        &[
            ("Sku", "Sku", 11, "exact"),
            ("Countable.is_empty", "is_empty", 29, "path"),
            ("tests::adds", "adds", 76, "path"),
            ("count@56", "count", 56, "line"),
            ("location", "Location", 15, "caseInsensitive"),
            ("GREET", "GREETING", 9, "prefix"),
            ("items", "MAX_ITEMS", 6, "camelCase"),
            ("ounta", "Countable", 24, "substring"),
        ],
    ),
    (
        "ring.c",
        include_str!("../../hashline-symbols/tests/data/ring.c"),
        &[
            ("ring_push", "ring_push", 34, "exact"),
            // C declarations do not nest: the path tier finds a top-level name by itself.
            ("ring_new@24", "ring_new", 23, "line"),
            ("RING_COUNT", "ring_count", 21, "caseInsensitive"),
            ("ring_s", "ring_status", 16, "prefix"),
            ("free", "ring_free", 42, "camelCase"),
            ("_nex", "RING_NEXT", 5, "substring"),
        ],
    ),
    (
        "arena.c",
        include_str!("../../hashline-syntax/languages/c/arena.c"),
        &[
            // A struct declared inside another nests under it, and a path finds it.
            ("arena.mark", "mark", 49, "path"),
            ("arena_close@170", "arena_close", 164, "line"),
            ("names", "error_names", 73, "camelCase"),
        ],
    ),
    (
        "matrix.hpp",
        include_str!("../../hashline-syntax/languages/cpp/matrix.hpp"),
        &[
            ("linalg.Matrix.RowView.begin", "begin", 74, "path"),
            ("detail::max_abs", "max_abs", 213, "path"),
            ("error", "ShapeError", 37, "camelCase"),
            ("ranspos", "transposed", 161, "substring"),
        ],
    ),
    (
        "shapes.h",
        include_str!("../../hashline-symbols/tests/data/shapes.h"),
        &[
            ("Grid", "Grid", 22, "exact"),
            ("geo.Circle.Builder.radius", "radius", 37, "path"),
            ("geo::Shape.name", "name", 19, "path"),
            ("Circle@32", "Circle", 32, "line"),
            ("shapes", "Shapes", 50, "caseInsensitive"),
            ("Poi", "Point", 7, "prefix"),
            ("uild", "Builder", 35, "substring"),
        ],
    ),
    (
        "server.go",
        include_str!("../../hashline-symbols/tests/data/server.go"),
        &[
            ("New", "New", 32, "exact"),
            ("Server.Handle", "Handle", 37, "path"),
            ("String@42", "String", 42, "line"),
            ("middleware", "Middleware", 30, "caseInsensitive"),
            ("Default", "DefaultPort", 9, "prefix"),
            ("prod", "ModeProd", 14, "camelCase"),
            ("eques", "requests", 17, "substring"),
        ],
    ),
    (
        "Library.java",
        include_str!("../../hashline-symbols/tests/data/Library.java"),
        &[
            ("Book", "Book", 28, "exact"),
            ("Library.Book.label", "label", 30, "path"),
            ("Library@16", "Library", 16, "line"),
            ("status", "Status", 35, "caseInsensitive"),
            ("List", "Listener", 40, "prefix"),
            ("loan", "onLoan", 41, "camelCase"),
            ("ooks", "books", 14, "substring"),
        ],
    ),
    (
        "widgets.jsx",
        include_str!("../../hashline-symbols/tests/data/widgets.jsx"),
        &[
            ("Badge", "Badge", 25, "exact"),
            ("WidgetList.renderRow", "renderRow", 15, "path"),
            ("render@20", "render", 20, "line"),
            ("app", "App", 31, "caseInsensitive"),
            ("PAGE", "PAGE_SIZE", 4, "prefix"),
            ("list", "WidgetList", 9, "camelCase"),
            ("ounte", "counter", 7, "substring"),
        ],
    ),
    (
        "orders.py",
        include_str!("../../hashline-symbols/tests/data/orders.py"),
        &[
            ("register", "register", 10, "exact"),
            ("OrderHandler.Error.describe", "describe", 45, "path"),
            ("total@49", "total", 49, "line"),
            ("lineitem", "LineItem", 16, "caseInsensitive"),
            ("_reg", "_registry", 7, "prefix"),
            ("rate", "TAX_RATE", 6, "camelCase"),
            ("etrie", "retries", 32, "substring"),
        ],
    ),
    (
        "service.ts",
        include_str!("../../hashline-symbols/tests/data/service.ts"),
        &[
            ("Repo", "Repo", 39, "exact"),
            ("Users.isAdmin", "isAdmin", 44, "path"),
            ("load@26", "load", 26, "line"),
            ("userid", "UserId", 10, "caseInsensitive"),
            ("DEFAULT", "DEFAULT_ROLE", 17, "prefix"),
            ("name", "toName", 49, "camelCase"),
            ("lea", "clear", 33, "substring"),
        ],
    ),
];

#[test]
fn every_tier_finds_its_symbol_in_every_language() {
    let ws = Workspace::new();
    let mut failures = Vec::new();
    for (file, source, rows) in TABLE {
        ws.file(file, source);
        for &(query, name, start, tier) in *rows {
            let result = ws.call::<ReadTool>(json!({"path": file, "symbol": query}));
            let value = result.ptc_value();
            let got = &value["symbol"];
            let want = (name, start, tier);
            let seen = (
                got["name"].as_str().unwrap_or("-"),
                got["startLine"].as_u64().unwrap_or(0),
                got["tier"].as_str().unwrap_or("-"),
            );
            if seen != want {
                failures.push(format!("{file} {query:?}: want {want:?}, got {seen:?}"));
                continue;
            }
            // The rows shown are the symbol's own lines, from its first.
            let end = got["endLine"].as_u64().unwrap();
            let lines = value["lines"].as_array().unwrap();
            assert_eq!(lines.first().map(|l| l["line"].as_u64()), Some(Some(start)), "{file} {query}");
            assert_eq!(lines.last().map(|l| l["line"].as_u64()), Some(Some(end)), "{file} {query}");
            // Fuzzy tiers say so.
            let fuzzy = ["prefix", "camelCase", "substring"].contains(&tier);
            let warned =
                value["warnings"].as_array().is_some_and(|w| w.iter().any(|w| w["code"] == "fuzzy-symbol-match"));
            assert_eq!(warned, fuzzy, "{file} {query}: {}", result.text());
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
