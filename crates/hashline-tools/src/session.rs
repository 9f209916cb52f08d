//! The session: roots and path policy, the served-lines ledger, per-path mutation locks.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use hashline_core::snapshot::{Link, ShownLines};
use hashline_core::{LineHash, LineNo};
use typed_builder::TypedBuilder;

use crate::changes::ChangeLog;
use crate::error::{ErrorCode, ToolError};
use crate::fsio::WriteState;
use crate::ledger::Ledger;
use crate::log::{LOG_VERSION, LogEvent, LogWriter, LoggedResult};
use crate::map_store::MapStore;
use crate::paths::{self, ResolvedPath};
use crate::result::{CallContext, ToolResult};
use crate::snapshots::{MemorySnapshots, Snapshots};
use crate::tree_cache::TreeCache;
use crate::warning::Warning;
use hashline_fs::Journal;
use hashline_fs::RootDir;
use hashline_fs::{CommitError, Hook, Member, Stage};
use hashline_fs::{FileId, Target};

/// How a session is set up.
///
/// ```
/// use hashline_tools::{Session, SessionConfig};
/// let dir = tempfile::tempdir().unwrap();
/// let session = Session::new(SessionConfig::builder().root(dir.path()).build()).unwrap();
/// assert!(session.is_stateful());
/// ```
#[derive(Clone, TypedBuilder)]
pub struct SessionConfig {
    /// The working directory: relative paths resolve against it, and it is the first root.
    #[builder(setter(into))]
    pub root: PathBuf,
    /// More directories the tools may touch.
    #[builder(default)]
    pub extra_roots: Vec<PathBuf>,
    /// Allow paths outside every root.
    #[builder(default)]
    pub unconfined: bool,
    /// A stateful session applies the read-before-edit gate and the served-lines guard;
    /// a stateless one (a lone CLI call) only checks every anchor's hash.
    #[builder(default = true)]
    pub stateful: bool,
    /// A hook called at each stage of every commit (tests and the fault suite inject
    /// failures and races with it); none by default.
    #[builder(default = Arc::new(|_, _| Ok(())), setter(transform = |hook: impl Fn(Stage, &Path) -> std::io::Result<()> + Send + Sync + 'static| Arc::new(hook) as Arc<Hook>))]
    pub hook: Arc<Hook>,
    /// Where to log calls and results (SPEC §9.1); no log when absent.
    #[builder(default, setter(strip_option))]
    pub log: Option<Arc<LogWriter>>,
    /// Where symbol maps are kept between processes (the CLI's per-root map cache); none
    /// by default: maps are then cached for the process only.
    #[builder(default, setter(strip_option))]
    pub map_store: Option<Arc<MapStore>>,
    /// A read of a code file parses it on a background thread and keeps the tree, so that
    /// the first edit's syntax check reparses only what it changes (issue 23). On by
    /// default, for sessions that outlive a call (MCP); a process that ends with its call
    /// (the CLI) turns it off.
    #[builder(default = true)]
    pub parse_on_read: bool,
    /// The store of the snapshots this principal was shown (docs/protocol.md §1.5): sessions
    /// of one principal share one. By default the session has its own, in memory.
    #[builder(default, setter(strip_option))]
    pub snapshots: Option<Arc<dyn Snapshots>>,
}

impl std::fmt::Debug for SessionConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionConfig")
            .field("root", &self.root)
            .field("extra_roots", &self.extra_roots)
            .field("unconfined", &self.unconfined)
            .field("stateful", &self.stateful)
            .field("map_store", &self.map_store)
            .field("parse_on_read", &self.parse_on_read)
            .finish_non_exhaustive()
    }
}

