//! Row rendering throughput on a 10k-line file with the window renderer the tools use
//! (issue 12's target: ≥ 1 GB/s render-only, ≥ 700 MB/s parse + render, in-process).

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use hashline_core::Document;
use hashline_core::window::push_rows;

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

criterion_group!(benches, render);
criterion_main!(benches);
