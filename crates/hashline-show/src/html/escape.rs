//! HTML escaping of text and attribute values.

use std::fmt;

/// Displays a string with `&`, `<`, `>`, `"` and `'` escaped, safe in text and in quoted
/// attribute values.
pub(crate) struct Escaped<'a>(pub &'a str);

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rest = self.0;
        while let Some(at) = rest.find(['&', '<', '>', '"', '\'']) {
            f.write_str(&rest[..at])?;
            f.write_str(match rest.as_bytes()[at] {
                b'&' => "&amp;",
                b'<' => "&lt;",
                b'>' => "&gt;",
                b'"' => "&quot;",
                _ => "&#39;",
            })?;
            rest = &rest[at + 1..];
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
    }
}
