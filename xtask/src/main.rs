//! Project automation: `cargo xtask bench`, `cargo xtask replay`, `cargo xtask fixtures`,
//! `cargo xtask tokens`.

mod bench;
mod bench_search;
mod corpus;
mod replay;
mod tokens;

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
        /// Runs per measured command of the search comparisons (grep and find beside
        /// ripgrep on the dependency corpus); 0 skips them.
        #[arg(long, default_value_t = 10)]
        search_runs: usize,
        /// Runs per measured command of the structural-search comparisons (ast_search
        /// beside ast-grep on the bounded Rust sub-corpus).
        #[arg(long, default_value_t = 5)]
        ast_runs: usize,
        /// Skip the criterion micro-benchmarks.
        #[arg(long)]
        no_criterion: bool,
        /// Only the search comparisons.
        #[arg(long)]
        search_only: bool,
        /// Skip the search comparisons.
        #[arg(long, conflicts_with = "search_only")]
        no_search: bool,
        /// Time this hashline binary instead of building the release CLI (e.g. another
        /// checkout's build, for a before/after run on the same inputs).
        #[arg(long, value_name = "BINARY")]
        cli: Option<PathBuf>,
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
        /// Instead of a repository's history: replay each minimized case below this
        /// folder (`<case>/min-pre`, `<case>/min-post`), each as a two-commit repository.
        #[arg(long, value_name = "DIR", conflicts_with_all = ["repo", "commits"])]
        cases: Option<PathBuf>,
    },
    /// What an agent session costs in tokens with hashline, beside str_replace and
    /// apply_patch: real commits replayed as an agent makes them, counted with o200k_base.
    Tokens {
        /// The git repository.
        #[arg(long, default_value = ".")]
        repo: PathBuf,
        /// How many commits of the first-parent history, counting back from HEAD.
        #[arg(long, default_value_t = 200)]
        commits: usize,
        /// Fail unless the targets hold (cost-weighted ≤ 0.75× str_replace, input ≤ 1.3×,
        /// tool definitions ≤ 4,000 tokens).
        #[arg(long)]
        check: bool,
    },
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    if matches!(cli.command, Task::Bench { .. }) && cfg!(debug_assertions) {
        return release_rerun();
    }
    match cli.command {
        Task::Bench { runs, search_runs, ast_runs, no_criterion, search_only, no_search, cli } => {
            bench::run(&bench::Options {
                runs,
                search_runs,
                ast_runs,
                criterion: !no_criterion,
                search_only,
                search: !no_search,
                cli: cli.as_deref(),
            })
        }
        Task::Replay { cases: Some(dir), .. } => replay::main_cases(&dir),
        Task::Replay { repo, commits, cases: None } => replay::main(&repo, commits),
        Task::Fixtures { check, name } => fixtures(check, name.as_deref()),
        Task::Tokens { repo, commits, check } => tokens::main(&tokens::Options { repo, commits, check }),
    }
}

/// Benchmarks time optimized code only: a debug `xtask` runs itself again as a release build
/// with the same arguments.
fn release_rerun() -> Result<()> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let status = std::process::Command::new(cargo)
        .args(["run", "--quiet", "--release", "--package", "xtask", "--"])
        .args(std::env::args_os().skip(1))
        .current_dir(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .status()?;
    anyhow::ensure!(status.success(), "the release benchmark run failed ({status})");
    Ok(())
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
