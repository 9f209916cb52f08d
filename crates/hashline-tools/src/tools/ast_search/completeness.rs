//! What `ast_search`'s bounds kept from being searched: the value's `completeness` and the
//! line the model sees.

use hashline_search::{AstLimits, AstOutcome, MAX_COMPARE_DEPTH, NotSearched};
use schemars::JsonSchema;
use serde::Serialize;

use crate::session::Session;

/// Whether every file of the search's languages was searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum AstSearchState {
    /// Every file was searched (files that are not UTF-8 or cannot be read are counted in
    /// `skippedFiles`).
    Complete,
    /// A bound kept some files from being searched (listed in `notSearched`).
    Partial,
}

/// Why a file was not searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum NotSearchedReason {
    /// Over the per-file size bound.
    TooLarge,
    /// Its parse or match ran past its time bound, or the search's time was up.
    TimedOut,
    /// The pattern repeats a metavariable and the file nests deeper than the comparison bound.
    TooDeep,
}

/// One file a bound kept from being searched.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NotSearchedFile {
    /// The file's absolute path.
    pub path: String,
    /// Why.
    pub reason: NotSearchedReason,
}

/// What the search left out because of its bounds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AstCompleteness {
    /// `complete`, or `partial` when a bound kept a file from being searched.
    pub search: AstSearchState,
    /// Files over the per-file size bound (4 MiB).
    pub too_large_files: u64,
    /// Files that ran out of time: 2 s to parse, 2 s to match, 30 s for the whole search.
    pub timed_out_files: u64,
    /// Files nesting too deep for a pattern that repeats a metavariable (512 levels).
    pub too_deep_files: u64,
    /// The files not searched, in path order (at most 1000).
    pub not_searched: Vec<NotSearchedFile>,
}

impl AstCompleteness {
    /// The completeness of a search's outcome.
    pub fn of(found: &AstOutcome) -> Self {
        let not_searched = found
            .not_searched
            .iter()
            .map(|(path, why)| NotSearchedFile { path: path.to_string_lossy().into_owned(), reason: reason(*why) })
            .collect();
        let partial = found.too_large_files + found.timed_out_files + found.too_deep_files > 0;
        AstCompleteness {
            search: if partial { AstSearchState::Partial } else { AstSearchState::Complete },
            too_large_files: found.too_large_files,
            timed_out_files: found.timed_out_files,
            too_deep_files: found.too_deep_files,
            not_searched,
        }
    }
}

fn reason(why: NotSearched) -> NotSearchedReason {
    match why {
        NotSearched::TooLarge => NotSearchedReason::TooLarge,
        NotSearched::TimedOut => NotSearchedReason::TimedOut,
        NotSearched::TooDeep => NotSearchedReason::TooDeep,
    }
}

/// How many paths the line names per reason.
const NAMED: usize = 3;

/// The line the model sees when a bound kept files from being searched, e.g.
/// `[Not searched: 2 files over the 4 MiB ast_search limit (a.js, b.js). Use grep on them.]`.
pub fn notice(session: &Session, found: &AstOutcome, limits: AstLimits) -> Option<String> {
    let groups = [
        (
            NotSearched::TooLarge,
            found.too_large_files,
            format!("over the {} ast_search limit", mib(limits.max_file_bytes)),
        ),
        (
            NotSearched::TimedOut,
            found.timed_out_files,
            format!(
                "that ran out of time ({} s to parse, {} s to match, {} s for the whole search)",
                limits.max_parse_time.as_secs_f32(),
                limits.max_match_time.as_secs_f32(),
                limits.max_search_time.as_secs_f32()
            ),
        ),
        (
            NotSearched::TooDeep,
            found.too_deep_files,
            format!(
                "nesting deeper than {MAX_COMPARE_DEPTH} levels, too deep for a pattern that repeats a metavariable"
            ),
        ),
    ];
    let parts: Vec<String> = groups
        .into_iter()
        .filter(|(_, count, _)| *count > 0)
        .map(|(why, count, what)| {
            let names: Vec<String> = found
                .not_searched
                .iter()
                .filter(|(_, w)| *w == why)
                .take(NAMED)
                .map(|(path, _)| session.shown_display(path))
                .collect();
            let more = count.saturating_sub(names.len() as u64);
            let more = if more > 0 { format!(", and {more} more") } else { String::new() };
            let files = if count == 1 { "file" } else { "files" };
            format!("{count} {files} {what} ({}{more})", names.join(", "))
        })
        .collect();
    let mut parts = parts;
    if found.skipped_files > 0 {
        let what = if found.skipped_files == 1 {
            "file or directory that could not be read (or is not UTF-8 text)"
        } else {
            "files or directories that could not be read (or are not UTF-8 text)"
        };
        parts.push(format!("{} {what}", found.skipped_files));
    }
    (!parts.is_empty()).then(|| format!("[Not searched: {}. Use grep on them.]", parts.join("; ")))
}

fn mib(bytes: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    if bytes.is_multiple_of(MIB) { format!("{} MiB", bytes / MIB) } else { format!("{bytes}-byte") }
}
