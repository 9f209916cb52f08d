//! The wire format of the view union: one value of every variant, pinned by snapshot and
//! round-tripped through serde.

use hashline_view::{
    ContentBlock, DiffCallView, DiffResultView, FileDiff, FileLocation, GenericCallView, GenericResultView,
    ReadFileLine, ReadResultView, SearchFileMatches, SearchLineMatch, SearchMatchesResultView, SearchPathsResultView,
    TerminalCallView, TerminalResultView, ToolCallKind, ToolCallView, ToolResultView,
};
use insta::assert_json_snapshot;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::json;

/// Serializes `value`, reads it back, and checks that nothing was lost.
fn round_trip<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(value: &T) {
    let json = serde_json::to_string(value).expect("views serialize");
    let back: T = serde_json::from_str(&json).expect("views deserialize");
    assert_eq!(&back, value, "{json}");
}

fn call_views() -> Vec<(&'static str, ToolCallView)> {
    vec![
        (
            "call_generic",
            ToolCallView::Generic(GenericCallView {
                title: "Read src/lib.rs (5 - 8)".to_owned(),
                kind: Some(ToolCallKind::Read),
                raw_input: Some(json!({"path": "src/lib.rs", "offset": 5, "limit": 4})),
                content: Some(vec![ContentBlock::text("reading")]),
                locations: Some(vec![FileLocation::at("src/lib.rs", 5)]),
            }),
        ),
        ("call_generic_minimal", ToolCallView::Generic(GenericCallView::new("grep"))),
        (
            "call_terminal",
            ToolCallView::Terminal(TerminalCallView {
                title: "cargo test".to_owned(),
                description: Some("Run the tests".to_owned()),
                cwd: Some("crates/hashline-view".to_owned()),
            }),
        ),
        (
            "call_diff",
            ToolCallView::Diff(DiffCallView {
                title: "Write data.txt".to_owned(),
                diffs: vec![FileDiff::whole_file("data.txt", None, "replaced\n")],
                locations: Some(vec![FileLocation::new("data.txt")]),
            }),
        ),
    ]
}

fn result_views() -> Vec<(&'static str, ToolResultView)> {
    vec![
        (
            "result_generic",
            ToolResultView::Generic(GenericResultView {
                title: Some("Done".to_owned()),
                content: Some(vec![ContentBlock::Image {
                    data: "iVBORw0KGgo=".to_owned(),
                    mime_type: "image/png".to_owned(),
                }]),
            }),
        ),
        ("result_generic_minimal", ToolResultView::Generic(GenericResultView::default())),
        (
            "result_terminal_exit",
            ToolResultView::Terminal(TerminalResultView {
                title: None,
                output: Some("hello\n".to_owned()),
                exit_code: Some(1),
                signal: None,
            }),
        ),
        (
            "result_terminal_signal",
            ToolResultView::Terminal(TerminalResultView {
                title: Some("sleep 10".to_owned()),
                output: None,
                exit_code: None,
                signal: Some("SIGTERM".to_owned()),
            }),
        ),
        (
            "result_diff",
            ToolResultView::Diff(DiffResultView {
                title: Some("Edit config.txt".to_owned()),
                diffs: vec![
                    FileDiff {
                        path: "config.txt".to_owned(),
                        old_text: Some("mode=DEBUG\nlevel=info".to_owned()),
                        new_text: "mode=RELEASE\nlevel=info".to_owned(),
                        old_start: Some(1),
                        new_start: Some(1),
                    },
                    FileDiff::whole_file("config.txt", None, "tail=1"),
                ],
            }),
        ),
        (
            "result_search_matches",
            ToolResultView::from(SearchMatchesResultView {
                title: None,
                files: vec![SearchFileMatches {
                    path: "src/main.rs".to_owned(),
                    matches: vec![SearchLineMatch { line_number: 3, line: "fn main() {".to_owned() }],
                }],
                truncated: false,
                total: 1,
            }),
        ),
        (
            "result_search_paths",
            ToolResultView::from(SearchPathsResultView {
                title: Some("2 paths".to_owned()),
                paths: vec!["src/".to_owned(), "Cargo.toml".to_owned()],
                truncated: true,
                total: 7,
            }),
        ),
        (
            "result_read",
            ToolResultView::Read(ReadResultView {
                title: None,
                path: "/work/greeting.txt".to_owned(),
                offset: 1,
                lines: vec![
                    ReadFileLine { number: 1, text: "hello".to_owned(), hash: Some("0a3".to_owned()) },
                    ReadFileLine { number: 2, text: String::new(), hash: None },
                ],
                total_lines: 2,
                lang: None,
                content: Some(vec![ContentBlock::text("1:0a3|hello\n2:d05|")]),
            }),
        ),
    ]
}

