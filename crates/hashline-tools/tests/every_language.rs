//! The acceptance table of every language of the registry (issues 10 and 24), run over each
//! language's folder in `hashline-syntax/languages/<name>/`: its realistic sample and its
//! `cases.toml`. A language cannot be added without them: a registry language without a
//! folder, a sample or a case fails here.
//!
//! For each language: the map lists the declarations the cases name, with their kinds and
//! ranges (leading docs and attributes included), and its whole outline is pinned by a
//! snapshot; a symbol read by each selector tier returns exactly its declaration;
//! `replace_symbol`, `insert_before_symbol` and `insert_after_symbol` give byte-exact files
//! (the changed region by snapshot, every other byte compared with the original); a
//! deliberately broken edit is warned in `warn` mode and refused in `block` mode naming only
//! its own line — also when the file already had an error elsewhere, which is never blamed on
//! the edit; an `ast_search` pattern finds its matches, with `lang` and without; and the
//! sample grown past the read budget gets its map appended to a truncated read.

mod common;

use std::sync::{Arc, OnceLock};

use common::{Workspace, code};
use hashline_core::{Document, LineHash, LineNo};
use hashline_symbols::Symbol;
use hashline_syntax::{Census, IssueKind, LanguageId, LineSpan, ParseLimits, SyntaxIssue, census, parse_document};
use hashline_tools::ast_search::AstSearchTool;
use hashline_tools::edit::EditTool;
use hashline_tools::map_store::{ContentKey, MapStore};
use hashline_tools::read::ReadTool;
use hashline_tools::{Session, SessionConfig};
use insta::assert_snapshot;
use serde::Deserialize;
use serde_json::{Value, json};

/// A declaration the map must list.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Declaration {
    /// The names from the outermost symbol, joined by `.`.
    symbol: String,
    kind: String,
    lines: [usize; 2],
}

