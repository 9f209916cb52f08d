//! Symbols of a tree-sitter language: run the language's query, widen each declaration
//! to its wrappers, attributes and doc comments, then nest by containment.

use std::collections::HashMap;

use hashline_core::Document;
use hashline_syntax::tree_sitter::{Node, QueryCursor, QueryMatch, StreamingIterator};
use hashline_syntax::{LanguageId, LineIndex, ParseLimits, Parsed, SymbolRules, SyntaxError, parse_document};

use crate::family::Family;
use crate::kind::SymbolKind;
use crate::langs::{descend_into, pattern_roots, query, rules};
use crate::symbol::{MAX_NESTING, Symbol, SymbolMap};

/// Signatures longer than this are cut (with `…`).
const MAX_SIGNATURE: usize = 160;

/// The map of `doc` parsed as `lang`.
pub fn map_source(lang: LanguageId, doc: &Document, limits: ParseLimits) -> Result<SymbolMap, SyntaxError> {
    let parsed = parse_document(lang, doc, limits)?;
    Ok(map_parsed(&parsed, doc))
}

/// The map of an already parsed document.
pub fn map_parsed(parsed: &Parsed, doc: &Document) -> SymbolMap {
    map_with(parsed, doc, pattern_roots(parsed.lang), descend_into(parsed.lang))
}

/// The map, running the query only at nodes of the kinds `roots` marks (everywhere when
/// `None`), and walking only into nodes of the kinds `descend` marks (all when `None`).
fn map_with(parsed: &Parsed, doc: &Document, roots: Option<&[bool]>, descend: Option<&[bool]>) -> SymbolMap {
    let lang = parsed.lang;
    let rules = rules(lang);
    let query = query(lang);
    let text = &doc.as_bytes()[parsed.text_start..];
    let lines = LineIndex::new(doc);
    let names = query.capture_names();
    // The declarations first (a declaration matched by several patterns is kept by the
    // first in the query, the most specific), then their surroundings from one walk.
    let mut hits = Hits::default();
    let mut cursor = QueryCursor::new();
    let root = parsed.tree.root_node();
    let ctx = Ctx { text, rules };
    match roots {
        // The query runs only where one of its patterns can start: a query cursor over the
        // whole tree costs several times a plain walk of it. The walk keeps the path to the
        // node it is at (each ancestor with the children met so far), so each declaration is
        // placed — wrappers, leading docs — when the walk meets it, with no second walk.
        Some(roots) => {
            cursor.set_max_start_depth(Some(0));
            let mut path = Path::default();
            // Declarations the query captured below the node it ran at, met later: (start
            // byte, node id, hit), sorted by start.
            let mut pending: Vec<(usize, usize, usize)> = Vec::new();
            let mut walk = root.walk();
            'nodes: loop {
                let node = walk.node();
                path.meet(node);
                // Entries before this node were never met (none should be): the family
                // walk after this one places them.
                let here = node.start_byte();
                let stale = pending.partition_point(|&(start, _, _)| start < here);
                pending.drain(..stale);
                let mut at = 0;
                while pending.get(at).is_some_and(|&(start, _, _)| start == here) {
                    if pending[at].1 == node.id() {
                        let (_, _, hit) = pending.remove(at);
                        hits.hits[hit].around = Some(surroundings(node, &path, &ctx));
                    } else {
                        at += 1;
                    }
                }
                if roots.get(usize::from(node.kind_id())).copied().unwrap_or(false) {
                    let before = hits.hits.len();
                    let mut matches = cursor.matches(query, node, text);
                    while let Some(m) = matches.next() {
                        hits.take(m, names, text);
                    }
                    for at in before..hits.hits.len() {
                        let found = hits.hits[at].node;
                        if found.id() == node.id() {
                            hits.hits[at].around = Some(surroundings(node, &path, &ctx));
                        } else {
                            let entry = (found.start_byte(), found.id(), at);
                            let slot = pending.partition_point(|&(s, _, _)| s <= entry.0);
                            pending.insert(slot, entry);
                        }
                    }
                }
                // A node holding an error may hold anything (the grammar's node types
                // describe error-free trees).
                let inside = descend.is_none_or(|d| d.get(usize::from(node.kind_id())).copied().unwrap_or(true))
                    || node.has_error();
                if inside && walk.goto_first_child() {
                    path.descend();
                    continue;
                }
                while !walk.goto_next_sibling() {
                    if !walk.goto_parent() {
                        break 'nodes;
                    }
                    path.ascend();
                }
            }
        }
        None => {
            let mut matches = cursor.matches(query, root, text);
            while let Some(m) = matches.next() {
                hits.take(m, names, text);
            }
        }
    }
    let Hits { mut hits, imports, .. } = hits;
    // Whatever the walk did not place (the whole-tree query) is placed from one family walk.
    let mut starts: Vec<usize> = hits.iter().filter(|h| h.around.is_none()).map(|h| h.node.start_byte()).collect();
    #[cfg(test)]
    if roots.is_some() {
        tests::UNPLACED.with(|n| n.set(n.get() + starts.len()));
    }
    if !starts.is_empty() {
        starts.sort_unstable();
        let family = Family::of(parsed.tree.root_node(), &starts);
        for hit in hits.iter_mut().filter(|h| h.around.is_none()) {
            hit.around = Some(surroundings(hit.node, &family, &ctx));
        }
    }
    let found = hits.iter().map(|h| describe(h, text));
    let mut found: Vec<Found> = found.collect();
    found.sort_by_key(|f| (f.start_byte, std::cmp::Reverse(f.end_byte)));
    let symbols = nest(found, &lines, parsed.text_start);
    SymbolMap {
        language: lang.display_name().to_owned(),
        line_count: doc.line_count() as u32,
        byte_count: doc.as_bytes().len() as u64,
        imports,
        symbols,
    }
}

