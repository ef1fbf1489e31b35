//! Tasks relayed from the servers (extension `io.modelcontextprotocol/tasks`):
//! `tasks/get`, `tasks/update` and `tasks/cancel` of a task a server runs
//! for a client's `tools/call`.
//!
//! The client knows the task by the id the gateway gave it (the `task_id`
//! module: server, incarnation, the server's own id); each request goes to
//! that server with the server's own id, and its answer comes back under
//! the client's id, masked like everything from a server. Nothing about a
//! task is kept between requests. A client must have declared the
//! extension (-32021 otherwise), and sees only the tasks of servers in its
//! profile's view: any other id is an unknown task (-32602), as a task the
//! server forgot is. A server restarted since it created the task answers
//! for it with an error that says so, at once.

use mcpdisco_client::session::RequestOptions;
use mcpdisco_protocol::meta::{CLIENT_CAPABILITIES_KEY, SERVER_INFO_KEY};
use mcpdisco_protocol::modern_request::missing_capability;
use mcpdisco_protocol::types::{
    ClientCapabilities, CreateTaskResult, DetailedTask, EmptyResult, Extra, TASKS_EXTENSION,
    TaskIdParams, UpdateTaskParams,
};
use mcpdisco_protocol::version::Era;
use mcpdisco_protocol::{ErrorCode, ErrorObject};
use serde::Deserialize as _;
use serde_json::{Map, Value};

use super::context::RequestContext;
use super::task_id::RelayedTaskId;
use super::upstream::to_error;

/// `tasks/get`: the task as its server shows it, under the client's id.
pub(crate) async fn get_task(
    params: TaskIdParams,
    request: RequestContext,
) -> Result<DetailedTask, ErrorObject> {
    let (task, options) = route(&request, &params.task_id, params.meta.as_ref())?;
    let mut seen = request
        .shared
        .supervisor
        .get_task(&task.server, task.incarnation, &task.own, options)
        .await
        .map_err(to_error)?;
    seen.task.task_id = params.task_id;
    without_envelope(&mut seen.extra, &mut seen.meta);
    Ok(seen)
}

/// `tasks/update`: the client's answers, keys unchanged, to the task's server.
pub(crate) async fn update_task(
    params: UpdateTaskParams,
    request: RequestContext,
) -> Result<EmptyResult, ErrorObject> {
    let (task, options) = route(&request, &params.task_id, params.meta.as_ref())?;
    let update = UpdateTaskParams::new(task.own, params.input_responses);
    request
        .shared
        .supervisor
        .update_task(&task.server, task.incarnation, &update, options)
        .await
        .map_err(to_error)?;
    Ok(EmptyResult::default())
}

/// `tasks/cancel`: the task ends at its server.
pub(crate) async fn cancel_task(
    params: TaskIdParams,
    request: RequestContext,
) -> Result<EmptyResult, ErrorObject> {
    let (task, options) = route(&request, &params.task_id, params.meta.as_ref())?;
    request
        .shared
        .supervisor
        .cancel_task(&task.server, task.incarnation, &task.own, options)
        .await
        .map_err(to_error)?;
    Ok(EmptyResult::default())
}

/// A server's task as the gateway answers it: under the id that names the
/// server, without the server's modern envelope.
pub(crate) fn relayed(
    server: &str,
    incarnation: u64,
    mut task: CreateTaskResult,
) -> CreateTaskResult {
    task.task.task_id = RelayedTaskId {
        server: server.to_owned(),
        incarnation,
        own: std::mem::take(&mut task.task.task_id),
    }
    .encode();
    without_envelope(&mut task.extra, &mut task.meta);
    task
}

/// Whether the request's client declared the extension: a modern request's
/// `_meta` capabilities (a legacy client never gets a task).
pub(crate) fn negotiated(request: &RequestContext, meta: Option<&Extra>) -> bool {
    request.era == Era::Modern
        && declared(meta).is_some_and(|declared| {
            declared
                .extensions
                .as_ref()
                .is_some_and(|extensions| extensions.contains_key(TASKS_EXTENSION))
        })
}

