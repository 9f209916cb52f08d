//! Where the session's roots come from: `--root` flags, else the client's `roots/list`
//! (`file://` URIs only), else the process working directory.
#![expect(
    deprecated,
    reason = "MCP deprecates roots only from protocol 2026-07-28 on; clients of the initialize lifecycle use them"
)]

use std::ffi::OsString;
use std::path::PathBuf;

use rmcp::model::Root;

/// The directories of the client's roots that can serve as session roots, in the
/// client's order: `file://` URIs naming existing directories. Other URIs are skipped.
pub(crate) fn usable_client_roots(roots: &[Root]) -> Vec<PathBuf> {
    roots.iter().filter_map(|root| path_of_file_uri(&root.uri)).filter(|path| path.is_dir()).collect()
}

/// The local path of a `file://` URI (`file:///home/me/x`, `file://localhost/home/me/x`,
/// percent-escapes decoded), or `None` for any other URI.
pub(crate) fn path_of_file_uri(uri: &str) -> Option<PathBuf> {
    let scheme_end = uri.find(':')?;
    if !uri[..scheme_end].eq_ignore_ascii_case("file") {
        return None;
    }
    let rest = uri[scheme_end + 1..].strip_prefix("//")?;
    // The authority ends at the path's first slash; only a local host is a local path.
    let path_start = rest.find('/')?;
    let host = &rest[..path_start];
    if !(host.is_empty() || host.eq_ignore_ascii_case("localhost")) {
        return None;
    }
    let path = &rest[path_start..];
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let bytes = percent_decode(path)?;
    local_path(bytes)
}

fn percent_decode(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            let hex = std::str::from_utf8(hex).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Some(out)
}

#[cfg(unix)]
fn local_path(bytes: Vec<u8>) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStringExt;
    Some(PathBuf::from(OsString::from_vec(bytes)))
}

#[cfg(not(unix))]
fn local_path(bytes: Vec<u8>) -> Option<PathBuf> {
    let text = String::from_utf8(bytes).ok()?;
    // `file:///C:/x` names `C:/x`.
    let text = match text.as_bytes() {
        [b'/', drive, b':', ..] if drive.is_ascii_alphabetic() => text[1..].to_owned(),
        _ => text,
    };
    Some(PathBuf::from(OsString::from(text)))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn file_uris_become_paths() {
        assert_eq!(path_of_file_uri("file:///home/me/project"), Some(PathBuf::from("/home/me/project")));
        assert_eq!(path_of_file_uri("file://localhost/tmp/x"), Some(PathBuf::from("/tmp/x")));
        assert_eq!(path_of_file_uri("FILE:///tmp/a%20b/%C3%A9"), Some(PathBuf::from("/tmp/a b/é")));
        assert_eq!(path_of_file_uri("file:///tmp/x?query#frag"), Some(PathBuf::from("/tmp/x")));
    }

    #[test]
    fn other_uris_are_skipped() {
        assert_eq!(path_of_file_uri("https://example.invalid/x"), None);
        assert_eq!(path_of_file_uri("file://server/share/x"), None);
        assert_eq!(path_of_file_uri("file:relative"), None);
        assert_eq!(path_of_file_uri("file:///bad%2"), None);
        assert_eq!(path_of_file_uri("file:///bad%zz"), None);
        assert_eq!(path_of_file_uri("not a uri"), None);
    }

    #[test]
    fn only_existing_directories_are_usable() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("f.txt");
        std::fs::write(&file, "x").expect("write");
        let uri = |p: &std::path::Path| format!("file://{}", p.display());
        let roots = vec![
            Root::new("https://example.invalid/"),
            Root::new(uri(&file)),
            Root::new(uri(&dir.path().join("missing"))),
            Root::new(uri(dir.path())),
        ];
        assert_eq!(usable_client_roots(&roots), vec![dir.path().to_path_buf()]);
    }
}
