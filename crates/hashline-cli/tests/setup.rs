//! `hashline setup`, `hook` and `doctor` from outside (docs/protocol.md §8, "Setting up a
//! host"): what each host's files get, a second run changing nothing, `--dry-run` writing
//! nothing, `--remove` leaving every file's bytes as before, and the refusals: a file that
//! cannot be read, is not valid, is read-only, or leads outside the project and home.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A project and a home directory, and the binary run in the project with that home.
struct Env {
    root: tempfile::TempDir,
}

const HOSTS: [&str; 6] = ["claude-code", "codex", "cursor", "vscode", "gemini", "opencode"];

impl Env {
    fn new() -> Env {
        let env = Env { root: tempfile::tempdir().expect("tempdir") };
        fs::create_dir_all(env.project()).unwrap();
        fs::create_dir_all(env.home()).unwrap();
        env
    }

    fn project(&self) -> PathBuf {
        self.root.path().join("project")
    }

    fn home(&self) -> PathBuf {
        self.root.path().join("home")
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_hashline"));
        command
            .args(args)
            .current_dir(self.project())
            .env("HOME", self.home())
            .env("USERPROFILE", self.home())
            .env("APPDATA", self.home().join("AppData").join("Roaming"))
            .env("XDG_STATE_HOME", self.root.path().join("state"))
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CODEX_HOME");
        command
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().expect("run hashline")
    }

    /// `setup` with a fixed command (`HASHLINE`), so the files are the same on every machine.
    fn setup(&self, args: &[&str]) -> Output {
        let mut all = vec!["setup"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--command", "/opt/hashline/bin/hashline"]);
        self.run(&all)
    }

    /// `portable`, with the temporary root named `<tmp>`.
    fn portable(&self, text: &str) -> String {
        let mut text = text.to_owned();
        let canonical = fs::canonicalize(self.root.path()).unwrap();
        for root in [canonical.as_path(), self.root.path()] {
            text = text.replace(&root.display().to_string(), "<tmp>");
        }
        portable(&text)
    }

    /// Every file under the temporary root, with its bytes.
    fn files(&self) -> BTreeMap<String, Vec<u8>> {
        let mut out = BTreeMap::new();
        walk(self.root.path(), self.root.path(), &mut out);
        out
    }

    fn write(&self, rel: &str, text: &str) {
        let path = self.root.path().join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
}

fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
    for entry in fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let path = entry.path();
        let rel = path.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
        if rel.starts_with("state") {
            continue;
        }
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            walk(root, &path, out);
        } else {
            out.insert(rel, fs::read(&path).unwrap_or_default());
        }
    }
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The files `setup` added or changed, as text, for a snapshot.
fn changed(before: &BTreeMap<String, Vec<u8>>, after: &BTreeMap<String, Vec<u8>>) -> String {
    let mut out = String::new();
    for (name, bytes) in after {
        if before.get(name) != Some(bytes) {
            out.push_str(&format!("==> {name}\n{}\n", text(bytes)));
        }
    }
    out
}

/// A report with the same paths on every system: `/` between names, and VS Code's user
/// directory where Linux has it.
fn portable(text: &str) -> String {
    text.replace('\\', "/")
        .replace("AppData/Roaming/Code/User", ".config/Code/User")
        .replace("Library/Application Support/Code/User", ".config/Code/User")
}

/// Files a user already had: another server, comments, an instructions file of their own.
fn seed(env: &Env) {
    let other = r#"{
  // the user's own
  "mcpServers": {
    "other": {"command": "other-server"}
  }
}
"#;
    env.write("project/.mcp.json", &other.replace("  // the user's own\n", ""));
    env.write("home/.claude.json", "{\n  \"numStartups\": 3,\n  \"mcpServers\": {}\n}\n");
    env.write("project/CLAUDE.md", "# Project\n\nBuild with make.");
    env.write("project/.codex/config.toml", "# mine\n[mcp_servers.other]\ncommand = \"other-server\"\n");
    env.write("home/.codex/config.toml", "model = \"o5\"\n");
    env.write("project/AGENTS.md", "# Agents\n\nRun the tests.\n");
    env.write("project/.cursor/mcp.json", other);
    env.write("project/.vscode/mcp.json", "{\n\t// VS Code's JSONC\n\t\"servers\": {\n\t\t\"other\": {\"type\": \"stdio\", \"command\": \"x\"},\n\t},\n}\n");
    env.write("project/.gemini/settings.json", "{\n  \"theme\": \"dark\"\n}\n");
    env.write("home/.gemini/GEMINI.md", "Be brief.\n\n");
    env.write("project/opencode.json", "{\"$schema\":\"https://opencode.ai/config.json\",\"mcp\":{\"other\":{\"type\":\"local\",\"command\":[\"x\"]}}}");
}

