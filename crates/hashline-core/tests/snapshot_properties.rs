//! Property tests of exact resolution through a snapshot (`hashline_core::snapshot`).

use hashline_core::snapshot::{Fate, LineMap, StaleAnchor, resolve_through};
use hashline_core::{Anchor, Document, LineHash, LineNo, Terminator};
use proptest::prelude::*;

/// A line of the file now: a line of the snapshot (by 0-based index), or a new one.
#[derive(Clone, Debug)]
enum Item {
    Old(usize),
    New(Vec<u8>),
}

/// One step of an edit script, positions taken modulo the current length.
#[derive(Clone, Debug)]
enum Step {
    Delete(usize),
    Insert(usize, Vec<u8>),
    Replace(usize, Vec<u8>),
    Move { from: usize, len: usize, to: usize },
}

/// Content for new lines: never starts with `L`, so it never equals a unique snapshot line
/// (which all do), and often repeats itself.
fn new_content() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        Just(Vec::new()),
        Just(b"}".to_vec()),
        "[a-kx \t]{0,6}".prop_map(String::into_bytes),
        Just(b"\xff\xfe".to_vec())
    ]
}

fn step(moves: bool) -> impl Strategy<Value = Step> {
    let basic = prop_oneof![
        any::<usize>().prop_map(Step::Delete),
        (any::<usize>(), new_content()).prop_map(|(at, c)| Step::Insert(at, c)),
        (any::<usize>(), new_content()).prop_map(|(at, c)| Step::Replace(at, c)),
    ];
    if moves {
        prop_oneof![
            3 => basic,
            1 => (any::<usize>(), 1usize..6, any::<usize>()).prop_map(|(from, len, to)| Step::Move { from, len, to }),
        ]
        .boxed()
    } else {
        basic.boxed()
    }
}

fn run(lines: usize, script: &[Step]) -> Vec<Item> {
    let mut items: Vec<Item> = (0..lines).map(Item::Old).collect();
    for step in script {
        let len = items.len();
        match step.clone() {
            Step::Delete(at) if len > 0 => {
                items.remove(at % len);
            }
            Step::Insert(at, content) => items.insert(at % (len + 1), Item::New(content)),
            Step::Replace(at, content) if len > 0 => items[at % len] = Item::New(content),
            Step::Move { from, len: count, to } if len > 0 => {
                let from = from % len;
                let block: Vec<Item> = items.drain(from..(from + count).min(len)).collect();
                let to = to % (items.len() + 1);
                items.splice(to..to, block);
            }
            _ => {}
        }
    }
    items
}

/// The bytes of `lines` with the given terminators, made so that they parse back into
/// exactly these lines: a bare `\r` before an empty `\n` line would read as one `\r\n`, and an
/// empty last line without a terminator would be no line at all.
fn build(lines: &[Vec<u8>], terminators: &[Terminator], bom: bool, final_newline: bool) -> Vec<u8> {
    let mut out = if bom { b"\xEF\xBB\xBF".to_vec() } else { Vec::new() };
    for (i, content) in lines.iter().enumerate() {
        out.extend_from_slice(content);
        let last = i + 1 == lines.len();
        let mut terminator = terminators.get(i % terminators.len().max(1)).copied().unwrap_or(Terminator::Lf);
        if terminator == Terminator::Cr && lines.get(i + 1).is_some_and(|next| next.is_empty()) {
            terminator = Terminator::Lf;
        }
        if !last || final_newline || (content.is_empty() && lines.len() > 1) {
            out.extend_from_slice(if terminator == Terminator::None { b"\n" } else { terminator.as_bytes() });
        }
    }
    out
}

fn contents(doc: &Document) -> Vec<Vec<u8>> {
    doc.lines().map(|l| l.content.to_vec()).collect()
}

fn terminators() -> impl Strategy<Value = Vec<Terminator>> {
    proptest::collection::vec(prop_oneof![Just(Terminator::Lf), Just(Terminator::CrLf), Just(Terminator::Cr)], 1..4)
}

/// Snapshot lines that are all different: `L<index>` and some noise.
fn unique_lines() -> impl Strategy<Value = Vec<Vec<u8>>> {
    proptest::collection::vec(
        prop_oneof!["[a-z \t{}]{0,6}".prop_map(String::into_bytes), Just(b"\xc3\x28".to_vec())],
        1..40,
    )
    .prop_map(|noise| noise.into_iter().enumerate().map(|(i, n)| [format!("L{i}").into_bytes(), n].concat()).collect())
}