/// What the query matched: declarations, each once, and imports.
#[derive(Default)]
struct Hits<'t> {
    hits: Vec<Hit<'t>>,
    imports: Vec<String>,
    /// (declaration node, name node) → index in `hits`.
    seen: HashMap<(usize, usize), usize>,
}

impl<'t> Hits<'t> {
    fn take(&mut self, m: &QueryMatch<'_, 't>, names: &[&str], text: &[u8]) {
        let (mut def, mut name, mut receiver, mut id) = (None, None, None, None);
        let mut more_names = Vec::new();
        for capture in m.captures() {
            let capture_name = names[capture.index as usize];
            if let Some(kind) = capture_name.strip_prefix("definition.") {
                def = SymbolKind::from_name(kind).map(|k| (capture.node, k));
            } else if capture_name == "name" {
                // Several `@name` captures name the declaration together (CSS `@media` and
                // its query): the first identifies it, the others follow it in the name.
                match name {
                    None => name = Some(capture.node),
                    Some(_) => more_names.push(capture.node),
                }
            } else if capture_name == "name.id" {
                id = Some(capture.node);
            } else if capture_name == "receiver" {
                receiver = Some(capture.node);
            } else if capture_name == "import" {
                let import = node_text(capture.node, text).trim_matches(['"', '\'', '<', '>']);
                if !self.imports.iter().any(|i| i == import) {
                    self.imports.push(import.to_owned());
                }
            }
        }
        let (Some((node, kind)), Some(name)) = (def, name) else { return };
        let hit = Hit { pattern: m.pattern_index, node, kind, name, more_names, id, receiver, around: None };
        match self.seen.get(&(node.id(), name.id())) {
            Some(&at) if self.hits[at].pattern > m.pattern_index => {
                let around = self.hits[at].around.take();
                self.hits[at] = Hit { around, ..hit };
            }
            Some(_) => {}
            None => {
                self.seen.insert((node.id(), name.id()), self.hits.len());
                self.hits.push(hit);
            }
        }
    }
}

/// A declaration the query matched.
struct Hit<'t> {
    pattern: usize,
    node: Node<'t>,
    kind: SymbolKind,
    name: Node<'t>,
    /// Further `@name` captures, each appended to the name after a space.
    more_names: Vec<Node<'t>>,
    /// An `@name.id` capture, appended to the name as `#id` (HTML's `section#pricing`).
    id: Option<Node<'t>>,
    receiver: Option<Node<'t>>,
    /// Where it sits, once placed.
    around: Option<Surroundings>,
}

/// A declaration's extent with its wrappers and leading docs, and its doc line.
struct Surroundings {
    start_byte: usize,
    decl_byte: usize,
    end_byte: usize,
    doc: Option<String>,
}

