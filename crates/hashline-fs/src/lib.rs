//! # hashline-fs
//!
//! The file system as a capability, for hashline's tools: a root's directory handle and
//! reading beneath it ([`RootDir`], [`read_beneath`]), a file's identity and what it was
//! when read ([`FileId`], [`Snapshot`]), the exclusive lock and compare before commit of a
//! file about to change ([`Target`]), the atomic commit of one or several files
//! ([`atomic::commit`]) through a crash journal with its recovery ([`journal`]), and
//! non-blocking, bounded reads ([`open`]).
//!
//! Two backends carry it ([`Backend`]): Linux's own calls (`openat2`, `O_TMPFILE`,
//! `fallocate`), and one portable POSIX backend that every other Unix runs, macOS among
//! them, with `F_FULLFSYNC` and `F_PREALLOCATE` there. On Linux the portable one is
//! selected with `HASHLINE_FS_BACKEND=portable`, so that what macOS runs is tested on
//! every run. Nothing outside `sys` knows which one runs.
//!
//! ```
//! use std::path::Path;
//! use hashline_fs::{atomic, Journal, Member, RootDir, Target};
//!
//! let dir = tempfile::tempdir()?;
//! let root = RootDir::open(&dir.path().canonicalize()?)?;
//! let target = Target::open(&root, Path::new("notes/a.txt"), &root.path().join("notes/a.txt"), true)?;
//! let member = Member { target: &target, old: b"", new: b"alpha\n", check: false, remove: false };
//! atomic::commit(&Journal::new(&root), &[member], &|_, _| Ok(())).map_err(|(_, err)| err)?;
//! assert_eq!(hashline_fs::read_beneath(&root, Path::new("notes/a.txt"))?, b"alpha\n");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![warn(missing_docs)]

pub mod atomic;
mod error;
pub mod heap;
pub mod journal;
pub mod lookup;
pub mod open;
pub mod private;
mod replace;
mod root;
mod staging;
pub mod state;
mod sys;
mod target;

pub use error::{NotRegularFile, TooLarge, is_escape, is_in_use};
pub use journal::{JOURNAL_DIR, Journal, Recovery, recover};
pub use replace::{Replacement, stage_replacement, write_atomic, write_atomic_unsynced};
pub use root::RootDir;
pub use staging::{CommitError, Hook, Member, Stage};
pub use state::state_dir;
pub use sys::{BACKEND_VAR, Backend, backend};
pub use target::{
    COMPARE_BYTES_MAX, FileId, MAX_FILE_BYTES, Snapshot, Target, WriteState, read_beneath, read_beneath_stamped,
};
