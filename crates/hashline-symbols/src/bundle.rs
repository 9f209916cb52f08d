//! Local bundles (SPEC §6.5): a symbol plus the other symbols of its file that it uses.

use std::collections::HashSet;
use std::sync::OnceLock;

use hashline_core::{Document, LineNo};
use regex::Regex;

use crate::select::{Located, locate};
use crate::symbol::SymbolMap;

/// A bundle's support symbols, or why there is none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Bundle {
    /// The support symbols, in file order (possibly none).
    Support(Vec<Located>),
    /// A referenced name belongs to several symbols, so the bundle would guess.
    Ambiguous {
        /// The name.
        name: String,
        /// How many symbols have it.
        count: usize,
    },
}

/// The symbols of `map` (other than `requested`, its ancestors and its descendants, and no
/// containers) whose names `requested`'s text uses as identifiers.
pub fn local_bundle(map: &SymbolMap, doc: &Document, requested: &Located) -> Bundle {
    static IDENT: OnceLock<Regex> = OnceLock::new();
    let ident = IDENT.get_or_init(|| Regex::new(r"[A-Za-z_][A-Za-z0-9_]*").expect("static regex"));
    let own = &requested.symbol;
    let mut used = HashSet::new();
    for number in own.start_line..=own.end_line {
        if let Some(line) = LineNo::new(number).and_then(|n| doc.line(n)) {
            for m in ident.find_iter(&String::from_utf8_lossy(line.content)) {
                used.insert(m.as_str().to_owned());
            }
        }
    }
    let inside = |l: &Located| {
        (l.symbol.start_line >= own.start_line && l.symbol.end_line <= own.end_line)
            || (l.symbol.start_line <= own.start_line && l.symbol.end_line >= own.end_line)
    };
    let all = locate(map);
    let candidates: Vec<&Located> =
        all.iter().filter(|l| !l.symbol.kind.is_container() && !inside(l) && used.contains(&l.symbol.name)).collect();
    let mut names: Vec<&str> = candidates.iter().map(|l| l.symbol.name.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    for name in names {
        let count = all.iter().filter(|l| l.symbol.name == name && !inside(l)).count();
        if count > 1 {
            return Bundle::Ambiguous { name: name.to_owned(), count };
        }
    }
    let mut support: Vec<Located> = candidates.into_iter().cloned().collect();
    support.sort_by_key(|l| l.symbol.start_line);
    Bundle::Support(support)
}
