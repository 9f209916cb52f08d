//! The map's budget ladder: each rung is reached as the map grows, and the last one keeps
//! the first and last symbols with a note of what was left out.

use hashline_symbols::{MapDetail, Symbol, SymbolKind, SymbolMap, render_map};
use insta::assert_snapshot;

fn symbol(name: String, kind: SymbolKind, line: u32, children: Vec<Symbol>) -> Symbol {
    Symbol {
        signature: Some(format!("{name}(first: FirstArgument, second: SecondArgument) -> ResultType")),
        doc: Some("Does the thing this symbol does.".to_owned()),
        name,
        kind,
        parent: None,
        start_line: line,
        decl_line: line,
        end_line: line + 9,
        children,
    }
}

/// `n` classes, each with `k` methods.
fn map(n: u32, k: u32) -> SymbolMap {
    let symbols = (0..n)
        .map(|i| {
            let methods = (0..k)
                .map(|j| symbol(format!("method_{i}_{j}"), SymbolKind::Method, i * 100 + j * 10 + 2, Vec::new()))
                .collect();
            symbol(format!("Class{i}"), SymbolKind::Class, i * 100 + 1, methods)
        })
        .collect();
    SymbolMap {
        language: "Python".to_owned(),
        line_count: n * 100,
        byte_count: u64::from(n) * 4000,
        imports: Vec::new(),
        symbols,
    }
}

#[test]
fn every_rung_is_reached_in_order() {
    let cases = [
        (5, 5, MapDetail::Full),
        (20, 5, MapDetail::Compact),
        (60, 12, MapDetail::Minimal),
        (700, 10, MapDetail::Outline),
        (3000, 1, MapDetail::Outline),
        (6000, 0, MapDetail::Truncated),
    ];
    for (n, k, expected) in cases {
        let rendered = render_map("big.py", &map(n, k));
        assert_eq!(rendered.detail, expected, "{n} classes × {k} methods: {} bytes", rendered.text.len());
        assert!(rendered.text.len() <= 100 * 1024);
    }
}

#[test]
fn labels_name_the_rung() {
    let label = |n, k| render_map("big.py", &map(n, k)).text.lines().nth(5).unwrap_or_default().to_owned();
    assert_snapshot!([label(20, 5), label(60, 12), label(700, 10), label(3000, 1), label(6000, 0)].join("\n"), @"
    [Map ≤20.0 KB | compact]
    [Map ≤25.0 KB | minimal]
    [Map ≤50.0 KB | outline]
    [Map ≤100.0 KB | outline]
    [Map ≤100.0 KB | 3182 of 6000 symbols]
    ");
}

#[test]
fn the_truncated_rung_names_what_it_left_out() {
    let rendered = render_map("big.py", &map(6000, 0));
    assert_eq!(rendered.total, 6000);
    let text = &rendered.text;
    let separator = text.lines().find(|l| l.contains("more symbols")).unwrap_or_default();
    let footer: Vec<&str> = text.lines().rev().take(3).collect();
    assert_snapshot!(format!("{separator}\n{}", footer.into_iter().rev().collect::<Vec<_>>().join("\n")), @"
      ─ ─ ─ 2818 more symbols ─ ─ ─
    Omitted symbols are in lines 159101-440810.
    Use read(path, offset=LINE, limit=N) to view specific sections.
    ───────────────────────────────────────
    ");
}
