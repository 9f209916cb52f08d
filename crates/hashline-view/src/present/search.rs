//! The ls, find, grep and ast_search presenters: generic search cards, then search results.

use serde_json::Value;

use super::ToolResultRecord;
use super::args::Args;
use crate::{
    FileLocation, GenericCallView, SearchMatchesResultView, SearchPathsResultView, ToolCallKind, ToolCallView,
    ToolResultView, matches_from_meta, paths_from_meta,
};

/// A generic search card.
fn search_call(title: String, path: Option<&str>) -> ToolCallView {
    ToolCallView::Generic(GenericCallView {
        kind: Some(ToolCallKind::Search),
        locations: path.map(|path| vec![FileLocation::new(path)]),
        ..GenericCallView::new(title)
    })
}

/// The listed directory; omitted or blank means `.`.
fn ls_path(args: &Value) -> Option<&str> {
    Some(Args::new(args)?.opt_name("path")?.unwrap_or("."))
}

/// The pattern and the optional path of find, grep and ast_search.
fn pattern_args(args: &Value) -> Option<(&str, Option<&str>)> {
    let args = Args::new(args)?;
    Some((args.name("pattern")?, args.opt_name("path")?))
}

/// `List <path>`.
pub(super) fn ls_call(args: &Value) -> Option<ToolCallView> {
    let path = ls_path(args)?;
    Some(search_call(format!("List {path}"), Some(path)))
}

/// `Find <pattern>` or `Find <pattern> in <path>`.
pub(super) fn find_call(args: &Value) -> Option<ToolCallView> {
    let (pattern, path) = pattern_args(args)?;
    let title = match path {
        Some(path) => format!("Find {pattern} in {path}"),
        None => format!("Find {pattern}"),
    };
    Some(search_call(title, path))
}

/// `<verb> <pattern>`: `Grep` for grep, `Search` for ast_search.
pub(super) fn grep_call(args: &Value, verb: &str) -> Option<ToolCallView> {
    let (pattern, path) = pattern_args(args)?;
    Some(search_call(format!("{verb} {pattern}"), path))
}

/// The listed paths from the meta.
fn paths_result(result: &ToolResultRecord) -> Option<ToolResultView> {
    if result.is_error {
        return None;
    }
    let meta = paths_from_meta(result.meta.as_ref()?)?;
    Some(ToolResultView::from(SearchPathsResultView {
        title: None,
        paths: meta.paths,
        truncated: meta.truncated,
        total: meta.total,
    }))
}

/// The ls result: the listed paths.
pub(super) fn ls_result(args: &Value, result: &ToolResultRecord) -> Option<ToolResultView> {
    ls_path(args)?;
    paths_result(result)
}

/// The find result: the found paths.
pub(super) fn find_result(args: &Value, result: &ToolResultRecord) -> Option<ToolResultView> {
    pattern_args(args)?;
    paths_result(result)
}

