//! The anchor core and the edit engine alone: no file system, no session, no tools.
//!
//! An application that keeps its own buffers (an editor, a notebook, a sandbox) shows a
//! model anchored rows, takes anchored edits back, and refuses the stale ones.
//!
//! Run with `cargo run -p hashline-core --example engine`.

use hashline_core::edit::{EditOp, EditOptions, apply};
use hashline_core::row::render_rows;
use hashline_core::{Document, LineNo, parse_anchor};

/// Every line of `doc` as `LINE:HASH|content` rows.
fn rows(doc: &Document) -> String {
    let last = LineNo::new(doc.line_count() as u32).unwrap_or(LineNo::FIRST);
    render_rows(doc, LineNo::FIRST, last)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let doc = Document::parse(b"fn main() {\r\n    println!(\"hello\");\r\n}\r\n".to_vec());
    let shown = rows(&doc);
    println!("What the model sees:\n{shown}\n");

    // The model pastes back the row it wants to change; the parser takes its anchor.
    let row = shown.lines().nth(1).ok_or("the document has two lines")?;
    let edit = |anchor: &str| -> Result<EditOp, Box<dyn std::error::Error>> {
        Ok(EditOp::SetLine {
            anchor: parse_anchor(anchor)?,
            new_text: "    println!(\"hello, anchors\");".into(),
            literal: false,
        })
    };
    let outcome = apply(&doc, &[edit(row)?], &EditOptions::default())?;
    println!("After the edit:\n{}\n", rows(&outcome.document));
    // Untouched lines keep their bytes, CRLF terminators included.
    assert!(outcome.document.as_bytes().starts_with(b"fn main() {\r\n"));
    assert!(outcome.document.as_bytes().ends_with(b"\r\n}\r\n"));

    // The same anchor against the new text is stale: refused, with fresh rows, nothing changed.
    match apply(&outcome.document, &[edit(row)?], &EditOptions::default()) {
        Ok(_) => return Err("a stale anchor was applied".into()),
        Err(refusal) => println!("A stale anchor is refused:\n{refusal}"),
    }
    Ok(())
}