/// The task a client's request names, and the options of the request to
/// its server: the client's capabilities, which declare the extension.
fn route(
    request: &RequestContext,
    id: &str,
    meta: Option<&Extra>,
) -> Result<(RelayedTaskId, RequestOptions), ErrorObject> {
    if !negotiated(request, meta) {
        return Err(missing_extension());
    }
    let unknown = || ErrorObject::new(ErrorCode::INVALID_PARAMS, format!("unknown task {id:?}"));
    let task = RelayedTaskId::decode(id).ok_or_else(unknown)?;
    let view = request.shared.listings.view(request.profile.as_deref());
    if !view.shows_server(&task.server) {
        return Err(unknown());
    }
    super::operation::routed_to(&task.server);
    Ok((task, declaring(meta)))
}

/// The options of a request to a server on behalf of a client's request
/// whose `_meta` is `meta`: the client's capabilities, as it declared them.
pub(super) fn declaring(meta: Option<&Extra>) -> RequestOptions {
    let mut own_meta = Map::new();
    if let Some(declared) = meta.and_then(|meta| meta.get(CLIENT_CAPABILITIES_KEY)) {
        own_meta.insert(CLIENT_CAPABILITIES_KEY.to_owned(), declared.clone());
    }
    RequestOptions::new().meta(own_meta)
}

/// The capabilities a modern request's `_meta` declares.
fn declared(meta: Option<&Extra>) -> Option<ClientCapabilities> {
    let declared = meta?.get(CLIENT_CAPABILITIES_KEY)?;
    ClientCapabilities::deserialize(declared).ok()
}

/// Takes a server's modern envelope off one of its results: its
/// `resultType` (the gateway writes its own) and its `serverInfo`.
pub(super) fn without_envelope(extra: &mut Extra, meta: &mut Option<Extra>) {
    extra.shift_remove("resultType");
    if let Some(entries) = meta {
        entries.shift_remove(SERVER_INFO_KEY);
        if entries.is_empty() {
            *meta = None;
        }
    }
}

/// The -32021 error naming the extension in `requiredCapabilities`.
fn missing_extension() -> ErrorObject {
    let mut extensions = Map::new();
    extensions.insert(TASKS_EXTENSION.to_owned(), Value::Object(Map::new()));
    let mut required = Map::new();
    required.insert("extensions".to_owned(), Value::Object(extensions));
    missing_capability(
        format!("the task methods need the client's {TASKS_EXTENSION} extension"),
        Value::Object(required),
    )
}

#[cfg(test)]
mod tests {
    use mcpdisco_protocol::types::{Task, TaskStatus};
    use serde_json::Value;

    use super::*;

    #[test]
    fn a_relayed_task_is_named_by_the_gateway_s_id_without_the_server_s_envelope() {
        let mut created = CreateTaskResult::new(Task::new(
            "task-7",
            TaskStatus::Working,
            "2026-07-28T10:00:00Z",
        ));
        created
            .extra
            .insert("resultType".to_owned(), Value::from("task"));
        created.extra.insert("x-vendor".to_owned(), Value::from(1));
        created.meta = Some(Extra::from_iter([(
            SERVER_INFO_KEY.to_owned(),
            Value::from("the server"),
        )]));
        let relayed = relayed("reports", 4, created);
        let named = RelayedTaskId::decode(&relayed.task.task_id);
        assert_eq!(
            named,
            Some(RelayedTaskId {
                server: "reports".to_owned(),
                incarnation: 4,
                own: "task-7".to_owned(),
            })
        );
        assert_eq!(relayed.meta, None);
        assert_eq!(relayed.extra.get("resultType"), None);
        assert_eq!(relayed.extra.get("x-vendor"), Some(&Value::from(1)));
        assert_eq!(relayed.task.status, TaskStatus::Working);
    }
}