/// One agent's session with the tools. `Send + Sync`: tools take `&Session` and may run
/// concurrently; mutations of one file are serialized by [`Session::lock_path`].
pub struct Session {
    roots: Vec<PathBuf>,
    root_dirs: Vec<RootDir>,
    /// `/`, for unconfined paths outside every root (opened when first needed).
    slash: std::sync::OnceLock<Option<RootDir>>,
    confined: bool,
    stateful: bool,
    hook: Arc<Hook>,
    /// Identity → the path the session knows the file by.
    aliases: Mutex<Aliases>,
    /// Each file's modification time when last loaded (see [`Session::modified`]).
    modified: Mutex<HashMap<PathBuf, std::time::SystemTime>>,
    log: Option<Arc<LogWriter>>,
    log_error: Mutex<Option<String>>,
    next_call: AtomicU64,
    visibility: Mutex<Visibility>,
    ledger: Mutex<Ledger>,
    /// What the session's edits and writes committed (for `revert`).
    changes: Mutex<ChangeLog>,
    locks: Mutex<HashMap<PathBuf, Arc<Mutex<()>>>>,
    trees: TreeCache,
    map_store: Option<Arc<MapStore>>,
    /// Whether a read parses code files in the background (see [`SessionConfig`]).
    parse_on_read: bool,
    /// What this principal was shown, by snapshot tag.
    snapshots: Arc<dyn Snapshots>,
    /// How often paths were resolved and targets opened (the tests count an edit's).
    #[cfg(test)]
    pub(crate) counts: Counts,
}

impl Session {
    /// Opens a session. The root (and every extra root) must be an existing directory.
    pub fn new(config: SessionConfig) -> Result<Self, ToolError> {
        let mut roots = Vec::with_capacity(1 + config.extra_roots.len());
        for root in std::iter::once(&config.root).chain(&config.extra_roots) {
            let real = hashline_fs::lookup::canonicalize(root).map_err(|err| {
                ToolError::new(
                    ErrorCode::PathNotFound,
                    format!("Session root is not accessible: {} — {err}", root.display()),
                )
            })?;
            if !real.is_dir() {
                return Err(ToolError::new(
                    ErrorCode::PathNotDirectory,
                    format!("Session root is not a directory: {}", root.display()),
                ));
            }
            roots.push(real);
        }
        let mut root_dirs = Vec::with_capacity(roots.len());
        for root in &roots {
            root_dirs.push(RootDir::open(root).map_err(|err| {
                ToolError::new(
                    ErrorCode::PathNotFound,
                    format!("Session root is not accessible: {} — {err}", root.display()),
                )
            })?);
        }
        // Recovery at session start: groups of files that a stopped process left half
        // committed are rolled back; the next top-level result says so.
        let recovery = hashline_fs::recover(&root_dirs[0]);
        let journal_warning = crate::warning::journal_record_ignored(&recovery.ignored);
        let notices = recovery.restored.iter().map(|files| {
            format!(
                "[Recovered an interrupted edit: {} restored to the content before it (the process making it stopped before it finished). Re-run read to refresh.]",
                files.join(", ")
            )
        });
        let session = Self {
            roots,
            root_dirs,
            slash: std::sync::OnceLock::new(),
            confined: !config.unconfined,
            stateful: config.stateful,
            hook: config.hook,
            aliases: Mutex::new(Aliases::default()),
            modified: Mutex::new(HashMap::new()),
            log: config.log,
            log_error: Mutex::new(None),
            next_call: AtomicU64::new(1),
            visibility: Mutex::new(Visibility {
                stale: notices.collect(),
                warnings: journal_warning.into_iter().collect(),
                ..Visibility::default()
            }),
            ledger: Mutex::new(Ledger::default()),
            changes: Mutex::new(ChangeLog::default()),
            locks: Mutex::new(HashMap::new()),
            trees: TreeCache::default(),
            map_store: config.map_store,
            parse_on_read: config.parse_on_read,
            snapshots: config.snapshots.unwrap_or_else(|| Arc::new(MemorySnapshots::default())),
            #[cfg(test)]
            counts: Counts::default(),
        };
        let root = session.cwd().to_string_lossy().into_owned();
        session.log_event(&LogEvent::Session { version: LOG_VERSION, root });
        Ok(session)
    }

