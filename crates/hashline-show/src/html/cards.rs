//! The card bodies of the page: read, diff, search, error, raw content and pending cards.

use std::fmt::Write as _;

use hashline_tools::diff::LineKind;
use hashline_view::{FileDiff, ReadResultView, SearchResultView, ToolResultView};

use super::{Escaped, Page};
use crate::diff::hunk_rows;
use crate::highlight::Token;
use crate::timeline::{CallEntry, CardKind, OrphanResult, raw_text};
use crate::util::{display_path, plural};

impl Page {
    /// The card of a call: its notices, then the body its kind calls for.
    pub(super) fn card(&mut self, call: &CallEntry, kind: CardKind) {
        let _ = write!(self.out, "<section class=\"card card-{0}\" data-card=\"{0}\">", kind.name());
        let Some(result) = &call.result else {
            self.out.push_str("<p class=\"pending\">No result: the call never returned.</p></section>\n");
            return;
        };
        for notice in &result.notices {
            let _ = write!(self.out, "<p class=\"notice stale\">{}</p>", Escaped(notice));
        }
        match (&result.view, kind) {
            (_, CardKind::Error) => self.error(result.error_code.as_deref(), &raw_text(&result.record, true)),
            (Some(ToolResultView::Read(read)), _) => self.read(read),
            (Some(ToolResultView::Diff(diff)), _) => self.diffs(&diff.diffs),
            (Some(ToolResultView::Search(search)), _) => self.search(call, search),
            _ => self.raw(&raw_text(&result.record, true)),
        }
        self.out.push_str("</section>\n");
    }

    /// A result whose call is not in the log: a raw or error card of its own.
    pub(super) fn orphan(&mut self, orphan: &OrphanResult) {
        let kind = if orphan.record.is_error { CardKind::Error } else { CardKind::Generic };
        let _ = write!(
            self.out,
            "<details class=\"call orphan\" data-card=\"{0}\" data-kinds=\"{0}\" data-search=\"{1}\" open>\
             <summary><span class=\"idx\">?</span><span class=\"badge k-{0}\">{0}</span>\
             <span class=\"title\">Result of a call missing from the log</span><span class=\"cid\">{1}</span></summary>",
            kind.name(),
            Escaped(&orphan.call_id),
        );
        let _ = write!(self.out, "<section class=\"card card-{0}\" data-card=\"{0}\">", kind.name());
        let text = raw_text(&orphan.record, false);
        if orphan.record.is_error {
            self.error(orphan.error_code.as_deref(), &text)
        } else {
            self.raw(&text)
        }
        self.out.push_str("</section></details>\n");
    }

    fn error(&mut self, code: Option<&str>, text: &str) {
        let _ = write!(
            self.out,
            "<p class=\"error-code\">error <code>{}</code></p><pre class=\"raw\">{}</pre>",
            Escaped(code.unwrap_or("unknown")),
            Escaped(text)
        );
    }

    fn raw(&mut self, text: &str) {
        let _ = write!(self.out, "<pre class=\"raw\">{}</pre>", Escaped(text));
    }

    /// The head line, then one row per line: number, `:hash|`, highlighted text.
    fn read(&mut self, read: &ReadResultView) {
        let shown = display_path(&read.path, self.root.as_deref()).to_owned();
        let _ = write!(self.out, "<div class=\"card-head\"><span class=\"path\">{}</span> ", Escaped(&shown));
        match (read.lines.first(), read.lines.last()) {
            (Some(first), Some(last)) => {
                let _ = write!(
                    self.out,
                    "<span class=\"range\">lines {}–{} of {}</span>",
                    first.number, last.number, read.total_lines
                );
            }
            _ => {
                let _ = write!(
                    self.out,
                    "<span class=\"range\">no lines from {} of {}</span>",
                    read.offset, read.total_lines
                );
            }
        }
        if let Some(lang) = &read.lang {
            let _ = write!(self.out, " <span class=\"lang\">{}</span>", Escaped(lang));
        }
        self.out.push_str("</div><pre class=\"rows\">");
        let texts: Vec<&str> = read.lines.iter().map(|l| l.text.as_str()).collect();
        let tokens = self.highlighter.tokens(read.lang.as_deref(), &texts);
        for (line, tokens) in read.lines.iter().zip(&tokens) {
            let _ = write!(self.out, "<span class=ln>{}</span>", line.number);
            if let Some(hash) = &line.hash {
                let _ = write!(self.out, "<span class=hx>:{}|</span>", Escaped(hash));
            }
            self.highlighted(&line.text, tokens);
            self.out.push('\n');
        }
        self.out.push_str("</pre>");
    }

