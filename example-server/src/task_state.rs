//! One task's life (extension `io.modelcontextprotocol/tasks`) as a pure
//! state machine: [`TaskState::step`] takes an event and the time, and
//! returns what the runner must do. It never blocks and holds no handle.
//!
//! A task is `working` until its tool finishes (`completed`, with the
//! result, maybe `isError`), fails at the protocol level (`failed`, with the
//! error), asks questions (`input_required` until every one is answered,
//! then `working` again with the answers handed to the runner) or is
//! cancelled. An ended task ignores every event, so a second cancel is the
//! same no-op as the first. Every step that moves the status says so
//! ([`TaskAction::StatusChanged`]), for the status notifications.

use std::collections::BTreeMap;
use std::time::SystemTime;

use mcpdisco_protocol::ErrorObject;
use mcpdisco_protocol::types::{
    CallToolResult, DetailedTask, Extra, InputRequest, Task, TaskStatus,
};

/// What happens to a task.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum TaskEvent {
    /// The tool needs these answers, by key, before it goes on.
    Ask(BTreeMap<String, InputRequest>),
    /// The client answered some questions (`tasks/update`); answers to keys
    /// that are not open are ignored.
    Answer(Extra),
    /// The tool finished with this result.
    Finish(CallToolResult),
    /// The tool failed at the protocol level.
    Fail(ErrorObject),
    /// The client cancelled it (`tasks/cancel`).
    Cancel,
}

/// What the runner must do after a step.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum TaskAction {
    /// Every question is answered: run the tool on with these answers.
    Resume(Extra),
    /// Stop the tool's work: the task was cancelled.
    Stop,
    /// Its status moved: tell the listeners that asked for it
    /// (`notifications/tasks`). Always the last action of a step.
    StatusChanged,
}

/// One task.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TaskState {
    status: TaskStatus,
    created_at: SystemTime,
    updated_at: SystemTime,
    questions: BTreeMap<String, InputRequest>,
    answers: Extra,
    result: Option<CallToolResult>,
    error: Option<ErrorObject>,
}

impl TaskState {
    /// A task created `now`, working.
    pub(crate) fn new(now: SystemTime) -> Self {
        Self {
            status: TaskStatus::Working,
            created_at: now,
            updated_at: now,
            questions: BTreeMap::new(),
            answers: Extra::new(),
            result: None,
            error: None,
        }
    }

    /// Where it is.
    #[cfg(test)]
    pub(crate) fn status(&self) -> &TaskStatus {
        &self.status
    }

    /// Applies `event` at `now`.
    pub(crate) fn step(&mut self, event: TaskEvent, now: SystemTime) -> Vec<TaskAction> {
        if self.status.is_terminal() {
            return Vec::new();
        }
        let before = self.status.clone();
        let mut actions = Vec::new();
        match event {
            TaskEvent::Ask(questions) if !questions.is_empty() => {
                self.questions = questions;
                self.status = TaskStatus::InputRequired;
            }
            TaskEvent::Ask(_) => return actions,
            TaskEvent::Answer(responses) => {
                let mut answered = false;
                for (key, answer) in responses {
                    if self.questions.remove(&key).is_some() {
                        self.answers.insert(key, answer);
                        answered = true;
                    }
                }
                if !answered {
                    return actions;
                }
                if self.questions.is_empty() {
                    self.status = TaskStatus::Working;
                    actions.push(TaskAction::Resume(std::mem::take(&mut self.answers)));
                }
            }
            TaskEvent::Finish(result) => {
                self.end(TaskStatus::Completed);
                self.result = Some(result);
            }
            TaskEvent::Fail(error) => {
                self.end(TaskStatus::Failed);
                self.error = Some(error);
            }
            TaskEvent::Cancel => {
                self.end(TaskStatus::Cancelled);
                actions.push(TaskAction::Stop);
            }
        }
        self.updated_at = now;
        if self.status != before {
            actions.push(TaskAction::StatusChanged);
        }
        actions
    }

    fn end(&mut self, status: TaskStatus) {
        self.status = status;
        self.questions.clear();
        self.answers.clear();
    }

    /// The task as `tasks/get` shows it, under `id`, kept `ttl_ms` and
    /// polled every `poll_interval_ms`.
    pub(crate) fn detailed(&self, id: &str, ttl_ms: u64, poll_interval_ms: u64) -> DetailedTask {
        let mut detailed = DetailedTask::new(self.task(id, ttl_ms, poll_interval_ms));
        detailed.result = self.result.clone();
        detailed.error = self.error.clone();
        if self.status == TaskStatus::InputRequired {
            detailed.input_requests = Some(self.questions.clone());
        }
        detailed
    }