/// The grep or ast_search result: matching lines by file.
pub(super) fn grep_result(args: &Value, result: &ToolResultRecord) -> Option<ToolResultView> {
    pattern_args(args)?;
    if result.is_error {
        return None;
    }
    let meta = matches_from_meta(result.meta.as_ref()?)?;
    Some(ToolResultView::from(SearchMatchesResultView {
        title: None,
        files: meta.files,
        truncated: meta.truncated,
        total: meta.total,
    }))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::{ContentBlock, SearchFileMatches, SearchLineMatch, SearchResultView, present_call, present_result};

    fn generic(tool: &str, args: Value) -> GenericCallView {
        match present_call(tool, &args) {
            Some(ToolCallView::Generic(view)) => view,
            other => panic!("expected a generic view for {tool} {args}, got {other:?}"),
        }
    }

    fn record(is_error: bool, meta: Option<Value>) -> ToolResultRecord {
        ToolResultRecord { content: vec![ContentBlock::text("results")], is_error, meta }
    }

    #[test]
    fn ls_call_lists_a_directory() {
        let view = generic("ls", json!({"path": "src"}));
        assert_eq!(view.title, "List src");
        assert_eq!(view.kind, Some(ToolCallKind::Search));
        assert_eq!(view.locations, Some(vec![FileLocation::new("src")]));
    }

    #[test]
    fn ls_call_defaults_to_the_root() {
        for args in [json!({}), json!({"path": null}), json!({"path": ""})] {
            let view = generic("ls", args);
            assert_eq!(view.title, "List .");
            assert_eq!(view.locations, Some(vec![FileLocation::new(".")]));
        }
    }

    #[test]
    fn find_call_titles_pattern_and_path() {
        let view = generic("find", json!({"pattern": "*.rs", "path": "crates"}));
        assert_eq!(view.title, "Find *.rs in crates");
        assert_eq!(view.locations, Some(vec![FileLocation::new("crates")]));
        let view = generic("find", json!({"pattern": "*.rs"}));
        assert_eq!((view.title.as_str(), view.locations), ("Find *.rs", None));
    }

    #[test]
    fn grep_and_ast_search_calls_title_the_pattern() {
        let view = generic("grep", json!({"pattern": "fn main", "path": "src", "limit": "5"}));
        assert_eq!(view.title, "Grep fn main");
        assert_eq!(view.kind, Some(ToolCallKind::Search));
        assert_eq!(view.locations, Some(vec![FileLocation::new("src")]));
        let view = generic("ast_search", json!({"pattern": "foo($A)", "lang": "rust"}));
        assert_eq!((view.title.as_str(), view.locations), ("Search foo($A)", None));
    }

    #[test]
    fn search_calls_decline_mismatched_arguments() {
        for (tool, args) in [
            ("ls", json!({"path": 1})),
            ("ls", json!(null)),
            ("find", json!({})),
            ("find", json!({"pattern": "*", "path": 2})),
            ("grep", json!({"pattern": ""})),
            ("grep", json!({"pattern": ["x"]})),
            ("ast_search", json!({"path": "src"})),
        ] {
            assert_eq!(present_call(tool, &args), None, "{tool} {args}");
        }
    }

    fn paths_meta() -> Value {
        json!({"paths": ["src/", "Cargo.toml"], "truncated": false, "total": 2})
    }

    fn paths_view() -> ToolResultView {
        ToolResultView::from(SearchPathsResultView {
            title: None,
            paths: vec!["src/".to_owned(), "Cargo.toml".to_owned()],
            truncated: false,
            total: 2,
        })
    }

    #[test]
    fn ls_and_find_results_are_paths() {
        let result = record(false, Some(paths_meta()));
        assert_eq!(present_result("ls", &json!({}), &result), Some(paths_view()));
        let args = json!({"pattern": "*"});
        assert_eq!(present_result("find", &args, &result), Some(paths_view()));
    }

    #[test]
    fn paths_results_decline() {
        for (tool, args) in [("ls", json!({})), ("find", json!({"pattern": "*"}))] {
            for result in
                [record(true, Some(paths_meta())), record(false, None), record(false, Some(json!({"paths": "src"})))]
            {
                assert_eq!(present_result(tool, &args, &result), None, "{tool} {result:?}");
            }
        }
        let result = record(false, Some(paths_meta()));
        assert_eq!(present_result("find", &json!({}), &result), None);
        assert_eq!(present_result("ls", &json!({"path": 1}), &result), None);
    }

    fn matches_meta() -> Value {
        json!({"files": [{"path": "src/main.rs", "matches": [{"lineNumber": 1, "line": "fn main() {}"}]}],
               "truncated": true, "total": 40})
    }

    #[test]
    fn grep_and_ast_search_results_are_matches() {
        let expected = ToolResultView::Search(SearchResultView::Matches(SearchMatchesResultView {
            title: None,
            files: vec![SearchFileMatches {
                path: "src/main.rs".to_owned(),
                matches: vec![SearchLineMatch { line_number: 1, line: "fn main() {}".to_owned() }],
            }],
            truncated: true,
            total: 40,
        }));
        let args = json!({"pattern": "main"});
        for tool in ["grep", "ast_search"] {
            let result = record(false, Some(matches_meta()));
            assert_eq!(present_result(tool, &args, &result), Some(expected.clone()), "{tool}");
        }
    }

    #[test]
    fn matches_results_decline() {
        let args = json!({"pattern": "main"});
        for tool in ["grep", "ast_search"] {
            for result in [record(true, Some(matches_meta())), record(false, None), record(false, Some(paths_meta()))] {
                assert_eq!(present_result(tool, &args, &result), None, "{tool} {result:?}");
            }
            let result = record(false, Some(matches_meta()));
            assert_eq!(present_result(tool, &json!({"pattern": 1}), &result), None);
        }
    }
}
