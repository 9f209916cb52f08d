//! The ignore rules of a walk, read by hashline itself. The `ignore` crate opens and reads
//! ignore files with plain blocking reads of any length, so a FIFO named `.gitignore` hangs
//! its walk and one linked to `/dev/zero` fills memory. Here its walker reads no ignore file
//! at all: every `.rgignore`, `.ignore`, `.gitignore` and `.git/info/exclude` (and the `.git`
//! file of a worktree) is read through the guarded open, at most
//! [`MAX_IGNORE_FILE_BYTES`], and the rules are applied in the walker's entry filter with
//! the crate's own precedence. An ignore file that cannot be read so is skipped and
//! reported ([`SkippedIgnoreFile`]); it never blocks.
//!
//! Precedence, as in the `ignore` crate: a `glob` override decides first; then, per kind of
//! ignore file, the nearest directory whose file matches decides (a negation whitelists);
//! the kinds rank `.rgignore` over `.ignore` over `.gitignore` over `.git/info/exclude`
//! over the global git excludes. Parent directories of the walked root count too, up to
//! `/`. With `require_git`, git's files apply only inside a repository (a directory with
//! `.git` or `.jj`), and not above its top. Hidden entries are skipped unless a rule
//! whitelists them.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::fs::FileType;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::overrides::Override;
use ignore::{DirEntry, Match, WalkBuilder};

use hashline_fs::NotRegularFile;
use hashline_fs::open::read_regular as read_capped;

/// The name of hashline's journal directory (`.hashline-journal`): no walk enters it.
pub const RESERVED_DIR: &str = hashline_fs::JOURNAL_DIR;

/// The largest ignore file read, in bytes (1 MiB): a larger one is skipped.
pub const MAX_IGNORE_FILE_BYTES: u64 = 1 << 20;

/// The most rules (lines that are not blank or comments) all the ignore files of one walk
/// may hold together: 10 000. Each compiled glob costs memory and time (a complex one up to
/// ~13 KB and ~0.1 ms), so an ignore file that would take the walk past this is skipped.
pub const MAX_IGNORE_RULES: usize = 10_000;

/// Which ignore rules a walk honours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IgnoreConfig {
    /// Skip hidden entries (a name starting with `.`) that no rule whitelists.
    pub hidden: bool,
    /// Apply `.gitignore`, `.git/info/exclude` and the global excludes only inside a git
    /// repository.
    pub require_git: bool,
    /// Honour git's global excludes file (`core.excludesFile`).
    pub git_global: bool,
    /// Honour `.rgignore` files (above `.ignore`).
    pub rgignore: bool,
    /// Never return or enter an entry named `.git` (below the root).
    pub skip_dot_git: bool,
}

impl IgnoreConfig {
    /// ripgrep's rules (grep and ast_search).
    pub const RG: Self =
        Self { hidden: true, require_git: true, git_global: true, rgignore: true, skip_dot_git: false };
    /// `find`'s rules: hidden entries listed, git's files honoured outside repositories too,
    /// `.git` skipped.
    pub const FIND: Self =
        Self { hidden: false, require_git: false, git_global: false, rgignore: false, skip_dot_git: true };
}

/// Why an ignore file was not applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SkipReason {
    /// A FIFO, socket or device.
    NotRegular,
    /// Over [`MAX_IGNORE_FILE_BYTES`].
    TooLarge,
    /// Its rules would take the walk past `MAX_IGNORE_RULES` (10 000).
    OverRuleBudget,
    /// Any other read error (its message).
    Unreadable(String),
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkipReason::NotRegular => f.write_str("not a regular file"),
            SkipReason::TooLarge => write!(f, "over {} MiB", MAX_IGNORE_FILE_BYTES >> 20),
            SkipReason::OverRuleBudget => write!(f, "over the walk's budget of {MAX_IGNORE_RULES} ignore rules"),
            SkipReason::Unreadable(message) => write!(f, "unreadable: {message}"),
        }
    }
}

/// An ignore file whose rules were not applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkippedIgnoreFile {
    /// The file.
    pub path: PathBuf,
    /// Why.
    pub reason: SkipReason,
}

