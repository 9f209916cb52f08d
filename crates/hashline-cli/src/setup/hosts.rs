//! Where each host keeps its MCP servers and its instructions, per scope, and what `setup`
//! writes there (docs/protocol.md §8, "Setting up a host", lists the same).

use std::path::{Path, PathBuf};

use clap::ValueEnum;
use serde_json::{Value, json};

use super::json::JsonChange;

/// An agent host `setup` knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Host {
    /// Claude Code.
    #[value(name = "claude-code")]
    ClaudeCode,
    /// OpenAI's Codex CLI.
    Codex,
    /// Cursor.
    Cursor,
    /// VS Code with GitHub Copilot.
    Vscode,
    /// Gemini CLI.
    Gemini,
    /// opencode.
    Opencode,
}

impl Host {
    /// Every host, in the order `doctor` reports them.
    pub const ALL: [Host; 6] =
        [Host::ClaudeCode, Host::Codex, Host::Cursor, Host::Vscode, Host::Gemini, Host::Opencode];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Host::ClaudeCode => "claude-code",
            Host::Codex => "codex",
            Host::Cursor => "cursor",
            Host::Vscode => "vscode",
            Host::Gemini => "gemini",
            Host::Opencode => "opencode",
        }
    }
}

/// Where the setup goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The project: files in the working directory, for everyone who checks it out.
    Project,
    /// The user: the host's files in the home directory, for every project.
    User,
}

impl Scope {
    /// `project` or `user`.
    pub fn name(self) -> &'static str {
        match self {
            Scope::Project => "project",
            Scope::User => "user",
        }
    }
}

/// Where things are: the project, the home directory, and the hosts' own overrides.
#[derive(Debug, Clone)]
pub struct Places {
    /// The project directory (the working directory).
    pub project: PathBuf,
    /// The user's home directory.
    pub home: PathBuf,
    /// `CLAUDE_CONFIG_DIR`, when set.
    pub claude_dir: Option<PathBuf>,
    /// `CODEX_HOME`, when set.
    pub codex_home: Option<PathBuf>,
    /// `XDG_CONFIG_HOME`, when set (Linux; opencode everywhere).
    pub xdg_config: Option<PathBuf>,
    /// `APPDATA` (Windows).
    pub appdata: Option<PathBuf>,
}

impl Places {
    /// From the environment.
    pub fn from_env(project: PathBuf) -> Option<Places> {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        let home = var("HOME").or_else(|| var("USERPROFILE"))?;
        Some(Places {
            project,
            home,
            claude_dir: var("CLAUDE_CONFIG_DIR"),
            codex_home: var("CODEX_HOME"),
            xdg_config: var("XDG_CONFIG_HOME"),
            appdata: var("APPDATA"),
        })
    }

    /// The directories `setup` may write in: the project, the home directory, and the
    /// hosts' config directories named by the environment.
    pub fn allowed(&self) -> Vec<&Path> {
        let mut dirs = vec![self.project.as_path(), self.home.as_path()];
        for dir in [&self.claude_dir, &self.codex_home, &self.xdg_config, &self.appdata].into_iter().flatten() {
            dirs.push(dir);
        }
        dirs
    }

    fn xdg(&self) -> PathBuf {
        self.xdg_config.clone().unwrap_or_else(|| self.home.join(".config"))
    }

    fn claude(&self) -> PathBuf {
        self.claude_dir.clone().unwrap_or_else(|| self.home.join(".claude"))
    }

    fn codex(&self) -> PathBuf {
        self.codex_home.clone().unwrap_or_else(|| self.home.join(".codex"))
    }

    /// VS Code's user directory.
    fn vscode_user(&self) -> PathBuf {
        if cfg!(windows) {
            self.appdata.clone().unwrap_or_else(|| self.home.join("AppData").join("Roaming")).join("Code").join("User")
        } else if cfg!(target_os = "macos") {
            self.home.join("Library").join("Application Support").join("Code").join("User")
        } else {
            self.xdg().join("Code").join("User")
        }
    }
}

