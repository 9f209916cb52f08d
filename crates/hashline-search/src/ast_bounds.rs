//! The bounds of a structural search: how deep a pattern may nest, how large a file may be,
//! how long a file's parse and match may take, and how deep a file may nest when the
//! pattern compares subtrees. `ast-grep-core` recurses over the pattern (compiling it,
//! matching it, dropping it) and, for a metavariable written twice, over the two subtrees
//! it compares; both recursions must stay well inside a 2 MiB thread stack (the size of
//! Tokio's blocking threads and of the walker's threads).

use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use hashline_syntax::tree_sitter::Node;

/// Longer patterns are refused: a pattern is parsed once per language it may run on.
pub const MAX_PATTERN_BYTES: usize = 256 * 1024;

/// Patterns whose syntax tree nests deeper than this are refused. Measured in a debug
/// build: a 256-deep pattern compiles and matches on a 1 MiB stack, a 512-deep one does
/// not; hand-written patterns nest a few dozen levels at most.
pub const MAX_PATTERN_DEPTH: usize = 256;

/// With a pattern that repeats a metavariable (`$A == $A`), files whose syntax tree nests
/// deeper than this are not searched: the comparison of the two subtrees recurses once per
/// level. Measured in a debug build: 512 levels compare on a 1 MiB stack.
pub const MAX_COMPARE_DEPTH: usize = 512;

/// The bounds of one file's search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AstLimits {
    /// Larger files are not read (nor parsed).
    pub max_file_bytes: u64,
    /// A parse still running after this long is cancelled and the file is not searched.
    pub max_parse_time: Duration,
    /// A match over one file's tree still running after this long is stopped and the
    /// file's matches are dropped.
    pub max_match_time: Duration,
    /// At most this many bytes of source are read, parsed and matched at once across the
    /// search's threads (a larger file waits until the others are done; one file alone
    /// always goes ahead), so the trees in memory stay bounded whatever the core count.
    pub max_bytes_in_flight: u64,
    /// Files reached after the search has run this long are not searched (counted as timed
    /// out), so a tree of many slow files cannot hold a call for hours.
    pub max_search_time: Duration,
    /// Only the files holding the first this many matches in path order keep their text
    /// ([`crate::AstFileHits::document`], for rows); every other file with matches keeps its
    /// match lines and an empty document, so memory is bounded by what can be shown.
    pub keep_documents: u64,
}

impl AstLimits {
    /// 4 MiB, 2 s to parse and 2 s to match. A syntax tree costs about 200 bytes per node,
    /// so a pathological 4 MiB file (a node per byte) still stays under 1 GB; real source
    /// files are far smaller and parse in milliseconds.
    pub const DEFAULT: AstLimits = AstLimits {
        max_file_bytes: 4 * 1024 * 1024,
        max_parse_time: Duration::from_secs(2),
        max_match_time: Duration::from_secs(2),
        max_bytes_in_flight: 8 * 1024 * 1024,
        max_search_time: Duration::from_secs(30),
        keep_documents: u64::MAX,
    };
}

impl Default for AstLimits {
    fn default() -> Self {
        AstLimits::DEFAULT
    }
}

/// The bytes of source the threads of one search hold at once (see
/// [`AstLimits::max_bytes_in_flight`]).
pub(crate) struct InFlight {
    cap: u64,
    used: Mutex<u64>,
    freed: Condvar,
}

/// Bytes held in an [`InFlight`] until dropped.
pub(crate) struct Held<'a> {
    pool: &'a InFlight,
    bytes: u64,
}

impl InFlight {
    pub(crate) fn new(cap: u64) -> Self {
        Self { cap: cap.max(1), used: Mutex::new(0), freed: Condvar::new() }
    }

    fn used(&self) -> MutexGuard<'_, u64> {
        self.used.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits until `bytes` fit beside what the other threads hold (or nothing else is
    /// held), and holds them. Every holder is done within a file's time bounds, so the wait
    /// is bounded too.
    pub(crate) fn hold(&self, bytes: u64) -> Held<'_> {
        let bytes = bytes.min(self.cap);
        let mut used = self.used();
        while *used > 0 && *used + bytes > self.cap {
            used = self.freed.wait(used).unwrap_or_else(PoisonError::into_inner);
        }
        *used += bytes;
        Held { pool: self, bytes }
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        let mut used = self.pool.used();
        *used -= self.bytes;
        drop(used);
        self.pool.freed.notify_all();
    }
}