    /// Each hunk: path and header, then unified rows with old and new line numbers.
    fn diffs(&mut self, diffs: &[FileDiff]) {
        if diffs.is_empty() {
            self.out.push_str("<p class=\"empty\">No changes.</p>");
        }
        for diff in diffs {
            let hunk = hunk_rows(diff);
            let _ = write!(
                self.out,
                "<div class=\"hunk\"><div class=\"card-head\"><span class=\"path\">{}</span> <span class=\"hh\">{}</span></div><pre class=\"diff\">",
                Escaped(&diff.path),
                hunk.header
            );
            let lang = hashline_view::lang_from_path(&diff.path);
            let old_tokens = self.highlighter.tokens(lang, &hunk.old);
            let new_tokens = self.highlighter.tokens(lang, &hunk.new);
            for row in &hunk.rows {
                let (class, sign) = match row.kind {
                    LineKind::Context => ("ctx", ' '),
                    LineKind::Remove => ("del", '-'),
                    LineKind::Add => ("add", '+'),
                };
                let number = |n: Option<u32>| n.map(|n| n.to_string()).unwrap_or_default();
                let _ = write!(
                    self.out,
                    "<span class=\"dl {class}\"><span class=\"o\">{}</span><span class=\"n\">{}</span><span class=\"s\">{sign}</span>",
                    number(row.old_line),
                    number(row.new_line)
                );
                match (row.kind, row.old_index, row.new_index) {
                    (LineKind::Remove, Some(i), _) => self.highlighted(hunk.old[i], &old_tokens[i]),
                    (_, _, Some(j)) => self.highlighted(hunk.new[j], &new_tokens[j]),
                    _ => {}
                }
                self.out.push_str("</span>");
            }
            self.out.push_str("</pre></div>");
        }
    }

    /// Matches grouped by file, or paths; each file links to a read card of it, when one exists.
    fn search(&mut self, call: &CallEntry, search: &SearchResultView) {
        match search {
            SearchResultView::Matches(matches) => {
                for file in &matches.files {
                    self.out.push_str("<div class=\"file\"><div class=\"card-head\">");
                    self.path_link(call, &file.path);
                    self.out.push_str("</div><pre class=\"matches\">");
                    for m in &file.matches {
                        let _ = writeln!(self.out, "<span class=ln>{}</span>{}", m.line_number, Escaped(&m.line));
                    }
                    self.out.push_str("</pre></div>");
                }
                let (files, total) = (matches.files.len(), matches.total as usize);
                let _ = write!(
                    self.out,
                    "<p class=\"totals\">{total} {} in {files} {}{}</p>",
                    plural(total, "match", "matches"),
                    plural(files, "file", "files"),
                    if matches.truncated { " (more were found than shown)" } else { "" }
                );
            }
            SearchResultView::Paths(paths) => {
                self.out.push_str("<ul class=\"paths\">");
                for path in &paths.paths {
                    self.out.push_str("<li>");
                    self.path_link(call, path);
                    self.out.push_str("</li>");
                }
                let total = paths.total as usize;
                let _ = write!(self.out, "</ul><p class=\"totals\">{total} {}", plural(total, "path", "paths"));
                if paths.truncated {
                    let _ = write!(self.out, " ({} shown)", paths.paths.len());
                }
                self.out.push_str("</p>");
            }
        }
    }

    /// A path, as a link to the read card of the same file when there is one.
    fn path_link(&mut self, call: &CallEntry, path: &str) {
        match self.links.for_path(call, path) {
            Some(index) => {
                let _ = write!(self.out, "<a class=\"path\" href=\"#call-{index}\">{}</a>", Escaped(path));
            }
            None => {
                let _ = write!(self.out, "<span class=\"path\">{}</span>", Escaped(path));
            }
        }
    }

    /// `text` as spans of its tokens' classes.
    fn highlighted(&mut self, text: &str, tokens: &[Token]) {
        for token in tokens {
            let piece = &text[token.range.clone()];
            if token.style.is_plain() {
                let _ = write!(self.out, "{}", Escaped(piece));
            } else {
                let class = self.class_of(token.style);
                let _ = write!(self.out, "<span class=h{class}>{}</span>", Escaped(piece));
            }
        }
    }
}
