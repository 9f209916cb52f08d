//! A compact byte form of a [`SymbolMap`], for caches that keep maps between processes
//! (the CLI's per-root map cache). Where such bytes live, and which file version they
//! belong to, is the caller's business; this module only turns a map into bytes and back.
//!
//! The bytes are a version byte and then, in `bincode`'s varint form, the map's fields and
//! its symbols as one flat list in document order (depth first), each with its depth, so
//! that decoding needs no recursion and a damaged or hostile input cannot nest deeper than
//! [`MAX_STORED_DEPTH`].

use serde::{Deserialize, Serialize};

use crate::kind::SymbolKind;
use crate::symbol::{Symbol, SymbolMap};

/// The version of the byte form; bytes of another version are refused.
const FORMAT_VERSION: u8 = 1;

/// Symbols nested deeper than this are not stored (such a map is not cached) nor decoded.
pub const MAX_STORED_DEPTH: usize = 256;

/// Why bytes are not a stored map.
#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    /// Empty, or of another format version.
    #[error("not a stored symbol map of version {FORMAT_VERSION}")]
    Version,
    /// The fields could not be read (truncated or damaged bytes).
    #[error("damaged stored symbol map: {0}")]
    Damaged(String),
    /// The fields read do not form a map (an unknown kind, a depth that skips a level).
    #[error("inconsistent stored symbol map: {0}")]
    Inconsistent(&'static str),
}

#[derive(Serialize, Deserialize)]
struct StoredMap {
    language: String,
    line_count: u32,
    byte_count: u64,
    imports: Vec<String>,
    symbols: Vec<StoredSymbol>,
}

#[derive(Serialize, Deserialize)]
struct StoredSymbol {
    depth: u16,
    name: String,
    kind: String,
    parent: Option<String>,
    start_line: u32,
    decl_line: u32,
    end_line: u32,
    signature: Option<String>,
    doc: Option<String>,
}

fn options() -> impl bincode::Options {
    use bincode::Options as _;
    bincode::DefaultOptions::new().reject_trailing_bytes()
}

impl SymbolMap {
    /// The map as bytes for [`SymbolMap::from_bytes`]; `None` when its symbols nest deeper
    /// than [`MAX_STORED_DEPTH`].
    pub fn to_bytes(&self) -> Option<Vec<u8>> {
        let mut symbols = Vec::new();
        // Depth first with an explicit stack: (children, next index) per open level.
        let mut stack: Vec<(&[Symbol], usize)> = vec![(&self.symbols, 0)];
        while let Some((list, next)) = stack.last_mut() {
            let Some(symbol) = list.get(*next) else {
                stack.pop();
                continue;
            };
            *next += 1;
            let depth = stack.len() - 1;
            if depth >= MAX_STORED_DEPTH {
                return None;
            }
            symbols.push(StoredSymbol {
                depth: depth as u16,
                name: symbol.name.clone(),
                kind: symbol.kind.as_str().to_owned(),
                parent: symbol.parent.clone(),
                start_line: symbol.start_line,
                decl_line: symbol.decl_line,
                end_line: symbol.end_line,
                signature: symbol.signature.clone(),
                doc: symbol.doc.clone(),
            });
            stack.push((&symbol.children, 0));
        }
        let stored = StoredMap {
            language: self.language.clone(),
            line_count: self.line_count,
            byte_count: self.byte_count,
            imports: self.imports.clone(),
            symbols,
        };
        let mut bytes = vec![FORMAT_VERSION];
        bincode::Options::serialize_into(options(), &mut bytes, &stored).ok()?;
        Some(bytes)
    }

    /// The map that [`SymbolMap::to_bytes`] wrote. Damaged, truncated or foreign bytes are
    /// an error, never a panic; reading allocates at most in proportion to `bytes`.
    pub fn from_bytes(bytes: &[u8]) -> Result<SymbolMap, DecodeError> {
        let Some((&FORMAT_VERSION, body)) = bytes.split_first() else { return Err(DecodeError::Version) };
        let stored: StoredMap =
            bincode::Options::deserialize(bincode::Options::with_limit(options(), body.len() as u64), body)
                .map_err(|err| DecodeError::Damaged(err.to_string()))?;
        // The open ancestors of the next symbol, outermost first.
        let mut open: Vec<Symbol> = Vec::new();
        let mut top = Vec::new();
        for s in stored.symbols {
            let depth = usize::from(s.depth);
            if depth > open.len() || depth >= MAX_STORED_DEPTH {
                return Err(DecodeError::Inconsistent("a symbol is nested below no parent"));
            }
            close_to(&mut open, &mut top, depth);
            let kind = SymbolKind::from_name(&s.kind).ok_or(DecodeError::Inconsistent("unknown symbol kind"))?;
            open.push(Symbol {
                name: s.name,
                kind,
                parent: s.parent,
                start_line: s.start_line,
                decl_line: s.decl_line,
                end_line: s.end_line,
                signature: s.signature,
                doc: s.doc,
                children: Vec::new(),
            });
        }
        close_to(&mut open, &mut top, 0);
        Ok(SymbolMap {
            language: stored.language,
            line_count: stored.line_count,
            byte_count: stored.byte_count,
            imports: stored.imports,
            symbols: top,
        })
    }
}