#[test]
fn every_host_and_scope_is_set_up_merged_idempotent_and_taken_back_to_the_same_bytes() {
    for host in HOSTS {
        for scope in ["--project", "--user"] {
            let env = Env::new();
            seed(&env);
            let before = env.files();
            let extra: &[&str] = if host == "claude-code" { &["--replace-builtins"] } else { &[] };
            let mut args = vec![host, scope];
            args.extend_from_slice(extra);
            let report = ok(&env.setup(&args));
            let after = env.files();
            assert_ne!(before, after, "{host} {scope} changed nothing");
            insta::assert_snapshot!(
                format!("setup_{host}_{}", &scope[2..]),
                env.portable(&format!("{report}\n{}", changed(&before, &after)))
            );
            // A second run changes nothing and says so.
            let again = ok(&env.setup(&args));
            assert!(!again.contains("created") && !again.contains("updated"), "{again}");
            assert_eq!(env.files(), after, "{host} {scope}: the second run changed files");
            // Every config it wrote still parses, with the user's entries kept.
            for (name, bytes) in &after {
                if before.get(name) == Some(bytes) {
                    continue;
                }
                if name.ends_with(".json") {
                    let parsed = jsonc(&text(bytes));
                    assert!(parsed.is_object(), "{name}: {parsed}");
                    if let Some(Some(old)) = before.get(name).map(|b| Some(jsonc(&text(b)))) {
                        for key in ["mcpServers", "servers", "mcp"] {
                            if let Some(old) = old[key].as_object() {
                                for other in old.keys() {
                                    assert!(parsed[key].get(other).is_some(), "{name}: {other} lost");
                                }
                            }
                        }
                    }
                }
            }
            // --remove takes it all back.
            let mut remove = vec![host, scope, "--remove"];
            remove.retain(|a| *a != "--replace-builtins");
            ok(&env.setup(&remove));
            let back = env.files();
            assert_eq!(
                back.keys().collect::<Vec<_>>(),
                before.keys().collect::<Vec<_>>(),
                "{host} {scope}: files left or lost"
            );
            for (name, bytes) in &before {
                assert_eq!(text(&back[name]), text(bytes), "{host} {scope}: {name} is not as before");
            }
        }
    }
}

