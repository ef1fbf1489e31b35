//! Tool calls that run as tasks (extension `io.modelcontextprotocol/tasks`,
//! SEP-2663), and the thin runner of [`TaskFollow`].
//!
//! The extension is declared in the two places the revision allows: the
//! session's own capabilities (every request's `_meta`, when
//! [`SessionOptions::capabilities`](super::SessionOptions::capabilities)
//! names it), or a single request's `_meta` (a call that asks for a task,
//! and every `tasks/*` request). A task is asked for only where the server
//! advertised the extension in `server/discover`. A tool that only runs as
//! a task (its -32021 names the extension) is called again as one.
//!
//! A followed task is polled with `tasks/get`, its questions answered
//! through the [`ClientHandler`](super::ClientHandler) and `tasks/update`;
//! it is cancelled (`tasks/cancel`) when its deadline passes or the caller
//! drops the call. Its id outlives the connection: [`Session::await_task`]
//! on a new session picks it up.

use std::collections::{BTreeMap, VecDeque};
use std::time::Duration;

use mcpdisco_protocol::ErrorCode;
use mcpdisco_protocol::RawJson;
use mcpdisco_protocol::meta::CLIENT_CAPABILITIES_KEY;
use mcpdisco_protocol::method::{NotificationMethod, RequestMethod};
use mcpdisco_protocol::methods::{CallTool, CancelTask, GetTask, TaskStatusChanged, UpdateTask};
use mcpdisco_protocol::types::{
    CallToolParams, CallToolResult, CreateTaskResult, DetailedTask, Extra, InputRequest,
    TASKS_EXTENSION, Task, TaskIdParams, UpdateTaskParams,
};
use mcpdisco_protocol::version::Era;
use mcpdisco_transport::Delivery;
use serde_json::{Map, Value};
use tokio::sync::broadcast;
use tokio::time::Instant;

use super::task_follow::{FollowAction, FollowEnd, FollowEvent, TaskFollow};
use super::{ErrorKind, RequestOptions, ServerNotification, Session, SessionError, handler};

/// How a `tools/call` was answered: its result, or a task that runs on.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolCallStart {
    /// The tool's result, at once.
    Completed(Box<CallToolResult>),
    /// The server runs the call as this task; follow it with
    /// [`Session::await_task`], or keep its id for later.
    Task(Task),
}

impl Session {
    /// Whether the server offers tasks: the modern era, with the extension
    /// in its `server/discover` capabilities.
    pub fn offers_tasks(&self) -> bool {
        self.read_state(|state| state.era == Era::Modern && state.has_capability(TASKS_EXTENSION))
    }

    /// `tools/call`, with [`RequestOptions`] for this call (a timeout,
    /// progress; `RequestOptions::default()` for the session's). A tool's
    /// failure is a result with `isError` (see [`CallToolResult::is_error`]),
    /// not an error. Never sent twice once it may have reached the server.
    ///
    /// With [`RequestOptions::task`], or for a tool that only runs as a
    /// task, the call asks for a task where the server offers them; a call
    /// answered with a task is followed to its end, and its timeout (the
    /// session's hard maximum when it has none) is the whole task's: past
    /// it, the task is cancelled. Dropping the call cancels the task too.
    pub async fn call_tool(
        &self,
        params: CallToolParams,
        options: RequestOptions,
    ) -> Result<CallToolResult, SessionError> {
        let started = Instant::now();
        match self.start_tool_call(params, options.clone()).await? {
            ToolCallStart::Completed(result) => Ok(*result),
            ToolCallStart::Task(task) => {
                let deadline = started + self.task_timeout(&options);
                self.follow(task, &options, deadline).await
            }
        }
    }

    /// `tools/call`, not followed: the result, or the task the server runs
    /// it as (asked for as [`call_tool`](Self::call_tool) would). For a
    /// caller that keeps the task's id and comes back for it.
    pub async fn start_tool_call(
        &self,
        params: CallToolParams,
        options: RequestOptions,
    ) -> Result<ToolCallStart, SessionError> {
        let offered = self.offers_tasks();
        let asked = options.task && offered;
        let first = self.send_call(&params, &options, asked).await;
        let raw = match first {
            Err(error) if offered && !asked && requires_tasks(&error) => {
                tracing::debug!(server = self.name(), tool = %params.name, "the tool only runs as a task");
                self.send_call(&params, &options, true).await?
            }
            other => other?,
        };
        if super::is_task_result(&raw) {
            let created: CreateTaskResult = raw
                .decode()
                .map_err(|e| self.violation(CallTool::METHOD, format!("malformed task: {e}")))?;
            return Ok(ToolCallStart::Task(created.task));
        }
        raw.decode()
            .map(|result| ToolCallStart::Completed(Box::new(result)))
            .map_err(|e| self.violation(CallTool::METHOD, format!("malformed result: {e}")))
    }

