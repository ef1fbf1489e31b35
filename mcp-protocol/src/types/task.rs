//! Tasks (SEP-2663, extension `io.modelcontextprotocol/tasks` of
//! 2026-07-28; it replaced SEP-1686's core `tasks`): a server may answer a
//! `tools/call` with a task instead of its result, and the client follows
//! the task with `tasks/get`, answers its questions with `tasks/update` and
//! may end it with `tasks/cancel`.
//!
//! The wire as the conformance suite checks it: a [`CreateTaskResult`] is
//! flat (`resultType: "task"` beside the [`Task`]'s fields, no `task`
//! wrapper, no `result`, `error`, `inputRequests` nor `requestState`);
//! durations are integer milliseconds named `ttlMs` and `pollIntervalMs`
//! (never SEP-1686's `ttl` and `pollInterval`); `tasks/get` answers a
//! [`DetailedTask`] that inlines the tool's result once `completed`, a
//! JSON-RPC error once `failed`, and the open questions while
//! `input_required` (there is no `tasks/result` nor `tasks/list`). A tool
//! that can only run as a task says so with `execution.taskSupport:
//! "required"` ([`TaskSupport::Required`](super::TaskSupport::Required)).
//!
//! The small task objects are read with serde's `flatten`, not
//! `struct_with_extra!`: they are a few members each, so its buffering
//! costs nothing, and it lets [`Task`] be shared by the three shapes.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::extra::Extra;
use super::input::InputRequest;
use super::string_enum::open_string_enum;
use super::tool::CallToolResult;
use crate::error::ErrorObject;

/// The extension's identifier: the key under `capabilities.extensions`
/// (the server's in `server/discover`, the client's in each request's
/// `_meta`), and in a -32021 error's `requiredCapabilities.extensions`.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

open_string_enum!(
    /// Where a task is.
    TaskStatus {
        /// Running.
        Working => "working",
        /// Waiting for the client's answers (`inputRequests` on `tasks/get`).
        InputRequired => "input_required",
        /// Done; the tool's result (maybe `isError`) is inlined.
        Completed => "completed",
        /// Ended by a protocol-level error, which is inlined.
        Failed => "failed",
        /// Ended by `tasks/cancel`.
        Cancelled => "cancelled",
    }
);

impl TaskStatus {
    /// Whether the task has ended (`completed`, `failed` or `cancelled`);
    /// an unknown status is taken as still running.
    pub fn is_terminal(&self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }
}

/// The `resultType` of a [`CreateTaskResult`]: always `"task"`.
///
/// Its own type rather than a variant of
/// [`ResultType`](crate::meta::ResultType), which the client and the
/// gateway read every modern result with: until they follow tasks, a task
/// they did not ask for stays an unknown result type there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TaskResultType;

impl TaskResultType {
    /// The wire string.
    pub const TASK: &'static str = "task";
}

impl Serialize for TaskResultType {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(Self::TASK)
    }
}

impl<'de> Deserialize<'de> for TaskResultType {
    /// `"task"`; anything else is an error.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str> as Deserialize>::deserialize(deserializer)?;
        if text == Self::TASK {
            Ok(TaskResultType)
        } else {
            Err(serde::de::Error::custom(format!(
                "resultType {text:?} is not \"task\""
            )))
        }
    }
}

/// A task: the members every task shape carries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    /// The server's id for it.
    pub task_id: String,
    /// Where it is.
    pub status: TaskStatus,
    /// A line for a person about the status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// When it was created (ISO 8601).
    pub created_at: String,
    /// When its status last changed (ISO 8601).
    pub last_updated_at: String,
    /// How long after creation the server keeps it, in milliseconds;
    /// `None` (written `null`, as the suite requires the member) is unlimited.
    #[serde(default)]
    pub ttl_ms: Option<u64>,
    /// How long the server suggests waiting between `tasks/get`, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
}

impl Task {
    /// A task `task_id` in `status`, created and last updated at `at`.
    pub fn new(task_id: impl Into<String>, status: TaskStatus, at: impl Into<String>) -> Self {
        let at = at.into();
        Self {
            task_id: task_id.into(),
            status,
            status_message: None,
            created_at: at.clone(),
            last_updated_at: at,
            ttl_ms: None,
            poll_interval_ms: None,
        }
    }
}

/// The answer to a `tools/call` the server runs as a task: the task itself,
/// flat beside `resultType: "task"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateTaskResult {
    /// Always [`TaskResultType`].
    pub result_type: TaskResultType,
    /// The task.
    #[serde(flatten)]
    pub task: Task,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Extra>,
    /// Members this crate does not know, in order, as sent.
    #[serde(flatten)]
    pub extra: Extra,
}

impl CreateTaskResult {
    /// The answer that `task` was created.
    pub fn new(task: Task) -> Self {
        Self {
            result_type: TaskResultType,
            task,
            meta: None,
            extra: Extra::new(),
        }
    }
}

/// The result of `tasks/get`, and the params of a status notification: the
/// task, with what its status has to show. A modern server marks it
/// `resultType: "complete"` like any other result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DetailedTask {
    /// The task.
    #[serde(flatten)]
    pub task: Task,
    /// The tool's result, once `completed` (a tool error is `isError` here).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<CallToolResult>,
    /// The protocol error it ended with, once `failed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorObject>,
    /// The questions still open, by key, while `input_required`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<BTreeMap<String, InputRequest>>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Extra>,
    /// Members this crate does not know, in order, as sent.
    #[serde(flatten)]
    pub extra: Extra,
}