/// What placing a declaration needs to know of the language and the text.
struct Ctx<'a> {
    text: &'a [u8],
    rules: &'a SymbolRules,
}

/// Parents and previous siblings of nodes: the walk's [`Path`], or a [`Family`].
trait Place<'t> {
    fn parent(&self, node: Node<'t>) -> Option<Node<'t>>;
    fn prev_sibling(&self, node: Node<'t>) -> Option<Node<'t>>;
}

impl<'t> Place<'t> for Family<'t> {
    fn parent(&self, node: Node<'t>) -> Option<Node<'t>> {
        Family::parent(self, node)
    }

    fn prev_sibling(&self, node: Node<'t>) -> Option<Node<'t>> {
        Family::prev_sibling(self, node)
    }
}

/// The walk's path from the root to the node it is at: every node met, in order, with the
/// index where each open ancestor's children begin. The children an ancestor has met so
/// far are contiguous: a finished subtree is dropped when the walk leaves it.
#[derive(Default)]
struct Path<'t> {
    met: Vec<Node<'t>>,
    /// For each open ancestor (root first): its index in `met`, where its children begin.
    open: Vec<(usize, usize)>,
}

impl<'t> Path<'t> {
    /// The walk is at `node` (the next child of the innermost open ancestor).
    fn meet(&mut self, node: Node<'t>) {
        self.met.push(node);
    }

    /// The walk went down into the node it met last.
    fn descend(&mut self) {
        self.open.push((self.met.len() - 1, self.met.len()));
    }

    /// The walk went back up to the innermost open ancestor.
    fn ascend(&mut self) {
        if let Some((_, children)) = self.open.pop() {
            self.met.truncate(children);
        }
    }

    /// The level (`open` index of the parent) and `met` index of a node on the path or
    /// among the children met so far of a node on it.
    fn find(&self, node: Node<'t>) -> Option<(usize, usize)> {
        for level in (0..self.open.len()).rev() {
            let from = self.open[level].1;
            let to = self.open.get(level + 1).map_or(self.met.len(), |&(at, _)| at + 1);
            if let Some(offset) = self.met[from..to].iter().rposition(|n| n.id() == node.id()) {
                return Some((level, from + offset));
            }
        }
        None
    }
}

impl<'t> Place<'t> for Path<'t> {
    fn parent(&self, node: Node<'t>) -> Option<Node<'t>> {
        let (level, _) = self.find(node)?;
        Some(self.met[self.open[level].0])
    }

    fn prev_sibling(&self, node: Node<'t>) -> Option<Node<'t>> {
        let (level, at) = self.find(node)?;
        (at > self.open[level].1).then(|| self.met[at - 1])
    }
}

/// A declaration as found, before nesting (byte offsets relative to the parsed text).
struct Found {
    name: String,
    kind: SymbolKind,
    receiver: Option<String>,
    start_byte: usize,
    decl_byte: usize,
    end_byte: usize,
    signature: Option<String>,
    doc: Option<String>,
}

/// Where `node` sits: widened to its wrappers, then back over its leading docs, attributes
/// and decorators.
fn surroundings<'t>(node: Node<'t>, place: &impl Place<'t>, ctx: &Ctx<'_>) -> Surroundings {
    let Ctx { text, rules } = *ctx;
    let mut outer = node;
    while let Some(parent) = place.parent(outer) {
        if !rules.wrappers.contains(&parent.kind()) || has_sibling_like(parent, outer) {
            break;
        }
        outer = parent;
    }
    let mut start = outer;
    let mut doc_nodes = Vec::new();
    // Where the declaration itself starts: a head (Haskell's type signature) before it.
    let mut head_byte = None;
    loop {
        let Some(previous) = place.prev_sibling(start) else {
            // The first declaration of a body that leaves its leading comments outside.
            match place.parent(start) {
                Some(body) if rules.bodies.contains(&body.kind()) && body.start_byte() == start.start_byte() => {
                    start = body;
                    continue;
                }
                _ => break,
            }
        };
        let adjacent = previous.end_position().row + 1 >= start.start_position().row;
        if !adjacent || !rules.leading.contains(&previous.kind()) {
            // Comments the grammar closed into the previous declaration's body (see
            // `dedented_tail`) lead this one when nothing but line breaks separates them.
            for comment in dedented_tail(previous, rules).into_iter().rev() {
                if comment.end_position().row + 1 < start.start_position().row || starts_after_code(comment, text) {
                    break;
                }
                doc_nodes.push(comment);
                start = comment;
            }
            break;
        }
        // A trailing comment on the line above another statement is that statement's.
        if previous.kind().contains("comment") && starts_after_code(previous, text) {
            break;
        }
        if rules.comments.contains(&previous.kind()) {
            doc_nodes.push(previous);
        }
        if rules.heads.contains(&previous.kind()) && doc_nodes.is_empty() {
            head_byte = Some(previous.start_byte());
        }
        start = previous;
    }
    doc_nodes.reverse();
    let doc = doc_nodes
        .first()
        .and_then(|first| comment_line(node_text(*first, text)))
        .or_else(|| rules.body_docstrings.then(|| python_docstring(node, text)).flatten());
    Surroundings {
        start_byte: start.start_byte(),
        decl_byte: head_byte.unwrap_or_else(|| declaration_start(node, outer)),
        end_byte: dedented_tail(outer, rules).first().map_or(outer.end_byte(), |c| c.start_byte()),
        doc,
    }
}

/// The comments at the very end of `node` (along its last children, zero-width layout
/// tokens skipped) that are indented no deeper than `node` starts, in text order. A layout
/// grammar (Scala 3) closes an indented body only at the next token, so the doc comment of
/// the next declaration lands inside this one's body: by its indentation it is not the
/// body's.
fn dedented_tail<'t>(node: Node<'t>, rules: &SymbolRules) -> Vec<Node<'t>> {
    let column = node.start_position().column;
    let mut tail = Vec::new();
    let mut at = node;
    'spine: loop {
        let mut index = at.child_count();
        let last = loop {
            let Some(child) = index.checked_sub(1).and_then(|i| at.child(i)) else { break 'spine };
            index -= 1;
            if child.start_byte() == child.end_byte() {
                continue;
            }
            if !rules.comments.contains(&child.kind()) {
                break child;
            }
            if child.start_position().column > column {
                break 'spine;
            }
            tail.push(child);
        };
        at = last;
    }
    tail.reverse();
    tail
}

