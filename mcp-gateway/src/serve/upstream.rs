//! The gateway's calls into its supervisor, which routes them to the
//! servers, and their results as the gateway's typed results. A server's
//! result loses its own modern envelope (`resultType`, its `serverInfo`):
//! the gateway answers in its client's era, as itself.

use mcpdisco_protocol::ErrorCode;
use mcpdisco_protocol::ErrorObject;
use mcpdisco_protocol::meta::SERVER_INFO_KEY;
use mcpdisco_protocol::method::RequestMethod;
use mcpdisco_protocol::methods::{CallTool, GetPrompt, ReadResource};
use mcpdisco_protocol::types::{CallToolResult, GetPromptResult, ReadResourceResult};
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
) -> Result<CallToolResult, ErrorObject> {
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
) -> Result<ReadResourceResult, ErrorObject> {
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
) -> Result<GetPromptResult, ErrorObject> {
    let result = supervisor
        .get_prompt_with(&server, &prompt, arguments, options)
        .await;
    typed::<GetPrompt>(result)
}

/// A server's result for `M`, without its envelope, as `M`'s result type.
fn typed<M>(result: Result<Value, SupervisorError>) -> Result<M::Result, ErrorObject>
where
    M: RequestMethod,
    M::Result: DeserializeOwned,
{
    let mut result = result.map_err(to_error)?;
    if let Some(object) = result.as_object_mut() {
        object.remove("resultType");
        if let Some(Value::Object(meta)) = object.get_mut("_meta") {
            meta.remove(SERVER_INFO_KEY);
            if meta.is_empty() {
                object.remove("_meta");
            }
        }
    }
    serde_json::from_value(result).map_err(|error| {
        ErrorObject::new(
            ErrorCode::INTERNAL_ERROR,
            format!("{}: the server's result cannot be read: {error}", M::METHOD),
        )
    })
}

/// A supervisor's error as the client sees it: a server's own JSON-RPC
/// error keeps its code; a name the gateway does not know is -32602;
/// anything else (a server down, a lost connection) is -32603. The message
/// names the server and the cause, masked like everything from a server.
pub(crate) fn to_error(error: SupervisorError) -> ErrorObject {
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
    ErrorObject::new(code, error.to_string())
}
