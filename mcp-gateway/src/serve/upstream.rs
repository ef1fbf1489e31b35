//! The gateway's calls into its supervisor, which routes them to the
//! servers, and their results as the gateway's typed results. A server's
//! result loses its own modern envelope (`resultType`, its `serverInfo`):
//! the gateway answers in its client's era, as itself.
//!
//! A modern server's `input_required` result (when the request asked to
//! relay it) is answered to the client as it came, its questions and keys
//! unchanged; its `requestState` is marked as the server's
//! ([`RELAYED_STATE_PREFIX`]), so the client's retry goes back to the
//! server with its answers instead of to a call the gateway parked.

use std::collections::BTreeMap;

use mcpdisco_protocol::ErrorCode;
use mcpdisco_protocol::meta::SERVER_INFO_KEY;
use mcpdisco_protocol::method::RequestMethod;
use mcpdisco_protocol::methods::{CallTool, Complete};
use mcpdisco_protocol::raw::JsonView;
use mcpdisco_protocol::types::{
    Answer, CallToolResult, CompleteParams, CompleteResult, Extra, GetPromptResult,
    InputRequiredResult, ReadResourceResult,
};
use mcpdisco_protocol::{ErrorObject, RawJson};

use crate::supervisor::{Supervisor, SupervisorError};
use mcpdisco_client::session::RequestOptions;
use mcpdisco_transport::server::Reply;

/// `tools/call` of `tool` on `server`.
pub(crate) async fn call_tool(
    supervisor: Supervisor,
    server: String,
    tool: String,
    arguments: Option<RawJson>,
    options: RequestOptions,
) -> Result<Answer<CallToolResult>, ErrorObject> {
    let result = supervisor
        .relay_tool_call(&server, &tool, arguments, options)
        .await;
    answer(result)
}

/// `tools/call` of `tool` on `server`, for a legacy client: the server's
/// result passed on as the text it sent (masked by its session), unless it
/// carries a modern server's envelope or lacks the `content` every result
/// is written with; then read and written again as [`call_tool`] does.
pub(crate) async fn call_tool_text(
    supervisor: Supervisor,
    server: String,
    tool: String,
    arguments: Option<RawJson>,
    options: RequestOptions,
) -> Result<Reply<CallToolResult>, ErrorObject> {
    let result = supervisor
        .relay_tool_call_text(&server, &tool, arguments, options)
        .await;
    match result {
        Ok(text) if passes_as_sent(&text) => Ok(Reply::Encoded(text)),
        Ok(text) => {
            let result = text.decode::<CallToolResult>().map_err(|error| {
                ErrorObject::new(
                    ErrorCode::INTERNAL_ERROR,
                    format!(
                        "{}: server '{server}' answered with a malformed result: {error}",
                        CallTool::METHOD
                    ),
                )
            });
            answer(Ok(result?)).map(Reply::Typed)
        }
        Err(error) => answer::<CallToolResult>(Err(error)).map(Reply::Typed),
    }
}

/// Whether a server's result text goes to the client as it is: it has its
/// `content` list, and no modern envelope to take off (`resultType`, a
/// `serverInfo` in its `_meta`).
fn passes_as_sent(text: &RawJson) -> bool {
    let [content, result_type, meta] = JsonView::of(text).pick(["content", "resultType", "_meta"]);
    content.is_some_and(|content| content.text().starts_with('['))
        && result_type.is_none()
        && meta.is_none_or(|meta| meta.get(SERVER_INFO_KEY).is_none())
}

/// `resources/read` of `uri` on `server`.
pub(crate) async fn read_resource(
    supervisor: Supervisor,
    server: String,
    uri: String,
    options: RequestOptions,
) -> Result<Answer<ReadResourceResult>, ErrorObject> {
    answer(supervisor.read_resource(&server, &uri, options).await)
}

/// `prompts/get` of `prompt` on `server`.
pub(crate) async fn get_prompt(
    supervisor: Supervisor,
    server: String,
    prompt: String,
    arguments: Option<BTreeMap<String, String>>,
    options: RequestOptions,
) -> Result<Answer<GetPromptResult>, ErrorObject> {
    let result = supervisor
        .get_prompt(&server, &prompt, arguments, options)
        .await;
    answer(result)
}

