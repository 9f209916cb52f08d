//! Non-fatal warnings carried in `ptcValue.warnings` and shown in the text.

use serde::Serialize;

/// Every warning code, one table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum WarningCode {
    /// Parameters were ignored or adjusted (offset 0, unknown keys, ...).
    ParamsAdjusted,
    /// The content looks binary.
    BinaryContent,
    /// The file has bare `\r` line endings.
    BareCr,
    /// A large write's anchors were left out of the result.
    AnchorsOmitted,
    /// A structural map was asked for but is not available.
    MapUnavailable,
    /// Legacy top-level `oldText`/`newText` edit input was converted.
    LegacyInput,
    /// A stale anchor was re-aimed at the unique line with its hash nearby.
    AnchorRelocated,
    /// The text of an `AGENTS.md` in a directory above the file read (once per session).
    AgentInstructions,
    /// Something about an edit worth a second look (stripped prefixes, duplicate
    /// targets, a large change, a fuzzy match, ...).
    EditWarning,
    /// A stateless edit used an anchor whose text repeats within the relocation window:
    /// without a session a stale anchor to it can land on a look-alike.
    StatelessRepeatedLine,
    /// The change introduced syntax errors (`syntaxValidate: "warn"`); it was written.
    SyntaxRegression,
    /// A `symbol` was matched by a fuzzy tier (prefix, camelCase word, substring).
    FuzzySymbolMatch,
    /// A `symbol` was not found, or the file type has no symbols: the whole file is shown.
    SymbolWarning,
    /// `bundle: "local"` could not choose the support symbols safely.
    BundleContextUnavailable,
    /// A `replace_symbol` body declares another name than the symbol it replaces.
    NameMismatch,
    /// grep `scope: "symbol"`: the file has no symbol map (its type has none, or it did not
    /// parse): its matches are shown as plain rows.
    UnmappableFile,
    /// grep `scope: "symbol"`: a match lies outside every symbol: it is shown as plain rows.
    NoEnclosingSymbol,
    /// Session start found entries in the root's `.hashline-journal/` that hashline did not
    /// write (or cannot act on safely): they were left as they are, and nothing was done
    /// with them.
    JournalRecordIgnored,
    /// edit: a text `replace` matched text, not an anchor: it verified no view of the file.
    ReplaceUnverified,
    /// grep, find, ast_search: an ignore file could not be read safely (a FIFO, a device,
    /// over 1 MiB, unreadable): the walk went on without its rules.
    IgnoreFileSkipped,
    /// grep, ast_search: files a walk did not search (binary: a NUL byte in the first 8 KiB;
    /// unreadable: not readable, too deep for the system's paths, not UTF-8 for ast_search),
    /// counted and the first named, so that no file is left out without a word.
    FilesSkipped,
    /// edit: the `snapshot` cited is not in the store of what this principal was shown
    /// (never shown here, evicted, altered, collided): its anchors were checked as uncited
    /// anchors are.
    SnapshotFallback,
}

/// How many ignore files a walk's warnings name one by one.
pub const NAMED_IN_WARNINGS: usize = 3;

/// The longest name a warning shows whole, in characters: a longer one (a path thousands of
/// directories deep) keeps its first 60 and last 90 characters around `…`.
const MAX_NAME_CHARS: usize = 160;

/// `name` cut to [`MAX_NAME_CHARS`] around `…`.
fn shorten(name: &str) -> String {
    let count = name.chars().count();
    if count <= MAX_NAME_CHARS {
        return name.to_owned();
    }
    let head: String = name.chars().take(60).collect();
    let tail: String = name.chars().skip(count - 90).collect();
    format!("{head}…{tail}")
}

/// `names`, each [`shorten`]ed, `, `-separated.
fn shortened(names: &[String]) -> String {
    names.iter().map(|n| shorten(n)).collect::<Vec<_>>().join(", ")
}

/// One warning.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Warning {
    /// The stable code.
    pub code: WarningCode,
    /// The text shown to the model.
    pub message: String,
    /// `fuzzy-symbol-match`: what was matched, and how (so that programs need not parse the
    /// text).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<Box<FuzzySymbol>>,
}

/// The symbol a fuzzy `symbol` query matched (`fuzzy-symbol-match`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FuzzySymbol {
    /// The query as given.
    pub query: String,
    /// The tier that matched: `prefix`, `camelCase` or `substring`.
    pub tier: String,
    /// The matched symbol's name.
    pub name: String,
    /// Its kind (`function`, `class`, ...).
    pub kind: String,
    /// Its parent's name, when nested.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_name: Option<String>,
    /// Its first line (1-based).
    pub start_line: u32,
    /// Its last line.
    pub end_line: u32,
    /// Other symbols the query matched at the same tier.
    pub candidates: Vec<String>,
}

