//! The language table: one row per language, everything hashline knows about it as data.
//!
//! Each row names the language's folder under `languages/` (its symbol query, `symbols.scm`,
//! and the acceptance sample every capability is tested on) and says what the code of the
//! crates around it needs: extensions, names, the grammar, the metavariable character of
//! structural patterns, and which nodes belong to a declaration (comments, attributes,
//! decorators, wrappers). Adding a language is one folder and one row (`docs/architecture.md`).


/// What hashline knows about one language: one row of the registry.
#[derive(Debug)]
pub struct LanguageSpec {
    /// The language.
    pub id: LanguageId,
    /// The registry name (`rust`, `c-sharp`, …): what `ast_search`'s `lang` takes, and the
    /// folder under `languages/` that holds the language's queries and acceptance sample.
    pub name: &'static str,
    /// The name people write (`Rust`, `C#`, …).
    pub display_name: &'static str,
    /// Lower-case file extensions without the dot.
    pub extensions: &'static [&'static str],
    /// Whole file names (case-sensitive) that select the language without an extension
    /// (`Gemfile`, `Rakefile`).
    pub file_names: &'static [&'static str],
    /// Other names accepted for the language (lower-case): `rs`, `c++`, `py`, …
    pub aliases: &'static [&'static str],
    /// The grammar.
    pub(crate) grammar: fn() -> tree_sitter::Language,
    /// The character a structural pattern's `$` metavariables are written with while the
    /// pattern is parsed: grammars whose identifiers cannot hold `$` get another identifier
    /// character.
    pub metavariable: char,
    /// Languages a structural search for this one also covers, each with its own grammar
    /// (TypeScript covers TSX).
    pub also_searches: &'static [LanguageId],
    /// How symbols are found and what belongs to them.
    pub symbols: SymbolRules,
}

/// A language's symbol knowledge: its query and the node kinds that belong to a declaration.
#[derive(Debug)]
pub struct SymbolRules {
    /// The symbol query (tree-sitter query syntax): `@name`, `@definition.<kind>`, optional
    /// `@receiver`, `@import`.
    pub query: &'static str,
    /// Sibling nodes before a declaration that belong to it (comments, attributes,
    /// decorators, annotations) when nothing but line breaks separates them.
    pub leading: &'static [&'static str],
    /// Parent nodes that wrap one declaration and belong to it (`export`, decorators,
    /// templates, a one-spec `const (...)`).
    pub wrappers: &'static [&'static str],
    /// Comment node kinds (their text is a declaration's doc).
    pub comments: &'static [&'static str],
    /// Whether a string literal opening a declaration's body is its doc (Python's docstrings).
    pub body_docstrings: bool,
}

impl LanguageSpec {
    /// The tree-sitter grammar.
    pub fn ts_language(&self) -> tree_sitter::Language {
        (self.grammar)()
    }
}

