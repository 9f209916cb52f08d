//! Row rendering throughput on a 10k-line file (SPEC §11: ≥ 500 MB/s in-process).

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use hashline_core::Document;
use hashline_core::row::push_row;

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
            let mut out = Vec::with_capacity(bytes.len() + doc.line_count() * 12);
            for line in doc.lines() {
                push_row(&mut out, line.number, line.hash(), line.content);
                out.push(b'\n');
            }
            black_box(hashline_core::row::into_text(out))
        })
    });
    let doc = Document::parse(bytes.clone());
    group.bench_function("render_parsed_10k_lines", |b| {
        b.iter(|| {
            let mut out = Vec::with_capacity(bytes.len() + doc.line_count() * 12);
            for line in black_box(&doc).lines() {
                push_row(&mut out, line.number, line.hash(), line.content);
                out.push(b'\n');
            }
            black_box(hashline_core::row::into_text(out))
        })
    });
    group.finish();
}

criterion_group!(benches, render);
criterion_main!(benches);
