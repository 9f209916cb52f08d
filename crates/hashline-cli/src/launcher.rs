//! `hashline-mcp`: the name the packages on PyPI and npm carry, as a command. It runs the
//! `hashline` installed beside it with the same arguments, and with none it serves MCP on
//! stdio (`hashline mcp`), so that an agent's configuration can be one word:
//! `uvx hashline-mcp`, `npx -y hashline-mcp`.
//!
//! On Unix it replaces itself with `hashline` (the same process: signals and stdio reach the
//! server as they would have reached this); on Windows it runs it and exits with its code.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{Command, ExitCode};

use anyhow::{Context, Result};

/// The `hashline` beside this program.
fn sibling() -> Result<PathBuf> {
    let me = std::env::current_exe().context("cannot tell where hashline-mcp is installed")?;
    let dir = me.parent().context("hashline-mcp has no directory")?;
    Ok(dir.join(format!("hashline{}", std::env::consts::EXE_SUFFIX)))
}

/// The arguments for `hashline`: these, or `mcp` when there are none.
fn arguments(given: Vec<OsString>) -> Vec<OsString> {
    if given.is_empty() { vec![OsString::from("mcp")] } else { given }
}

fn run() -> Result<ExitCode> {
    let hashline = sibling()?;
    let mut command = Command::new(&hashline);
    command.args(arguments(std::env::args_os().skip(1).collect()));
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        let err = command.exec();
        Err(err).with_context(|| format!("cannot run {}", hashline.display()))
    }
    #[cfg(not(unix))]
    {
        let status = command.status().with_context(|| format!("cannot run {}", hashline.display()))?;
        Ok(ExitCode::from(status.code().map_or(1, |code| u8::try_from(code).unwrap_or(1))))
    }
}

fn main() -> ExitCode {
    match run() {
        Ok(code) => code,
        Err(err) => {
            eprintln!("hashline-mcp: {err:#}");
            ExitCode::from(127)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_arguments_serve_mcp_and_others_pass_through() {
        assert_eq!(arguments(vec![]), [OsString::from("mcp")]);
        let given = vec![OsString::from("read"), OsString::from("a.txt")];
        assert_eq!(arguments(given.clone()), given);
    }
}
