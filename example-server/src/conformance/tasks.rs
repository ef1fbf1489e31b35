//! The test catalog's tasks (extension `io.modelcontextprotocol/tasks`,
//! SEP-2663): the runner of [`task_tools`](super::task_tools) and the
//! `tasks/get`, `tasks/update` and `tasks/cancel` handlers.
//!
//! A client that declares the extension in its request's `_meta`
//! capabilities gets a task for every task tool; one that does not gets the
//! tool's result at once (a question is an `input_required` round), or
//! -32021 for a tool that only runs as a task, and -32021 from every task
//! method. A task is created in the server's store before its
//! `CreateTaskResult` is sent; its work is a spawned timer that feeds the
//! outcome to the store, aborted on cancel. Questions are answered through
//! `tasks/update`, which finishes the task itself once none is open. Each
//! status change goes to the `subscriptions/listen` streams whose filter
//! names the task (`taskIds`), as `notifications/tasks`.

use std::sync::Arc;
use std::time::SystemTime;

use mcpdisco_protocol::modern_request::missing_capability;
use mcpdisco_protocol::types::{
    Answer, CallToolParams, CallToolResult, CreateTaskResult, DetailedTask, EmptyResult, Extra,
    InputRequiredResult, TASKS_EXTENSION, TaskIdParams, TaskSupport, UpdateTaskParams,
};
use mcpdisco_protocol::version::Era;
use mcpdisco_protocol::{ErrorCode, ErrorObject};
use serde_json::{Map, Value};

use super::content;
use super::task_tools::{self, Outcome, Work};
use crate::context::Context;
use crate::shared::SharedState;
use crate::task_state::{TaskAction, TaskEvent};
use crate::task_store::{TaskJob, TaskStore};

/// The interval between `tasks/get` the server suggests, in milliseconds.
const POLL_INTERVAL_MS: u64 = 500;

/// Answers `tools/call` for the task tools; `None` for any other tool.
pub(crate) async fn call(
    params: &CallToolParams,
    context: &Context,
) -> Option<Result<Answer<CallToolResult>, ErrorObject>> {
    let support = task_tools::support(&params.name)?;
    Some(answer(params, support, context).await)
}

async fn answer(
    params: &CallToolParams,
    support: Option<TaskSupport>,
    context: &Context,
) -> Result<Answer<CallToolResult>, ErrorObject> {
    let tool = params.name.as_str();
    let arguments = params.arguments.clone().unwrap_or_default();
    let answers = params.input_responses.as_ref();
    if support.is_none() {
        let name = arguments
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("World");
        return Ok(content::text_result(format!("Hello, {name}!")).into());
    }
    if !negotiated(context) {
        return match support {
            Some(TaskSupport::Required) => Err(missing_extension(tool)),
            _ => at_once(tool, &arguments, answers).await,
        };
    }
    if tool == "test_tool_with_task" && task_tools::user_name(answers)?.is_none() {
        // Composed with multi-round-trip requests: the question comes
        // before the task, and the task starts on the retry that answers it.
        return ask(task_tools::questions(tool, &arguments)?);
    }
    let work = task_tools::work(tool, &arguments, answers)?;
    start(&context.shared, tool, arguments, work).map(|task| Answer::Task(Box::new(task)))
}

/// A task tool run for a client that follows no task.
async fn at_once(
    tool: &str,
    arguments: &Map<String, Value>,
    answers: Option<&Extra>,
) -> Result<Answer<CallToolResult>, ErrorObject> {
    match tool {
        "slow_compute" => {
            let (delay, result) = task_tools::compute_now(arguments);
            tokio::time::sleep(delay).await;
            Ok(result.into())
        }
        "protocol_error_job" => Err(task_tools::protocol_error()),
        _ => {
            let questions = task_tools::questions(tool, arguments)?;
            let given = answers.cloned().unwrap_or_default();
            let open: Vec<_> = questions
                .into_iter()
                .filter(|(key, _)| !given.contains_key(key))
                .collect();
            if !open.is_empty() {
                return ask(open);
            }
            match task_tools::finish(tool, arguments, &given)? {
                Outcome::Done(result) => Ok((*result).into()),
                Outcome::Fail(error) => Err(error),
            }
        }
    }
}

/// An `input_required` round asking `questions` (no request state: the
/// answers say everything).
fn ask(
    questions: impl IntoIterator<Item = (String, mcpdisco_protocol::types::InputRequest)>,
) -> Result<Answer<CallToolResult>, ErrorObject> {
    let mut round = InputRequiredResult::new(questions, "");
    round.request_state = None;
    Ok(Answer::input_required(round))
}

