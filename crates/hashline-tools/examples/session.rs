//! The session and the tools without the registry: typed arguments in, typed values out,
//! confined to a root, with the read-before-edit gate on.
//!
//! Run with `cargo run -p hashline-tools --example session`.

use hashline_tools::edit::{EditArgs, edit};
use hashline_tools::read::{ReadArgs, ReadValue, read};
use hashline_tools::write::{WriteArgs, write};
use hashline_tools::{ErrorCode, Session, SessionConfig};
use serde_json::json;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = tempfile::tempdir()?;
    let config = SessionConfig::builder().root(root.path()).build();
    let session = Session::new(config).map_err(|e| e.text())?;

    let written = write(&session, WriteArgs::builder().path("notes/todo.md").content("# Todo\n\n- ship\n").build())?;
    println!(
        "wrote {} ({:?}), first anchor {}",
        written.value.path, written.value.write_state, written.value.lines[0].anchor
    );

    // Paths outside the root are refused before anything is opened.
    let outside = read(&session, ReadArgs::builder().path("../elsewhere.txt").build());
    assert!(matches!(&outside, Err(e) if e.code == ErrorCode::PathOutsideRoot));
    println!("outside the root: {}", outside.err().map(|e| e.text()).unwrap_or_default());

    let shown = read(&session, ReadArgs::builder().path("notes/todo.md").offset(3).build())?;
    let ReadValue::Text(text) = &shown.value else { return Err("a text file".into()) };
    let anchor = text.lines[0].anchor.clone();
    let edits = json!([{"insert_after": {"anchor": anchor, "new_text": "- document"}}]);
    let edited = edit(&session, EditArgs::builder().path("notes/todo.md").edits(edits).build())?;
    println!("{}", edited.content[0].as_text().unwrap_or_default());
    assert_eq!(std::fs::read_to_string(root.path().join("notes/todo.md"))?, "# Todo\n\n- ship\n- document\n");
    Ok(())
}
