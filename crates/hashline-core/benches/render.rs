//! Row rendering throughput on a 10k-line file with the window renderer the tools use
//! (issue 12's target: ≥ 1 GB/s render-only, ≥ 700 MB/s parse + render, in-process).
//!
//! Beside it, in the same run, a window of a large file (the same lines cycled to 2^20):
//! 20 rows from its middle found through the lazy [`LineIndex`], the same 20 rows after
//! splitting the whole [`Document`] (what a read did before issue 21), and the full read
//! of every row; the ratios are printed after the criterion figures.

use std::hint::black_box;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use hashline_core::window::{Rows, push_rows};
use hashline_core::{Document, LineIndex};

/// The input: the file named by `HASHLINE_BENCH_INPUT` (`cargo xtask bench` writes a
/// 10k-line file and sets it), else this crate's own sources cycled to 10,000 lines.
fn ten_k_lines() -> Vec<u8> {
    if let Some(path) = std::env::var_os("HASHLINE_BENCH_INPUT") {
        return std::fs::read(path).expect("HASHLINE_BENCH_INPUT names a readable file");
    }
    let sources = [include_str!("../src/document.rs"), include_str!("../src/anchor.rs")].concat();
    sources.lines().cycle().take(10_000).flat_map(|l| [l, "\n"]).collect::<String>().into_bytes()
}

fn render(c: &mut Criterion) {
    let bytes = ten_k_lines();
    let mut group = c.benchmark_group("render");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("parse_and_render_10k_lines", |b| {
        b.iter(|| {
            let doc = Document::parse(black_box(bytes.clone()));
            let mut out = Vec::new();
            push_rows(&mut out, &doc, 0..doc.line_count());
            black_box(hashline_core::row::into_text(out))
        })
    });
    let doc = Document::parse(bytes.clone());
    group.bench_function("render_parsed_10k_lines", |b| {
        b.iter(|| {
            let mut out = Vec::new();
            let doc = black_box(&doc);
            push_rows(&mut out, doc, 0..doc.line_count());
            black_box(hashline_core::row::into_text(out))
        })
    });
    group.finish();
}

/// Lines of the large file.
const LARGE_LINES: usize = 1 << 20;
/// Rows of the window, from the middle of the large file.
const WINDOW: std::ops::Range<usize> = LARGE_LINES / 2..LARGE_LINES / 2 + 20;

/// The rows of `rows`, as text.
fn render_all(mut rows: Rows<'_>) -> String {
    let mut out = Vec::new();
    while rows.push_next(&mut out).is_some() {
        out.push(b'\n');
    }
    hashline_core::row::into_text(out)
}

fn window(c: &mut Criterion) {
    let text = String::from_utf8_lossy(&ten_k_lines()).into_owned();
    let large: Vec<u8> =
        text.lines().cycle().take(LARGE_LINES).flat_map(|l| [l, "\n"]).collect::<String>().into_bytes();
    let lazy = render_all(Rows::over(&LineIndex::new(&large), WINDOW));
    assert_eq!(lazy, render_all(Rows::new(&Document::parse(large.clone()), WINDOW)), "the same rows");
    let mut group = c.benchmark_group("window");
    group.sample_size(20);
    group.bench_function("lazy_index_20_rows_of_1m_lines", |b| {
        b.iter(|| {
            let index = LineIndex::new(black_box(&large));
            (index.line_count(), render_all(Rows::over(&index, WINDOW)))
        })
    });
    group.bench_function("parsed_document_20_rows_of_1m_lines", |b| {
        b.iter_batched(
            || large.clone(),
            |bytes| {
                let doc = Document::parse(black_box(bytes));
                (doc.line_count(), render_all(Rows::new(&doc, WINDOW)))
            },
            BatchSize::LargeInput,
        )
    });
    group.bench_function("full_read_1m_lines", |b| {
        b.iter_batched(
            || large.clone(),
            |bytes| {
                let doc = Document::parse(black_box(bytes));
                let mut out = Vec::new();
                push_rows(&mut out, &doc, 0..doc.line_count());
                hashline_core::row::into_text(out)
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, render, window);
criterion_main!(benches);