/// The rules read in one directory, and the nearest directory above it (within the walk)
/// that has rules.
#[derive(Default)]
struct DirRules {
    rgignore: Option<Gitignore>,
    ignore: Option<Gitignore>,
    gitignore: Option<Gitignore>,
    exclude: Option<Gitignore>,
    has_git: bool,
    parent: Option<Arc<DirRules>>,
}

impl DirRules {
    fn is_empty(&self) -> bool {
        !self.has_git
            && self.rgignore.is_none()
            && self.ignore.is_none()
            && self.gitignore.is_none()
            && self.exclude.is_none()
    }

    fn chain(&self) -> impl Iterator<Item = &DirRules> {
        std::iter::successors(Some(self), |rules| rules.parent.as_deref())
    }
}

/// `Some(true)`: ignored, `Some(false)`: whitelisted, `None`: no rule matched.
type Verdict = Option<bool>;

fn verdict<T>(found: Match<T>) -> Verdict {
    match found {
        Match::None => None,
        Match::Ignore(_) => Some(true),
        Match::Whitelist(_) => Some(false),
    }
}

/// The ignore rules of one walk, read lazily as the walk reaches each directory and shared
/// by its threads.
pub struct TreeRules {
    config: IgnoreConfig,
    root: PathBuf,
    /// The root's canonical path, against which the parents' rules match.
    base: Option<PathBuf>,
    /// The rules of the root's ancestors, nearest first.
    parents: Vec<DirRules>,
    global: Option<Gitignore>,
    overrides: Option<Override>,
    dirs: Mutex<HashMap<PathBuf, Arc<DirRules>>>,
    skipped: Mutex<BTreeMap<PathBuf, SkipReason>>,
    broken: AtomicU64,
    /// Rules read so far (see [`MAX_IGNORE_RULES`]).
    rules_read: AtomicUsize,
    /// Which walk this is, for each thread's last looked-up directory ([`LAST_DIR`]).
    id: u64,
    /// No ancestor of the root has rules: paths are not matched against them.
    parents_empty: bool,
}

/// Walk ids: a thread's cached directory belongs to one walk's rules.
static NEXT_RULES_ID: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// The directory this thread looked rules up for last, in which walk, and its rules.
    /// A walk meets a directory's entries one after another, so most look-ups of a tree
    /// with thousands of files are this one (instead of hashing the path's components
    /// under the shared lock for every entry). A directory's rules never change once read;
    /// held weakly, so a thread keeps no rules alive after its walk.
    // It is `const`: clippy 1.96 says otherwise for Windows targets (where such a value,
    // with a destructor, is kept another way).
    #[allow(clippy::missing_const_for_thread_local)]
    static LAST_DIR: RefCell<Option<(u64, PathBuf, Weak<DirRules>)>> = const { RefCell::new(None) };
}

impl TreeRules {
    /// The rules for a walk of `root` (read now: its ancestors' files and the global
    /// excludes; the rest as the walk goes), with an optional `glob` override.
    pub fn new(root: &Path, config: IgnoreConfig, overrides: Option<Override>) -> Self {
        let mut rules = Self {
            config,
            root: root.to_path_buf(),
            base: hashline_fs::lookup::canonicalize(root).ok(),
            parents: Vec::new(),
            global: None,
            overrides: overrides.filter(|o| !o.is_empty()),
            dirs: Mutex::new(HashMap::new()),
            skipped: Mutex::new(BTreeMap::new()),
            broken: AtomicU64::new(0),
            rules_read: AtomicUsize::new(0),
            id: NEXT_RULES_ID.fetch_add(1, Ordering::Relaxed),
            parents_empty: true,
        };
        if let Some(base) = rules.base.clone() {
            rules.parents = base.ancestors().skip(1).map(|dir| rules.read_dir(dir, None)).collect();
        }
        rules.parents_empty = rules.parents.iter().all(DirRules::is_empty);
        if config.git_global {
            rules.global = Self::global_excludes().and_then(|(cwd, path)| rules.read_ignore(&cwd, &path));
        }
        rules
    }

