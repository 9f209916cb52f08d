//! Output budgets (SPEC §4.5): what a tool shows is capped at whole rows.

/// At most this many lines of text.
pub const MAX_LINES: usize = 2000;

/// At most this many bytes of text.
pub const MAX_BYTES: usize = 50 * 1024;

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
