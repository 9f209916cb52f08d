//! Cards as one self-contained web page: inline CSS and JavaScript, no network.
//!
//! The page is a timeline of `<details>` elements, one per call, with nested calls inside
//! their parent's. Each card body is a `<section class="card" data-card="KIND">` with `KIND`
//! one of [`CardKind::name`](crate::CardKind::name), so a test (or a reader's script) can find
//! the cards of a kind. Long sessions start collapsed; cards off screen are not rendered until
//! scrolled to (`content-visibility`), so a page of thousands of calls stays usable.

mod cards;
mod escape;
mod links;

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::highlight::{Highlighter, Palette, TokenStyle};
use crate::timeline::{CallEntry, Timeline};
use crate::util::plural;

pub(crate) use escape::Escaped;

/// Sessions with more calls than this start with every card collapsed.
pub const OPEN_UP_TO: usize = 200;

const CSS: &str = include_str!("page.css");
const JS: &str = include_str!("page.js");

/// How to draw the page.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HtmlOptions {
    /// The page title; the default names the session's root.
    pub title: Option<String>,
}

/// Draws a whole timeline as one HTML document.
pub fn render_html(timeline: &Timeline, options: &HtmlOptions) -> String {
    let mut page = Page {
        out: String::with_capacity(64 * 1024),
        highlighter: Highlighter::new(Palette::Light),
        classes: HashMap::new(),
        root: timeline.root.clone(),
        links: links::ReadCards::of(timeline),
        open: timeline.iter().count() <= OPEN_UP_TO,
    };
    let body = page.body(timeline);
    let title = options.title.clone().unwrap_or_else(|| match &timeline.root {
        Some(root) => format!("hashline session — {root}"),
        None => "hashline session".to_owned(),
    });
    let mut out = String::with_capacity(body.len() + CSS.len() + JS.len() + 4096);
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">");
    let _ = write!(out, "<title>{}</title>\n<style>\n{CSS}", Escaped(&title));
    page.palette_css(&mut out);
    out.push_str("</style></head>\n<body>\n");
    out.push_str(&body);
    let _ = write!(out, "<script>\n{JS}</script>\n</body></html>\n");
    out
}

/// The state of one page being drawn.
struct Page {
    out: String,
    highlighter: Highlighter,
    /// Each token look used so far and its class number (`h0`, `h1`, ...).
    classes: HashMap<TokenStyle, usize>,
    root: Option<String>,
    links: links::ReadCards,
    open: bool,
}

impl Page {
    /// The header and the timeline.
    fn body(&mut self, timeline: &Timeline) -> String {
        self.header(timeline);
        self.out.push_str("<main id=\"timeline\">\n");
        for call in &timeline.calls {
            self.call(call);
        }
        for orphan in &timeline.orphans {
            self.orphan(orphan);
        }
        self.out.push_str("</main>\n");
        std::mem::take(&mut self.out)
    }

    fn header(&mut self, timeline: &Timeline) {
        let total = timeline.iter().count() + timeline.orphans.len();
        let out = &mut self.out;
        out.push_str("<header class=\"top\">\n<h1>hashline session</h1>\n<p class=\"root\">");
        if let Some(root) = &timeline.root {
            let _ = write!(out, "root <code>{}</code> · ", Escaped(root));
        }
        let _ = write!(
            out,
            "<span id=\"total\">{total}</span> {}</p>\n<nav class=\"kinds\">",
            plural(total, "call", "calls")
        );
        for (kind, n) in timeline.counts() {
            let name = kind.name();
            let _ = write!(
                out,
                "<label class=\"k-{name}\"><input type=\"checkbox\" data-kind=\"{name}\" checked> {name} \
                 <span class=\"n\" data-count=\"{name}\">{n}</span></label>"
            );
        }
        out.push_str(
            "</nav>\n<div class=\"controls\"><input id=\"filter\" type=\"search\" \
             placeholder=\"Filter by title, tool, path or call id\" aria-label=\"Filter calls\">\
             <button id=\"expand\" type=\"button\">Expand all</button>\
             <button id=\"collapse\" type=\"button\">Collapse all</button></div>\n",
        );
        if timeline.unknown_events > 0 {
            let n = timeline.unknown_events;
            let _ = writeln!(
                out,
                "<p class=\"notice\">{n} log {} of an unknown kind skipped.</p>",
                plural(n, "line", "lines")
            );
        }
        if let Some(damage) = &timeline.damage {
            let _ = writeln!(out, "<p class=\"notice damage\">{}</p>", Escaped(&damage.to_string()));
        }
        out.push_str("</header>\n");
    }

