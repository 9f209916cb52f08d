//! How long compiling each registry language's symbol query takes (once per process, on the
//! first map of a file of that language), and with a language name, each pattern's share:
//! `cargo run --release -p hashline-symbols --example query_cost -- [LANG]`.
//!
//! ```text
//! $ cargo run --release -p hashline-symbols --example query_cost -- go
//! go             10 patterns     1.16 ms
//!     0     0.31 ms  (function_declaration name: (identifier) @name) @definition.function
//! ```

use hashline_syntax::LanguageId;
use hashline_syntax::tree_sitter::Query;

fn main() {
    let only = std::env::args().nth(1);
    for &lang in LanguageId::ALL {
        if only.as_deref().is_some_and(|name| name != lang.name()) {
            continue;
        }
        let source = lang.spec().symbols.query;
        let started = std::time::Instant::now();
        let query = match Query::new(&lang.ts_language(), source) {
            Ok(query) => query,
            Err(err) => {
                eprintln!("{}: the query does not compile: {err}", lang.name());
                std::process::exit(1);
            }
        };
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
        println!("{:<12} {:>4} patterns {:>8.2} ms", lang.name(), query.pattern_count(), ms(started.elapsed()));
        if only.is_none() {
            continue;
        }
        let count = query.pattern_count();
        for i in 0..count {
            let start = query.start_byte_for_pattern(i);
            let end = if i + 1 < count { query.start_byte_for_pattern(i + 1) } else { source.len() };
            let started = std::time::Instant::now();
            let _ = Query::new(&lang.ts_language(), &source[start..end]);
            let first = source[start..end].lines().next().unwrap_or("");
            println!("  {i:>3} {:>8.2} ms  {first}", ms(started.elapsed()));
        }
    }
}
