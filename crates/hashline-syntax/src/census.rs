//! The error census: every ERROR and MISSING node of a tree, with the lines it covers.

use std::ops::Range;

use hashline_core::{Document, LineNo};
use tree_sitter::{Node, Tree};

/// What kind of syntax problem a node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IssueKind {
    /// Text the grammar could not place (an `ERROR` node).
    Error,
    /// A token the parser had to assume (a zero-width `MISSING` node), e.g. a `;` or `}`.
    Missing,
}

/// An inclusive range of 1-based lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LineSpan {
    /// The first line.
    pub start: LineNo,
    /// The last line (`>= start`).
    pub end: LineNo,
}

impl LineSpan {
    /// Whether the two spans share a line.
    pub fn intersects(self, other: LineSpan) -> bool {
        self.start <= other.end && other.start <= self.end
    }
}

/// One syntax problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxIssue {
    /// ERROR or MISSING.
    pub kind: IssueKind,
    /// The lines it covers, in the document's numbering.
    pub lines: LineSpan,
    /// Its bytes in the document (BOM included in the offsets).
    pub bytes: Range<usize>,
    /// For a MISSING node, the node kind that is missing (`;`, `}`, `identifier`, ...).
    pub missing: Option<String>,
}

/// Every syntax problem of a tree, in document order. Nested ERROR nodes count once (the
/// outermost); so does a MISSING node inside an ERROR.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Census {
    /// The problems.
    pub issues: Vec<SyntaxIssue>,
}

impl Census {
    /// Whether the tree had no problem.
    pub fn is_clean(&self) -> bool {
        self.issues.is_empty()
    }

    /// The number of ERROR nodes.
    pub fn errors(&self) -> usize {
        self.issues.iter().filter(|i| i.kind == IssueKind::Error).count()
    }

    /// The number of MISSING nodes.
    pub fn missing(&self) -> usize {
        self.issues.iter().filter(|i| i.kind == IssueKind::Missing).count()
    }
}

/// The census of `tree`, a parse of `doc`'s text starting at byte `text_start` of the
/// document (see [`crate::Parsed`]).
///
/// ```
/// use hashline_core::Document;
/// use hashline_syntax::{census, parse_document, LanguageId, ParseLimits};
///
/// let doc = Document::parse(b"int main(void) {\n  return 0\n}\n".to_vec());
/// let parsed = parse_document(LanguageId::C, &doc, ParseLimits::DEFAULT).unwrap();
/// let found = census(&parsed.tree, &doc, parsed.text_start);
/// assert_eq!(found.missing(), 1);
/// assert_eq!(found.issues[0].lines.start.get(), 2);
/// ```
pub fn census(tree: &Tree, doc: &Document, text_start: usize) -> Census {
    let root = tree.root_node();
    let mut issues = Vec::new();
    if !root.has_error() {
        return Census { issues };
    }
    let lines = LineIndex::new(doc);
    collect(root, &lines, text_start, &mut issues);
    Census { issues }
}

/// The outermost ERROR and MISSING nodes under `root`, in document order. Iterative: a
/// file nesting thousands deep must not overflow the stack.
fn collect(root: Node<'_>, lines: &LineIndex, text_start: usize, issues: &mut Vec<SyntaxIssue>) {
    let mut cursor = root.walk();
    let mut open = vec![root];
    while let Some(node) = open.pop() {
        if node.is_error() || node.is_missing() {
            let start = node.start_byte() + text_start;
            let end = node.end_byte() + text_start;
            let first = lines.line_of(start);
            // An ERROR that ends right after a newline does not cover the next line.
            let last = if end > start { lines.line_of(end - 1) } else { first };
            let kind = if node.is_missing() { IssueKind::Missing } else { IssueKind::Error };
            issues.push(SyntaxIssue {
                kind,
                lines: LineSpan { start: first, end: last.max(first) },
                bytes: start..end,
                missing: node.is_missing().then(|| node.kind().to_owned()),
            });
            continue;
        }
        let before = open.len();
        open.extend(node.children(&mut cursor).filter(|child| child.has_error()));
        open[before..].reverse();
    }
}

