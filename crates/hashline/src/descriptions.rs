//! What each tool tells a model about itself. These texts are part of the protocol:
//! they are pinned by snapshot tests (and by `fixtures/schemas/` once it exists). The
//! languages they list come from the registry of `hashline-syntax`.

use std::sync::LazyLock;

use hashline_syntax::LanguageId;

/// The registry's languages as people write them: `Rust, C, C++, …`.
fn display_names() -> String {
    LanguageId::ALL.iter().map(|l| l.display_name()).collect::<Vec<_>>().join(", ")
}

/// `read`.
pub static READ: LazyLock<String> = LazyLock::new(|| {
    format!(
        "Read a text file as rows `LINE:HASH|content`, e.g. `12:3c8|let x = 1;`: a row's `LINE:HASH` is its anchor for \
`edit`, so you never retype old text. Output stops at 2000 lines / 50 KB at a whole row, with a note naming the offset \
that continues. Images (png, jpeg, gif, webp) come back as images. `symbol` and `map` work in {}; Markdown, JSON, \
YAML and TOML have outlines too.",
        display_names()
    )
});

/// `write`.
pub const WRITE: &str = "Create a file or replace its whole content, atomically (parent directories are created; \
permissions and symlinks are kept). Returns the new content as anchored rows, ready for `edit`. To change part of a \
file, use `edit`.";

/// `ls`.
pub const LS: &str = "List one directory: subdirectories first (ending in `/`), then files, each sorted by name; \
dotfiles included. `find` searches below it.";

/// `find`.
pub const FIND: &str = "Find files by name below a directory: .gitignore is honoured, .git skipped, hidden files \
included. Paths are shown relative to the working directory.";

/// `grep`.
pub const GREP: &str = "Search file contents (ripgrep's engine) for edit-ready anchored rows: \
`[N matches in M files]`, then per file `--- path (K matches; snapshot: s…) ---` and rows `path:>>LINE:HASH|text` for matches, \
`path:  LINE:HASH|text` for context, `--` between gaps. The anchors work in `edit` directly, without a read. Like \
ripgrep it honours .gitignore and skips hidden and binary files.";

/// `ast_search`.
pub const AST_SEARCH: &str = "Search code by structure (ast-grep patterns over tree-sitter grammars) for \
edit-ready anchored rows: `--- path ---`, then rows with `>>` on matched lines (nearby matches merge into one block); \
the anchors work in `edit` directly. A pattern is code with metavariables, e.g. `$X.unwrap()`, \
`fn $NAME($$$ARGS) -> Result<$$$T>`, `console.log($$$)`. A block over the 2000-line / 50 KB budget is left out with \
a notice; files over 4 MiB, or whose search takes over 2 s, are named in a `[Not searched: …]` line (grep them).";

/// `edit`.
pub const EDIT: &str = "Edit a text file by anchors: `LINE:HASH` copied from the rows of read, write, grep or ast_search (e.g. \
`12:3c8`). `edits` holds items of one key each (set_line, replace_lines, insert_after, replace, replace_symbol, \
insert_before_symbol, insert_after_symbol, copy_lines, move_lines). Every anchor refers to the file as you last saw \
it: do not shift line numbers for other edits of the same call. Pass the newest `snapshot: s…` tag you were shown \
for the file as `snapshot` (an edit's or a refusal's tag also covers the rows you had before it): the anchors then \
follow their lines however the file changed since. new_text is plain content without row prefixes \
(echoed ones are removed unless `literal: true`); `\"\"` deletes, `\"\\n\"` leaves one empty line. Nothing is \
written unless every edit is valid. If the file changed since you saw it, the edit is refused with `hash-mismatch` \
and fresh rows: retry with those anchors, no re-read needed. The result names the anchors of the lines it added \
(`Anchors of the added lines: 12:3c8 13:a1f`), in order. Symbol edits and the syntax check after each edit (a warning naming only lines the edit \
broke) work in the languages of read's `symbol`.";
