//! Project automation: `cargo xtask bench`, `cargo xtask replay`, `cargo xtask fixtures`.

mod bench;
mod replay;

use std::path::PathBuf;

use anyhow::Result;
use clap::{Parser, Subcommand};

/// hashline's project tasks.
#[derive(Parser)]
#[command(name = "xtask")]
struct Cli {
    #[command(subcommand)]
    command: Task,
}

#[derive(Subcommand)]
enum Task {
    /// Run the benchmarks and print side-by-side ratios (SPEC §11).
    Bench {
        /// Process runs per measured command.
        #[arg(long, default_value_t = 200)]
        runs: usize,
        /// Skip the criterion micro-benchmarks.
        #[arg(long)]
        no_criterion: bool,
    },
    /// Re-record the session fixtures and schemas (or, with --check, fail on any drift,
    /// missing or orphan file) (SPEC §9).
    Fixtures {
        /// Only check; change nothing.
        #[arg(long)]
        check: bool,
        /// Re-record only this fixture.
        name: Option<String>,
    },
    /// Replay real commits through the read and edit tools and require the post-images
    /// byte for byte (SPEC §12).
    Replay {
        /// The git repository.
        #[arg(long, default_value = ".")]
        repo: PathBuf,
        /// How many commits of the first-parent history, counting back from HEAD.
        #[arg(long, default_value_t = 200)]
        commits: usize,
    },
}

fn main() -> Result<()> {
    match Cli::parse().command {
        Task::Bench { runs, no_criterion } => bench::run(runs, !no_criterion),
        Task::Replay { repo, commits } => replay::main(&repo, commits),
        Task::Fixtures { check, name } => fixtures(check, name.as_deref()),
    }
}

/// `cargo xtask fixtures [--check] [NAME]`.
fn fixtures(check: bool, name: Option<&str>) -> Result<()> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    if check {
        anyhow::ensure!(name.is_none(), "--check checks every fixture; drop the name");
        hashline_fixtures::check(&root)?;
        let count = hashline_fixtures::discover(&root)?.len();
        println!("fixtures: {count} session fixtures and the schemas match their recordings");
    } else {
        let done = hashline_fixtures::update(&root, name)?;
        println!("fixtures: re-recorded {} ({})", done.len(), done.join(", "));
    }
    Ok(())
}
