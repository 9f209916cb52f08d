//! The edit engine, scenario by scenario, on every line-ending variant.

use hashline_core::edit::{EditOp, EditOptions, apply};
use hashline_core::{AnchorRef, Document, LineHash, LineNo, parse_anchor};

/// `n:text` → the anchor of line n as the document has it.
fn a(doc: &Document, line: u32) -> AnchorRef {
    let l = doc.line(LineNo::new(line).expect("line")).expect("exists");
    parse_anchor(&format!("{}:{}", line, l.hash())).expect("anchor")
}

fn stale(line: u32, text: &str) -> AnchorRef {
    parse_anchor(&format!("{line}:{}", LineHash::of(text.as_bytes()))).expect("anchor")
}

fn set(anchor: AnchorRef, text: &str) -> EditOp {
    EditOp::SetLine { anchor, new_text: text.into(), literal: false }
}

fn insert(anchor: AnchorRef, text: &str) -> EditOp {
    EditOp::InsertAfter { anchor, new_text: text.into(), literal: false }
}

fn range(start: AnchorRef, end: AnchorRef, text: &str) -> EditOp {
    EditOp::ReplaceLines { start, end, new_text: text.into(), literal: false }
}

fn replace(old: &str, new: &str, all: bool) -> EditOp {
    EditOp::Replace { old_text: old.into(), new_text: new.into(), all, fuzzy: false }
}

fn run(bytes: &[u8], ops: impl FnOnce(&Document) -> Vec<EditOp>) -> Result<Vec<u8>, (String, String)> {
    let doc = Document::parse(bytes.to_vec());
    let ops = ops(&doc);
    apply(&doc, &ops, &EditOptions::default())
        .map(|o| o.document.into_bytes())
        .map_err(|e| (e.code.to_owned(), e.message))
}

/// Turns an LF text into one line-ending variant.
type Variant = fn(&str) -> Vec<u8>;

/// The same scenario over LF, CRLF, BOM+LF and no-final-newline variants.
fn each_variant(lf: &str, ops: impl Fn(&Document) -> Vec<EditOp>, expected_lf: &str) {
    let variants: [(Variant, &str); 4] = [
        (|t| t.as_bytes().to_vec(), "lf"),
        (|t| t.replace('\n', "\r\n").into_bytes(), "crlf"),
        (|t| [b"\xEF\xBB\xBF".as_slice(), t.as_bytes()].concat(), "bom"),
        (|t| t.strip_suffix('\n').unwrap_or(t).as_bytes().to_vec(), "no-final-newline"),
    ];
    for (convert, name) in variants {
        let got = run(&convert(lf), &ops).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        assert_eq!(String::from_utf8_lossy(&got), String::from_utf8_lossy(&convert(expected_lf)), "{name}");
    }
}

#[test]
fn set_line_replaces_deletes_and_blanks() {
    each_variant("a\nb\nc\n", |d| vec![set(a(d, 2), "B")], "a\nB\nc\n");
    each_variant("a\nb\nc\n", |d| vec![set(a(d, 2), "")], "a\nc\n");
    each_variant("a\nb\nc\n", |d| vec![set(a(d, 2), "\n")], "a\n\nc\n");
    each_variant("a\nb\nc\n", |d| vec![set(a(d, 2), "x\ny\n")], "a\nx\ny\nc\n");
    each_variant("a\nb\nc\n", |d| vec![set(a(d, 3), "C")], "a\nb\nC\n");
}

#[test]
fn replace_lines_and_insert_after() {
    each_variant("a\nb\nc\nd\n", |d| vec![range(a(d, 2), a(d, 3), "X")], "a\nX\nd\n");
    each_variant("a\nb\nc\n", |d| vec![insert(a(d, 1), "x\ny")], "a\nx\ny\nb\nc\n");
    each_variant("a\nb\nc\n", |d| vec![insert(a(d, 3), "z")], "a\nb\nc\nz\n");
}

#[test]
fn appending_to_a_file_without_final_newline_keeps_it_without_one() {
    assert_eq!(run(b"line5", |d| vec![insert(a(d, 1), "x")]).expect("ok"), b"line5\nx");
    assert_eq!(run(b"a\r\nb", |d| vec![insert(a(d, 2), "x")]).expect("ok"), b"a\r\nb\r\nx");
}

