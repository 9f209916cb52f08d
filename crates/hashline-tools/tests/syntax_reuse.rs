//! The syntax check's verdict with the session's kept trees (each edit reparsed
//! incrementally from the tree of the one before) is exactly the verdict of fresh parses,
//! over sequences of random line edits of real source files (issue 23).

use std::path::Path;

use hashline_core::{Document, LineNo};
use hashline_tools::tree_cache::TreeCache;
use hashline_tools::validate::{Memo, SyntaxMode, SyntaxOutcome, check};
use proptest::prelude::*;

/// Real files of several languages: (name, text).
const FILES: &[(&str, &str)] = &[
    ("parse.rs", include_str!("../../hashline-syntax/src/parse.rs")),
    ("accounts.rs", include_str!("../../hashline-syntax/languages/rust/accounts.rs")),
    ("arena.c", include_str!("../../hashline-syntax/languages/c/arena.c")),
    ("ring.c", include_str!("../../hashline-symbols/tests/data/ring.c")),
    ("scheduler.py", include_str!("../../hashline-syntax/languages/python/scheduler.py")),
    ("orders.py", include_str!("../../hashline-symbols/tests/data/orders.py")),
    ("cart.ts", include_str!("../../hashline-syntax/languages/typescript/cart.ts")),
    ("service.ts", include_str!("../../hashline-symbols/tests/data/service.ts")),
    ("cache.go", include_str!("../../hashline-syntax/languages/go/cache.go")),
    ("page.js", include_str!("../../hashline-show/src/html/page.js")),
];

/// Lines an edit may bring in: ones that open or close braces, brackets, strings and
/// comments, and ordinary code of the languages above.
const PIECES: &[&str] = &[
    "{",
    "}",
    "    }",
    "(",
    ")",
    "[",
    "\"",
    "'",
    "`",
    "\"\"\"",
    "/*",
    "*/",
    "//",
    "#",
    "",
    "    return 1;",
    "    x = f(a, b)",
    "fn added() {",
    "int added(void) {",
    "def added(x):",
    "    pass",
    "function added() {",
    "let s = \"unterminated",
    "    /* a comment */ y = 2;",
    "#ifdef FEATURE",
    "#endif",
    "class Added:",
    "    if x {",
    "};",
];

/// One line edit: at a position (a fraction of the file), delete some lines, insert some.
#[derive(Clone, Debug)]
struct LineEdit {
    at: f64,
    delete: usize,
    insert: Vec<&'static str>,
    block: bool,
}

fn line_edit() -> impl Strategy<Value = LineEdit> {
    (0.0..=1.0f64, 0..4usize, prop::collection::vec(prop::sample::select(PIECES), 0..4), prop::bool::weighted(0.25))
        .prop_map(|(at, delete, insert, block)| LineEdit { at, delete, insert, block })
}

/// The lines of `text` (each with its terminator).
fn lines_of(text: &str) -> Vec<String> {
    text.split_inclusive('\n').map(str::to_owned).collect()
}

/// Applies `edit` to `lines`: the new lines and the old-to-new line map's parameters
/// (first changed index, lines deleted, lines inserted).
fn apply(lines: &[String], edit: &LineEdit) -> (Vec<String>, usize, usize, usize) {
    let at = ((lines.len() as f64) * edit.at) as usize;
    let at = at.min(lines.len());
    let delete = edit.delete.min(lines.len() - at);
    let mut new = lines[..at].to_vec();
    new.extend(edit.insert.iter().map(|l| format!("{l}\n")));
    new.extend_from_slice(&lines[at + delete..]);
    (new, at, delete, edit.insert.len())
}

proptest! {
    #[test]
    fn kept_trees_give_the_verdict_of_fresh_parses(
        file in 0..FILES.len(),
        edits in prop::collection::vec(line_edit(), 1..7),
    ) {
        let (name, text) = FILES[file];
        let path = format!("/virtual/{name}");
        let key = Path::new(&path);
        let trees = TreeCache::default();
        let mut lines = lines_of(text);
        for (step, edit) in edits.iter().enumerate() {
            let before = Document::parse(lines.concat().into_bytes());
            let (new, at, deleted, inserted) = apply(&lines, edit);
            let after = Document::parse(new.concat().into_bytes());
            let map = |old: LineNo| {
                let i = old.index();
                if i < at {
                    Some(old)
                } else if i < at + deleted {
                    None
                } else {
                    Some(LineNo::from_index(i - deleted + inserted))
                }
            };
            let mode = if edit.block { SyntaxMode::Block } else { SyntaxMode::Warn };
            let memo = Memo { trees: &trees, key, store: None };
            let kept: SyntaxOutcome = check(mode, &path, Some(&before), &after, map, Some(memo));
            let fresh: SyntaxOutcome = check(mode, &path, Some(&before), &after, map, None);
            prop_assert_eq!(&kept, &fresh, "{} step {}: {:?}", name, step, edit);
            prop_assert!(kept.checked);
            prop_assert_eq!(trees.len(), 1);
            // A refused change leaves the file as it was.
            if mode != SyntaxMode::Block || kept.new_problems.is_empty() {
                lines = new;
            }
        }
    }
}