    /// `tasks/get`: the task `task_id` as the server shows it now.
    pub async fn get_task(&self, task_id: &str) -> Result<DetailedTask, SessionError> {
        self.request::<GetTask>(
            &TaskIdParams::new(task_id),
            self.declaring_tasks(RequestOptions::new()),
        )
        .await
    }

    /// `tasks/cancel`: ends the task `task_id` (an ended task stays as it was).
    pub async fn cancel_task(&self, task_id: &str) -> Result<(), SessionError> {
        self.send::<CancelTask>(
            &TaskIdParams::new(task_id),
            self.declaring_tasks(RequestOptions::new()),
        )
        .await
        .map(drop)
    }

    /// Follows the task `task_id` (of an earlier call, maybe of another
    /// session) to its end, as [`call_tool`](Self::call_tool) does: the
    /// tool's result. The timeout of `options` bounds the wait.
    pub async fn await_task(
        &self,
        task_id: &str,
        options: RequestOptions,
    ) -> Result<CallToolResult, SessionError> {
        let deadline = Instant::now() + self.task_timeout(&options);
        let seen = self.get_task(task_id).await?;
        self.follow(seen.task, &options, deadline).await
    }

    /// How long a task may take: the call's timeout, or the session's hard maximum.
    fn task_timeout(&self, options: &RequestOptions) -> Duration {
        options
            .timeout
            .unwrap_or(self.options().max_request_timeout)
    }

    /// One `tools/call`, declaring the extension for it when `as_task`.
    async fn send_call(
        &self,
        params: &CallToolParams,
        options: &RequestOptions,
        as_task: bool,
    ) -> Result<RawJson, SessionError> {
        let options = if as_task {
            self.declaring_tasks(options.clone())
        } else {
            options.clone()
        };
        self.send::<CallTool>(params, options).await
    }

    /// `options` with the extension declared in this request's client
    /// capabilities (the session's, plus the extension).
    fn declaring_tasks(&self, mut options: RequestOptions) -> RequestOptions {
        let mut capabilities = match serde_json::to_value(&self.options().capabilities) {
            Ok(Value::Object(capabilities)) => capabilities,
            _ => Map::new(),
        };
        let extensions = capabilities
            .entry("extensions")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(extensions) = extensions {
            extensions
                .entry(TASKS_EXTENSION)
                .or_insert_with(|| Value::Object(Map::new()));
        }
        options.meta.get_or_insert_with(Map::new).insert(
            CLIENT_CAPABILITIES_KEY.to_owned(),
            Value::Object(capabilities),
        );
        options
    }

    /// Runs a [`TaskFollow`] over `task` until it ends or `deadline` passes.
    async fn follow(
        &self,
        task: Task,
        options: &RequestOptions,
        deadline: Instant,
    ) -> Result<CallToolResult, SessionError> {
        let started = Instant::now();
        let task_id = task.task_id.clone();
        let mut guard = CancelOnDrop {
            session: self.clone(),
            task_id: Some(task_id.clone()),
        };
        let mut follow = TaskFollow::new(task, Some(deadline));
        let mut notifications = Some(self.notifications());
        let mut pending: VecDeque<FollowAction> =
            follow.step(FollowEvent::Started, Instant::now()).into();
        let mut wake_at = deadline;
        loop {
            while let Some(action) = pending.pop_front() {
                match action {
                    FollowAction::Report(task) => {
                        if let Some(status) = &options.task_status {
                            status.send_replace(Some(task));
                        }
                    }
                    FollowAction::WaitUntil(at) => wake_at = at,
                    FollowAction::Poll => match self.poll(&task_id, deadline).await {
                        Ok(seen) => {
                            pending.extend(follow.step(FollowEvent::Polled(seen), Instant::now()));
                        }
                        // Cut short by the deadline: the call's timeout, not the poll's.
                        Err(_) if Instant::now() >= deadline => {
                            pending.extend(follow.step(FollowEvent::TimerFired, Instant::now()));
                        }
                        Err(error) => {
                            return Err(self.abandon(&mut follow, &mut guard, error).await);
                        }
                    },
                    FollowAction::Answer(questions) => {
                        match self.answer_task(&task_id, questions).await {
                            Ok(()) => {
                                pending.extend(follow.step(FollowEvent::Answered, Instant::now()));
                            }
                            Err(error) => {
                                return Err(self.abandon(&mut follow, &mut guard, error).await);
                            }
                        }
                    }
                    FollowAction::Cancel => {
                        guard.task_id = None;
                        if let Err(error) = self.cancel_task(&task_id).await {
                            tracing::debug!(server = self.name(), task = %task_id, %error, "tasks/cancel failed");
                        }
                    }
                    FollowAction::Finish(end) => {
                        guard.task_id = None;
                        return self.ended(&task_id, end, started.elapsed());
                    }
                }
            }
            let event = tokio::select! {
                () = tokio::time::sleep_until(wake_at) => Some(FollowEvent::TimerFired),
                seen = next_status(&mut notifications, &task_id) => seen.map(FollowEvent::Notified),
            };
            if let Some(event) = event {
                pending.extend(follow.step(event, Instant::now()));
            }
        }
    }

