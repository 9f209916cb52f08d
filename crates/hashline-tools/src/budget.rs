//! Output budgets (SPEC §4.5): what a tool shows is capped at whole rows.
//!
//! [`Budget::DEFAULT`] is the SPEC's 2000 lines / 50 KB. A caller that knows its reader
//! shows less at once (an agent host that cuts or diverts a longer tool result) runs the
//! call with a smaller [`Budget`] in its [`CallContext`](crate::CallContext): every tool's
//! text then fits it whole, cut by the tool at a row boundary with its own continuation
//! note, never by the host.

/// At most this many lines of text (the default budget's).
pub const MAX_LINES: usize = Budget::DEFAULT.lines;

/// At most this many bytes of text (the default budget's).
pub const MAX_BYTES: usize = Budget::DEFAULT.bytes;

/// How much of a result's text one call may show: at most `lines` lines and `bytes` bytes,
/// notes and headers included, cut at whole rows.
///
/// ```
/// use hashline_tools::budget::Budget;
/// assert_eq!(Budget::default(), Budget::DEFAULT);
/// let small = Budget::new(2000, 10_000);
/// assert_eq!((small.lines, small.bytes), (2000, 10_000));
/// // Bounds keep a budget useful: never under 2 KB or 20 lines, never over 1 MB.
/// assert_eq!(Budget::new(1, 1), Budget::new(Budget::MIN_LINES, Budget::MIN_BYTES));
/// assert_eq!(small.to_string(), "2000-line / 9.8KB");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Budget {
    /// At most this many lines.
    pub lines: usize,
    /// At most this many bytes (UTF-8): never more characters than that.
    pub bytes: usize,
}

impl Budget {
    /// The SPEC's budget: 2000 lines / 50 KB.
    pub const DEFAULT: Self = Self { lines: 2000, bytes: 50 * 1024 };
    /// The smallest byte budget [`Budget::new`] makes.
    pub const MIN_BYTES: usize = 2 * 1024;
    /// The smallest line budget [`Budget::new`] makes.
    pub const MIN_LINES: usize = 20;
    /// The largest byte budget [`Budget::new`] makes.
    pub const MAX_BYTES: usize = 1024 * 1024;
    /// The largest line budget [`Budget::new`] makes.
    pub const MAX_LINES: usize = 50_000;

    /// A budget of `lines` and `bytes`, each held within the bounds above.
    pub fn new(lines: usize, bytes: usize) -> Self {
        Self {
            lines: lines.clamp(Self::MIN_LINES, Self::MAX_LINES),
            bytes: bytes.clamp(Self::MIN_BYTES, Self::MAX_BYTES),
        }
    }

    /// Whether this is the SPEC's default budget.
    pub fn is_default(&self) -> bool {
        *self == Self::DEFAULT
    }

    /// ` at this client's 2000-line / 9.8KB budget` for a budget other than the default,
    /// else nothing: said in a cut's note, since a larger `limit` does not lift such a cut.
    pub fn named(&self) -> String {
        if self.is_default() { String::new() } else { format!(" at this client's {self} budget") }
    }

    /// `bytes` less `used` (a result's frame: its warnings, headers and notes), but never
    /// under a quarter of the budget, so that rows still show beside a long frame.
    pub fn bytes_after(&self, used: usize) -> usize {
        self.bytes.saturating_sub(used).max(self.bytes / 4)
    }
}

impl Default for Budget {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// `2000-line / 50.0KB`, as the notes that name a budget say it.
impl std::fmt::Display for Budget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.is_default() {
            return write!(f, "2000-line / 50 KB");
        }
        write!(f, "{}-line / {}", self.lines, format_size(self.bytes))
    }
}

/// The last guard of a budget: a text over `budget.bytes` is cut at the end of a line, with
/// a note saying so. Tools fit their text themselves (their rows, with their own notes); this
/// catches what they cannot bound (long warnings, many files' notes). Returns whether it cut.
///
/// ```
/// use hashline_tools::budget::{Budget, fit_text};
/// let budget = Budget::new(2000, 2048);
/// let mut text = "row\n".repeat(1000);
/// assert!(fit_text(&mut text, budget));
/// assert!(text.len() <= 2048);
/// assert!(text.ends_with("budget; narrow the request to see the rest.]"));
/// let mut short = "a\nb".to_owned();
/// assert!(!fit_text(&mut short, budget));
/// ```
pub fn fit_text(text: &mut String, budget: Budget) -> bool {
    if text.len() <= budget.bytes {
        return false;
    }
    let total = text.len();
    let note = format!(
        "\n[Output cut at {} of {}{}; narrow the request to see the rest.]",
        format_size(budget.bytes),
        format_size(total),
        if budget.is_default() { " (the result budget)".to_owned() } else { budget.named().replacen(" at", ",", 1) }
    );
    let keep = cut_at_char_boundary(text, budget.bytes.saturating_sub(note.len() + 16));
    // At the end of a whole line when there is one; else mid-line, at a character.
    let end = keep.rfind('\n').unwrap_or(keep.len());
    text.truncate(end);
    text.push_str(&note);
    true
}

/// A byte count for people: `512B`, `1.5KB`, `2.0MB` (1024-based).
///
/// ```
/// use hashline_tools::budget::format_size;
/// assert_eq!(format_size(512), "512B");
/// assert_eq!(format_size(1536), "1.5KB");
/// assert_eq!(format_size(3 * 1024 * 1024), "3.0MB");
/// ```
pub fn format_size(bytes: usize) -> String {
    const KB: f64 = 1024.0;
    let b = bytes as f64;
    if bytes < 1024 {
        format!("{bytes}B")
    } else if b < KB * KB {
        format!("{:.1}KB", b / KB)
    } else {
        format!("{:.1}MB", b / (KB * KB))
    }
}

/// Cuts `text` to at most `max` bytes at a character boundary.
pub fn cut_at_char_boundary(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}