/// A JSON or JSONC text's value (comments and trailing commas dropped by hand: the test's
/// files are simple).
fn jsonc(text: &str) -> serde_json::Value {
    let stripped: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
        .replace(",\n}", "\n}")
        .replace(",\n\t}", "\n\t}")
        .replace(",\n\t\t}", "\n\t\t}");
    serde_json::from_str(&stripped).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[test]
fn a_dry_run_prints_the_diff_and_writes_nothing() {
    let env = Env::new();
    seed(&env);
    let before = env.files();
    let out = ok(&env.setup(&["gemini", "--dry-run"]));
    assert_eq!(env.files(), before);
    insta::assert_snapshot!("setup_dry_run_gemini", portable(&out));
    // Once set up, a dry run has nothing to change.
    ok(&env.setup(&["gemini"]));
    assert_eq!(ok(&env.setup(&["gemini", "--dry-run"])), "Nothing to change.\n");
}

/// Runs `setup` expecting a refusal that leaves every file as it was.
fn refused(env: &Env, args: &[&str]) -> String {
    let before = env.files();
    let out = env.setup(args);
    assert!(!out.status.success(), "{args:?} was not refused: {}", text(&out.stdout));
    assert_eq!(env.files(), before, "{args:?}: a refusal wrote something");
    text(&out.stderr)
}

#[test]
fn an_invalid_or_unreadable_config_is_refused_and_left_as_it_is() {
    let env = Env::new();
    env.write("project/CLAUDE.md", "# mine\n");
    env.write("project/.mcp.json", "{\"mcpServers\": {\"a\": 1,}");
    let err = refused(&env, &["claude-code"]);
    assert!(err.contains(".mcp.json cannot be changed") && err.contains("nothing was written"), "{err}");

    env.write("project/.mcp.json", "[1, 2]");
    assert!(refused(&env, &["claude-code"]).contains("not a JSON object"));
    env.write("project/.mcp.json", "{\"mcpServers\": \"none\"}");
    assert!(refused(&env, &["claude-code"]).contains("`mcpServers` is not a JSON object"));
    fs::write(env.project().join(".mcp.json"), b"{\"a\": \"\xff\"}").unwrap();
    assert!(refused(&env, &["claude-code"]).contains("is not UTF-8 text"));
    fs::remove_file(env.project().join(".mcp.json")).unwrap();
    fs::create_dir(env.project().join(".mcp.json")).unwrap();
    assert!(refused(&env, &["claude-code"]).contains("is not a regular file"));

    env.write("project/.codex/config.toml", "model = \n");
    assert!(refused(&env, &["codex"]).contains("not valid TOML"));
    env.write("project/.codex/config.toml", "mcp_servers = 3\n");
    assert!(refused(&env, &["codex"]).contains("`mcp_servers` is not a table"));
}

#[test]
fn a_read_only_config_is_refused_and_left_as_it_is() {
    let env = Env::new();
    env.write("project/.gemini/settings.json", "{}\n");
    let path = env.project().join(".gemini").join("settings.json");
    let mut perms = fs::metadata(&path).unwrap().permissions();
    perms.set_readonly(true);
    fs::set_permissions(&path, perms).unwrap();
    let err = refused(&env, &["gemini"]);
    assert!(err.contains("settings.json is read-only"), "{err}");
    // Nothing else was written either (GEMINI.md is planned after the settings).
    assert!(!env.project().join("GEMINI.md").exists());
}

#[cfg(unix)]
#[test]
fn a_symlinked_config_is_written_through_inside_home_and_refused_outside() {
    use std::os::unix::fs::symlink;
    let env = Env::new();
    // A dotfiles checkout in the home directory: the link is kept, its target changed.
    env.write("home/dotfiles/gemini.json", "{\n  \"theme\": \"dark\"\n}\n");
    fs::create_dir_all(env.home().join(".gemini")).unwrap();
    symlink(env.home().join("dotfiles/gemini.json"), env.home().join(".gemini/settings.json")).unwrap();
    ok(&env.setup(&["gemini", "--user"]));
    assert!(fs::symlink_metadata(env.home().join(".gemini/settings.json")).unwrap().file_type().is_symlink());
    assert!(fs::read_to_string(env.home().join("dotfiles/gemini.json")).unwrap().contains("\"hashline\""));
    ok(&env.setup(&["gemini", "--user", "--remove"]));
    assert_eq!(fs::read_to_string(env.home().join("dotfiles/gemini.json")).unwrap(), "{\n  \"theme\": \"dark\"\n}\n");

    // A link to a file outside the project and home is refused, and so is a directory link.
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("settings.json"), "{}\n").unwrap();
    symlink(outside.path().join("settings.json"), env.project().join("opencode.json")).unwrap();
    let err = refused(&env, &["opencode"]);
    assert!(err.contains("outside the project, the home directory"), "{err}");
    assert_eq!(fs::read_to_string(outside.path().join("settings.json")).unwrap(), "{}\n");
    symlink(outside.path(), env.project().join(".cursor")).unwrap();
    assert!(refused(&env, &["cursor"]).contains("outside the project"));
    assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 1, "nothing was made outside");
    // A dangling link is refused, not replaced by a file.
    symlink(env.root.path().join("missing"), env.project().join("GEMINI.md")).unwrap();
    assert!(refused(&env, &["gemini"]).contains("symbolic link to a missing file"));
}

#[test]
fn replace_builtins_is_for_claude_code_only() {
    let env = Env::new();
    let err = refused(&env, &["codex", "--replace-builtins"]);
    assert!(err.contains("--replace-builtins is for claude-code only"), "{err}");
}

