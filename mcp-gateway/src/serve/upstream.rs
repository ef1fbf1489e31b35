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

use mcpdisco_protocol::ErrorCode;
use mcpdisco_protocol::ErrorObject;
use mcpdisco_protocol::meta::ResultType;
use mcpdisco_protocol::meta::SERVER_INFO_KEY;
use mcpdisco_protocol::method::RequestMethod;
use mcpdisco_protocol::methods::{CallTool, Complete, GetPrompt, ReadResource};
use mcpdisco_protocol::types::{
    Answer, CallToolResult, CompleteParams, CompleteResult, GetPromptResult, InputRequiredResult,
    ReadResourceResult,
};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::supervisor::{Supervisor, SupervisorError};
use mcpdisco_client::session::RequestOptions;

/// `tools/call` of `tool` on `server`.
pub(crate) async fn call_tool(
    supervisor: Supervisor,
    server: String,
    tool: String,
    arguments: Value,
    options: RequestOptions,
) -> Result<Answer<CallToolResult>, ErrorObject> {
    let result = supervisor
        .call_tool_with(&server, &tool, arguments, options)
        .await;
    typed::<CallTool>(result)
}

/// `resources/read` of `uri` on `server`.
pub(crate) async fn read_resource(
    supervisor: Supervisor,
    server: String,
    uri: String,
    options: RequestOptions,
) -> Result<Answer<ReadResourceResult>, ErrorObject> {
    let result = supervisor.read_resource_with(&server, &uri, options).await;
    typed::<ReadResource>(result)
}

/// `prompts/get` of `prompt` on `server`.
pub(crate) async fn get_prompt(
    supervisor: Supervisor,
    server: String,
    prompt: String,
    arguments: Value,
    options: RequestOptions,
) -> Result<Answer<GetPromptResult>, ErrorObject> {
    let result = supervisor
        .get_prompt_with(&server, &prompt, arguments, options)
        .await;
    typed::<GetPrompt>(result)
}

/// `completion/complete` on `server`, `params` in the server's own names.
/// A server that asks for input first is an error: a completion's retry
/// is not relayed.
pub(crate) async fn complete(
    supervisor: &Supervisor,
    server: &str,
    params: CompleteParams,
) -> Result<CompleteResult, ErrorObject> {
    let result = supervisor.complete(server, params).await;
    match typed::<Complete>(result)? {
        Answer::Complete(result) => Ok(result),
        Answer::InputRequired(_) => Err(ErrorObject::new(
            ErrorCode::INTERNAL_ERROR,
            format!(
                "{}: server '{server}' asked for input, which the gateway does not relay for a completion",
                Complete::METHOD
            ),
        )),
    }
}

/// The mark of a `requestState` that is a server's, relayed: the client's
/// retry goes back to that server with it (the rest of the text).
pub(crate) const RELAYED_STATE_PREFIX: &str = "relayed:";

/// A server's result for `M`, without its envelope, as `M`'s result type;
/// or its `input_required` result, to relay, with its state marked.
fn typed<M>(result: Result<Value, SupervisorError>) -> Result<Answer<M::Result>, ErrorObject>
where
    M: RequestMethod,
    M::Result: DeserializeOwned,
{
    let mut result = result.map_err(to_error)?;
    let unreadable = |error: serde_json::Error| {
        ErrorObject::new(
            ErrorCode::INTERNAL_ERROR,
            format!("{}: the server's result cannot be read: {error}", M::METHOD),
        )
    };
    if result.get("resultType").and_then(Value::as_str) == Some(ResultType::InputRequired.as_str())
    {
        let mut input: InputRequiredResult = serde_json::from_value(result).map_err(unreadable)?;
        let state = input.request_state.take().unwrap_or_default();
        input.request_state = Some(format!("{RELAYED_STATE_PREFIX}{state}"));
        input.meta = None;
        return Ok(Answer::input_required(input));
    }
    if let Some(object) = result.as_object_mut() {
        object.remove("resultType");
        if let Some(Value::Object(meta)) = object.get_mut("_meta") {
            meta.remove(SERVER_INFO_KEY);
            if meta.is_empty() {
                object.remove("_meta");
            }
        }
    }
    serde_json::from_value(result)
        .map(Answer::Complete)
        .map_err(unreadable)
}

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
        | SupervisorError::Disabled(_)
        | SupervisorError::Hidden { .. } => ErrorCode::INVALID_PARAMS,
        SupervisorError::Session(session) => {
            session.server_code().unwrap_or(ErrorCode::INTERNAL_ERROR)
        }
        SupervisorError::NotReady { .. } | SupervisorError::ShutDown => ErrorCode::INTERNAL_ERROR,
    };
    ErrorObject {
        data,
        ..ErrorObject::new(code, error.to_string())
    }
}