#[test]
fn empty_file_insert_replaces_the_empty_row() {
    assert_eq!(run(b"", |d| vec![insert(a(d, 1), "first")]).expect("ok"), b"first");
    assert_eq!(run(b"", |d| vec![set(a(d, 1), "first\n")]).expect("ok"), b"first");
}

#[test]
fn mixed_endings_stay_mixed_and_new_lines_take_the_local_one() {
    let got = run(b"a\r\nb\nc\r\n", |d| vec![set(a(d, 1), "A1\nA2"), insert(a(d, 2), "n")]).expect("ok");
    assert_eq!(got, b"A1\r\nA2\r\nb\nn\nc\r\n");
}

#[test]
fn invalid_utf8_outside_the_edit_is_untouched() {
    let got = run(b"\xff\xfe\nmid\n\x80tail\n", |d| vec![set(a(d, 2), "MID")]).expect("ok");
    assert_eq!(got, b"\xff\xfe\nMID\n\x80tail\n");
}

#[test]
fn bottom_up_batch_with_several_edits() {
    let got = run(b"1\n2\n3\n4\n5\n", |d| {
        vec![set(a(d, 1), "one"), insert(a(d, 2), "2.5"), range(a(d, 4), a(d, 5), "four-five")]
    })
    .expect("ok");
    assert_eq!(got, b"one\n2\n2.5\n3\nfour-five\n");
}

#[test]
fn relocation_reaims_a_unique_exact_hash_within_the_window() {
    let doc = Document::parse(b"new\na\nb\nc\n".to_vec());
    let ops = vec![set(stale(2, "b"), "B")];
    let out = apply(&doc, &ops, &EditOptions::default()).expect("relocated");
    assert_eq!(out.document.as_bytes(), b"new\na\nB\nc\n");
    assert_eq!(
        out.relocation_notes(),
        vec![format!("Auto-relocated anchor 2:{0} -> 3:{0} (window ±20).", LineHash::of(b"b"))]
    );
}

#[test]
fn stale_anchor_is_refused_with_fresh_rows() {
    let (code, message) = run(b"a\nb\nc\n", |_| vec![set(stale(2, "zzz"), "B")]).expect_err("stale");
    assert_eq!(code, "hash-mismatch");
    assert!(message.starts_with("Edit rejected — nothing was written."), "{message}");
    assert!(message.contains(&format!(">>> 2:{}|b", LineHash::of(b"b"))), "{message}");
}

#[test]
fn ambiguous_relocation_is_refused() {
    let (code, _) = run(b"x\ny\nx\nz\n", |_| vec![set(stale(4, "x"), "X")]).expect_err("ambiguous");
    assert_eq!(code, "hash-mismatch");
}

#[test]
fn range_ends_must_relocate_by_the_same_offset() {
    let (code, _) =
        run(b"p\na\nb\nq\nc\n", |_| vec![range(stale(1, "a"), stale(3, "c"), "X")]).expect_err("inconsistent");
    assert_eq!(code, "hash-mismatch");
}

#[test]
fn line_out_of_range() {
    let (code, message) = run(b"a\nb\n", |_| vec![set(stale(9, "nothing"), "X")]).expect_err("oob");
    assert_eq!(code, "line-out-of-range");
    assert!(message.contains("Line 9 does not exist (file has 2 lines)"), "{message}");
}

#[test]
fn overlapping_edits_are_refused() {
    let (code, message) =
        run(b"1\n2\n3\n4\n", |d| vec![range(a(d, 1), a(d, 3), "x"), set(a(d, 2), "y")]).expect_err("overlap");
    assert_eq!(code, "overlapping-edit");
    assert!(message.contains("edits[0] targets line(s) 1-3 and edits[1] targets 2"), "{message}");
    let (code, _) =
        run(b"1\n2\n3\n", |d| vec![range(a(d, 1), a(d, 2), "x"), insert(a(d, 1), "y")]).expect_err("insert in span");
    assert_eq!(code, "overlapping-edit");
    let ok =
        run(b"1\n2\n", |d| vec![set(a(d, 1), "one"), insert(a(d, 1), "after")]).expect("1-for-1 set_line + insert");
    assert_eq!(ok, b"one\nafter\n2\n");
}