/// Byte offset → line number, in the document's own line model (`\n`, `\r\n`, bare `\r`).
#[derive(Clone, Debug)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    /// The index of `doc`'s lines.
    pub fn new(doc: &Document) -> Self {
        let starts =
            (0..doc.line_count()).filter_map(|i| doc.content_range(LineNo::from_index(i)).map(|r| r.start)).collect();
        LineIndex { starts }
    }

    /// The line holding byte `byte` of the document (BOM included in the offsets; a
    /// terminator belongs to the line it ends).
    pub fn line_of(&self, byte: usize) -> LineNo {
        let index = self.starts.partition_point(|&s| s <= byte).saturating_sub(1);
        LineNo::from_index(index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{LanguageId, ParseLimits, parse_document};

    fn census_of(lang: LanguageId, text: &[u8]) -> Census {
        let doc = Document::parse(text.to_vec());
        let parsed = parse_document(lang, &doc, ParseLimits::DEFAULT).unwrap();
        census(&parsed.tree, &doc, parsed.text_start)
    }

    fn spans(census: &Census) -> Vec<(IssueKind, u32, u32)> {
        census.issues.iter().map(|i| (i.kind, i.lines.start.get(), i.lines.end.get())).collect()
    }

    #[test]
    fn a_clean_file_has_no_issues() {
        for (lang, text) in [
            (LanguageId::Rust, "fn main() { let x = 1; }\n"),
            (LanguageId::C, "int main(void) { return 0; }\n"),
            (LanguageId::Cpp, "namespace n { class A { public: int f(); }; }\n"),
            (LanguageId::Python, "def f(x):\n    return x\n"),
            (LanguageId::JavaScript, "const a = () => <div>{1}</div>;\n"),
            (LanguageId::TypeScript, "interface A { x: number }\nconst a: A = { x: 1 };\n"),
            (LanguageId::Tsx, "const a = <A x={1} />;\n"),
            (LanguageId::Java, "class A { void f() {} }\n"),
            (LanguageId::Go, "package main\nfunc main() {}\n"),
        ] {
            assert!(census_of(lang, text.as_bytes()).is_clean(), "{lang}: {text}");
        }
    }

    #[test]
    fn an_error_nested_thousands_deep_is_found_within_a_small_stack() {
        const LEVELS: usize = 20_000;
        let text =
            (0..LEVELS).map(|i| format!("mod m{i} {{\n")).collect::<String>() + "fn x( {}\n" + &"}\n".repeat(LEVELS);
        let worker = std::thread::Builder::new().stack_size(1 << 20).spawn(move || {
            let census = census_of(LanguageId::Rust, text.as_bytes());
            assert!(!census.is_clean());
            assert!(census.issues.iter().any(|i| i.lines.start.get() as usize == LEVELS + 1), "{:?}", census.issues);
        });
        worker.expect("a thread").join().expect("no overflow");
    }

    #[test]
    fn a_missing_token_is_located_on_its_line() {
        let found = census_of(LanguageId::Rust, b"fn main() {\n    let x = 1\n}\n");
        assert_eq!(spans(&found), vec![(IssueKind::Missing, 2, 2)]);
        assert_eq!(found.issues[0].missing.as_deref(), Some(";"));
    }

    #[test]
    fn an_error_node_covers_its_lines() {
        let found = census_of(LanguageId::Java, b"class A {\n  void f() {}\n  void g() { int x = = 2; }\n}\n");
        assert_eq!(spans(&found), vec![(IssueKind::Error, 3, 3)]);
    }

    #[test]
    fn lines_follow_the_document_with_crlf_bom_and_bare_cr() {
        let lf = spans(&census_of(LanguageId::C, b"int a;\nint b = ;\nint c;\n"));
        let crlf = spans(&census_of(LanguageId::C, b"\xEF\xBB\xBFint a;\r\nint b = ;\r\nint c;\r\n"));
        let cr = spans(&census_of(LanguageId::C, b"int a;\rint b = ;\rint c;\r"));
        assert!(!lf.is_empty());
        assert!(lf.iter().all(|&(_, s, e)| s == 2 && e == 2), "{lf:?}");
        assert_eq!(lf, crlf);
        assert_eq!(lf, cr);
    }
}
