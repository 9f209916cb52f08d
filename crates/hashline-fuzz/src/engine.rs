//! The edit engine on random documents (every ending style, BOM, invalid UTF-8, no final
//! newline) and random batches. Four kinds of batch, picked by the first byte:
//!
//! - **clean**: exact anchors, edits separated by untouched lines → must apply, and every
//!   line no edit replaced keeps its bytes and its terminator;
//! - **stale**: a clean batch with one hash no line has → must be refused
//!   (`hash-mismatch` or `line-out-of-range`);
//! - **overlap**: a range and a `set_line` inside it → must be refused (`overlapping-edit`);
//! - **chaos**: anything (wrong numbers, wrong hashes, `replace`, pasted rows, no
//!   `literal`) → applies or is refused with a documented code, never a panic, and what
//!   applies reads back as the document it claims to be.

use arbitrary::{Result, Unstructured};
use hashline::core::edit::{EditOp, EditOptions, apply};
use hashline::core::{Anchor, AnchorRef, Document, LineHash, LineNo, Terminator};

/// The codes the engine may refuse with.
const CODES: &[&str] = &[
    "hash-mismatch",
    "line-out-of-range",
    "overlapping-edit",
    "ambiguous-match",
    "text-not-found",
    "invalid-anchor",
    "invalid-edit-variant",
];

/// Builds a document and a batch from the input and checks the engine's answer.
pub fn edit_engine(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(kind) = u.int_in_range(0..=3u8) else { return };
    let Ok(doc) = document(&mut u) else { return };
    let _ = match kind {
        0 => clean(&mut u, &doc),
        1 => stale(&mut u, &doc),
        2 => overlap(&mut u, &doc),
        _ => chaos(&mut u, &doc),
    };
}

const CONTENTS: &[&[u8]] =
    &[b"", b"a", b"b", b"alpha", b"  x", b"\xff\xfe", "é\t".as_bytes(), b"a b", b"1:d05|", b"\x00", b"}"];

fn document(u: &mut Unstructured<'_>) -> Result<Document> {
    let mut bytes = if u.ratio(1, 4)? { b"\xEF\xBB\xBF".to_vec() } else { Vec::new() };
    let count = u.int_in_range(0..=16usize)?;
    let final_newline = u.arbitrary::<bool>()?;
    for i in 0..count {
        bytes.extend_from_slice(u.choose(CONTENTS)?);
        if i + 1 < count || final_newline {
            bytes.extend_from_slice(u.choose(&[&b"\n"[..], b"\r\n", b"\n", b"\r"])?);
        }
    }
    Ok(Document::parse(bytes))
}

fn new_text(u: &mut Unstructured<'_>) -> Result<String> {
    Ok(u.choose(&["", "\n", "X", "X\nY", "\nZ", "Q\n", "X\r\nY", "A\n\nB"])?.to_string())
}

fn exact(doc: &Document, index: usize) -> AnchorRef {
    let line = doc.line(LineNo::from_index(index)).expect("line exists");
    AnchorRef::Line { anchor: Anchor::new(line.number, line.hash()), content: None }
}

/// Disjoint edits separated by untouched lines; also the lines each one replaces.
fn disjoint(u: &mut Unstructured<'_>, doc: &Document) -> Result<(Vec<EditOp>, Vec<usize>)> {
    let lines = doc.line_count();
    let mut ops = Vec::new();
    let mut replaced = Vec::new();
    let mut cursor = u.int_in_range(0..=2usize)?;
    while cursor < lines && ops.len() < 6 && !u.is_empty() {
        let start = cursor;
        let end = (start + u.int_in_range(0..=2usize)?).min(lines - 1);
        let text = new_text(u)?;
        let last = match u.int_in_range(0..=2u8)? {
            0 => {
                ops.push(EditOp::SetLine { anchor: exact(doc, start), new_text: text, literal: true });
                replaced.push(start);
                start
            }
            1 => {
                ops.push(EditOp::ReplaceLines {
                    start: exact(doc, start),
                    end: exact(doc, end),
                    new_text: text,
                    literal: true,
                });
                replaced.extend(start..=end);
                end
            }
            _ => {
                ops.push(EditOp::InsertAfter { anchor: exact(doc, start), new_text: text, literal: true });
                start
            }
        };
        cursor = last + 2 + u.int_in_range(0..=2usize)?;
    }
    Ok((ops, replaced))
}

fn clean(u: &mut Unstructured<'_>, doc: &Document) -> Result<()> {
    let (ops, replaced) = disjoint(u, doc)?;
    let outcome = match apply(doc, &ops, &EditOptions::default()) {
        Ok(outcome) => outcome,
        Err(err) => panic!("a clean batch was refused: {} {}\n{ops:?}", err.code, err.message),
    };
    let new = &outcome.document;
    assert_eq!(new.has_bom(), doc.has_bom(), "the BOM stays");
    for old in doc.lines() {
        if replaced.contains(&old.number.index()) {
            continue;
        }
        let Some(moved) = outcome.changes.new_line_of(old.number) else {
            // An empty document's one empty row is replaced by an insertion; an empty line
            // after a bare CR can read back as part of a CRLF.
            assert!(old.content.is_empty(), "line {} lost its place", old.number);
            continue;
        };
        let now = new.line(moved).expect("a mapped line exists");
        assert_eq!(now.content, old.content, "line {} kept its bytes", old.number);
        if old.terminator != Terminator::None {
            let end = new.content_range(moved).expect("range").end;
            let rest = &new.as_bytes()[end..];
            // The documented exception (protocol §2.4): when a removal brings a bare-CR
            // line next to an empty `\n` line, the removal takes the `\r`, so the two do not
            // read back as one `\r\n` and no untouched row disappears.
            let cr_taken = old.terminator == Terminator::Cr && rest.starts_with(b"\n\n");
            assert!(rest.starts_with(old.terminator.as_bytes()) || cr_taken, "line {} kept its ending", old.number);
        }
    }
    Ok(())
}

