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
    /// The grammar's `node-types.json`: which node kinds each kind may hold (the symbol
    /// extractor does not walk into kinds that cannot hold a declaration).
    pub node_types: &'static str,
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
    /// Body nodes that start at their first statement and leave the comments before it
    /// outside (Ruby's `body_statement`): the declaration opening such a body takes the
    /// leading comments before the body.
    pub bodies: &'static [&'static str],
    /// Leading sibling kinds that are part of the declaration itself, not of its preamble
    /// (Haskell's type signature above an equation): the declaration starts at the first
    /// of them, so `replace_symbol` replaces it along with the body and keeps only the docs.
    pub heads: &'static [&'static str],
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
            node_types: $node_types:expr,
            metavariable: $meta:literal,
            $(also_searches: [$($also:ident),* $(,)?],)?
            queries: [$($query:literal),+ $(,)?],
            leading: [$($leading:literal),* $(,)?],
            wrappers: [$($wrapper:literal),* $(,)?],
            comments: [$($comment:literal),* $(,)?],
            $(body_docstrings: $docstrings:literal,)?
            $(bodies: [$($body:literal),* $(,)?],)?
            $(heads: [$($head:literal),* $(,)?],)?
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
                node_types: $node_types,
                metavariable: $meta,
                also_searches: &[$($(LanguageId::$also),*)?],
                symbols: SymbolRules {
                    query: concat!($(include_str!(concat!("../languages/", $query))),+),
                    leading: &[$($leading),*],
                    wrappers: &[$($wrapper),*],
                    comments: &[$($comment),*],
                    body_docstrings: false $(|| $docstrings)?,
                    bodies: &[$($($body),*)?],
                    heads: &[$($($head),*)?],
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
        node_types: tree_sitter_rust::NODE_TYPES,
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
        node_types: tree_sitter_c::NODE_TYPES,
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
        node_types: tree_sitter_cpp::NODE_TYPES,
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
        node_types: tree_sitter_python::NODE_TYPES,
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
        node_types: tree_sitter_javascript::NODE_TYPES,
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
        node_types: tree_sitter_typescript::TYPESCRIPT_NODE_TYPES,
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
        node_types: tree_sitter_typescript::TSX_NODE_TYPES,
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
        node_types: tree_sitter_java::NODE_TYPES,
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
        node_types: tree_sitter_go::NODE_TYPES,
        metavariable: 'µ',
        queries: ["go/symbols.scm"],
        leading: ["comment"],
        wrappers: ["const_declaration", "var_declaration", "var_spec_list", "type_declaration"],
        comments: ["comment"],
    },
    /// C# (`.cs .csx`): attributes are children of their declaration, `///` comments lead it.
    CSharp {
        name: "csharp",
        display: "C#",
        extensions: ["cs", "csx"],
        aliases: ["c#", "cs", "c-sharp"],
        grammar: tree_sitter_c_sharp::LANGUAGE,
        node_types: tree_sitter_c_sharp::NODE_TYPES,
        metavariable: 'µ',
        queries: ["csharp/symbols.scm"],
        leading: ["comment"],
        wrappers: [],
        comments: ["comment"],
    },
    /// Kotlin (`.kt .kts`): annotations are in a declaration's modifiers, KDoc comments lead
    /// it; an unnamed `companion object`'s members are listed as the class's own.
    Kotlin {
        name: "kotlin",
        display: "Kotlin",
        extensions: ["kt", "kts"],
        aliases: ["kt", "kts"],
        grammar: tree_sitter_kotlin_ng::LANGUAGE,
        node_types: tree_sitter_kotlin_ng::NODE_TYPES,
        metavariable: 'µ',
        queries: ["kotlin/symbols.scm"],
        leading: ["line_comment", "block_comment"],
        wrappers: [],
        comments: ["line_comment", "block_comment"],
    },
    /// Scala 2 and 3 (`.scala .sc`): annotations are children of their definition, Scaladoc
    /// comments lead it.
    Scala {
        name: "scala",
        display: "Scala",
        extensions: ["scala", "sc"],
        aliases: [],
        grammar: tree_sitter_scala::LANGUAGE,
        node_types: tree_sitter_scala::NODE_TYPES,
        metavariable: 'µ',
        queries: ["scala/symbols.scm"],
        leading: ["comment", "block_comment"],
        wrappers: [],
        comments: ["comment", "block_comment"],
    },
    /// Dart (`.dart`): a class member's `member_declaration` wraps it (its `///` comments
    /// lead it), annotations are inside it; an `extension` is listed as an impl.
    Dart {
        name: "dart",
        display: "Dart",
        extensions: ["dart"],
        aliases: [],
        grammar: tree_sitter_dart::LANGUAGE,
        node_types: tree_sitter_dart::NODE_TYPES,
        metavariable: '$',
        queries: ["dart/symbols.scm"],
        leading: ["documentation_comment", "comment"],
        wrappers: ["member_declaration"],
        comments: ["documentation_comment", "comment"],
    },
    /// Swift (`.swift`): attributes are in a declaration's modifiers, `///` comments lead
    /// it; an `extension` is listed as an impl of the type it extends.
    Swift {
        name: "swift",
        display: "Swift",
        extensions: ["swift"],
        aliases: [],
        grammar: tree_sitter_swift::LANGUAGE,
        node_types: tree_sitter_swift::NODE_TYPES,
        metavariable: 'µ',
        queries: ["swift/symbols.scm"],
        leading: ["comment", "multiline_comment"],
        wrappers: [],
        comments: ["comment", "multiline_comment"],
    },
    /// Solidity (`.sol`): NatSpec comments lead a declaration; events and custom errors are
    /// listed as types.
    Solidity {
        name: "solidity",
        display: "Solidity",
        extensions: ["sol"],
        aliases: ["sol"],
        grammar: tree_sitter_solidity::LANGUAGE,
        node_types: tree_sitter_solidity::NODE_TYPES,
        metavariable: '$',
        queries: ["solidity/symbols.scm"],
        leading: ["comment"],
        wrappers: [],
        comments: ["comment"],
    },
    /// Ruby (`.rb .rbw .rake .gemspec .ru`, `Gemfile`, `Rakefile`, …). A `def` in a class,
    /// module or block is a method, a top-level one a function; `private def …` and other
    /// calls taking a `def` belong to it.
    Ruby {
        name: "ruby",
        display: "Ruby",
        extensions: ["rb", "rbw", "rake", "gemspec", "ru"],
        file_names: ["Gemfile", "Rakefile", "Guardfile", "Vagrantfile", "Podfile", "Brewfile", "Capfile"],
        aliases: ["rb"],
        grammar: tree_sitter_ruby::LANGUAGE,
        node_types: tree_sitter_ruby::NODE_TYPES,
        metavariable: 'µ',
        queries: ["ruby/symbols.scm"],
        leading: ["comment"],
        wrappers: ["argument_list", "call"],
        comments: ["comment"],
        bodies: ["body_statement"],
    },
    /// PHP (`.php`), with the PHP-only grammar: a file is PHP from its optional `<?php` on
    /// (as class files are), and a pattern parses without one. Inline HTML after a `?>`
    /// (templates) is a syntax error to it, so `.phtml` templates are not claimed.
    Php {
        name: "php",
        display: "PHP",
        extensions: ["php"],
        aliases: [],
        grammar: tree_sitter_php::LANGUAGE_PHP_ONLY,
        node_types: tree_sitter_php::PHP_ONLY_NODE_TYPES,
        metavariable: 'µ',
        queries: ["php/symbols.scm"],
        leading: ["comment"],
        wrappers: [],
        comments: ["comment"],
    },
    /// Lua (`.lua`, `.rockspec`). `function T:m()` and `function T.f()` are T's.
    Lua {
        name: "lua",
        display: "Lua",
        extensions: ["lua", "rockspec"],
        aliases: [],
        grammar: tree_sitter_lua::LANGUAGE,
        node_types: tree_sitter_lua::NODE_TYPES,
        metavariable: '$',
        queries: ["lua/symbols.scm"],
        leading: ["comment"],
        wrappers: [],
        comments: ["comment"],
    },
    /// Bash and POSIX shell (`.sh .bash`, `.bashrc`, `PKGBUILD`, …). `.zsh` stays with the
    /// shell line scanner of `hashline-symbols` (zsh's own syntax is not bash's).
    Bash {
        name: "bash",
        display: "Bash",
        extensions: ["sh", "bash"],
        file_names: [".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", "PKGBUILD", "APKBUILD"],
        aliases: ["sh", "shell"],
        grammar: tree_sitter_bash::LANGUAGE,
        node_types: tree_sitter_bash::NODE_TYPES,
        metavariable: 'µ',
        queries: ["bash/symbols.scm"],
        leading: ["comment"],
        wrappers: [],
        comments: ["comment"],
    },
    /// Elixir (`.ex .exs`): `defmodule`, `def` and the other declaring calls;
    /// the `@doc`, `@spec` and other attributes before a declaration belong to it.
    Elixir {
        name: "elixir",
        display: "Elixir",
        extensions: ["ex", "exs"],
        aliases: ["ex", "exs"],
        grammar: tree_sitter_elixir::LANGUAGE,
        node_types: tree_sitter_elixir::NODE_TYPES,
        metavariable: 'µ',
        queries: ["elixir/symbols.scm"],
        leading: ["comment", "unary_operator"],
        wrappers: [],
        comments: ["comment"],
    },
    /// Zig (`.zig`): containers (`const Name = struct {…}`), their functions as methods,
    /// `test "…"` blocks as functions. Zig identifiers are ASCII only, so a pattern's `$X`
    /// is parsed as `_X` (a literal `_X` in a pattern is a metavariable too).
    Zig {
        name: "zig",
        display: "Zig",
        extensions: ["zig"],
        aliases: [],
        grammar: tree_sitter_zig::LANGUAGE,
        node_types: tree_sitter_zig::NODE_TYPES,
        metavariable: '_',
        queries: ["zig/symbols.scm"],
        leading: ["comment"],
        wrappers: [],
        comments: ["comment"],
    },
    /// Haskell (`.hs`): the module, types, classes, instances and functions;
    /// each equation of a function is a declaration, the first with its signature and
    /// Haddock comment.
    Haskell {
        name: "haskell",
        display: "Haskell",
        extensions: ["hs"],
        aliases: ["hs"],
        grammar: tree_sitter_haskell::LANGUAGE,
        node_types: tree_sitter_haskell::NODE_TYPES,
        metavariable: 'µ',
        queries: ["haskell/symbols.scm"],
        leading: ["haddock", "comment", "signature", "pragma"],
        wrappers: [],
        comments: ["haddock", "comment"],
        bodies: ["declarations", "class_declarations", "instance_declarations", "local_binds"],
        heads: ["signature"],
    },
    /// HCL (`.hcl .tf .tfvars`): blocks by type and labels, `locals` entries, variables and
    /// outputs; module sources are the imports.
    Hcl {
        name: "hcl",
        display: "HCL",
        extensions: ["hcl", "tf", "tfvars"],
        aliases: ["terraform", "tf"],
        grammar: tree_sitter_hcl::LANGUAGE,
        node_types: tree_sitter_hcl::NODE_TYPES,
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
        node_types: tree_sitter_html::NODE_TYPES,
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
        node_types: tree_sitter_css::NODE_TYPES,
        metavariable: 'µ',
        queries: ["css/symbols.scm"],
        leading: ["comment"],
        wrappers: [],
        comments: ["comment"],
    },
}
