//! Small text helpers shared by the renderers.

/// `path` relative to `root` when it lies below it, else as it is.
pub(crate) fn display_path<'a>(path: &'a str, root: Option<&str>) -> &'a str {
    root.and_then(|root| path.strip_prefix(root))
        .and_then(|rest| rest.strip_prefix('/'))
        .filter(|rest| !rest.is_empty())
        .unwrap_or(path)
}

/// True for the characters a terminal may act on rather than show, or that could start a
/// line or turn text around: the one rule of every name and text from outside
/// ([`hashline_core::display::is_escaped_control`]): C0, DEL and C1 (U+0000–U+001F,
/// U+007F, U+0080–U+009F) but tab, the line and paragraph separators and the bidi controls.
/// ESC among them, so no OSC (window title, OSC 52 clipboard write) or CSI sequence from a
/// log reaches the terminal.
pub(crate) fn is_unsafe_control(c: char) -> bool {
    hashline_core::display::is_escaped_control(c)
}

/// Appends `text` with every [`is_unsafe_control`] character shown as `\uXXXX` (lowercase
/// hex, as `read` shows C0 controls in rows: docs/protocol.md §2.2), so that text from a log
/// (rows, paths, messages, names) cannot drive the terminal.
pub(crate) fn push_safe(out: &mut String, text: &str) {
    let mut rest = text;
    while let Some(at) = rest.find(is_unsafe_control) {
        out.push_str(&rest[..at]);
        let c = rest[at..].chars().next().unwrap_or_default();
        push_escape(out, c);
        rest = &rest[at + c.len_utf8()..];
    }
    out.push_str(rest);
}

/// `text` as `push_safe` writes it.
pub fn terminal_safe(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains(is_unsafe_control) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    push_safe(&mut out, text);
    std::borrow::Cow::Owned(out)
}

/// `\u` and four lowercase hex digits of `c` (a character of [`is_unsafe_control`]: all
/// are in the Basic Multilingual Plane).
pub(crate) fn push_escape(out: &mut String, c: char) {
    use std::fmt::Write as _;
    let _ = write!(out, "\\u{:04x}", u32::from(c));
}

/// `one` for 1, `many` otherwise.
pub(crate) fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_below_the_root_are_relative() {
        assert_eq!(display_path("/w/a/b.rs", Some("/w")), "a/b.rs");
        assert_eq!(display_path("/wx/a", Some("/w")), "/wx/a");
        assert_eq!(display_path("/w", Some("/w")), "/w");
        assert_eq!(display_path("/w/a", None), "/w/a");
    }

    #[test]
    fn every_control_but_tab_is_escaped() {
        assert_eq!(terminal_safe("a\tb"), "a\tb");
        assert_eq!(terminal_safe("\u{1b}]52;c;eA==\u{7}"), "\\u001b]52;c;eA==\\u0007");
        assert_eq!(terminal_safe("\u{9b}2J\u{7f}\r\n"), "\\u009b2J\\u007f\\u000d\\u000a");
        assert_eq!(terminal_safe("caf\u{e9} \u{a0}"), "caf\u{e9} \u{a0}");
        for c in (0u32..0x200).filter_map(char::from_u32) {
            let shown = terminal_safe(&c.to_string()).into_owned();
            assert_eq!(shown != c.to_string(), c.is_control() && c != '\t', "{c:?}");
        }
        assert_eq!(terminal_safe("\u{202e}txt.exe\u{2066}\u{2028}"), "\\u202etxt.exe\\u2066\\u2028");
    }
}
