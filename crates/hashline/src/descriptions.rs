//! What each tool tells a model about itself. These texts are part of the protocol:
//! they are pinned by snapshot tests (and by `fixtures/schemas/` once it exists). The
//! languages they list come from the registry of `hashline-syntax`.

use std::sync::LazyLock;

use hashline_syntax::LanguageId;

/// The registry's languages as people write them: `Rust, C, C++, …`.
fn display_names() -> String {
    LanguageId::ALL.iter().map(|l| l.display_name()).collect::<Vec<_>>().join(", ")
}

/// The registry's names as `ast_search`'s `lang` takes them, with what each also searches:
/// `rust, c, …, typescript (also .tsx files), tsx, …`.
fn lang_names() -> String {
    let name = |lang: LanguageId| {
        let also: Vec<String> =
            lang.spec().also_searches.iter().flat_map(|a| a.extensions().iter().map(|e| format!(".{e}"))).collect();
        if also.is_empty() {
            lang.name().to_owned()
        } else {
            format!("{} (also {} files)", lang.name(), also.join(", "))
        }
    };
    LanguageId::ALL.iter().map(|&l| name(l)).collect::<Vec<_>>().join(", ")
}

/// `read`.
pub static READ: LazyLock<String> = LazyLock::new(|| {
    format!(
        "Read a text file as anchored rows `LINE:HASH|content`, e.g. `12:3c8|let x = 1;`. \
Every row's `LINE:HASH` prefix is an anchor: copy it into `edit` to change that line, so you never retype old text. \
Use `offset` (1-based first line) and `limit` for large files; output is capped at 2000 lines / 50 KB at whole rows \
and ends with a note saying which offset continues. Images (png, jpeg, gif, webp) are returned as images. \
`symbol` reads one declaration (`name`, `Parent.name`, `name@LINE`) and `map: true` appends the file's outline, in \
{}; Markdown headings and JSON, YAML and TOML keys are outlined too.",
        display_names()
    )
});

/// `write`.
pub const WRITE: &str = "Create a file or replace its whole content (parent directories are created; the write is atomic \
and keeps permissions and symlinks). Returns the new content as anchored rows `LINE:HASH|content`, ready for `edit`. \
Prefer `edit` for changing part of an existing file.";

/// `ls`.
pub const LS: &str = "List one directory: subdirectories first (ending in `/`), then files, each group sorted by name; \
dotfiles included. `glob` filters entry names (e.g. `*.rs`); `limit` defaults to 500.";

/// `find`.
pub const FIND: &str = "Find files below `path` whose NAME matches `pattern`: a glob such as `*.rs` or `Cargo.toml` \
(matched against the basename only — put directories in `path`), or a regex with `regex: true`. Respects .gitignore, \
skips .git, includes hidden files. Filters: `type` (file, dir, any), `maxDepth`, `modifiedSince` (2026-01-31, 24h, 30m, 7d), \
`minSize`/`maxSize` (10K, 2MB); order with `sortBy` (name, mtime, size) and `reverse`. Paths are shown relative to the \
working directory; `limit` defaults to 1000.";

/// `grep`.
pub const GREP: &str = "Search file contents (ripgrep engine, in process) and get edit-ready anchored rows. \
`pattern` is a regular expression (Rust syntax) unless `literal: true`; `ignoreCase`, `glob` (e.g. `*.rs`), \
`context` (lines around each match) and `path` (a directory searched recursively, or one file) narrow it. \
Like ripgrep it honours .gitignore/.ignore and skips hidden and binary files. Output: `[N matches in M files]`, then \
per file `--- path (K matches) ---` and rows `path:>>LINE:HASH|text` for matches, `path:  LINE:HASH|text` for context, \
`--` between gaps. The anchors work in edit directly (no read needed). `limit` (default 100) caps matches in path \
order; above 50 matches each file shows its first 10. `summary: true` gives per-file counts only. \
`details.ptcValue.completeness` says exactly what was left out.";

/// `ast_search`.
pub static AST_SEARCH: LazyLock<String> = LazyLock::new(|| {
    format!(
        "Search code by structure (ast-grep patterns, in process over tree-sitter grammars) and get \
edit-ready anchored rows. `pattern` is code of the language with metavariables: `$X` matches one node, `$$$ARGS` any \
number, e.g. `$X.unwrap()`, `fn $NAME($$$ARGS) -> Result<$$$T>`, `console.log($$$)`. `lang`: {}; inferred per file from the extension when absent. `path` (a \
directory or one file) and `glob` narrow it. Output: `--- path ---` then rows `>>LINE:HASH|text` for matched lines \
(nearby matches merge into one block); the anchors work in edit directly. `limit` (default 100) caps raw matches in \
path order; a block too large for the 2000-line / 50 KB budget is left out with a notice. Files over 4 MiB, or \
whose parse or match takes over 2 s, are not searched and are named in a `[Not searched: …]` line (grep them).",
        lang_names()
    )
});

/// `edit`.
pub static EDIT: LazyLock<String> = LazyLock::new(|| {
    format!(
        "Edit a text file by anchors. Each item of `edits` has exactly one key: \
`set_line {{anchor, new_text}}` replaces one line (`new_text: \"\"` deletes it, `\"\\n\"` leaves an empty line); \
`replace_lines {{start_anchor, end_anchor, new_text}}` replaces an inclusive range; \
`insert_after {{anchor, new_text}}` inserts lines after a line; \
`replace {{old_text, new_text, all?}}` replaces exact text that must occur once unless `all`; \
`copy_lines` / `move_lines {{start_anchor, end_anchor, after_anchor, from_path?}}` copy or move a range; \
`replace_symbol {{symbol, new_body}}` replaces a whole function/class/method by name (as read's `symbol`: `name`, \
`Parent.name`, `name@LINE`), re-indented, its docs kept unless new_body has its own; \
`insert_before_symbol` / `insert_after_symbol {{symbol, new_text}}` add code beside a symbol. Symbol edits, and the \
syntax check after every edit (a warning naming only lines the edit broke; `syntaxValidate: \"block\"` refuses \
instead), work in {}. \
Anchors are `LINE:HASH` copied from the rows of read, write or grep (e.g. `12:3c8`); new_text is plain content \
without row prefixes. Every anchor refers to the file as you last saw it: do not adjust line numbers for other edits \
of the same call. Nothing is written unless every edit is valid. If the file changed since you saw it, the edit is \
refused with `hash-mismatch` and fresh rows: retry with those anchors, no re-read needed. The result shows the \
changed region with its new anchors. `files: [{{path, edits}}]` edits several files all or nothing.",
        display_names()
    )
});