#[test]
fn duplicate_targets_last_wins_identical_collapse() {
    let doc = Document::parse(b"a\nb\n".to_vec());
    let ops = vec![set(a(&doc, 1), "x"), set(a(&doc, 1), "y")];
    let out = apply(&doc, &ops, &EditOptions::default()).expect("ok");
    assert_eq!(out.document.as_bytes(), b"y\nb\n");
    assert_eq!(out.warnings.len(), 1, "{:?}", out.warnings);
    let same = vec![set(a(&doc, 1), "x"), set(a(&doc, 1), "x")];
    let out = apply(&doc, &same, &EditOptions::default()).expect("ok");
    assert!(out.warnings.is_empty());
}

#[test]
fn replace_exact_all_ambiguous_and_not_found() {
    each_variant("alpha beta\ngamma\n", |_| vec![replace("beta\ngam", "B\nG", false)], "alpha B\nGma\n");
    each_variant("x = 1\nx = 2\n", |_| vec![replace("x", "y", true)], "y = 1\ny = 2\n");
    let (code, message) = run(b"x\nx\n", |_| vec![replace("x", "y", false)]).expect_err("ambiguous");
    assert_eq!(code, "ambiguous-match");
    assert!(message.contains("occurs 2 times"), "{message}");
    assert_eq!(run(b"x\n", |_| vec![replace("nope", "y", false)]).expect_err("missing").0, "text-not-found");
    assert_eq!(run(b"x\n", |_| vec![replace("", "y", false)]).expect_err("empty").0, "invalid-edit-variant");
    each_variant("a\nb\nc\n", |_| vec![replace("a\n", "", false)], "b\nc\n");
}

#[test]
fn replace_fuzzy_only_when_exact_fails() {
    let doc = Document::parse("say “hi” — now  \nend\n".as_bytes().to_vec());
    let ops =
        vec![EditOp::Replace { old_text: "say \"hi\" - now".into(), new_text: "said".into(), all: false, fuzzy: true }];
    let out = apply(&doc, &ops, &EditOptions::default()).expect("fuzzy");
    assert_eq!(out.document.as_bytes(), b"said  \nend\n");
    assert_eq!(out.warnings.len(), 1);
}

#[test]
fn copy_and_move_lines() {
    let got = run(b"1\n2\n3\n4\n", |d| {
        vec![EditOp::CopyLines { start: a(d, 1), end: a(d, 2), after: a(d, 4), source: None }]
    });
    assert_eq!(got.expect("copy"), b"1\n2\n3\n4\n1\n2\n");
    let got = run(b"1\n2\n3\n4\n", |d| {
        vec![EditOp::MoveLines { start: a(d, 1), end: a(d, 2), after: a(d, 3), source: None }]
    });
    assert_eq!(got.expect("move"), b"3\n1\n2\n4\n");
    let (code, _) =
        run(b"1\n2\n3\n", |d| vec![EditOp::MoveLines { start: a(d, 1), end: a(d, 3), after: a(d, 2), source: None }])
            .expect_err("into itself");
    assert_eq!(code, "overlapping-edit");
}

#[test]
fn noop_is_reported_and_bytes_are_equal() {
    let doc = Document::parse(b"a\r\nb\r\n".to_vec());
    let ops = vec![set(a(&doc, 1), "a")];
    let out = apply(&doc, &ops, &EditOptions::default()).expect("ok");
    assert!(out.is_noop(&doc));
    assert_eq!(out.noop_edits, vec![0]);
    assert_eq!(out.first_changed_line, None);
}

#[test]
fn echoed_anchors_are_stripped_unless_literal() {
    let doc = Document::parse(b"alpha\nbeta\n".to_vec());
    let echoed = format!("2:{}|BETA", LineHash::of(b"beta"));
    let out = apply(&doc, &[set(a(&doc, 2), &echoed)], &EditOptions::default()).expect("ok");
    assert_eq!(out.document.as_bytes(), b"alpha\nBETA\n");
    assert_eq!(out.warnings.len(), 1);
    let literal = EditOp::SetLine { anchor: a(&doc, 2), new_text: echoed.clone(), literal: true };
    let out = apply(&doc, &[literal], &EditOptions::default()).expect("ok");
    assert_eq!(out.document.as_bytes(), format!("alpha\n{echoed}\n").as_bytes());
}

