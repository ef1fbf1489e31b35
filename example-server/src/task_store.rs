//! The tasks a server process keeps (extension `io.modelcontextprotocol/tasks`):
//! a bounded map from task id to its [`TaskState`] and the runner's job `J`
//! (what the runner needs to resume or stop the work). Pure: the time is
//! passed in. A task is kept for its TTL after creation, then forgotten;
//! expired tasks are dropped whenever a task is created, and a full store
//! refuses new tasks rather than forget live ones.

use std::collections::HashMap;
use std::time::{Duration, SystemTime};

use serde_json::{Map, Value};
use tokio::task::AbortHandle;

use crate::task_state::{TaskAction, TaskEvent, TaskState};

/// What the server's runner keeps with a task: the tool and its arguments
/// (to finish it once its questions are answered), and the handle that
/// stops its work when it is cancelled.
#[derive(Debug, Default)]
pub(crate) struct TaskJob {
    /// The tool called.
    pub(crate) tool: String,
    /// Its arguments.
    pub(crate) arguments: Map<String, Value>,
    /// The work running for it, if any.
    pub(crate) worker: Option<AbortHandle>,
}

/// Why a task could not be created.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the server already keeps {0} tasks; try again when some have expired")]
pub(crate) struct StoreFull(pub(crate) usize);

/// One kept task.
#[derive(Debug)]
struct Entry<J> {
    state: TaskState,
    expires_at: SystemTime,
    job: J,
}

/// The tasks of one server process.
#[derive(Debug)]
pub(crate) struct TaskStore<J> {
    entries: HashMap<String, Entry<J>>,
    capacity: usize,
    ttl: Duration,
    prefix: String,
    next: u64,
}

impl<J> TaskStore<J> {
    /// A store of at most `capacity` tasks, each kept `ttl`; ids start with `prefix`.
    pub(crate) fn new(capacity: usize, ttl: Duration, prefix: impl Into<String>) -> Self {
        Self {
            entries: HashMap::new(),
            capacity,
            ttl,
            prefix: prefix.into(),
            next: 0,
        }
    }

    /// How long a task is kept, in milliseconds.
    pub(crate) fn ttl_ms(&self) -> u64 {
        u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX)
    }

    /// Creates a working task for `job` at `now`; its id.
    pub(crate) fn create(&mut self, job: J, now: SystemTime) -> Result<String, StoreFull> {
        self.entries.retain(|_, entry| entry.expires_at > now);
        if self.entries.len() >= self.capacity {
            return Err(StoreFull(self.capacity));
        }
        self.next += 1;
        let id = format!("{}-{}", self.prefix, self.next);
        let entry = Entry {
            state: TaskState::new(now),
            expires_at: now + self.ttl,
            job,
        };
        self.entries.insert(id.clone(), entry);
        Ok(id)
    }

    /// The task `id` and its job, unless unknown or expired at `now`.
    pub(crate) fn get(&self, id: &str, now: SystemTime) -> Option<(&TaskState, &J)> {
        self.entries
            .get(id)
            .filter(|entry| entry.expires_at > now)
            .map(|entry| (&entry.state, &entry.job))
    }

    /// The job of the task `id`, unless unknown or expired at `now`.
    pub(crate) fn job_mut(&mut self, id: &str, now: SystemTime) -> Option<&mut J> {
        self.entries
            .get_mut(id)
            .filter(|entry| entry.expires_at > now)
            .map(|entry| &mut entry.job)
    }

    /// Applies `event` to the task `id` at `now`: the actions, with its job;
    /// `None` when it is unknown or expired.
    pub(crate) fn step(
        &mut self,
        id: &str,
        event: TaskEvent,
        now: SystemTime,
    ) -> Option<(Vec<TaskAction>, &mut J)> {
        let entry = self
            .entries
            .get_mut(id)
            .filter(|entry| entry.expires_at > now)?;
        let actions = entry.state.step(event, now);
        Some((actions, &mut entry.job))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpdisco_protocol::types::TaskStatus;

    fn at(seconds: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000 + seconds)
    }

    #[test]
    fn tasks_are_found_until_their_ttl_and_then_forgotten() {
        let mut store = TaskStore::new(4, Duration::from_secs(10), "t");
        let id = store.create("job", at(0)).unwrap();
        assert_eq!(store.ttl_ms(), 10_000);
        let (state, job) = store.get(&id, at(9)).unwrap();
        assert_eq!((state.status(), *job), (&TaskStatus::Working, "job"));
        *store.job_mut(&id, at(9)).unwrap() = "running";
        assert_eq!(store.get(&id, at(9)).map(|(_, job)| *job), Some("running"));
        let (actions, _) = store.step(&id, TaskEvent::Cancel, at(9)).unwrap();
        assert_eq!(actions, vec![TaskAction::Stop, TaskAction::StatusChanged]);
        assert!(store.get(&id, at(10)).is_none(), "expired at its TTL");
        assert!(store.step(&id, TaskEvent::Cancel, at(10)).is_none());
        assert!(store.job_mut(&id, at(10)).is_none());
        assert!(store.get("t-99", at(0)).is_none());
        let other = store.create("job", at(0)).unwrap();
        assert_ne!(other, id);
    }

    #[test]
    fn a_full_store_refuses_until_tasks_expire() {
        let mut store = TaskStore::new(2, Duration::from_secs(10), "t");
        store.create((), at(0)).unwrap();
        store.create((), at(5)).unwrap();
        assert_eq!(store.create((), at(6)), Err(StoreFull(2)));
        let third = store.create((), at(10)).unwrap();
        assert!(
            store.get(&third, at(10)).is_some(),
            "the first expired and made room"
        );
        assert_eq!(store.create((), at(11)), Err(StoreFull(2)));
    }
}
