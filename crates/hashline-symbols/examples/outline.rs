//! Prints a file's symbol map, or one symbol's lines:
//! `cargo run -p hashline-symbols --example outline -- FILE [SELECTOR]`.
//!
//! ```text
//! $ cargo run -p hashline-symbols --example outline -- crates/hashline-symbols/src/cache.rs MapCache.get_or_build
//! method get_or_build in MapCache, lines 55-84 (dotted path): pub fn get_or_build<E>(
//! ```

use hashline_core::Document;
use hashline_symbols::{Selection, map_document, render_map, select};

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: outline FILE [SELECTOR]");
        std::process::exit(2);
    };
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(err) => {
            eprintln!("{path}: {err}");
            std::process::exit(1);
        }
    };
    let doc = Document::parse(bytes);
    let map = match map_document(&path, &doc) {
        Some(Ok(map)) => map,
        Some(Err(err)) => {
            eprintln!("{path}: not mapped: {err}");
            std::process::exit(1);
        }
        None => {
            eprintln!("{path}: no map for this kind of file");
            std::process::exit(2);
        }
    };
    let Some(selector) = args.next() else {
        print!("{}", render_map(&path, &map).text);
        return;
    };
    match select(&map, &selector) {
        Selection::Found { found, tier, .. } => {
            let symbol = &found.symbol;
            let first = doc.line(hashline_core::LineNo::new(symbol.decl_line).expect("1-based"));
            let head = first.map(|l| String::from_utf8_lossy(l.content).trim().to_owned()).unwrap_or_default();
            println!(
                "{} {}{}, lines {}-{} ({}): {head}",
                symbol.kind.as_str(),
                symbol.name,
                symbol.parent.as_ref().map(|p| format!(" in {p}")).unwrap_or_default(),
                symbol.start_line,
                symbol.end_line,
                tier.describe(),
            );
        }
        Selection::Ambiguous { candidates, .. } => {
            println!("{selector} is ambiguous:");
            for candidate in candidates {
                let symbol = &candidate.symbol;
                println!("  {}@{} ({})", symbol.name, symbol.start_line, symbol.kind.as_str());
            }
        }
        Selection::NotFound { .. } => {
            println!("{selector}: no such symbol");
            std::process::exit(1);
        }
    }
}