    /// The task's common members, under `id`.
    pub(crate) fn task(&self, id: &str, ttl_ms: u64, poll_interval_ms: u64) -> Task {
        Task {
            created_at: timestamp(self.created_at),
            last_updated_at: timestamp(self.updated_at),
            ttl_ms: Some(ttl_ms),
            poll_interval_ms: Some(poll_interval_ms),
            ..Task::new(id, self.status.clone(), "")
        }
    }
}

/// `at` in ISO 8601 (RFC 3339, UTC, milliseconds).
fn timestamp(at: SystemTime) -> String {
    humantime::format_rfc3339_millis(at).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpdisco_protocol::ErrorCode;
    use serde_json::Value;
    use std::time::Duration;

    fn at(seconds: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000 + seconds)
    }

    fn question() -> InputRequest {
        InputRequest {
            method: "elicitation/create".into(),
            params: None,
            extra: Extra::new(),
        }
    }

    fn questions(keys: &[&str]) -> BTreeMap<String, InputRequest> {
        keys.iter()
            .map(|key| ((*key).to_owned(), question()))
            .collect()
    }

    fn answers(keys: &[&str]) -> Extra {
        keys.iter()
            .map(|key| ((*key).to_owned(), Value::Bool(true)))
            .collect()
    }

    #[test]
    fn a_task_finishes_or_fails_once_and_shows_its_outcome() {
        let mut task = TaskState::new(at(0));
        let done = CallToolResult {
            is_error: Some(true),
            ..CallToolResult::default()
        };
        assert_eq!(
            task.step(TaskEvent::Finish(done.clone()), at(1)),
            vec![TaskAction::StatusChanged]
        );
        let shown = task.detailed("t-1", 1000, 200);
        assert_eq!(shown.task.status, TaskStatus::Completed);
        assert_eq!(shown.result, Some(done));
        assert_eq!(shown.task.created_at, "2027-01-15T08:00:00.000Z");
        assert_eq!(shown.task.last_updated_at, "2027-01-15T08:00:01.000Z");
        assert_eq!(
            (shown.task.ttl_ms, shown.task.poll_interval_ms),
            (Some(1000), Some(200))
        );
        let error = ErrorObject::new(ErrorCode::INTERNAL_ERROR, "late");
        assert!(task.step(TaskEvent::Fail(error), at(2)).is_empty());
        assert_eq!(
            task.status(),
            &TaskStatus::Completed,
            "an ended task stays ended"
        );

        let mut failing = TaskState::new(at(0));
        let error = ErrorObject::new(ErrorCode::INTERNAL_ERROR, "boom");
        assert_eq!(
            failing.step(TaskEvent::Fail(error.clone()), at(1)),
            vec![TaskAction::StatusChanged]
        );
        let shown = failing.detailed("t-2", 1000, 200);
        assert_eq!(
            (shown.task.status, shown.error, shown.result),
            (TaskStatus::Failed, Some(error), None)
        );
    }

    #[test]
    fn cancel_stops_the_work_once_and_is_a_no_op_after() {
        let mut task = TaskState::new(at(0));
        assert_eq!(
            task.step(TaskEvent::Cancel, at(1)),
            vec![TaskAction::Stop, TaskAction::StatusChanged]
        );
        assert_eq!(task.status(), &TaskStatus::Cancelled);
        assert!(task.step(TaskEvent::Cancel, at(2)).is_empty());
        assert!(
            task.step(TaskEvent::Finish(CallToolResult::default()), at(3))
                .is_empty()
        );
        assert_eq!(task.status(), &TaskStatus::Cancelled);
        assert_eq!(
            task.detailed("t", 1, 1).task.last_updated_at,
            "2027-01-15T08:00:01.000Z"
        );
    }

    #[test]
    fn questions_are_answered_one_by_one_and_the_task_resumes_with_all_answers() {
        let mut task = TaskState::new(at(0));
        assert_eq!(
            task.step(TaskEvent::Ask(questions(&["first", "second"])), at(1)),
            vec![TaskAction::StatusChanged]
        );
        assert_eq!(task.status(), &TaskStatus::InputRequired);
        assert!(
            task.step(TaskEvent::Answer(answers(&["unknown"])), at(2))
                .is_empty()
        );
        assert!(
            task.step(TaskEvent::Answer(answers(&["first"])), at(3))
                .is_empty()
        );
        let open = task.detailed("t", 1, 1).input_requests.unwrap_or_default();
        assert_eq!(open.keys().collect::<Vec<_>>(), ["second"]);
        assert_eq!(task.status(), &TaskStatus::InputRequired);
        let actions = task.step(TaskEvent::Answer(answers(&["second", "first"])), at(4));
        assert_eq!(
            actions,
            vec![
                TaskAction::Resume(answers(&["first", "second"])),
                TaskAction::StatusChanged
            ]
        );
        assert_eq!(task.status(), &TaskStatus::Working);
        assert_eq!(task.detailed("t", 1, 1).input_requests, None);
    }
}
