//! A snapshot shown as a partial view made from another (docs/protocol.md §1.5, "Views made
//! from a view"): an edit's result shows only the lines it added, a refusal only the rows
//! around what it refused, so the model keeps the earlier view's rows for the rest.
//!
//! A [`Link`] names the snapshot the view was made from and the lines it showed: the view
//! vouches for those rows only, and an anchor of another line is looked up in the snapshot it
//! was made from.

use std::fmt;
use std::str::FromStr;

use crate::snapshot::SnapshotTag;

/// The most line ranges a link keeps; past it the ranges at the end are dropped (an anchor on
/// a dropped row is then looked up in the parent, or refused — never guessed).
pub const MAX_RANGES: usize = 256;

/// Lines shown with a snapshot: sorted, disjoint, non-adjacent 1-based inclusive ranges.
///
/// ```
/// use hashline_core::snapshot::ShownLines;
///
/// let shown = ShownLines::from_lines([3, 4, 9, 5]);
/// assert_eq!(shown.to_string(), "3-5,9");
/// assert!(shown.contains(4) && !shown.contains(6));
/// assert_eq!("3-5,9".parse::<ShownLines>(), Ok(shown));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ShownLines(Vec<(u32, u32)>);

impl ShownLines {
    /// The set of `lines` (1-based; 0 is ignored).
    pub fn from_lines(lines: impl IntoIterator<Item = u32>) -> Self {
        let mut sorted: Vec<u32> = lines.into_iter().filter(|&l| l > 0).collect();
        sorted.sort_unstable();
        sorted.dedup();
        let mut ranges: Vec<(u32, u32)> = Vec::new();
        for line in sorted {
            match ranges.last_mut() {
                Some(last) if last.1.checked_add(1) == Some(line) => last.1 = line,
                _ => ranges.push((line, line)),
            }
        }
        ranges.truncate(MAX_RANGES);
        ShownLines(ranges)
    }

    /// The lines of both sets.
    pub fn union(&self, other: &ShownLines) -> ShownLines {
        let mut all: Vec<(u32, u32)> = self.0.iter().chain(&other.0).copied().collect();
        all.sort_unstable();
        let mut ranges: Vec<(u32, u32)> = Vec::new();
        for (first, last) in all {
            match ranges.last_mut() {
                Some(prev) if first <= prev.1.saturating_add(1) => prev.1 = prev.1.max(last),
                _ => ranges.push((first, last)),
            }
        }
        ranges.truncate(MAX_RANGES);
        ShownLines(ranges)
    }

    /// Whether the 1-based `line` was shown.
    pub fn contains(&self, line: u32) -> bool {
        let at = self.0.partition_point(|&(_, last)| last < line);
        self.0.get(at).is_some_and(|&(first, _)| first <= line)
    }

    /// Whether no line was shown.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for ShownLines {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, &(first, last)) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            match first == last {
                true => write!(f, "{first}")?,
                false => write!(f, "{first}-{last}")?,
            }
        }
        Ok(())
    }
}

/// Why a [`ShownLines`] text did not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not a list of shown lines")]
pub struct ShownLinesError;

impl FromStr for ShownLines {
    type Err = ShownLinesError;

    /// Parses the canonical form [`Display`](fmt::Display) writes, and nothing else.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        if text.is_empty() {
            return Ok(ShownLines::default());
        }
        let number = |s: &str| -> Result<u32, ShownLinesError> {
            if s.is_empty() || s.len() > 10 || !s.bytes().all(|b| b.is_ascii_digit()) {
                return Err(ShownLinesError);
            }
            s.parse().map_err(|_| ShownLinesError)
        };
        let mut ranges = Vec::new();
        for part in text.split(',') {
            let (first, last) = match part.split_once('-') {
                Some((a, b)) => (number(a)?, number(b)?),
                None => (number(part)?, number(part)?),
            };
            ranges.push((first, last));
            if ranges.len() > MAX_RANGES {
                return Err(ShownLinesError);
            }
        }
        // Only the canonical form: sorted, disjoint, non-adjacent, no zero; a single line
        // written as `n`, never `n-n`.
        let single_as_range = text.split(',').any(|part| part.split_once('-').is_some_and(|(a, b)| a == b));
        let ok = !single_as_range
            && ranges.iter().all(|&(a, b)| a > 0 && a <= b)
            && ranges.windows(2).all(|w| w[0].1.saturating_add(1) < w[1].0);
        ok.then_some(ShownLines(ranges)).ok_or(ShownLinesError)
    }
}

/// A snapshot's link to the one it was made from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    /// The snapshot the view was made from.
    pub parent: SnapshotTag,
    /// The lines the view showed (the only rows it vouches for).
    pub shown: ShownLines,
    /// The shown lines a refusal showed under this tag: their rows mean this view's lines,
    /// whatever the views it was made from say (the retry a refusal asks for resolves).
    pub confirmed: ShownLines,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_canonical_form_parses() {
        for good in ["", "1", "1-3", "1-3,5", "2,4,6-9"] {
            let parsed: ShownLines = good.parse().unwrap_or_else(|_| panic!("{good:?}"));
            assert_eq!(parsed.to_string(), good);
        }
        for bad in ["0", "3-1", "1-1", "1,2", "1-3,4", "5,4", "1,", ",1", "a", "1-", "-1", " 1", "+1", "99999999999"] {
            assert_eq!(bad.parse::<ShownLines>(), Err(ShownLinesError), "{bad:?}");
        }
    }

    #[test]
    fn a_union_merges_touching_ranges_and_keeps_membership() {
        let a = ShownLines::from_lines([1, 2, 3, 10]);
        let b = ShownLines::from_lines([4, 9, 20]);
        let both = a.union(&b);
        assert_eq!(both.to_string(), "1-4,9-10,20");
        for line in 0..25 {
            assert_eq!(both.contains(line), a.contains(line) || b.contains(line), "{line}");
        }
        assert!(ShownLines::default().is_empty() && !both.is_empty());
    }

    #[test]
    fn the_ranges_are_bounded() {
        let many = ShownLines::from_lines((1..=2 * MAX_RANGES as u32).map(|n| n * 2));
        assert_eq!(many.0.len(), MAX_RANGES);
        assert!(many.contains(2) && !many.contains(4 * MAX_RANGES as u32));
    }
}
