//! `read` with `symbol`, `map` and `bundle`: every selector tier, ambiguity, fallbacks, the
//! map's rungs and the local bundle, with every text pinned.

mod common;

use common::{Workspace, assert_rows_match_value, code};
use hashline_tools::edit::EditTool;
use hashline_tools::read::ReadTool;
use insta::assert_snapshot;
use serde_json::{Value, json};

const CART: &str = r#"import { Money } from "./money";

/** Tax rate applied to every order. */
export const TAX_RATE = 0.2;

/** Rounds to cents. */
function roundCents(value: number): number {
  return Math.round(value * 100) / 100;
}

export interface LineItem {
  sku: string;
  price: number;
}

/** A shopping cart. */
export class ShoppingCart {
  private items: LineItem[] = [];

  /** Adds one item. */
  addItem(item: LineItem): void {
    this.items.push(item);
  }

  totalWithTax(): number {
    const sum = this.items.reduce((a, i) => a + i.price, 0);
    return roundCents(sum * (1 + TAX_RATE));
  }
}

export function addItem(cart: ShoppingCart, sku: string): void {
  cart.addItem({ sku, price: 0 });
}
"#;

fn read(ws: &Workspace, args: Value) -> hashline_tools::ToolResult {
    ws.call::<ReadTool>(args)
}

fn setup() -> Workspace {
    let ws = Workspace::new();
    ws.file("cart.ts", CART);
    ws
}

