//! Cards as terminal text: plain (for pagers, files and snapshots) or with ANSI colours.
//!
//! Both modes lay out the same characters; colour only adds escape sequences around them.
//! Every text from the log goes through [`Painter::paint`], which shows control characters
//! as `\uXXXX` (see [`crate::util::push_safe`]): the only escape sequences written are our
//! own colours.

use std::fmt::Write as _;

use anstyle::{AnsiColor, Color, RgbColor, Style};
use hashline_tools::diff::LineKind;
use hashline_view::{FileDiff, ReadResultView, SearchResultView, ToolResultView};

use crate::diff::hunk_rows;
use crate::highlight::{Highlighter, Palette, Token};
use crate::timeline::{CallEntry, CardKind, OrphanResult, Timeline, raw_text};
use crate::util::{display_path, plural, push_safe};

/// How to draw cards in a terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TerminalOptions {
    /// Add ANSI colours (syntax highlighting, diff colours). Off gives plain text.
    pub colour: bool,
}

/// Draws a whole timeline: a summary line, every call as a card (nested calls indented under
/// their parent), results without a call, and where the log was damaged.
pub fn render_terminal(timeline: &Timeline, options: TerminalOptions) -> String {
    let painter = Painter::new(options);
    let mut out = String::new();
    summary(&mut out, timeline, &painter);
    for call in &timeline.calls {
        out.push('\n');
        card(&mut out, call, timeline.root.as_deref(), 0, &painter);
    }
    for orphan in &timeline.orphans {
        out.push('\n');
        orphan_card(&mut out, orphan, &painter);
    }
    if timeline.unknown_events > 0 {
        let n = timeline.unknown_events;
        let line = format!("! {n} log {} of an unknown kind skipped", plural(n, "line", "lines"));
        out.push('\n');
        painter.line(&mut out, "", Some(painter.warn), &line);
    }
    if let Some(damage) = &timeline.damage {
        out.push('\n');
        painter.line(&mut out, "", Some(painter.warn), &format!("! {damage}"));
    }
    out
}

/// `hashline session · root R · N calls: 2 read, 1 diff`.
fn summary(out: &mut String, timeline: &Timeline, painter: &Painter) {
    let total = timeline.iter().count() + timeline.orphans.len();
    let mut text = String::from("hashline session");
    if let Some(root) = &timeline.root {
        let _ = write!(text, " · root {root}");
    }
    let _ = write!(text, " · {total} {}", plural(total, "call", "calls"));
    let kinds: Vec<String> =
        timeline.counts().into_iter().filter(|(_, n)| *n > 0).map(|(kind, n)| format!("{n} {}", kind.name())).collect();
    if !kinds.is_empty() {
        let _ = write!(text, ": {}", kinds.join(", "));
    }
    painter.line(out, "", Some(painter.bold), &text);
}

/// One call's card, then its nested calls, indented by `depth`.
fn card(out: &mut String, call: &CallEntry, root: Option<&str>, depth: usize, painter: &Painter) {
    let indent = "    ".repeat(depth);
    let kind = call.card_kind();
    let marker = if call.is_nested() { "↳ " } else { "" };
    painter.start(out, &indent);
    painter.paint(out, Some(painter.bold), &format!("{marker}[{}] {}", call.index, call.title()));
    let mut meta = format!(" · {} · {}", call.tool, call.call_id);
    if let Some(parent) = &call.parent {
        let _ = write!(meta, " · inside {parent}");
    }
    painter.paint(out, Some(painter.dim), &meta);
    match (kind, call.result.as_ref().and_then(|r| r.error_code.as_deref())) {
        (CardKind::Error, code) => {
            painter.paint(out, Some(painter.error), &format!(" · error {}", code.unwrap_or("?")))
        }
        (CardKind::Pending, _) => painter.paint(out, Some(painter.warn), " · pending"),
        _ => {}
    }
    if let Some(result) = &call.result {
        for (label, style) in change_labels(result) {
            painter.paint(out, Some(if style { painter.warn } else { painter.dim }), &format!(" · {label}"));
        }
    }
    out.push('\n');
    let body = format!("{indent}    ");
    if let Some(result) = &call.result {
        for notice in &result.notices {
            painter.line(out, &body, Some(painter.warn), notice);
        }
        match (&result.view, kind) {
            (_, CardKind::Error) => {
                painter.text_block(out, &body, Some(painter.error), &raw_text(&result.record, true));
            }
            (Some(ToolResultView::Read(read)), _) => read_card(out, &body, read, root, painter),
            (Some(ToolResultView::Diff(diff)), _) => diff_card(out, &body, &diff.diffs, painter),
            (Some(ToolResultView::Search(search)), _) => search_card(out, &body, search, painter),
            _ => painter.text_block(out, &body, None, &raw_text(&result.record, true)),
        }
    } else {
        painter.line(out, &body, Some(painter.warn), "(no result: the call never returned)");
    }
    for child in &call.children {
        card(out, child, root, depth + 1, painter);
    }
}