#[test]
fn call_views_keep_their_wire_format() {
    for (name, view) in call_views() {
        assert_json_snapshot!(name, view);
    }
}

#[test]
fn result_views_keep_their_wire_format() {
    for (name, view) in result_views() {
        assert_json_snapshot!(name, view);
    }
}

#[test]
fn every_view_round_trips() {
    for (_, view) in call_views() {
        round_trip(&view);
    }
    for (_, view) in result_views() {
        round_trip(&view);
    }
}

#[test]
fn every_call_kind_is_a_lowercase_string() {
    let kinds = [
        (ToolCallKind::Read, "read"),
        (ToolCallKind::Edit, "edit"),
        (ToolCallKind::Delete, "delete"),
        (ToolCallKind::Move, "move"),
        (ToolCallKind::Search, "search"),
        (ToolCallKind::Execute, "execute"),
        (ToolCallKind::Fetch, "fetch"),
        (ToolCallKind::Other, "other"),
    ];
    for (kind, name) in kinds {
        assert_eq!(serde_json::to_value(kind).expect("serializes"), json!(name));
        round_trip(&kind);
    }
    assert_eq!(ToolCallKind::default(), ToolCallKind::Other);
}

#[test]
fn old_text_is_a_required_null_and_start_lines_are_omitted() {
    let diff = FileDiff::whole_file("a.txt", None, "x");
    assert_eq!(
        serde_json::to_value(&diff).expect("serializes"),
        json!({"path": "a.txt", "oldText": null, "newText": "x"})
    );
}

#[test]
fn views_read_from_foreign_json() {
    let view: ToolResultView = serde_json::from_value(json!({
        "card": "search", "shape": "paths", "paths": ["a"], "truncated": false, "total": 1,
        "unknown": "ignored"
    }))
    .expect("a paths view");
    assert!(matches!(view, ToolResultView::Search(_)));
    let view: ToolCallView =
        serde_json::from_value(json!({"card": "generic", "title": "t", "kind": "fetch"})).expect("a generic call view");
    assert!(matches!(view, ToolCallView::Generic(v) if v.kind == Some(ToolCallKind::Fetch)));
}

#[test]
fn unknown_cards_and_shapes_are_rejected() {
    for json in [
        json!({"card": "web", "kind": "fetch", "url": "u", "statusCode": 200, "truncated": false}),
        json!({"card": "search", "shape": "tree"}),
        json!({"title": "no card"}),
    ] {
        assert!(serde_json::from_value::<ToolResultView>(json.clone()).is_err(), "{json}");
    }
    assert!(serde_json::from_value::<ToolCallView>(json!({"card": "read", "title": "t"})).is_err());
}

#[test]
fn content_blocks_are_tagged_by_type() {
    let image = ContentBlock::Image { data: "AAAA".to_owned(), mime_type: "image/gif".to_owned() };
    assert_eq!(
        serde_json::to_value(&image).expect("serializes"),
        json!({"type": "image", "data": "AAAA", "mimeType": "image/gif"})
    );
    assert_eq!(image.as_text(), None);
    assert_eq!(ContentBlock::text("x").as_text(), Some("x"));
    round_trip(&image);
}

#[cfg(feature = "schema")]
#[test]
fn schemas_describe_the_wire_format() {
    let schema = serde_json::to_value(schemars::schema_for!(ToolResultView)).expect("schema");
    let text = schema.to_string();
    for needle in ["\"card\"", "\"shape\"", "\"totalLines\"", "\"oldText\"", "\"lineNumber\""] {
        assert!(text.contains(needle), "{needle} missing from {text}");
    }
    let diff = serde_json::to_value(schemars::schema_for!(FileDiff)).expect("schema");
    assert_eq!(diff["required"], json!(["path", "oldText", "newText"]));
}
