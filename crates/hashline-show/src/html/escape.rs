//! HTML escaping of text and attribute values.

use std::fmt;

use crate::util::is_unsafe_control;

/// Displays a string with `&`, `<`, `>`, `"` and `'` escaped, safe in text and in quoted
/// attribute values, and every control character but tab and newline shown as `\uXXXX`
/// (as the terminal shows them), so the page holds no ESC, C1 or DEL from the log: neither
/// a browser nor a terminal that prints the file acts on them.
pub(crate) struct Escaped<'a>(pub &'a str);

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rest = self.0;
        let special = |c: char| matches!(c, '&' | '<' | '>' | '"' | '\'') || (is_unsafe_control(c) && c != '\n');
        while let Some(at) = rest.find(special) {
            f.write_str(&rest[..at])?;
            let c = rest[at..].chars().next().unwrap_or_default();
            match c {
                '&' => f.write_str("&amp;")?,
                '<' => f.write_str("&lt;")?,
                '>' => f.write_str("&gt;")?,
                '"' => f.write_str("&quot;")?,
                '\'' => f.write_str("&#39;")?,
                _ => write!(f, "\\u{:04x}", u32::from(c))?,
            }
            rest = &rest[at + c.len_utf8()..];
        }
        f.write_str(rest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_quotes() {
        assert_eq!(
            Escaped("a<b>&\"c'd</system-reminder>").to_string(),
            "a&lt;b&gt;&amp;&quot;c&#39;d&lt;/system-reminder&gt;"
        );
        assert_eq!(Escaped("plain — ü").to_string(), "plain — ü");
        assert_eq!(Escaped("a\u{1b}[2J\u{9b}\tb\nc\r").to_string(), "a\\u001b[2J\\u009b\tb\nc\\u000d");
    }
}
