//! Following a task to its end (extension `io.modelcontextprotocol/tasks`),
//! as a pure state machine: [`TaskFollow::step`] takes what happened (a
//! `tasks/get` answer, a status notification, the timer, an ack of
//! answers, the caller giving up) with the time, and returns what to do
//! (poll, wait, answer questions, cancel, finish). The runner in
//! [`task`](super::task) owns the requests and the timer.
//!
//! Polls are spaced by the interval the server suggests, held between
//! [`MIN_POLL_INTERVAL`] and [`MAX_POLL_INTERVAL`]; a notification is used
//! as a poll's answer. Past the deadline, the task is cancelled.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use mcpdisco_protocol::ErrorObject;
use mcpdisco_protocol::types::{CallToolResult, DetailedTask, InputRequest, Task, TaskStatus};
use tokio::time::Instant;

/// The shortest wait between two polls, whatever the server suggests.
pub(crate) const MIN_POLL_INTERVAL: Duration = Duration::from_millis(100);
/// The longest wait between two polls, whatever the server suggests.
pub(crate) const MAX_POLL_INTERVAL: Duration = Duration::from_secs(15);
/// The wait between polls when the server suggests none.
pub(crate) const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(1);

/// What happened to a followed task.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum FollowEvent {
    /// Following starts.
    Started,
    /// A `tasks/get` answered.
    Polled(DetailedTask),
    /// A status notification of this task arrived.
    Notified(DetailedTask),
    /// The wait asked for by [`FollowAction::WaitUntil`] ended.
    TimerFired,
    /// The answers of [`FollowAction::Answer`] were sent (`tasks/update`).
    Answered,
    /// The caller gave up (dropped the call, or an answer failed).
    GaveUp,
}

/// What the runner does next.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum FollowAction {
    /// The task's status (or its message) changed: tell the caller.
    Report(Task),
    /// Send `tasks/get`.
    Poll,
    /// Fire [`FollowEvent::TimerFired`] at this instant (replaces any earlier wait).
    WaitUntil(Instant),
    /// Answer these questions through the handler, then `tasks/update`.
    Answer(BTreeMap<String, InputRequest>),
    /// Send `tasks/cancel`.
    Cancel,
    /// Following is over.
    Finish(FollowEnd),
}

/// How following a task ended.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum FollowEnd {
    /// The task completed with this result (maybe `isError`).
    Completed(Box<CallToolResult>),
    /// The task failed with this error.
    Failed(ErrorObject),
    /// The task was cancelled (by someone else, or the server).
    Cancelled,
    /// The deadline passed; the task was cancelled.
    DeadlinePassed,
    /// The server broke the extension (a completed task without its result).
    Violation(String),
}

/// One followed task.
#[derive(Debug)]
pub(crate) struct TaskFollow {
    task: Task,
    interval: Duration,
    deadline: Option<Instant>,
    polling: bool,
    answering: bool,
    answered: BTreeSet<String>,
    done: bool,
}

impl TaskFollow {
    /// Follows `task` (as created, or as last seen) until `deadline`, if any.
    pub(crate) fn new(task: Task, deadline: Option<Instant>) -> Self {
        let interval = poll_interval(task.poll_interval_ms);
        Self {
            task,
            interval,
            deadline,
            polling: false,
            answering: false,
            answered: BTreeSet::new(),
            done: false,
        }
    }

    /// Whether following is over.
    #[cfg(test)]
    pub(crate) fn is_done(&self) -> bool {
        self.done
    }