/// Whether the tree under `root` nests deeper than `limit` levels (the root is level 1).
/// Iterative, and it stops at the first node past the limit.
pub(crate) fn deeper_than(root: Node<'_>, limit: usize) -> bool {
    let mut cursor = root.walk();
    let mut depth = 1usize;
    loop {
        if depth > limit {
            return true;
        }
        if cursor.goto_first_child() {
            depth += 1;
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return false;
            }
            depth -= 1;
        }
    }
}

/// Whether the pattern writes a capturing metavariable (`$A`, `$$A`, `$$$A`; not `$_`,
/// `$_X` or `$$$`) more than once: then ast-grep compares the subtrees the occurrences
/// bind. Read from the text, so a `$A` inside a string literal counts too (erring on the
/// side of the bound).
pub(crate) fn repeats_metavariable(pattern: &str) -> bool {
    let mut seen: Vec<&str> = Vec::new();
    let bytes = pattern.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'$' {
            i += 1;
            continue;
        }
        while i < bytes.len() && bytes[i] == b'$' {
            i += 1;
        }
        let start = i;
        while i < bytes.len() && (bytes[i].is_ascii_uppercase() || bytes[i].is_ascii_digit() || bytes[i] == b'_') {
            i += 1;
        }
        let name = &pattern[start..i];
        if name.is_empty() || name.starts_with('_') || name.starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        if seen.contains(&name) {
            return true;
        }
        seen.push(name);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use hashline_syntax::{LanguageId, ParseLimits, parse};

    #[test]
    fn depth_is_measured_without_recursion() {
        let text = "(".repeat(50_000) + "x" + &")".repeat(50_000);
        let worker = std::thread::Builder::new().stack_size(256 * 1024).spawn(move || {
            let tree = parse(LanguageId::JavaScript, text.as_bytes(), None, ParseLimits::DEFAULT).expect("parse");
            (deeper_than(tree.root_node(), 49_000), deeper_than(tree.root_node(), 60_000))
        });
        assert_eq!(worker.expect("thread").join().expect("no overflow"), (true, false));
        let tree = parse(LanguageId::JavaScript, b"f(a, [b]);", None, ParseLimits::DEFAULT).expect("parse");
        // program > expression_statement > call_expression > arguments > array > identifier
        assert!(deeper_than(tree.root_node(), 5));
        assert!(!deeper_than(tree.root_node(), 6));
    }

    #[test]
    fn bytes_in_flight_wait_for_room_and_one_file_always_goes() {
        let pool = InFlight::new(8);
        let first = pool.hold(6);
        let (released, acquired) = std::thread::scope(|scope| {
            let waiter = scope.spawn(|| {
                let _held = pool.hold(4);
                std::time::Instant::now()
            });
            std::thread::sleep(Duration::from_millis(200));
            let released = std::time::Instant::now();
            drop(first);
            (released, waiter.join().expect("waiter"))
        });
        assert!(acquired >= released, "4 bytes were held beside 6 of 8");
        // More than the cap goes ahead alone; small holds fit beside each other.
        let big = pool.hold(100);
        drop(big);
        let (_a, _b) = (pool.hold(4), pool.hold(4));
        assert_eq!(*pool.used(), 8);
    }

    #[test]
    fn repeated_capturing_metavariables_are_found() {
        assert!(repeats_metavariable("$A == $A"));
        assert!(repeats_metavariable("f($$$ARGS); g($$$ARGS)"));
        assert!(repeats_metavariable("$A + $$A"));
        assert!(!repeats_metavariable("$A == $B"));
        assert!(!repeats_metavariable("$_ == $_"));
        assert!(!repeats_metavariable("$_X == $_X"));
        assert!(!repeats_metavariable("f($$$, $$$)"));
        assert!(!repeats_metavariable("\"$\" + $ + $1 + $1"));
    }
}