/// Closes open symbols until `depth` remain, each into its parent (or the top level).
fn close_to(open: &mut Vec<Symbol>, top: &mut Vec<Symbol>, depth: usize) {
    while open.len() > depth {
        let Some(done) = open.pop() else { break };
        match open.last_mut() {
            Some(parent) => parent.children.push(done),
            None => top.push(done),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hashline_core::Document;

    fn sample() -> SymbolMap {
        let source = b"use std::fmt;\n\n/// A point.\n#[derive(Debug)]\npub struct Point {\n    x: i32,\n}\n\nimpl Point {\n    /// Its norm.\n    pub fn norm(&self) -> i32 {\n        self.x.abs()\n    }\n    fn other() {}\n}\n\nmod inner {\n    pub mod deeper {\n        pub fn leaf() {}\n    }\n    pub const C: u8 = 1;\n}\n\nfn last() {}\n";
        crate::map_document("src/geo.rs", &Document::parse(source.to_vec())).unwrap().unwrap()
    }

    #[test]
    fn a_map_comes_back_equal_and_renders_the_same() {
        let map = sample();
        assert!(map.all().iter().any(|s| !s.children.is_empty()), "the sample nests: {map:?}");
        assert!(map.all().iter().any(|s| s.signature.is_some() && s.doc.is_some() && s.parent.is_some()));
        let back = SymbolMap::from_bytes(&map.to_bytes().unwrap()).unwrap();
        assert_eq!(back, map);
        assert_eq!(crate::render_map("geo.rs", &back).text, crate::render_map("geo.rs", &map).text);
    }

    #[test]
    fn every_truncation_and_a_foreign_version_are_refused_without_panic() {
        let bytes = sample().to_bytes().unwrap();
        for len in 0..bytes.len() {
            assert!(SymbolMap::from_bytes(&bytes[..len]).is_err(), "truncated to {len}");
        }
        let mut foreign = bytes.clone();
        foreign[0] = FORMAT_VERSION + 1;
        assert!(matches!(SymbolMap::from_bytes(&foreign), Err(DecodeError::Version)));
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(SymbolMap::from_bytes(&longer).is_err(), "trailing bytes");
        // Flipping any one byte either fails or decodes to some map: never a panic.
        for i in 1..bytes.len() {
            let mut damaged = bytes.clone();
            damaged[i] ^= 0xff;
            let _ = SymbolMap::from_bytes(&damaged);
        }
    }

    #[test]
    fn depth_is_bounded_both_ways() {
        let leaf = |depth: u16| StoredSymbol {
            depth,
            name: "n".into(),
            kind: "module".into(),
            parent: None,
            start_line: 1,
            decl_line: 1,
            end_line: 1,
            signature: None,
            doc: None,
        };
        let encode = |symbols: Vec<StoredSymbol>| {
            let stored =
                StoredMap { language: "Rust".into(), line_count: 1, byte_count: 0, imports: Vec::new(), symbols };
            let mut bytes = vec![FORMAT_VERSION];
            bincode::Options::serialize_into(options(), &mut bytes, &stored).unwrap();
            bytes
        };
        let skipping = encode(vec![leaf(0), leaf(2)]);
        assert!(matches!(SymbolMap::from_bytes(&skipping), Err(DecodeError::Inconsistent(_))));
        let deep = encode((0..=MAX_STORED_DEPTH as u16).map(leaf).collect());
        assert!(matches!(SymbolMap::from_bytes(&deep), Err(DecodeError::Inconsistent(_))));
        let fits = SymbolMap::from_bytes(&encode((0..MAX_STORED_DEPTH as u16).map(leaf).collect())).unwrap();
        assert_eq!(fits.count(), MAX_STORED_DEPTH);
        assert_eq!(fits.to_bytes(), Some(encode((0..MAX_STORED_DEPTH as u16).map(leaf).collect())));

        let module = || Symbol {
            name: "n".into(),
            kind: SymbolKind::Module,
            parent: None,
            start_line: 1,
            decl_line: 1,
            end_line: 1,
            signature: None,
            doc: None,
            children: Vec::new(),
        };
        // MAX_STORED_DEPTH + 1 levels: the innermost is at depth MAX_STORED_DEPTH.
        let mut nested = module();
        for _ in 0..MAX_STORED_DEPTH {
            nested = Symbol { children: vec![nested], ..module() };
        }
        let too_deep = SymbolMap {
            language: "Rust".into(),
            line_count: 1,
            byte_count: 0,
            imports: Vec::new(),
            symbols: vec![nested],
        };
        assert_eq!(too_deep.to_bytes(), None);
    }
}