/// A symbol read and the lines it returns.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SymbolRead {
    selector: String,
    lines: [usize; 2],
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Replace {
    symbol: String,
    new_body: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Insert {
    symbol: String,
    new_text: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Syntax {
    /// A line inside a function body, where appending `append` is a syntax error.
    body_line: usize,
    /// What breaks the line (default ` )))`).
    #[serde(default = "default_append")]
    append: String,
    /// A last line that is a syntax error of its own (default `)))`).
    #[serde(default = "default_stray")]
    stray: String,
}

fn default_append() -> String {
    " )))".to_owned()
}

fn default_stray() -> String {
    ")))".to_owned()
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AstCase {
    pattern: String,
    matches: u64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Long {
    /// Text appended `copies` times, `{n}` replaced by the copy's number.
    repeat: String,
    copies: usize,
}

/// One language's `cases.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Cases {
    sample: String,
    declarations: Vec<Declaration>,
    reads: Vec<SymbolRead>,
    replace_symbol: Replace,
    insert_before_symbol: Insert,
    insert_after_symbol: Insert,
    syntax: Syntax,
    ast_search: AstCase,
    long: Long,
}

/// One language's cases with its sample.
struct Case {
    lang: LanguageId,
    /// The sample's file name.
    file: &'static str,
    source: &'static str,
    cases: Cases,
}

/// The folder of `lang`'s data.
fn folder(lang: LanguageId) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../hashline-syntax/languages").join(lang.name())
}

/// Every registry language's case, loaded once; a missing or malformed folder panics naming it.
///
/// While a language is being added, `HASHLINE_LANGUAGE=<name>` runs the table for that one
/// alone (a developer's aid: the table's own check of every language ignores it).
fn all_cases() -> &'static [Case] {
    static CASES: OnceLock<Vec<Case>> = OnceLock::new();
    let only = std::env::var("HASHLINE_LANGUAGE").ok();
    let cases = CASES.get_or_init(|| {
        LanguageId::ALL
            .iter()
            .filter(|lang| only.as_deref().is_none_or(|name| name == lang.name()))
            .map(|&lang| {
                let dir = folder(lang);
                let text = std::fs::read_to_string(dir.join("cases.toml"))
                    .unwrap_or_else(|err| panic!("{lang}: {}/cases.toml: {err}", dir.display()));
                let cases: Cases = toml::from_str(&text).unwrap_or_else(|err| panic!("{lang}: cases.toml: {err}"));
                let source = std::fs::read_to_string(dir.join(&cases.sample))
                    .unwrap_or_else(|err| panic!("{lang}: sample {}: {err}", cases.sample));
                let file: &'static str = Box::leak(cases.sample.clone().into_boxed_str());
                Case { lang, file, source: Box::leak(source.into_boxed_str()), cases }
            })
            .collect()
    });
    if let Some(name) = std::env::var("HASHLINE_LANGUAGE").ok().filter(|_| cases.is_empty()) {
        panic!("HASHLINE_LANGUAGE={name} is no registry language");
    }
    cases
}

/// The lines of `text`, each with its terminator.
fn lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

/// A fresh workspace holding `source` as `file`, read once (so edits are allowed).
fn workspace(file: &str, source: &str) -> Workspace {
    let ws = Workspace::new();
    ws.file(file, source);
    let read = ws.call::<ReadTool>(json!({"path": file, "offset": 1, "limit": 2000}));
    assert!(!read.is_error, "{}", read.text());
    ws
}

/// The symbol's (start, end) lines as `read` finds it.
fn symbol_lines(ws: &Workspace, file: &str, selector: &str) -> (usize, usize) {
    let result = ws.call::<ReadTool>(json!({"path": file, "symbol": selector}));
    let value = result.ptc_value();
    let symbol = &value["symbol"];
    assert!(symbol.is_object(), "{file} {selector}: {value}");
    (symbol["startLine"].as_u64().unwrap() as usize, symbol["endLine"].as_u64().unwrap() as usize)
}

/// Applies one symbol edit; returns the new content, after checking it is clean and checked.
fn symbol_edit(ws: &Workspace, case: &Case, item: Value) -> String {
    let result = ws.call::<EditTool>(json!({"path": case.file, "edits": [item]}));
    assert!(!result.is_error, "{}: {}", case.file, result.text());
    let value = result.ptc_value();
    assert_eq!(value["syntax"]["checked"], true, "{}: {}", case.file, result.text());
    assert_eq!(value["syntax"]["newProblems"], json!([]), "{}: {}", case.file, result.text());
    std::fs::read_to_string(ws.path(case.file)).expect("read back")
}

/// The new file's lines `from..=to` (1-based, clipped), numbered, for a snapshot.
fn region(new: &str, from: usize, to: usize) -> String {
    let new = lines(new);
    let (from, to) = (from.max(1), to.min(new.len()));
    (from..=to).map(|n| format!("{n:>4}|{}", new[n - 1])).collect()
}

#[test]
fn symbol_edits_are_byte_exact_in_every_language() {
    for case in all_cases() {
        let old = lines(case.source);
        let mut report = String::new();

        // replace_symbol: everything before the symbol's first line and after its last kept.
        let ws = workspace(case.file, case.source);
        let (start, end) = symbol_lines(&ws, case.file, &case.cases.replace_symbol.symbol);
        let new = symbol_edit(
            &ws,
            case,
            json!({"replace_symbol": {"symbol": case.cases.replace_symbol.symbol, "new_body": case.cases.replace_symbol.new_body}}),
        );
        let new_lines = lines(&new);
        let grown = new_lines.len() + end - old.len();
        assert_eq!(new_lines[..start - 1], old[..start - 1], "{}: replace head", case.file);
        assert_eq!(new_lines[grown..], old[end..], "{}: replace tail", case.file);
        report += &format!("replace_symbol {} (lines {start}-{end}):\n", case.cases.replace_symbol.symbol);
        report += &region(&new, start - 1, grown + 1);

        // insert_before_symbol: the old lines all kept, the new text before the symbol's first.
        let ws = workspace(case.file, case.source);
        let (start, _) = symbol_lines(&ws, case.file, &case.cases.insert_before_symbol.symbol);
        let new = symbol_edit(
            &ws,
            case,
            json!({"insert_before_symbol": {"symbol": case.cases.insert_before_symbol.symbol, "new_text": case.cases.insert_before_symbol.new_text}}),
        );
        let new_lines = lines(&new);
        let added = new_lines.len() - old.len();
        assert_eq!(new_lines[..start - 1], old[..start - 1], "{}: before head", case.file);
        assert_eq!(new_lines[start - 1 + added..], old[start - 1..], "{}: before tail", case.file);
        report += &format!("\ninsert_before_symbol {} (line {start}):\n", case.cases.insert_before_symbol.symbol);
        report += &region(&new, start - 1, start + added);

        // insert_after_symbol: the old lines all kept, the new text after the symbol's last.
        let ws = workspace(case.file, case.source);
        let (_, end) = symbol_lines(&ws, case.file, &case.cases.insert_after_symbol.symbol);
        let new = symbol_edit(
            &ws,
            case,
            json!({"insert_after_symbol": {"symbol": case.cases.insert_after_symbol.symbol, "new_text": case.cases.insert_after_symbol.new_text}}),
        );
        let new_lines = lines(&new);
        let added = new_lines.len() - old.len();
        assert_eq!(new_lines[..end], old[..end], "{}: after head", case.file);
        assert_eq!(new_lines[end + added..], old[end..], "{}: after tail", case.file);
        report += &format!("\ninsert_after_symbol {} (line {end}):\n", case.cases.insert_after_symbol.symbol);
        report += &region(&new, end, end + added + 1);

        insta::with_settings!({snapshot_suffix => case.file}, {
            assert_snapshot!("symbol_edits", report);
        });
    }
}

/// A `set_line` of the case's body line in `source`, appending its breaker.
fn break_line(case: &Case, source: &str) -> Value {
    let line = case.cases.syntax.body_line;
    let old = lines(source)[line - 1].trim_end_matches(['\n', '\r']);
    let new_text = format!("{old}{}", case.cases.syntax.append);
    json!({"set_line": {"anchor": format!("{line}:{}", LineHash::of(old.as_bytes())), "new_text": new_text}})
}

/// The (start, end) lines of a result's new syntax problems.
fn new_problems(result: &hashline_tools::ToolResult) -> Vec<(u64, u64)> {
    let problems = result.ptc_value()["syntax"]["newProblems"].as_array().cloned().unwrap_or_default();
    problems.iter().map(|p| (p["startLine"].as_u64().unwrap(), p["endLine"].as_u64().unwrap())).collect()
}

#[test]
fn a_broken_edit_is_warned_or_blocked_naming_its_own_line_in_every_language() {
    for case in all_cases() {
        let line = case.cases.syntax.body_line as u64;
        // warn (the default): written, one warning naming the line.
        let ws = workspace(case.file, case.source);
        let result = ws.call::<EditTool>(json!({"path": case.file, "edits": [break_line(case, case.source)]}));
        assert!(!result.is_error, "{}: {}", case.file, result.text());
        assert_eq!(new_problems(&result), vec![(line, line)], "{}: {}", case.file, result.text());
        let warnings = result.ptc_value()["warnings"].as_array().cloned().unwrap_or_default();
        assert!(warnings.iter().any(|w| w["code"] == "syntax-regression"), "{}: {warnings:?}", case.file);
        assert!(
            result.text().contains(&format!("syntax-regression: lines {line} ")),
            "{}: {}",
            case.file,
            result.text()
        );
        assert!(
            std::fs::read_to_string(ws.path(case.file)).unwrap().contains(&case.cases.syntax.append),
            "{}",
            case.file
        );

        // block: refused, nothing written.
        let ws = workspace(case.file, case.source);
        let result = ws.call::<EditTool>(
            json!({"path": case.file, "syntaxValidate": "block", "edits": [break_line(case, case.source)]}),
        );
        assert_eq!(code(&result), "syntax-regression", "{}", case.file);
        assert!(
            result.text().contains(&format!("syntax-regression: lines {line} ")),
            "{}: {}",
            case.file,
            result.text()
        );
        assert_eq!(std::fs::read_to_string(ws.path(case.file)).unwrap(), case.source, "{}", case.file);
    }
}

#[test]
fn an_error_the_file_already_had_is_never_blamed_in_every_language() {
    for case in all_cases() {
        // The file ends with a stray line that is a syntax error in every one of the languages.
        let broken = format!("{}{}\n", case.source, case.cases.syntax.stray);
        let last = lines(&broken).len() as u64;
        // A clean symbol edit: checked, nothing new, even in block mode.
        let ws = workspace(case.file, &broken);
        let result = ws.call::<EditTool>(json!({
            "path": case.file,
            "syntaxValidate": "block",
            "edits": [{"replace_symbol": {"symbol": case.cases.replace_symbol.symbol, "new_body": case.cases.replace_symbol.new_body}}],
        }));
        assert!(!result.is_error, "{}: {}", case.file, result.text());
        assert_eq!(result.ptc_value()["syntax"]["checked"], true, "{}", case.file);
        assert_eq!(new_problems(&result), vec![], "{}: {}", case.file, result.text());
        // A broken edit in that file: only its own line is named, never the old error's.
        let ws = workspace(case.file, &broken);
        let line = case.cases.syntax.body_line as u64;
        let result = ws.call::<EditTool>(json!({"path": case.file, "edits": [break_line(case, &broken)]}));
        assert!(!result.is_error, "{}: {}", case.file, result.text());
        let problems = new_problems(&result);
        assert_eq!(problems, vec![(line, line)], "{}: {}", case.file, result.text());
        assert!(problems.iter().all(|&(s, e)| s != last && e != last), "{}", case.file);
    }
}

// The CLI's census store (issue 12): an edit whose old content has a stored census takes it
// instead of parsing the old file, and its result is byte for byte the two-parse one.

/// A workspace whose session keeps censuses and maps in `store` (as the CLI does).
fn stored_workspace(file: &str, source: &str, store: &Arc<MapStore>) -> Workspace {
    let dir = tempfile::tempdir().expect("tempdir");
    // As the CLI's session: its read keeps no tree, so the store's census is what an edit
    // takes for the old file.
    let mut config = SessionConfig::builder().root(dir.path()).parse_on_read(false).build();
    config.map_store = Some(Arc::clone(store));
    let ws = Workspace { session: Session::new(config).expect("session"), dir };
    ws.file(file, source);
    let read = ws.call::<ReadTool>(json!({"path": file, "offset": 1, "limit": 2000}));
    assert!(!read.is_error, "{}", read.text());
    ws
}

/// The census of a fresh parse of `text` as the language of `file`.
fn fresh_census(file: &str, text: &str) -> Census {
    let doc = Document::parse(text.as_bytes().to_vec());
    let lang = LanguageId::from_path(file).expect("a language");
    let parsed = parse_document(lang, &doc, ParseLimits::DEFAULT).expect("parses");
    census(&parsed.tree, &doc, parsed.text_start)
}

/// The result as the model and a client see it (text, JSON, and the file afterwards),
/// with the workspace's path redacted.
fn seen(ws: &Workspace, file: &str, result: &hashline_tools::ToolResult) -> (String, String, String) {
    (ws.redact(&result.text()), ws.json(result), std::fs::read_to_string(ws.path(file)).expect("read back"))
}

/// Every edit of the comparison: a broken `set_line` and a clean symbol edit, each in
/// `warn` and `block` mode.
fn comparison_edits(case: &Case, source: &str) -> Vec<Value> {
    let broken = break_line(case, source);
    let clean = json!({"replace_symbol": {"symbol": case.cases.replace_symbol.symbol, "new_body": case.cases.replace_symbol.new_body}});
    let mut edits = Vec::new();
    for item in [broken, clean] {
        for mode in ["warn", "block"] {
            edits.push(json!({"path": case.file, "syntaxValidate": mode, "edits": [item.clone()]}));
        }
    }
    edits
}

#[test]
fn a_stored_census_gives_the_two_parse_result_in_every_language() {
    let mut compared = 0;
    for case in all_cases() {
        // The realistic file, and the same file with an error it already had at its end.
        let already_broken = format!("{}{}\n", case.source, case.cases.syntax.stray);
        for source in [case.source, already_broken.as_str()] {
            for args in comparison_edits(case, source) {
                let what = format!("{} {}", case.file, args["edits"]);
                // Two parses: a session without a store (the in-process path of today).
                let plain = workspace(case.file, source);
                let two_parses = plain.call::<EditTool>(args.clone());
                // The census of the old bytes stored beforehand: the old file is not parsed.
                let state = tempfile::tempdir().expect("tempdir");
                let store = Arc::new(MapStore::new(state.path().join("maps"), 1));
                let ws = stored_workspace(case.file, source, &store);
                let key = hashline_fs::lookup::canonicalize(&ws.path(case.file)).expect("real path");
                let old = ContentKey::of(source.as_bytes());
                store.store_census(&key, case.file, old, &fresh_census(case.file, source)).expect("stored");
                // And its map, as a full read would have left it: the edit keeps the map current.
                let old_map = hashline_symbols::map_document(case.file, &Document::parse(source.as_bytes().to_vec()));
                store.store(&key, case.file, old, &old_map.unwrap().unwrap()).expect("stored");
                let one_parse = ws.call::<EditTool>(args.clone());
                assert_eq!(seen(&ws, case.file, &one_parse), seen(&plain, case.file, &two_parses), "{what}");
                // And with an empty store (the CLI's first edit: two parses, both censuses
                // stored): the same result again.
                let state = tempfile::tempdir().expect("tempdir");
                let empty = Arc::new(MapStore::new(state.path().join("maps"), 1));
                let cold = stored_workspace(case.file, source, &empty);
                let first = cold.call::<EditTool>(args.clone());
                assert_eq!(seen(&cold, case.file, &first), seen(&plain, case.file, &two_parses), "{what}");
                let key = hashline_fs::lookup::canonicalize(&cold.path(case.file)).expect("real path");
                assert_eq!(empty.load_census(&key, case.file, old), Some(fresh_census(case.file, source)), "{what}");
                // What the file holds now has its census (and map) stored as a fresh parse
                // would make them, for the next edit and the next read.
                let now = std::fs::read_to_string(cold.path(case.file)).expect("read back");
                let content = ContentKey::of(now.as_bytes());
                assert_eq!(empty.load_census(&key, case.file, content), Some(fresh_census(case.file, &now)), "{what}");
                let after = std::fs::read_to_string(ws.path(case.file)).expect("read back");
                let ws_key = hashline_fs::lookup::canonicalize(&ws.path(case.file)).expect("real path");
                let content = ContentKey::of(after.as_bytes());
                assert_eq!(store.load_census(&ws_key, case.file, content), Some(fresh_census(case.file, &after)));
                if !one_parse.is_error {
                    let map = hashline_symbols::map_document(case.file, &Document::parse(after.clone().into_bytes()));
                    assert_eq!(store.load(&ws_key, case.file, content), Some(map.unwrap().unwrap()), "{what}");
                }
                compared += 1;
            }
        }
    }
    assert_eq!(compared, all_cases().len() * 2 * 4);
}

#[test]
fn a_stored_census_is_used_for_its_own_bytes_only() {
    for case in all_cases() {
        let line = case.cases.syntax.body_line;
        let edit = json!({"path": case.file, "edits": [break_line(case, case.source)]});
        // A planted census claiming an error around the edited line (the lines before and
        // after it are kept): taken for the old file, it excuses the edit's new error there.
        let mut planted = fresh_census(case.file, case.source);
        let around = |n: usize| LineNo::new(n as u32).expect("a line");
        planted.issues.push(SyntaxIssue {
            kind: IssueKind::Error,
            lines: LineSpan { start: around(line - 1), end: around(line + 1) },
            bytes: 0..1,
            missing: None,
        });
        let state = tempfile::tempdir().expect("tempdir");
        let store = Arc::new(MapStore::new(state.path().join("maps"), 1));
        let ws = stored_workspace(case.file, case.source, &store);
        let key = hashline_fs::lookup::canonicalize(&ws.path(case.file)).expect("real path");
        store.store_census(&key, case.file, ContentKey::of(case.source.as_bytes()), &planted).expect("stored");
        let result = ws.call::<EditTool>(edit.clone());
        assert_eq!(new_problems(&result), vec![], "{}: the stored census was used: {}", case.file, result.text());

        // The same census stored for other bytes of the same size (one byte changed): not
        // used, the old file is parsed and the edit's error is reported.
        let mut other = case.source.as_bytes().to_vec();
        let last = other.len() - 2;
        other[last] = if other[last] == b' ' { b'\t' } else { b' ' };
        let state = tempfile::tempdir().expect("tempdir");
        let store = Arc::new(MapStore::new(state.path().join("maps"), 1));
        let ws = stored_workspace(case.file, case.source, &store);
        let key = hashline_fs::lookup::canonicalize(&ws.path(case.file)).expect("real path");
        store.store_census(&key, case.file, ContentKey::of(&other), &planted).expect("stored");
        let result = ws.call::<EditTool>(edit);
        let n = line as u64;
        assert_eq!(new_problems(&result), vec![(n, n)], "{}: {}", case.file, result.text());
    }
}

// Issue 24: the map, the symbol reads, `ast_search` and the long file of every language.

/// Every symbol of `symbols` with its path of names (`Outer.inner`), depth first.
fn flatten<'a>(symbols: &'a [Symbol], prefix: &str, out: &mut Vec<(String, &'a Symbol)>) {
    for symbol in symbols {
        let path = if prefix.is_empty() { symbol.name.clone() } else { format!("{prefix}.{}", symbol.name) };
        out.push((path.clone(), symbol));
        flatten(&symbol.children, &path, out);
    }
}

/// The outline of a map: one line per symbol, indented by depth.
fn outline(symbols: &[Symbol], depth: usize, out: &mut String) {
    for s in symbols {
        let decl = if s.decl_line != s.start_line { format!(" (decl {})", s.decl_line) } else { String::new() };
        out.push_str(&format!("{}{} {} {}-{}{decl}\n", "  ".repeat(depth), s.kind, s.name, s.start_line, s.end_line));
        outline(&s.children, depth + 1, out);
    }
}

#[test]
fn every_registry_language_has_a_complete_case() {
    let cases = all_cases();
    if std::env::var_os("HASHLINE_LANGUAGE").is_none() {
        let covered: Vec<LanguageId> = cases.iter().map(|c| c.lang).collect();
        assert_eq!(covered, LanguageId::ALL, "every registry language has a case");
    }
    for case in cases {
        let lang = case.lang;
        assert_eq!(LanguageId::from_path(case.file), Some(lang), "{lang}: the sample {} is not {lang}", case.file);
        assert!(lines(case.source).len() >= 100, "{lang}: the sample is not realistic (under 100 lines)");
        assert!(case.cases.declarations.len() >= 5, "{lang}: fewer than 5 declarations checked");
        let reads = &case.cases.reads;
        let tiers = [
            reads.iter().any(|r| r.selector.contains('@')),
            reads.iter().any(|r| !r.selector.contains('@') && r.selector.contains('.')),
            reads.iter().any(|r| !r.selector.contains('@') && !r.selector.contains('.')),
        ];
        assert_eq!(tiers, [true; 3], "{lang}: reads must cover `name@line`, `Parent.name` and `name`");
        assert!(case.cases.ast_search.matches > 0, "{lang}: the ast_search case finds nothing");
        assert!(case.cases.long.repeat.contains("{n}"), "{lang}: long.repeat has no {{n}}");
    }
}

#[test]
fn the_map_lists_every_declaration_in_every_language() {
    for case in all_cases() {
        let doc = Document::parse(case.source.as_bytes().to_vec());
        let map = hashline_symbols::map_document(case.file, &doc).expect("mapped").expect("a language");
        assert_eq!(map.language, case.lang.display_name(), "{}", case.file);
        let mut all = Vec::new();
        flatten(&map.symbols, "", &mut all);
        for want in &case.cases.declarations {
            let found: Vec<_> = all.iter().filter(|(path, _)| *path == want.symbol).collect();
            assert!(
                !found.is_empty(),
                "{}: {} is not in the map: {:?}",
                case.file,
                want.symbol,
                all.iter().map(|(p, _)| p).collect::<Vec<_>>()
            );
            let matching = found.iter().any(|(_, s)| {
                s.kind.as_str() == want.kind && [s.start_line as usize, s.end_line as usize] == want.lines
            });
            let seen: Vec<_> = found.iter().map(|(_, s)| (s.kind.as_str(), s.start_line, s.end_line)).collect();
            assert!(
                matching,
                "{}: {} wants {} {:?}, the map has {seen:?}",
                case.file, want.symbol, want.kind, want.lines
            );
        }
        let mut text = String::new();
        outline(&map.symbols, 0, &mut text);
        insta::with_settings!({snapshot_suffix => case.lang.name()}, {
            assert_snapshot!("outline", text);
        });
    }
}

#[test]
fn a_symbol_read_by_each_tier_returns_its_declaration_in_every_language() {
    for case in all_cases() {
        let ws = workspace(case.file, case.source);
        let old = lines(case.source);
        for read in &case.cases.reads {
            let result = ws.call::<ReadTool>(json!({"path": case.file, "symbol": read.selector}));
            assert!(!result.is_error, "{} {}: {}", case.file, read.selector, result.text());
            let value = result.ptc_value();
            let symbol = &value["symbol"];
            let got =
                [symbol["startLine"].as_u64().unwrap_or(0) as usize, symbol["endLine"].as_u64().unwrap_or(0) as usize];
            assert_eq!(got, read.lines, "{} {}: {}", case.file, read.selector, result.text());
            let rows: Vec<&str> =
                value["lines"].as_array().expect("rows").iter().map(|l| l["raw"].as_str().unwrap()).collect();
            let want: Vec<&str> =
                old[read.lines[0] - 1..read.lines[1]].iter().map(|l| l.trim_end_matches(['\n', '\r'])).collect();
            assert_eq!(rows, want, "{} {}: the rows are the declaration's", case.file, read.selector);
        }
    }
}

#[test]
fn ast_search_finds_the_pattern_in_every_language() {
    for case in all_cases() {
        let ws = Workspace::new();
        ws.file(case.file, case.source);
        let pattern = &case.cases.ast_search.pattern;
        for lang in [Some(case.lang.name()), None] {
            let mut args = json!({"pattern": pattern, "path": case.file, "limit": 1000});
            if let Some(lang) = lang {
                args["lang"] = json!(lang);
            }
            let result = ws.call::<AstSearchTool>(args);
            assert!(!result.is_error, "{} {pattern} ({lang:?}): {}", case.file, result.text());
            let value = result.ptc_value();
            assert_eq!(
                value["totalMatches"],
                case.cases.ast_search.matches,
                "{} {pattern} ({lang:?}): {}",
                case.file,
                result.text()
            );
            assert_eq!(value["files"][0]["language"], case.lang.name(), "{}", case.file);
        }
    }
}

#[test]
fn a_long_file_gets_its_map_on_a_truncated_read_in_every_language() {
    for case in all_cases() {
        let mut long = case.source.to_owned();
        if !long.ends_with('\n') {
            long.push('\n');
        }
        for n in 1..=case.cases.long.copies {
            long.push_str(&case.cases.long.repeat.replace("{n}", &n.to_string()));
        }
        assert!(lines(&long).len() > 2000, "{}: the long file has {} lines", case.file, lines(&long).len());
        let ws = Workspace::new();
        ws.file(case.file, &long);
        let result = ws.call::<ReadTool>(json!({"path": case.file}));
        assert!(!result.is_error, "{}: {}", case.file, result.text());
        let value = result.ptc_value();
        assert_eq!(value["map"]["appended"], true, "{}: {}", case.file, value["map"]);
        let text = result.text();
        let first = &case.cases.declarations[0].symbol;
        let last = first.rsplit('.').next().unwrap_or(first);
        assert!(text.contains("File Map:") && text.contains(last), "{}: the map names {last}", case.file);
        // The long file maps in full: every copy's declarations are found.
        let doc = Document::parse(long.into_bytes());
        let map = hashline_symbols::map_document(case.file, &doc).expect("mapped").expect("a language");
        let mut all = Vec::new();
        flatten(&map.symbols, "", &mut all);
        let last_copy = case.cases.long.copies.to_string();
        assert!(all.iter().any(|(path, _)| path.contains(&last_copy)), "{}: the last copy is not mapped", case.file);
    }
}
