//! One file's served rows: each row's hash by its current line, packed, and the names of
//! the few rows not named by their own line alone.
//!
//! A row is almost always named only by the line it was shown at (every row of a read, of a
//! grep, of a refusal that did not move). Those rows take 8 bytes each; a row an edit moved,
//! or one shown under several numbers, keeps its names in a map beside them. An unbounded
//! grep records ~100k rows: kept one map node per row, they were most of its memory.

use std::collections::{BTreeMap, HashMap};

use hashline_core::edit::Resolution;
use hashline_core::{Anchor, LineHash, LineNo};

/// How many line numbers a row remembers being shown under.
pub(super) const MAX_NAMES: usize = 4;

/// One row as the model knows it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ServedRow {
    /// The hash shown (`0..4096`).
    pub hash: u16,
    /// The line numbers it was shown under, oldest first.
    pub names: Names,
}

impl ServedRow {
    /// The row after it was shown at `line` with `hash`: a row shown again as its newest
    /// name is unchanged; a new hash (or a row with no name left) starts the names afresh.
    fn shown(self, line: u32, hash: u16) -> Self {
        if self.hash == hash && self.names.as_slice().last() == Some(&line) {
            return self;
        }
        let mut row =
            if self.hash != hash || self.names.is_empty() { ServedRow { hash, names: Names::default() } } else { self };
        row.names.push(line);
        row
    }
}

/// The line numbers a row was shown under, oldest first: at most four, kept inline.
#[derive(Clone, Copy, Default)]
pub struct Names {
    len: u8,
    lines: [u32; MAX_NAMES],
}

impl Names {
    /// The names, oldest first.
    pub fn as_slice(&self) -> &[u32] {
        &self.lines[..usize::from(self.len)]
    }

    /// Whether the row has no name left.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Adds `line` as the newest name (moving it there when present). When there are more
    /// than four, the second-oldest goes: the oldest is the name of the view the model
    /// planned from (a read), which must not be lost to the rows of later results, or an
    /// anchor from that read could fall through to a look-alike at its number.
    pub(super) fn push(&mut self, line: u32) {
        self.retain(|n| n != line);
        if usize::from(self.len) == MAX_NAMES {
            self.lines.copy_within(2.., 1);
            self.len -= 1;
        }
        self.lines[usize::from(self.len)] = line;
        self.len += 1;
    }

    /// Keeps the names for which `keep` holds, in order.
    fn retain(&mut self, mut keep: impl FnMut(u32) -> bool) {
        let mut kept = 0;
        for i in 0..usize::from(self.len) {
            let line = self.lines[i];
            if keep(line) {
                self.lines[kept] = line;
                kept += 1;
            }
        }
        // `kept` ≤ `len` ≤ MAX_NAMES, so it fits.
        self.len = kept as u8;
    }

    /// Exactly one name, `line`.
    pub(super) fn only(line: u32) -> Self {
        let mut names = Names::default();
        names.push(line);
        names
    }

    /// Whether these are exactly `line` (a row named by its own line alone).
    fn is_only(&self, line: u32) -> bool {
        self.as_slice() == [line]
    }
}

/// Equal names are the same lines in the same order (what is left past them in the array
/// from earlier names does not count).
impl PartialEq for Names {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for Names {}

impl std::fmt::Debug for Names {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl<'a> FromIterator<&'a u32> for Names {
    fn from_iter<I: IntoIterator<Item = &'a u32>>(iter: I) -> Self {
        let mut names = Names::default();
        for line in iter {
            names.push(*line);
        }
        names
    }
}

/// Rows shown to the model for one file, by their current line number.
///
/// Serialised as one string of `<line>:<hashes>` segments (the CLI's session file,
/// version 3; docs/protocol.md) rather than an object per row: a CLI call loads every row
/// of its session before it does anything else. The object per row of version 2 is still
/// read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ServedRows {
    /// Each row's line and hash, by line (one per line).
    rows: Vec<(u32, u16)>,
    /// The names of the rows not named by their line alone, by line (never `[line]`).
    named: BTreeMap<u32, Names>,
}