    /// A walker of the root that reads no ignore file itself and filters its entries with
    /// these rules: symlinks not followed, `threads` (0 = one per core).
    pub fn walk_builder(self: &Arc<Self>, threads: usize) -> WalkBuilder {
        self.walk_builder_at(&self.root, threads)
    }

    /// A walker like [`TreeRules::walk_builder`]'s of `dir`, a directory the root's walk
    /// keeps (the rules are the root's: ignore files between the root and `dir` apply).
    pub fn walk_builder_at(self: &Arc<Self>, dir: &Path, threads: usize) -> WalkBuilder {
        let mut walk = WalkBuilder::new(dir);
        walk.standard_filters(false).follow_links(false).threads(threads);
        let rules = Arc::clone(self);
        walk.filter_entry(move |entry| rules.keep(entry));
        walk
    }

    /// Whether the walk keeps an entry (and, for a directory, enters it). A directory named
    /// [`RESERVED_DIR`] is never kept.
    pub fn keep(&self, entry: &DirEntry) -> bool {
        if entry.depth() == 0 {
            return true;
        }
        self.keep_path(entry.path(), entry.file_type().is_some_and(|t| t.is_dir()))
    }

    /// [`TreeRules::keep`] for an entry below the root's walk given by its path (which
    /// has a name) and whether it is a directory (not following a symlink).
    pub(crate) fn keep_path(&self, path: &Path, is_dir: bool) -> bool {
        let Some(name) = path.file_name() else { return true };
        if self.config.skip_dot_git && name == ".git" {
            return false;
        }
        // hashline's own journal (`hashline_fs::journal`) is never listed or searched,
        // whatever the rules and globs say.
        if is_dir && name == RESERVED_DIR {
            return false;
        }
        match self.matched(path, is_dir) {
            Some(ignored) => !ignored,
            None => !(self.config.hidden && name.as_encoded_bytes().starts_with(b".")),
        }
    }

    /// The ignore files skipped so far, by path.
    pub fn skipped(&self) -> Vec<SkippedIgnoreFile> {
        let skipped = self.skipped.lock().unwrap_or_else(|p| p.into_inner());
        skipped.iter().map(|(path, reason)| SkippedIgnoreFile { path: path.clone(), reason: reason.clone() }).collect()
    }

    /// How many ignore files held lines that are not valid globs (those lines are
    /// dropped, as the `ignore` crate drops them and reports an error).
    pub fn broken_files(&self) -> u64 {
        self.broken.load(Ordering::Relaxed)
    }

    fn matched(&self, path: &Path, is_dir: bool) -> Verdict {
        if let Some(overrides) = &self.overrides
            && let Some(verdict) = verdict(overrides.matched(path, is_dir))
        {
            return Some(verdict);
        }
        let chain = self.rules_for(path.parent()?);
        let any_git =
            !self.config.require_git || chain.chain().any(|r| r.has_git) || self.parents.iter().any(|r| r.has_git);
        let mut found: [Verdict; 4] = [None; 4];
        let mut saw_git = false;
        let mut visit = |rules: &DirRules, path: &Path| {
            let sets = [&rules.rgignore, &rules.ignore, &rules.gitignore, &rules.exclude];
            for (kind, (slot, set)) in found.iter_mut().zip(sets).enumerate() {
                let git = kind >= 2;
                if slot.is_none() && (!git || (any_git && !saw_git)) {
                    *slot = set.as_ref().and_then(|set| verdict(set.matched(path, is_dir)));
                }
            }
            saw_git |= rules.has_git;
        };
        for rules in chain.chain() {
            visit(rules, path);
        }
        if let Some(absolute) = self.absolute(path) {
            for rules in &self.parents {
                visit(rules, &absolute);
            }
        }
        let global =
            || any_git.then(|| self.global.as_ref().and_then(|set| verdict(set.matched(path, is_dir)))).flatten();
        found.into_iter().flatten().next().or_else(global)
    }

