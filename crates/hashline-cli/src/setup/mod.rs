//! `hashline setup <host>`: registers `hashline mcp` with an agent host in the host's own
//! files and tells its model, in the host's instructions file, to read and edit through
//! hashline's tools (docs/protocol.md §8, "Setting up a host").
//!
//! Every change is merged into what is there (other servers, comments and formatting stay),
//! a second run changes nothing, `--dry-run` prints the change as a unified diff, and
//! `--remove` takes back what `setup` adds, leaving each file's bytes as they were before it.
//! Nothing is written unless every file's change could be made.

mod block;
mod files;
pub mod hosts;
mod json;
mod toml;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, anyhow};
use hashline::core::display::{escape_controls, escape_name};
use imara_diff::{Algorithm, BasicLineDiffPrinter, Diff, InternedInput, UnifiedDiffConfig};

pub use block::present as block_present;
pub use files::read as read_config;
pub use hosts::{Edit, Host, Places, Role, Scope, Target, targets};
pub use json::{JsonChange, holds as json_holds, parse_value};

/// What `setup` was asked to do.
pub struct Request {
    /// The host.
    pub host: Host,
    /// Project or user.
    pub scope: Scope,
    /// Print the change, write nothing.
    pub dry_run: bool,
    /// Take the setup back.
    pub remove: bool,
    /// Claude Code: also the hook that turns the built-in edit tools off.
    pub replace_builtins: bool,
    /// The command the server entry runs (default: this binary).
    pub command: Option<String>,
    /// The project (the first `--root`; default: the working directory).
    pub project: Option<PathBuf>,
}

/// The command a server entry should run: `hashline` when that is this binary on `PATH`,
/// else this binary's full path.
pub fn default_command() -> Result<String> {
    let exe = std::env::current_exe().context("cannot find this program's path")?;
    let exe = hashline::fs::lookup::canonicalize(&exe).unwrap_or(exe);
    if let Ok(found) = which::which("hashline")
        && hashline::fs::lookup::canonicalize(&found).is_ok_and(|f| f == exe)
    {
        return Ok("hashline".to_owned());
    }
    exe.into_os_string().into_string().map_err(|_| anyhow!("this program's path is not UTF-8; pass --command"))
}

/// The new text of `target`'s file (`None`: the file goes), from its current text.
pub fn change(target: &Target, text: Option<&str>, host: Host, remove: bool) -> Result<Option<String>> {
    match &target.edit {
        Edit::Json(change) => json::apply(text, change, remove),
        Edit::Toml { command } => toml::apply(text, "mcp_servers", "hashline", command, &["mcp"], remove),
        Edit::Block { rule } => Ok(block::apply(text, host.name(), rule, remove)),
        Edit::Own { text: ours } => Ok(match (remove, text) {
            (false, _) => Some(ours.clone()),
            (true, Some(t)) if t == ours => None,
            (true, t) => t.map(str::to_owned),
        }),
    }
}