fn hook(env: &Env, input: &str) -> Output {
    let mut child = env
        .command(&["hook", "claude-code"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn the_hook_denies_the_built_in_edit_tools_and_passes_every_other() {
    let env = Env::new();
    for tool in ["Edit", "Write", "MultiEdit", "NotebookEdit"] {
        let event = format!(
            r#"{{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"{tool}","tool_input":{{"file_path":"/x"}}}}"#
        );
        let out = hook(&env, &event);
        let decision: serde_json::Value = serde_json::from_str(&ok(&out)).unwrap();
        assert_eq!(decision["hookSpecificOutput"]["permissionDecision"], "deny");
        assert_eq!(decision["hookSpecificOutput"]["hookEventName"], "PreToolUse");
        if tool == "Edit" {
            insta::assert_snapshot!(
                "hook_reason",
                decision["hookSpecificOutput"]["permissionDecisionReason"].as_str().unwrap()
            );
        }
    }
    for tool in ["Read", "Bash", "Grep", "mcp__hashline__edit", "edit"] {
        let out = hook(&env, &format!(r#"{{"hook_event_name":"PreToolUse","tool_name":"{tool}"}}"#));
        assert_eq!(ok(&out), "", "{tool} passes untouched");
    }
    // The plugin's tools have another prefix; the reason names them so.
    let mut child = env
        .command(&["hook", "claude-code", "--tool-prefix", "mcp__plugin_hashline_hashline__"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(br#"{"hook_event_name":"PreToolUse","tool_name":"Write"}"#).unwrap();
    let out = ok(&child.wait_with_output().unwrap());
    assert!(
        out.contains("mcp__plugin_hashline_hashline__edit changes lines") && !out.contains("mcp__hashline__"),
        "{out}"
    );
    let bad = env.run(&["hook", "claude-code", "--tool-prefix", "x\ny"]);
    assert_eq!(bad.status.code(), Some(2), "{}", text(&bad.stderr));
    // Another event passes too.
    assert_eq!(ok(&hook(&env, r#"{"hook_event_name":"PostToolUse","tool_name":"Edit"}"#)), "");
    for bad in ["", "not json", "{}", "[1]"] {
        let out = hook(&env, bad);
        assert_eq!(out.status.code(), Some(1), "{bad:?}");
        assert!(text(&out.stderr).starts_with("hashline hook:"), "{}", text(&out.stderr));
    }
}

#[test]
fn doctor_reports_each_setup_and_what_is_wrong() {
    let env = Env::new();
    let none = ok(&env.run(&["doctor"]));
    assert!(none.contains("No host is set up for hashline here"), "{none}");

    // Set up with this binary: the server starts and lists seven tools.
    let me = env!("CARGO_BIN_EXE_hashline");
    ok(&env.run(&["setup", "claude-code", "--command", me]));
    ok(&env.run(&["setup", "codex", "--user", "--command", me]));
    // Claude Code leaves a project's servers pending until the folder is trusted.
    let out = env.run(&["doctor"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stdout).contains("problem: Claude Code leaves the project's .mcp.json servers pending"),
        "{}",
        text(&out.stdout)
    );
    let project = fs::canonicalize(env.project()).unwrap();
    let trust = serde_json::json!({"projects": {project.to_string_lossy(): {"hasTrustDialogAccepted": true}}});
    fs::write(env.home().join(".claude.json"), trust.to_string()).unwrap();
    let out = ok(&env.run(&["doctor"]));
    assert!(out.contains("claude-code (project):") && out.contains("codex (user):"), "{out}");
    assert_eq!(out.matches("(this binary)").count(), 2, "{out}");
    assert_eq!(out.matches("starts: yes, 7 tools").count(), 2, "{out}");
    assert!(out.contains("hook: none (`hashline setup claude-code --replace-builtins`"), "{out}");
    let slashed = out.replace('\\', "/");
    assert!(slashed.contains("approved for this user: .claude/settings.local.json"), "{slashed}");
    // The hook, and an older hook of ours (another binary's path), each count as there.
    ok(&env.run(&["setup", "claude-code", "--replace-builtins", "--command", me]));
    let out = ok(&env.run(&["doctor"])).replace('\\', "/");
    assert!(out.contains("hook: .claude/settings.json turns the built-in"), "{out}");
    let settings = env.project().join(".claude").join("settings.json");
    let hooked = fs::read_to_string(&settings).unwrap();
    fs::write(&settings, hooked.replace(&format!("{me} hook claude-code"), "/old/hashline hook claude-code")).unwrap();
    assert!(ok(&env.run(&["doctor"])).replace('\\', "/").contains("hook: .claude/settings.json turns"));
    fs::write(&settings, hooked).unwrap();
    assert!(out.ends_with("2 host entries set up, 0 problems.\n"), "{out}");

    // A command that is gone, and a rule taken out by hand.
    let setup = ok(&env.run(&["setup", "gemini", "--command", "/nonexistent/hashline"]));
    assert!(
        setup.contains("Note: Gemini CLI turns the project's MCP servers off in a folder it does not trust"),
        "{setup}"
    );
    let folders = serde_json::json!({project.to_string_lossy(): "TRUST_FOLDER"});
    fs::create_dir_all(env.home().join(".gemini")).unwrap();
    fs::write(env.home().join(".gemini").join("trustedFolders.json"), folders.to_string()).unwrap();
    fs::write(env.project().join("GEMINI.md"), "mine\n").unwrap();
    let out = env.run(&["doctor"]);
    assert_eq!(out.status.code(), Some(1));
    let out = text(&out.stdout);
    assert!(out.contains("problem: `/nonexistent/hashline` is not found"), "{out}");
    assert!(out.contains("problem: no rule in GEMINI.md"), "{out}");
    assert!(!out.contains("does not trust"), "{out}");
    assert!(out.ends_with("3 host entries set up, 2 problems.\n"), "{out}");

    // A project's entry naming another program, or this one with arguments that write, is
    // not run: a cloned repository's files are not trusted.
    let marker = env.root.path().join("ran");
    let script = env.project().join("evil.sh");
    fs::write(&script, format!("#!/bin/sh\ntouch '{}'\n", marker.display())).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
    }
    let script = script.to_string_lossy().into_owned();
    for (command, args) in [
        (script.as_str(), serde_json::json!(["mcp"])),
        (me, serde_json::json!(["write", "x.txt", "--content", "evil"])),
        (me, serde_json::json!(["mcp", "--log", "/tmp/x"])),
    ] {
        let entry =
            serde_json::json!({"mcpServers": {"hashline": {"command": command, "args": args, "alwaysLoad": true}}});
        fs::write(env.project().join(".cursor").join("mcp.json"), entry.to_string()).unwrap_or_else(|_| {
            fs::create_dir_all(env.project().join(".cursor")).unwrap();
            fs::write(env.project().join(".cursor").join("mcp.json"), entry.to_string()).unwrap();
        });
        let out = text(&env.run(&["doctor"]).stdout);
        assert!(out.contains("— not run: doctor runs a program a project's files name only when"), "{out}");
        assert!(!marker.exists() && !env.project().join("x.txt").exists(), "doctor ran what the project named");
    }
    fs::remove_dir_all(env.project().join(".cursor")).unwrap();

    // A Claude Code entry written by hand, without alwaysLoad.
    let config = env.project().join(".mcp.json");
    let hand = fs::read_to_string(&config).unwrap().replace(",\n      \"alwaysLoad\": true", "");
    assert!(!hand.contains("alwaysLoad"), "{hand}");
    fs::write(&config, hand).unwrap();
    let out = text(&env.run(&["doctor"]).stdout);
    assert!(out.contains("problem: the entry has no \"alwaysLoad\": true"), "{out}");
}

#[test]
fn the_first_root_is_the_project() {
    let env = Env::new();
    fs::create_dir_all(env.project().join("sub")).unwrap();
    ok(&env.run(&["--root", "sub", "setup", "gemini", "--command", "h"]));
    assert!(env.project().join("sub/.gemini/settings.json").is_file());
    assert!(!env.project().join(".gemini").exists());
    let err = text(&env.run(&["--root", "missing", "setup", "gemini"]).stderr);
    assert!(err.contains("is not a directory"), "{err}");
}

/// Text from a project's files (a command, another server's entry, a line of invalid TOML)
/// reaches the terminal with its controls escaped: no escape sequence from the tree is
/// printed as is by doctor, a dry run's diff or a refusal.
#[test]
fn text_from_the_tree_reaches_the_terminal_escaped() {
    let env = Env::new();
    let evil = "x\u{1b}]0;pwned\u{7}\u{1b}[2J";
    let entry = serde_json::json!({"mcpServers": {
        "hashline": {"command": format!("/nonexistent/{evil}"), "args": ["mcp"], "alwaysLoad": true},
    }});
    fs::write(env.project().join(".mcp.json"), entry.to_string()).unwrap();
    let doctor = env.run(&["doctor"]);
    let other = serde_json::json!({"mcpServers": {"other": {"command": evil}}});
    fs::create_dir_all(env.project().join(".cursor")).unwrap();
    fs::write(env.project().join(".cursor").join("mcp.json"), other.to_string()).unwrap();
    let dry = env.setup(&["cursor", "--dry-run"]);
    fs::create_dir_all(env.project().join(".codex")).unwrap();
    fs::write(env.project().join(".codex").join("config.toml"), format!("model = {evil}\n")).unwrap();
    let refused = env.setup(&["codex"]);
    assert!(!refused.status.success());
    for (what, out) in [("doctor", &doctor.stdout), ("dry run", &dry.stdout), ("refusal", &refused.stderr)] {
        let out = text(out);
        assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'), "{what}: {out:?}");
        assert!(out.contains("\\u001b"), "{what} shows the escape escaped: {out:?}");
    }
}
