//! The kinds of symbols (SPEC §6.2).

use std::fmt;

use serde::Serialize;

/// What a symbol is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SymbolKind {
    /// A class (also a Java record).
    Class,
    /// A struct or union.
    Struct,
    /// An enum.
    Enum,
    /// An interface (also a Java annotation type).
    Interface,
    /// A Rust trait.
    Trait,
    /// A type alias or typedef.
    Type,
    /// A free function.
    Function,
    /// A function inside a class, struct, impl, trait or interface (or a Go method).
    Method,
    /// A constant.
    Constant,
    /// A variable, field, or data key.
    Variable,
    /// A module (also a TOML table).
    Module,
    /// A namespace.
    Namespace,
    /// A Rust `impl` block.
    Impl,
    /// A macro.
    Macro,
    /// A Markdown heading.
    Heading,
    /// A CSS rule: a rule set named by its selectors, or an at-rule (`@media …`,
    /// `@keyframes …`, `@font-face`) named by its keyword and prelude.
    Rule,
    /// An HTML element worth finding: one with an `id` (named `tag#id`) or a landmark
    /// (`header`, `main`, `form`, `script`, …, named by its tag).
    Element,
}

impl SymbolKind {
    /// The lower-case name (`class`, `function`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            SymbolKind::Class => "class",
            SymbolKind::Struct => "struct",
            SymbolKind::Enum => "enum",
            SymbolKind::Interface => "interface",
            SymbolKind::Trait => "trait",
            SymbolKind::Type => "type",
            SymbolKind::Function => "function",
            SymbolKind::Method => "method",
            SymbolKind::Constant => "constant",
            SymbolKind::Variable => "variable",
            SymbolKind::Module => "module",
            SymbolKind::Namespace => "namespace",
            SymbolKind::Impl => "impl",
            SymbolKind::Macro => "macro",
            SymbolKind::Heading => "heading",
            SymbolKind::Rule => "rule",
            SymbolKind::Element => "element",
        }
    }

    /// The kind named `name` (as in a query capture `@definition.<name>`).
    pub fn from_name(name: &str) -> Option<SymbolKind> {
        Some(match name {
            "class" => SymbolKind::Class,
            "struct" => SymbolKind::Struct,
            "enum" => SymbolKind::Enum,
            "interface" => SymbolKind::Interface,
            "trait" => SymbolKind::Trait,
            "type" => SymbolKind::Type,
            "function" => SymbolKind::Function,
            "method" => SymbolKind::Method,
            "constant" => SymbolKind::Constant,
            "variable" => SymbolKind::Variable,
            "module" => SymbolKind::Module,
            "namespace" => SymbolKind::Namespace,
            "impl" => SymbolKind::Impl,
            "macro" => SymbolKind::Macro,
            "heading" => SymbolKind::Heading,
            "rule" => SymbolKind::Rule,
            "element" => SymbolKind::Element,
            _ => return None,
        })
    }

    /// Whether symbols of this kind hold other symbols whose functions are methods.
    pub fn holds_methods(self) -> bool {
        matches!(
            self,
            SymbolKind::Class | SymbolKind::Struct | SymbolKind::Interface | SymbolKind::Trait | SymbolKind::Impl
        )
    }

    /// Whether this kind is a container (left out of local bundles): class, module, namespace,
    /// impl, trait, interface.
    pub fn is_container(self) -> bool {
        matches!(
            self,
            SymbolKind::Class
                | SymbolKind::Module
                | SymbolKind::Namespace
                | SymbolKind::Impl
                | SymbolKind::Trait
                | SymbolKind::Interface
        )
    }

    /// Whether the map shows this kind as `KIND NAME` (types) rather than by name.
    pub fn is_type_like(self) -> bool {
        matches!(
            self,
            SymbolKind::Class
                | SymbolKind::Struct
                | SymbolKind::Enum
                | SymbolKind::Interface
                | SymbolKind::Trait
                | SymbolKind::Type
                | SymbolKind::Module
                | SymbolKind::Namespace
                | SymbolKind::Impl
                | SymbolKind::Macro
        )
    }
}

impl fmt::Display for SymbolKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