/// Runs `setup`.
pub fn run(request: &Request) -> Result<ExitCode> {
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let project = request.project.as_ref().map_or(cwd.clone(), |p| cwd.join(p));
    if !project.is_dir() {
        anyhow::bail!("the project {} is not a directory", project.display());
    }
    let places = Places::from_env(project).ok_or_else(|| anyhow!("no home directory: set HOME"))?;
    let command = match &request.command {
        Some(c) => c.clone(),
        None => default_command()?,
    };
    let hook = request.replace_builtins || request.remove;
    if request.replace_builtins && request.host != Host::ClaudeCode {
        anyhow::bail!("--replace-builtins is for claude-code only (the other hosts have no such hook)");
    }
    let allowed = places.allowed();
    let plan = targets(request.host, request.scope, &places, &command, hook);

    // Everything is read and changed in memory first: a file that cannot be changed stops
    // the run before anything is written.
    let mut changes = Vec::new();
    for target in &plan {
        let found = files::read(&target.path, &allowed)?;
        let new = change(target, found.text.as_deref(), request.host, request.remove)
            .with_context(|| format!("{} cannot be changed", target.path.display()))
            .map_err(|err| {
                anyhow!("{}; it was left as it is, and nothing was written", escape_name(&format!("{err:#}")))
            })?;
        if new.as_deref() != found.text.as_deref() && !request.dry_run {
            files::check_writable(&found)?;
        }
        changes.push((target, found, new));
    }

    // Each file's fate, once.
    let fates: Vec<Fate> =
        changes.iter().map(|(_, found, new)| Fate::of(found.text.as_deref(), new.as_deref())).collect();
    let mut out = anstream::stdout().lock();
    let shown = |path: &Path| display(path, &places);
    if request.dry_run {
        for ((_, found, new), fate) in changes.iter().zip(&fates) {
            if *fate != Fate::Unchanged {
                write!(out, "{}", diff(&shown(&found.path), found.text.as_deref(), new.as_deref()))?;
            }
        }
        if fates.iter().all(|fate| *fate == Fate::Unchanged) {
            writeln!(out, "Nothing to change.")?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    // New files and new texts are staged, then every file to be changed is checked to be
    // still as read, then all are put in place.
    let mut staged = Vec::new();
    for ((_, found, new), fate) in changes.iter().zip(&fates) {
        if let (Fate::Created | Fate::Updated, Some(text)) = (fate, new) {
            staged.push(files::stage(found, text)?);
        }
    }
    for ((_, found, _), fate) in changes.iter().zip(&fates) {
        if *fate != Fate::Unchanged {
            files::still(found)?;
        }
    }
    for file in staged {
        file.commit()?;
    }
    for ((target, found, _), fate) in changes.iter().zip(&fates) {
        if *fate == Fate::Removed {
            files::remove(found, &allowed)?;
        }
        writeln!(out, "{:<9} {}  ({})", fate.word(), shown(&target.path), role(target.role, request.host))?;
    }
    if !request.remove {
        let next = match request.host {
            Host::ClaudeCode => "restart Claude Code (or run /mcp)",
            Host::Codex => "start a new Codex session",
            Host::Cursor => "reload Cursor's window; its MCP settings list hashline",
            Host::Vscode => "start the server from .vscode/mcp.json (or MCP: List Servers)",
            Host::Gemini => "start a new Gemini CLI session",
            Host::Opencode => "start a new opencode session",
        };
        writeln!(out, "Next: {next}; `hashline doctor` checks the setup.")?;
        if request.scope == Scope::Project
            && let Some(why) = crate::doctor::untrusted(request.host, &places)
        {
            writeln!(out, "Note: {why}.")?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// What happens to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fate {
    Unchanged,
    Created,
    Updated,
    Removed,
}

impl Fate {
    fn of(old: Option<&str>, new: Option<&str>) -> Fate {
        match (old, new) {
            (old, new) if old == new => Fate::Unchanged,
            (None, _) => Fate::Created,
            (Some(_), None) => Fate::Removed,
            (Some(_), Some(_)) => Fate::Updated,
        }
    }

    fn word(self) -> &'static str {
        match self {
            Fate::Unchanged => "unchanged",
            Fate::Created => "created",
            Fate::Updated => "updated",
            Fate::Removed => "removed",
        }
    }
}

fn role(role: Role, host: Host) -> String {
    match role {
        Role::Server => format!("the MCP server \"hashline\" for {}", host.name()),
        Role::Approval => "this user's approval of the project's server".to_owned(),
        Role::Rule => "the rule telling the model to use hashline's tools".to_owned(),
        Role::Hook => "the hook that turns the built-in Edit, Write, MultiEdit, NotebookEdit off".to_owned(),
    }
}

/// A path as the user knows it: relative to the project, `~/…` in the home directory.
pub fn display(path: &Path, places: &Places) -> String {
    if let Ok(rel) = path.strip_prefix(&places.project) {
        return rel.display().to_string();
    }
    if let Ok(rel) = path.strip_prefix(&places.home) {
        return PathBuf::from("~").join(rel).display().to_string();
    }
    path.display().to_string()
}

/// A unified diff of one file (`/dev/null` for a file made or removed).
fn diff(name: &str, old: Option<&str>, new: Option<&str>) -> String {
    let (a, b) = (old.unwrap_or(""), new.unwrap_or(""));
    let input = InternedInput::new(a, b);
    let mut d = Diff::compute(Algorithm::Histogram, &input);
    d.postprocess_lines(&input);
    let body = d.unified_diff(&BasicLineDiffPrinter(&input.interner), UnifiedDiffConfig::default(), &input).to_string();
    // The lines are the files' own (a project's are the tree's): controls escaped.
    let body: String = body.lines().map(|line| format!("{}\n", escape_controls(line))).collect();
    let from = if old.is_some() { format!("a/{name}") } else { "/dev/null".to_owned() };
    let to = if new.is_some() { format!("b/{name}") } else { "/dev/null".to_owned() };
    format!("--- {from}\n+++ {to}\n{body}")
}