    /// Applies `event`, which happened at `now`: what to do.
    pub(crate) fn step(&mut self, event: FollowEvent, now: Instant) -> Vec<FollowAction> {
        if self.done {
            return Vec::new();
        }
        match event {
            FollowEvent::Started => {
                let mut actions = vec![FollowAction::Report(self.task.clone())];
                if self.task.status.is_terminal() {
                    // Created already ended: its outcome comes with tasks/get.
                    self.polling = true;
                    actions.push(FollowAction::Poll);
                } else {
                    actions.push(self.wait(now));
                }
                actions
            }
            FollowEvent::TimerFired => {
                if self.deadline.is_some_and(|deadline| now >= deadline) {
                    return self.finish_cancelling(FollowEnd::DeadlinePassed);
                }
                if self.polling {
                    return Vec::new();
                }
                self.polling = true;
                vec![FollowAction::Poll]
            }
            FollowEvent::Polled(seen) => {
                self.polling = false;
                self.seen(seen, true, now)
            }
            FollowEvent::Notified(seen) => self.seen(seen, false, now),
            FollowEvent::Answered => {
                self.answering = false;
                if self.polling {
                    return Vec::new();
                }
                self.polling = true;
                vec![FollowAction::Poll]
            }
            FollowEvent::GaveUp => {
                self.done = true;
                vec![FollowAction::Cancel]
            }
        }
    }

    /// A view of the task, from a poll or a notification.
    fn seen(&mut self, seen: DetailedTask, polled: bool, now: Instant) -> Vec<FollowAction> {
        let mut actions = Vec::new();
        if seen.task.poll_interval_ms.is_some() {
            self.interval = poll_interval(seen.task.poll_interval_ms);
        }
        if seen.task.status != self.task.status
            || seen.task.status_message != self.task.status_message
        {
            actions.push(FollowAction::Report(seen.task.clone()));
        }
        self.task = seen.task;
        match &self.task.status {
            TaskStatus::Completed => match seen.result {
                Some(result) => {
                    return self.finish(actions, FollowEnd::Completed(Box::new(result)));
                }
                None if polled => {
                    let end = FollowEnd::Violation(format!(
                        "task {} completed without its result",
                        self.task.task_id
                    ));
                    return self.finish(actions, end);
                }
                None => return self.poll_now(actions),
            },
            TaskStatus::Failed => match seen.error {
                Some(error) => return self.finish(actions, FollowEnd::Failed(error)),
                None if polled => {
                    let error = ErrorObject::new(
                        mcpdisco_protocol::ErrorCode::INTERNAL_ERROR,
                        format!("task {} failed without an error", self.task.task_id),
                    );
                    return self.finish(actions, FollowEnd::Failed(error));
                }
                None => return self.poll_now(actions),
            },
            TaskStatus::Cancelled => return self.finish(actions, FollowEnd::Cancelled),
            TaskStatus::InputRequired if !self.answering => {
                let open: BTreeMap<String, InputRequest> = seen
                    .input_requests
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|(key, _)| !self.answered.contains(key))
                    .collect();
                if !open.is_empty() {
                    self.answering = true;
                    self.answered.extend(open.keys().cloned());
                    actions.push(FollowAction::Answer(open));
                }
            }
            _ => {}
        }
        if polled {
            actions.push(self.wait(now));
        }
        actions
    }

    /// Polls at once (a notification said the task ended, without its outcome).
    fn poll_now(&mut self, mut actions: Vec<FollowAction>) -> Vec<FollowAction> {
        if !self.polling {
            self.polling = true;
            actions.push(FollowAction::Poll);
        }
        actions
    }

    /// The wait until the next poll, cut short by the deadline.
    fn wait(&self, now: Instant) -> FollowAction {
        let next = now + self.interval;
        FollowAction::WaitUntil(match self.deadline {
            Some(deadline) => next.min(deadline),
            None => next,
        })
    }

    fn finish(&mut self, mut actions: Vec<FollowAction>, end: FollowEnd) -> Vec<FollowAction> {
        self.done = true;
        actions.push(FollowAction::Finish(end));
        actions
    }

    fn finish_cancelling(&mut self, end: FollowEnd) -> Vec<FollowAction> {
        self.done = true;
        vec![FollowAction::Cancel, FollowAction::Finish(end)]
    }
}

