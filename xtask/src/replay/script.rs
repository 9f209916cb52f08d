//! From a pre-image and a post-image to a script of anchored edits: the line diff
//! (lines split the way hashline splits them), one edit per hunk, and whether the
//! post-image's line endings are ones an anchored edit can produce at all.

use std::ops::Range;

use hashline::core::{Document, LineNo, Terminator};
use imara_diff::{Algorithm, Diff, InternedInput};
use serde_json::{Value, json};

/// A 1-based line number of the pre-image.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct OldLine(pub u32);

impl OldLine {
    /// The same line after earlier edits moved it by `shift` lines (`None` if it would
    /// fall before line 1).
    pub fn shifted(self, shift: i64) -> Option<u32> {
        u32::try_from(i64::from(self.0) + shift).ok().filter(|&line| line >= 1)
    }
}

/// Where one edit lands, in pre-image lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// Replace `first..=last` (`set_line` when they are equal).
    Lines {
        /// First replaced line.
        first: OldLine,
        /// Last replaced line.
        last: OldLine,
    },
    /// Insert after a line.
    After(OldLine),
}

/// One hunk as one anchored edit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// Where it lands.
    pub target: Target,
    /// The new lines joined by `\n` (with one trailing `\n`, so an empty last line
    /// survives); `""` deletes.
    pub new_text: String,
    /// Lines added minus lines removed.
    pub delta: i64,
}

impl Step {
    /// The pre-image lines whose anchors the edit needs, in the order
    /// [`Step::item`] takes them.
    pub fn anchor_lines(&self) -> Vec<OldLine> {
        match self.target {
            Target::Lines { first, last } if first == last => vec![first],
            Target::Lines { first, last } => vec![first, last],
            Target::After(line) => vec![line],
        }
    }

    /// The first pre-image line whose row the edit may change.
    pub fn first_touched(&self) -> OldLine {
        match self.target {
            Target::Lines { first, .. } => first,
            Target::After(OldLine(line)) => OldLine(line + 1),
        }
    }

    /// The edit item, given the anchors of [`Step::anchor_lines`]; with `literal`, the
    /// text is sent verbatim (no echoed-anchor cleanup).
    pub fn item(&self, anchors: &[String], literal: bool) -> Value {
        let text = self.new_text.as_str();
        let mut item = match (self.target, anchors) {
            (Target::Lines { .. }, [one]) => {
                json!({"set_line": {"anchor": one, "new_text": text}})
            }
            (Target::Lines { .. }, [start, end, ..]) => {
                json!({"replace_lines": {"start_anchor": start, "end_anchor": end, "new_text": text}})
            }
            (_, anchors) => {
                json!({"insert_after": {"anchor": anchors.first(), "new_text": text}})
            }
        };
        if literal && let Some(body) = item.as_object_mut().and_then(|o| o.values_mut().next()) {
            body["literal"] = json!(true);
        }
        item
    }
}

/// Why a file's change cannot be written as anchored edits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unscriptable {
    /// A new line is not UTF-8 (`new_text` is a JSON string).
    InvalidUtf8,
}

/// The lines of a document for diffing: an empty file has none (hashline shows it as
/// one empty row, but it holds no line an edit could keep).
pub fn contents(doc: &Document) -> Vec<&[u8]> {
    if is_empty(doc) { Vec::new() } else { doc.lines().map(|l| l.content).collect() }
}

fn is_empty(doc: &Document) -> bool {
    doc.line_count() == 1 && doc.lines().all(|l| l.content.is_empty() && l.terminator == Terminator::None)
}

/// The line hunks from `pre` to `post` (0-based, half-open), top-down.
pub fn hunks(pre: &[&[u8]], post: &[&[u8]]) -> Vec<(Range<u32>, Range<u32>)> {
    let mut input = InternedInput::<&[u8]>::default();
    input.update_before(pre.iter().copied());
    input.update_after(post.iter().copied());
    let mut diff = Diff::compute(Algorithm::Histogram, &input);
    diff.postprocess_lines(&input);
    diff.hunks().map(|h| (h.before, h.after)).collect()
}

