//! Committing new bytes to files: one file with one link is written to an unnamed
//! temporary file in its directory (`O_TMPFILE` on Linux, else a short `.hl<8 hex>.tmp`
//! name), synced (`F_FULLFSYNC` on macOS), compared against what was read, linked into the root's journal directory
//! (where recovery finds it if the process stops there) and renamed over the name; a file
//! with several links, or several files at once, go through the journal (`crate::journal`).

use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, Write};

use crate::journal::{self, Held, Journal};
pub use crate::staging::{CommitError, Hook, Member, Stage};
use crate::staging::{create_named, temp_name};
use crate::sys::{self, HandleRef, errors};
use crate::target::{Target, WriteState};

/// Commits every member, all or none: a single one-link file by rename, anything else
/// through the journal. On failure, the index of the member that failed.
pub fn commit(
    journal: &Journal<'_>,
    members: &[Member<'_>],
    hook: &Hook,
) -> Result<Vec<WriteState>, (usize, CommitError)> {
    for (index, member) in members.iter().enumerate() {
        member.target.check_writable().map_err(|err| (index, err.into()))?;
    }
    let states = members.iter().map(|m| match (m.remove, m.target.exists()) {
        (true, _) => WriteState::Removed,
        (false, true) => WriteState::Overwritten,
        (false, false) => WriteState::Created,
    });
    let states: Vec<WriteState> = states.collect();
    match members {
        [one] if !one.remove && one.target.snapshot.is_none_or(|s| s.nlink <= 1) => {
            by_rename(journal, one, hook).map_err(|err| (0, err))?;
        }
        _ => journal::commit_group(journal, members, hook)?,
    }
    Ok(states)
}

/// The one-file path: temporary file, sync, compare, rename.
fn by_rename(journal: &Journal<'_>, member: &Member<'_>, hook: &Hook) -> Result<(), CommitError> {
    let target = member.target;
    let mut temp = Temp::create(journal, sys::borrow(&target.dir), target)?;
    temp.file.write_all(member.new)?;
    // The data must be on disk before the rename makes it the file (old or new, never a mix).
    crate::sys::sync_data(&temp.file)?;
    hook(Stage::BeforeCommit, &target.real)?;
    if member.check && !target.unchanged(member.old, false)? {
        return Err(CommitError::Changed);
    }
    let journaled = temp.journaled.is_some();
    match temp.install(journal, &target.name) {
        // A temporary file made in the journal cannot be renamed into another mount of the
        // same file system (a bind mount): made again beside the target.
        Err(err) if journaled && errors::is_cross_device(&err) => {
            let mut temp = Temp::beside(sys::borrow(&target.dir), target)?;
            temp.file.write_all(member.new)?;
            crate::sys::sync_data(&temp.file)?;
            if member.check && !target.unchanged(member.old, false)? {
                return Err(CommitError::Changed);
            }
            temp.install(journal, &target.name)?;
        }
        other => other?,
    }
    hook(Stage::AfterCommit, &target.real)?;
    Ok(())
}

/// A temporary file in the target's directory: unnamed (`O_TMPFILE`) where the system
/// has it, so that a crash leaves nothing behind; otherwise named `.hl<8 hex>.tmp` and
/// removed on drop unless installed.
struct Temp<'d> {
    dir: HandleRef<'d>,
    file: File,
    name: Option<String>,
    /// A named temporary file made in the journal (the portable backend): the journal,
    /// held, and the file's name there. Recovery removes it if its process dies.
    journaled: Option<(&'d Journal<'d>, Held, String)>,
    /// Whether this process holds the target's lock, so that a file under the target's
    /// link name can only be a leftover of an earlier commit that stopped.
    locked: bool,
}