fn describe(hit: &Hit<'_>, text: &[u8]) -> Found {
    let Hit { node, kind, name, receiver, id, .. } = *hit;
    let around = hit.around.as_ref();
    let mut display_name = node_text(name, text).to_owned();
    if kind == SymbolKind::Impl {
        display_name = strip_generics(&display_name).to_owned();
    }
    for more in &hit.more_names {
        display_name.push(' ');
        display_name.push_str(node_text(*more, text));
    }
    if let Some(id) = id {
        display_name.push('#');
        display_name.push_str(node_text(id, text));
    }
    // A name written over several lines (a CSS selector list) is shown on one.
    if display_name.contains(['\n', '\r', '\t']) {
        display_name = display_name.split_whitespace().collect::<Vec<_>>().join(" ");
    }
    Found {
        name: display_name,
        kind,
        receiver: receiver.map(|r| strip_generics(node_text(r, text).trim_start_matches('*')).to_owned()),
        start_byte: around.map_or(node.start_byte(), |a| a.start_byte),
        decl_byte: around.map_or(node.start_byte(), |a| a.decl_byte),
        end_byte: without_trailing_space(text, around.map_or(node.end_byte(), |a| a.end_byte)),
        signature: signature(node, name, kind, text),
        doc: around.and_then(|a| a.doc.clone()),
    }
}

/// `end` moved back over the whitespace before it: a grammar whose layout rule closes an
/// indented body at the next token (Scala 3's `def f =` with its body on the next lines)
/// ends the declaration where the next one begins, and an HTML element closed by the next
/// tag (an `<input>`, an unclosed `<p>`) runs to that tag, on a later line.
fn without_trailing_space(text: &[u8], end: usize) -> usize {
    let end = end.min(text.len());
    text[..end].iter().rposition(|b| !b.is_ascii_whitespace()).map_or(end, |last| last + 1)
}

