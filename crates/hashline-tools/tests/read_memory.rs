//! How much a windowed `read` of a large file allocates (issue 21, item 7): the file's
//! bytes once, and for the lines only what the window shows — no copy of the file and no
//! span for every line. A binary of its own, since its global allocator counts every
//! allocation of the process; the cases run one after another in a single test.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use hashline_tools::read::{ReadArgs, ReadValue, read};
use hashline_tools::{Session, SessionConfig};

/// The system allocator, counting the bytes currently allocated and their peak.
struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(size: usize) {
    let now = CURRENT.fetch_add(size, Ordering::SeqCst) + size;
    PEAK.fetch_max(now, Ordering::SeqCst);
}

// SAFETY: every call is passed on to `System` unchanged; only the counters are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is `System`'s.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            grew(layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is `System`'s.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            grew(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.dealloc(ptr, layout) };
        CURRENT.fetch_sub(layout.size(), Ordering::SeqCst);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract is `System`'s.
        let moved = unsafe { System.realloc(ptr, layout, new_size) };
        if !moved.is_null() {
            // Counted as the new block arriving before the old one leaves (a moving
            // realloc holds both for a moment).
            grew(new_size);
            CURRENT.fetch_sub(layout.size(), Ordering::SeqCst);
        }
        moved
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Lines of the file: 2^20 lines of 32 bytes each (with `\n`), 32 MiB.
const LINES: usize = 1 << 20;

/// Room for what a window itself needs (its ≤ 50 KB of text, its ≤ 2000 row values, the
/// ledger's entries): far below the 24 bytes per line a span of every line takes.
const MARGIN: usize = 2 << 20;

/// Line `i` (1-based) of the file, 31 bytes before its terminator.
fn line(i: usize) -> String {
    format!("line {i:07} of the large file.")
}

/// The peak of the bytes allocated beyond those allocated before, while `f` runs.
fn peak_extra<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = CURRENT.load(Ordering::SeqCst);
    PEAK.store(before, Ordering::SeqCst);
    let value = f();
    (value, PEAK.load(Ordering::SeqCst).saturating_sub(before))
}

#[test]
fn a_windowed_read_allocates_the_file_once_and_the_window() {
    let dir = tempfile::tempdir().expect("a scratch directory");
    let session = Session::new(SessionConfig::builder().root(dir.path()).stateful(false).build()).expect("a session");
    let mut over = Vec::new();
    for (name, terminator) in [("large_lf.txt", "\n"), ("large_crlf.txt", "\r\n")] {
        let text: String = (1..=LINES).flat_map(|i| [line(i), terminator.to_owned()]).collect();
        let size = text.len();
        let file = dir.path().join(name);
        std::fs::write(&file, text).expect("the file is written");
        let path = file.to_string_lossy().into_owned();
        let window = |offset: u32| ReadArgs::builder().path(path.clone()).offset(offset).limit(20).build();
        let cases = [
            ("offset 1, limit 20", window(1), 1, Some(20)),
            ("offset 500000, limit 20", window(500_000), 500_000, Some(20)),
            ("the default read, cut by the budget", ReadArgs::builder().path(path.clone()).build(), 1, None),
        ];
        for (what, args, first, shown) in cases {
            let (output, extra) = peak_extra(|| read(&session, args).expect("the read succeeds"));
            let ReadValue::Text(value) = &output.value else { panic!("{name}, {what}: a text read") };
            assert_eq!(value.range.total_lines as usize, LINES, "{name}, {what}");
            // Without a limit, the budget decides (and says so).
            let shown = shown.or(value.truncation.map(|t| t.output_lines as usize));
            assert_eq!(Some(value.lines.len()), shown, "{name}, {what}");
            assert_eq!(value.lines[0].line as usize, first, "{name}, {what}");
            assert_eq!(value.lines[0].raw, line(first), "{name}, {what}");
            let ratio = extra as f64 / size as f64;
            eprintln!("{name}, {what}: peak extra {extra} bytes for a {size}-byte file ({ratio:.3}x)");
            if extra >= size + MARGIN {
                over.push(format!("{name}, {what}: {extra} bytes ({ratio:.3}x the file)"));
            }
        }
    }
    assert!(over.is_empty(), "over the file's size and a margin of {MARGIN} bytes:\n{}", over.join("\n"));
}