    /// A stateful, confined session rooted at `root`.
    pub fn open(root: impl Into<PathBuf>) -> Result<Self, ToolError> {
        Self::new(SessionConfig::builder().root(root).build())
    }

    /// The working directory (the first root), symlinks resolved.
    pub fn cwd(&self) -> &Path {
        &self.roots[0]
    }

    /// Every root, symlinks resolved.
    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// Whether the read gate and served-lines guard apply.
    pub fn is_stateful(&self) -> bool {
        self.stateful
    }

    /// Resolves a path argument and applies the root policy (`path-outside-root`). The
    /// key of a file the session already knows by another name — a hard link, or the same
    /// file under another spelling (macOS' file systems fold case and Unicode
    /// normalization; a bind mount shows one directory twice) — is that name, so that one
    /// file is one file to the ledger, the locks and the duplicate checks (SPEC §7.4).
    pub fn resolve(&self, raw: &str) -> Result<ResolvedPath, ToolError> {
        #[cfg(test)]
        self.counts.resolved.fetch_add(1, Ordering::Relaxed);
        let mut path = paths::resolve(raw, self.cwd(), &self.roots, self.confined)?;
        if let Some(root) = self.root_dirs.iter().find(|r| r.path() == path.root)
            && root.moved()
        {
            return Err(ToolError::new(
                ErrorCode::RootMoved,
                format!(
                    "The root {} was moved, removed or replaced since this session began: its path no longer leads to the directory the session works in. Nothing was read or written.",
                    hashline_core::display::escape_name(&root.path().to_string_lossy())
                ),
            )
            .with_hint("Start a new session (restart the server or the agent) to work in the directory now at that path.")
            .with_path(path.absolute_str()));
        }
        path.key = self.key_of(&path.real);
        Ok(path)
    }

    /// The identity key of the file at `real` (see [`Session::resolve`]): the first name
    /// this session resolved the file (device, inode) by, while that name still leads to
    /// it; for a file with several hard links that the session has not resolved yet, a
    /// name with rows in the ledger; else `real` itself.
    pub fn key_of(&self, real: &Path) -> PathBuf {
        self.key_of_known(real, hashline_fs::lookup::identity(real))
    }

    /// [`Session::key_of`] for a file whose identity and link count were just read (a search
    /// that opened it: `FileHits::identity`), or are to be looked up (`None`).
    pub fn key_of_known(&self, real: &Path, identity: Option<(FileId, u64)>) -> PathBuf {
        let Some((id, nlink)) = identity.or_else(|| hashline_fs::lookup::identity(real)) else {
            return real.to_path_buf();
        };
        let mut aliases = self.aliases.lock().unwrap_or_else(|p| p.into_inner());
        if nlink > 1 && !aliases.ledger_indexed {
            // The ledger's names (rows served by earlier processes of a CLI session) are
            // looked up once, not for every hard-linked file met (that was quadratic: a
            // grep over a hard-linked tree stat'ed every name served so far per file).
            // Names served later in this process came through here, so they are known.
            aliases.ledger_indexed = true;
            let ledger = self.ledger();
            for known in ledger.paths() {
                #[cfg(test)]
                self.counts.ledger_stats.fetch_add(1, Ordering::Relaxed);
                if let Some((known_id, _)) = FileId::of_path(known) {
                    aliases.by_id.entry(known_id).or_insert_with(|| known.to_path_buf());
                }
            }
        }
        if let Some(known) = aliases.by_id.get(&id) {
            // A name that no longer leads to this file (removed, its inode number reused
            // since) is no alias any more.
            if known == real || hashline_fs::lookup::identity(known).is_some_and(|(now, _)| now == id) {
                return known.clone();
            }
        }
        let key = real.to_path_buf();
        aliases.by_id.insert(id, key.clone());
        key
    }