impl DetailedTask {
    /// `task`, with nothing inlined yet.
    pub fn new(task: Task) -> Self {
        Self {
            task,
            result: None,
            error: None,
            input_requests: None,
            meta: None,
            extra: Extra::new(),
        }
    }
}

super::extra::struct_with_extra! {
    /// Params of `tasks/get` and `tasks/cancel`.
    #[derive(Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct TaskIdParams {
        /// The task.
        pub task_id: String,
        /// Metadata; in the modern era, the per-request envelope.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

super::extra::struct_with_extra! {
    /// Params of `tasks/update`: answers to some or all of the task's open
    /// questions, by the keys `tasks/get` showed them under.
    #[derive(Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct UpdateTaskParams {
        /// The task.
        pub task_id: String,
        /// The answers, by question key.
        pub input_responses: Extra,
        /// Metadata; in the modern era, the per-request envelope.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

impl TaskIdParams {
    /// The params naming the task `task_id`.
    pub fn new(task_id: impl Into<String>) -> Self {
        Self {
            task_id: task_id.into(),
            meta: None,
            extra: Extra::new(),
        }
    }
}

impl UpdateTaskParams {
    /// Answers to the task `task_id`'s questions, by key.
    pub fn new(task_id: impl Into<String>, input_responses: Extra) -> Self {
        Self {
            task_id: task_id.into(),
            input_responses,
            meta: None,
            extra: Extra::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::ContentBlock;
    use serde_json::json;

    fn task(status: TaskStatus) -> Task {
        Task {
            ttl_ms: Some(300_000),
            poll_interval_ms: Some(500),
            ..Task::new("t-1", status, "2026-07-28T10:00:00.000Z")
        }
    }

    #[test]
    fn a_create_task_result_is_flat_with_the_renamed_durations() {
        let written =
            serde_json::to_value(CreateTaskResult::new(task(TaskStatus::Working))).unwrap();
        assert_eq!(
            written,
            json!({"resultType": "task", "taskId": "t-1", "status": "working",
                   "createdAt": "2026-07-28T10:00:00.000Z",
                   "lastUpdatedAt": "2026-07-28T10:00:00.000Z",
                   "ttlMs": 300000, "pollIntervalMs": 500})
        );
        let read: CreateTaskResult = serde_json::from_value(written).unwrap();
        assert_eq!(read.task, task(TaskStatus::Working));
        assert!(read.extra.is_empty(), "{:?}", read.extra);
        let unlimited = Task::new("t-2", TaskStatus::Working, "2026-07-28T10:00:00Z");
        let written = serde_json::to_value(CreateTaskResult::new(unlimited)).unwrap();
        assert_eq!(written["ttlMs"], json!(null), "ttlMs is always written");
        assert!(written.get("pollIntervalMs").is_none());
        let wrong = json!({"resultType": "complete", "taskId": "t", "status": "working",
                           "createdAt": "x", "lastUpdatedAt": "x", "ttlMs": null});
        assert!(serde_json::from_value::<CreateTaskResult>(wrong).is_err());
    }

    #[test]
    fn a_detailed_task_inlines_its_outcome_and_keeps_unknown_members() {
        let mut done = DetailedTask::new(task(TaskStatus::Completed));
        done.result = Some(CallToolResult {
            content: vec![ContentBlock::text("done")],
            ..CallToolResult::default()
        });
        let written = serde_json::to_value(&done).unwrap();
        assert_eq!(written["status"], "completed");
        assert_eq!(written["result"]["content"][0]["text"], "done");
        assert!(written.get("error").is_none() && written.get("inputRequests").is_none());

        let failed = json!({"taskId": "t-1", "status": "failed", "createdAt": "a",
                            "lastUpdatedAt": "b", "ttlMs": null,
                            "error": {"code": -32603, "message": "boom"},
                            "x-vendor": 1});
        let read: DetailedTask = serde_json::from_value(failed.clone()).unwrap();
        assert_eq!(read.task.status, TaskStatus::Failed);
        assert!(read.task.status.is_terminal());
        assert_eq!(
            read.error.as_ref().map(|e| e.message.as_str()),
            Some("boom")
        );
        assert_eq!(read.extra.get("x-vendor"), Some(&json!(1)));
        assert_eq!(serde_json::to_value(&read).unwrap(), failed);

        let asking = json!({"taskId": "t-1", "status": "input_required", "createdAt": "a",
                            "lastUpdatedAt": "b", "ttlMs": 1000,
                            "inputRequests": {"confirm": {"method": "elicitation/create",
                                                          "params": {"message": "Sure?"}}}});
        let read: DetailedTask = serde_json::from_value(asking).unwrap();
        assert!(!read.task.status.is_terminal());
        let questions = read.input_requests.unwrap_or_default();
        assert_eq!(questions["confirm"].method, "elicitation/create");
        let unknown: TaskStatus = serde_json::from_value(json!("paused")).unwrap();
        assert_eq!(unknown, TaskStatus::Other("paused".into()));
        assert!(!unknown.is_terminal());
    }

    #[test]
    fn task_params_use_task_id_and_input_responses() {
        let params: UpdateTaskParams = serde_json::from_value(json!({
            "taskId": "t-1", "inputResponses": {"confirm": {"action": "accept"}}
        }))
        .unwrap();
        assert_eq!(params.task_id, "t-1");
        assert!(params.input_responses.contains_key("confirm"));
        let get: TaskIdParams = serde_json::from_value(json!({"taskId": "t-9"})).unwrap();
        assert_eq!(serde_json::to_value(get).unwrap(), json!({"taskId": "t-9"}));
        assert!(serde_json::from_value::<TaskIdParams>(json!({"id": "t-9"})).is_err());
    }
}
