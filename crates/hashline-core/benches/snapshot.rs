//! Exact resolution's cost (issue 49): the line diff from a snapshot to the file now that
//! an edit citing a snapshot tag would make once per file, and the tag of a file's bytes.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use hashline_core::edit::{EditOp, EditOptions, apply};
use hashline_core::snapshot::{SnapshotTag, resolve_through};
use hashline_core::{Anchor, AnchorRef, Document, LineNo};

/// `lines` lines of the file named by `HASHLINE_BENCH_INPUT`, else of this crate's own
/// sources, cycled (so lines repeat, as blank lines and braces do in code).
fn lines(lines: usize) -> Document {
    let text = match std::env::var_os("HASHLINE_BENCH_INPUT") {
        Some(path) => std::fs::read_to_string(path).expect("HASHLINE_BENCH_INPUT names a readable UTF-8 file"),
        None => [include_str!("../src/document.rs"), include_str!("../src/anchor.rs")].concat(),
    };
    let bytes = text.lines().cycle().take(lines).flat_map(|l| [l, "\n"]).collect::<String>().into_bytes();
    Document::parse(bytes)
}

/// The document after `edits` one-line changes spread evenly over it.
fn edited(doc: &Document, edits: usize) -> Document {
    let step = doc.line_count() / edits;
    let ops: Vec<EditOp> = (0..edits)
        .map(|k| {
            let line = doc.line(LineNo::from_index(k * step + step / 2)).expect("the line exists");
            EditOp::SetLine {
                anchor: AnchorRef::Line { anchor: Anchor::new(line.number, line.hash()), content: None },
                new_text: format!("let edited_{k} = {k};"),
                literal: false,
            }
        })
        .collect();
    apply(doc, &ops, &EditOptions::default()).expect("the batch applies").document
}

fn resolve(c: &mut Criterion) {
    let mut group = c.benchmark_group("snapshot");
    for (size, edits) in [(10_000, 1), (10_000, 100), (100_000, 1_000)] {
        let before = lines(size);
        let after = edited(&before, edits);
        let map = resolve_through(&before, &after);
        assert_eq!(map.kept(), size - edits);
        group.bench_function(format!("resolve_through_{size}_lines_{edits}_changed"), |b| {
            b.iter(|| resolve_through(black_box(&before), black_box(&after)))
        });
    }
    let doc = lines(10_000);
    group.bench_function("resolve_through_10000_lines_unchanged", |b| {
        b.iter(|| resolve_through(black_box(&doc), black_box(&doc)))
    });
    group.bench_function("tag_10000_lines", |b| b.iter(|| SnapshotTag::of(black_box(doc.as_bytes()))));
    group.finish();
}

criterion_group!(benches, resolve);
criterion_main!(benches);
