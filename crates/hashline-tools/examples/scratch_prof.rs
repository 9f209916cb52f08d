use hashline_core::Document;
use hashline_syntax::*;
use std::time::Instant;
fn tenk() -> String {
    let mut out = String::new();
    for i in 0..10_000u32 {
        let indent = "    ".repeat((i % 4) as usize);
        match i % 5 {
            0 => out.push_str(&format!("{indent}fn item_{i}(value: u32) -> Result<u32, Error> {{\n")),
            1 => out.push_str(&format!("{indent}let total = value.checked_mul({i}).ok_or(Error::Overflow)?;\n")),
            2 => out.push_str(&format!("{indent}// explains step {i} of the computation in a sentence\n")),
            3 => out.push('\n'),
            _ => out.push_str(&format!("{indent}}}\n")),
        }
    }
    out
}
#[inline(never)]
fn cg_parse(doc: &Document) -> Parsed {
    parse_document(
        LanguageId::Rust,
        doc,
        ParseLimits { max_time: std::time::Duration::from_secs(600), ..ParseLimits::DEFAULT },
    )
    .unwrap()
}
#[inline(never)]
fn cg_map(p: &Parsed, doc: &Document) -> hashline_symbols::SymbolMap {
    hashline_symbols::map_parsed(p, doc)
}
fn main() {
    let src = tenk();
    let limits = ParseLimits { max_time: std::time::Duration::from_secs(60), ..ParseLimits::DEFAULT };
    if std::env::args().nth(1).as_deref() == Some("loop") {
        let text: String = src.clone();
        let doc = Document::parse(text.into_bytes());
        let p = parse_document(LanguageId::Rust, &doc, limits).unwrap();
        for _ in 0..40 {
            std::hint::black_box(hashline_symbols::map_parsed(&p, &doc));
        }
        return;
    }
    if std::env::args().nth(1).as_deref() == Some("cg") {
        let doc = Document::parse(src.clone().into_bytes());
        let p = cg_parse(&doc);
        let m = cg_map(&p, &doc);
        std::hint::black_box(m);
        return;
    }
    if std::env::args().nth(1).as_deref() == Some("walk") {
        let doc = Document::parse(src.clone().into_bytes());
        let p = parse_document(LanguageId::Rust, &doc, limits).unwrap();
        for _ in 0..3 {
            let t = Instant::now();
            let mut c = p.tree.walk();
            let mut count = 0usize;
            'outer: loop {
                count += 1;
                if c.goto_first_child() {
                    continue;
                }
                loop {
                    if c.goto_next_sibling() {
                        continue 'outer;
                    }
                    if !c.goto_parent() {
                        break 'outer;
                    }
                }
            }
            let tw = t.elapsed();
            let t = Instant::now();
            let q = hashline_syntax::tree_sitter::Query::new(&LanguageId::Rust.ts_language(), "(function_item name: (identifier) @name) @definition.function\n(struct_item name: (type_identifier) @name) @definition.struct").unwrap();
            let tq0 = t.elapsed();
            let t = Instant::now();
            let mut qc = hashline_syntax::tree_sitter::QueryCursor::new();
            use hashline_syntax::tree_sitter::StreamingIterator;
            let mut m = qc.matches(&q, p.tree.root_node(), doc.as_bytes());
            let mut k = 0;
            while let Some(_x) = m.next() {
                k += 1;
            }
            let tq = t.elapsed();
            let t = Instant::now();
            let _ = hashline_symbols::map_parsed(&p, &doc);
            println!(
                "nodes {count} walk {tw:?}; query compile {tq0:?} 2-pattern query {tq:?} ({k}); map_parsed {:?}",
                t.elapsed()
            );
        }
        return;
    }
    for n in [10_000usize, 100_000] {
        let text: String = src.lines().cycle().take(n).flat_map(|l| [l, "\n"]).collect();
        let doc = Document::parse(text.into_bytes());
        let t = Instant::now();
        let p = parse_document(LanguageId::Rust, &doc, limits).unwrap();
        let tp = t.elapsed();
        let t = Instant::now();
        let root = p.tree.root_node();
        let mut c = root.walk();
        let kids: Vec<_> = root.children(&mut c).collect();
        let mut k = 0usize;
        let nk = kids.len();
        for kid in &kids {
            if kid.parent().is_some() {
                k += 1;
            }
            if kid.prev_sibling().is_some() {
                k += 1;
            }
        }
        let tq = t.elapsed();
        let t = Instant::now();
        let m = hashline_symbols::map_document("a.rs", &doc).unwrap();
        let tm = t.elapsed();
        let t = Instant::now();
        let _mp = hashline_symbols::map_parsed(&p, &doc);
        let tmp = t.elapsed();
        let t = Instant::now();
        drop(kids);
        drop(c);
        drop(p);
        let td = t.elapsed();
        println!("map_parsed {tmp:?} drop tree {td:?}");
        println!(
            "{n} lines: parse {tp:?}; parent+prev_sibling of {} top-level nodes {tq:?} ({k}); map {tm:?} ({} symbols) map/parse {:.2}",
            nk,
            m.map(|m| m.symbols.len()).unwrap_or(0),
            tm.as_secs_f64() / tp.as_secs_f64()
        );
    }
}
