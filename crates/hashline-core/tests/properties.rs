//! Property tests of the line model and the anchor format.

use hashline_core::display::{display_line, is_escaped_control};
use hashline_core::row::push_row;
use hashline_core::window::{Rows, push_rows};
use hashline_core::{Anchor, AnchorRef, Document, LineHash, LineIndex, LineNo, Terminator, parse_anchor};
use proptest::prelude::*;

/// Byte strings biased towards the interesting shapes: terminators, BOMs, controls and
/// invalid UTF-8.
fn document_bytes() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(b"\n".to_vec()),
        Just(b"\r\n".to_vec()),
        Just(b"\r".to_vec()),
        Just(b"\xEF\xBB\xBF".to_vec()),
        Just(b"\xff\xfe".to_vec()),
        Just(vec![0u8]),
        "[a-z \t]{0,8}".prop_map(String::into_bytes),
        proptest::collection::vec(any::<u8>(), 0..6),
    ];
    proptest::collection::vec(piece, 0..24).prop_map(|pieces| pieces.concat())
}

/// Like [`document_bytes`], with long lines (past the renderer's chunked copies and
/// its check blocks), runs of plain ASCII and valid non-ASCII text.
fn render_bytes() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(b"\n".to_vec()),
        Just(b"\r\n".to_vec()),
        Just(b"\r".to_vec()),
        Just(b"\t".to_vec()),
        Just(b"\xEF\xBB\xBF".to_vec()),
        Just("caf\u{e9} \u{1f600}".as_bytes().to_vec()),
        Just(b"\xff\xfe\xe2\x82".to_vec()),
        Just(vec![0u8, 0x1b, 0x7f]),
        "[ -~]{0,80}".prop_map(String::into_bytes),
        (1usize..6000).prop_map(|n| b"x".repeat(n)),
        proptest::collection::vec(any::<u8>(), 0..40),
    ];
    proptest::collection::vec(piece, 0..40).prop_map(|pieces| pieces.concat())
}

proptest! {
    #[test]
    fn window_renderer_equals_row_by_row(bytes in render_bytes(), from in 0usize..60, count in 0usize..80) {
        let doc = Document::parse(bytes);
        let range = from..from + count;
        let mut simple = Vec::new();
        let mut served = Vec::new();
        for line in doc.lines_in(range.clone()) {
            push_row(&mut simple, line.number, line.hash(), line.content);
            simple.push(b'\n');
            served.push((line.number, line.hash()));
        }
        let mut fast = Vec::new();
        push_rows(&mut fast, &doc, range.clone());
        prop_assert_eq!(&fast, &simple);
        // Row by row, with the numbers and hashes it reports.
        let mut rows = Rows::new(&doc, range.clone());
        let mut one_by_one = Vec::new();
        let mut reported = Vec::new();
        while let Some(row) = rows.push_next(&mut one_by_one) {
            one_by_one.push(b'\n');
            reported.push(row);
        }
        prop_assert_eq!(&one_by_one, &simple);
        prop_assert_eq!(&reported, &served);
        // The same rows over the lazy index, which finds the window's lines as it goes.
        let index = LineIndex::new(doc.as_bytes());
        let mut lazy = Rows::over(&index, range.clone());
        prop_assert_eq!(lazy.remaining(), Rows::new(&doc, range.clone()).remaining());
        prop_assert_eq!(lazy.remaining_bytes(), Rows::new(&doc, range.clone()).remaining_bytes());
        let mut scanned = Vec::new();
        let mut lines = Vec::new();
        while let Some((line, hash)) = lazy.push_next_line(&mut scanned) {
            scanned.push(b'\n');
            prop_assert_eq!(hash, line.hash());
            lines.push(line);
        }
        prop_assert_eq!(scanned, simple);
        prop_assert_eq!(lines, doc.lines_in(range).collect::<Vec<_>>());
    }

    #[test]
    fn any_byte_string_round_trips(bytes in document_bytes()) {
        let doc = Document::parse(bytes.clone());
        prop_assert_eq!(doc.as_bytes(), &bytes[..]);
        // Reassembling the lines from their parts gives the same bytes back.
        let mut rebuilt = if doc.has_bom() { b"\xEF\xBB\xBF".to_vec() } else { Vec::new() };
        for line in doc.lines() {
            prop_assert!(!line.content.contains(&b'\n') && !line.content.contains(&b'\r'));
            rebuilt.extend_from_slice(line.content);
            rebuilt.extend_from_slice(line.terminator.as_bytes());
        }
        prop_assert_eq!(rebuilt, bytes);
        prop_assert!(doc.line_count() >= 1);
        let nones = doc.lines().filter(|l| l.terminator == Terminator::None).count();
        prop_assert!(nones <= 1);
    }

    #[test]
    fn arbitrary_raw_bytes_round_trip(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        prop_assert_eq!(Document::parse(bytes.clone()).into_bytes(), bytes);
    }

    #[test]
    fn parse_of_render_is_identity(line in 1u32..=u32::MAX, hash in 0u16..4096) {
        let anchor = Anchor::new(LineNo::new(line).unwrap(), LineHash::from_value(hash).unwrap());
        let rendered = anchor.to_string();
        prop_assert_eq!(rendered.parse::<Anchor>(), Ok(anchor));
        let mut row = Vec::new();
        push_row(&mut row, anchor.line, anchor.hash, b"some | content");
        let row = hashline_core::row::into_text(row);
        prop_assert_eq!(
            parse_anchor(&row),
            Ok(AnchorRef::Line { anchor, content: Some("some | content".to_owned()) })
        );
    }

    #[test]
    fn rows_never_show_raw_controls(content in proptest::collection::vec(any::<u8>(), 0..64)) {
        let mut row = Vec::new();
        push_row(&mut row, LineNo::FIRST, LineHash::of(&content), &content);
        let row = hashline_core::row::into_text(row);
        prop_assert!(!row.chars().any(is_escaped_control), "{:?}", row);
        prop_assert!(!display_line(&content).chars().any(is_escaped_control));
    }

    #[test]
    fn parser_never_panics(input in ".{0,64}") {
        let _ = parse_anchor(&input);
    }
}
