//! `hashline doctor`: which hosts are set up for hashline (project and user), whether each
//! server entry's command is this binary (or at least this version), whether the server it
//! names starts and lists the seven tools, and what to do about each problem. Exit 1 when a
//! host is set up with a problem; a host not set up is no problem.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use anyhow::{Context, Result, anyhow};
use serde_json::{Value, json};

use hashline::core::display::escape_name;

use crate::setup::{self, Edit, Host, Places, Role, Scope};

/// The tools a server must list.
const TOOLS: [&str; 7] = ["read", "grep", "ast_search", "edit", "write", "ls", "find"];

/// How long a server may take to answer `initialize` and `tools/list`.
const START_TIMEOUT: Duration = Duration::from_secs(20);

/// Runs `doctor`.
pub fn run() -> Result<ExitCode> {
    let project = std::env::current_dir().context("cannot read the working directory")?;
    let places = Places::from_env(project).ok_or_else(|| anyhow!("no home directory: set HOME"))?;
    let me = std::env::current_exe().ok().and_then(|p| hashline::fs::lookup::canonicalize(&p).ok());
    let mut out = anstream::stdout().lock();
    writeln!(
        out,
        "hashline {} at {}",
        env!("CARGO_PKG_VERSION"),
        me.as_deref().map_or("?".into(), |p| p.display().to_string())
    )?;
    let mut problems = 0;
    let mut set_up = 0;
    for host in Host::ALL {
        for scope in [Scope::Project, Scope::User] {
            let report = check(host, scope, &places, me.as_deref());
            match report {
                Report::Absent => {}
                Report::Found { lines, problems: p } => {
                    set_up += 1;
                    problems += p;
                    writeln!(out, "{} ({}):", host.name(), scope.name())?;
                    // Commands, paths and parse errors come from the hosts' files (a
                    // project's are the tree's): their controls are escaped.
                    for line in lines {
                        writeln!(out, "  {}", escape_name(&line))?;
                    }
                }
            }
        }
    }
    if set_up == 0 {
        writeln!(
            out,
            "No host is set up for hashline here. `hashline setup <host>` sets one up (claude-code, codex, cursor, vscode, gemini, opencode; --user for every project)."
        )?;
    }
    writeln!(
        out,
        "{} set up, {problems} problem{}.",
        plural(set_up, "host entry", "host entries"),
        if problems == 1 { "" } else { "s" }
    )?;
    Ok(if problems == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

enum Report {
    Absent,
    Found { lines: Vec<String>, problems: usize },
}

fn check(host: Host, scope: Scope, places: &Places, me: Option<&Path>) -> Report {
    let plan = setup::targets(host, scope, places, "hashline", true);
    let allowed = places.allowed();
    let Some(server) = plan.iter().find(|t| t.role == Role::Server) else { return Report::Absent };
    let shown = setup::display(&server.path, places);
    let again = match scope {
        Scope::Project => format!("hashline setup {}", host.name()),
        Scope::User => format!("hashline setup {} --user", host.name()),
    };
    let mut lines = Vec::new();
    let mut problems = 0;
    let mut problem = |lines: &mut Vec<String>, text: String| {
        problems += 1;
        lines.push(format!("problem: {text}"));
    };
    let text = match setup::read_config(&server.path, &allowed) {
        Ok(found) => match found.text {
            Some(text) => text,
            None => return Report::Absent,
        },
        Err(err) => {
            problem(&mut lines, format!("{err:#}"));
            return Report::Found { lines, problems };
        }
    };
    let entry = match entry(&server.edit, &text) {
        Ok(Some(entry)) => entry,
        Ok(None) => return Report::Absent,
        Err(err) => {
            problem(&mut lines, format!("{shown}: {err:#}; fix the file, then run `{again}`"));
            return Report::Found { lines, problems };
        }
    };
    let (command, args) = entry;
    lines.push(format!(
        "server: {shown} runs `{}`",
        std::iter::once(command.as_str()).chain(args.iter().map(String::as_str)).collect::<Vec<_>>().join(" ")
    ));
    if host == Host::ClaudeCode
        && setup::parse_value(&text)
            .ok()
            .is_some_and(|v| v["mcpServers"]["hashline"]["alwaysLoad"] != Value::Bool(true))
    {
        problem(
            &mut lines,
            format!(
                "the entry has no \"alwaysLoad\": true, so Claude Code's tool search hides hashline's tools from a first turn; run `{again}`"
            ),
        );
    }
    match resolve(&command) {
        None => problem(
            &mut lines,
            format!("`{command}` is not found; install hashline on PATH or run `{again}` to name this binary"),
        ),
        Some(path) if scope == Scope::Project && !runnable(&path, &args, me) => {
            // A project's files are not trusted (a cloned repository may name any program):
            // doctor runs nothing they name but this binary serving MCP on stdio.
            lines.push(format!(
                "command: {} — not run: doctor runs a program a project's files name only when it is this \
                 binary with `mcp` and no arguments but --root, --structured-content and --budget",
                path.display()
            ));
        }
        Some(path) => {
            let this = me.is_some_and(|me| hashline::fs::lookup::canonicalize(&path).is_ok_and(|p| p == me));
            let version = version_of(&path);
            match (&version, this) {
                (_, true) => lines.push(format!("command: {} (this binary)", path.display())),
                (Some(v), false) if v == env!("CARGO_PKG_VERSION") => {
                    lines.push(format!("command: {} (another binary, the same version {v})", path.display()))
                }
                (Some(v), false) => problem(
                    &mut lines,
                    format!(
                        "`{}` is hashline {v}, this is {}; run `{again}` to name this binary",
                        path.display(),
                        env!("CARGO_PKG_VERSION")
                    ),
                ),
                (None, false) => problem(
                    &mut lines,
                    format!("`{}` is not hashline (its --version says otherwise); run `{again}`", path.display()),
                ),
            }
            match start(&path, &args, &places.project) {
                Ok(tools) if TOOLS.iter().all(|t| tools.iter().any(|n| n == t)) => {
                    lines.push(format!("starts: yes, {} tools ({})", tools.len(), tools.join(", ")))
                }
                Ok(tools) => problem(
                    &mut lines,
                    format!("the server lists {} tools ({}), not hashline's seven", tools.len(), tools.join(", ")),
                ),
                Err(err) => problem(&mut lines, format!("the server does not start: {err:#}")),
            }
        }
    }
    if scope == Scope::Project
        && let Some(untrusted) = untrusted(host, places)
    {
        problem(&mut lines, untrusted);
    }
    for target in plan.iter().filter(|t| t.role != Role::Server) {
        let name = setup::display(&target.path, places);
        let text = setup::read_config(&target.path, &allowed).ok().and_then(|f| f.text);
        let here = match (&target.edit, &text) {
            (_, None) => false,
            (Edit::Block { .. }, Some(t)) => setup::block_present(t, host.name()),
            (Edit::Own { .. }, Some(_)) => true,
            (Edit::Json(change), Some(t)) => setup::json_holds(t, change),
            (Edit::Toml { .. }, Some(_)) => true,
        };
        let line = match (target.role, here) {
            (Role::Rule, true) => format!("rule: {name}"),
            (Role::Rule, false) => {
                problem(
                    &mut lines,
                    format!("no rule in {name}: the model may keep to the built-in file tools; run `{again}`"),
                );
                continue;
            }
            (Role::Approval, true) => format!("approved for this user: {name}"),
            (Role::Approval, false) => {
                problem(
                    &mut lines,
                    format!(
                        "the project's server is not approved for this user ({name}); run `{again}`, or approve it in Claude Code's /mcp"
                    ),
                );
                continue;
            }
            (Role::Hook, true) => format!("hook: {name} turns the built-in Edit, Write, MultiEdit, NotebookEdit off"),
            (Role::Hook, false) => {
                format!("hook: none (`{again} --replace-builtins` turns the built-in edit tools off)")
            }
            (Role::Server, _) => continue,
        };
        lines.push(line);
    }
    Report::Found { lines, problems }
}

/// The server entry's command and arguments, `None` when there is no hashline entry.
fn entry(edit: &Edit, text: &str) -> Result<Option<(String, Vec<String>)>> {
    let strings = |v: &Value| -> Vec<String> {
        v.as_array().map(|a| a.iter().filter_map(|s| s.as_str().map(str::to_owned)).collect()).unwrap_or_default()
    };
    match edit {
        Edit::Toml { .. } => {
            let doc: toml_edit::DocumentMut = text.parse().context("not valid TOML")?;
            let Some(server) = doc.get("mcp_servers").and_then(|t| t.get("hashline")) else { return Ok(None) };
            let command = server.get("command").and_then(|c| c.as_str()).unwrap_or_default().to_owned();
            let args = server
                .get("args")
                .and_then(|a| a.as_array())
                .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect())
                .unwrap_or_default();
            Ok(Some((command, args)))
        }
        Edit::Json(setup_change) => {
            let value = setup::parse_value(text)?;
            let (setup::JsonChange::Member { path: key, .. } | setup::JsonChange::Item { path: key, .. }) =
                setup_change;
            let mut here = &value;
            for name in key {
                here = &here[name];
            }
            let server = &here["hashline"];
            if server.is_null() {
                return Ok(None);
            }
            Ok(Some(match &server["command"] {
                Value::Array(parts) => {
                    let parts = strings(&Value::Array(parts.clone()));
                    let (first, rest) = parts.split_first().map(|(f, r)| (f.clone(), r.to_vec())).unwrap_or_default();
                    (first, rest)
                }
                command => (command.as_str().unwrap_or_default().to_owned(), strings(&server["args"])),
            }))
        }
        _ => Ok(None),
    }
}

/// Whether a project's entry may be run: this binary, `mcp`, and only arguments that neither
/// write nor listen (`--root`, `--structured-content`, `--budget`, each with its value).
fn runnable(path: &Path, args: &[String], me: Option<&Path>) -> bool {
    let this = me.is_some_and(|me| hashline::fs::lookup::canonicalize(path).is_ok_and(|p| p == me));
    let Some((first, rest)) = args.split_first() else { return false };
    if !this || first != "mcp" || rest.len() % 2 != 0 {
        return false;
    }
    rest.chunks(2).all(|pair| {
        matches!(pair[0].as_str(), "--root" | "--structured-content" | "--budget") && !pair[1].starts_with('-')
    })
}

/// A command as the host would run it: a path, or a name looked up on PATH.
fn resolve(command: &str) -> Option<PathBuf> {
    if command.is_empty() {
        return None;
    }
    let path = Path::new(command);
    if path.components().count() > 1 {
        return path.is_file().then(|| path.to_path_buf());
    }
    which::which(command).ok()
}

/// The version `<path> --version` prints when it is hashline.
fn version_of(path: &Path) -> Option<String> {
    let out = Command::new(path).arg("--version").stdin(Stdio::null()).stderr(Stdio::null()).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    text.trim().strip_prefix("hashline ").map(str::to_owned)
}

/// Starts the server as the host would, asks for its tools, and stops it.
fn start(path: &Path, args: &[String], dir: &Path) -> Result<Vec<String>> {
    let mut child = Command::new(path)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .with_context(|| format!("cannot run {}", path.display()))?;
    let mut stdin = child.stdin.take().context("no standard input")?;
    let stdout = child.stdout.take().context("no standard output")?;
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let result = (|| -> Result<Vec<String>> {
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "hashline-doctor", "version": env!("CARGO_PKG_VERSION")}}});
        writeln!(stdin, "{init}")?;
        wait_for(&rx, 1)?;
        writeln!(stdin, "{}", json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
        writeln!(stdin, "{}", json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))?;
        let reply = wait_for(&rx, 2)?;
        let tools = reply["result"]["tools"].as_array().ok_or_else(|| anyhow!("tools/list answered {reply}"))?;
        Ok(tools.iter().filter_map(|t| t["name"].as_str().map(str::to_owned)).collect())
    })();
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    result
}

