//! Project automation: `cargo xtask bench`.

mod bench;

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
}

fn main() -> Result<()> {
    match Cli::parse().command {
        Task::Bench { runs, no_criterion } => bench::run(runs, !no_criterion),
    }
}