/// The labels of a card that made a change: `change <id>`, `reverts <id>`, and (marked)
/// `reverted by <id>`; each with whether it is marked.
pub(crate) fn change_labels(result: &crate::timeline::CallResult) -> Vec<(String, bool)> {
    let mut labels = Vec::new();
    if let Some(id) = &result.change_id {
        labels.push((format!("change {id}"), false));
    }
    if let Some(id) = &result.reverts {
        labels.push((format!("reverts {id}"), false));
    }
    if let Some(id) = &result.reverted_by {
        labels.push((format!("reverted by {id}"), true));
    }
    labels
}

/// A result whose call is not in the log.
fn orphan_card(out: &mut String, orphan: &OrphanResult, painter: &Painter) {
    painter.start(out, "");
    painter.paint(out, Some(painter.bold), "[?] result of a call missing from the log");
    painter.paint(out, Some(painter.dim), &format!(" · {}", orphan.call_id));
    if orphan.record.is_error {
        let code = orphan.error_code.as_deref().unwrap_or("?");
        painter.paint(out, Some(painter.error), &format!(" · error {code}"));
    }
    out.push('\n');
    painter.text_block(out, "    ", None, &raw_text(&orphan.record, false));
}

/// `path · lines S-E of T · lang`, then the anchored rows, highlighted.
fn read_card(out: &mut String, body: &str, read: &ReadResultView, root: Option<&str>, painter: &Painter) {
    let mut head = display_path(&read.path, root).to_owned();
    match (read.lines.first(), read.lines.last()) {
        (Some(first), Some(last)) => {
            let _ = write!(head, " · lines {}-{} of {}", first.number, last.number, read.total_lines);
        }
        _ => {
            let _ = write!(head, " · no lines from {} of {}", read.offset, read.total_lines);
        }
    }
    if let Some(lang) = &read.lang {
        let _ = write!(head, " · {lang}");
    }
    painter.line(out, body, Some(painter.dim), &head);
    let texts: Vec<&str> = read.lines.iter().map(|l| l.text.as_str()).collect();
    let tokens = painter.tokens(read.lang.as_deref(), &texts);
    for (i, line) in read.lines.iter().enumerate() {
        painter.start(out, body);
        let anchor = match &line.hash {
            Some(hash) => format!("{}:{hash}|", line.number),
            None => format!("{}|", line.number),
        };
        painter.paint(out, Some(painter.anchor), &anchor);
        painter.highlighted(out, &line.text, tokens.get(i));
        out.push('\n');
    }
}

/// Each hunk: `path @@ -S,L +S,L @@`, then its rows with old and new line numbers.
fn diff_card(out: &mut String, body: &str, diffs: &[FileDiff], painter: &Painter) {
    if diffs.is_empty() {
        painter.line(out, body, Some(painter.dim), "(no changes)");
    }
    for diff in diffs {
        let hunk = hunk_rows(diff);
        painter.start(out, body);
        painter.paint(out, Some(painter.bold), &diff.path);
        painter.paint(out, Some(painter.hunk), &format!(" {}", hunk.header));
        out.push('\n');
        let lang = hashline_view::lang_from_path(&diff.path);
        let new_tokens = painter.tokens(lang, &hunk.new);
        for row in &hunk.rows {
            let number = |n: Option<u32>| n.map_or_else(|| " ".repeat(5), |n| format!("{n:>5}"));
            let (sign, style) = match row.kind {
                LineKind::Context => (' ', painter.dim),
                LineKind::Remove => ('-', painter.removed),
                LineKind::Add => ('+', painter.added),
            };
            painter.start(out, body);
            painter.paint(out, Some(style), &format!("{} {} {sign} ", number(row.old_line), number(row.new_line)));
            match (row.kind, row.old_index, row.new_index) {
                (LineKind::Add, _, Some(j)) => painter.paint(out, Some(painter.added), hunk.new[j]),
                (LineKind::Remove, Some(i), _) => painter.paint(out, Some(painter.removed), hunk.old[i]),
                (_, _, Some(j)) => painter.highlighted(out, hunk.new[j], new_tokens.get(j)),
                _ => {}
            }
            out.push('\n');
        }
    }
}

