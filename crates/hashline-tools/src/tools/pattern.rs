//! The name patterns of `ls` and `find`: globs, and `find`'s regexes. Both are bounded in
//! size and compiled through calls that report failure as a value, so no pattern can
//! panic or build an unbounded matcher; every failure is `invalid-pattern`.

use std::ffi::OsStr;

use globset::GlobBuilder;
use regex::{Regex, RegexBuilder};

use crate::error::{ErrorCode, ToolError};
use crate::tools::ls::quoted;

/// The longest glob or regex a tool compiles, in bytes (a file name is at most 255).
pub const MAX_PATTERN_BYTES: usize = 4096;

/// The most memory one compiled matcher may take (the regex crate's own default).
const MATCHER_SIZE_LIMIT: usize = 10 * (1 << 20);

/// A compiled glob matched against one entry name (its bytes: raw on Unix, UTF-8 for
/// any name that is valid Unicode on Windows).
#[derive(Clone, Debug)]
pub struct NameGlob(regex::bytes::Regex);

impl NameGlob {
    /// Whether the name matches.
    pub fn is_match(&self, name: &OsStr) -> bool {
        self.0.is_match(name.as_encoded_bytes())
    }
}

/// Compiles a glob matched against one entry name: balance-checked first, `*` matches
/// dotfiles, case-sensitive, `{a,b}` alternatives, `\` escapes.
///
/// globset parses the glob into its regex; the regex is compiled here with a size limit
/// (globset's own `compile_matcher` panics when the regex is too big).
pub fn name_glob(glob: &str) -> Result<NameGlob, ToolError> {
    if glob.len() > MAX_PATTERN_BYTES {
        return Err(invalid_pattern(format!(
            "Invalid glob: the pattern is {} bytes long; the limit is {MAX_PATTERN_BYTES} bytes.",
            glob.len()
        )));
    }
    let invalid = |why: &str| invalid_pattern(format!("Invalid glob {}: {why}", quoted(glob)));
    if let Some(why) = glob_balance_error(glob) {
        return Err(invalid(why));
    }
    let parsed = GlobBuilder::new(glob)
        .literal_separator(true)
        .backslash_escape(true)
        .empty_alternates(true)
        .build()
        .map_err(|err| invalid(&format!("{}.", err.kind())))?;
    regex::bytes::RegexBuilder::new(parsed.regex())
        .dot_matches_new_line(true)
        .size_limit(MATCHER_SIZE_LIMIT)
        .build()
        .map(NameGlob)
        .map_err(|err| invalid(&format!("{}.", one_line(&err.to_string()))))
}

/// Compiles `find`'s regex (unanchored, searched in the lossy name).
pub fn name_regex(pattern: &str) -> Result<Regex, ToolError> {
    if pattern.len() > MAX_PATTERN_BYTES {
        return Err(invalid_pattern(format!(
            "Error: invalid regex for fields 'pattern'/'regex': the pattern is {} bytes long; the limit is {MAX_PATTERN_BYTES} bytes.",
            pattern.len()
        )));
    }
    RegexBuilder::new(pattern).size_limit(MATCHER_SIZE_LIMIT).build().map_err(|err| {
        invalid_pattern(format!("Error: invalid regex for fields 'pattern'/'regex' ({}): {err}", quoted(pattern)))
    })
}

fn invalid_pattern(message: String) -> ToolError {
    ToolError::new(ErrorCode::InvalidPattern, message)
}

/// A library message on one line.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ").trim_end_matches('.').to_owned()
}

