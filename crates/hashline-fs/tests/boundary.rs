//! The crate boundary of issue 22: no crate of the workspace but this one calls the file
//! system itself. Every other crate's library and binary code (its `src/`, outside the
//! `#[cfg(test)] mod` that closes a file, and outside comments) is scanned for the calls
//! that open, create, change or look up files, and for the OS-specific layers beneath
//! them; tests, benches, examples and the development tools (`xtask`, the fixtures and
//! fuzz crates) may make their own files.

use std::path::{Path, PathBuf};

use regex::Regex;

/// What only `hashline-fs` may use, with why.
const FORBIDDEN: &[(&str, &str)] = &[
    (r"\bstd::fs::[a-z_]+\s*\(", "a std::fs call"),
    (r"\buse\s+std::fs\s*;", "std::fs imported for calls"),
    (r"\bfs_err\b", "fs-err"),
    (r"\bOpenOptions\b", "an open"),
    (r"\bFile::(open|create|create_new|options)\b", "an open"),
    (r"\bDirBuilder\b", "a directory made"),
    (r"\brustix::fs\b", "rustix's file calls"),
    (r"\blibc::", "libc"),
    (r"\bstd::os::unix::fs\b", "Unix file extensions"),
    (r"\bstd::os::fd\b", "raw file descriptors"),
    (r"\btempfile::", "temporary files"),
];

/// Crates that may make their own files: this one, and the development tools.
const EXEMPT: &[&str] = &["hashline-fs", "hashline-fixtures", "hashline-fuzz"];

/// The violations in one file's text: `(line number, line, why)`.
fn violations(text: &str) -> Vec<(usize, String, &'static str)> {
    matches(text, FORBIDDEN)
}

/// What only `hashline-fs`'s `sys` module may use: the calls and types of one operating
/// system (decision 011: the rest of the crate is written once for every backend).
const SYSTEM_ONLY: &[(&str, &str)] = &[
    (r"\brustix::", "rustix"),
    (r"\blibc::", "libc"),
    (r"\bwindows_sys::", "windows-sys"),
    (r"\bstd::os::(unix|fd|windows|linux|macos)\b", "an OS-specific std layer"),
    (r"\b(OwnedFd|BorrowedFd|OwnedHandle|BorrowedHandle|RawFd|RawHandle)\b", "a raw handle type"),
    (r"\bErrno\b", "an errno"),
];

/// The lines of `text` (outside its closing test module and comments) that match a rule.
fn matches(text: &str, rules: &[(&str, &'static str)]) -> Vec<(usize, String, &'static str)> {
    let rules: Vec<(Regex, &str)> = rules.iter().map(|(re, why)| (Regex::new(re).expect("rule"), *why)).collect();
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let code = line.trim_start();
        if (code.starts_with("#[cfg(test)]") || code.starts_with("#[cfg(all(test,"))
            && lines.get(i + 1).is_some_and(|next| next.trim_start().starts_with("mod "))
        {
            break;
        }
        if code.starts_with("//") {
            continue;
        }
        let code = code.split(" //").next().unwrap_or(code);
        for (rule, why) in &rules {
            if rule.is_match(code) {
                out.push((i + 1, line.trim().to_owned(), *why));
            }
        }
    }
    out
}

#[test]
fn only_the_sys_module_calls_the_operating_system() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut found = Vec::new();
    let mut scanned = 0;
    for file in files.iter().filter(|f| !f.starts_with(src.join("sys"))) {
        scanned += 1;
        let text = std::fs::read_to_string(file).expect("source");
        for (line, code, why) in matches(&text, SYSTEM_ONLY) {
            found.push(format!("{}:{line}: {why}: {code}", file.strip_prefix(&src).unwrap_or(file).display()));
        }
    }
    assert!(scanned >= 15, "the crate's sources were found ({scanned} files)");
    assert!(found.is_empty(), "OS calls outside hashline-fs's sys module (move them into it):\n{}", found.join("\n"));
    assert_eq!(matches("use rustix::fs::OFlags;\nfn f(fd: BorrowedFd<'_>) {}\n", SYSTEM_ONLY).len(), 2);
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn the_scanner_finds_a_file_call_and_ignores_tests_and_comments() {
    let text = "use std::io;\n// std::fs::write(a)\nfn f() { let _ = std::fs::read(p); }\n#[cfg(test)]\nmod tests {\n    fn g() { std::fs::write(p, b); }\n}\n";
    let found = violations(text);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, 3);
    assert!(!violations("let meta = file.metadata()?; let f: std::fs::File = x;").iter().any(|v| v.2 == "an open"));
    assert_eq!(violations("use rustix::fs::OFlags;").len(), 1);
}

#[test]
fn no_crate_but_hashline_fs_calls_the_file_system() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("crates/");
    let mut found = Vec::new();
    let mut scanned = 0;
    for entry in std::fs::read_dir(crates).expect("crates/").flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if EXEMPT.contains(&name.as_str()) {
            continue;
        }
        let mut files = Vec::new();
        rust_files(&entry.path().join("src"), &mut files);
        for file in files {
            scanned += 1;
            let text = std::fs::read_to_string(&file).expect("source");
            for (line, code, why) in violations(&text) {
                found.push(format!("{}:{line}: {why}: {code}", file.strip_prefix(crates).unwrap_or(&file).display()));
            }
        }
    }
    assert!(scanned > 100, "the workspace's sources were found ({scanned} files)");
    assert!(found.is_empty(), "file-system calls outside hashline-fs (move them into it):\n{}", found.join("\n"));
}
