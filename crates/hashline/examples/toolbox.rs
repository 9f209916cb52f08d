//! A `Toolbox` in an application: one session over a project directory, tool calls by name
//! with JSON arguments (as an agent loop receives them), the model's text, the typed value
//! for the program, and a card for the UI — with a stale edit refused and retried.
//!
//! Run with `cargo run -p hashline --example toolbox`.

use hashline::view::ToolResultView;
use hashline::{CallContext, Session, Toolbox};
use serde_json::json;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let project = tempfile::tempdir()?;
    std::fs::write(project.path().join("greeting.txt"), "hello\nworld\n")?;
    let session = Session::open(project.path())?;
    let toolbox = Toolbox::new();
    let top = CallContext::top_level();

    println!("Tools: {:?}", toolbox.tools().iter().map(|t| t.name).collect::<Vec<_>>());

    let read = toolbox.execute(&session, "read", json!({"path": "greeting.txt"}), &top);
    println!("read →\n{}\n", read.text());
    let anchor = read.details.ptc_value["lines"][1]["anchor"].as_str().ok_or("a second row")?.to_owned();

    // Someone else changes the file: the anchor the model holds is now stale.
    std::fs::write(project.path().join("greeting.txt"), "hello\nWORLD\n")?;
    let args = json!({"path": "greeting.txt", "edits": [{"set_line": {"anchor": anchor, "new_text": "planet"}}]});
    let refused = toolbox.execute(&session, "edit", args, &top);
    assert!(refused.is_error);
    println!("edit with a stale anchor →\n{}\n", refused.text());

    // The refusal carries fresh anchors (the refused line and its context), so the retry
    // needs no re-read: take the row of the line the stale anchor named.
    let updated = refused.details.ptc_value["error"]["details"]["updatedAnchors"].as_array().ok_or("fresh rows")?;
    let fresh = updated
        .iter()
        .find(|row| row["line"] == 2)
        .and_then(|row| row["anchor"].as_str())
        .ok_or("a fresh anchor for line 2 in the refusal")?
        .to_owned();
    let args = json!({"path": "greeting.txt", "edits": [{"set_line": {"anchor": fresh, "new_text": "planet"}}]});
    let edited = toolbox.execute(&session, "edit", args.clone(), &top);
    println!("retry →\n{}\n", edited.text());
    assert_eq!(std::fs::read_to_string(project.path().join("greeting.txt"))?, "hello\nplanet\n");

    // The UI's card, from the same presenters a session log replays through.
    if let Some(ToolResultView::Diff(card)) = toolbox.get("edit").and_then(|t| t.present_result(&args, &edited)) {
        println!("card: {} — {} hunk(s)", card.title.unwrap_or_default(), card.diffs.len());
    }
    Ok(())
}