impl Warning {
    /// A warning from its parts.
    pub fn new(code: WarningCode, message: impl Into<String>) -> Self {
        Self { code, message: message.into(), symbol: None }
    }

    /// The `ignore-file-skipped` warnings of a walk: one per ignore file for the first
    /// [`NAMED_IN_WARNINGS`], then one that counts the rest (a tree of thousands of broken
    /// ignore files cannot fill a result with warnings). `shown` gives a path's shown form.
    pub fn ignore_files_skipped(
        skipped: &[hashline_search::SkippedIgnoreFile],
        shown: impl Fn(&std::path::Path) -> String,
    ) -> Vec<Self> {
        let mut warnings: Vec<Self> = skipped
            .iter()
            .take(NAMED_IN_WARNINGS)
            .map(|s| Self::ignore_file_skipped(&shorten(&shown(&s.path)), &s.reason))
            .collect();
        if let Some(more) = skipped.len().checked_sub(NAMED_IN_WARNINGS).filter(|&n| n > 0) {
            warnings.push(Self::new(
                WarningCode::IgnoreFileSkipped,
                format!("[Warning: {more} more ignore files skipped; their rules were not applied]"),
            ));
        }
        warnings
    }

    /// The `ignore-file-skipped` warning, e.g.
    /// `[Warning: ignore file .gitignore skipped (not a regular file); its rules were not applied]`.
    pub fn ignore_file_skipped(shown_path: &str, reason: &hashline_search::SkipReason) -> Self {
        Self::new(
            WarningCode::IgnoreFileSkipped,
            format!("[Warning: ignore file {shown_path} skipped ({reason}); its rules were not applied]"),
        )
    }

    /// The `files-skipped` warning: `[Warning: not searched: 1 binary file (a NUL byte in
    /// its first 8 KiB: build.rs); 2 unreadable files or directories (a, b). Read a file to
    /// see it.]`. `groups` are `(count, one, many, names)`; a group with no count is left
    /// out; `then` ends the line.
    pub fn files_skipped(groups: &[(u64, &str, &str, Vec<String>)], then: &str) -> Option<Self> {
        let parts: Vec<String> = groups
            .iter()
            .filter(|(count, ..)| *count > 0)
            .map(|(count, one, many, names)| {
                let what = if *count == 1 { one } else { many };
                let more = count.saturating_sub(names.len() as u64);
                match (names.is_empty(), more) {
                    (true, _) => format!("{count} {what}"),
                    (false, 0) => format!("{count} {what}: {}", shortened(names)),
                    (false, more) => format!("{count} {what}: {}, and {more} more", shortened(names)),
                }
            })
            .collect();
        (!parts.is_empty()).then(|| {
            Self::new(WarningCode::FilesSkipped, format!("[Warning: not searched: {}. {then}]", parts.join("; ")))
        })
    }

    /// The `params-adjusted` warning for a list of adjustments, e.g.
    /// `[Read params adjusted: ignored offset 0; ignored limit 0]`.
    pub fn params_adjusted(label: &str, adjustments: &[String]) -> Self {
        Self::new(WarningCode::ParamsAdjusted, format!("[{label} adjusted: {}]", adjustments.join("; ")))
    }
}

/// The `journal-record-ignored` warning of what recovery left alone in the journal
/// (`ignored`: names in it, or the journal itself), if anything.
pub fn journal_record_ignored(ignored: &[String]) -> Option<Warning> {
    use hashline_fs::JOURNAL_DIR;
    let (first, rest) = ignored.split_first()?;
    let mut shown = vec![hashline_core::display::escape_name(first)];
    shown.extend(rest.iter().take(2).map(|name| hashline_core::display::escape_name(name)));
    let more = match rest.len().saturating_sub(2) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    Some(Warning::new(
        WarningCode::JournalRecordIgnored,
        format!(
            "[Warning: ignored {} in {JOURNAL_DIR}/ not written by hashline for this root ({}{more}): nothing was done with {}. Remove {JOURNAL_DIR}/ unless a hashline of yours was interrupted here.]",
            match ignored.len() {
                1 => "1 entry".to_owned(),
                n => format!("{n} entries"),
            },
            shown.join(", "),
            if ignored.len() == 1 { "it" } else { "them" },
        ),
    ))
}