    /// One `tasks/get`, bounded by the task's deadline.
    async fn poll(&self, task_id: &str, deadline: Instant) -> Result<DetailedTask, SessionError> {
        let left = deadline.saturating_duration_since(Instant::now());
        let timeout = left
            .min(self.options().request_timeout)
            .max(Duration::from_millis(1));
        let options = self.declaring_tasks(RequestOptions::new().timeout(timeout));
        self.request::<GetTask>(&TaskIdParams::new(task_id), options)
            .await
    }

    /// Answers a task's questions through the handler, then `tasks/update`.
    async fn answer_task(
        &self,
        task_id: &str,
        questions: BTreeMap<String, InputRequest>,
    ) -> Result<(), SessionError> {
        let mut responses = Extra::new();
        for (key, question) in questions {
            let params = question.params.unwrap_or_else(|| Value::Object(Map::new()));
            let answer = handler::answer(
                self.options().handler.as_ref(),
                &self.options().capabilities,
                &question.method,
                params,
            )
            .await
            .map_err(|error| {
                SessionError::from_rpc(
                    self.name(),
                    format!("{} ({})", UpdateTask::METHOD, question.method),
                    error,
                )
            })?;
            responses.insert(key, answer);
        }
        let params = UpdateTaskParams::new(task_id, responses);
        self.send::<UpdateTask>(&params, self.declaring_tasks(RequestOptions::new()))
            .await
            .map(drop)
    }

    /// Gives up following after `error`: the task is cancelled (best effort).
    async fn abandon(
        &self,
        follow: &mut TaskFollow,
        guard: &mut CancelOnDrop,
        error: SessionError,
    ) -> SessionError {
        if let Some(task_id) = guard.task_id.take() {
            for action in follow.step(FollowEvent::GaveUp, Instant::now()) {
                if action == FollowAction::Cancel {
                    let _ = self.cancel_task(&task_id).await;
                }
            }
        }
        error
    }

    /// The call's outcome from how following ended.
    fn ended(
        &self,
        task_id: &str,
        end: FollowEnd,
        waited: Duration,
    ) -> Result<CallToolResult, SessionError> {
        let method = CallTool::METHOD;
        // The call was answered (with the task): never sent again.
        let answered = |error: SessionError| error.with_delivery(Delivery::Answered);
        match end {
            FollowEnd::Completed(result) => Ok(*result),
            FollowEnd::Failed(error) => {
                Err(answered(SessionError::from_rpc(self.name(), method, error)))
            }
            FollowEnd::Cancelled => Err(answered(SessionError::new(
                self.name(),
                method,
                ErrorKind::TaskCancelled {
                    task_id: task_id.to_owned(),
                },
            ))),
            FollowEnd::DeadlinePassed => Err(answered(SessionError::new(
                self.name(),
                method,
                ErrorKind::Timeout { after: waited },
            ))),
            FollowEnd::Violation(reason) => Err(answered(self.violation(method, reason))),
        }
    }
}

/// Whether `error` is a -32021 that names the tasks extension.
fn requires_tasks(error: &SessionError) -> bool {
    match error.kind() {
        ErrorKind::Server {
            code,
            data: Some(data),
            ..
        } if *code == ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY => data
            .pointer("/requiredCapabilities/extensions")
            .and_then(|extensions| extensions.get(TASKS_EXTENSION))
            .is_some(),
        _ => false,
    }
}

/// The next status notification of `task_id`; pends forever once the
/// notifications are gone (the timer still runs).
async fn next_status(
    notifications: &mut Option<broadcast::Receiver<ServerNotification>>,
    task_id: &str,
) -> Option<DetailedTask> {
    let Some(receiver) = notifications else {
        return std::future::pending().await;
    };
    match receiver.recv().await {
        Ok(ServerNotification::Other {
            method,
            params: Some(params),
        }) if method == TaskStatusChanged::METHOD => serde_json::from_value::<DetailedTask>(params)
            .ok()
            .filter(|seen| seen.task.task_id == task_id),
        Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => None,
        Err(broadcast::error::RecvError::Closed) => {
            *notifications = None;
            None
        }
    }
}

/// Cancels the followed task when the call is dropped before it ended.
struct CancelOnDrop {
    session: Session,
    task_id: Option<String>,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(task_id) = self.task_id.take() else {
            return;
        };
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let session = self.session.clone();
            runtime.spawn(async move {
                if let Err(error) = session.cancel_task(&task_id).await {
                    tracing::debug!(server = session.name(), task = %task_id, %error, "tasks/cancel after drop failed");
                }
            });
        }
    }
}