impl<'d> Temp<'d> {
    fn create(journal: &'d Journal<'d>, dir: HandleRef<'d>, target: &Target) -> io::Result<Self> {
        let mode = crate::target::Snapshot::mode_for(target.snapshot);
        let locked = target.file.is_some();
        let temp = match crate::sys::unnamed_file(dir, mode)? {
            Some(file) => {
                // Held until the file is renamed into place: recovery leaves a linked
                // temporary file alone while its commit is alive.
                sys::lock(sys::borrow(&file))?;
                Self { dir, file, name: None, journaled: None, locked }
            }
            // Without unnamed files, made under a name in the journal, where recovery
            // finds it if the process stops before the rename; beside the target where the
            // journal cannot be made or is on another file system.
            None => match journal.create_temp(mode, dir) {
                Some((held, file, name)) => {
                    Self { dir, file, name: None, journaled: Some((journal, held, name)), locked }
                }
                None => return Self::beside(dir, target),
            },
        };
        temp.keep_owner(target)
    }

    /// A named temporary file beside the target.
    fn beside(dir: HandleRef<'d>, target: &Target) -> io::Result<Self> {
        let mode = crate::target::Snapshot::mode_for(target.snapshot);
        let (file, name) = create_named(dir, mode)?;
        Self { dir, file, name: Some(name), journaled: None, locked: target.file.is_some() }.keep_owner(target)
    }

    /// Gives the temporary file the target's mode and (where allowed) owner.
    fn keep_owner(self, target: &Target) -> io::Result<Self> {
        let temp = self;
        if let Some(snapshot) = target.snapshot {
            // Keeping the owner needs privileges; without them the owner is already ours.
            sys::keep_owner(&temp.file, snapshot.mode, snapshot.owner)?;
        }
        Ok(temp)
    }

    /// Makes the temporary file the file `name` (atomically replacing it).
    ///
    /// An unnamed file is linked into the root's journal directory under a name of its own
    /// and renamed from there: a crash between the link and the rename leaves it where
    /// recovery looks (its `flock`, taken when it was created, tells a live commit from a
    /// dead one). Where the target is on another file system than the journal, it is linked
    /// beside the target instead.
    fn install(mut self, journal: &Journal<'_>, name: &OsStr) -> io::Result<()> {
        if let Some((journal, held, temp)) = self.journaled.take() {
            let renamed = sys::rename_at(held.dir(), temp.as_ref(), self.dir, name);
            if renamed.is_err() {
                let _ = sys::remove_at(held.dir(), temp.as_ref());
            }
            drop(held);
            journal.tidy();
            return renamed;
        }
        if self.name.is_none() {
            // Where the journal cannot be made (a read-only first root), link beside the
            // target.
            let linked = journal.link_temp(&self.file);
            if linked.is_err() {
                journal.tidy();
            }
            if let Ok((jdir, linked)) = linked {
                let renamed = sys::rename_at(jdir.dir(), linked.as_ref(), self.dir, name);
                if renamed.is_err() {
                    let _ = sys::remove_at(jdir.dir(), linked.as_ref());
                }
                drop(jdir);
                journal.tidy();
                match renamed {
                    Ok(()) => return Ok(()),
                    Err(err) if errors::is_cross_device(&err) => {}
                    Err(err) => return Err(err),
                }
            }
        }
        let temp_name = match self.name.take() {
            Some(named) => named,
            None => {
                let link = |named: &str| crate::sys::link_unnamed(&self.file, self.dir, named);
                // The unnamed file gets a name fixed by the target's (a crash between the
                // link and the rename leaves it there): under the target's lock, a file
                // already under that name was left by a commit of this target that stopped,
                // and goes. Anything else keeps it (a new file, a name shared by chance).
                let fixed = link_name(name);
                if self.locked {
                    let _ = sys::remove_at(self.dir, fixed.as_ref());
                }
                match link(fixed.as_str()) {
                    Ok(()) => fixed,
                    Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {
                        let named = temp_name("");
                        link(named.as_str())?;
                        named
                    }
                    Err(err) => return Err(err),
                }
            }
        };
        if let Err(err) = sys::rename_at(self.dir, temp_name.as_ref(), self.dir, name) {
            let _ = sys::remove_at(self.dir, temp_name.as_ref());
            return Err(err);
        }
        Ok(())
    }
}

