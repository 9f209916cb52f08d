//! Per-language knowledge, from the registry of `hashline-syntax` (its `languages/<name>/`
//! folders): the compiled symbol query and the node kinds that can start a match.

use std::sync::OnceLock;

use hashline_syntax::tree_sitter::Query;
use hashline_syntax::{LanguageId, SymbolRules};

/// What the extractor knows about one language: its row of the registry.
pub(crate) fn rules(lang: LanguageId) -> &'static SymbolRules {
    &lang.spec().symbols
}

/// The compiled query of a language, built once per process.
pub(crate) fn query(lang: LanguageId) -> &'static Query {
    static QUERIES: [OnceLock<Query>; LanguageId::ALL.len()] = [const { OnceLock::new() }; LanguageId::ALL.len()];
    QUERIES[lang as usize].get_or_init(|| {
        // The queries ship with the crate and are tested against every grammar: a failure
        // here is a build defect, never a property of a user's file.
        Query::new(&lang.ts_language(), rules(lang).query)
            .unwrap_or_else(|err| panic!("the {lang} symbol query does not compile: {err}"))
    })
}

/// Which node kinds (indexed by kind id) can start a match of the language's query: the
/// root node of each of its patterns. `None` when some pattern's root is not a plain node
/// kind (a wildcard or an alternation), so the query must run everywhere.
pub(crate) fn pattern_roots(lang: LanguageId) -> Option<&'static [bool]> {
    static ROOTS: [OnceLock<Option<Vec<bool>>>; LanguageId::ALL.len()] =
        [const { OnceLock::new() }; LanguageId::ALL.len()];
    ROOTS[lang as usize]
        .get_or_init(|| {
            let query = query(lang);
            let source = rules(lang).query;
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

/// Which node kinds (indexed by kind id) the extractor walks into: those that, by the
/// grammar's `node-types.json`, may hold a node of a pattern root's kind at any depth. A
/// walk that also entered the rest (a CSS declaration's values, a shell word's expansions,
/// an HTML start tag's attributes) spends most of a map's time in nodes where no pattern
/// can start. Kinds the file does not describe, `ERROR` among them, are walked into; `None`
/// (walk everywhere) when the query runs everywhere or the file does not read.
pub(crate) fn descend_into(lang: LanguageId) -> Option<&'static [bool]> {
    static DESCEND: [OnceLock<Option<Vec<bool>>>; LanguageId::ALL.len()] =
        [const { OnceLock::new() }; LanguageId::ALL.len()];
    DESCEND[lang as usize]
        .get_or_init(|| {
            let roots = pattern_roots(lang)?;
            let grammar = lang.ts_language();
            let types: Vec<NodeType> = serde_json::from_str(lang.spec().node_types).ok()?;
            let index: std::collections::HashMap<(&str, bool), usize> =
                types.iter().enumerate().map(|(i, t)| ((t.kind.as_str(), t.named), i)).collect();
            // Each described kind's possible children (a supertype's: its subtypes).
            let children: Vec<Vec<usize>> = types
                .iter()
                .map(|t| {
                    let fields = t.fields.values().flat_map(|f| &f.types);
                    let held = fields.chain(t.children.iter().flat_map(|c| &c.types)).chain(&t.subtypes);
                    held.filter_map(|c| index.get(&(c.kind.as_str(), c.named)).copied()).collect()
                })
                .collect();
            let root_kinds: std::collections::HashSet<&str> = (0..u16::try_from(roots.len()).ok()?)
                .filter(|&id| roots[usize::from(id)])
                .filter_map(|id| grammar.node_kind_for_id(id))
                .collect();
            let root: Vec<bool> = types.iter().map(|t| t.named && root_kinds.contains(t.kind.as_str())).collect();
            // Holds a root at some depth: grown to a fixed point.
            let mut holds = vec![false; types.len()];
            loop {
                let mut changed = false;
                for (i, kids) in children.iter().enumerate() {
                    if !holds[i] && kids.iter().any(|&c| root[c] || holds[c]) {
                        holds[i] = true;
                        changed = true;
                    }
                }
                if !changed {
                    break;
                }
            }
            let ids = u16::try_from(grammar.node_kind_count()).ok()?;
            Some(
                (0..ids)
                    .map(|id| {
                        let named = grammar.node_kind_is_named(id);
                        grammar
                            .node_kind_for_id(id)
                            .and_then(|kind| index.get(&(kind, named)))
                            .is_none_or(|&i| holds[i])
                    })
                    .collect(),
            )
        })
        .as_deref()
}

/// One entry of a grammar's `node-types.json`.
#[derive(serde::Deserialize)]
struct NodeType {
    #[serde(rename = "type")]
    kind: String,
    named: bool,
    #[serde(default)]
    fields: std::collections::HashMap<String, Children>,
    #[serde(default)]
    children: Option<Children>,
    #[serde(default)]
    subtypes: Vec<TypeRef>,
}

#[derive(serde::Deserialize)]
struct Children {
    types: Vec<TypeRef>,
}

#[derive(serde::Deserialize)]
struct TypeRef {
    #[serde(rename = "type")]
    kind: String,
    named: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every grammar's node types read, and the walk skips some kinds in each language (a
    /// table that entered everything would hide a file that no longer reads).
    #[test]
    fn every_language_walks_into_only_the_kinds_that_may_hold_a_declaration() {
        for &lang in LanguageId::ALL {
            let descend = descend_into(lang).unwrap_or_else(|| panic!("{lang}: node types unread"));
            assert!(descend.iter().any(|&d| !d), "{lang}: every kind is walked into");
        }
    }

    #[test]
    fn every_query_compiles_against_its_grammar() {
        for &lang in LanguageId::ALL {
            let query = Query::new(&lang.ts_language(), rules(lang).query);
            assert!(query.is_ok(), "{lang}: {:?}", query.err());
        }
    }

    #[test]
    fn every_query_has_plain_pattern_roots() {
        for &lang in LanguageId::ALL {
            let roots = pattern_roots(lang).unwrap_or_else(|| panic!("{lang}: a pattern root is not a node kind"));
            // Elixir's declarations are all calls and `@` attributes: its query starts at two
            // kinds; Bash's at three (functions, `program`, `source` commands), HCL's at three
            // (everything is a `block`); the others at five or more.
            assert!(roots.iter().filter(|&&r| r).count() >= 2, "{lang}");
        }
    }
}