    /// `path` below the canonical root, for the parents' rules (itself when the root was
    /// given canonical).
    fn absolute<'p>(&self, path: &'p Path) -> Option<Cow<'p, Path>> {
        if self.parents_empty {
            return None;
        }
        let base = self.base.as_ref()?;
        // Bytes, not components: per entry, and a root spelled otherwise only costs a copy.
        if base.as_os_str() == self.root.as_os_str() {
            return Some(Cow::Borrowed(path));
        }
        Some(Cow::Owned(base.join(path.strip_prefix(&self.root).ok()?)))
    }

    /// The rules of `dir` (a directory of the walk) with its chain, read on first use; the
    /// thread's last directory is answered without the shared map.
    fn rules_for(&self, dir: &Path) -> Arc<DirRules> {
        let cached = LAST_DIR.with_borrow(|last| match last {
            Some((id, at, rules)) if *id == self.id && at.as_os_str() == dir.as_os_str() => rules.upgrade(),
            _ => None,
        });
        if let Some(rules) = cached {
            return rules;
        }
        let rules = self.rules_for_shared(dir);
        LAST_DIR.with_borrow_mut(|last| match last {
            // Reuses the path's allocation.
            Some((id, at, weak)) => {
                *id = self.id;
                at.clear();
                at.push(dir);
                *weak = Arc::downgrade(&rules);
            }
            None => *last = Some((self.id, dir.to_path_buf(), Arc::downgrade(&rules))),
        });
        rules
    }

    /// [`TreeRules::rules_for`] through the map the walk's threads share.
    fn rules_for_shared(&self, dir: &Path) -> Arc<DirRules> {
        let mut missing = Vec::new();
        let mut known = None;
        {
            let dirs = self.dirs.lock().unwrap_or_else(|p| p.into_inner());
            let mut at = dir;
            loop {
                if let Some(rules) = dirs.get(at) {
                    known = Some(Arc::clone(rules));
                    break;
                }
                missing.push(at.to_path_buf());
                match at.parent() {
                    Some(parent) if at != self.root && parent.starts_with(&self.root) => at = parent,
                    _ => break,
                }
            }
        }
        let mut rules = known.unwrap_or_default();
        for dir in missing.into_iter().rev() {
            let read = self.read_dir(&dir, Some(Arc::clone(&rules)));
            let read = if read.is_empty() { rules } else { Arc::new(read) };
            let mut dirs = self.dirs.lock().unwrap_or_else(|p| p.into_inner());
            rules = Arc::clone(dirs.entry(dir).or_insert(read));
        }
        rules
    }

    /// Forgets the rules of `dir` and of the directories below it, for a walk done with
    /// them (a unit of the ordered search, whose subtree no other unit walks): a walk of a
    /// large tree kept every directory's rules to its end. A later look-up reads them again.
    pub(crate) fn forget_below(&self, dir: &Path) {
        let mut dirs = self.dirs.lock().unwrap_or_else(|p| p.into_inner());
        dirs.retain(|path, _| !path.starts_with(dir));
    }

    /// The directories whose rules are kept, in path order.
    #[cfg(test)]
    pub(crate) fn cached_dirs(&self) -> Vec<PathBuf> {
        let mut dirs: Vec<PathBuf> = self.dirs.lock().unwrap_or_else(|p| p.into_inner()).keys().cloned().collect();
        dirs.sort();
        dirs
    }

    /// Reads the rules of one directory.
    fn read_dir(&self, dir: &Path, parent: Option<Arc<DirRules>>) -> DirRules {
        let git_type = hashline_fs::lookup::metadata(&dir.join(".git")).ok().map(|m| m.file_type());
        let has_git = self.config.require_git && (git_type.is_some() || dir.join(".jj").exists());
        let parent = parent.filter(|p| !p.is_empty() || p.parent.is_some());
        DirRules {
            rgignore: if self.config.rgignore { self.read_ignore(dir, &dir.join(".rgignore")) } else { None },
            ignore: self.read_ignore(dir, &dir.join(".ignore")),
            gitignore: self.read_ignore(dir, &dir.join(".gitignore")),
            exclude: git_type
                .and_then(|t| self.git_dir(dir, t))
                .and_then(|git| self.read_ignore(dir, &git.join("info/exclude"))),
            has_git,
            parent,
        }
    }

    /// The git directory whose `info/exclude` applies to `dir`: `.git` itself, or for a
    /// worktree (`.git` is a file `gitdir: <path>`) the common directory it names.
    fn git_dir(&self, dir: &Path, git_type: FileType) -> Option<PathBuf> {
        let dot_git = dir.join(".git");
        if !git_type.is_file() {
            return Some(dot_git);
        }
        let gitdir = dir.join(self.first_line(&dot_git)?.strip_prefix("gitdir: ")?);
        let commondir = self.first_line(&gitdir.join("commondir"))?;
        Some(if commondir.starts_with('.') { gitdir.join(commondir) } else { PathBuf::from(commondir) })
    }

    fn first_line(&self, path: &Path) -> Option<String> {
        let bytes = self.read(path)?;
        let line = bytes.split(|b| *b == b'\n').next()?;
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        String::from_utf8(line.to_vec()).ok()
    }

    /// The bytes of a file of the rules, or `None` when it is missing or skipped.
    fn read(&self, path: &Path) -> Option<Vec<u8>> {
        let err = match read_capped(path, MAX_IGNORE_FILE_BYTES) {
            Ok(bytes) => return Some(bytes),
            Err(err) => err,
        };
        let reason = match err.kind() {
            io::ErrorKind::NotFound | io::ErrorKind::NotADirectory => return None,
            _ if NotRegularFile::is(&err) => SkipReason::NotRegular,
            io::ErrorKind::FileTooLarge => SkipReason::TooLarge,
            _ => SkipReason::Unreadable(err.to_string()),
        };
        self.skip(path, reason);
        None
    }

    fn skip(&self, path: &Path, reason: SkipReason) {
        self.skipped.lock().unwrap_or_else(|p| p.into_inner()).insert(path.to_path_buf(), reason);
    }

    /// Takes `rules` from the walk's budget; `false` (nothing taken) when they do not fit.
    fn take_rules(&self, rules: usize) -> bool {
        self.rules_read
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |read| {
                read.checked_add(rules).filter(|total| *total <= MAX_IGNORE_RULES)
            })
            .is_ok()
    }

    /// The rules of one ignore file, matched below `dir`; `None` when it is missing,
    /// skipped (unreadable, or over the walk's [`MAX_IGNORE_RULES`]) or has no rule. Lines are read as the `ignore` crate reads them: `\n` or
    /// `\r\n` ends a line, a BOM before the first is dropped, a line that is not UTF-8 is
    /// skipped.
    fn read_ignore(&self, dir: &Path, path: &Path) -> Option<Gitignore> {
        let bytes = self.read(path)?;
        let rules = bytes
            .split(|b| *b == b'\n')
            .filter(|line| line.iter().any(|b| !b.is_ascii_whitespace()) && !line.starts_with(b"#"))
            .count();
        if !self.take_rules(rules) {
            self.skip(path, SkipReason::OverRuleBudget);
            return None;
        }
        let mut builder = GitignoreBuilder::new(dir);
        let mut broken = false;
        for (index, line) in bytes.split(|b| *b == b'\n').enumerate() {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            let Ok(line) = std::str::from_utf8(line) else { continue };
            let line = if index == 0 { line.trim_start_matches('\u{feff}') } else { line };
            broken |= builder.add_line(Some(path.to_path_buf()), line).is_err();
        }
        let built = builder.build();
        if broken || built.is_err() {
            self.broken.fetch_add(1, Ordering::Relaxed);
        }
        built.ok().filter(|set| !set.is_empty())
    }

    /// Where the global excludes are matched from (the working directory, as the `ignore`
    /// crate does) and the file (`core.excludesFile`, or `$XDG_CONFIG_HOME/git/ignore`).
    fn global_excludes() -> Option<(PathBuf, PathBuf)> {
        Some((std::env::current_dir().ok()?, ignore::gitignore::gitconfig_excludes_path()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("tempdir");
        for (name, text) in files {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(path, text).expect("write");
        }
        dir
    }

    fn walked(root: &Path, config: IgnoreConfig) -> (Vec<String>, Vec<SkippedIgnoreFile>) {
        let rules = Arc::new(TreeRules::new(root, config, None));
        let mut names: Vec<String> = rules
            .walk_builder(1)
            .build()
            .filter_map(Result::ok)
            .filter(|e| e.depth() > 0 && e.file_type().is_some_and(|t| t.is_file()))
            .map(|e| crate::shown_path(e.path(), root))
            .collect();
        names.sort();
        (names, rules.skipped())
    }

    /// A thread's cached directory belongs to one walk: two walks of one directory, alive at
    /// once and asked in turn on the same thread, each answer with their own rules (read
    /// before and after the ignore file changed), and a later walk reads the file again.
    #[test]
    fn each_walk_answers_with_its_own_rules() {
        let dir = tree(&[(".ignore", "a.txt\n"), ("a.txt", "a"), ("b.txt", "b")]);
        let root = dir.path();
        let (a, b) = (root.join("a.txt"), root.join("b.txt"));
        let config = IgnoreConfig::RG;
        let before = TreeRules::new(root, config, None);
        assert!(!before.keep_path(&a, false) && before.keep_path(&b, false));
        std::fs::write(root.join(".ignore"), "b.txt\n").expect("write");
        let after = TreeRules::new(root, config, None);
        for _ in 0..2 {
            assert!(after.keep_path(&a, false) && !after.keep_path(&b, false));
            assert!(!before.keep_path(&a, false) && before.keep_path(&b, false));
        }
        drop((before, after));
        std::fs::write(root.join(".ignore"), "").expect("write");
        let later = TreeRules::new(root, config, None);
        assert!(later.keep_path(&a, false) && later.keep_path(&b, false));
    }

    /// The files the `ignore` crate's own walker returns with the same rules.
    fn crate_walked(root: &Path, config: IgnoreConfig) -> Vec<String> {
        let mut walk = WalkBuilder::new(root);
        walk.hidden(config.hidden)
            .parents(true)
            .ignore(true)
            .git_ignore(true)
            .git_global(config.git_global)
            .git_exclude(true)
            .require_git(config.require_git)
            .threads(1);
        if config.rgignore {
            walk.add_custom_ignore_filename(".rgignore");
        }
        if config.skip_dot_git {
            walk.filter_entry(|e| e.depth() == 0 || e.file_name() != ".git");
        }
        let mut names: Vec<String> = walk
            .build()
            .filter_map(Result::ok)
            .filter(|e| e.depth() > 0 && e.file_type().is_some_and(|t| t.is_file()))
            .map(|e| crate::shown_path(e.path(), root))
            .collect();
        names.sort();
        names
    }

    /// `.ignore` over `.gitignore`, nested directories over their parents, negation, and
    /// git's files only inside a repository with ripgrep's rules: what the `ignore` crate's
    /// walker returns.
    #[test]
    fn precedence_follows_the_ignore_crate() {
        let dir = tree(&[
            (".gitignore", "*.log\n!keep.log\n"),
            (".ignore", "!ignored-by-git.log\n"),
            ("a.log", ""),
            ("keep.log", ""),
            ("ignored-by-git.log", ""),
            ("sub/.gitignore", "!b.log\n"),
            ("sub/b.log", ""),
            ("sub/c.log", ""),
            ("sub/.ignore", "\u{feff}d.txt\r\n"),
            ("sub/d.txt", ""),
            (".hidden", ""),
        ]);
        let (found, skipped) = walked(dir.path(), IgnoreConfig::FIND);
        assert_eq!(
            found,
            [
                ".gitignore",
                ".hidden",
                ".ignore",
                "ignored-by-git.log",
                "keep.log",
                "sub/.gitignore",
                "sub/.ignore",
                "sub/b.log"
            ]
        );
        assert!(skipped.is_empty());
        assert_eq!(found, crate_walked(dir.path(), IgnoreConfig::FIND));
        // Not a repository: ripgrep's rules leave the .gitignore out.
        let (found, _) = walked(dir.path(), IgnoreConfig::RG);
        assert_eq!(found, ["a.log", "ignored-by-git.log", "keep.log", "sub/b.log", "sub/c.log"]);
        assert_eq!(found, crate_walked(dir.path(), IgnoreConfig::RG));
        std::fs::create_dir_all(dir.path().join(".git/info")).expect("git");
        std::fs::write(dir.path().join(".git/info/exclude"), "keep.log\n").expect("exclude");
        std::fs::write(dir.path().join("sub/.rgignore"), "b.log\n!.hidden-kept\n").expect("rgignore");
        std::fs::write(dir.path().join("sub/.hidden-kept"), "").expect("hidden");
        let (found, _) = walked(dir.path(), IgnoreConfig::RG);
        assert_eq!(found, ["ignored-by-git.log", "keep.log", "sub/.hidden-kept"]);
        assert_eq!(found, crate_walked(dir.path(), IgnoreConfig::RG));
        let (found, _) = walked(dir.path(), IgnoreConfig::FIND);
        assert_eq!(found, crate_walked(dir.path(), IgnoreConfig::FIND));
        // Rules above the walked directory count, matched from where they are.
        let (found, _) = walked(&dir.path().join("sub"), IgnoreConfig::RG);
        assert_eq!(found, [".hidden-kept"]);
        assert_eq!(found, crate_walked(&dir.path().join("sub"), IgnoreConfig::RG));
    }

    #[cfg(unix)]
    #[test]
    fn unreadable_ignore_files_are_skipped_and_reported() {
        let dir = tree(&[("a.txt", ""), ("big/.gitignore", ""), ("big/x.txt", "")]);
        assert!(
            std::process::Command::new("mkfifo").arg(dir.path().join(".ignore")).status().expect("mkfifo").success()
        );
        std::os::unix::fs::symlink("/dev/zero", dir.path().join(".gitignore")).expect("symlink");
        std::fs::write(dir.path().join("big/.gitignore"), vec![b'x'; MAX_IGNORE_FILE_BYTES as usize + 1])
            .expect("write");
        let (found, skipped) = walked(dir.path(), IgnoreConfig::FIND);
        assert_eq!(found, ["a.txt", "big/.gitignore", "big/x.txt"]);
        let skipped: Vec<(String, String)> =
            skipped.iter().map(|s| (crate::shown_path(&s.path, dir.path()), s.reason.to_string())).collect();
        assert_eq!(
            skipped,
            [
                (".gitignore".to_owned(), "not a regular file".to_owned()),
                (".ignore".to_owned(), "not a regular file".to_owned()),
                ("big/.gitignore".to_owned(), "over 1 MiB".to_owned())
            ]
        );
    }

    /// The rules of all the ignore files of a walk are bounded together: the file that
    /// would go past the budget is skipped (here the third of three).
    #[test]
    fn the_rules_of_a_walk_are_bounded() {
        let many = |name: &str| -> String {
            (0..MAX_IGNORE_RULES / 2 - 1).map(|i| format!("{name}{i}.tmp\n# c\n\n")).collect()
        };
        let dir = tree(&[
            ("a/.ignore", &many("f")),
            ("a/b/.ignore", &many("f")),
            ("a/b/c/.ignore", &many("g")),
            ("a/b/c/f1.tmp", ""),
            ("a/b/c/g1.tmp", ""),
        ]);
        let (found, skipped) = walked(dir.path(), IgnoreConfig::FIND);
        assert_eq!(found, ["a/.ignore", "a/b/.ignore", "a/b/c/.ignore", "a/b/c/g1.tmp"]);
        let skipped: Vec<(PathBuf, String)> = skipped.into_iter().map(|s| (s.path, s.reason.to_string())).collect();
        assert_eq!(
            skipped,
            [(dir.path().join("a/b/c/.ignore"), "over the walk's budget of 10000 ignore rules".to_owned())]
        );
    }
}