/// Where the declaration itself starts: after decorators, annotations and attributes (a
/// Python `decorated_definition`, TypeScript `@decorator`s, Java annotations among the
/// modifiers, C# `[Attribute]` lists, PHP `#[...]` attribute lists, Swift `@attribute`s),
/// else where its wrapper starts (`export`, a one-spec `const (...)`).
fn declaration_start(node: Node<'_>, outer: Node<'_>) -> usize {
    const MARKS: [&str; 5] = ["decorator", "annotation", "marker_annotation", "attribute_list", "attribute"];
    let mut start = if outer.kind() == "decorated_definition" { node.start_byte() } else { outer.start_byte() };
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        if MARKS.contains(&child.kind()) {
            start = start.max(child.end_byte());
            continue;
        }
        if child.kind() == "modifiers" {
            let mut inner = child.walk();
            match child.children(&mut inner).find(|m| !MARKS.contains(&m.kind())) {
                Some(first) => start = start.max(first.start_byte()),
                None => start = start.max(child.end_byte()),
            }
            continue;
        }
        start = start.max(child.start_byte());
        break;
    }
    start
}

/// Whether `parent` holds another child of `child`'s kind (a `const (...)` group; in a Go
/// `type (...)` group a spec and an alias count as one kind).
fn has_sibling_like(parent: Node<'_>, child: Node<'_>) -> bool {
    const GO_TYPES: [&str; 2] = ["type_spec", "type_alias"];
    let like = |kind: &str| kind == child.kind() || (GO_TYPES.contains(&kind) && GO_TYPES.contains(&child.kind()));
    let mut cursor = parent.walk();
    parent.named_children(&mut cursor).any(|c| c.id() != child.id() && like(c.kind()))
}

/// Whether code precedes `node` on its first line.
fn starts_after_code(node: Node<'_>, text: &[u8]) -> bool {
    let line_start = text[..node.start_byte()].iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
    text[line_start..node.start_byte()].iter().any(|b| !b.is_ascii_whitespace())
}

/// The head of a declaration on one line: from its name to its body.
fn signature(node: Node<'_>, name: Node<'_>, kind: SymbolKind, text: &[u8]) -> Option<String> {
    let end = body_of(node).map_or(node.end_byte(), |b| b.start_byte());
    let start = match kind {
        SymbolKind::Function | SymbolKind::Method | SymbolKind::Macro => name.start_byte(),
        SymbolKind::Impl => node.start_byte(),
        _ => return None,
    };
    if end <= start {
        return None;
    }
    let raw = String::from_utf8_lossy(&text[start..end]);
    // A C macro's `\` line continuations mean nothing on one line.
    let raw = raw.replace("\\\r\n", " ").replace("\\\n", " ");
    let mut one_line = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    while one_line.ends_with(['{', ':', ';', '=']) || one_line.ends_with("=>") {
        one_line.pop();
        one_line.truncate(one_line.trim_end_matches(['=', ' ']).len());
    }
    // Haskell's `instance C T where`.
    if let Some(head) = one_line.strip_suffix(" where") {
        one_line.truncate(head.len());
    }
    if one_line.chars().count() > MAX_SIGNATURE {
        one_line = one_line.chars().take(MAX_SIGNATURE - 1).collect::<String>() + "…";
    }
    (!one_line.is_empty()).then_some(one_line)
}

