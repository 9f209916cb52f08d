//! `hashline show LOG [--html OUT] [--call ID] [--plain]`: a session log drawn as cards by
//! `hashline-show`; this module only reads the file and writes the output.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anstream::{AutoStream, ColorChoice};
use anyhow::{Context, Result};
use hashline_show::{HtmlOptions, TerminalOptions, Timeline, render_html, render_terminal};

/// Draws the log at `log` in the terminal, or writes the page to `html`.
pub fn run(log: &Path, html: Option<&Path>, call_id: Option<&str>, plain: bool) -> Result<ExitCode> {
    let bytes = std::fs::read(log).with_context(|| format!("cannot read the session log {}", log.display()))?;
    let mut timeline = Timeline::from_log_text(&String::from_utf8_lossy(&bytes));
    if let Some(id) = call_id {
        timeline = timeline.only(id)?;
    }
    match html {
        Some(out) => {
            let page = render_html(&timeline, &HtmlOptions::default());
            std::fs::write(out, page).with_context(|| format!("cannot write {}", out.display()))?;
            if let Some(damage) = &timeline.damage {
                eprintln!("hashline: {damage}");
            }
        }
        None => {
            let stdout = std::io::stdout();
            let colour = !plain && AutoStream::choice(&stdout) != ColorChoice::Never;
            let text = render_terminal(&timeline, TerminalOptions { colour });
            let mut out = stdout.lock();
            out.write_all(text.as_bytes())?;
            out.flush()?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
