//! State every connection of one server shares: the list changes and task
//! status changes that modern `subscriptions/listen` streams wait for, the
//! key that signs the `requestState` of `input_required` results, and the
//! tasks.

use std::hash::{BuildHasher, RandomState};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use mcpdisco_protocol::types::DetailedTask;
use tokio::sync::broadcast;

use crate::task_store::{TaskJob, TaskStore};

/// List changes kept for listeners that fall behind.
const CHANGES: usize = 64;
/// Task status changes kept for listeners that fall behind (one that falls
/// further misses some, and polls).
const TASK_CHANGES: usize = 64;
/// The most tasks kept at once.
const TASKS: usize = 256;
/// How long a task is kept after its creation.
const TASK_TTL: Duration = Duration::from_secs(300);

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
    task_changes: broadcast::Sender<DetailedTask>,
    key: String,
    /// How many times the tools and the prompts changed.
    revisions: [AtomicU64; 2],
    tasks: Mutex<TaskStore<TaskJob>>,
}

impl Default for SharedState {
    fn default() -> Self {
        let random = RandomState::new();
        Self {
            changes: broadcast::channel(CHANGES).0,
            task_changes: broadcast::channel(TASK_CHANGES).0,
            key: format!("{:016x}{:016x}", random.hash_one(1u8), random.hash_one(2u8)),
            revisions: [AtomicU64::new(0), AtomicU64::new(0)],
            tasks: Mutex::new(TaskStore::new(
                TASKS,
                TASK_TTL,
                format!("task-{:08x}", random.hash_one(3u8) as u32),
            )),
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

    /// Tells every listener that a task's status moved (`task` as
    /// `tasks/get` shows it now).
    pub(crate) fn task_changed(&self, task: DetailedTask) {
        let _ = self.task_changes.send(task);
    }

    /// The task status changes from now on.
    pub(crate) fn listen_tasks(&self) -> broadcast::Receiver<DetailedTask> {
        self.task_changes.subscribe()
    }

    /// The tasks (never held across an `await`).
    pub(crate) fn tasks(&self) -> MutexGuard<'_, TaskStore<TaskJob>> {
        self.tasks.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// This server's secret for signing request states (random per process).
    pub(crate) fn key(&self) -> &str {
        &self.key
    }
}