/// The server's suggested interval, held between the floor and the ceiling.
fn poll_interval(suggested_ms: Option<u64>) -> Duration {
    suggested_ms
        .map(Duration::from_millis)
        .unwrap_or(DEFAULT_POLL_INTERVAL)
        .clamp(MIN_POLL_INTERVAL, MAX_POLL_INTERVAL)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpdisco_protocol::types::ContentBlock;

    fn task(status: TaskStatus, poll_ms: Option<u64>) -> Task {
        Task {
            poll_interval_ms: poll_ms,
            ..Task::new("t-1", status, "2026-07-28T10:00:00Z")
        }
    }

    fn detailed(status: TaskStatus) -> DetailedTask {
        DetailedTask::new(task(status, Some(500)))
    }

    fn done() -> DetailedTask {
        let mut seen = detailed(TaskStatus::Completed);
        seen.result = Some(CallToolResult {
            content: vec![ContentBlock::text("report")],
            ..CallToolResult::default()
        });
        seen
    }

    fn ms(ms: u64) -> Duration {
        Duration::from_millis(ms)
    }

    #[test]
    fn polls_at_the_suggested_interval_until_the_result() {
        let t0 = Instant::now();
        let mut follow = TaskFollow::new(task(TaskStatus::Working, Some(500)), None);
        assert_eq!(
            follow.step(FollowEvent::Started, t0),
            vec![
                FollowAction::Report(task(TaskStatus::Working, Some(500))),
                FollowAction::WaitUntil(t0 + ms(500))
            ]
        );
        let t1 = t0 + ms(500);
        assert_eq!(
            follow.step(FollowEvent::TimerFired, t1),
            vec![FollowAction::Poll]
        );
        assert_eq!(
            follow.step(FollowEvent::TimerFired, t1),
            Vec::new(),
            "one poll at a time"
        );
        assert_eq!(
            follow.step(FollowEvent::Polled(detailed(TaskStatus::Working)), t1),
            vec![FollowAction::WaitUntil(t1 + ms(500))]
        );
        follow.step(FollowEvent::TimerFired, t1 + ms(500));
        let actions = follow.step(FollowEvent::Polled(done()), t1 + ms(500));
        assert_eq!(actions.len(), 2, "{actions:?}");
        assert!(
            matches!(actions[0], FollowAction::Report(ref t) if t.status == TaskStatus::Completed)
        );
        assert!(
            matches!(&actions[1], FollowAction::Finish(FollowEnd::Completed(result)) if result.content.len() == 1)
        );
        assert!(follow.is_done());
        assert!(
            follow
                .step(FollowEvent::TimerFired, t1 + ms(900))
                .is_empty()
        );
    }

    #[test]
    fn the_suggested_interval_is_held_between_floor_and_ceiling() {
        let t0 = Instant::now();
        for (suggested, used) in [
            (Some(1), MIN_POLL_INTERVAL),
            (Some(3_600_000), MAX_POLL_INTERVAL),
            (None, DEFAULT_POLL_INTERVAL),
            (Some(2_000), ms(2_000)),
        ] {
            let mut follow = TaskFollow::new(task(TaskStatus::Working, suggested), None);
            let actions = follow.step(FollowEvent::Started, t0);
            assert_eq!(
                actions[1],
                FollowAction::WaitUntil(t0 + used),
                "{suggested:?}"
            );
        }
    }

    #[test]
    fn a_deadline_cuts_the_wait_short_and_cancels_the_task() {
        let t0 = Instant::now();
        let deadline = t0 + ms(300);
        let mut follow = TaskFollow::new(task(TaskStatus::Working, Some(500)), Some(deadline));
        let actions = follow.step(FollowEvent::Started, t0);
        assert_eq!(actions[1], FollowAction::WaitUntil(deadline));
        assert_eq!(
            follow.step(FollowEvent::TimerFired, deadline),
            vec![
                FollowAction::Cancel,
                FollowAction::Finish(FollowEnd::DeadlinePassed)
            ]
        );
        assert!(follow.is_done());
    }

    #[test]
    fn giving_up_cancels_once_and_an_ended_task_is_not_cancelled() {
        let t0 = Instant::now();
        let mut follow = TaskFollow::new(task(TaskStatus::Working, None), None);
        follow.step(FollowEvent::Started, t0);
        assert_eq!(
            follow.step(FollowEvent::GaveUp, t0),
            vec![FollowAction::Cancel]
        );
        assert!(follow.step(FollowEvent::GaveUp, t0).is_empty());

        let mut ended = TaskFollow::new(task(TaskStatus::Working, None), None);
        ended.step(FollowEvent::Polled(done()), t0);
        assert!(ended.step(FollowEvent::GaveUp, t0).is_empty());
    }

    #[test]
    fn questions_are_answered_once_then_the_task_is_polled() {
        let t0 = Instant::now();
        let mut follow = TaskFollow::new(task(TaskStatus::Working, Some(500)), None);
        follow.step(FollowEvent::Started, t0);
        follow.step(FollowEvent::TimerFired, t0 + ms(500));
        let mut asking = detailed(TaskStatus::InputRequired);
        let question: InputRequest = serde_json::from_value(serde_json::json!({
            "method": "elicitation/create", "params": {"message": "Sure?"}
        }))
        .unwrap();
        asking.input_requests = Some(BTreeMap::from([("confirm".to_owned(), question)]));
        let actions = follow.step(FollowEvent::Polled(asking.clone()), t0 + ms(500));
        assert!(matches!(&actions[1], FollowAction::Answer(open) if open.contains_key("confirm")));
        assert_eq!(
            follow.step(FollowEvent::Answered, t0 + ms(600)),
            vec![FollowAction::Poll]
        );
        // Still showing the question before the server took the answer: not asked again.
        let again = follow.step(FollowEvent::Polled(asking), t0 + ms(600));
        assert_eq!(again, vec![FollowAction::WaitUntil(t0 + ms(1100))]);
    }

    #[test]
    fn a_notification_counts_as_a_poll_and_an_ended_one_is_fetched() {
        let t0 = Instant::now();
        let mut follow = TaskFollow::new(task(TaskStatus::Working, Some(500)), None);
        follow.step(FollowEvent::Started, t0);
        let actions = follow.step(FollowEvent::Notified(detailed(TaskStatus::Completed)), t0);
        assert!(matches!(actions[0], FollowAction::Report(_)));
        assert_eq!(
            actions[1],
            FollowAction::Poll,
            "the result comes with tasks/get"
        );
        assert!(!follow.is_done());
        let actions = follow.step(FollowEvent::Notified(done()), t0);
        assert!(matches!(
            actions.last(),
            Some(FollowAction::Finish(FollowEnd::Completed(_)))
        ));
    }

    #[test]
    fn failed_cancelled_and_resultless_tasks_end_following() {
        let t0 = Instant::now();
        let end_of = |seen: DetailedTask| {
            let mut follow = TaskFollow::new(task(TaskStatus::Working, None), None);
            follow.step(FollowEvent::Polled(seen), t0).pop()
        };
        let mut failed = detailed(TaskStatus::Failed);
        failed.error = Some(ErrorObject::new(
            mcpdisco_protocol::ErrorCode::INTERNAL_ERROR,
            "boom",
        ));
        assert!(
            matches!(end_of(failed), Some(FollowAction::Finish(FollowEnd::Failed(e))) if e.message == "boom")
        );
        assert_eq!(
            end_of(detailed(TaskStatus::Cancelled)),
            Some(FollowAction::Finish(FollowEnd::Cancelled))
        );
        assert!(matches!(
            end_of(detailed(TaskStatus::Completed)),
            Some(FollowAction::Finish(FollowEnd::Violation(_)))
        ));
        let mut created_done = TaskFollow::new(task(TaskStatus::Completed, None), None);
        let actions = created_done.step(FollowEvent::Started, t0);
        assert_eq!(actions.last(), Some(&FollowAction::Poll));
    }
}
