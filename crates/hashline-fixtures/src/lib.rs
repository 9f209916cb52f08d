//! # hashline-fixtures
//!
//! Session snapshot fixtures (SPEC §9.2–§9.3). A fixture is a folder
//! `fixtures/sessions/<name>/` with `workspace/` (seed files), `session.json` (the
//! [`Script`]), and what recording it produced: `session.jsonl` (the session log, the
//! workspace path tokenized as `{{cwd}}`) and `views.jsonl` (the view of every event as
//! the live path drew it). `cargo xtask fixtures` re-records them (and regenerates
//! `fixtures/schemas/`); `cargo xtask fixtures --check` fails on any drift, on a missing
//! file and on a file that belongs to no fixture.
//!
//! ```no_run
//! let root = std::path::Path::new("fixtures");
//! hashline_fixtures::update(root, None)?;
//! hashline_fixtures::check(root)?;
//! # Ok::<(), hashline_fixtures::FixtureError>(())
//! ```
#![warn(missing_docs)]

mod record;
mod schemas;
mod script;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

pub use record::{Recording, record, record_observed};
pub use schemas::schema_files;
pub use script::{Call, External, Script, Step};

/// The token that stands for the workspace's path in recorded files and in scripts.
pub const CWD_TOKEN: &str = "{{cwd}}";

/// The files of a fixture folder.
const SCRIPT: &str = "session.json";
const LOG: &str = "session.jsonl";
const VIEWS: &str = "views.jsonl";
const WORKSPACE: &str = "workspace";

/// Why fixtures could not be recorded or checked.
#[derive(Debug, thiserror::Error)]
pub enum FixtureError {
    /// A file-system operation failed.
    #[error("cannot {what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The error.
        source: std::io::Error,
    },
    /// A script is malformed or could not be played.
    #[error("{0}")]
    Script(String),
    /// `--check` found problems.
    #[error("{} fixture problem(s):\n{}", .0.len(), .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
    Check(Vec<Problem>),
}

impl FixtureError {
    pub(crate) fn io(what: &str, source: std::io::Error) -> Self {
        Self::Io { what: what.to_owned(), source }
    }
}

/// One thing `--check` found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("[{fixture}] {what}")]
pub struct Problem {
    /// The fixture (or `schemas`).
    pub fixture: String,
    /// What is wrong, with a diff for drift.
    pub what: String,
}

/// A fixture folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fixture {
    /// Its name (the folder's name).
    pub name: String,
    /// Its folder.
    pub dir: PathBuf,
}

impl Fixture {
    /// Reads the script and records the fixture.
    pub fn record(&self) -> Result<Recording, FixtureError> {
        self.record_observed(|_, _| {})
    }

    /// Like [`Fixture::record`], and hands every call's full result to `observe`.
    pub fn record_observed(
        &self,
        observe: impl FnMut(&Call, &hashline::ToolResult),
    ) -> Result<Recording, FixtureError> {
        let text = std::fs::read_to_string(self.dir.join(SCRIPT))
            .map_err(|e| FixtureError::io(&format!("read {}/{SCRIPT}", self.name), e))?;
        let script: Script = serde_json::from_str(&text)
            .map_err(|e| FixtureError::Script(format!("{}/{SCRIPT} is not a valid script: {e}", self.name)))?;
        record_observed(&self.dir.join(WORKSPACE), &script, observe)
            .map_err(|e| FixtureError::Script(format!("recording {} failed: {e}", self.name)))
    }
}

/// The fixture folders under `root/sessions`, by name.
pub fn discover(root: &Path) -> Result<Vec<Fixture>, FixtureError> {
    let sessions = root.join("sessions");
    let entries = std::fs::read_dir(&sessions).map_err(|e| FixtureError::io("list fixtures/sessions", e))?;
    let mut fixtures: Vec<Fixture> = entries
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .map(|e| Fixture { name: e.file_name().to_string_lossy().into_owned(), dir: e.path() })
        .collect();
    fixtures.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(fixtures)
}

/// Re-records every fixture (or the one named `only`) and regenerates the schemas.
/// Returns the names recorded.
pub fn update(root: &Path, only: Option<&str>) -> Result<Vec<String>, FixtureError> {
    let mut done = Vec::new();
    for fixture in discover(root)?.into_iter().filter(|f| only.is_none_or(|o| o == f.name)) {
        let recording = fixture.record()?;
        write(&fixture.dir.join(LOG), &recording.log)?;
        write(&fixture.dir.join(VIEWS), &recording.views)?;
        done.push(fixture.name);
    }
    if let Some(name) = only
        && done.is_empty()
    {
        return Err(FixtureError::Script(format!("no fixture named {name}")));
    }
    if only.is_none() {
        let dir = root.join("schemas");
        std::fs::create_dir_all(&dir).map_err(|e| FixtureError::io("create fixtures/schemas", e))?;
        for (name, text) in schema_files() {
            write(&dir.join(name), &text)?;
        }
    }
    Ok(done)
}