/// One edit per hunk, top-down, the way a careful model writes them:
/// - an insertion before line 1 replaces line 1 by the new lines plus itself (the view
///   has no row before line 1), and an insertion right after line 1 in the same commit
///   joins that edit (two edits would overlap);
/// - deleting the last lines of a file that ends without a line break, when the new file
///   ends without one too, rewrites the line before them as well: it then becomes the
///   last line and loses its break (deleting only the lines would leave it with its own).
pub fn script(before: &Document, after: &Document) -> Result<Vec<Step>, Unscriptable> {
    let (pre, post) = (contents(before), contents(after));
    let unterminated = !before.ends_with_newline() && !after.ends_with_newline() && !post.is_empty();
    let mut raw = hunks(&pre, &post).into_iter().peekable();
    let mut steps = Vec::new();
    while let Some((old, new)) = raw.next() {
        let mut lines: Vec<&[u8]> = post[new.start as usize..new.end as usize].to_vec();
        let target =
            if !old.is_empty() && unterminated && lines.is_empty() && old.end as usize == pre.len() && old.start > 0 {
                lines.push(pre[old.start as usize - 1]);
                Target::Lines { first: OldLine(old.start), last: OldLine(old.end) }
            } else if !old.is_empty() {
                Target::Lines { first: OldLine(old.start + 1), last: OldLine(old.end) }
            } else if old.start > 0 {
                Target::After(OldLine(old.start))
            } else {
                // Before line 1 (of an empty file: its one empty row goes away).
                lines.extend(pre.first());
                if let Some((_, next)) = raw.next_if(|(o, _)| o.is_empty() && o.start == 1) {
                    lines.extend(&post[next.start as usize..next.end as usize]);
                }
                Target::Lines { first: OldLine(1), last: OldLine(1) }
            };
        let replaced = match target {
            Target::Lines { first, last } => i64::from(last.0 - first.0) + 1,
            Target::After(_) => 0,
        };
        let delta = lines.len() as i64 - replaced;
        let texts = lines.iter().map(|l| std::str::from_utf8(l)).collect::<Result<Vec<_>, _>>();
        let texts = texts.map_err(|_| Unscriptable::InvalidUtf8)?;
        let new_text = if texts.is_empty() { String::new() } else { texts.join("\n") + "\n" };
        steps.push(Step { target, new_text, delta });
    }
    Ok(steps)
}

/// Whether the post-image's line endings (and BOM) are what anchored edits produce.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Endings {
    /// They are: the replay must reproduce the bytes exactly.
    Reproducible,
    /// The commit changed endings or the BOM: no anchored edit does that.
    Changed,
    /// The pre-image mixes endings, so a new line's ending depends on its
    /// neighbourhood; judged after the replay (an ending-only difference is skipped).
    Mixed,
}

/// Judges the line endings of a change: the BOM and the final newline must stay, lines
/// both sides keep must keep their ending, and every new ending must be the one ending
/// the pre-image uses (`\n` when it has none).
pub fn endings(pre: &Document, post: &Document) -> Endings {
    if pre.has_bom() != post.has_bom() {
        return Endings::Changed;
    }
    if is_empty(post) {
        return Endings::Reproducible;
    }
    if pre.ends_with_newline() != post.ends_with_newline() {
        return Endings::Changed;
    }
    let mut styles: Vec<Terminator> = pre.lines().map(|l| l.terminator).filter(|&t| t != Terminator::None).collect();
    styles.sort_by_key(|t| t.as_bytes());
    styles.dedup();
    let expected = match styles.as_slice() {
        [] => Some(Terminator::Lf),
        [one] => Some(*one),
        _ => None,
    };
    let (old, new) = (contents(pre), contents(post));
    let ending = |doc: &Document, index: usize| doc.line(LineNo::from_index(index)).map(|l| l.terminator);
    let mut kept = Vec::new();
    let (mut o, mut n) = (0, 0);
    let end = (old.len() as u32..old.len() as u32, new.len() as u32..new.len() as u32);
    for (before, after) in hunks(&old, &new).into_iter().chain(std::iter::once(end)) {
        while o < before.start as usize {
            kept.push((o, n));
            (o, n) = (o + 1, n + 1);
        }
        (o, n) = (before.end as usize, after.end as usize);
    }
    let mut is_new = vec![true; new.len()];
    let mut new_endings = Vec::new();
    for &(o, n) in &kept {
        is_new[n] = false;
        match (ending(pre, o), ending(post, n)) {
            (Some(Terminator::None), Some(b)) => new_endings.push(b),
            (Some(a), Some(b)) if b != Terminator::None && a != b => return Endings::Changed,
            _ => {}
        }
    }
    new_endings.extend((0..new.len()).filter(|&i| is_new[i]).filter_map(|i| ending(post, i)));
    let new_endings: Vec<Terminator> = new_endings.into_iter().filter(|&t| t != Terminator::None).collect();
    match expected {
        Some(style) if new_endings.iter().all(|&t| t == style) => Endings::Reproducible,
        Some(_) => Endings::Changed,
        None => Endings::Mixed,
    }
}

/// Whether two files differ only in line endings and BOM.
pub fn same_contents(a: &[u8], b: &[u8]) -> bool {
    let (a, b) = (Document::parse(a.to_vec()), Document::parse(b.to_vec()));
    contents(&a) == contents(&b)
}

/// The content lines a step should leave, applied to `lines` at its target moved by
/// `shift` (a model of the intended result, for pinpointing the call that went wrong).
pub fn apply_model(lines: &mut Vec<Vec<u8>>, step: &Step, shift: i64) {
    let new: Vec<Vec<u8>> = match step.new_text.strip_suffix('\n') {
        None => Vec::new(),
        Some(body) => body.split('\n').map(|l| l.as_bytes().to_vec()).collect(),
    };
    let at = |line: OldLine| line.shifted(shift).map_or(0, |l| l as usize).min(lines.len());
    let range = match step.target {
        Target::Lines { first, last } => at(first).saturating_sub(1)..at(last),
        Target::After(line) => at(line)..at(line),
    };
    lines.splice(range, new);
}