fn wait_for(rx: &mpsc::Receiver<String>, id: u64) -> Result<Value> {
    let deadline = std::time::Instant::now() + START_TIMEOUT;
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        let line = rx.recv_timeout(left).map_err(|_| anyhow!("no answer within {} s", START_TIMEOUT.as_secs()))?;
        let Ok(reply) = serde_json::from_str::<Value>(&line) else { continue };
        if reply["id"] == id {
            if let Some(err) = reply.get("error") {
                return Err(anyhow!("it answered an error: {err}"));
            }
            return Ok(reply);
        }
    }
}

/// Why `host` ignores the project's setup until the user trusts the folder, when it does:
/// Claude Code leaves `.mcp.json` servers pending, Codex does not read `.codex/config.toml`,
/// Gemini CLI turns the servers off. Trusting a folder lets its files run commands, so it is
/// the user's to give in the host; `setup` does not write it.
pub fn untrusted(host: Host, places: &Places) -> Option<String> {
    let project = hashline::fs::lookup::canonicalize(&places.project).unwrap_or_else(|_| places.project.clone());
    let dirs: Vec<&Path> = project.ancestors().chain(places.project.ancestors()).collect();
    // Hosts key folders by path as they wrote it: compared in one form (`same_form`).
    let names: Vec<String> = dirs.iter().map(|d| same_form(&d.to_string_lossy())).collect();
    let is_ours = |key: &str| names.contains(&same_form(key));
    let read = |path: PathBuf| {
        hashline::fs::open::read_regular(&path, 16 << 20).ok().and_then(|bytes| String::from_utf8(bytes).ok())
    };
    match host {
        Host::ClaudeCode => {
            let config = match &places.claude_dir {
                Some(dir) => dir.join(".claude.json"),
                None => places.home.join(".claude.json"),
            };
            let value = read(config).and_then(|t| setup::parse_value(&t).ok()).unwrap_or(Value::Null);
            let trusted = value["projects"].as_object().is_some_and(|projects| {
                projects.iter().any(|(key, p)| is_ours(key) && p["hasTrustDialogAccepted"] == Value::Bool(true))
            });
            (!trusted).then(|| {
                "Claude Code leaves the project's .mcp.json servers pending until the folder is trusted: \
                 start `claude` here once and accept its trust dialog"
                    .to_owned()
            })
        }
        Host::Codex => {
            let codex = places.codex_home.clone().unwrap_or_else(|| places.home.join(".codex"));
            let doc: Option<toml_edit::DocumentMut> = read(codex.join("config.toml")).and_then(|t| t.parse().ok());
            let trusted = doc.is_some_and(|doc| {
                doc.get("projects").and_then(|p| p.as_table_like()).is_some_and(|projects| {
                    projects.iter().any(|(key, p)| {
                        is_ours(key) && p.get("trust_level").and_then(|t| t.as_str()) == Some("trusted")
                    })
                })
            });
            (!trusted).then(|| {
                format!(
                    "Codex reads the project's .codex/config.toml only in a trusted project: start `codex` here and \
                     trust it (or add [projects.\"{}\"] trust_level = \"trusted\" to {})",
                    project.display(),
                    codex.join("config.toml").display()
                )
            })
        }
        Host::Gemini => {
            let dir = places.home.join(".gemini");
            let settings =
                read(dir.join("settings.json")).and_then(|t| setup::parse_value(&t).ok()).unwrap_or(Value::Null);
            if settings["security"]["folderTrust"]["enabled"] == Value::Bool(false) {
                return None;
            }
            let folders =
                read(dir.join("trustedFolders.json")).and_then(|t| setup::parse_value(&t).ok()).unwrap_or(Value::Null);
            let trusted = folders.as_object().is_some_and(|folders| {
                folders.iter().any(|(path, level)| match level.as_str() {
                    Some("TRUST_FOLDER") => is_ours(path),
                    Some("TRUST_PARENT") => {
                        Path::new(path).parent().is_some_and(|parent| is_ours(&parent.to_string_lossy()))
                    }
                    _ => false,
                })
            });
            (!trusted).then(|| {
                "Gemini CLI turns the project's MCP servers off in a folder it does not trust: start `gemini` here \
                 and trust the folder"
                    .to_owned()
            })
        }
        Host::Cursor | Host::Vscode | Host::Opencode => None,
    }
}

/// A folder's path in one form for comparing: no trailing `/`; on Windows also without the
/// `\\?\` prefix, with `/` between names, in lower case.
fn same_form(path: &str) -> String {
    if !cfg!(windows) {
        return if path.len() > 1 { path.trim_end_matches('/').to_owned() } else { path.to_owned() };
    }
    let path = path.strip_prefix(r"\\?\").unwrap_or(path).replace('\\', "/").to_lowercase();
    if path.len() > 1 { path.trim_end_matches('/').to_owned() } else { path }
}