/// The registry: the `LanguageId` enum and its table, from one list of rows.
macro_rules! registry {
    ($(
        $(#[doc = $doc:literal])*
        $variant:ident {
            name: $name:literal,
            display: $display:literal,
            extensions: [$($ext:literal),* $(,)?],
            $(file_names: [$($file:literal),* $(,)?],)?
            aliases: [$($alias:literal),* $(,)?],
            grammar: $grammar:expr,
            metavariable: $meta:literal,
            $(also_searches: [$($also:ident),* $(,)?],)?
            queries: [$($query:literal),+ $(,)?],
            leading: [$($leading:literal),* $(,)?],
            wrappers: [$($wrapper:literal),* $(,)?],
            comments: [$($comment:literal),* $(,)?],
            $(body_docstrings: $docstrings:literal,)?
        }
    ),+ $(,)?) => {
        /// A language hashline parses with tree-sitter: one row of the registry
        /// ([`LanguageId::spec`]).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum LanguageId {
            $($(#[doc = $doc])* $variant,)+
        }

        impl LanguageId {
            /// Every language of the registry, in table order.
            pub const ALL: &'static [LanguageId] = &[$(LanguageId::$variant),+];
        }

        /// The rows, in the order of [`LanguageId::ALL`].
        pub(crate) static TABLE: &[LanguageSpec] = &[$(
            LanguageSpec {
                id: LanguageId::$variant,
                name: $name,
                display_name: $display,
                extensions: &[$($ext),*],
                file_names: &[$($($file),*)?],
                aliases: &[$($alias),*],
                grammar: || $grammar.into(),
                metavariable: $meta,
                also_searches: &[$($(LanguageId::$also),*)?],
                symbols: SymbolRules {
                    query: concat!($(include_str!(concat!("../languages/", $query))),+),
                    leading: &[$($leading),*],
                    wrappers: &[$($wrapper),*],
                    comments: &[$($comment),*],
                    body_docstrings: false $(|| $docstrings)?,
                },
            },
        )+];
    };
}

registry! {
    /// Rust (`.rs`).
    Rust {
        name: "rust",
        display: "Rust",
        extensions: ["rs"],
        aliases: ["rs"],
        grammar: tree_sitter_rust::LANGUAGE,
        metavariable: 'µ',
        queries: ["rust/symbols.scm"],
        leading: ["line_comment", "block_comment", "attribute_item"],
        wrappers: [],
        comments: ["line_comment", "block_comment"],
    },
    /// C (`.c`).
    C {
        name: "c",
        display: "C",
        extensions: ["c"],
        aliases: [],
        grammar: tree_sitter_c::LANGUAGE,
        metavariable: '\u{10000}',
        queries: ["c/symbols.scm", "shared/c_family.scm"],
        leading: ["comment"],
        wrappers: ["field_declaration"],
        comments: ["comment"],
    },
    /// C++ (`.cc .cpp .cxx .hpp .hxx .hh .h`): the C++ grammar parses C headers too, and C++
    /// headers are common under `.h`.
    Cpp {
        name: "cpp",
        display: "C++",
        extensions: ["cc", "cpp", "cxx", "hpp", "hxx", "hh", "h"],
        aliases: ["c++", "cxx", "cc"],
        grammar: tree_sitter_cpp::LANGUAGE,
        metavariable: '\u{10000}',
        queries: ["cpp/symbols.scm", "shared/c_family.scm"],
        leading: ["comment"],
        wrappers: ["template_declaration", "friend_declaration", "field_declaration"],
        comments: ["comment"],
    },
    /// Python (`.py .pyw .pyi`).
    Python {
        name: "python",
        display: "Python",
        extensions: ["py", "pyw", "pyi"],
        aliases: ["py"],
        grammar: tree_sitter_python::LANGUAGE,
        metavariable: 'µ',
        queries: ["python/symbols.scm"],
        leading: ["comment"],
        wrappers: ["decorated_definition"],
        comments: ["comment"],
        body_docstrings: true,
    },
    /// JavaScript with JSX (`.js .jsx .mjs .cjs`).
    JavaScript {
        name: "javascript",
        display: "JavaScript",
        extensions: ["js", "jsx", "mjs", "cjs"],
        aliases: ["js", "jsx"],
        grammar: tree_sitter_javascript::LANGUAGE,
        metavariable: '$',
        queries: ["javascript/symbols.scm"],
        leading: ["comment", "decorator"],
        wrappers: ["export_statement"],
        comments: ["comment"],
    },
    /// TypeScript (`.ts .mts .cts`).
    TypeScript {
        name: "typescript",
        display: "TypeScript",
        extensions: ["ts", "mts", "cts"],
        aliases: ["ts"],
        grammar: tree_sitter_typescript::LANGUAGE_TYPESCRIPT,
        metavariable: '$',
        also_searches: [Tsx],
        queries: ["typescript/symbols.scm"],
        leading: ["comment", "decorator"],
        wrappers: ["export_statement", "ambient_declaration"],
        comments: ["comment"],
    },
    /// TypeScript with JSX (`.tsx`): its own grammar, TypeScript's symbol query.
    Tsx {
        name: "tsx",
        display: "TSX",
        extensions: ["tsx"],
        aliases: [],
        grammar: tree_sitter_typescript::LANGUAGE_TSX,
        metavariable: '$',
        queries: ["typescript/symbols.scm"],
        leading: ["comment", "decorator"],
        wrappers: ["export_statement", "ambient_declaration"],
        comments: ["comment"],
    },
    /// Java (`.java`).
    Java {
        name: "java",
        display: "Java",
        extensions: ["java"],
        aliases: [],
        grammar: tree_sitter_java::LANGUAGE,
        metavariable: '$',
        queries: ["java/symbols.scm"],
        leading: ["line_comment", "block_comment"],
        wrappers: [],
        comments: ["line_comment", "block_comment"],
    },
    /// Go (`.go`).
    Go {
        name: "go",
        display: "Go",
        extensions: ["go"],
        aliases: ["golang"],
        grammar: tree_sitter_go::LANGUAGE,
        metavariable: 'µ',
        queries: ["go/symbols.scm"],
        leading: ["comment"],
        wrappers: ["const_declaration", "var_declaration", "var_spec_list", "type_declaration"],
        comments: ["comment"],
    },
    // Rows of group A (C#, Kotlin, Scala, Dart, Swift, Solidity) go here.
    // Rows of group B (Ruby, PHP, Lua, Bash, Elixir, Zig) go here.
    // Rows of group C (Haskell, OCaml, Nix, HCL, HTML, CSS) go here.
    /// HCL (`.hcl .tf .tfvars`): blocks by type and labels, `locals` entries, variables and
    /// outputs; module sources are the imports.
    Hcl {
        name: "hcl",
        display: "HCL",
        extensions: ["hcl", "tf", "tfvars"],
        aliases: ["terraform", "tf"],
        grammar: tree_sitter_hcl::LANGUAGE,
        metavariable: 'µ',
        queries: ["hcl/symbols.scm"],
        leading: ["comment"],
        wrappers: [],
        comments: ["comment"],
    },
    /// HTML (`.html .htm`): the map lists elements with an `id` (`section#pricing`) and landmark
    /// elements (`header`, `main`, `form`, `template`, `script`, `style`, …), `<script src>` and
    /// `<link href>` as imports. `<script>` and `<style>` are not parsed as JavaScript or CSS
    /// here: they are elements of the map, and the syntax check covers the HTML around them.
    Html {
        name: "html",
        display: "HTML",
        extensions: ["html", "htm"],
        aliases: ["htm"],
        grammar: tree_sitter_html::LANGUAGE,
        metavariable: 'µ',
        queries: ["html/symbols.scm"],
        leading: ["comment"],
        wrappers: [],
        comments: ["comment"],
    },
    /// CSS (`.css`): rules (rule sets by their selectors, at-rules by keyword and prelude)
    /// and custom properties.
    Css {
        name: "css",
        display: "CSS",
        extensions: ["css"],
        aliases: [],
        grammar: tree_sitter_css::LANGUAGE,
        metavariable: 'µ',
        queries: ["css/symbols.scm"],
        leading: ["comment"],
        wrappers: [],
        comments: ["comment"],
    },
}