impl ServedRows {
    /// Rows in any order; of two for one line, the later one stays.
    pub(super) fn from_rows(rows: impl IntoIterator<Item = (u32, ServedRow)>) -> Self {
        let mut built = ServedRows::default();
        let mut rows = rows.into_iter();
        // In order (as reads, edits and session files give them), one push a row.
        for (line, row) in rows.by_ref() {
            if built.rows.last().is_some_and(|(last, _)| *last >= line) {
                // Out of order: the rest through a map, which keeps the later of two.
                let mut all: BTreeMap<u32, ServedRow> = built.iter().collect();
                all.insert(line, row);
                all.extend(rows);
                return ServedRows::from_rows(all);
            }
            built.push(line, row);
        }
        built
    }

    /// Appends a row after every other.
    fn push(&mut self, line: u32, row: ServedRow) {
        self.rows.push((line, row.hash));
        if !row.names.is_only(line) {
            self.named.insert(line, row.names);
        }
    }

    /// Every row, by line.
    pub(super) fn iter(&self) -> impl Iterator<Item = (u32, ServedRow)> + '_ {
        self.rows.iter().map(|&(line, hash)| (line, ServedRow { hash, names: self.names_of(line) }))
    }

    /// The names of the row at `line` (which is a row).
    fn names_of(&self, line: u32) -> Names {
        self.named.get(&line).copied().unwrap_or_else(|| Names::only(line))
    }

    /// Where the row at `line` is in `rows` (`Err`: where it would go).
    fn position(&self, line: u32) -> Result<usize, usize> {
        self.rows.binary_search_by_key(&line, |(l, _)| *l)
    }

    /// The row at `line`.
    pub(super) fn get(&self, line: u32) -> Option<ServedRow> {
        let at = self.position(line).ok()?;
        Some(ServedRow { hash: self.rows[at].1, names: self.names_of(line) })
    }

    /// Sets the names of the row at `line`.
    fn set_names(&mut self, line: u32, names: Names) {
        if names.is_only(line) {
            self.named.remove(&line);
        } else {
            self.named.insert(line, names);
        }
    }

    /// The hash shown for the row now at `line`, if it was shown.
    pub fn hash_at(&self, line: LineNo) -> Option<LineHash> {
        LineHash::from_value(self.rows[self.position(line.get()).ok()?].1)
    }

    /// An index from what the model was shown (`LINE:HASH`) to the current lines shown
    /// that way, for resolving many anchors quickly.
    pub fn index(&self) -> ServedIndex {
        let mut by_name: HashMap<(u32, u16), Vec<LineNo>> = HashMap::with_capacity(self.rows.len());
        for (line, row) in self.iter() {
            if let Some(current) = LineNo::new(line) {
                for name in row.names.as_slice() {
                    by_name.entry((*name, row.hash)).or_default().push(current);
                }
            }
        }
        ServedIndex { by_name }
    }

    /// Which current line an anchor names, by what the model was shown (see
    /// [`ServedIndex::resolve`]).
    pub fn resolve(&self, anchor: Anchor) -> Resolution {
        self.index().resolve(anchor)
    }

    /// Number of rows recorded.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether no row is recorded.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// A read supersedes older views: a row it showed as `LINE:HASH` is what that anchor
    /// names from now on, so every other row loses the name `LINE` it had under that hash
    /// (an anchor the model takes from a fresh read must not stay ambiguous).
    /// `shown` is sorted (a binary search costs less than hashing every name). A row named
    /// by its own line alone keeps it, so only the others are looked at.
    pub(super) fn supersede(&mut self, shown: &[(u32, u16)]) {
        let rows = &self.rows;
        self.named.retain(|line, names| {
            let Ok(at) = rows.binary_search_by_key(line, |(l, _)| *l) else {
                return false;
            };
            let hash = rows[at].1;
            names.retain(|name| name == *line || shown.binary_search(&(name, hash)).is_err());
            !names.is_only(*line)
        });
    }

    /// Records that each row was shown at its line with its hash, in the order given;
    /// whether that changed anything (rows shown again as their newest name change nothing).
    pub(super) fn show_all(&mut self, shown: impl IntoIterator<Item = (u32, u16)>) -> bool {
        let mut shown: Vec<(u32, u16)> = shown.into_iter().collect();
        if !shown.is_sorted_by_key(|(line, _)| *line) {
            // Stable: one line's rows stay in the order they were shown.
            shown.sort_by_key(|(line, _)| *line);
        }
        let mut changed = false;
        // Rows of lines with no row yet, merged in once at the end (in line order).
        let mut added: Vec<(u32, ServedRow)> = Vec::new();
        for (line, hash) in shown {
            if let Some((last, row)) = added.last_mut()
                && *last == line
            {
                *row = row.shown(line, hash);
                continue;
            }
            match self.position(line) {
                Ok(at) => {
                    let before = ServedRow { hash: self.rows[at].1, names: self.names_of(line) };
                    let after = before.shown(line, hash);
                    if after != before {
                        changed = true;
                        self.rows[at].1 = after.hash;
                        self.set_names(line, after.names);
                    }
                }
                Err(_) => {
                    changed = true;
                    added.push((line, ServedRow::default().shown(line, hash)));
                }
            }
        }
        if !added.is_empty() {
            self.merge(added);
        }
        changed
    }

    /// Merges rows of lines that have none (sorted, one per line).
    fn merge(&mut self, added: Vec<(u32, ServedRow)>) {
        let old = std::mem::take(&mut self.rows);
        self.rows.reserve_exact(old.len() + added.len());
        let mut old = old.into_iter().peekable();
        for (line, row) in added {
            while let Some(kept) = old.next_if(|(l, _)| *l < line) {
                self.rows.push(kept);
            }
            self.rows.push((line, row.hash));
            self.set_names(line, row.names);
        }
        self.rows.extend(old);
    }
}

