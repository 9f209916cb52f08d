//! One bound on the bytes that many sessions' changes keep in memory together (an HTTP
//! server's sessions): past it, the oldest changes across the sessions are dropped first,
//! and reverting one answers `change-expired` (docs/protocol.md §10.2).

use std::sync::{Arc, Mutex, MutexGuard, Weak};

use hashline::Session;

/// The sessions under one bound on their kept changes.
#[derive(Debug)]
pub(crate) struct UndoBound {
    max_bytes: u64,
    /// Every session registered, while it lives.
    sessions: Mutex<Vec<Weak<Session>>>,
    /// Held by one enforcement at a time: calls that end together measure in turn.
    turn: Mutex<()>,
}

impl UndoBound {
    /// A bound of `max_bytes` over the sessions registered.
    pub(crate) fn new(max_bytes: u64) -> Self {
        Self { max_bytes, sessions: Mutex::new(Vec::new()), turn: Mutex::new(()) }
    }

    fn sessions(&self) -> MutexGuard<'_, Vec<Weak<Session>>> {
        self.sessions.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Puts `session`'s changes under the bound (until the session ends).
    pub(crate) fn register(&self, session: &Arc<Session>) {
        let mut sessions = self.sessions();
        sessions.retain(|session| session.strong_count() > 0);
        sessions.push(Arc::downgrade(session));
    }

    /// Drops the oldest kept changes (by the time they were committed; in a tie, the
    /// session registered first), across the sessions, until what they keep fits the
    /// bound. One enforcement at a time; each session's log is locked only while it is
    /// measured or a change of it is dropped, never two at once.
    pub(crate) fn enforce(&self) {
        let live: Vec<Arc<Session>> = {
            let mut sessions = self.sessions();
            sessions.retain(|session| session.strong_count() > 0);
            sessions.iter().filter_map(Weak::upgrade).collect()
        };
        let _turn = self.turn.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut held: Vec<u64> = live.iter().map(|session| session.changes().kept_bytes()).collect();
        let mut total: u64 = held.iter().sum();
        while total > self.max_bytes {
            let oldest = live
                .iter()
                .enumerate()
                .filter_map(|(index, session)| session.changes().oldest_kept_time().map(|time| (time, index)))
                .min();
            let Some((_, index)) = oldest else { break };
            let mut log = live[index].changes();
            if log.drop_oldest_kept().is_none() {
                break;
            }
            let now = log.kept_bytes();
            drop(log);
            total = total.saturating_sub(held[index]).saturating_add(now);
            held[index] = now;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hashline::tools::changes::{Before, Lookup, NewFile};

    fn write(session: &Session, name: &str, bytes: &[u8]) -> String {
        let path = std::path::PathBuf::from("/w").join(name);
        let file =
            NewFile { path: &path, display: name, before: Before::Absent, after: Some(bytes), added: 1, removed: 0 };
        session.changes().record("write", None, &[file])
    }

    #[test]
    fn the_oldest_changes_across_sessions_go_first_and_ended_sessions_are_forgotten() {
        let dir = tempfile::tempdir().expect("tempdir");
        let bound = UndoBound::new(250);
        let one = Arc::new(Session::open(dir.path()).expect("session"));
        let two = Arc::new(Session::open(dir.path()).expect("session"));
        bound.register(&one);
        bound.register(&two);
        let first = write(&one, "a", &[b'a'; 100]);
        std::thread::sleep(std::time::Duration::from_millis(2));
        let second = write(&two, "b", &[b'b'; 100]);
        bound.enforce();
        assert!(one.changes().find(&first).is_ok(), "200 bytes fit");
        std::thread::sleep(std::time::Duration::from_millis(2));
        let third = write(&one, "c", &[b'c'; 100]);
        bound.enforce();
        assert_eq!(one.changes().find(&first).err(), Some(Lookup::Expired));
        assert!(two.changes().find(&second).is_ok() && one.changes().find(&third).is_ok());
        drop(two);
        bound.enforce();
        assert_eq!(bound.sessions().len(), 1);
    }
}
