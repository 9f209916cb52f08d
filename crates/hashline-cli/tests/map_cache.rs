//! The CLI's symbol-map cache (docs/protocol.md, "The CLI's map cache"): one directory per
//! root beside the default session file; a read of an unchanged code file takes its map
//! from there, and whatever is in there never changes what a read shows.

mod common;

use std::path::PathBuf;
use std::process::Command;

use common::Env;

impl Env {
    fn path(&self, name: &str) -> PathBuf {
        self.project.path().join(name)
    }

    /// A read's standard output, checked to succeed with nothing on standard error.
    fn read(&self, extra: &[&str], name: &str) -> String {
        let mut args = extra.to_vec();
        args.extend(["read", name]);
        let out = self.run(&args);
        assert!(out.status.success() && out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).expect("utf-8")
    }

    fn maps_dir(&self) -> PathBuf {
        self.state.path().join("hashline/maps")
    }

    /// Every cache entry under the state directory.
    fn entries(&self) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for root in std::fs::read_dir(self.maps_dir()).into_iter().flatten().flatten() {
            for entry in std::fs::read_dir(root.path()).into_iter().flatten().flatten() {
                out.push(entry.path());
            }
        }
        out.sort();
        out
    }
}

/// Rust source over the 50 KB a full read shows, so the read appends the file's map;
/// `tag` names its functions.
fn big_source(tag: &str) -> String {
    let mut out = String::new();
    for i in 0..1500 {
        out.push_str(&format!("/// Item {i}.\npub fn {tag}_{i:04}(value: u32) -> u32 {{\n    value + {i}\n}}\n\n"));
    }
    assert!(out.len() > 60_000);
    out
}

#[test]
fn a_warm_read_shows_what_a_fresh_read_shows() {
    let env = Env::new();
    std::fs::write(env.path("big.rs"), big_source("alpha")).unwrap();
    let fresh = env.read(&["--stateless"], "big.rs");
    assert!(fresh.contains("alpha_1499"), "the map is appended: {}", &fresh[fresh.len() - 300..]);
    assert!(env.entries().is_empty(), "--stateless keeps no cache: {:?}", env.entries());

    let cold = env.read(&[], "big.rs");
    let entries = env.entries();
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert!(entries[0].extension().is_some_and(|e| e == "map"));
    let written = std::fs::metadata(&entries[0]).unwrap().modified().unwrap();
    let warm = env.read(&[], "big.rs");
    assert_eq!(cold, fresh);
    assert_eq!(warm, fresh);
    assert_eq!(std::fs::metadata(&entries[0]).unwrap().modified().unwrap(), written, "a hit rewrites nothing");
}

#[test]
fn same_size_same_time_other_bytes_is_mapped_again() {
    let env = Env::new();
    let file = env.path("big.rs");
    std::fs::write(&file, big_source("alpha")).unwrap();
    env.read(&[], "big.rs");
    let mtime = std::fs::metadata(&file).unwrap().modified().unwrap();
    std::fs::write(&file, big_source("gamma")).unwrap();
    std::fs::File::options().write(true).open(&file).unwrap().set_modified(mtime).unwrap();
    assert_eq!(std::fs::metadata(&file).unwrap().len(), big_source("alpha").len() as u64);

    let read = env.read(&[], "big.rs");
    assert!(read.contains("gamma_1499") && !read.contains("alpha_"), "{}", &read[read.len() - 300..]);
    assert_eq!(read, env.read(&["--stateless"], "big.rs"));
}

#[test]
fn damaged_or_foreign_cache_files_change_nothing() {
    let env = Env::new();
    std::fs::write(env.path("big.rs"), big_source("alpha")).unwrap();
    let fresh = env.read(&["--stateless"], "big.rs");
    env.read(&[], "big.rs");
    let entry = env.entries().pop().expect("an entry");
    let good = std::fs::read(&entry).unwrap();
    let mut foreign_build = good.clone();
    foreign_build[12] ^= 0xff; // the build identity follows the magic and the version
    let mut flipped = good.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 0x01;
    let damaged: [(&str, Vec<u8>); 5] = [
        ("empty", Vec::new()),
        ("truncated", good[..good.len() / 2].to_vec()),
        ("junk", b"not a map at all".repeat(100)),
        ("another build", foreign_build),
        ("one bit of the map", flipped),
    ];
    for (what, bytes) in damaged {
        std::fs::write(&entry, &bytes).unwrap();
        assert_eq!(env.read(&[], "big.rs"), fresh, "{what}");
        assert_eq!(std::fs::read(&entry).unwrap(), good, "{what}: replaced by a good entry");
    }
    // A directory where the entry would be: the read works, nothing is cached.
    std::fs::remove_file(&entry).unwrap();
    std::fs::create_dir(&entry).unwrap();
    assert_eq!(env.read(&[], "big.rs"), fresh);
}

#[test]
fn concurrent_reads_of_one_root_all_show_the_fresh_maps() {
    let env = Env::new();
    let names: Vec<String> = (0..4).map(|i| format!("f{i}.rs")).collect();
    for (i, name) in names.iter().enumerate() {
        std::fs::write(env.path(name), big_source(&format!("n{i}"))).unwrap();
    }
    let fresh: Vec<String> = names.iter().map(|n| env.read(&["--stateless"], n)).collect();
    // Each process has a session file of its own, so they do not take turns on its lock.
    let children: Vec<_> = (0..8)
        .map(|i| {
            let name = &names[i % names.len()];
            let session = env.state.path().join(format!("s{i}.json"));
            Command::new(env!("CARGO_BIN_EXE_hashline"))
                .args(["--session", session.to_str().unwrap(), "read", name])
                .current_dir(env.project.path())
                .env("XDG_STATE_HOME", env.state.path())
                .stdout(std::process::Stdio::piped())
                .spawn()
                .expect("spawn")
        })
        .collect();
    for (i, child) in children.into_iter().enumerate() {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        assert_eq!(String::from_utf8(out.stdout).unwrap(), fresh[i % names.len()], "process {i}");
    }
    assert_eq!(env.entries().len(), names.len());
    for name in &names {
        assert_eq!(&env.read(&[], name), &fresh[names.iter().position(|n| n == name).unwrap()]);
    }
    assert!(env.entries().iter().all(|p| !p.file_name().unwrap().to_string_lossy().ends_with(".tmp")));
}

#[test]
fn the_cache_lives_beside_the_sessions_outside_the_project() {
    let env = Env::new();
    std::fs::write(env.path("big.rs"), big_source("alpha")).unwrap();
    env.read(&[], "big.rs");
    let roots: Vec<String> = std::fs::read_dir(env.maps_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let sessions: Vec<String> = std::fs::read_dir(env.state.path().join("hashline/sessions"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    assert_eq!(roots.len(), 1);
    assert_eq!(sessions, vec![format!("{}.json", roots[0])], "one name per root for both");
    let names: Vec<String> =
        std::fs::read_dir(env.project.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    assert_eq!(names, vec!["big.rs".to_owned()], "nothing in the project");
}