    /// The directory handle of the root `path` lies below.
    fn root_of(&self, path: &ResolvedPath) -> Result<&RootDir, ToolError> {
        if let Some(root) = self.root_dirs.iter().find(|r| r.path() == path.root) {
            return Ok(root);
        }
        self.slash.get_or_init(|| RootDir::open(Path::new("/")).ok()).as_ref().ok_or_else(|| {
            ToolError::new(ErrorCode::FsError, format!("Cannot open the file system root for {}", path.display))
        })
    }

    /// Loads a regular file through its root's handle (SPEC §7.4), and notes the
    /// modification time its handle gave (see [`Session::modified`]).
    pub fn read_file(&self, path: &ResolvedPath) -> Result<Vec<u8>, ToolError> {
        let (bytes, modified) = crate::fsio::read_regular_file(self.root_of(path)?, path)?;
        self.note_modified(&path.key, modified);
        Ok(bytes)
    }

    /// Notes the modification time of the file `key` as an open handle of it gave.
    pub fn note_modified(&self, key: &Path, modified: Option<std::time::SystemTime>) {
        let mut times = self.modified.lock().unwrap_or_else(|p| p.into_inner());
        match modified {
            Some(time) => times.insert(key.to_path_buf(), time),
            None => times.remove(key),
        };
    }

    /// The modification time of the file `key` when this session last loaded it (through
    /// the handle it read the bytes from, not a look-up by name).
    pub fn modified(&self, key: &Path) -> Option<std::time::SystemTime> {
        self.modified.lock().unwrap_or_else(|p| p.into_inner()).get(key).copied()
    }

    /// Opens and locks a file about to be changed (see [`Target::open`]).
    pub fn open_target(&self, path: &ResolvedPath, create_parents: bool) -> std::io::Result<Target> {
        #[cfg(test)]
        self.counts.opened.fetch_add(1, Ordering::Relaxed);
        let root = self.root_of(path).map_err(|err| std::io::Error::other(err.message))?;
        Target::open(root, path.rel(), &path.real, create_parents)
    }

