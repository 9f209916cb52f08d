//! Row rendering throughput on a 10k-line file (SPEC §11: ≥ 500 MB/s in-process).

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use hashline_core::row::push_row;
use hashline_core::Document;

/// A 10k-line source-like file with varied line lengths and indentation.
fn ten_k_lines() -> Vec<u8> {
    let mut out = String::new();
    for i in 0..10_000u32 {
        let indent = "    ".repeat((i % 4) as usize);
        match i % 5 {
            0 => out.push_str(&format!(
                "{indent}fn item_{i}(value: u32) -> Result<u32, Error> {{\n"
            )),
            1 => out.push_str(&format!(
                "{indent}let total = value.checked_mul({i}).ok_or(Error::Overflow)?;\n"
            )),
            2 => out.push_str(&format!(
                "{indent}// explains step {i} of the computation in a sentence\n"
            )),
            3 => out.push('\n'),
            _ => out.push_str(&format!("{indent}}}\n")),
        }
    }
    out.into_bytes()
}

fn render(c: &mut Criterion) {
    let bytes = ten_k_lines();
    let mut group = c.benchmark_group("render");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("parse_and_render_10k_lines", |b| {
        b.iter(|| {
            let doc = Document::parse(black_box(bytes.clone()));
            let mut out = String::with_capacity(bytes.len() + doc.line_count() * 12);
            for line in doc.lines() {
                push_row(&mut out, line.number, line.hash(), line.content);
                out.push('\n');
            }
            black_box(out)
        })
    });
    let doc = Document::parse(bytes.clone());
    group.bench_function("render_parsed_10k_lines", |b| {
        b.iter(|| {
            let mut out = String::with_capacity(bytes.len() + doc.line_count() * 12);
            for line in black_box(&doc).lines() {
                push_row(&mut out, line.number, line.hash(), line.content);
                out.push('\n');
            }
            black_box(out)
        })
    });
    group.finish();
}

criterion_group!(benches, render);
criterion_main!(benches);
