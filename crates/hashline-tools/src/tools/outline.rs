//! A file's structural map on its own (the CLI's `hashline map`, SPEC §10.2): the same map
//! `read` appends to a truncated view, without the rows, and as a typed value.

use std::sync::Arc;

use hashline_core::Document;
use hashline_symbols::SymbolMap;

use crate::error::ToolError;
use crate::session::Session;
use crate::tools::symbol_read::{file_map, map_text};

/// The map of one file.
#[derive(Clone, Debug)]
pub struct Outline {
    /// The path as given.
    pub path: String,
    /// The file's line count.
    pub lines: usize,
    /// The map's text as `read` shows it (the `map-unavailable` warning's text when the file
    /// type has none or the file did not parse).
    pub text: String,
    /// The symbols, when the file has a map.
    pub map: Option<Arc<SymbolMap>>,
}

/// The map of the file `raw` (resolved and opened like `read`'s path: confined, regular
/// files only, bounded).
pub fn outline(session: &Session, raw: &str) -> Result<Outline, ToolError> {
    let path = session.resolve(raw)?;
    let doc = Document::parse(session.read_file(&path)?);
    let map = file_map(session, &path, &doc).ok().flatten();
    let text = match map_text(session, &path, &doc) {
        Ok(text) => text,
        Err(warning) => warning.message,
    };
    Ok(Outline { path: path.display.clone(), lines: doc.line_count(), text, map })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_file_has_its_map_and_a_text_file_says_it_has_none() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("a.rs"), "fn one() {}\n\nstruct Two;\n").expect("write");
        std::fs::write(dir.path().join("a.txt"), "plain\n").expect("write");
        let session = Session::open(dir.path()).expect("session");
        let rs = outline(&session, "a.rs").expect("map");
        assert!(rs.text.contains("one") && rs.text.contains("Two"), "{}", rs.text);
        assert_eq!(rs.map.as_ref().map(|m| m.count()), Some(2));
        let txt = outline(&session, "a.txt").expect("no map");
        assert!(txt.map.is_none());
        assert_eq!(txt.text, "[Warning: structural map not available for .txt files]");
        assert_eq!(outline(&session, "missing.rs").expect_err("missing").code.as_str(), "file-not-found");
    }
}