impl Drop for Temp<'_> {
    fn drop(&mut self) {
        if let Some(name) = &self.name {
            let _ = sys::remove_at(self.dir, name.as_ref());
        }
        if let Some((journal, held, name)) = self.journaled.take() {
            let _ = sys::remove_at(held.dir(), name.as_ref());
            drop(held);
            journal.tidy();
        }
    }
}

/// The name under which an unnamed temporary file for `target` is linked before the rename:
/// `.hl<8 hex>.tmp`, the hex being the xxHash32 of the target's name, so that the next
/// commit of that file finds (and removes) what a crash between link and rename left.
pub(crate) fn link_name(target: &OsStr) -> String {
    format!(".hl{:08x}.tmp", xxhash_rust::xxh32::xxh32(&sys::name_bytes(target), 0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::root::RootDir;
    use std::fs;
    #[cfg(unix)]
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    use std::path::Path;

    fn no_hook(_: Stage, _: &Path) -> io::Result<()> {
        Ok(())
    }

    struct Fixture {
        _dir: tempfile::TempDir,
        root: RootDir,
    }

    impl Fixture {
        fn new() -> Self {
            let dir = tempfile::tempdir().expect("tempdir");
            let root = RootDir::open(&dir.path().canonicalize().expect("canonical")).expect("root");
            Self { _dir: dir, root }
        }

        fn path(&self, rel: &str) -> std::path::PathBuf {
            self.root.path().join(rel)
        }

        fn write(&self, rel: &str, bytes: &[u8], hook: &Hook) -> Result<WriteState, CommitError> {
            let target = Target::open(&self.root, Path::new(rel), &self.path(rel), true)?;
            let journal = Journal::new(&self.root);
            let member = Member { target: &target, old: b"", new: bytes, check: false, remove: false };
            commit(&journal, &[member], hook).map(|s| s[0]).map_err(|(_, err)| err)
        }

        fn entries(&self) -> Vec<String> {
            let mut names: Vec<String> = fs::read_dir(self.root.path())
                .expect("read_dir")
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            names
        }
    }

    #[cfg(unix)]
    #[test]
    fn keeps_mode_0640_and_new_files_get_the_umask_default() {
        let fx = Fixture::new();
        fs::write(fx.path("f.txt"), "old").expect("write");
        fs::set_permissions(fx.path("f.txt"), fs::Permissions::from_mode(0o640)).expect("chmod");
        assert_eq!(fx.write("f.txt", b"new", &no_hook).expect("write"), WriteState::Overwritten);
        assert_eq!(fs::read(fx.path("f.txt")).expect("read"), b"new");
        assert_eq!(fs::metadata(fx.path("f.txt")).expect("meta").permissions().mode() & 0o7777, 0o640);
        assert_eq!(fx.write("sub/new.txt", b"x", &no_hook).expect("write"), WriteState::Created);
        let mode = fs::metadata(fx.path("sub/new.txt")).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode & 0o600, 0o600, "owner can read and write: {mode:o}");
        assert_eq!(mode & 0o111, 0, "not executable: {mode:o}");
    }

    #[cfg(unix)]
    #[test]
    fn hard_links_all_see_the_change_and_no_journal_remains() {
        let fx = Fixture::new();
        fs::write(fx.path("one.txt"), "old").expect("write");
        fs::hard_link(fx.path("one.txt"), fx.path("two.txt")).expect("link");
        fx.write("one.txt", b"new", &no_hook).expect("write");
        assert_eq!(fs::read(fx.path("two.txt")).expect("read"), b"new");
        assert_eq!(
            fs::metadata(fx.path("one.txt")).expect("m").ino(),
            fs::metadata(fx.path("two.txt")).expect("m").ino()
        );
        assert_eq!(fx.entries(), ["one.txt", "two.txt"]);
    }

    /// A group that replaces one file, removes another and makes a third (a revert of a
    /// change that edited one file and created another, and of its own revert) is all or
    /// none: a failure after its last file rolls all three back — the removed file back
    /// under its name, the made one gone — and a success leaves no backup behind.
    #[test]
    fn a_group_with_a_removal_and_a_new_file_is_all_or_none() {
        let fx = Fixture::new();
        fs::write(fx.path("kept.txt"), "old kept").expect("write");
        fs::write(fx.path("gone.txt"), "old gone").expect("write");
        let run = |hook: &Hook| {
            let open = |rel: &str| Target::open(&fx.root, Path::new(rel), &fx.path(rel), true).expect("target");
            let (kept, gone, made) = (open("kept.txt"), open("gone.txt"), open("sub/made.txt"));
            let members = [
                Member { target: &kept, old: b"old kept", new: b"new kept", check: true, remove: false },
                Member { target: &gone, old: b"old gone", new: b"", check: true, remove: true },
                Member { target: &made, old: b"", new: b"made", check: true, remove: false },
            ];
            commit(&Journal::new(&fx.root), &members, hook)
        };
        let fail_last = |stage: Stage, path: &Path| match stage {
            Stage::AfterCommit if path.ends_with("made.txt") => Err(io::Error::other("stopped")),
            _ => Ok(()),
        };
        let Err((2, CommitError::Io(_))) = run(&fail_last) else { panic!("the last file fails") };
        assert_eq!(fs::read(fx.path("kept.txt")).expect("kept"), b"old kept");
        assert_eq!(fs::read(fx.path("gone.txt")).expect("gone"), b"old gone", "the removed file is back");
        assert!(!fx.path("sub/made.txt").exists(), "the made file is gone again");
        assert_eq!(fx.entries(), ["gone.txt", "kept.txt", "sub"]);
        let states = run(&no_hook).expect("commits");
        assert_eq!(states, [WriteState::Overwritten, WriteState::Removed, WriteState::Created]);
        assert_eq!(fs::read(fx.path("kept.txt")).expect("kept"), b"new kept");
        assert!(!fx.path("gone.txt").exists());
        assert_eq!(fs::read(fx.path("sub/made.txt")).expect("made"), b"made");
        assert_eq!(fx.entries(), ["kept.txt", "sub"], "no backup, temporary file or journal is left");
    }

    /// A rollback removes a file the group made only while it holds the group's bytes: one
    /// another program wrote under the name in between stays.
    #[test]
    fn a_rollback_leaves_a_made_file_that_another_program_rewrote() {
        let fx = Fixture::new();
        fs::write(fx.path("kept.txt"), "old").expect("write");
        let open = |rel: &str| Target::open(&fx.root, Path::new(rel), &fx.path(rel), true).expect("target");
        let (made, kept) = (open("made.txt"), open("kept.txt"));
        let members = [
            Member { target: &made, old: b"", new: b"ours", check: true, remove: false },
            Member { target: &kept, old: b"old", new: b"new", check: true, remove: false },
        ];
        let made_path = fx.path("made.txt");
        let rewrite_then_fail = move |stage: Stage, path: &Path| match stage {
            Stage::AfterCommit if path.ends_with("kept.txt") => {
                fs::write(&made_path, "theirs")?;
                Err(io::Error::other("stopped"))
            }
            _ => Ok(()),
        };
        assert!(commit(&Journal::new(&fx.root), &members, &rewrite_then_fail).is_err());
        assert_eq!(fs::read(fx.path("made.txt")).expect("made"), b"theirs", "another program's bytes stay");
        assert_eq!(fs::read(fx.path("kept.txt")).expect("kept"), b"old");
    }

    #[test]
    fn a_failure_before_the_commit_keeps_the_old_bytes_and_leaves_no_temp_file() {
        let fx = Fixture::new();
        fs::write(fx.path("f.txt"), "old bytes").expect("write");
        fs::write(fx.path("h.txt"), "old bytes").expect("write");
        fs::hard_link(fx.path("h.txt"), fx.path("h2.txt")).expect("link");
        let fail = |stage: Stage, _: &Path| match stage {
            Stage::BeforeCommit => Err(io::Error::other("simulated failure")),
            Stage::AfterCommit => Ok(()),
        };
        for name in ["f.txt", "h.txt"] {
            let Err(CommitError::Io(err)) = fx.write(name, b"new bytes", &fail) else { panic!("must fail") };
            assert_eq!(err.to_string(), "simulated failure");
            assert_eq!(fs::read(fx.path(name)).expect("read"), b"old bytes");
        }
        assert_eq!(fx.entries(), ["f.txt", "h.txt", "h2.txt"]);
    }

    #[test]
    fn a_temporary_file_left_in_the_journal_by_a_dead_commit_goes_at_recovery() {
        let fx = Fixture::new();
        fs::write(fx.path("f.txt"), "old").expect("write");
        fx.write("f.txt", b"new", &no_hook).expect("write");
        assert_eq!(fx.entries(), ["f.txt"], "a one-file commit leaves no journal behind");
        // What a process killed after linking its file into the journal, before the
        // rename, leaves; and what a live one holds locked at that moment.
        fs::create_dir(fx.path(journal::JOURNAL_DIR)).expect("journal");
        let dead = format!("{}/.hl0000dead.tmp", journal::JOURNAL_DIR);
        let live = format!("{}/.hl0000a11e.tmp", journal::JOURNAL_DIR);
        fs::write(fx.path(&dead), "half of a new f.txt").expect("dead");
        fs::write(fx.path(&live), "a commit in flight").expect("live");
        let held = File::open(fx.path(&live)).expect("open");
        sys::lock(sys::borrow(&held)).expect("lock");
        assert!(journal::recover(&fx.root).is_empty(), "no file was restored");
        assert!(!fx.path(&dead).exists(), "the dead commit's file is gone");
        assert!(fx.path(&live).exists(), "the live commit's file stays");
        drop(held);
        journal::recover(&fx.root);
        assert_eq!(fx.entries(), ["f.txt"]);
    }

    #[test]
    fn without_a_journal_a_temporary_file_left_beside_the_target_goes_at_its_next_commit() {
        if crate::sys::backend() != crate::sys::Backend::Linux {
            eprintln!("SKIPPED: the portable backend names temporary files at random (no O_TMPFILE linking)");
            return;
        }
        let fx = Fixture::new();
        // A journal that cannot be made (a file in its place): link beside the target.
        fs::write(fx.path(journal::JOURNAL_DIR), "not a directory").expect("blocker");
        fs::write(fx.path("f.txt"), "old").expect("write");
        let stray = link_name(std::ffi::OsStr::new("f.txt"));
        fs::write(fx.path(&stray), "half of a new f.txt").expect("stray");
        // A new file holds no lock yet: the stray under its name stays, and the new file is
        // written under a name of its own.
        let other = link_name(std::ffi::OsStr::new("g.txt"));
        fs::write(fx.path(&other), "someone's").expect("other");
        assert_eq!(fx.write("g.txt", b"g", &no_hook).expect("write"), WriteState::Created);
        assert_eq!(fs::read(fx.path(&other)).expect("read"), b"someone's");
        fs::remove_file(fx.path(&other)).expect("rm");
        fx.write("f.txt", b"new", &no_hook).expect("write");
        assert_eq!(fs::read(fx.path("f.txt")).expect("read"), b"new");
        assert_eq!(fx.entries(), [journal::JOURNAL_DIR, "f.txt", "g.txt"]);
    }

    #[test]
    fn temporary_names_are_short() {
        assert_eq!(link_name(std::ffi::OsStr::new(&"x".repeat(255))).len(), 15);
        assert_eq!(temp_name("").len(), 15);
        assert!(temp_name("").starts_with(".hl") && temp_name("").ends_with(".tmp"));
    }
}