/// `completion/complete` on `server`, `params` in the server's own names.
/// A server that asks for input first is an error: a completion's retry
/// is not relayed.
pub(crate) async fn complete(
    supervisor: &Supervisor,
    server: &str,
    params: &CompleteParams,
) -> Result<CompleteResult, ErrorObject> {
    let result = supervisor
        .complete(server, params, RequestOptions::default())
        .await;
    match answer(result)? {
        Answer::Complete(result) => Ok(result),
        Answer::InputRequired(_) => Err(ErrorObject::new(
            ErrorCode::INTERNAL_ERROR,
            format!(
                "{}: server '{server}' asked for input, which the gateway does not relay for a completion",
                Complete::METHOD
            ),
        )),
        Answer::Task(_) => Err(ErrorObject::new(
            ErrorCode::INTERNAL_ERROR,
            format!(
                "{}: server '{server}' answered with a task, which the gateway does not follow",
                Complete::METHOD
            ),
        )),
    }
}

/// The mark of a `requestState` that is a server's, relayed: the client's
/// retry goes back to that server with it (the rest of the text).
pub(crate) const RELAYED_STATE_PREFIX: &str = "relayed:";

/// A server's result as the gateway answers it: without the server's
/// modern envelope; or its `input_required` result, to relay, with its
/// state marked; or the task it runs the call as, under the id that names
/// the server (the `tasks` module).
fn answer<R: Enveloped>(result: Result<R, SupervisorError>) -> Result<Answer<R>, ErrorObject> {
    match result {
        Ok(mut result) => {
            let (extra, meta) = result.envelope();
            extra.shift_remove("resultType");
            if let Some(entries) = meta {
                entries.shift_remove(SERVER_INFO_KEY);
                if entries.is_empty() {
                    *meta = None;
                }
            }
            Ok(Answer::Complete(result))
        }
        Err(SupervisorError::InputRequired { input, .. }) => {
            Ok(Answer::input_required(relayed(*input)))
        }
        Err(SupervisorError::RunsAsTask {
            server,
            incarnation,
            task,
        }) => Ok(Answer::Task(Box::new(super::tasks::relayed(
            &server,
            incarnation,
            *task,
        )))),
        Err(error) => Err(to_error(error)),
    }
}

/// A server's `input_required` result as the gateway relays it: its
/// questions and keys unchanged, its state marked as the server's, without
/// its `_meta` (the gateway answers as itself).
fn relayed(mut input: InputRequiredResult) -> InputRequiredResult {
    let state = input.request_state.take().unwrap_or_default();
    input.request_state = Some(format!("{RELAYED_STATE_PREFIX}{state}"));
    input.meta = None;
    input
}

/// A result that may carry a modern server's envelope: `resultType` among
/// its other members, the server's `serverInfo` in its `_meta`.
trait Enveloped {
    /// Its other members and its `_meta`.
    fn envelope(&mut self) -> (&mut Extra, &mut Option<Extra>);
}

macro_rules! enveloped {
    ($($result:ty),+) => {
        $(impl Enveloped for $result {
            fn envelope(&mut self) -> (&mut Extra, &mut Option<Extra>) {
                (&mut self.extra, &mut self.meta)
            }
        })+
    };
}
enveloped!(
    CallToolResult,
    ReadResourceResult,
    GetPromptResult,
    CompleteResult
);

/// A supervisor's error as the client sees it: a server's own JSON-RPC
/// error keeps its code and its `data` (such as the capabilities a -32021
/// names); a name the gateway does not know is -32602; anything else (a
/// server down, a lost connection) is -32603. The message names the server
/// and the cause, masked like everything from a server.
pub(crate) fn to_error(error: SupervisorError) -> ErrorObject {
    let data = match &error {
        SupervisorError::Session(session) => session.server_data().cloned(),
        _ => None,
    };
    let code = match &error {
        SupervisorError::UnknownServer(_)
        | SupervisorError::UnknownItem { .. }
        | SupervisorError::Restarted { .. }
        | SupervisorError::Disabled(_)
        | SupervisorError::Hidden { .. } => ErrorCode::INVALID_PARAMS,
        SupervisorError::Session(session) => {
            session.server_code().unwrap_or(ErrorCode::INTERNAL_ERROR)
        }
        SupervisorError::NotReady { .. }
        | SupervisorError::InputRequired { .. }
        | SupervisorError::RunsAsTask { .. }
        | SupervisorError::ShutDown => ErrorCode::INTERNAL_ERROR,
    };
    ErrorObject {
        data,
        ..ErrorObject::new(code, error.to_string())
    }
}