/// Checks every fixture and the schemas against a fresh recording.
pub fn check(root: &Path) -> Result<(), FixtureError> {
    let mut problems = Vec::new();
    let stray = std::fs::read_dir(root.join("sessions")).map_err(|e| FixtureError::io("list fixtures/sessions", e))?;
    for entry in stray.filter_map(Result::ok).filter(|e| !e.path().is_dir()) {
        let name = entry.file_name().to_string_lossy().into_owned();
        problems.push(Problem {
            fixture: name.clone(),
            what: format!("orphan file sessions/{name} (not a fixture folder)"),
        });
    }
    for fixture in discover(root)? {
        let problem = |what: String| Problem { fixture: fixture.name.clone(), what };
        let entries: BTreeSet<String> = std::fs::read_dir(&fixture.dir)
            .map_err(|e| FixtureError::io("list a fixture", e))?
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        for extra in entries.iter().filter(|n| ![SCRIPT, LOG, VIEWS, WORKSPACE].contains(&n.as_str())) {
            problems.push(problem(format!(
                "orphan file {extra} (a fixture holds only {SCRIPT}, {LOG}, {VIEWS} and {WORKSPACE}/)"
            )));
        }
        if !entries.contains(SCRIPT) {
            problems.push(problem(format!("missing {SCRIPT}: a folder without a script is an orphan")));
            continue;
        }
        let recording = match fixture.record() {
            Ok(recording) => recording,
            Err(err) => {
                problems.push(problem(err.to_string()));
                continue;
            }
        };
        for (file, fresh) in [(LOG, &recording.log), (VIEWS, &recording.views)] {
            match std::fs::read_to_string(fixture.dir.join(file)) {
                Err(_) => {
                    problems.push(problem(format!("missing {file}; run `cargo xtask fixtures -- {}`", fixture.name)))
                }
                Ok(stored) if &stored != fresh => {
                    problems.push(problem(format!("{file} drifted:\n{}", diff(&stored, fresh))));
                }
                Ok(_) => {}
            }
        }
    }
    problems.extend(check_schemas(&root.join("schemas")));
    if problems.is_empty() { Ok(()) } else { Err(FixtureError::Check(problems)) }
}

fn check_schemas(dir: &Path) -> Vec<Problem> {
    let problem = |what: String| Problem { fixture: "schemas".to_owned(), what };
    let expected = schema_files();
    let mut problems = Vec::new();
    let present: BTreeSet<String> = std::fs::read_dir(dir)
        .map(|entries| entries.filter_map(Result::ok).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    for extra in present.iter().filter(|n| !expected.contains_key(n.as_str())) {
        problems.push(problem(format!("orphan file {extra}")));
    }
    for (name, text) in &expected {
        match std::fs::read_to_string(dir.join(name)) {
            Err(_) => problems.push(problem(format!("missing {name}; run `cargo xtask fixtures`"))),
            Ok(stored) if &stored != text => {
                problems.push(problem(format!("{name} drifted:\n{}", diff(&stored, text))))
            }
            Ok(_) => {}
        }
    }
    problems
}

fn write(path: &Path, text: &str) -> Result<(), FixtureError> {
    std::fs::write(path, text).map_err(|e| FixtureError::io(&format!("write {}", path.display()), e))
}

/// A unified diff, recorded → fresh, cut to 60 lines.
fn diff(stored: &str, fresh: &str) -> String {
    use imara_diff::{Algorithm, BasicLineDiffPrinter, Diff, InternedInput, UnifiedDiffConfig};
    let input = InternedInput::new(stored, fresh);
    let mut d = Diff::compute(Algorithm::Histogram, &input);
    d.postprocess_lines(&input);
    let mut config = UnifiedDiffConfig::default();
    config.context_len(1);
    let text = d.unified_diff(&BasicLineDiffPrinter(&input.interner), config, &input).to_string();
    let lines: Vec<&str> = text.lines().collect();
    let mut out = lines.iter().take(60).copied().collect::<Vec<_>>().join("\n");
    if lines.len() > 60 {
        out.push_str(&format!("\n… {} more diff lines", lines.len() - 60));
    }
    out
}
