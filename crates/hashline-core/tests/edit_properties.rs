//! Property tests of the edit engine: untouched bytes stay, a batch equals its edits
//! applied one by one with re-mapped anchors, and a stale anchor changes nothing.

use hashline_core::edit::{ChangeMap, EditOp, EditOptions, apply};
use hashline_core::{Anchor, AnchorRef, Document, LineHash, LineNo, Terminator};
use proptest::prelude::*;

/// One line: content bytes (no line breaks) and its terminator.
fn line() -> impl Strategy<Value = (Vec<u8>, Terminator)> {
    let content = prop_oneof![
        "[a-z ]{0,6}".prop_map(String::into_bytes),
        Just(b"\xff\xfe".to_vec()),
        Just("é\t".as_bytes().to_vec()),
        Just(Vec::new()),
    ];
    let terminator =
        prop_oneof![Just(Terminator::Lf), Just(Terminator::CrLf), Just(Terminator::Lf), Just(Terminator::Cr)];
    (content, terminator)
}

/// A document: BOM or not, 1..24 lines, the last maybe without a terminator.
fn document() -> impl Strategy<Value = Document> {
    (any::<bool>(), proptest::collection::vec(line(), 1..24), any::<bool>()).prop_map(|(bom, lines, final_newline)| {
        let mut bytes = if bom { b"\xEF\xBB\xBF".to_vec() } else { Vec::new() };
        let count = lines.len();
        for (i, (content, terminator)) in lines.into_iter().enumerate() {
            bytes.extend_from_slice(&content);
            if i + 1 < count || final_newline {
                bytes.extend_from_slice(terminator.as_bytes());
            }
        }
        Document::parse(bytes)
    })
}

/// A planned edit over original lines, before anchors are attached.
#[derive(Clone, Debug)]
enum Planned {
    Set { line: usize, text: String },
    Range { start: usize, end: usize, text: String },
    Insert { after: usize, text: String },
}

fn new_text() -> impl Strategy<Value = String> {
    prop_oneof![Just(String::new()), Just("\n".to_owned()), "[A-Z]{1,4}(\n[A-Z]{0,3}){0,2}"]
}

/// Disjoint edits: the document is cut into regions separated by at least one untouched
/// line; each region gets at most one edit.
fn batch(lines: usize) -> impl Strategy<Value = Vec<Planned>> {
    proptest::collection::vec((0..3u8, 0..3usize, new_text()), 0..6).prop_map(move |choices| {
        let mut edits = Vec::new();
        let mut cursor = 0;
        for (kind, len, text) in choices {
            if cursor >= lines {
                break;
            }
            let start = cursor;
            let end = (start + len).min(lines - 1);
            match kind {
                0 => edits.push(Planned::Set { line: start, text }),
                1 => edits.push(Planned::Range { start, end, text }),
                _ => edits.push(Planned::Insert { after: start, text }),
            }
            let last = match edits.last() {
                Some(Planned::Range { end, .. }) => *end,
                _ => start,
            };
            cursor = last + 2;
        }
        edits
    })
}

fn anchor_of(doc: &Document, index: usize) -> Anchor {
    let line = doc.line(LineNo::from_index(index)).expect("line exists");
    Anchor::new(line.number, line.hash())
}

fn to_ref(anchor: Anchor) -> AnchorRef {
    AnchorRef::Line { anchor, content: None }
}

/// The op of a planned edit, with anchors looked up in `doc` at the (re-mapped) lines.
fn op(doc: &Document, planned: &Planned, map: &dyn Fn(usize) -> usize) -> EditOp {
    match planned {
        Planned::Set { line, text } => {
            EditOp::SetLine { anchor: to_ref(anchor_of(doc, map(*line))), new_text: text.clone(), literal: true }
        }
        Planned::Range { start, end, text } => EditOp::ReplaceLines {
            start: to_ref(anchor_of(doc, map(*start))),
            end: to_ref(anchor_of(doc, map(*end))),
            new_text: text.clone(),
            literal: true,
        },
        Planned::Insert { after, text } => {
            EditOp::InsertAfter { anchor: to_ref(anchor_of(doc, map(*after))), new_text: text.clone(), literal: true }
        }
    }
}