/// The invariants every map holds, whatever the documents: a kept line has the same bytes
/// now, kept lines keep their order, and a line that did not survive points at lines now.
fn check_invariants(before: &Document, after: &Document, map: &LineMap) -> Result<(), TestCaseError> {
    prop_assert_eq!(map.snapshot_lines(), before.line_count());
    prop_assert_eq!(map.now_lines(), after.line_count());
    let mut last_kept: Option<LineNo> = None;
    for line in before.lines() {
        let fate = map.fate(line.number);
        let anchor = Anchor::new(line.number, line.hash());
        match fate {
            Some(Fate::Kept(now)) => {
                prop_assert_eq!(after.line(now).map(|l| l.content), Some(line.content));
                prop_assert!(last_kept.is_none_or(|prev| prev < now), "order: {:?} then {:?}", last_kept, now);
                last_kept = Some(now);
                // Followed, or refused as one of equal lines the diffs from the top and from
                // the bottom pair differently: both candidates hold the line's bytes.
                match map.resolve(before, anchor) {
                    Ok(line_now) => prop_assert_eq!(line_now, now),
                    Err(StaleAnchor::Ambiguous { first, last, .. }) => {
                        prop_assert!(
                            first < last && (now == first || now == last),
                            "{:?}-{:?} for {:?}",
                            first,
                            last,
                            now
                        );
                        for candidate in [first, last] {
                            prop_assert_eq!(after.line(candidate).map(|l| l.content), Some(line.content));
                        }
                    }
                    Err(other) => prop_assert!(false, "a kept line refused: {:?}", other),
                }
            }
            Some(Fate::Replaced { first, last }) => {
                prop_assert!(first <= last && last.index() < after.line_count());
                prop_assert!(matches!(map.resolve(before, anchor), Err(StaleAnchor::Changed { .. })), "changed");
            }
            Some(Fate::Deleted { next }) => {
                prop_assert!(next.is_none_or(|next| next.index() < after.line_count()));
                prop_assert!(matches!(map.resolve(before, anchor), Err(StaleAnchor::Deleted { .. })), "deleted");
            }
            None => prop_assert!(false, "no fate for {:?}", line.number),
        }
        prop_assert_eq!(map.now_of(line.number), if let Some(Fate::Kept(now)) = fate { Some(now) } else { None });
        // A line absent from the file now can never be kept.
        if !after.lines().any(|l| l.content == line.content) {
            prop_assert_eq!(map.now_of(line.number), None);
        }
        // An anchor with another hash is not a row of this snapshot.
        let other = LineHash::from_value((line.hash().value() + 1) % 4096).expect("in range");
        let refused = map.resolve(before, Anchor::new(line.number, other));
        prop_assert!(matches!(refused, Err(StaleAnchor::NotInSnapshot { .. })), "{refused:?}");
    }
    // A range resolves exactly when every line of it is kept and they are still together.
    for (low, high) in [(0, before.line_count() - 1), (0, 0), (before.line_count() / 3, before.line_count() / 2)] {
        let (low, high) = (LineNo::from_index(low), LineNo::from_index(high));
        let anchor = |n: LineNo| before.line(n).map(|l| Anchor::new(n, l.hash())).expect("in the snapshot");
        let kept: Vec<Option<LineNo>> =
            (low.index()..=high.index()).map(|i| map.now_of(LineNo::from_index(i))).collect();
        let together = kept.iter().all(Option::is_some)
            && kept.windows(2).all(|w| matches!(w, [Some(a), Some(b)] if b.index() == a.index() + 1));
        let range = map.resolve_range(before, anchor(low), anchor(high));
        // An end the two pairings place differently refuses the range as it refuses the line.
        let ends = map.resolve(before, anchor(low)).is_ok() && map.resolve(before, anchor(high)).is_ok();
        prop_assert_eq!(range.is_ok(), together && ends, "{:?}..={:?}: {:?}", low, high, range);
        if let Ok((first, last)) = range {
            prop_assert_eq!(last.index() - first.index(), high.index() - low.index());
        }
    }
    let past = LineNo::from_index(before.line_count());
    prop_assert_eq!(map.fate(past), None);
    prop_assert_eq!(map.kept(), before.lines().filter(|l| map.now_of(l.number).is_some()).count());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Lines kept by an edit script that only deletes, inserts and replaces map exactly to
    /// where they are now; deleted and replaced lines never map.
    #[test]
    fn a_kept_line_maps_exactly_where_it_moved(
        lines in unique_lines(),
        script in proptest::collection::vec(step(false), 0..12),
        (ends_before, ends_after) in (terminators(), terminators()),
        (bom, final_newline) in any::<(bool, bool)>(),
    ) {
        let items = run(lines.len(), &script);
        let now_lines: Vec<Vec<u8>> = items.iter().map(|item| match item { Item::Old(i) => lines[*i].clone(), Item::New(c) => c.clone() }).collect();
        let before = Document::parse(build(&lines, &ends_before, bom, final_newline));
        let after = Document::parse(build(&now_lines, &ends_after, !bom, !final_newline));
        prop_assert_eq!(contents(&before), lines.clone());
        if !now_lines.is_empty() {
            prop_assert_eq!(contents(&after), now_lines.clone());
        }
        let map = resolve_through(&before, &after);
        check_invariants(&before, &after, &map)?;
        for old in 0..lines.len() {
            let expected = items.iter().position(|item| matches!(item, Item::Old(i) if *i == old)).map(LineNo::from_index);
            prop_assert_eq!(map.now_of(LineNo::from_index(old)), expected, "line {}", old + 1);
            // What stands in a changed line's place now is new lines only (an emptied file
            // has one empty line, which no item stands for).
            if let Some(Fate::Replaced { first, last }) = map.fate(LineNo::from_index(old))
                && !items.is_empty()
            {
                prop_assert!(items[first.index()..=last.index()].iter().all(|item| matches!(item, Item::New(_))), "line {}", old + 1);
            }
        }
    }

    /// With blocks moved as well, a unique line that maps maps to where it is now (a moved
    /// block, or the lines it jumped over, count as changed).
    #[test]
    fn a_mapped_line_is_never_elsewhere_with_moves(
        lines in unique_lines(),
        script in proptest::collection::vec(step(true), 0..12),
    ) {
        let items = run(lines.len(), &script);
        let now_lines: Vec<Vec<u8>> = items.iter().map(|item| match item { Item::Old(i) => lines[*i].clone(), Item::New(c) => c.clone() }).collect();
        let before = Document::parse(build(&lines, &[Terminator::Lf], false, true));
        let after = Document::parse(build(&now_lines, &[Terminator::Lf], false, true));
        let map = resolve_through(&before, &after);
        check_invariants(&before, &after, &map)?;
        for old in 0..lines.len() {
            if let Some(now) = map.now_of(LineNo::from_index(old)) {
                prop_assert!(matches!(items[now.index()], Item::Old(i) if i == old));
            }
        }
    }

    /// Lines with many duplicates (blank lines, braces): the invariants hold.
    #[test]
    fn duplicates_pair_in_order(
        lines in proptest::collection::vec(new_content(), 1..40),
        script in proptest::collection::vec(step(true), 0..12),
    ) {
        let items = run(lines.len(), &script);
        let now_lines: Vec<Vec<u8>> = items.iter().map(|item| match item { Item::Old(i) => lines[*i].clone(), Item::New(c) => c.clone() }).collect();
        let before = Document::parse(build(&lines, &[Terminator::CrLf], true, false));
        let after = Document::parse(build(&now_lines, &[Terminator::Lf], false, true));
        check_invariants(&before, &after, &resolve_through(&before, &after))?;
    }

    /// The identity diff keeps every line where it is.
    #[test]
    fn identity_maps_every_line_to_itself(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let doc = Document::parse(bytes);
        let map = resolve_through(&doc, &doc);
        prop_assert_eq!(map.kept(), doc.line_count());
        for line in doc.lines() {
            prop_assert_eq!(map.fate(line.number), Some(Fate::Kept(line.number)));
        }
    }

    /// Any two byte strings (CR, CRLF, BOM, invalid UTF-8, no final newline): no panic, and
    /// the invariants hold.
    #[test]
    fn arbitrary_bytes_never_panic(
        before in proptest::collection::vec(prop_oneof![Just(b'\n'), Just(b'\r'), Just(b'a'), Just(0xEF), Just(0xBB), Just(0xBF), any::<u8>()], 0..200),
        after in proptest::collection::vec(prop_oneof![Just(b'\n'), Just(b'\r'), Just(b'a'), Just(0xEF), Just(0xBB), Just(0xBF), any::<u8>()], 0..200),
    ) {
        let (before, after) = (Document::parse(before), Document::parse(after));
        check_invariants(&before, &after, &resolve_through(&before, &after))?;
    }
}