    /// One call as a `<details>`: summary line, card, nested calls.
    fn call(&mut self, call: &CallEntry) {
        let kind = call.card_kind();
        let mut kinds: Vec<&str> = vec![kind.name()];
        let mut search = format!("{} {} {}", call.title(), call.tool, call.call_id);
        for nested in call.children.iter() {
            kinds.push(nested.card_kind().name());
            let _ = write!(search, " {} {} {}", nested.title(), nested.tool, nested.call_id);
        }
        let stale = call.result.as_ref().is_some_and(|r| !r.notices.is_empty());
        let open = if self.open { " open" } else { "" };
        let _ = write!(
            self.out,
            "<details class=\"call{}\" id=\"call-{}\" data-card=\"{}\" data-kinds=\"{}\" data-search=\"{}\" \
             data-call-id=\"{}\"{open}><summary><span class=\"idx\">{}</span><span class=\"badge k-{}\">{}</span>\
             <span class=\"title\">{}</span><span class=\"tool\">{}</span><span class=\"cid\">{}</span>",
            if call.is_nested() { " nested" } else { "" },
            call.index,
            kind.name(),
            kinds.join(" "),
            Escaped(&search.to_lowercase()),
            Escaped(&call.call_id),
            call.index,
            kind.name(),
            kind.name(),
            Escaped(&call.title()),
            Escaped(&call.tool),
            Escaped(&call.call_id),
        );
        if let Some(code) = call.result.as_ref().and_then(|r| r.error_code.as_deref()) {
            let _ = write!(self.out, "<span class=\"code\">{}</span>", Escaped(code));
        }
        if stale {
            self.out.push_str("<span class=\"stale-flag\">stale read context</span>");
        }
        if let Some(result) = &call.result {
            for (label, marked) in crate::terminal::change_labels(result) {
                let class = if marked { "change reverted" } else { "change" };
                let _ = write!(self.out, "<span class=\"{class}\">{}</span>", Escaped(&label));
            }
        }
        if !call.children.is_empty() {
            let n = call.children.len();
            let _ = write!(self.out, "<span class=\"nested-count\">{n} nested {}</span>", plural(n, "call", "calls"));
        }
        self.out.push_str("</summary>\n");
        self.card(call, kind);
        if !call.children.is_empty() {
            self.out.push_str("<div class=\"children\">\n");
            for child in &call.children {
                self.call(child);
            }
            self.out.push_str("</div>\n");
        }
        self.out.push_str("</details>\n");
    }

    /// The `<style>` rules of every token look the page used.
    fn palette_css(&self, out: &mut String) {
        let mut looks: Vec<(&TokenStyle, &usize)> = self.classes.iter().collect();
        looks.sort_by_key(|(_, n)| **n);
        for (look, n) in looks {
            let _ = write!(out, ".h{n}{{");
            if let Some([r, g, b]) = look.rgb {
                let _ = write!(out, "color:#{r:02x}{g:02x}{b:02x};");
            }
            if look.bold {
                out.push_str("font-weight:bold;");
            }
            if look.italic {
                out.push_str("font-style:italic;");
            }
            out.push_str("}\n");
        }
    }

    /// The class of a token look, numbering new looks as they come.
    fn class_of(&mut self, look: TokenStyle) -> usize {
        let next = self.classes.len();
        *self.classes.entry(look).or_insert(next)
    }
}