/// Matching lines grouped by file, or matching paths; then the totals.
fn search_card(out: &mut String, body: &str, search: &SearchResultView, painter: &Painter) {
    match search {
        SearchResultView::Matches(matches) => {
            for file in &matches.files {
                painter.line(out, body, Some(painter.bold), &file.path);
                for m in &file.matches {
                    painter.start(out, body);
                    painter.paint(out, Some(painter.anchor), &format!("{:>6}: ", m.line_number));
                    painter.paint(out, None, &m.line);
                    out.push('\n');
                }
            }
            let files = matches.files.len();
            let total = matches.total as usize;
            let mut tail =
                format!("{total} {} in {files} {}", plural(total, "match", "matches"), plural(files, "file", "files"));
            if matches.truncated {
                tail.push_str(" (more were found than shown)");
            }
            painter.line(out, body, Some(painter.dim), &tail);
        }
        SearchResultView::Paths(paths) => {
            for path in &paths.paths {
                painter.line(out, body, None, path);
            }
            let total = paths.total as usize;
            let mut tail = format!("{total} {}", plural(total, "path", "paths"));
            if paths.truncated {
                tail.push_str(&format!(" ({} shown)", paths.paths.len()));
            }
            painter.line(out, body, Some(painter.dim), &tail);
        }
    }
}

/// Writes text, with styles when colour is on.
struct Painter {
    colour: bool,
    highlighter: Option<Highlighter>,
    bold: Style,
    dim: Style,
    warn: Style,
    error: Style,
    anchor: Style,
    hunk: Style,
    added: Style,
    removed: Style,
}

impl Painter {
    fn new(options: TerminalOptions) -> Self {
        let fg = |c: AnsiColor| Style::new().fg_color(Some(Color::Ansi(c)));
        Self {
            colour: options.colour,
            highlighter: options.colour.then(|| Highlighter::new(Palette::Dark)),
            bold: Style::new().bold(),
            dim: Style::new().dimmed(),
            warn: fg(AnsiColor::Yellow),
            error: fg(AnsiColor::Red).bold(),
            anchor: fg(AnsiColor::BrightBlack),
            hunk: fg(AnsiColor::Cyan),
            added: fg(AnsiColor::Green),
            removed: fg(AnsiColor::Red),
        }
    }

    /// The indentation that opens a line.
    fn start(&self, out: &mut String, indent: &str) {
        out.push_str(indent);
    }

    /// `text` (from the log: escaped, so that it cannot drive the terminal), in `style`.
    fn paint(&self, out: &mut String, style: Option<Style>, text: &str) {
        match style {
            Some(style) if self.colour && !text.is_empty() => {
                let _ = write!(out, "{}", style.render());
                push_safe(out, text);
                let _ = write!(out, "{}", style.render_reset());
            }
            _ => push_safe(out, text),
        }
    }

    /// One whole line.
    fn line(&self, out: &mut String, indent: &str, style: Option<Style>, text: &str) {
        self.start(out, indent);
        self.paint(out, style, text);
        out.push('\n');
    }

    /// Every line of `text`, indented.
    fn text_block(&self, out: &mut String, indent: &str, style: Option<Style>, text: &str) {
        for line in text.lines() {
            if line.is_empty() {
                out.push('\n');
            } else {
                self.line(out, indent, style, line);
            }
        }
    }

    fn tokens(&self, lang: Option<&str>, lines: &[&str]) -> Vec<Vec<Token>> {
        match &self.highlighter {
            Some(highlighter) => highlighter.tokens(lang, lines),
            None => Vec::new(),
        }
    }

    /// `text` coloured by its tokens (plain without them).
    fn highlighted(&self, out: &mut String, text: &str, tokens: Option<&Vec<Token>>) {
        let Some(tokens) = tokens.filter(|_| self.colour) else {
            push_safe(out, text);
            return;
        };
        for token in tokens {
            let piece = &text[token.range.clone()];
            let mut style = Style::new();
            if let Some([r, g, b]) = token.style.rgb {
                style = style.fg_color(Some(Color::Rgb(RgbColor(r, g, b))));
            }
            if token.style.bold {
                style = style.bold();
            }
            if token.style.italic {
                style = style.italic();
            }
            self.paint(out, (!token.style.is_plain()).then_some(style), piece);
        }
    }
}
