//! The read presenters: a generic pending card, then the read card from the persisted meta.

use serde_json::Value;

use super::ToolResultRecord;
use super::args::Args;
use crate::{
    ContentBlock, FileLocation, GenericCallView, ToolCallKind, ToolCallView, ToolResultView, read_meta_from_meta,
};

/// The arguments the read views use. Offset and limit 0 are ignored by the tool, so they count
/// as omitted here too.
struct ReadArgs<'a> {
    path: &'a str,
    offset: Option<u32>,
    limit: Option<u32>,
}

fn read_args(args: &Value) -> Option<ReadArgs<'_>> {
    let args = Args::new(args)?;
    Some(ReadArgs {
        path: args.name("path")?,
        offset: args.opt_u32("offset")?.filter(|&n| n > 0),
        limit: args.opt_u32("limit")?.filter(|&n| n > 0),
    })
}

/// `Read <path>`, `Read <path> (S - E)` or `Read <path> (from line S)`, focused on the first line.
pub(super) fn call(args: &Value) -> Option<ToolCallView> {
    let ReadArgs { path, offset, limit } = read_args(args)?;
    let start = offset.unwrap_or(1);
    let title = match (offset, limit) {
        (_, Some(limit)) => {
            let end = u64::from(start) + u64::from(limit) - 1;
            format!("Read {path} ({start} - {end})")
        }
        (Some(offset), None) => format!("Read {path} (from line {offset})"),
        (None, None) => format!("Read {path}"),
    };
    Some(ToolCallView::Generic(GenericCallView {
        kind: Some(ToolCallKind::Read),
        locations: Some(vec![FileLocation::at(path, start)]),
        ..GenericCallView::new(title)
    }))
}

/// The read card from the meta, with the single text block as its content fallback.
pub(super) fn result(args: &Value, result: &ToolResultRecord) -> Option<ToolResultView> {
    read_args(args)?;
    if result.is_error {
        return None;
    }
    let [block @ ContentBlock::Text { .. }] = result.content.as_slice() else {
        return None;
    };
    let meta = read_meta_from_meta(result.meta.as_ref()?)?;
    Some(ToolResultView::Read(meta.into_view(Some(vec![block.clone()]))))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::{ReadFileLine, ReadResultView, present_call, present_result};

    fn generic(args: Value) -> GenericCallView {
        match present_call("read", &args) {
            Some(ToolCallView::Generic(view)) => view,
            other => panic!("expected a generic view for {args}, got {other:?}"),
        }
    }

    fn title(args: Value) -> String {
        generic(args).title
    }

    #[test]
    fn call_is_a_generic_read_card_focused_on_line_one() {
        let view = generic(json!({"path": "src/lib.rs"}));
        assert_eq!(view.title, "Read src/lib.rs");
        assert_eq!(view.kind, Some(ToolCallKind::Read));
        assert_eq!(view.locations, Some(vec![FileLocation::at("src/lib.rs", 1)]));
        assert_eq!((view.raw_input, view.content), (None, None));
    }

    #[test]
    fn call_titles_a_window() {
        assert_eq!(title(json!({"path": "a", "offset": 5, "limit": 4})), "Read a (5 - 8)");
        assert_eq!(title(json!({"path": "a", "limit": 10})), "Read a (1 - 10)");
        assert_eq!(title(json!({"path": "a", "offset": "5", "limit": "1"})), "Read a (5 - 5)");
        assert_eq!(
            title(json!({"path": "a", "offset": u32::MAX, "limit": u32::MAX})),
            format!("Read a ({} - {})", u32::MAX, 2 * u64::from(u32::MAX) - 1)
        );
    }

    #[test]
    fn call_titles_an_offset_alone() {
        let view = generic(json!({"path": "a", "offset": 7, "limit": null}));
        assert_eq!(view.title, "Read a (from line 7)");
        assert_eq!(view.locations, Some(vec![FileLocation::at("a", 7)]));
    }

    #[test]
    fn call_ignores_zero_offset_and_limit() {
        assert_eq!(title(json!({"path": "a", "offset": 0, "limit": 0})), "Read a");
        assert_eq!(title(json!({"path": "a", "offset": 0, "limit": 3})), "Read a (1 - 3)");
    }

    #[test]
    fn call_declines_mismatched_arguments() {
        for args in [
            json!(null),
            json!("src/lib.rs"),
            json!({}),
            json!({"path": null}),
            json!({"path": 1}),
            json!({"path": "  "}),
            json!({"path": "a", "offset": -1}),
            json!({"path": "a", "offset": 1.5}),
            json!({"path": "a", "offset": "one"}),
            json!({"path": "a", "limit": true}),
        ] {
            assert_eq!(present_call("read", &args), None, "{args}");
        }
    }

    fn meta() -> Value {
        json!({"path": "/w/a.rs", "offset": 1, "totalLines": 1,
               "lines": [{"number": 1, "text": "fn a() {}", "hash": "3c8"}], "lang": "rs"})
    }

    fn record(content: Vec<ContentBlock>, is_error: bool, meta: Option<Value>) -> ToolResultRecord {
        ToolResultRecord { content, is_error, meta }
    }

    fn text() -> Vec<ContentBlock> {
        vec![ContentBlock::text("1:3c8|fn a() {}")]
    }

    #[test]
    fn result_is_the_read_card_with_the_text_as_content() {
        let result = record(text(), false, Some(meta()));
        let view = present_result("read", &json!({"path": "a.rs"}), &result);
        let expected = ReadResultView {
            title: None,
            path: "/w/a.rs".to_owned(),
            offset: 1,
            lines: vec![ReadFileLine { number: 1, text: "fn a() {}".to_owned(), hash: Some("3c8".to_owned()) }],
            total_lines: 1,
            lang: Some("rs".to_owned()),
            content: Some(text()),
        };
        assert_eq!(view, Some(ToolResultView::Read(expected)));
    }

    #[test]
    fn result_declines_an_error() {
        let result = record(text(), true, Some(meta()));
        assert_eq!(present_result("read", &json!({"path": "a.rs"}), &result), None);
    }

    #[test]
    fn result_declines_an_absent_or_malformed_meta() {
        let args = json!({"path": "a.rs"});
        assert_eq!(present_result("read", &args, &record(text(), false, None)), None);
        let malformed = record(text(), false, Some(json!({"path": "/w/a.rs"})));
        assert_eq!(present_result("read", &args, &malformed), None);
    }

    #[test]
    fn result_declines_content_other_than_one_text_block() {
        let args = json!({"path": "a.png"});
        let image = ContentBlock::Image { data: "iVBORw0KGgo=".to_owned(), mime_type: "image/png".to_owned() };
        let two = [text(), text()].concat();
        for content in [vec![], two, vec![image]] {
            assert_eq!(present_result("read", &args, &record(content, false, Some(meta()))), None);
        }
    }

    #[test]
    fn result_declines_mismatched_arguments() {
        let result = record(text(), false, Some(meta()));
        assert_eq!(present_result("read", &json!({"path": 3}), &result), None);
    }
}