/// A declaration's body: its own (Haskell's: an equation's `match`, an instance's or class's
/// `declarations`), or that of the function a `const f = () => ...` holds.
fn body_of(node: Node<'_>) -> Option<Node<'_>> {
    if let Some(body) = ["body", "match", "declarations"].into_iter().find_map(|field| node.child_by_field_name(field))
    {
        return Some(body);
    }
    let mut cursor = node.walk();
    let declarator = node.named_children(&mut cursor).find(|c| c.kind() == "variable_declarator")?;
    declarator.child_by_field_name("value")?.child_by_field_name("body")
}

/// `Foo<T>` → `Foo`; `crate::a::Foo` stays as written.
fn strip_generics(name: &str) -> &str {
    name.split('<').next().unwrap_or(name).trim()
}

/// The first meaningful line of a comment, without its markers (`--` ones too: Lua's; and
/// without the `<summary>` tags of a C# XML doc comment).
fn comment_line(comment: &str) -> Option<String> {
    comment
        .lines()
        .map(|l| l.trim().trim_start_matches(['/', '*', '!', '#']))
        // `--` (Lua, SQL, Haskell with Haddock's `-- |` and `-- ^`), `--[[` and `--[=[` (Lua).
        .map(|l| {
            l.strip_prefix("--").map_or(l, |rest| {
                let rest = rest.trim_start_matches(['-', '[', '=']).trim_start();
                rest.strip_prefix(['|', '^']).unwrap_or(rest)
            })
        })
        .map(|l| l.trim_end_matches("*/").trim())
        .map(|l| l.trim_start_matches("<summary>").trim_end_matches("</summary>").trim())
        .find(|l| !l.is_empty())
        .map(str::to_owned)
}

/// The first line of a Python docstring.
fn python_docstring(node: Node<'_>, text: &[u8]) -> Option<String> {
    let body = node.child_by_field_name("body")?;
    let first = body.named_child(0)?;
    let string = (first.kind() == "expression_statement").then(|| first.named_child(0)).flatten()?;
    if string.kind() != "string" {
        return None;
    }
    node_text(string, text)
        .trim_matches(['"', '\'', 'r', 'b', 'u', 'f'])
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(str::to_owned)
}

fn node_text<'t>(node: Node<'_>, text: &'t [u8]) -> &'t str {
    std::str::from_utf8(&text[node.start_byte()..node.end_byte()]).unwrap_or("")
}

/// Nests declarations by containment (sorted by start, longest first) and assigns
/// parents, method kinds and lines.
fn nest(found: Vec<Found>, lines: &LineIndex, text_start: usize) -> Vec<Symbol> {
    struct Open {
        symbol: Symbol,
        end_byte: usize,
    }
    let line = |byte: usize| lines.line_of(byte + text_start).get();
    let mut roots: Vec<Symbol> = Vec::new();
    let mut stack: Vec<Open> = Vec::new();
    let close = |stack: &mut Vec<Open>, roots: &mut Vec<Symbol>| {
        if let Some(done) = stack.pop() {
            match stack.last_mut() {
                Some(parent) => parent.symbol.children.push(done.symbol),
                None => roots.push(done.symbol),
            }
        }
    };
    for f in found {
        while stack.last().is_some_and(|open| f.decl_byte >= open.end_byte) {
            close(&mut stack, &mut roots);
        }
        let enclosing = stack.last().map(|open| &open.symbol);
        let mut kind = f.kind;
        if kind == SymbolKind::Function && (enclosing.is_some_and(|p| p.kind.holds_methods()) || f.receiver.is_some()) {
            kind = SymbolKind::Method;
        }
        let parent = f.receiver.clone().or_else(|| enclosing.map(|p| p.name.clone()));
        let end = if f.end_byte > f.decl_byte { f.end_byte - 1 } else { f.end_byte };
        let symbol = Symbol {
            name: f.name,
            kind,
            parent,
            start_line: line(f.start_byte),
            decl_line: line(f.decl_byte),
            end_line: line(end),
            signature: f.signature,
            doc: f.doc,
            children: Vec::new(),
        };
        let too_deep = stack.len() > MAX_NESTING;
        match stack.last_mut() {
            // Deeper than maps nest: a child of the deepest open symbol, with none of its own.
            Some(deepest) if too_deep => deepest.symbol.children.push(symbol),
            _ => stack.push(Open { symbol, end_byte: f.end_byte }),
        }
    }
    while !stack.is_empty() {
        close(&mut stack, &mut roots);
    }
    roots
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A declaration's end does not reach over the blank lines to the next one's start.
    #[test]
    fn a_declaration_ends_at_its_last_non_blank_byte() {
        let text = b"def f =\n  1\n\n  def g";
        assert_eq!(without_trailing_space(text, 15), 11);
        assert_eq!(without_trailing_space(text, 11), 11);
        assert_eq!(without_trailing_space(text, 99), text.len());
    }

    /// A C# XML doc comment's doc is its summary's text, not the `<summary>` tag.
    #[test]
    fn a_csharp_summary_is_the_doc_without_its_tags() {
        assert_eq!(comment_line("/// <summary>\n/// Takes units.\n/// </summary>").as_deref(), Some("Takes units."));
        assert_eq!(comment_line("/// <summary>The name.</summary>").as_deref(), Some("The name."));
    }

    thread_local! {
        /// Declarations the walk left for the family walk to place.
        // Clippy 1.96 flags this `const` initializer as one that could be `const` when
        // it lints for x86_64-pc-windows-gnu (not for Linux or macOS).
        #[allow(clippy::missing_const_for_thread_local)]
        pub(super) static UNPLACED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    /// Running the query only where a pattern can start finds what running it over the
    /// whole tree finds, on every test file.
    #[test]
    fn the_query_at_pattern_roots_finds_what_the_whole_tree_query_finds() {
        let crates = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut files: Vec<_> =
            std::fs::read_dir(crates.join("hashline-symbols/tests/data")).expect("the test data").collect();
        for lang in LanguageId::ALL {
            let folder = crates.join("hashline-syntax/languages").join(lang.name());
            files.extend(std::fs::read_dir(folder).into_iter().flatten());
        }
        let mut checked = 0;
        for entry in files {
            let path = entry.expect("an entry").path();
            let Some(lang) = LanguageId::from_path(&path.to_string_lossy()) else { continue };
            let doc = Document::parse(std::fs::read(&path).expect("readable"));
            let parsed = parse_document(lang, &doc, ParseLimits::DEFAULT).expect("it parses");
            let roots = pattern_roots(lang);
            assert!(roots.is_some(), "{lang}");
            UNPLACED.with(|n| n.set(0));
            let walked = map_with(&parsed, &doc, roots, descend_into(lang));
            assert_eq!(walked, map_with(&parsed, &doc, None, None), "{}", path.display());
            assert_eq!(UNPLACED.with(|n| n.get()), 0, "the walk placed every declaration of {}", path.display());
            // Broken: every seventh line gone, errors all over the tree; the walk still
            // enters whatever holds one.
            let text = String::from_utf8_lossy(doc.as_bytes()).into_owned();
            let broken: String =
                text.split_inclusive('\n').enumerate().filter(|(i, _)| i % 7 != 3).map(|(_, l)| l).collect();
            let broken = Document::parse(broken.into_bytes());
            let parsed = parse_document(lang, &broken, ParseLimits::DEFAULT).expect("it parses");
            let walked = map_with(&parsed, &broken, roots, descend_into(lang));
            assert_eq!(walked, map_with(&parsed, &broken, None, None), "{} with lines removed", path.display());
            checked += 1;
        }
        assert!(checked >= LanguageId::ALL.len(), "{checked} files");
    }

    /// A Haskell equation's signature is its head (to the `=` or guard), an instance's ends
    /// before `where`, and the type signature above an equation is where it is declared.
    #[test]
    fn haskell_heads_are_what_comes_before_the_match() {
        let text = "module M where\n\n-- | Sizes.\nclass Sized a where\n  size :: a -> Int\n\ninstance Sized [b] where\n  size xs = length xs\n\n-- | Halves.\nhalf :: Int -> Int\nhalf x | x > 0 = x `div` 2\n       | otherwise = 0\n";
        let doc = Document::parse(text.as_bytes().to_vec());
        let map = map_source(LanguageId::Haskell, &doc, ParseLimits::DEFAULT).expect("it parses");
        let seen: Vec<_> = map
            .all()
            .into_iter()
            .map(|s| (s.name.as_str(), s.signature.as_deref(), s.start_line, s.decl_line, s.doc.as_deref()))
            .collect();
        assert!(seen.contains(&("Sized [b]", Some("instance Sized [b]"), 7, 7, None)), "{seen:?}");
        assert!(seen.contains(&("size", Some("size xs"), 8, 8, None)), "{seen:?}");
        assert!(seen.contains(&("half", Some("half x"), 10, 11, Some("Halves."))), "{seen:?}");
    }

    /// A comment's doc line loses its markers: `//`, `/**`, `#`, and Lua's `--`, `---`,
    /// `--[[`.
    #[test]
    fn doc_lines_lose_their_comment_markers() {
        for (comment, doc) in [
            ("/// Adds.", "Adds."),
            ("/**\n * Adds.\n */", "Adds."),
            ("# Adds.", "Adds."),
            ("--- Adds.", "Adds."),
            ("-- Adds.", "Adds."),
            ("--[[ Adds.", "Adds."),
            ("---@class Bucket", "@class Bucket"),
            ("// - a list item", "- a list item"),
            ("-- | Adds.", "Adds."),
            ("-- ^ The sum.", "The sum."),
        ] {
            assert_eq!(comment_line(comment).as_deref(), Some(doc), "{comment}");
        }
    }
}
