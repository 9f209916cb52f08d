//! What the CLI's session and map-cache tests share: a project and a state directory
//! (`XDG_STATE_HOME`) apart from it, and running the binary in the project.

use std::process::{Command, Output};

/// A project and a state directory (`XDG_STATE_HOME`) apart from it.
pub struct Env {
    pub project: tempfile::TempDir,
    pub state: tempfile::TempDir,
}

impl Env {
    pub fn new() -> Self {
        Self { project: tempfile::tempdir().expect("project"), state: tempfile::tempdir().expect("state") }
    }

    /// `hashline` with `args`, to run in the project, its state in the state directory.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_hashline"));
        command.args(args).current_dir(self.project.path()).env("XDG_STATE_HOME", self.state.path());
        command
    }

    /// Runs `hashline` with `args` in the project, its state in the state directory.
    pub fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().expect("run hashline")
    }
}