/// What the model was shown, by `LINE:HASH` (see [`ServedRows::index`]).
#[derive(Clone, Debug, Default)]
pub struct ServedIndex {
    by_name: HashMap<(u32, u16), Vec<LineNo>>,
}

impl ServedIndex {
    /// Which current line an anchor names: the row that was shown as `LINE` with that
    /// hash. `Unknown` when none was, `Ambiguous` when several were (lines moved).
    pub fn resolve(&self, anchor: Anchor) -> Resolution {
        match self.by_name.get(&(anchor.line.get(), anchor.hash.value())).map(Vec::as_slice) {
            None | Some([]) => Resolution::Unknown,
            Some([line]) => Resolution::Known(*line),
            Some(lines) => Resolution::Ambiguous(lines.to_vec()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The rows as they were kept before they were packed: a map node per row. The packed
    /// rows must answer as it does after any sequence of views and edits.
    #[derive(Clone, Debug, Default)]
    struct Model(BTreeMap<u32, ServedRow>);

    impl Model {
        fn show(&mut self, line: u32, hash: u16) -> bool {
            if let Some(row) = self.0.get(&line)
                && row.hash == hash
                && row.names.as_slice().last() == Some(&line)
            {
                return false;
            }
            let row = self.0.entry(line).or_default();
            if row.hash != hash || row.names.is_empty() {
                *row = ServedRow { hash, names: Names::default() };
            }
            row.names.push(line);
            true
        }

        fn supersede(&mut self, shown: &[(u32, u16)]) {
            for (line, row) in &mut self.0 {
                row.names.retain(|name| name == *line || shown.binary_search(&(name, row.hash)).is_err());
            }
        }
    }

    /// One change of a file's rows, as the ledger makes them.
    #[derive(Clone, Debug)]
    enum Op {
        /// A search's or a refusal's rows (`record`).
        Show(Vec<(u32, u16)>),
        /// A partial read (`record_read`).
        Read(Vec<(u32, u16)>),
        /// A whole view (`replace`).
        Replace(Vec<(u32, u16)>),
        /// An edit: rows moved (old → new), then the rows its result showed (`carry`).
        Carry(Vec<(u32, u32)>, Vec<(u32, u16)>),
    }

    fn rows() -> impl Strategy<Value = Vec<(u32, u16)>> {
        prop::collection::vec((1u32..40, 0u16..3), 0..30)
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            rows().prop_map(Op::Show),
            rows().prop_map(Op::Read),
            rows().prop_map(Op::Replace),
            (prop::collection::vec((1u32..40, 1u32..40), 0..30), rows()).prop_map(|(m, f)| Op::Carry(m, f)),
        ]
    }

    fn apply(rows: &mut ServedRows, model: &mut Model, op: &Op) {
        match op {
            Op::Show(shown) => {
                let changed = rows.show_all(shown.iter().copied());
                let mut model_changed = false;
                for &(line, hash) in shown {
                    model_changed |= model.show(line, hash);
                }
                assert_eq!(changed, model_changed, "whether {op:?} changed the rows");
            }
            Op::Read(shown) => {
                rows.show_all(shown.iter().copied());
                for &(line, hash) in shown {
                    model.show(line, hash);
                }
                let mut sorted = shown.clone();
                sorted.sort_unstable();
                sorted.dedup();
                rows.supersede(&sorted);
                model.supersede(&sorted);
            }
            Op::Replace(shown) => {
                let whole = shown.iter().map(|&(line, hash)| (line, ServedRow { hash, names: Names::only(line) }));
                *rows = ServedRows::from_rows(whole.clone());
                model.0 = whole.collect();
            }
            Op::Carry(moved, fresh) => {
                let old = std::mem::take(rows);
                *rows = ServedRows::from_rows(moved.iter().filter_map(|&(from, to)| Some((to, old.get(from)?))));
                rows.show_all(fresh.iter().copied());
                let old = std::mem::take(&mut model.0);
                for (from, to) in moved {
                    if let Some(row) = old.get(from) {
                        model.0.insert(*to, *row);
                    }
                }
                for &(line, hash) in fresh {
                    model.show(line, hash);
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn packed_rows_answer_as_a_map_of_rows_does(ops in prop::collection::vec(op(), 1..12)) {
            let (mut rows, mut model) = (ServedRows::default(), Model::default());
            for op in &ops {
                apply(&mut rows, &mut model, op);
                let packed: Vec<(u32, ServedRow)> = rows.iter().collect();
                let expected: Vec<(u32, ServedRow)> = model.0.iter().map(|(l, r)| (*l, *r)).collect();
                prop_assert_eq!(&packed, &expected, "after {:?}", op);
                prop_assert!(rows.named.iter().all(|(line, names)| !names.is_only(*line)), "a plain row kept apart");
                for line in 0..42 {
                    let number = LineNo::new(line);
                    prop_assert_eq!(number.and_then(|n| rows.hash_at(n)).map(LineHash::value), model.0.get(&line).map(|r| r.hash));
                }
                let index = rows.index();
                for name in 1..42 {
                    for hash in 0..3 {
                        let anchor = Anchor::new(LineNo::new(name).expect("line"), LineHash::from_value(hash).expect("hash"));
                        let mut lines: Vec<LineNo> = model
                            .0
                            .iter()
                            .filter(|(_, r)| r.hash == hash && r.names.as_slice().contains(&name))
                            .filter_map(|(l, _)| LineNo::new(*l))
                            .collect();
                        lines.sort();
                        let expected = match lines.as_slice() {
                            [] => Resolution::Unknown,
                            [one] => Resolution::Known(*one),
                            _ => Resolution::Ambiguous(lines),
                        };
                        prop_assert_eq!(index.resolve(anchor), expected);
                    }
                }
            }
        }
    }
}
