//! Per-language knowledge: the symbol query (a `.scm` file) and the few node kinds the
//! extractor needs to know by name.

use std::sync::OnceLock;

use hashline_syntax::LanguageId;
use hashline_syntax::tree_sitter::Query;

/// What the extractor knows about one language.
pub(crate) struct LangRules {
    /// The symbol query: `@name`, `@definition.<kind>`, optional `@receiver`, `@import`.
    pub source: &'static str,
    /// Sibling nodes before a declaration that belong to it (comments, attributes,
    /// decorators) when nothing but line breaks separates them.
    pub leading: &'static [&'static str],
    /// Parent nodes that wrap one declaration and belong to it (`export`, decorators,
    /// templates, a one-spec `const (...)`).
    pub wrappers: &'static [&'static str],
    /// Comment node kinds (for doc text).
    pub comments: &'static [&'static str],
}

pub(crate) fn rules(lang: LanguageId) -> &'static LangRules {
    const C_COMMENTS: &[&str] = &["comment"];
    match lang {
        LanguageId::Rust => &LangRules {
            source: include_str!("../queries/rust.scm"),
            leading: &["line_comment", "block_comment", "attribute_item"],
            wrappers: &[],
            comments: &["line_comment", "block_comment"],
        },
        LanguageId::C => &LangRules {
            source: concat!(include_str!("../queries/c.scm"), include_str!("../queries/c_family.scm")),
            leading: C_COMMENTS,
            wrappers: &["field_declaration"],
            comments: C_COMMENTS,
        },
        LanguageId::Cpp => &LangRules {
            source: concat!(include_str!("../queries/cpp.scm"), include_str!("../queries/c_family.scm")),
            leading: C_COMMENTS,
            wrappers: &["template_declaration", "friend_declaration", "field_declaration"],
            comments: C_COMMENTS,
        },
        LanguageId::Python => &LangRules {
            source: include_str!("../queries/python.scm"),
            leading: &["comment"],
            wrappers: &["decorated_definition"],
            comments: &["comment"],
        },
        LanguageId::JavaScript => &LangRules {
            source: include_str!("../queries/javascript.scm"),
            leading: &["comment", "decorator"],
            wrappers: &["export_statement"],
            comments: &["comment"],
        },
        LanguageId::TypeScript | LanguageId::Tsx => &LangRules {
            source: include_str!("../queries/typescript.scm"),
            leading: &["comment", "decorator"],
            wrappers: &["export_statement", "ambient_declaration"],
            comments: &["comment"],
        },
        LanguageId::Java => &LangRules {
            source: include_str!("../queries/java.scm"),
            leading: &["line_comment", "block_comment"],
            wrappers: &[],
            comments: &["line_comment", "block_comment"],
        },
        LanguageId::Go => &LangRules {
            source: include_str!("../queries/go.scm"),
            leading: &["comment"],
            wrappers: &["const_declaration", "var_declaration", "var_spec_list", "type_declaration"],
            comments: &["comment"],
        },
    }
}

/// The compiled query of a language, built once per process.
pub(crate) fn query(lang: LanguageId) -> &'static Query {
    static QUERIES: [OnceLock<Query>; 9] = [const { OnceLock::new() }; 9];
    let index = LanguageId::ALL.iter().position(|&l| l == lang).unwrap_or(0);
    QUERIES[index].get_or_init(|| {
        // The queries ship with the crate and are tested against every grammar: a failure
        // here is a build defect, never a property of a user's file.
        Query::new(&lang.ts_language(), rules(lang).source)
            .unwrap_or_else(|err| panic!("the {lang} symbol query does not compile: {err}"))
    })
}

/// Which node kinds (indexed by kind id) can start a match of the language's query: the
/// root node of each of its patterns. `None` when some pattern's root is not a plain node
/// kind (a wildcard or an alternation), so the query must run everywhere.
pub(crate) fn pattern_roots(lang: LanguageId) -> Option<&'static [bool]> {
    static ROOTS: [OnceLock<Option<Vec<bool>>>; 9] = [const { OnceLock::new() }; 9];
    let index = LanguageId::ALL.iter().position(|&l| l == lang).unwrap_or(0);
    ROOTS[index]
        .get_or_init(|| {
            let query = query(lang);
            let source = rules(lang).source;
            let mut kinds = std::collections::HashSet::new();
            for pattern in 0..query.pattern_count() {
                let rest = source.get(query.start_byte_for_pattern(pattern)..)?.trim_start().strip_prefix('(')?;
                let kind: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                if kind.is_empty() || kind == "_" {
                    return None;
                }
                kinds.insert(kind);
            }
            let grammar = lang.ts_language();
            let ids = u16::try_from(grammar.node_kind_count()).ok()?;
            Some(
                (0..ids)
                    .map(|id| {
                        grammar.node_kind_is_named(id)
                            && grammar.node_kind_for_id(id).is_some_and(|k| kinds.contains(k))
                    })
                    .collect(),
            )
        })
        .as_deref()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_query_compiles_against_its_grammar() {
        for lang in LanguageId::ALL {
            let query = Query::new(&lang.ts_language(), rules(lang).source);
            assert!(query.is_ok(), "{lang}: {:?}", query.err());
        }
    }

    #[test]
    fn every_query_has_plain_pattern_roots() {
        for lang in LanguageId::ALL {
            let roots = pattern_roots(lang).unwrap_or_else(|| panic!("{lang}: a pattern root is not a node kind"));
            assert!(roots.iter().filter(|&&r| r).count() >= 5, "{lang}");
        }
    }
}