/// Checks that a glob's `[]` and `{}` are balanced (a backslash escapes the next
/// character); returns what is wrong.
pub(crate) fn glob_balance_error(glob: &str) -> Option<&'static str> {
    let mut brackets = 0usize;
    let mut braces = 0usize;
    let mut chars = glob.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '[' => brackets += 1,
            ']' if brackets == 0 => return Some("Unmatched ']'."),
            ']' => brackets -= 1,
            '{' => braces += 1,
            '}' if braces == 0 => return Some("Unmatched '}'."),
            '}' => braces -= 1,
            _ => {}
        }
    }
    if brackets != 0 {
        Some("Unterminated character class.")
    } else if braces != 0 {
        Some("Unterminated brace expansion.")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glob_matches(glob: &str, name: &str) -> bool {
        name_glob(glob).expect("glob").is_match(OsStr::new(name))
    }

    #[test]
    fn glob_balance() {
        assert_eq!(glob_balance_error("*.rs"), None);
        assert_eq!(glob_balance_error("{a,b}[xy]*"), None);
        assert_eq!(glob_balance_error("a\\]"), None);
        assert_eq!(glob_balance_error("a]"), Some("Unmatched ']'."));
        assert_eq!(glob_balance_error("a}"), Some("Unmatched '}'."));
        assert_eq!(glob_balance_error("[abc"), Some("Unterminated character class."));
        assert_eq!(glob_balance_error("{a,b"), Some("Unterminated brace expansion."));
        assert_eq!(glob_balance_error("[a{b"), Some("Unterminated character class."));
    }

    #[test]
    fn name_glob_matches_dotfiles_and_alternatives() {
        let star = name_glob("*").expect("glob");
        assert!(star.is_match(OsStr::new(".hidden")));
        let alt = name_glob("*.{rs,toml}").expect("glob");
        assert!(
            alt.is_match(OsStr::new("lib.rs"))
                && alt.is_match(OsStr::new("Cargo.toml"))
                && !alt.is_match(OsStr::new("a.md"))
        );
        let class = name_glob("[!a]*").expect("glob");
        assert!(class.is_match(OsStr::new("b")) && !class.is_match(OsStr::new("a")));
        let err = name_glob("a]").expect_err("unbalanced");
        assert_eq!(err.code, ErrorCode::InvalidPattern);
        assert_eq!(err.message, "Invalid glob \"a]\": Unmatched ']'.");
        let bad_range = name_glob("[z-a]").expect_err("bad range");
        assert_eq!(bad_range.code, ErrorCode::InvalidPattern);
        assert!(bad_range.message.starts_with("Invalid glob \"[z-a]\": "), "{}", bad_range.message);
    }

    #[test]
    fn globs_match_names_as_globset_does() {
        assert!(glob_matches("*.rs", ".x.rs"));
        assert!(!glob_matches("*.rs", "a.rsx"));
        assert!(glob_matches("{a,}b", "b") && glob_matches("{a,}b", "ab"));
        assert!(glob_matches("[!a]x", "bx") && !glob_matches("[!a]x", "ax"));
        assert!(glob_matches("a\\*", "a*") && !glob_matches("a\\*", "ab"));
        assert!(!glob_matches("*.RS", "a.rs"));
        assert!(glob_matches("a?c", "a\nc"));
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            assert!(name_glob("*").expect("glob").is_match(OsStr::from_bytes(b"\xff.bin")));
        }
    }

    #[test]
    fn a_huge_glob_is_an_invalid_pattern_not_a_panic() {
        // 87k `*`: globset's own matcher panics on this one.
        let err = name_glob(&"*".repeat(87_000)).expect_err("too long");
        assert_eq!(err.code, ErrorCode::InvalidPattern);
        assert_eq!(err.message, "Invalid glob: the pattern is 87000 bytes long; the limit is 4096 bytes.");
        let err = name_regex(&"x".repeat(400_000)).expect_err("too long");
        assert_eq!(err.code, ErrorCode::InvalidPattern);
        // At the limit, it compiles.
        assert!(name_glob(&"*".repeat(MAX_PATTERN_BYTES)).is_ok());
    }

    #[test]
    fn a_regex_over_the_size_limit_is_an_invalid_pattern() {
        let err = name_regex("\\w{1000}\\w{1000}\\w{1000}").expect_err("too big");
        assert_eq!(err.code, ErrorCode::InvalidPattern);
        assert!(err.message.contains("size limit"), "{}", err.message);
    }
}
