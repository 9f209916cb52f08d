//! `hashline show LOG [--html OUT] [--call ID] [--plain]`: a session log drawn as cards by
//! `hashline-show`; this module only reads the file and writes the output.
//!
//! Neither file may hold the program: the log is opened without blocking and read only when
//! it is a regular file of at most [`MAX_LOG_BYTES`]; `OUT` is written to a temporary file
//! beside it and renamed into place, never opened or followed itself, and refused when it
//! names something other than a regular file or a symlink (a FIFO, a socket, a device).

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anstream::{AutoStream, ColorChoice};
use anyhow::{Context, Result};
use hashline::fs::open;
use hashline_show::{HtmlOptions, TerminalOptions, Timeline, render_html, render_terminal, terminal_safe};

/// The largest log `show` reads (docs/protocol.md §9.5).
pub const MAX_LOG_BYTES: u64 = 256 * 1024 * 1024;

/// Draws the log at `log` in the terminal, or writes the page to `html`.
pub fn run(log: &Path, html: Option<&Path>, call_id: Option<&str>, plain: bool) -> Result<ExitCode> {
    let bytes = read_log(log)?;
    let mut timeline = Timeline::from_log_text(&String::from_utf8_lossy(&bytes));
    drop(bytes);
    if let Some(id) = call_id {
        // The error names ids from the log: escaped, like everything else from it.
        timeline = timeline.only(id).map_err(|err| anyhow::anyhow!("{}", terminal_safe(&err.to_string())))?;
    }
    match html {
        Some(out) => {
            let page = render_html(&timeline, &HtmlOptions::default());
            write_page(out, page.as_bytes()).with_context(|| format!("cannot write {}", shown(out)))?;
            if let Some(damage) = &timeline.damage {
                eprintln!("hashline: {}", terminal_safe(&damage.to_string()));
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

/// A path for a message, with its control characters escaped.
fn shown(path: &Path) -> String {
    terminal_safe(&path.display().to_string()).into_owned()
}

/// The log's bytes: a regular file of at most [`MAX_LOG_BYTES`], opened without blocking.
fn read_log(log: &Path) -> Result<Vec<u8>> {
    match open::read_regular(log, MAX_LOG_BYTES) {
        Ok(bytes) => Ok(bytes),
        Err(err) if err.kind() == std::io::ErrorKind::FileTooLarge => {
            anyhow::bail!("the session log {} is over 256 MiB; show reads logs up to 256 MiB", shown(log))
        }
        Err(err) => Err(err).with_context(|| format!("cannot read the session log {}", shown(log))),
    }
}

/// Writes the page atomically: a temporary file in the target's directory, renamed over it.
/// `OUT` itself is never opened nor followed: a symlink there is replaced by the page (its
/// target is left alone, as a link planted in a shared directory must be), and anything
/// else that is not a regular file is refused.
fn write_page(out: &Path, page: &[u8]) -> std::io::Result<()> {
    match hashline::fs::lookup::symlink_metadata(out) {
        Ok(meta) if meta.is_file() || meta.file_type().is_symlink() => {}
        Ok(meta) if meta.is_dir() => {
            return Err(std::io::Error::new(std::io::ErrorKind::IsADirectory, "is a directory"));
        }
        Ok(_) => {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "not a regular file (a FIFO, socket or device)",
            ));
        }
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
        Err(err) => return Err(err),
    }
    hashline::fs::write_atomic_unsynced(out, page)
}