#[test]
fn change_map_follows_lines() {
    let doc = Document::parse(b"a\nb\nc\n".to_vec());
    let out = apply(&doc, &[insert(a(&doc, 1), "x\ny"), set(a(&doc, 2), "B")], &EditOptions::default()).expect("ok");
    let at = |n| out.changes.new_line_of(LineNo::new(n).expect("n")).map(LineNo::get);
    assert_eq!((at(1), at(2), at(3)), (Some(1), None, Some(5)));
    assert_eq!(out.overwritten, vec![LineNo::new(2).expect("2")]);
    assert_eq!(out.first_changed_line.map(LineNo::get), Some(2));
}

#[test]
fn bare_cr_lines_never_merge_with_a_following_empty_line() {
    let got = run(b"\r\nabc\rdef\ngh\r\n", |d| vec![set(a(d, 1), ""), set(a(d, 3), "\n")]).expect("ok");
    assert_eq!(got, b"abc\r\rgh\r\n");
}

#[test]
fn deleting_after_a_bare_cr_line_keeps_the_empty_line_below() {
    // Issue 9, finding 1: `a\r` + `X\n` + `\n` + `z\n`; deleting X must leave three rows.
    let pre = b"a\rX\n\nz\n";
    let rows = |bytes: &[u8]| -> Vec<Vec<u8>> {
        Document::parse(bytes.to_vec()).lines().map(|l| l.content.to_vec()).collect()
    };
    let expected: Vec<Vec<u8>> = vec![b"a".to_vec(), Vec::new(), b"z".to_vec()];
    let by_set_line = run(pre, |d| vec![set(a(d, 2), "")]).expect("set_line");
    let by_range = run(pre, |d| vec![range(a(d, 2), a(d, 2), "")]).expect("replace_lines");
    let by_move = run(pre, |d| vec![EditOp::MoveLines { start: a(d, 2), end: a(d, 2), after: a(d, 4), source: None }])
        .expect("move_lines");
    for got in [&by_set_line, &by_range] {
        assert_eq!(rows(got), expected, "{:?}", String::from_utf8_lossy(got));
        assert_eq!(got.as_slice(), b"a\n\nz\n", "only the contiguous run `\\rX` went");
    }
    assert_eq!(rows(&by_move), vec![b"a".to_vec(), Vec::new(), b"z".to_vec(), b"X".to_vec()]);
    let doc = Document::parse(pre.to_vec());
    let out = apply(&doc, &[set(a(&doc, 2), "")], &EditOptions::default()).expect("ok");
    let at = |n| out.changes.new_line_of(LineNo::new(n).expect("n")).map(LineNo::get);
    assert_eq!((at(1), at(2), at(3), at(4)), (Some(1), None, Some(2), Some(3)));
}

#[test]
fn a_removal_that_moves_a_bare_cr_does_not_join_the_lines_before_it() {
    // Found by the property test: `\r` `\r` `\r\n` `\n`; line 1 set to one empty line and
    // line 3 deleted. Line 2's `\r` goes with the removal (it would join the `\n` below),
    // and then line 2, now an empty `\n` line, must not join the new line 1 either.
    let pre = b"\r\r\r\n\nx\n";
    let doc = Document::parse(pre.to_vec());
    let out = apply(&doc, &[set(a(&doc, 1), "\n"), set(a(&doc, 3), "")], &EditOptions::default()).expect("ok");
    let at = |n| out.changes.new_line_of(LineNo::new(n).expect("n")).map(LineNo::get);
    assert_eq!((at(2), at(3), at(4), at(5)), (Some(2), None, Some(3), Some(4)));
    assert_eq!(out.document.line_count(), 4, "{:?}", String::from_utf8_lossy(out.document.as_bytes()));
    let kept: Vec<&[u8]> = out.document.lines().map(|l| l.content).collect();
    assert_eq!(kept, [&b""[..], b"", b"", b"x"]);
}