    /// Commits new bytes to opened targets, all or none (SPEC §7.3, §7.5).
    pub fn commit(&self, members: &[Member<'_>]) -> Result<Vec<WriteState>, (usize, CommitError)> {
        let states = hashline_fs::atomic::commit(&Journal::new(&self.root_dirs[0]), members, &*self.hook)?;
        Ok(states.into_iter().map(WriteState::from).collect())
    }

    /// Shows `path` relative to the working directory when it lies below it, with `/`
    /// between components on every system ([`hashline_search::shown_path`]).
    pub fn relative_display(&self, path: &Path) -> String {
        hashline_search::shown_path(path, self.cwd())
    }

    /// [`Session::relative_display`] as a text a model or a terminal reads shows it: every
    /// control, newline and bidi control escaped ([`hashline_core::display::escape_name`]).
    pub fn shown_display(&self, path: &Path) -> String {
        let display = self.relative_display(path);
        match hashline_core::display::escape_name(&display) {
            std::borrow::Cow::Borrowed(_) => display,
            std::borrow::Cow::Owned(escaped) => escaped,
        }
    }

    /// The served-lines ledger.
    pub fn ledger(&self) -> MutexGuard<'_, Ledger> {
        self.ledger.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The syntax trees of files the session recently wrote or checked (reused by the
    /// next syntax check of the same bytes).
    pub fn syntax_trees(&self) -> &TreeCache {
        &self.trees
    }

    /// Whether a read parses code files in the background and keeps their trees.
    pub fn parses_on_read(&self) -> bool {
        self.parse_on_read
    }

    /// The store of the snapshots this principal was shown.
    pub fn snapshots(&self) -> &dyn Snapshots {
        &*self.snapshots
    }

    /// Records that a file's `bytes` were shown with rows (a read, grep, write …), and
    /// returns the tag the result names them by. Call [`note_shown`](Self::note_shown) with
    /// the rows shown.
    pub fn show_snapshot(&self, bytes: &[u8]) -> hashline_core::snapshot::SnapshotTag {
        self.snapshots.insert(bytes).tag
    }

    /// Records that a result showed the rows `lines` (1-based) under `tag`. A snapshot first
    /// shown as a view of its own vouches for every row already; one made from another (an
    /// edit's result, a refusal's rows) vouches for these rows from now on too, and stays
    /// linked: the model may still hold the rows of the views it was made from.
    pub fn note_shown(&self, tag: hashline_core::snapshot::SnapshotTag, lines: impl IntoIterator<Item = u32>) {
        if let Some(link) = self.snapshots.link_of(tag) {
            let shown = link.shown.union(&ShownLines::from_lines(lines));
            if shown != link.shown {
                self.snapshots.link(tag, Link { shown, ..link });
            }
        }
    }

    /// Records that a file's `bytes` were shown as a partial view made from `parent` (an
    /// edit's result, a refusal's rows), showing the lines `shown` (1-based), and returns
    /// the tag. The same bytes as `parent` only add `shown` to what `parent` was shown.
    pub fn show_partial(
        &self,
        bytes: &[u8],
        parent: hashline_core::snapshot::SnapshotTag,
        shown: impl IntoIterator<Item = u32>,
    ) -> hashline_core::snapshot::SnapshotTag {
        self.show_linked(bytes, parent, ShownLines::from_lines(shown), false)
    }

    /// Records that a refusal showed the rows `shown` (1-based) of `bytes`, the file as it
    /// is now, to a model that cited `cited`, and returns the tag. The rows mean this
    /// snapshot's lines whatever the views it was made from say, so the retry the refusal
    /// asks for resolves: a new snapshot is linked to `cited` with them confirmed; when the
    /// file is still `cited`, they are added to its shown and confirmed lines (a view of its
    /// own already vouches for every row).
    pub fn show_refused(
        &self,
        bytes: &[u8],
        cited: hashline_core::snapshot::SnapshotTag,
        shown: impl IntoIterator<Item = u32>,
    ) -> hashline_core::snapshot::SnapshotTag {
        self.show_linked(bytes, cited, ShownLines::from_lines(shown), true)
    }

    /// What `show_partial` (`confirm: false`) and `show_refused` (`confirm: true`) share:
    /// new bytes are linked to `parent` with `shown` (and, confirming, as confirmed rows);
    /// the parent's own bytes, when linked, get `shown` added (and confirmed).
    fn show_linked(
        &self,
        bytes: &[u8],
        parent: hashline_core::snapshot::SnapshotTag,
        shown: ShownLines,
        confirm: bool,
    ) -> hashline_core::snapshot::SnapshotTag {
        let tag = self.snapshots.insert(bytes).tag;
        let confirmed = if confirm { shown.clone() } else { ShownLines::default() };
        if tag != parent {
            self.snapshots.link(tag, Link { parent, shown, confirmed });
        } else if let Some(link) = self.snapshots.link_of(tag) {
            let (more_shown, more_confirmed) = (link.shown.union(&shown), link.confirmed.union(&confirmed));
            if more_shown != link.shown || more_confirmed != link.confirmed {
                self.snapshots.link(tag, Link { parent: link.parent, shown: more_shown, confirmed: more_confirmed });
            }
        }
        tag
    }

    /// The on-disk store of symbol maps, when the session has one.
    pub fn map_store(&self) -> Option<&MapStore> {
        self.map_store.as_deref()
    }

    /// The session's changes (see [`crate::changes`]).
    pub fn changes(&self) -> MutexGuard<'_, ChangeLog> {
        self.changes.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Replaces the change log: to resume a persisted session's, or to give its ids a
    /// known tag (fixtures).
    pub fn restore_changes(&self, changes: ChangeLog) {
        *self.changes() = changes;
    }

    /// Replaces the ledger (used to resume a persisted session).
    pub fn restore_ledger(&self, ledger: Ledger) {
        *self.ledger() = ledger;
    }

    /// Records rows shown to the model for a file (keyed by its real path): search results,
    /// refusals. They add names and take none away (see [`Ledger::record`]).
    pub fn record_served<I>(&self, real: &Path, rows: I, complete: bool)
    where
        I: IntoIterator<Item = (LineNo, LineHash)>,
    {
        self.ledger().record(real, rows, complete);
    }

    /// Records the rows of a `read` of a file: they settle the names they show (see
    /// [`Ledger::record_read`]).
    pub fn record_read<I>(&self, real: &Path, rows: I, complete: bool)
    where
        I: IntoIterator<Item = (LineNo, LineHash)>,
    {
        self.ledger().record_read(real, rows, complete);
    }

    /// A fresh call id (`call-1`, `call-2`, ...) for calls that come without one.
    pub fn next_call_id(&self) -> String {
        format!("call-{}", self.next_call.fetch_add(1, Ordering::Relaxed))
    }

    /// Whether calls are being logged.
    pub fn is_logging(&self) -> bool {
        self.log.is_some()
    }

    /// Logs a call as it starts (no-op without a log).
    pub fn log_call(&self, call_id: &str, name: &str, args: &serde_json::Value, parent_call_id: Option<&str>) {
        if self.log.is_none() {
            return;
        }
        self.log_event(&LogEvent::Call {
            call_id: call_id.to_owned(),
            name: name.to_owned(),
            args: args.clone(),
            parent_call_id: parent_call_id.map(str::to_owned),
        });
    }

    /// Logs a call's result (no-op without a log).
    pub fn log_result(&self, call_id: &str, result: &ToolResult) {
        if self.log.is_none() {
            return;
        }
        self.log_event(&LogEvent::Result { call_id: call_id.to_owned(), result: LoggedResult::of(result) });
    }

    /// The first error writing the log, if any (a failing log never fails a call).
    pub fn log_error(&self) -> Option<String> {
        self.log_error.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn log_event(&self, event: &LogEvent) {
        if let Some(log) = &self.log
            && let Err(err) = log.append(event)
        {
            self.log_error.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert(err.to_string());
        }
    }

    /// Notes that a top-level (model-visible) call showed rows of a file.
    pub fn note_visible(&self, real: &Path, ctx: &CallContext) {
        if ctx.is_top_level() {
            self.visibility().visible.insert(real.to_path_buf());
        }
    }

    /// Notes a mutation of a file. A nested call's mutation of a file that a visible
    /// result showed makes that view stale: the next top-level result says so, once.
    pub fn note_mutation(&self, real: &Path, shown_as: &str, ctx: &CallContext) {
        let mut visibility = self.visibility();
        if !ctx.is_top_level() && visibility.visible.remove(real) {
            visibility.stale.push(format!(
                "[Stale read context: {shown_as} changed after an earlier read. Re-run read to refresh.]"
            ));
        }
    }

    /// Takes the pending stale-context notices (for a top-level result).
    pub fn take_stale_notices(&self) -> Vec<String> {
        std::mem::take(&mut self.visibility().stale)
    }

    /// Takes the pending session warnings (for the next successful top-level result): what
    /// recovery at session start left alone in the journal (`journal-record-ignored`).
    pub fn take_session_warnings(&self) -> Vec<Warning> {
        std::mem::take(&mut self.visibility().warnings)
    }

    /// Claims a directory's `AGENTS.md` for surfacing: true the first time per session.
    pub fn claim_instructions(&self, dir: &Path) -> bool {
        self.visibility().instructions.insert(dir.to_path_buf())
    }

    fn visibility(&self) -> MutexGuard<'_, Visibility> {
        self.visibility.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The mutation lock of one resolved target: hold the returned lock's guard while
    /// reading-modifying-writing the file.
    pub fn lock_path(&self, real: &Path) -> Arc<Mutex<()>> {
        let mut locks = self.locks.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        locks.entry(real.to_path_buf()).or_default().clone()
    }
}

/// What the model has been shown, for stale-context notices and instruction files.
#[derive(Debug, Default)]
struct Visibility {
    /// Files a top-level result showed rows of.
    visible: HashSet<PathBuf>,
    /// Notices waiting for the next top-level result.
    stale: Vec<String>,
    /// Warnings waiting for the next successful top-level result.
    warnings: Vec<Warning>,
    /// Directories whose `AGENTS.md` was surfaced.
    instructions: HashSet<PathBuf>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("roots", &self.roots)
            .field("confined", &self.confined)
            .field("stateful", &self.stateful)
            .finish_non_exhaustive()
    }
}

/// The names the session knows files by.
#[derive(Debug, Default)]
struct Aliases {
    /// Identity → the first name it was resolved by (or a name with rows in the ledger).
    by_id: HashMap<FileId, PathBuf>,
    /// Whether the ledger's names are in `by_id` (done once, when a hard-linked file is met).
    ledger_indexed: bool,
}

/// How often a session resolved paths and opened targets (see `Session::counts`).
#[cfg(test)]
#[derive(Debug, Default)]
pub(crate) struct Counts {
    /// Names of the ledger looked up to find a hard-linked file's known name.
    pub(crate) ledger_stats: AtomicU64,
    /// `Session::resolve` calls.
    pub(crate) resolved: AtomicU64,
    /// `Session::open_target` calls.
    pub(crate) opened: AtomicU64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn session_is_send_and_sync() {
        assert_send_sync::<Session>();
    }

    #[test]
    fn root_must_exist_and_be_a_directory() {
        let dir = tempfile::tempdir().expect("tempdir");
        let missing = Session::open(dir.path().join("missing")).expect_err("missing");
        assert_eq!(missing.code, ErrorCode::PathNotFound);
        let file = dir.path().join("f");
        std::fs::write(&file, "x").expect("write");
        assert_eq!(Session::open(&file).expect_err("file").code, ErrorCode::PathNotDirectory);
    }

    #[test]
    fn one_lock_per_real_path() {
        let dir = tempfile::tempdir().expect("tempdir");
        let session = Session::open(dir.path()).expect("session");
        let a = session.lock_path(Path::new("/x/a"));
        let b = session.lock_path(Path::new("/x/a"));
        assert!(Arc::ptr_eq(&a, &b));
        assert!(!Arc::ptr_eq(&a, &session.lock_path(Path::new("/x/b"))));
    }

    /// Issue 23: a hard-linked file is looked for among the ledger's names once per session,
    /// not once per file (a grep over a hard-linked tree was quadratic: 5.4 s instead of
    /// 0.25 s on a large tree). Its alias is still found.
    #[test]
    fn hard_linked_files_look_up_the_ledger_once() {
        let dir = tempfile::tempdir().expect("tempdir");
        let copy = dir.path().join("copy");
        std::fs::create_dir(&copy).expect("mkdir");
        for i in 0..40 {
            let name = format!("f{i}.txt");
            std::fs::write(dir.path().join(&name), format!("{i}\n")).expect("write");
            std::fs::hard_link(dir.path().join(&name), copy.join(&name)).expect("link");
        }
        let session = Session::open(dir.path()).expect("session");
        let root = session.cwd().to_path_buf();
        for i in 0..40 {
            let path = session.resolve(&format!("f{i}.txt")).expect("resolves");
            let line = LineNo::new(1).expect("1");
            session.record_served(&path.key, [(line, hashline_core::LineHash::of(format!("{i}").as_bytes()))], false);
        }
        // A new session over the same ledger (as the CLI's next process would be) is
        // simulated by forgetting the names, keeping the rows.
        session.aliases.lock().expect("aliases").by_id.clear();
        session.aliases.lock().expect("aliases").ledger_indexed = false;
        for i in 0..40 {
            let key = session.resolve(&format!("copy/f{i}.txt")).expect("resolves").key;
            assert_eq!(key, root.join(format!("f{i}.txt")), "the ledger's name is the key");
        }
        let stats = session.counts.ledger_stats.load(Ordering::Relaxed);
        assert!(stats <= 40, "the ledger's 40 names were looked up {stats} times");
    }

    /// Issue 23: a directory's link count is its subdirectories, not its names: resolving
    /// one (every `grep`, `find` and `ls` does) must not look up the ledger's names. Before,
    /// a CLI `find` over a root whose session had served rows of 9,000 files stat'ed each of
    /// them first (1.04x `rg --files` became 1.47x).
    #[test]
    fn resolving_a_directory_does_not_look_up_the_ledger() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("sub/a")).expect("mkdir");
        std::fs::write(dir.path().join("f.txt"), "x\n").expect("write");
        let session = Session::open(dir.path()).expect("session");
        let path = session.resolve("f.txt").expect("resolves");
        let line = LineNo::new(1).expect("1");
        session.record_served(&path.key, [(line, hashline_core::LineHash::of(b"x"))], false);
        session.aliases.lock().expect("aliases").by_id.clear();
        for name in ["sub", ".", "sub/a"] {
            let key = session.resolve(name).expect("resolves").key;
            assert_eq!(key, session.cwd().join(name).components().collect::<PathBuf>());
        }
        assert_eq!(session.counts.ledger_stats.load(Ordering::Relaxed), 0, "the ledger was looked up");
    }

