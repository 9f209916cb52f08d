//! # hashline-show
//!
//! Draws a hashline session log as cards: in a terminal (plain or coloured) or as one
//! self-contained web page. It is the reference consumer of the render-intent view union
//! ([`hashline_view`]): every card comes from [`present_call`](hashline_view::present_call) and
//! [`present_result`](hashline_view::present_result), the same pure presenters a live UI
//! calls, so what this crate draws from a log is what a UI drew while the session ran.
//!
//! - [`Timeline`] reads a log (damage-tolerant: a torn line stops reading and is reported)
//!   into calls with their results and views, nested calls under their parent.
//! - [`render_terminal`] draws it as text: read cards as anchored rows with syntax
//!   highlighting, diff cards with old and new line numbers, search cards grouped by file,
//!   errors with their code, stale-read-context notices; plain or with ANSI colours. A log is
//!   untrusted: every control character from it but tab (C0, DEL, C1, so ESC too) is shown
//!   as `\uXXXX` ([`terminal_safe`]), and the only escape sequences written are the colours.
//! - [`render_html`] draws it as one page with inline CSS and JavaScript: a collapsible,
//!   filterable timeline in which search results link to the read card of the same file.
//!
//! Syntax highlighting uses [syntect](https://docs.rs/syntect) with its bundled grammars and
//! pure-Rust regexes.
//!
//! # Example
//!
//! ```
//! use hashline_show::{CardKind, TerminalOptions, Timeline, render_terminal};
//!
//! let log = concat!(
//!     r#"{"type":"session","version":1,"root":"/w"}"#, "\n",
//!     r#"{"type":"tool/call","callId":"c1","name":"read","args":{"path":"a.rs"}}"#, "\n",
//!     r#"{"type":"tool/result","callId":"c1","result":{"content":[{"type":"text","text":"1:a1c|fn main() {}"}],"#,
//!     r#""isError":false,"meta":{"path":"/w/a.rs","offset":1,"lines":[{"number":1,"text":"fn main() {}","hash":"a1c"}],"totalLines":1}}}"#,
//!     "\n",
//! );
//! let timeline = Timeline::from_log_text(log);
//! assert_eq!(timeline.calls[0].card_kind(), CardKind::Read);
//!
//! let text = render_terminal(&timeline, TerminalOptions { colour: false });
//! assert!(text.contains("[1] Read a.rs"));
//! assert!(text.contains("1:a1c|fn main() {}"));
//!
//! let page = hashline_show::render_html(&timeline, &Default::default());
//! assert!(page.contains(r#"data-card="read""#));
//! ```
#![warn(missing_docs)]

mod diff;
mod error;
pub mod highlight;
mod html;
mod terminal;
mod timeline;
mod util;

pub use diff::{DiffRow, HunkRows, hunk_rows};
pub use error::ShowError;
pub use html::{HtmlOptions, OPEN_UP_TO, render_html};
pub use terminal::{TerminalOptions, render_terminal};
pub use timeline::{CallEntry, CallResult, CardKind, OrphanResult, Timeline};
pub use util::terminal_safe;