#[test]
fn insert_after_keeps_a_first_line_equal_to_the_anchor_line() {
    // Issue 9, finding 2: a real blank line is content, not an echo.
    let got = run(b"int a;\n\nint b;\n", |d| vec![insert(a(d, 2), "\nint x;")]).expect("ok");
    assert_eq!(got, b"int a;\n\n\nint x;\nint b;\n");
    // A non-blank copy is kept too, with a warning.
    let doc = Document::parse(b"}\nz\n".to_vec());
    let out = apply(&doc, &[insert(a(&doc, 1), "}\nfn f() {}")], &EditOptions::default()).expect("ok");
    assert_eq!(out.document.as_bytes(), b"}\n}\nfn f() {}\nz\n");
    assert_eq!(
        out.warnings,
        [
            "insert_after text begins with a copy of anchor line 1, so that line now appears twice. If unintended, delete the duplicate."
        ]
    );
    // The anchor's own row pasted from the view is unmistakable: it is dropped.
    let doc = Document::parse(b"alpha\nbeta\n".to_vec());
    let pasted = format!("1:{}|alpha\nnew", LineHash::of(b"alpha"));
    let out = apply(&doc, &[insert(a(&doc, 1), &pasted)], &EditOptions::default()).expect("ok");
    assert_eq!(out.document.as_bytes(), b"alpha\nnew\nbeta\n");
    assert!(out.warnings.iter().any(|w| w.contains("the anchor's own row")), "{:?}", out.warnings);
}

#[test]
fn replace_matches_text_that_ends_with_the_last_line_break() {
    // Issue 9, finding 5: the physical text is searched, terminators included.
    assert_eq!(run(b"x\ny\n", |_| vec![replace("y\n", "z\n", false)]).expect("lf"), b"x\nz\n");
    assert_eq!(run(b"x\r\ny\r\n", |_| vec![replace("y\n", "z\n", false)]).expect("crlf"), b"x\r\nz\r\n");
    assert_eq!(
        run(b"\xEF\xBB\xBFx\ny\n", |_| vec![replace("y\r\n", "z\n", false)]).expect("bom"),
        b"\xEF\xBB\xBFx\nz\n"
    );
    let (code, _) = run(b"x\ny", |_| vec![replace("y\n", "z\n", false)]).expect_err("no final newline");
    assert_eq!(code, "text-not-found");
    assert_eq!(run(b"x\ny\n", |_| vec![replace("y\n", "z", false)]).expect("ok"), b"x\nz");
    assert_eq!(run(b"x\ny\n", |_| vec![replace("y\n", "", false)]).expect("ok"), b"x\n");
    assert_eq!(run(b"x\r\ny\r\n", |_| vec![replace("x\r\ny\r\n", "", false)]).expect("ok"), b"");
    assert_eq!(run(b"x\n\n", |_| vec![replace("\n\n", "\n", false)]).expect("ok"), b"x\n");
    let fuzzy = EditOp::Replace { old_text: "y  \n".into(), new_text: "z\n".into(), all: false, fuzzy: true };
    assert_eq!(run(b"x\ny\n", |_| vec![fuzzy]).expect("fuzzy"), b"x\nz\n");
}

#[test]
fn bare_hash_anchors_say_where_they_resolved() {
    // Issue 9, finding 7.
    let doc = Document::parse(b"alpha\nbeta\n".to_vec());
    let bare = parse_anchor(&LineHash::of(b"beta").to_string()).expect("anchor");
    let out = apply(&doc, &[set(bare, "BETA")], &EditOptions::default()).expect("ok");
    assert_eq!(out.relocation_notes(), ["Resolved bare hash 589 -> 2:589 (the only line with that hash)."]);
}

#[test]
fn a_wrong_hash_is_not_called_a_change() {
    // Issue 9, finding 7: the file may be unchanged and the hash mistyped.
    let (code, message) = run(b"alpha\nbeta\n", |_| vec![set(stale(2, "gamma"), "x")]).expect_err("stale");
    assert_eq!(code, "hash-mismatch");
    assert!(!message.contains("changed since last read"), "{message}");
    assert!(
        message.contains(
            "1 anchor does not match its line: the file changed since it was read, or the hash was copied wrong."
        ),
        "{message}"
    );
}

/// Insertions after one line keep the batch's order, beside a change of that line and of
/// others, before and after (the splice meets them in line order).
#[test]
fn insertions_after_one_line_keep_the_batch_order() {
    each_variant(
        "a\nb\nc\nd\n",
        |d| {
            vec![
                insert(a(d, 3), "c1"),
                set(a(d, 1), "A"),
                insert(a(d, 1), "a1"),
                insert(a(d, 1), "a2"),
                insert(a(d, 3), "c2"),
            ]
        },
        "A\na1\na2\nb\nc\nc1\nc2\nd\n",
    );
    each_variant("a\nb\n", |d| vec![insert(a(d, 2), "y"), insert(a(d, 2), "z"), set(a(d, 1), "")], "b\ny\nz\n");
}