    /// Issue 22: an `edit` resolves each path argument once and opens each file once
    /// (`Held::resolve_all`, `Held::open` in tools/edit/prepare.rs). Before, this call
    /// resolved 10 times (each target in three places, the move's source in four) for 3
    /// opens.
    #[test]
    fn an_edit_resolves_and_opens_each_file_once() {
        use crate::edit::EditTool;
        use crate::read::ReadTool;
        use crate::{CallContext, execute};
        use serde_json::json;
        let dir = tempfile::tempdir().expect("tempdir");
        for (name, text) in [("a.txt", "one\ntwo\n"), ("b.txt", "uno\ndos\n"), ("from.txt", "keep\nmove me\n")] {
            std::fs::write(dir.path().join(name), text).expect("write");
        }
        let session = Session::open(dir.path()).expect("session");
        for name in ["a.txt", "b.txt", "from.txt"] {
            assert!(!execute::<ReadTool>(&session, json!({"path": name}), &CallContext::top_level()).is_error);
        }
        let anchor = |line: u32, text: &str| format!("{line}:{}", hashline_core::LineHash::of(text.as_bytes()));
        let before = (session.counts.resolved.load(Ordering::Relaxed), session.counts.opened.load(Ordering::Relaxed));
        let result = execute::<EditTool>(
            &session,
            json!({"files": [
                {"path": "a.txt", "edits": [{"set_line": {"anchor": anchor(1, "one"), "new_text": "ONE"}}]},
                {"path": "b.txt", "edits": [{"move_lines": {"start_anchor": anchor(2, "move me"), "end_anchor": anchor(2, "move me"), "after_anchor": anchor(1, "uno"), "from_path": "from.txt"}}]},
            ]}),
            &CallContext::top_level(),
        );
        assert!(!result.is_error, "{}", result.text());
        let resolved = session.counts.resolved.load(Ordering::Relaxed) - before.0;
        let opened = session.counts.opened.load(Ordering::Relaxed) - before.1;
        assert_eq!((resolved, opened), (3, 3), "three files: each resolved once and opened once");
        assert_eq!(std::fs::read_to_string(dir.path().join("b.txt")).expect("b"), "uno\nmove me\ndos\n");
        assert_eq!(std::fs::read_to_string(dir.path().join("from.txt")).expect("from"), "keep\n");
    }
}