/// Creates the task of `tool` and starts its `work`.
pub(crate) fn start(
    shared: &Arc<SharedState>,
    tool: &str,
    arguments: Map<String, Value>,
    work: Work,
) -> Result<CreateTaskResult, ErrorObject> {
    let now = SystemTime::now();
    let mut store = shared.tasks();
    let job = TaskJob {
        tool: tool.to_owned(),
        arguments,
        worker: None,
    };
    let id = store
        .create(job, now)
        .map_err(|full| ErrorObject::new(ErrorCode::INTERNAL_ERROR, full.to_string()))?;
    match work {
        Work::Ask(questions) => {
            step(shared, &mut store, &id, TaskEvent::Ask(questions), now);
        }
        Work::After(delay, outcome) => {
            let owner = Arc::clone(shared);
            let task_id = id.clone();
            let worker = tokio::spawn(async move {
                tokio::time::sleep(delay).await;
                let mut store = owner.tasks();
                step(
                    &owner,
                    &mut store,
                    &task_id,
                    outcome.event(),
                    SystemTime::now(),
                );
            });
            if let Some(job) = store.job_mut(&id, now) {
                job.worker = Some(worker.abort_handle());
            }
        }
    }
    let (state, _) = store.get(&id, now).ok_or_else(|| unknown(&id))?;
    Ok(CreateTaskResult::new(state.task(
        &id,
        store.ttl_ms(),
        POLL_INTERVAL_MS,
    )))
}

/// `tasks/get`: the task, with its outcome or open questions.
pub(crate) async fn get(
    params: TaskIdParams,
    context: Context,
) -> Result<DetailedTask, ErrorObject> {
    gate(&context)?;
    let store = context.shared.tasks();
    let (state, _) = store
        .get(&params.task_id, SystemTime::now())
        .ok_or_else(|| unknown(&params.task_id))?;
    Ok(state.detailed(&params.task_id, store.ttl_ms(), POLL_INTERVAL_MS))
}

/// `tasks/update`: answers to open questions; once none is open, the task
/// finishes. An empty ack, whatever the answers were.
pub(crate) async fn update(
    params: UpdateTaskParams,
    context: Context,
) -> Result<EmptyResult, ErrorObject> {
    gate(&context)?;
    let now = SystemTime::now();
    let id = params.task_id.as_str();
    let shared = &context.shared;
    let mut store = shared.tasks();
    let actions = step(
        shared,
        &mut store,
        id,
        TaskEvent::Answer(params.input_responses),
        now,
    )
    .ok_or_else(|| unknown(id))?;
    let mut outcome = None;
    for action in actions {
        if let TaskAction::Resume(answers) = action
            && let Some((_, job)) = store.get(id, now)
        {
            outcome = Some(
                task_tools::finish(&job.tool, &job.arguments, &answers)
                    .unwrap_or_else(Outcome::Fail),
            );
        }
    }
    if let Some(outcome) = outcome {
        step(shared, &mut store, id, outcome.event(), now);
    }
    Ok(EmptyResult::default())
}

/// `tasks/cancel`: the task ends `cancelled` and its work stops; an empty
/// ack, the same for a task that already ended.
pub(crate) async fn cancel(
    params: TaskIdParams,
    context: Context,
) -> Result<EmptyResult, ErrorObject> {
    gate(&context)?;
    let id = params.task_id.as_str();
    let now = SystemTime::now();
    let shared = &context.shared;
    let mut store = shared.tasks();
    let actions =
        step(shared, &mut store, id, TaskEvent::Cancel, now).ok_or_else(|| unknown(id))?;
    if actions.contains(&TaskAction::Stop)
        && let Some(worker) = store.job_mut(id, now).and_then(|job| job.worker.take())
    {
        worker.abort();
    }
    Ok(EmptyResult::default())
}

/// Applies `event` to the task `id` in `store` (the guard of
/// `shared.tasks()`) at `now`, and tells the listeners when its status
/// moved; the actions left for the caller, `None` for an unknown task.
fn step(
    shared: &SharedState,
    store: &mut TaskStore<TaskJob>,
    id: &str,
    event: TaskEvent,
    now: SystemTime,
) -> Option<Vec<TaskAction>> {
    let (mut actions, _) = store.step(id, event, now)?;
    if actions.last() == Some(&TaskAction::StatusChanged) {
        actions.pop();
        if let Some((state, _)) = store.get(id, now) {
            shared.task_changed(state.detailed(id, store.ttl_ms(), POLL_INTERVAL_MS));
        }
    }
    Some(actions)
}

/// Whether this request's client declared the extension (a modern
/// request's `_meta` capabilities; a legacy client never gets a task).
pub(crate) fn negotiated(context: &Context) -> bool {
    context.request.era == Era::Modern
        && context
            .modern_capabilities()
            .and_then(|capabilities| capabilities.get("extensions"))
            .and_then(|extensions| extensions.get(TASKS_EXTENSION))
            .is_some()
}

/// -32021 for a task method from a client that did not declare the extension.
fn gate(context: &Context) -> Result<(), ErrorObject> {
    if negotiated(context) {
        Ok(())
    } else {
        Err(missing_extension("the task methods"))
    }
}

/// The -32021 error naming the extension in `requiredCapabilities`.
fn missing_extension(what: &str) -> ErrorObject {
    let mut extensions = Map::new();
    extensions.insert(TASKS_EXTENSION.to_owned(), Value::Object(Map::new()));
    let mut required = Map::new();
    required.insert("extensions".to_owned(), Value::Object(extensions));
    missing_capability(
        format!("{what} need the client's {TASKS_EXTENSION} extension"),
        Value::Object(required),
    )
}

/// -32602 for a task id the server does not know (or has forgotten).
fn unknown(id: &str) -> ErrorObject {
    ErrorObject::new(ErrorCode::INVALID_PARAMS, format!("unknown task {id:?}"))
}
