//! State every connection of one server shares: the list changes that
//! modern `subscriptions/listen` streams wait for, and the key that signs
//! the `requestState` of `input_required` results.

use std::hash::{BuildHasher, RandomState};

use tokio::sync::broadcast;

/// List changes kept for listeners that fall behind.
const CHANGES: usize = 64;

/// A list that changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ListChange {
    /// The tools.
    Tools,
    /// The prompts.
    Prompts,
}

/// What every connection shares.
#[derive(Debug)]
pub(crate) struct SharedState {
    changes: broadcast::Sender<ListChange>,
    key: String,
}

impl Default for SharedState {
    fn default() -> Self {
        let random = RandomState::new();
        Self {
            changes: broadcast::channel(CHANGES).0,
            key: format!("{:016x}{:016x}", random.hash_one(1u8), random.hash_one(2u8)),
        }
    }
}

impl SharedState {
    /// Tells every listener that `list` changed.
    pub(crate) fn changed(&self, list: ListChange) {
        let _ = self.changes.send(list);
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
