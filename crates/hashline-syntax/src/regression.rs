//! Which syntax problems a change introduced: the census after the change, less every
//! problem that was already there before it (followed to its new lines).

use hashline_core::LineNo;

use crate::census::{Census, LineSpan, SyntaxIssue};

/// The problems of `after` that the change introduced.
///
/// `new_line_of` maps a line of the old file to its line in the new file when the change
/// kept it (and `None` for a line the change replaced or deleted). A problem of the old
/// file is followed to the new file through the lines of its span that were kept; a
/// problem of the new file that shares a line with one of those is not the change's doing,
/// so an edit is never blamed for errors the file already had. A problem that lies wholly
/// in text the change replaced does not excuse anything: the new text is the change's.
///
/// ```
/// use hashline_core::{Document, LineNo};
/// use hashline_syntax::{census, introduced, parse_document, LanguageId, ParseLimits};
///
/// let scan = |text: &[u8]| {
///     let doc = Document::parse(text.to_vec());
///     let parsed = parse_document(LanguageId::Rust, &doc, ParseLimits::DEFAULT).unwrap();
///     census(&parsed.tree, &doc, parsed.text_start)
/// };
/// // Line 1 was already broken; the edit of line 3 breaks it too.
/// let before = scan(b"fn a() { let x = 1 }\nfn b() {}\nfn c() {}\n");
/// let after = scan(b"fn a() { let x = 1 }\nfn b() {}\nfn c( {}\n");
/// let same_line = |old: LineNo| (old.get() != 3).then_some(old);
/// let new = introduced(&before, &after, same_line);
/// assert_eq!(new.len(), 1);
/// assert_eq!(new[0].lines.start.get(), 3);
/// ```
pub fn introduced(before: &Census, after: &Census, new_line_of: impl Fn(LineNo) -> Option<LineNo>) -> Vec<SyntaxIssue> {
    let mut old_spans: Vec<LineSpan> =
        before.issues.iter().filter_map(|issue| follow(issue.lines, &new_line_of)).collect();
    old_spans.sort_unstable();
    // The furthest end among the spans that start at or before each one: a new problem
    // meets an old span exactly when some span starting at or before its end reaches its
    // start, so each lookup is a binary search, not a scan of every old problem.
    let reach: Vec<LineNo> = old_spans
        .iter()
        .scan(None, |furthest: &mut Option<LineNo>, span| {
            let end = furthest.map_or(span.end, |f| f.max(span.end));
            *furthest = Some(end);
            Some(end)
        })
        .collect();
    let excused = |lines: LineSpan| {
        let starting = old_spans.partition_point(|old| old.start <= lines.end);
        starting > 0 && reach[starting - 1] >= lines.start
    };
    after.issues.iter().filter(|issue| !excused(issue.lines)).cloned().collect()
}

/// The new-file span of an old span: from its first kept line to its last kept line.
fn follow(span: LineSpan, new_line_of: &impl Fn(LineNo) -> Option<LineNo>) -> Option<LineSpan> {
    let lines = span.start.get()..=span.end.get();
    let first = lines.clone().filter_map(LineNo::new).find_map(new_line_of)?;
    let last = lines.rev().filter_map(LineNo::new).find_map(new_line_of)?;
    Some(LineSpan { start: first.min(last), end: first.max(last) })
}

/// Line spans as a sorted, merged list: `3, 7-9`.
///
/// ```
/// use hashline_core::LineNo;
/// use hashline_syntax::{line_list, LineSpan};
///
/// let span = |s, e| LineSpan { start: LineNo::new(s).unwrap(), end: LineNo::new(e).unwrap() };
/// assert_eq!(line_list([span(8, 9), span(3, 3), span(7, 7), span(8, 8)]), "3, 7-9");
/// ```
pub fn line_list(spans: impl IntoIterator<Item = LineSpan>) -> String {
    let mut spans: Vec<(u32, u32)> = spans.into_iter().map(|s| (s.start.get(), s.end.get())).collect();
    spans.sort_unstable();
    let mut merged: Vec<(u32, u32)> = Vec::with_capacity(spans.len());
    for (start, end) in spans {
        match merged.last_mut() {
            Some(last) if start <= last.1.saturating_add(1) => last.1 = last.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    merged.iter().map(|&(s, e)| if s == e { s.to_string() } else { format!("{s}-{e}") }).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::census::IssueKind;

    fn issue(kind: IssueKind, start: u32, end: u32) -> SyntaxIssue {
        SyntaxIssue {
            kind,
            lines: LineSpan { start: LineNo::new(start).unwrap(), end: LineNo::new(end).unwrap() },
            bytes: 0..0,
            missing: None,
        }
    }

    fn lines(issues: &[SyntaxIssue]) -> Vec<(u32, u32)> {
        issues.iter().map(|i| (i.lines.start.get(), i.lines.end.get())).collect()
    }

    #[test]
    fn an_old_problem_that_moved_down_is_not_blamed() {
        let before = Census { issues: vec![issue(IssueKind::Error, 10, 12)] };
        let after = Census { issues: vec![issue(IssueKind::Error, 13, 15), issue(IssueKind::Missing, 2, 2)] };
        // Two lines inserted after line 1 (old 1 → 1, old n → n + 3 for n ≥ 2).
        let shift = |old: LineNo| LineNo::new(if old.get() == 1 { 1 } else { old.get() + 3 });
        assert_eq!(lines(&introduced(&before, &after, shift)), vec![(2, 2)]);
    }

    #[test]
    fn a_problem_wholly_inside_replaced_text_excuses_nothing() {
        let before = Census { issues: vec![issue(IssueKind::Error, 5, 5)] };
        let after = Census { issues: vec![issue(IssueKind::Error, 5, 5)] };
        let replaced_five = |old: LineNo| (old.get() != 5).then_some(old);
        assert_eq!(lines(&introduced(&before, &after, replaced_five)), vec![(5, 5)]);
    }

    #[test]
    fn a_problem_that_grew_from_an_old_one_is_not_blamed() {
        let before = Census { issues: vec![issue(IssueKind::Error, 4, 20)] };
        let after = Census { issues: vec![issue(IssueKind::Missing, 18, 30)] };
        assert_eq!(introduced(&before, &after, Some), Vec::new());
    }

    #[test]
    fn every_old_span_excuses_what_it_meets_in_any_order() {
        // Old problems out of order (a move put a later one first), nested and apart.
        let before = Census {
            issues: vec![
                issue(IssueKind::Error, 40, 41),
                issue(IssueKind::Error, 10, 30),
                issue(IssueKind::Missing, 12, 12),
                issue(IssueKind::Error, 50, 50),
            ],
        };
        let after = Census {
            issues: [(1, 9), (9, 10), (30, 31), (32, 39), (35, 40), (42, 49), (49, 51), (60, 60)]
                .iter()
                .map(|&(s, e)| issue(IssueKind::Error, s, e))
                .collect(),
        };
        assert_eq!(lines(&introduced(&before, &after, Some)), vec![(1, 9), (32, 39), (42, 49), (60, 60)]);
    }

    #[test]
    fn line_lists_merge_adjacent_and_overlapping_spans() {
        let spans = |issues: &[SyntaxIssue]| issues.iter().map(|i| i.lines).collect::<Vec<_>>();
        assert_eq!(line_list([]), "");
        assert_eq!(line_list(spans(&[issue(IssueKind::Error, 4, 4), issue(IssueKind::Missing, 5, 6)])), "4-6");
        assert_eq!(line_list(spans(&[issue(IssueKind::Error, 9, 9), issue(IssueKind::Error, 1, 2)])), "1-2, 9");
    }
}