#[test]
fn an_exact_name_reads_the_symbol_with_its_docs_and_a_header() {
    let ws = setup();
    let result = read(&ws, json!({"path": "cart.ts", "symbol": "totalWithTax"}));
    assert!(!result.is_error, "{}", result.text());
    assert_rows_match_value(&result);
    assert_snapshot!(result.text(), @"
    snapshot: srrwx8pdn
    [Symbol: totalWithTax (method) in ShoppingCart, lines 25-28 of 33]

    25:f6e|  totalWithTax(): number {
    26:91f|    const sum = this.items.reduce((a, i) => a + i.price, 0);
    27:122|    return roundCents(sum * (1 + TAX_RATE));
    28:ac9|  }
    ");
    let value = result.ptc_value();
    assert_eq!(
        value["symbol"],
        json!({"query": "totalWithTax", "name": "totalWithTax", "kind": "method", "parentName": "ShoppingCart", "startLine": 25, "endLine": 28, "tier": "exact"})
    );
    assert_eq!(value["range"], json!({"startLine": 25, "endLine": 28, "totalLines": 33}));
}

#[test]
fn a_dotted_path_and_a_line_selector_pick_one_of_two_same_names() {
    let ws = setup();
    let ambiguous = read(&ws, json!({"path": "cart.ts", "symbol": "addItem"}));
    assert!(!ambiguous.is_error);
    assert_snapshot!(ambiguous.text(), @"
    Symbol 'addItem' is ambiguous.
    Matches:
    - addItem (method) in ShoppingCart — lines 20-23
    - addItem (function) — lines 31-33
    Use addItem@20 or addItem@31 to select by start line.
    ");
    assert_eq!(ambiguous.ptc_value()["ambiguity"]["totalCandidates"], 2);
    assert_eq!(ambiguous.ptc_value()["lines"], json!([]));
    let by_path = read(&ws, json!({"path": "cart.ts", "symbol": "ShoppingCart.addItem"}));
    assert_eq!(by_path.ptc_value()["symbol"]["startLine"], 20);
    assert_eq!(by_path.ptc_value()["symbol"]["tier"], "path");
    let by_line = read(&ws, json!({"path": "cart.ts", "symbol": "addItem@31"}));
    assert_eq!(by_line.ptc_value()["symbol"]["startLine"], 31);
    assert_eq!(by_line.ptc_value()["symbol"]["tier"], "line");
}

#[test]
fn case_insensitive_is_silent_and_fuzzy_tiers_warn() {
    let ws = setup();
    let insensitive = read(&ws, json!({"path": "cart.ts", "symbol": "shoppingcart"}));
    assert_eq!(insensitive.ptc_value()["symbol"]["tier"], "caseInsensitive");
    assert_eq!(insensitive.ptc_value()["warnings"], json!([]));
    let prefix = read(&ws, json!({"path": "cart.ts", "symbol": "roundC"}));
    assert_eq!(prefix.ptc_value()["symbol"]["tier"], "prefix");
    assert_eq!(prefix.ptc_value()["warnings"][0]["code"], "fuzzy-symbol-match");
    assert_snapshot!(prefix.text(), @r#"
    snapshot: srrwx8pdn
    [Symbol 'roundC' not exact-matched. Closest match: `roundCents` (function, lines 6-9) via prefix. To confirm: read({ symbol: "roundCents" }) or roundCents@6 to select by start line.]

    [Symbol: roundCents (function), lines 6-9 of 33]

    6:169|/** Rounds to cents. */
    7:94a|function roundCents(value: number): number {
    8:fad|  return Math.round(value * 100) / 100;
    9:b18|}
    "#);
    let camel = read(&ws, json!({"path": "cart.ts", "symbol": "with"}));
    assert_eq!(camel.ptc_value()["symbol"]["name"], "totalWithTax");
    assert_eq!(camel.ptc_value()["symbol"]["tier"], "camelCase");
    let substring = read(&ws, json!({"path": "cart.ts", "symbol": "ithTa"}));
    assert_eq!(substring.ptc_value()["symbol"]["tier"], "substring");
    assert_snapshot!(substring.text().lines().next().unwrap_or_default(), @"snapshot: srrwx8pdn");
}

#[test]
fn a_missing_symbol_falls_back_to_the_file_with_a_warning() {
    let ws = setup();
    let result = read(&ws, json!({"path": "cart.ts", "symbol": "checkout"}));
    assert!(!result.is_error);
    assert_eq!(result.ptc_value()["warnings"][0]["code"], "symbol-warning");
    assert_eq!(result.ptc_value()["range"]["endLine"], 33);
    assert_snapshot!(result.text().lines().next().unwrap_or_default(), @"snapshot: srrwx8pdn");
    ws.file("notes.txt", "plain\n");
    let plain = read(&ws, json!({"path": "notes.txt", "symbol": "x"}));
    assert_snapshot!(plain.text(), @"
    snapshot: s6k2es1qd
    [Warning: symbol lookup not available for .txt files — showing full file]

    1:361|plain
    ");
}

#[test]
fn symbol_with_limit_caps_the_symbol_and_says_how_to_continue() {
    let ws = setup();
    let result = read(&ws, json!({"path": "cart.ts", "symbol": "ShoppingCart", "limit": 3}));
    assert_snapshot!(result.text(), @"
    snapshot: srrwx8pdn
    [Symbol: ShoppingCart (class), lines 16-29 of 33]

    16:304|/** A shopping cart. */
    17:4c4|export class ShoppingCart {
    18:e49|  private items: LineItem[] = [];

    [Showing lines 16-18 of 33. Use offset=19 to continue.]
    ");
}

#[test]
fn map_true_appends_the_structural_map() {
    let ws = setup();
    let result = read(&ws, json!({"path": "cart.ts", "offset": 1, "limit": 2, "map": true}));
    assert_eq!(result.ptc_value()["map"], json!({"requested": true, "appended": true}));
    assert_snapshot!(result.text(), @r#"
    snapshot: srrwx8pdn
    1:9e6|import { Money } from "./money";
    2:d05|

    [Showing lines 1-2 of 33. Use offset=3 to continue.]

    ───────────────────────────────────────
    File Map: cart.ts
    33 lines │ 0.7 KB │ TypeScript
    ───────────────────────────────────────

    imports: ./money

    TAX_RATE = ... [3-4] — Tax rate applied to every order.
    roundCents(value: number): number: [6-9] — Rounds to cents.
    interface LineItem: [11-14]
    class ShoppingCart: [16-29] — A shopping cart.
      addItem(item: LineItem): void: [20-23] — Adds one item.
      totalWithTax(): number: [25-28]
    addItem(cart: ShoppingCart, sku: string): void: [31-33]

    ───────────────────────────────────────
    Use read(path, offset=LINE, limit=N) for targeted reads.
    ───────────────────────────────────────
    "#);
    ws.file("notes.txt", "plain\n");
    let plain = read(&ws, json!({"path": "notes.txt", "map": true}));
    assert_eq!(plain.ptc_value()["warnings"][0]["code"], "map-unavailable");
    assert_snapshot!(plain.text(), @"
    [Warning: structural map not available for .txt files]

    snapshot: s6k2es1qd
    1:361|plain
    ");
}

#[test]
fn a_truncated_full_read_appends_the_map_on_its_own() {
    let ws = Workspace::new();
    let mut source = String::new();
    for i in 0..1200 {
        source.push_str(&format!("def f{i}(x):\n    return x + {i}\n"));
    }
    ws.file("big.py", &source);
    let result = read(&ws, json!({"path": "big.py"}));
    assert_eq!(result.ptc_value()["map"], json!({"requested": false, "appended": true}));
    let text = result.text();
    let tail = &text[text.find("[Output truncated").unwrap_or(0)..];
    assert_snapshot!(tail.lines().take(12).collect::<Vec<_>>().join("\n"), @"
    [Output truncated: showing 1246 of 2400 lines (19.3KB of 37.7KB). Use offset=1247 to continue.]

    ───────────────────────────────────────
    File Map: big.py
    2,400 lines │ 37.7 KB │ Python
    ───────────────────────────────────────

    [Map ≤25.0 KB | minimal]

    f0: [1-2]
    f1: [3-4]
    f2: [5-6]
    ");
    let windowed = read(&ws, json!({"path": "big.py", "offset": 1, "limit": 2400}));
    assert_eq!(windowed.ptc_value()["map"]["appended"], false);
}

#[test]
fn a_local_bundle_adds_the_symbols_the_requested_one_uses() {
    let ws = setup();
    let result = read(&ws, json!({"path": "cart.ts", "symbol": "totalWithTax", "bundle": "local"}));
    assert_snapshot!(result.text(), @"
    snapshot: srrwx8pdn
    [Symbol: totalWithTax (method) in ShoppingCart, lines 25-28 of 33]

    ## Requested symbol
    25:f6e|  totalWithTax(): number {
    26:91f|    const sum = this.items.reduce((a, i) => a + i.price, 0);
    27:122|    return roundCents(sum * (1 + TAX_RATE));
    28:ac9|  }

    ## Local support
    3:a27|/** Tax rate applied to every order. */
    4:138|export const TAX_RATE = 0.2;

    6:169|/** Rounds to cents. */
    7:94a|function roundCents(value: number): number {
    8:fad|  return Math.round(value * 100) / 100;
    9:b18|}
    ");
    let bundle = &result.ptc_value()["bundle"];
    assert_eq!(bundle["applied"], true);
    let names: Vec<&str> =
        bundle["localSupport"].as_array().unwrap().iter().filter_map(|s| s["name"].as_str()).collect();
    assert_eq!(names, ["TAX_RATE", "roundCents"]);
    // Issue 21 item 4: the support rows are in the value too, whole (only their anchors
    // were on 9b00c33), and no blank line follows the section's heading.
    let support = &bundle["localSupport"][1]["lines"];
    assert_eq!(support.as_array().map(Vec::len), Some(4));
    assert_eq!(support[1]["line"], 7);
    assert_eq!(support[1]["anchor"], "7:94a");
    assert_eq!(support[1]["raw"], "function roundCents(value: number): number {");
    assert_eq!(result.ptc_value()["lines"].as_array().map(Vec::len), Some(4), "lines: the requested symbol's rows");
    // Support rows are served: an edit of them passes the guards.
    let edit = ws.call::<EditTool>(json!({"path": "cart.ts", "edits": [{"set_line": {"anchor": bundle["localSupport"][0]["lineAnchors"][1], "new_text": "export const TAX_RATE = 0.25;"}}]}));
    assert!(!edit.is_error, "{}", edit.text());
}

#[test]
fn a_bundle_that_would_guess_is_refused_with_a_warning() {
    let ws = Workspace::new();
    ws.file(
        "shapes.py",
        "class Square:\n    def area(self):\n        return 4\n\n\nclass Circle:\n    def area(self):\n        return 3\n\n\ndef total(shape):\n    return shape.area()\n",
    );
    let result = read(&ws, json!({"path": "shapes.py", "symbol": "total", "bundle": "local"}));
    assert!(!result.is_error);
    assert_eq!(result.ptc_value()["bundle"]["applied"], false);
    assert_eq!(result.ptc_value()["warnings"][0]["code"], "bundle-context-unavailable");
    assert_snapshot!(result.text(), @"
    snapshot: sk23xe67p
    [Warning: local bundle unavailable — 'area' names 2 symbols in this file, so its support cannot be chosen safely. Showing the requested symbol only.]

    [Symbol: total (function), lines 11-12 of 12]

    11:596|def total(shape):
    12:358|    return shape.area()
    ");
}

#[test]
fn symbol_with_offset_and_bundle_without_symbol_are_refused() {
    let ws = setup();
    let both = read(&ws, json!({"path": "cart.ts", "symbol": "x", "offset": 2}));
    assert_eq!(code(&both), "invalid-params-combo");
    let bundle = read(&ws, json!({"path": "cart.ts", "bundle": "local"}));
    assert_eq!(code(&bundle), "invalid-params-combo");
}

/// A Rust file just over the 8 MiB parse limit.
fn over_the_parse_limit(ws: &Workspace) {
    let limit = hashline_syntax::ParseLimits::DEFAULT.max_bytes;
    let line = "fn f() {}\n";
    ws.file("big.rs", line.repeat(limit / line.len() + 1));
}

#[test]
fn a_file_over_the_parse_limit_reads_whole_with_a_warning() {
    let ws = Workspace::new();
    over_the_parse_limit(&ws);
    let result = ws.call::<ReadTool>(json!({"path": "big.rs", "symbol": "f", "limit": 2}));
    assert!(!result.is_error, "{}", result.text());
    let warnings = result.ptc_value()["warnings"].clone();
    assert_eq!(warnings[0]["code"], "symbol-warning", "{warnings}");
    assert_snapshot!(warnings[0]["message"].as_str().unwrap(), @"[Warning: symbol lookup failed (the file has 8388610 bytes, more than the 8388608-byte parse limit) — showing full file]");
    let result = ws.call::<ReadTool>(json!({"path": "big.rs", "map": true, "limit": 2}));
    let warnings = result.ptc_value()["warnings"].clone();
    assert_eq!(warnings[0]["code"], "map-unavailable", "{warnings}");
    assert_snapshot!(warnings[0]["message"].as_str().unwrap(), @"[Warning: structural map not available: the file has 8388610 bytes, more than the 8388608-byte parse limit]");
}

#[test]
fn a_symbol_edit_of_a_file_over_the_parse_limit_is_refused() {
    let ws = Workspace::new();
    over_the_parse_limit(&ws);
    ws.call::<ReadTool>(json!({"path": "big.rs", "limit": 2}));
    let before = std::fs::read(ws.path("big.rs")).unwrap();
    let result = ws.call::<EditTool>(
        json!({"path": "big.rs", "edits": [{"replace_symbol": {"symbol": "f", "new_body": "fn f() { 1 }"}}]}),
    );
    assert_eq!(code(&result), "unsupported-language", "{}", result.text());
    assert_eq!(std::fs::read(ws.path("big.rs")).unwrap(), before, "nothing written");
    assert_snapshot!(ws.redact(&result.text()), @"
    Edit rejected — nothing was written. edits[0]: replace_symbol could not map big.rs: the file has 8388610 bytes, more than the 8388608-byte parse limit.
    Use replace_lines / insert_after with anchors from read for this file.
    ");
}

#[test]
fn a_blank_symbol_in_an_edit_is_refused() {
    let ws = Workspace::new();
    ws.file("cart.ts", CART);
    ws.call::<ReadTool>(json!({"path": "cart.ts"}));
    let mut texts = Vec::new();
    for item in [
        json!({"replace_symbol": {"symbol": "  ", "new_body": "x"}}),
        json!({"insert_after_symbol": {"symbol": "", "new_text": "x"}}),
    ] {
        let result = ws.call::<EditTool>(json!({"path": "cart.ts", "edits": [item]}));
        assert_eq!(code(&result), "invalid-edit-variant", "{}", result.text());
        assert_eq!(std::fs::read_to_string(ws.path("cart.ts")).unwrap(), CART);
        texts.push(ws.redact(&result.text()));
    }
    assert_snapshot!(texts.join("\n"), @"
    Edit rejected — nothing was written. edits[0].replace_symbol.symbol must not be empty.
    Edit rejected — nothing was written. edits[0].insert_after_symbol.symbol must not be empty.
    ");
}

/// Issue 21 item 2: the `fuzzy-symbol-match` warning carries its tier, the matched symbol
/// and its range in the value (on 9b00c33 it had only `code` and `message`).
#[test]
fn the_fuzzy_warning_says_its_tier_and_match_in_the_value() {
    let ws = setup();
    let camel = read(&ws, json!({"path": "cart.ts", "symbol": "with"}));
    let warning = &camel.ptc_value()["warnings"][0];
    assert_eq!(warning["code"], "fuzzy-symbol-match");
    assert_eq!(
        warning["symbol"],
        json!({"query": "with", "tier": "camelCase", "name": "totalWithTax", "kind": "method",
               "parentName": "ShoppingCart", "startLine": 25, "endLine": 28, "candidates": []})
    );
    let prefix = read(&ws, json!({"path": "cart.ts", "symbol": "roundC"}));
    assert_eq!(prefix.ptc_value()["warnings"][0]["symbol"]["tier"], "prefix");
    assert_eq!(prefix.ptc_value()["warnings"][0]["symbol"]["startLine"], 6);
    let exact = read(&ws, json!({"path": "cart.ts", "symbol": "roundCents"}));
    assert_eq!(exact.ptc_value()["warnings"], json!([]));
}

/// Issue 21 item 7: a symbol read's parse is handed to the session's syntax trees, so the
/// next edit's check reparses only what it changes (on 9b00c33 the tree was dropped: the
/// cache stayed empty and the edit parsed the old file from scratch).
#[test]
fn a_symbol_reads_parse_is_kept_for_the_next_edits_check() {
    let ws = setup();
    assert!(ws.session.syntax_trees().is_empty());
    read(&ws, json!({"path": "cart.ts", "symbol": "roundCents"}));
    let bytes = std::fs::read(ws.path("cart.ts")).expect("read");
    let key = ws.path("cart.ts");
    let tree = ws.session.syntax_trees().get(&key, hashline_syntax::LanguageId::TypeScript, &bytes);
    assert!(tree.is_some_and(|t| t.census.issues.is_empty()), "the read's tree is kept");
}
