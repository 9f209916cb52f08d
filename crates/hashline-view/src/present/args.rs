//! Soft validation of logged tool arguments: a type mismatch declines instead of failing.

use serde_json::{Map, Value};

use crate::json::u32_of;

/// A tool's arguments object. Each accessor returns `None` on a type mismatch, so `?` declines
/// the presentation; an absent key or JSON `null` is "omitted".
pub(super) struct Args<'a>(&'a Map<String, Value>);

impl<'a> Args<'a> {
    /// The arguments, or `None` when `args` is not an object.
    pub(super) fn new(args: &'a Value) -> Option<Self> {
        args.as_object().map(Self)
    }

    /// The raw value of `key`, if it carries one.
    pub(super) fn get(&self, key: &str) -> Option<&'a Value> {
        self.0.get(key).filter(|v| !v.is_null())
    }

    /// An optional string.
    pub(super) fn opt_str(&self, key: &str) -> Option<Option<&'a str>> {
        match self.get(key) {
            None => Some(None),
            Some(value) => value.as_str().map(Some),
        }
    }

    /// A required string.
    pub(super) fn str(&self, key: &str) -> Option<&'a str> {
        self.opt_str(key)?
    }

    /// An optional string that is not blank; a blank one counts as omitted.
    pub(super) fn opt_name(&self, key: &str) -> Option<Option<&'a str>> {
        Some(self.opt_str(key)?.filter(|s| !s.trim().is_empty()))
    }

    /// A required string that is not blank (a path or a pattern).
    pub(super) fn name(&self, key: &str) -> Option<&'a str> {
        self.opt_name(key)?
    }

    /// An optional non-negative integer, given as a JSON number (integral floats count) or as
    /// a base-10 string such as `"2"`.
    pub(super) fn opt_u32(&self, key: &str) -> Option<Option<u32>> {
        match self.get(key) {
            None => Some(None),
            Some(Value::String(s)) => base10(s).map(Some),
            Some(value) => u32_of(value).map(Some),
        }
    }
}

/// A base-10 string of ASCII digits (surrounding whitespace allowed) that fits a `u32`.
fn base10(s: &str) -> Option<u32> {
    let digits = s.trim();
    let all_digits = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
    all_digits.then(|| digits.parse().ok()).flatten()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn integers_come_as_numbers_or_base10_strings() {
        let value = json!({"a": 2, "b": "2", "c": 2.0, "d": " 7 ", "e": null});
        let args = Args::new(&value).expect("object");
        for key in ["a", "b", "c"] {
            assert_eq!(args.opt_u32(key), Some(Some(2)), "{key}");
        }
        assert_eq!(args.opt_u32("d"), Some(Some(7)));
        assert_eq!(args.opt_u32("e"), Some(None));
        assert_eq!(args.opt_u32("missing"), Some(None));
    }

    #[test]
    fn other_integer_spellings_are_mismatches() {
        let value = json!({"a": "-2", "b": "2.0", "c": "", "d": "+2", "e": 1.5, "f": true,
                           "g": "99999999999", "h": -1, "i": [2]});
        let args = Args::new(&value).expect("object");
        for key in ["a", "b", "c", "d", "e", "f", "g", "h", "i"] {
            assert_eq!(args.opt_u32(key), None, "{key}");
        }
    }

    #[test]
    fn strings_distinguish_omitted_blank_and_mismatched() {
        let value = json!({"a": "x", "b": " ", "c": 1, "d": null});
        let args = Args::new(&value).expect("object");
        assert_eq!(args.str("a"), Some("x"));
        assert_eq!(args.str("b"), Some(" "));
        assert_eq!(args.name("b"), None);
        assert_eq!(args.opt_name("b"), Some(None));
        assert_eq!(args.opt_str("c"), None);
        assert_eq!(args.opt_str("d"), Some(None));
        assert_eq!(args.str("d"), None);
        assert_eq!(args.get("d"), None);
    }

    #[test]
    fn only_objects_are_arguments() {
        assert!(Args::new(&json!([])).is_none());
        assert!(Args::new(&json!("{}")).is_none());
    }
}
