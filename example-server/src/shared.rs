//! State every connection of one server shares: the list changes that
//! modern `subscriptions/listen` streams wait for, and the key that signs
//! the `requestState` of `input_required` results.

use std::hash::{BuildHasher, RandomState};
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::sync::broadcast;

/// List changes kept for listeners that fall behind.
const CHANGES: usize = 64;

/// A list that changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ListChange {
    /// The tools.
    Tools = 0,
    /// The prompts.
    Prompts = 1,
}

/// What every connection shares.
#[derive(Debug)]
pub(crate) struct SharedState {
    changes: broadcast::Sender<ListChange>,
    key: String,
    /// How many times the tools and the prompts changed.
    revisions: [AtomicU64; 2],
}

impl Default for SharedState {
    fn default() -> Self {
        let random = RandomState::new();
        Self {
            changes: broadcast::channel(CHANGES).0,
            key: format!("{:016x}{:016x}", random.hash_one(1u8), random.hash_one(2u8)),
            revisions: [AtomicU64::new(0), AtomicU64::new(0)],
        }
    }
}

impl SharedState {
    /// Changes `list` (its revision, which the list shows, goes up) and
    /// tells every listener.
    pub(crate) fn changed(&self, list: ListChange) {
        self.revisions[list as usize].fetch_add(1, Ordering::AcqRel);
        let _ = self.changes.send(list);
    }

    /// How many times `list` changed.
    pub(crate) fn revision(&self, list: ListChange) -> u64 {
        self.revisions[list as usize].load(Ordering::Acquire)
    }

    /// The changes from now on.
    pub(crate) fn listen(&self) -> broadcast::Receiver<ListChange> {
        self.changes.subscribe()
    }

    /// This server's secret for signing request states (random per process).
    pub(crate) fn key(&self) -> &str {
        &self.key
    }
}
