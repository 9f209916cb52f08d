//! The edit engine on a large batch (SPEC §11: 1000 anchored edits in one batch on a
//! 100k-line document ≤ 50 ms in-process).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use hashline_core::edit::{EditOp, EditOptions, apply};
use hashline_core::{Anchor, AnchorRef, Document, LineNo};

/// Lines of the document.
const LINES: usize = 100_000;
/// Edits of the batch, one every `LINES / EDITS` lines.
const EDITS: usize = 1_000;

/// The document: the lines of the file named by `HASHLINE_BENCH_INPUT` (`cargo xtask
/// bench` writes a 10k-line file and sets it), else this crate's own sources, cycled to
/// 100,000 lines.
fn hundred_k_lines() -> Document {
    let text = match std::env::var_os("HASHLINE_BENCH_INPUT") {
        Some(path) => std::fs::read_to_string(path).expect("HASHLINE_BENCH_INPUT names a readable UTF-8 file"),
        None => [include_str!("../src/document.rs"), include_str!("../src/anchor.rs")].concat(),
    };
    let bytes = text.lines().cycle().take(LINES).flat_map(|l| [l, "\n"]).collect::<String>().into_bytes();
    Document::parse(bytes)
}

/// The anchor a model would copy from the row of line `index` (0-based).
fn anchor(doc: &Document, index: usize) -> AnchorRef {
    let line = doc.line(LineNo::from_index(index)).expect("the line exists");
    AnchorRef::Line { anchor: Anchor::new(line.number, line.hash()), content: None }
}

/// One edit every 100 lines, cycling `set_line`, `replace_lines` (two lines into three)
/// and `insert_after` (two lines), each on the document's own anchors.
fn batch(doc: &Document) -> Vec<EditOp> {
    let step = LINES / EDITS;
    (0..EDITS)
        .map(|k| {
            let at = k * step + step / 2;
            match k % 3 {
                0 => EditOp::SetLine {
                    anchor: anchor(doc, at),
                    new_text: format!("let edited_{k} = {k};"),
                    literal: false,
                },
                1 => EditOp::ReplaceLines {
                    start: anchor(doc, at),
                    end: anchor(doc, at + 1),
                    new_text: format!("// range {k}\nlet first_{k} = 1;\nlet second_{k} = 2;"),
                    literal: false,
                },
                _ => EditOp::InsertAfter {
                    anchor: anchor(doc, at),
                    new_text: format!("    inserted_{k}();\n    inserted_{k}_again();"),
                    literal: false,
                },
            }
        })
        .collect()
}

fn edit_batch(c: &mut Criterion) {
    let doc = hundred_k_lines();
    let ops = batch(&doc);
    let options = EditOptions::default();
    let check = apply(&doc, &ops, &options).expect("the batch applies");
    assert_eq!(check.document.line_count(), LINES + EDITS / 3 + 2 * (EDITS / 3));

    let mut group = c.benchmark_group("edit");
    group.bench_function("apply_1000_edits_100k_lines", |b| {
        b.iter(|| apply(black_box(&doc), black_box(&ops), &options).expect("the batch applies"))
    });
    // One anchored change of a large file, as a model makes most edits: the cost is the
    // document's size, not the batch's.
    let one = [EditOp::SetLine { anchor: anchor(&doc, LINES / 2), new_text: "let one = 1;".into(), literal: false }];
    group.bench_function("apply_1_edit_100k_lines", |b| {
        b.iter(|| apply(black_box(&doc), black_box(&one), &options).expect("the edit applies"))
    });
    // A batch ten times larger costs about ten times as much: planning sorts, it does not
    // compare items pairwise (issue 48 H7: 100k items took 11 s). Read side by side with
    // the 1,000-edit batch.
    let many: Vec<EditOp> = (0..10 * EDITS)
        .map(|k| EditOp::SetLine {
            anchor: anchor(&doc, k * 10),
            new_text: format!("let many_{k} = {k};"),
            literal: false,
        })
        .collect();
    group.bench_function("apply_10000_set_lines_100k_lines", |b| {
        b.iter(|| apply(black_box(&doc), black_box(&many), &options).expect("the batch applies"))
    });
    group.bench_function("apply_1000_edits_100k_lines_to_bytes", |b| {
        b.iter(|| {
            let outcome = apply(black_box(&doc), black_box(&ops), &options).expect("the batch applies");
            black_box(outcome.document.as_bytes().to_vec())
        })
    });
    group.finish();
}

criterion_group!(benches, edit_batch);
criterion_main!(benches);
