//! A session log drawn as cards: in the terminal, and as one self-contained web page.
//!
//! Run with `cargo run -p hashline-show --example render_log -- LOG.jsonl [OUT.html]`; without
//! arguments it draws a small log of its own.

use hashline_show::{HtmlOptions, TerminalOptions, Timeline, render_html, render_terminal};

const SAMPLE: &str = concat!(
    r#"{"type":"session","version":1,"root":"/work"}"#,
    "\n",
    r#"{"type":"tool/call","callId":"c1","name":"read","args":{"path":"src/main.rs"}}"#,
    "\n",
    r#"{"type":"tool/result","callId":"c1","result":{"content":[{"type":"text","text":"1:f9b|fn main() {\n2:78b|    println!(\"hello\");\n3:b18|}"}],"isError":false,"meta":{"path":"/work/src/main.rs","offset":1,"lines":[{"number":1,"text":"fn main() {","hash":"f9b"},{"number":2,"text":"    println!(\"hello\");","hash":"78b"},{"number":3,"text":"}","hash":"b18"}],"totalLines":3}}}"#,
    "\n",
    r#"{"type":"tool/call","callId":"c2","name":"edit","args":{"path":"src/main.rs","edits":[{"set_line":{"anchor":"2:78b","new_text":"    run();"}}]}}"#,
    "\n",
    r#"{"type":"tool/result","callId":"c2","result":{"content":[{"type":"text","text":"Edited src/main.rs (1 change, +1 -1 line)"}],"isError":false,"meta":{"diffs":[{"path":"src/main.rs","oldText":"fn main() {\n    println!(\"hello\");\n}","newText":"fn main() {\n    run();\n}","oldStart":1,"newStart":1}]}}}"#,
    "\n",
);

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let text = match args.next() {
        Some(log) => std::fs::read_to_string(log)?,
        None => SAMPLE.to_owned(),
    };
    let timeline = Timeline::from_log_text(&text);
    print!("{}", render_terminal(&timeline, TerminalOptions { colour: false }));
    for (kind, count) in timeline.counts() {
        if count > 0 {
            println!("{count} {} card(s)", kind.name());
        }
    }
    if let Some(out) = args.next() {
        std::fs::write(&out, render_html(&timeline, &HtmlOptions::default()))?;
        println!("wrote {out}");
    }
    Ok(())
}