fn stale(u: &mut Unstructured<'_>, doc: &Document) -> Result<()> {
    let (mut ops, _) = disjoint(u, doc)?;
    if ops.is_empty() {
        return Ok(());
    }
    let used: Vec<LineHash> = doc.lines().map(|l| l.hash()).collect();
    let unused = (0..4096u16).filter_map(LineHash::from_value).find(|h| !used.contains(h)).expect("an unused hash");
    let victim = u.choose_index(ops.len())?;
    let corrupt = |r: &mut AnchorRef| {
        if let AnchorRef::Line { anchor, .. } = r {
            anchor.hash = unused;
        }
    };
    match &mut ops[victim] {
        EditOp::SetLine { anchor, .. } | EditOp::InsertAfter { anchor, .. } => corrupt(anchor),
        EditOp::ReplaceLines { start, end, .. } => {
            if u.arbitrary::<bool>()? {
                corrupt(start);
            } else {
                corrupt(end);
            }
        }
        _ => unreachable!("only anchored ops are generated"),
    }
    match apply(doc, &ops, &EditOptions::default()) {
        Ok(_) => panic!("a stale anchor was applied: {ops:?}"),
        Err(err) => assert!(matches!(err.code, "hash-mismatch" | "line-out-of-range"), "{}", err.code),
    }
    Ok(())
}

fn overlap(u: &mut Unstructured<'_>, doc: &Document) -> Result<()> {
    let lines = doc.line_count();
    if lines < 2 {
        return Ok(());
    }
    let start = u.int_in_range(0..=lines - 2)?;
    let end = u.int_in_range(start + 1..=lines - 1)?;
    let inside = u.int_in_range(start..=end)?;
    let mut ops = vec![
        EditOp::ReplaceLines { start: exact(doc, start), end: exact(doc, end), new_text: "R".into(), literal: true },
        EditOp::SetLine { anchor: exact(doc, inside), new_text: "S".into(), literal: true },
    ];
    if u.arbitrary::<bool>()? {
        ops.reverse();
    }
    match apply(doc, &ops, &EditOptions::default()) {
        Ok(_) => panic!("overlapping edits were applied: {ops:?}"),
        Err(err) => assert_eq!(err.code, "overlapping-edit", "{}", err.message),
    }
    Ok(())
}

fn any_anchor(u: &mut Unstructured<'_>, doc: &Document) -> Result<AnchorRef> {
    let line = u.int_in_range(1..=doc.line_count() as u32 + 3)?;
    let number = LineNo::new(line).expect("1-based");
    let hash = match doc.line(number) {
        Some(l) if u.ratio(3, 4)? => l.hash(),
        _ => LineHash::from_value(u.int_in_range(0..=4095u16)?).expect("in range"),
    };
    Ok(if u.ratio(1, 8)? {
        AnchorRef::Hash { hash, content: None }
    } else {
        AnchorRef::Line { anchor: Anchor::new(number, hash), content: None }
    })
}

fn chaos(u: &mut Unstructured<'_>, doc: &Document) -> Result<()> {
    let mut ops = Vec::new();
    for _ in 0..u.int_in_range(1..=5usize)? {
        let literal = u.arbitrary::<bool>()?;
        let text = if u.ratio(1, 4)? {
            // A pasted row, as models echo them.
            let line = doc.line(LineNo::from_index(u.choose_index(doc.line_count())?)).expect("line");
            format!("{}:{}|{}", line.number, line.hash(), String::from_utf8_lossy(line.content))
        } else {
            new_text(u)?
        };
        ops.push(match u.int_in_range(0..=5u8)? {
            0 => EditOp::SetLine { anchor: any_anchor(u, doc)?, new_text: text, literal },
            1 => EditOp::ReplaceLines { start: any_anchor(u, doc)?, end: any_anchor(u, doc)?, new_text: text, literal },
            2 => EditOp::InsertAfter { anchor: any_anchor(u, doc)?, new_text: text, literal },
            3 => EditOp::Replace {
                old_text: u.choose(&["a", "b\n", "alpha", "a b", "\n", "", "é"])?.to_string(),
                new_text: text,
                all: u.arbitrary()?,
                fuzzy: u.arbitrary()?,
            },
            4 => EditOp::CopyLines {
                start: any_anchor(u, doc)?,
                end: any_anchor(u, doc)?,
                after: any_anchor(u, doc)?,
                source: None,
            },
            _ => EditOp::MoveLines {
                start: any_anchor(u, doc)?,
                end: any_anchor(u, doc)?,
                after: any_anchor(u, doc)?,
                source: None,
            },
        });
    }
    match apply(doc, &ops, &EditOptions::default()) {
        Ok(outcome) => {
            let reread = Document::parse(outcome.document.as_bytes().to_vec());
            assert_eq!(reread.line_count(), outcome.document.line_count(), "the result reads back as itself");
            assert_eq!(reread.has_bom(), doc.has_bom(), "the BOM stays");
        }
        Err(err) => assert!(CODES.contains(&err.code), "undocumented code {}", err.code),
    }
    Ok(())
}