/// What one file gets.
#[derive(Debug, Clone)]
pub enum Edit {
    /// A change to a JSON file.
    Json(JsonChange),
    /// `[mcp_servers.hashline]` in Codex's TOML.
    Toml { command: String },
    /// The marked rule block in a Markdown instructions file.
    Block { rule: String },
    /// A file that is all ours (Cursor's rule, VS Code's user instructions).
    Own { text: String },
}

/// What a file is for, in `setup`'s report and `doctor`'s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The MCP server entry.
    Server,
    /// Approving the project's server for this user (Claude Code).
    Approval,
    /// The rule for the model.
    Rule,
    /// The hook that turns the built-in edit tools off (Claude Code, `--replace-builtins`).
    Hook,
}

/// One file `setup` writes and what goes in it.
#[derive(Debug, Clone)]
pub struct Target {
    /// The file.
    pub path: PathBuf,
    /// What it is for.
    pub role: Role,
    /// The change.
    pub edit: Edit,
}

/// The rule every host's instructions get.
pub const RULE: &str = "Read, search and edit files with the hashline MCP tools (read, grep, ast_search, edit, write, \
ls, find) instead of the built-in file tools. Every line they show carries a LINE:HASH anchor: edit changes lines by \
those anchors, copied from the latest result, with the snapshot tag that result printed, and refuses a stale anchor \
with fresh rows instead of applying it.";

/// The hook command Claude Code runs before its built-in edit tools.
pub fn hook_command(command: &str) -> String {
    format!("{} hook claude-code", quote(command))
}

/// `command` as a shell word (Claude Code runs hooks through a shell).
fn quote(command: &str) -> String {
    if command.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+:=@%,".contains(c)) {
        command.to_owned()
    } else if cfg!(windows) {
        format!("\"{command}\"")
    } else {
        format!("'{}'", command.replace('\'', r"'\''"))
    }
}

/// The built-in tools the hook turns off.
pub const BUILTIN_EDITS: &str = "Edit|Write|MultiEdit|NotebookEdit";

fn hook_entry(command: &str) -> Value {
    json!({"matcher": BUILTIN_EDITS, "hooks": [{"type": "command", "command": hook_command(command)}]})
}

/// An older hook entry of ours (another binary's path, say).
fn is_our_hook(value: &Value) -> bool {
    value["hooks"].as_array().is_some_and(|hooks| {
        hooks.iter().any(|h| h["command"].as_str().is_some_and(|c| c.ends_with(" hook claude-code")))
    })
}

fn member(path: &[&str], value: Value) -> Edit {
    Edit::Json(JsonChange::Member { path: path.iter().map(|s| s.to_string()).collect(), key: "hashline".into(), value })
}

