//! The language registry: which tree-sitter grammar a file is parsed with.

use std::fmt;

pub use crate::registry::LanguageId;
use crate::registry::{LanguageSpec, TABLE};

impl LanguageId {
    /// The language's row of the registry: everything hashline knows about it.
    pub fn spec(self) -> &'static LanguageSpec {
        // TABLE is generated in the order of the enum's variants.
        &TABLE[self as usize]
    }

    /// The language's registry name (`rust`, `c`, `cpp`, …): the name `ast_search`'s `lang`
    /// takes.
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// The name people write: `Rust`, `C++`, `TypeScript`, …
    pub fn display_name(self) -> &'static str {
        self.spec().display_name
    }

    /// The lower-case file extensions (without the dot) that select this language.
    pub fn extensions(self) -> &'static [&'static str] {
        self.spec().extensions
    }

    /// The language of `path`: from its whole file name (`Gemfile`), else from its last
    /// extension (case-insensitive), or `None`.
    ///
    /// The extension is taken like `hashline_view::lang_from_path` takes it: after the last
    /// `/` or `\` and the last `.` of that name; dotfiles, names without a dot and trailing
    /// dots have none.
    ///
    /// ```
    /// use hashline_syntax::LanguageId;
    ///
    /// assert_eq!(LanguageId::from_path("src/main.RS"), Some(LanguageId::Rust));
    /// assert_eq!(LanguageId::from_path("include/vec.h"), Some(LanguageId::Cpp));
    /// assert_eq!(LanguageId::from_path("notes.txt"), None);
    /// ```
    pub fn from_path(path: &str) -> Option<LanguageId> {
        let base = path.rsplit(['/', '\\']).next().unwrap_or(path);
        if let Some(spec) = TABLE.iter().find(|spec| spec.file_names.contains(&base)) {
            return Some(spec.id);
        }
        let ext = extension(base)?.to_ascii_lowercase();
        TABLE.iter().find(|spec| spec.extensions.contains(&ext.as_str())).map(|spec| spec.id)
    }

    /// The language named `name` (case-insensitive): its [`name`](Self::name), its display
    /// name, or one of its aliases (`rs`, `c++`, `py`, `js`, `jsx`, `ts`, `golang`, …).
    pub fn from_name(name: &str) -> Option<LanguageId> {
        let name = name.trim().to_ascii_lowercase();
        TABLE
            .iter()
            .find(|spec| {
                spec.name == name || spec.display_name.to_lowercase() == name || spec.aliases.contains(&name.as_str())
            })
            .map(|spec| spec.id)
    }

    /// The tree-sitter grammar of this language (to build a parser, a query, or an
    /// `ast-grep-core` `Language` over the same grammar).
    pub fn ts_language(self) -> tree_sitter::Language {
        self.spec().ts_language()
    }

    /// The registry names, comma-separated in table order (`rust, c, cpp, …`), as error
    /// messages and tool descriptions list them.
    pub fn name_list() -> String {
        TABLE.iter().map(|spec| spec.name).collect::<Vec<_>>().join(", ")
    }
}

impl fmt::Display for LanguageId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.display_name())
    }
}

/// The last extension of a path's file name, as written, or `None`.
fn extension(base: &str) -> Option<&str> {
    match base.rfind('.') {
        Some(dot) if dot > 0 && dot + 1 < base.len() => Some(&base[dot + 1..]),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_extension_selects_its_language() {
        for &lang in LanguageId::ALL {
            for ext in lang.extensions() {
                assert_eq!(LanguageId::from_path(&format!("dir/f.{ext}")), Some(lang), "{ext}");
                assert_eq!(LanguageId::from_path(&format!("F.{}", ext.to_uppercase())), Some(lang), "{ext}");
            }
        }
    }

    #[test]
    fn no_extension_is_claimed_twice() {
        let mut all: Vec<&str> = LanguageId::ALL.iter().flat_map(|l| l.extensions().iter().copied()).collect();
        let count = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), count);
    }

    #[test]
    fn dotfiles_trailing_dots_and_inner_extensions_have_no_language() {
        for path in [".rs", "dir/.go", "main.", "a.rs.bak", "/dir.rs/plain", "", "dir/"] {
            assert_eq!(LanguageId::from_path(path), None, "{path}");
        }
        assert_eq!(LanguageId::from_path(r"C:\src\lib.rs"), Some(LanguageId::Rust));
    }

    #[test]
    fn names_and_aliases_round_trip() {
        for &lang in LanguageId::ALL {
            assert_eq!(LanguageId::from_name(lang.name()), Some(lang));
            assert_eq!(LanguageId::from_name(&lang.display_name().to_uppercase()), Some(lang));
        }
        assert_eq!(LanguageId::from_name("c++"), Some(LanguageId::Cpp));
        assert_eq!(LanguageId::from_name("ts"), Some(LanguageId::TypeScript));
        assert_eq!(LanguageId::from_name("cobol"), None);
    }

    #[test]
    fn every_row_is_its_own_language() {
        for &lang in LanguageId::ALL {
            assert_eq!(lang.spec().id, lang);
            assert_eq!(
                LanguageId::from_path(&format!("x.{}", lang.extensions()[0])).map(|l| l.spec().symbols.query),
                Some(lang.spec().symbols.query)
            );
        }
    }

    #[test]
    fn every_grammar_loads_into_a_parser() {
        for &lang in LanguageId::ALL {
            let mut parser = tree_sitter::Parser::new();
            assert!(parser.set_language(&lang.ts_language()).is_ok(), "{lang}");
        }
    }
}
