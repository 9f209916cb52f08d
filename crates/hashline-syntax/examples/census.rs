//! Prints the syntax problems of a file: `cargo run -p hashline-syntax --example census -- FILE`.

use hashline_core::Document;
use hashline_syntax::{LanguageId, ParseLimits, census, line_list, parse_document};

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: census FILE");
        std::process::exit(2);
    };
    let Some(lang) = LanguageId::from_path(&path) else {
        eprintln!("{path}: no tree-sitter language for this extension");
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
    match parse_document(lang, &doc, ParseLimits::DEFAULT) {
        Ok(parsed) => {
            let found = census(&parsed.tree, &doc, parsed.text_start);
            println!(
                "{path} ({lang}): {} ERROR, {} MISSING{}",
                found.errors(),
                found.missing(),
                if found.is_clean() {
                    String::new()
                } else {
                    format!(" — lines {}", line_list(found.issues.iter().map(|i| i.lines)))
                }
            );
        }
        Err(err) => println!("{path} ({lang}): not checked: {err}"),
    }
}
