//! The CLI's symbol-map cache (docs/protocol.md, "The CLI's map cache"): one directory per
//! root beside the default session file; a read of an unchanged code file takes its map
//! from there, an edit takes the old file's error census from there, and whatever is in
//! there never changes what a read or an edit shows.

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

    /// The cache entries whose names end with `.{extension}`.
    fn entries_of(&self, extension: &str) -> Vec<PathBuf> {
        self.entries().into_iter().filter(|p| p.extension().is_some_and(|e| e == extension)).collect()
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
    let entries = env.entries_of("map");
    assert_eq!(entries.len(), 1, "{:?}", env.entries());
    assert_eq!(env.entries_of("syn").len(), 1, "the census of the parse is kept too: {:?}", env.entries());
    let texts = env.entries_of("txt");
    assert_eq!(texts.len(), 1, "and the map's text as appended: {:?}", env.entries());
    assert_eq!(env.entries().len(), 3);
    let stored = std::fs::read(&texts[0]).unwrap();
    // The last function is past the rows a full read shows: only the map names it.
    let at = cold.rfind("alpha_1499").expect("the map names the last function");
    let line_start = cold[..at].rfind('\n').map_or(0, |i| i + 1);
    let tail = cold[line_start..].lines().next().unwrap();
    assert!(stored.windows(tail.len()).any(|w| w == tail.as_bytes()), "the text entry holds the appended map");
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
    // The map's text first (a warm read takes it before the map), then the map with the
    // text gone, so that the read reaches it.
    for kind in ["txt", "map"] {
        let entry = env.entries_of(kind).pop().expect("an entry");
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
            ("one bit of the body", flipped),
        ];
        // The path's second slot: a good entry replaces a bad one that still names this
        // version (truncated, a flipped bit), else goes beside it.
        let second = entry.with_extension(format!("1.{kind}"));
        let drop_texts = || {
            if kind == "map" {
                env.entries_of("txt").iter().for_each(|t| std::fs::remove_file(t).unwrap());
            }
        };
        for (what, bytes) in damaged {
            drop_texts();
            std::fs::write(&entry, &bytes).unwrap();
            assert_eq!(env.read(&[], "big.rs"), fresh, "{kind} {what}");
            let slots: Vec<Vec<u8>> = [&entry, &second].iter().filter_map(|p| std::fs::read(p).ok()).collect();
            assert!(slots.contains(&good), "{kind} {what}: a good entry in one of the slots");
            drop_texts();
            assert_eq!(env.read(&[], "big.rs"), fresh, "{kind} {what}: from the good entry");
            let _ = std::fs::remove_file(&second);
        }
        // A directory where the entry would be: the read works, nothing is cached there.
        drop_texts();
        std::fs::remove_file(&entry).unwrap();
        std::fs::create_dir(&entry).unwrap();
        assert_eq!(env.read(&[], "big.rs"), fresh, "{kind}");
        std::fs::remove_dir(&entry).unwrap();
        env.read(&[], "big.rs");
    }
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
    assert_eq!(env.entries_of("map").len(), names.len());
    assert_eq!(env.entries_of("syn").len(), names.len());
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

/// `hashline edit` of `name` with `edits` (JSON): its standard output, standard error and
/// whether it succeeded.
fn edit(env: &Env, name: &str, edits: &serde_json::Value) -> (String, String, bool) {
    let out = env.run(&["edit", name, "--edits", &edits.to_string()]);
    (String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap(), out.status.success())
}

/// A `set_line` of 1-based `line` of `text` to `new_text`.
fn set_line(text: &str, line: usize, new_text: &str) -> serde_json::Value {
    let old = text.lines().nth(line - 1).unwrap();
    let anchor = format!("{line}:{}", hashline::core::LineHash::of(old.as_bytes()));
    serde_json::json!([{"set_line": {"anchor": anchor, "new_text": new_text}}])
}

#[test]
fn an_edit_with_a_cached_census_shows_what_one_without_shows_and_the_next_read_is_fresh() {
    let env = Env::new();
    let source = big_source("alpha");
    let file = env.path("big.rs");
    // Line 8 is `    value + 1`; a `)))` there is a new syntax error.
    let broken = set_line(&source, 8, "    value + 1 )))");
    let shown = |env: &Env| env.read(&[], "big.rs");
    let window = |env: &Env| env.run(&["read", "big.rs", "--offset", "5", "--limit", "5"]);

    // No cache for the old bytes: the edit parses both versions.
    std::fs::write(&file, &source).unwrap();
    shown(&env);
    std::fs::remove_dir_all(env.maps_dir()).unwrap();
    window(&env);
    let two_parses = edit(&env, "big.rs", &broken);
    assert!(two_parses.2 && two_parses.1.is_empty(), "{two_parses:?}");
    assert!(two_parses.0.contains("syntax-regression: lines 8"), "{}", two_parses.0);
    let written = std::fs::read_to_string(&file).unwrap();
    // Both censuses are kept now (the old version's and the new one's).
    assert_eq!(env.entries_of("syn").len(), 2, "{:?}", env.entries());

    // Again from the same bytes: the old census comes from the cache (the read stored it
    // too), and the edit shows exactly the same.
    std::fs::remove_dir_all(env.maps_dir()).unwrap();
    std::fs::write(&file, &source).unwrap();
    shown(&env);
    assert_eq!(env.entries_of("syn").len(), 1, "the read kept its census: {:?}", env.entries());
    window(&env);
    let one_parse = edit(&env, "big.rs", &broken);
    // The same but for the change's id: the second edit is the session's second change.
    let without_id = |text: &str| text.split("\n\nChange c").next().unwrap_or_default().to_owned();
    assert!(one_parse.0.contains("\n\nChange c2-") && two_parses.0.contains("\n\nChange c1-"));
    assert_eq!(
        (without_id(&one_parse.0), &one_parse.1, one_parse.2),
        (without_id(&two_parses.0), &two_parses.1, two_parses.2)
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), written);
    // The edit kept the new version's map, and its text beside it: the next read takes the
    // text, writes nothing, and shows a fresh read.
    assert_eq!(env.entries_of("map").len(), 2, "{:?}", env.entries());
    assert_eq!(env.entries_of("txt").len(), 2, "{:?}", env.entries());
    let before_read: Vec<_> = env.entries().iter().map(|p| std::fs::read(p).unwrap()).collect();
    let after = shown(&env);
    assert_eq!(after, env.read(&["--stateless"], "big.rs"));
    let after_read: Vec<_> = env.entries().iter().map(|p| std::fs::read(p).unwrap()).collect();
    assert_eq!(before_read, after_read, "the read found everything it needed");

    // A second edit of the new bytes (their census cached by the first) is the same as one
    // with no cache at all.
    let fix = set_line(&written, 8, "    value + 1");
    window(&env);
    let cached = edit(&env, "big.rs", &fix);
    let fixed = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, &written).unwrap();
    std::fs::remove_dir_all(env.maps_dir()).unwrap();
    window(&env);
    let uncached = edit(&env, "big.rs", &fix);
    assert_eq!((without_id(&cached.0), &cached.1, cached.2), (without_id(&uncached.0), &uncached.1, uncached.2));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), fixed);
    assert_eq!(fixed, source);
}
