//! The path-attack table (`tests/path_attacks.json`) against every tool over the CLI: each
//! attack is refused, nothing outside the root is read or written.

use std::path::{Path, PathBuf};
use std::process::Command;

use hashline::core::LineHash;
use serde_json::{Value, json};

fn table() -> Value {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/path_attacks.json"))
        .expect("tests/path_attacks.json");
    serde_json::from_str(&text).expect("table")
}

/// Every file and directory below `dir`, with the bytes of each file.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Option<Vec<u8>>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        for entry in std::fs::read_dir(&current).expect("ls").filter_map(Result::ok) {
            let path = entry.path();
            let meta = std::fs::symlink_metadata(&path).expect("meta");
            if meta.is_dir() {
                stack.push(path.clone());
                out.push((path, None));
            } else {
                out.push((path.clone(), std::fs::read(&path).ok()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_tool_refuses_every_path_attack() {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = hashline::fs::lookup::canonicalize(dir.path()).expect("canonical");
    let base_str = base.to_string_lossy().into_owned();
    std::fs::create_dir_all(base.join("r/a/b/c")).expect("mkdir");
    std::fs::create_dir_all(base.join("out")).expect("mkdir");
    std::fs::write(base.join("out/s.txt"), "secret\n").expect("write");
    let table = table();
    for link in table["links"].as_array().expect("links") {
        let (at, to) = (link[0].as_str().expect("at"), link[1].as_str().expect("to"));
        let to = to.replace("{base}", &base_str);
        #[cfg(unix)]
        std::os::unix::fs::symlink(&to, base.join(at)).expect("symlink");
        #[cfg(windows)]
        if std::os::windows::fs::symlink_dir(&to, base.join(at)).is_err() || !base.join(at).is_symlink() {
            eprintln!("SKIPPED the path attacks through symbolic links: this system makes none");
            return;
        }
    }
    let outside_before = snapshot(&base.join("out"));
    let anchor = format!("1:{}", LineHash::of(b"secret"));
    let mut failures = Vec::new();
    let mut tried = 0;
    for attack in table["attacks"].as_array().expect("attacks") {
        let path = attack["path"].as_str().expect("path").replace("{base}", &base_str);
        let calls = [
            ("read", json!({"path": path})),
            ("write", json!({"path": path, "content": "owned\n"})),
            ("edit", json!({"path": path, "edits": [{"set_line": {"anchor": anchor, "new_text": "owned"}}]})),
            ("ls", json!({"path": path})),
            ("find", json!({"path": path, "pattern": "*"})),
            ("grep", json!({"path": path, "pattern": "secret"})),
            ("ast_search", json!({"path": path, "pattern": "secret", "lang": "python"})),
        ];
        for (tool, args) in calls {
            tried += 1;
            let out = Command::new(env!("CARGO_BIN_EXE_hashline"))
                .args(["--stateless", "--root"])
                .arg(base.join("r"))
                .args(["call", tool, &args.to_string()])
                .current_dir(base.join("r"))
                .output()
                .expect("hashline");
            let text = String::from_utf8_lossy(&out.stdout);
            let result: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
            let code = result["details"]["ptcValue"]["error"]["code"].as_str().unwrap_or("");
            let wanted = attack["expect"].as_str().expect("expect");
            let refused = result["isError"] == true && (wanted == "error" || code == "path-outside-root");
            if !refused || text.contains("secret") {
                failures.push(format!("{tool} {path:?} ({}): {code} {text}", attack["name"]));
            }
        }
    }
    assert_eq!(snapshot(&base.join("out")), outside_before, "something outside the root changed");
    assert!(!base.join("newdir").exists(), "a folder was created outside the root");
    assert!(failures.is_empty(), "{} of {tried} calls not refused:\n{}", failures.len(), failures.join("\n"));
}
