//! The language registry: which tree-sitter grammar a file is parsed with.

use std::fmt;

/// A language hashline parses with tree-sitter.
///
/// The registry is this closed enum: each variant knows its grammar
/// ([`LanguageId::ts_language`]), its file extensions and its names. `.h` is C++ (the C++
/// grammar parses C headers too, and C++ headers are common under `.h`); `.jsx` is
/// JavaScript (its grammar includes JSX); `.tsx` has its own grammar.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LanguageId {
    /// Rust (`.rs`).
    Rust,
    /// C (`.c`).
    C,
    /// C++ (`.cc .cpp .cxx .hpp .hxx .hh .h`).
    Cpp,
    /// Python (`.py .pyw .pyi`).
    Python,
    /// JavaScript with JSX (`.js .jsx .mjs .cjs`).
    JavaScript,
    /// TypeScript (`.ts .mts .cts`).
    TypeScript,
    /// TypeScript with JSX (`.tsx`).
    Tsx,
    /// Java (`.java`).
    Java,
    /// Go (`.go`).
    Go,
}

impl LanguageId {
    /// Every language of the registry.
    pub const ALL: [LanguageId; 9] = [
        LanguageId::Rust,
        LanguageId::C,
        LanguageId::Cpp,
        LanguageId::Python,
        LanguageId::JavaScript,
        LanguageId::TypeScript,
        LanguageId::Tsx,
        LanguageId::Java,
        LanguageId::Go,
    ];

    /// The language's id: `rust`, `c`, `cpp`, `python`, `javascript`, `typescript`, `tsx`,
    /// `java`, `go` (the names `ast_search`'s `lang` takes).
    pub fn name(self) -> &'static str {
        match self {
            LanguageId::Rust => "rust",
            LanguageId::C => "c",
            LanguageId::Cpp => "cpp",
            LanguageId::Python => "python",
            LanguageId::JavaScript => "javascript",
            LanguageId::TypeScript => "typescript",
            LanguageId::Tsx => "tsx",
            LanguageId::Java => "java",
            LanguageId::Go => "go",
        }
    }

    /// The name people write: `Rust`, `C`, `C++`, `Python`, `JavaScript`, `TypeScript`,
    /// `TSX`, `Java`, `Go`.
    pub fn display_name(self) -> &'static str {
        match self {
            LanguageId::Rust => "Rust",
            LanguageId::C => "C",
            LanguageId::Cpp => "C++",
            LanguageId::Python => "Python",
            LanguageId::JavaScript => "JavaScript",
            LanguageId::TypeScript => "TypeScript",
            LanguageId::Tsx => "TSX",
            LanguageId::Java => "Java",
            LanguageId::Go => "Go",
        }
    }

    /// The lower-case file extensions (without the dot) that select this language.
    pub fn extensions(self) -> &'static [&'static str] {
        match self {
            LanguageId::Rust => &["rs"],
            LanguageId::C => &["c"],
            LanguageId::Cpp => &["cc", "cpp", "cxx", "hpp", "hxx", "hh", "h"],
            LanguageId::Python => &["py", "pyw", "pyi"],
            LanguageId::JavaScript => &["js", "jsx", "mjs", "cjs"],
            LanguageId::TypeScript => &["ts", "mts", "cts"],
            LanguageId::Tsx => &["tsx"],
            LanguageId::Java => &["java"],
            LanguageId::Go => &["go"],
        }
    }

    /// The language of `path`, from its last extension (case-insensitive), or `None`.
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
        let ext = extension(path)?.to_ascii_lowercase();
        LanguageId::ALL.into_iter().find(|lang| lang.extensions().contains(&ext.as_str()))
    }

    /// The language named `name` (case-insensitive): its [`name`](Self::name), its display
    /// name, or a common alias (`rs`, `c++`, `py`, `js`, `jsx`, `ts`, `golang`).
    pub fn from_name(name: &str) -> Option<LanguageId> {
        let name = name.trim().to_ascii_lowercase();
        let alias = match name.as_str() {
            "rs" => Some(LanguageId::Rust),
            "c++" | "cxx" | "cc" => Some(LanguageId::Cpp),
            "py" => Some(LanguageId::Python),
            "js" | "jsx" => Some(LanguageId::JavaScript),
            "ts" => Some(LanguageId::TypeScript),
            "golang" => Some(LanguageId::Go),
            _ => None,
        };
        alias.or_else(|| {
            LanguageId::ALL.into_iter().find(|lang| lang.name() == name || lang.display_name().to_lowercase() == name)
        })
    }

    /// The tree-sitter grammar of this language (to build a parser, a query, or an
    /// `ast-grep-core` `Language` over the same grammar).
    pub fn ts_language(self) -> tree_sitter::Language {
        match self {
            LanguageId::Rust => tree_sitter_rust::LANGUAGE.into(),
            LanguageId::C => tree_sitter_c::LANGUAGE.into(),
            LanguageId::Cpp => tree_sitter_cpp::LANGUAGE.into(),
            LanguageId::Python => tree_sitter_python::LANGUAGE.into(),
            LanguageId::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            LanguageId::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            LanguageId::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            LanguageId::Java => tree_sitter_java::LANGUAGE.into(),
            LanguageId::Go => tree_sitter_go::LANGUAGE.into(),
        }
    }
}

impl fmt::Display for LanguageId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.display_name())
    }
}

/// The last extension of a path's file name, as written, or `None`.
fn extension(path: &str) -> Option<&str> {
    let base = path.rsplit(['/', '\\']).next().unwrap_or(path);
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
        for lang in LanguageId::ALL {
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
        for lang in LanguageId::ALL {
            assert_eq!(LanguageId::from_name(lang.name()), Some(lang));
            assert_eq!(LanguageId::from_name(&lang.display_name().to_uppercase()), Some(lang));
        }
        assert_eq!(LanguageId::from_name("c++"), Some(LanguageId::Cpp));
        assert_eq!(LanguageId::from_name("ts"), Some(LanguageId::TypeScript));
        assert_eq!(LanguageId::from_name("cobol"), None);
    }

    #[test]
    fn every_grammar_loads_into_a_parser() {
        for lang in LanguageId::ALL {
            let mut parser = tree_sitter::Parser::new();
            assert!(parser.set_language(&lang.ts_language()).is_ok(), "{lang}");
        }
    }
}
