//! A session's on-disk map store (the CLI's map cache): `read` and `grep`'s symbol scope
//! take a stored map of the same bytes instead of parsing, and build (and store) a fresh one
//! whenever the bytes differ.
//!
//! The process keeps maps in memory too (keyed by path, size, time and content), so each
//! test uses file names of its own.

use std::path::Path;
use std::sync::Arc;

use hashline_core::Document;
use hashline_tools::map_store::{ContentKey, MapStore};
use hashline_tools::read::{ReadArgs, read};
use hashline_tools::{Session, SessionConfig};
use hashline_view::ContentBlock;

const SOURCE: &str =
    "/// The first.\npub fn alpha(x: u32) -> u32 {\n    x + 1\n}\n\npub struct Beta {\n    y: i8,\n}\n";

fn session(root: &Path, store: &Arc<MapStore>) -> Session {
    let mut config = SessionConfig::builder().root(root).build();
    config.map_store = Some(Arc::clone(store));
    Session::new(config).expect("session")
}

fn map_read(session: &Session, path: &str) -> String {
    let out = read(session, ReadArgs::builder().path(path).map(true).build()).expect("read");
    out.content
        .iter()
        .map(|block| match block {
            ContentBlock::Text { text } => text.as_str(),
            ContentBlock::Image { .. } => "",
        })
        .collect()
}

#[test]
fn a_read_uses_the_stored_map_of_the_same_bytes() {
    let project = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let store = Arc::new(MapStore::new(state.path().join("maps"), 1));
    let file = project.path().join("planted.rs");
    std::fs::write(&file, SOURCE).unwrap();
    // A map of other bytes under this file's key and content: only a read that takes the
    // stored map shows `planted_symbol`.
    let mut planted =
        hashline_symbols::map_document("planted.rs", &Document::parse(b"pub fn planted_symbol() {}\n".to_vec()))
            .unwrap()
            .unwrap();
    planted.byte_count = SOURCE.len() as u64;
    let key = hashline_fs::lookup::canonicalize(&file).unwrap();
    store.store(&key, "planted.rs", ContentKey::of(SOURCE.as_bytes()), &planted).unwrap();
    let text = map_read(&session(project.path(), &store), "planted.rs");
    assert!(text.contains("planted_symbol"), "{text}");
}

#[test]
fn a_stored_map_renders_as_the_fresh_one_and_other_bytes_are_mapped_again() {
    let project = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let store = Arc::new(MapStore::new(state.path().join("maps"), 1));
    let file = project.path().join("fresh.rs");
    std::fs::write(&file, SOURCE).unwrap();
    // The reference: the same name and bytes in another project, read without a store (the
    // process's own cache is keyed by real path, so neither read serves the other).
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::write(elsewhere.path().join("fresh.rs"), SOURCE).unwrap();
    let fresh = map_read(&Session::open(elsewhere.path()).unwrap(), "fresh.rs");
    assert!(fresh.contains("alpha") && fresh.contains("Beta"), "{fresh}");

    let first = map_read(&session(project.path(), &store), "fresh.rs");
    assert_eq!(first, fresh);
    let names: Vec<String> = std::fs::read_dir(store.dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.iter().filter(|n| n.ends_with(".map")).count(), 1, "the map was stored: {names:?}");
    assert_eq!(names.iter().filter(|n| n.ends_with(".syn")).count(), 1, "and the census of its parse: {names:?}");
    assert_eq!(names.iter().filter(|n| n.ends_with(".txt")).count(), 1, "and the map's text: {names:?}");
    assert_eq!(names.len(), 3);
    // A second read takes the text and shows the same.
    assert_eq!(map_read(&session(project.path(), &store), "fresh.rs"), fresh);
    // What another process would load renders as a fresh map.
    let key = hashline_fs::lookup::canonicalize(&file).unwrap();
    let stored = store.load(&key, "fresh.rs", ContentKey::of(SOURCE.as_bytes())).expect("a hit");
    assert_eq!(hashline_symbols::render_map("fresh.rs", &stored).text, {
        let doc = Document::parse(SOURCE.as_bytes().to_vec());
        hashline_symbols::render_map("fresh.rs", &hashline_symbols::map_document("fresh.rs", &doc).unwrap().unwrap())
            .text
    });

    // Same size, same modification time, other bytes: mapped again, not taken from the store.
    let mtime = std::fs::metadata(&file).unwrap().modified().unwrap();
    let changed = SOURCE.replace("alpha", "gamma");
    assert_eq!(changed.len(), SOURCE.len());
    std::fs::write(&file, &changed).unwrap();
    std::fs::File::options().write(true).open(&file).unwrap().set_modified(mtime).unwrap();
    let again = map_read(&session(project.path(), &store), "fresh.rs");
    assert!(again.contains("gamma") && !again.contains("alpha"), "{again}");
    std::fs::write(elsewhere.path().join("fresh.rs"), &changed).unwrap();
    assert_eq!(again, map_read(&Session::open(elsewhere.path()).unwrap(), "fresh.rs"));
    assert!(store.load(&key, "fresh.rs", ContentKey::of(changed.as_bytes())).is_some(), "the new map was stored");
}
