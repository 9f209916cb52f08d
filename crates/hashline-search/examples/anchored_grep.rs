//! Searches a directory like `rg -n`, printing each matching line with its hashline anchor:
//! `cargo run -p hashline-search --example anchored_grep -- PATTERN [DIR]`.
//!
//! ```text
//! $ cargo run -p hashline-search --example anchored_grep -- 'fn search\(' crates/hashline-search/src
//! crates/hashline-search/src/walk.rs:93:c62|pub fn search(root: &Path, query: &CompiledQuery, options: &SearchOptions) -> ...
//! 1 match in 1 file
//! ```

use std::path::PathBuf;

use hashline_search::{Query, SearchOptions, search};

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(pattern) = args.next() else {
        eprintln!("usage: anchored_grep PATTERN [DIR]");
        std::process::exit(2);
    };
    let dir = PathBuf::from(args.next().unwrap_or_else(|| ".".to_owned()));
    let query = match Query::new(&pattern).compile() {
        Ok(query) => query,
        Err(err) => {
            eprintln!("{pattern}: {err}");
            std::process::exit(2);
        }
    };
    let found = match search(&dir, &query, &SearchOptions::default()) {
        Ok(found) => found,
        Err(err) => {
            eprintln!("{}: {err}", dir.display());
            std::process::exit(1);
        }
    };
    for file in &found.files {
        for line in &file.lines {
            println!("{}:{}|{}", file.path.display(), line.anchor(), String::from_utf8_lossy(&line.content));
        }
    }
    let files = found.files.len();
    println!(
        "{} match{} in {files} file{}",
        found.total_matches,
        if found.total_matches == 1 { "" } else { "es" },
        if files == 1 { "" } else { "s" }
    );
}
