//! Project automation: `cargo xtask bench`, `cargo xtask replay`.

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
    }
}
