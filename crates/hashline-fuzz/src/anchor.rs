//! The anchor parser: any text parses or is refused with a code, never a panic; what
//! parses prints back to itself; resolving against a document is total and right.

use hashline::core::{AnchorRef, Document, parse_anchor};

/// Parses the input as an anchor and resolves it against a document made of the input.
pub fn anchor(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let doc = Document::parse(data.to_vec());
    match parse_anchor(&text) {
        Ok(AnchorRef::Line { anchor, .. }) => {
            let printed = anchor.to_string();
            let again = parse_anchor(&printed).expect("a printed anchor parses");
            assert!(
                matches!(again, AnchorRef::Line { anchor: a, content: None } if a == anchor),
                "{printed} reparsed as {again:?}"
            );
            check_resolution(&AnchorRef::Line { anchor, content: None }, &doc);
        }
        Ok(reference) => check_resolution(&reference, &doc),
        Err(err) => {
            assert!(!err.code().is_empty());
            assert!(!err.to_string().is_empty());
        }
    }
}

/// A line anchor resolves as written (the engine checks its hash); a bare hash resolves
/// to a line that has it.
fn check_resolution(reference: &AnchorRef, doc: &Document) {
    match (reference, reference.resolve(doc)) {
        (AnchorRef::Line { anchor, .. }, resolved) => assert_eq!(resolved.ok(), Some(*anchor)),
        (AnchorRef::Hash { hash, .. }, Ok(anchor)) => {
            let line = doc.line(anchor.line).expect("a resolved hash names a line");
            assert_eq!((line.hash(), anchor.hash), (*hash, *hash), "a resolved hash names a line that has it");
        }
        (AnchorRef::Hash { .. }, Err(err)) => assert!(!err.code().is_empty()),
    }
}