/// The files `setup <host>` writes in `scope`, and what each gets. With `hook`, Claude Code
/// also gets the hook (`--remove` always takes it back).
pub fn targets(host: Host, scope: Scope, places: &Places, command: &str, hook: bool) -> Vec<Target> {
    let p = &places.project;
    let stdio = json!({"command": command, "args": ["mcp"]});
    let rule = Edit::Block { rule: RULE.to_owned() };
    let target = |path: PathBuf, role: Role, edit: Edit| Target { path, role, edit };
    let mut out = Vec::new();
    match (host, scope) {
        (Host::ClaudeCode, _) => {
            let server = json!({"type": "stdio", "command": command, "args": ["mcp"], "alwaysLoad": true});
            let (config, settings, memory) = match scope {
                Scope::Project => (p.join(".mcp.json"), p.join(".claude").join("settings.json"), p.join("CLAUDE.md")),
                Scope::User => {
                    let config = match &places.claude_dir {
                        Some(dir) => dir.join(".claude.json"),
                        None => places.home.join(".claude.json"),
                    };
                    (config, places.claude().join("settings.json"), places.claude().join("CLAUDE.md"))
                }
            };
            out.push(target(config, Role::Server, member(&["mcpServers"], server)));
            if scope == Scope::Project {
                // A project's `.mcp.json` server waits for each user's approval; this user's is
                // given in their local settings (not checked in).
                out.push(target(
                    p.join(".claude").join("settings.local.json"),
                    Role::Approval,
                    Edit::Json(JsonChange::Item {
                        path: vec!["enabledMcpjsonServers".into()],
                        value: json!("hashline"),
                        same: |_| false,
                    }),
                ));
            }
            out.push(target(memory, Role::Rule, rule));
            if hook {
                out.push(target(
                    settings,
                    Role::Hook,
                    Edit::Json(JsonChange::Item {
                        path: vec!["hooks".into(), "PreToolUse".into()],
                        value: hook_entry(command),
                        same: is_our_hook,
                    }),
                ));
            }
        }
        (Host::Codex, _) => {
            let dir = match scope {
                Scope::Project => p.join(".codex"),
                Scope::User => places.codex(),
            };
            out.push(target(dir.join("config.toml"), Role::Server, Edit::Toml { command: command.to_owned() }));
            let agents = match scope {
                Scope::Project => p.join("AGENTS.md"),
                Scope::User => dir.join("AGENTS.md"),
            };
            out.push(target(agents, Role::Rule, rule));
        }
        (Host::Cursor, _) => {
            let dir = match scope {
                Scope::Project => p.join(".cursor"),
                Scope::User => places.home.join(".cursor"),
            };
            out.push(target(dir.join("mcp.json"), Role::Server, member(&["mcpServers"], stdio)));
            if scope == Scope::Project {
                let text = format!(
                    "---\ndescription: Edit files through hashline's anchored tools\nalwaysApply: true\n---\n\n{RULE}\n"
                );
                out.push(target(dir.join("rules").join("hashline.mdc"), Role::Rule, Edit::Own { text }));
            }
        }
        (Host::Vscode, Scope::Project) => {
            let server = json!({"type": "stdio", "command": command, "args": ["mcp"]});
            out.push(target(p.join(".vscode").join("mcp.json"), Role::Server, member(&["servers"], server)));
            out.push(target(p.join(".github").join("copilot-instructions.md"), Role::Rule, rule));
        }
        (Host::Vscode, Scope::User) => {
            let user = places.vscode_user();
            let server = json!({"type": "stdio", "command": command, "args": ["mcp"]});
            out.push(target(user.join("mcp.json"), Role::Server, member(&["servers"], server)));
            let text = format!("---\napplyTo: \"**\"\n---\n\n{RULE}\n");
            out.push(target(user.join("prompts").join("hashline.instructions.md"), Role::Rule, Edit::Own { text }));
        }
        (Host::Gemini, _) => {
            let (dir, memory) = match scope {
                Scope::Project => (p.join(".gemini"), p.join("GEMINI.md")),
                Scope::User => (places.home.join(".gemini"), places.home.join(".gemini").join("GEMINI.md")),
            };
            out.push(target(dir.join("settings.json"), Role::Server, member(&["mcpServers"], stdio)));
            out.push(target(memory, Role::Rule, rule));
        }
        (Host::Opencode, _) => {
            let dir = match scope {
                Scope::Project => p.clone(),
                Scope::User => places.xdg().join("opencode"),
            };
            // opencode reads opencode.jsonc as well; an existing one is the one to change.
            let jsonc = dir.join("opencode.jsonc");
            let config = if jsonc.exists() { jsonc } else { dir.join("opencode.json") };
            let server = json!({"type": "local", "command": [command, "mcp"], "enabled": true});
            out.push(target(config, Role::Server, member(&["mcp"], server)));
            out.push(target(dir.join("AGENTS.md"), Role::Rule, rule));
        }
    }
    out
}
