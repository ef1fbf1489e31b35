//! Which backend listens a client's `subscriptions/listen` for task status
//! changes needs, and how a backend's `notifications/tasks` reads to the
//! client: pure, the runner is `tasks_relay`.
//!
//! The client names its tasks by the ids the gateway gave it (`task_id`);
//! an id the gateway did not give out, or naming a server outside the
//! client's view, is dropped. The rest are grouped by server and
//! incarnation, one backend listen each, for the server's own ids; each
//! status change the server sends comes back under the client's id (the
//! same incarnation), tagged with the client's subscription.

use std::collections::BTreeMap;

use mcpdisco_protocol::RequestId;
use mcpdisco_protocol::meta::SUBSCRIPTION_ID_KEY;
use mcpdisco_protocol::types::DetailedTask;

use super::task_id::RelayedTaskId;
use super::tasks::without_envelope;

/// The most task ids of one listen the gateway reads; more are dropped.
pub(crate) const MOST_TASKS: usize = 256;

/// What a client's listen for tasks asks of the servers.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct TaskListenPlan {
    /// The client's ids it honours, in the client's order, each once.
    pub(crate) honored: Vec<String>,
    /// One listen per server incarnation.
    pub(crate) backends: Vec<BackendTasks>,
}

/// The tasks of one server's incarnation that a client's listen names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BackendTasks {
    /// The server.
    pub(crate) server: String,
    /// Its incarnation when it created these tasks.
    pub(crate) incarnation: u64,
    /// The client's id of each task, by the server's own id.
    pub(crate) client_ids: BTreeMap<String, String>,
}

/// The plan for the client's task ids `asked` (the first [`MOST_TASKS`]),
/// of which only ids of servers `shows_server` are honoured.
pub(crate) fn plan(asked: &[String], shows_server: impl Fn(&str) -> bool) -> TaskListenPlan {
    let mut plan = TaskListenPlan::default();
    let mut groups: BTreeMap<(String, u64), BTreeMap<String, String>> = BTreeMap::new();
    for id in asked.iter().take(MOST_TASKS) {
        let Some(task) = RelayedTaskId::decode(id) else {
            continue;
        };
        if !shows_server(&task.server) || plan.honored.contains(id) {
            continue;
        }
        plan.honored.push(id.clone());
        groups
            .entry((task.server, task.incarnation))
            .or_default()
            .insert(task.own, id.clone());
    }
    plan.backends = groups
        .into_iter()
        .map(|((server, incarnation), client_ids)| BackendTasks {
            server,
            incarnation,
            client_ids,
        })
        .collect();
    plan
}

impl BackendTasks {
    /// The server's own ids of the tasks, for its listen's filter.
    pub(crate) fn own_ids(&self) -> Vec<String> {
        self.client_ids.keys().cloned().collect()
    }

    /// The server's status change `task` as the client's subscription
    /// `subscription` hears it: under the client's id, without the
    /// server's envelope and subscription tag; `None` for a task this
    /// listen did not ask for.
    pub(crate) fn to_client(
        &self,
        mut task: DetailedTask,
        subscription: &RequestId,
    ) -> Option<DetailedTask> {
        task.task.task_id = self.client_ids.get(&task.task.task_id)?.clone();
        without_envelope(&mut task.extra, &mut task.meta);
        let meta = task.meta.get_or_insert_with(Default::default);
        meta.insert(SUBSCRIPTION_ID_KEY.to_owned(), subscription.to_value());
        Some(task)
    }
}

#[cfg(test)]
mod tests {
    use mcpdisco_protocol::meta::SERVER_INFO_KEY;
    use mcpdisco_protocol::types::{Extra, Task, TaskStatus};
    use serde_json::Value;

    use super::*;

    fn id(server: &str, incarnation: u64, own: &str) -> String {
        RelayedTaskId {
            server: server.to_owned(),
            incarnation,
            own: own.to_owned(),
        }
        .encode()
    }

    #[test]
    fn ids_are_grouped_by_server_and_incarnation_and_others_dropped() {
        let asked = [
            id("reports", 2, "a"),
            "task-1".to_owned(),
            id("hidden", 1, "x"),
            id("builds", 1, "b"),
            id("reports", 2, "c"),
            id("reports", 3, "a"),
            id("reports", 2, "a"),
        ];
        let plan = plan(&asked, |server| server != "hidden");
        let honored = [&asked[0], &asked[3], &asked[4], &asked[5]];
        assert_eq!(plan.honored, honored.map(String::clone));
        let seen: Vec<_> = plan
            .backends
            .iter()
            .map(|backend| {
                (
                    backend.server.as_str(),
                    backend.incarnation,
                    backend.own_ids(),
                )
            })
            .collect();
        assert_eq!(
            seen,
            [
                ("builds", 1, vec!["b".to_owned()]),
                ("reports", 2, vec!["a".to_owned(), "c".to_owned()]),
                ("reports", 3, vec!["a".to_owned()]),
            ]
        );
    }

    #[test]
    fn only_the_first_ids_are_read() {
        let asked: Vec<String> = (0..MOST_TASKS + 5)
            .map(|n| id("reports", 1, &n.to_string()))
            .collect();
        let plan = plan(&asked, |_| true);
        assert_eq!(plan.honored, asked[..MOST_TASKS]);
    }

    #[test]
    fn a_status_change_reads_under_the_client_s_id_and_subscription() {
        let plan = plan(&[id("reports", 4, "task-7")], |_| true);
        let backend = &plan.backends[0];
        let mut change = DetailedTask::new(Task::new(
            "task-7",
            TaskStatus::Completed,
            "2026-07-28T10:00:00Z",
        ));
        change.meta = Some(Extra::from_iter([
            (SUBSCRIPTION_ID_KEY.to_owned(), Value::from(99)),
            (SERVER_INFO_KEY.to_owned(), Value::from("the server")),
            ("x-vendor".to_owned(), Value::from(1)),
        ]));
        let seen = backend
            .to_client(change.clone(), &RequestId::from(5))
            .unwrap();
        assert_eq!(seen.task.task_id, id("reports", 4, "task-7"));
        assert_eq!(seen.task.status, TaskStatus::Completed);
        assert_eq!(
            seen.meta,
            Some(Extra::from_iter([
                (SUBSCRIPTION_ID_KEY.to_owned(), Value::from(5)),
                ("x-vendor".to_owned(), Value::from(1)),
            ]))
        );
        change.task.task_id = "task-8".to_owned();
        assert_eq!(backend.to_client(change, &RequestId::from(5)), None);
    }
}