fn touched(planned: &[Planned]) -> Vec<usize> {
    planned
        .iter()
        .flat_map(|p| match p {
            Planned::Set { line, .. } => *line..=*line,
            Planned::Range { start, end, .. } => *start..=*end,
            Planned::Insert { after, .. } => *after..=*after,
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn untouched_lines_keep_their_bytes((doc, planned) in document().prop_flat_map(|d| { let n = d.line_count(); (Just(d), batch(n)) })) {
        let ops: Vec<EditOp> = planned.iter().map(|p| op(&doc, p, &|i| i)).collect();
        let outcome = apply(&doc, &ops, &EditOptions::default()).expect("a valid batch applies");
        let new = &outcome.document;
        prop_assert_eq!(new.has_bom(), doc.has_bom());
        let edited = touched(&planned);
        let insert_anchors: Vec<usize> = planned.iter().filter_map(|p| match p { Planned::Insert { after, .. } => Some(*after), _ => None }).collect();
        for old in doc.lines() {
            if edited.contains(&old.number.index()) && !insert_anchors.contains(&old.number.index()) {
                continue;
            }
            let moved = outcome.changes.new_line_of(old.number);
            let Some(moved) = moved else {
                // Only an empty document's one empty row goes: an insertion replaces it.
                prop_assert!(doc.line_count() == 1 && old.content.is_empty() && old.terminator == Terminator::None);
                continue;
            };
            let now = new.line(moved).expect("mapped line exists");
            prop_assert_eq!(now.content, old.content);
            if old.terminator != Terminator::None {
                // The terminator's bytes follow the content unchanged, except a bare CR
                // that removed lines brought next to an empty `\n` line: the removal took
                // the `\r`, so the line ends in `\n` and the empty line after it stays.
                let end = new.content_range(moved).expect("range").end;
                let after = &new.as_bytes()[end..];
                prop_assert!(
                    after.starts_with(old.terminator.as_bytes())
                        || (old.terminator == Terminator::Cr && after.starts_with(b"\n\n"))
                );
            }
        }
    }

    #[test]
    fn a_batch_equals_its_edits_one_by_one((doc, planned) in document().prop_flat_map(|d| { let n = d.line_count(); (Just(d), batch(n)) })) {
        let ops: Vec<EditOp> = planned.iter().map(|p| op(&doc, p, &|i| i)).collect();
        let batch = apply(&doc, &ops, &EditOptions::default()).expect("batch");
        let mut current = doc.clone();
        let mut map = ChangeMap::identity(doc.line_count());
        for p in &planned {
            // With bare CRs, untouched bytes can join across a removed line, so a line may
            // have no new position: such a batch cannot be replayed edit by edit.
            let needed = touched(std::slice::from_ref(p));
            prop_assume!(needed.iter().all(|&i| map.new_line_of(LineNo::from_index(i)).is_some()));
            let remap = |i: usize| map.new_line_of(LineNo::from_index(i)).map_or(i, LineNo::index);
            let single = op(&current, p, &remap);
            let step = apply(&current, &[single], &EditOptions::default()).expect("step");
            map = map.then(&step.changes);
            current = step.document;
        }
        prop_assert_eq!(batch.document.as_bytes(), current.as_bytes());
    }

    #[test]
    fn a_stale_anchor_changes_nothing((doc, planned) in document().prop_flat_map(|d| { let n = d.line_count(); (Just(d), batch(n)) }), pick in any::<prop::sample::Index>()) {
        prop_assume!(!planned.is_empty());
        let mut ops: Vec<EditOp> = planned.iter().map(|p| op(&doc, p, &|i| i)).collect();
        let used: Vec<LineHash> = doc.lines().map(|l| l.hash()).collect();
        let stale = (0..4096u16).filter_map(LineHash::from_value).find(|h| !used.contains(h)).expect("an unused hash");
        let victim = pick.index(ops.len());
        let corrupt = |r: &mut AnchorRef| if let AnchorRef::Line { anchor, .. } = r { anchor.hash = stale };
        match &mut ops[victim] {
            EditOp::SetLine { anchor, .. } | EditOp::InsertAfter { anchor, .. } => corrupt(anchor),
            EditOp::ReplaceLines { start, .. } => corrupt(start),
            _ => unreachable!("only anchored ops are generated"),
        }
        let err = apply(&doc, &ops, &EditOptions::default()).expect_err("stale anchors are refused");
        prop_assert!(err.code == "hash-mismatch" || err.code == "line-out-of-range", "{}", err.code);
    }
}
