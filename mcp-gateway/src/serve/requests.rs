//! The gateway's answer to each request of its clients, in either era.

use std::sync::Arc;

use mcpdisco_protocol::meta::{CLIENT_CAPABILITIES_KEY, PROGRESS_TOKEN_KEY, SERVER_INFO_KEY};
use mcpdisco_protocol::method::RequestMethod;
use mcpdisco_protocol::methods::{
    CallTool, Discover, GetPrompt, Initialize, ListPrompts, ListResourceTemplates, ListResources,
    ListTools, Ping, Progress as ProgressNotification, ReadResource, SubscriptionsListen,
};
use mcpdisco_protocol::server;
use mcpdisco_protocol::types::{
    CallToolParams, ClientCapabilities, GetPromptParams, InitializeParams, PaginatedParams,
    ProgressParams, ReadResourceParams, SubscriptionsListenParams,
};
use mcpdisco_protocol::version::Era;
use mcpdisco_protocol::{ErrorCode, ErrorObject, Request};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use tokio::sync::mpsc;

use super::Shared;
use super::bridge::Caller;
use super::client::ClientLink;
use super::input::RunningCall;
use crate::supervisor::SupervisorError;
use mcpdisco_client::session::{ListKind, Progress, RequestOptions};

/// Requests answered in order, without waiting for any server.
pub(crate) fn is_immediate(method: &str) -> bool {
    matches!(method, Initialize::METHOD | Discover::METHOD | Ping::METHOD)
}

/// The answer to one request.
pub(crate) async fn answer(
    shared: &Arc<Shared>,
    link: &Arc<ClientLink>,
    request: &Request,
) -> Result<Value, ErrorObject> {
    let params = request.params.as_ref();
    let era = server::request_era(params)?;
    let mut result = match request.method.as_str() {
        Initialize::METHOD => initialize(shared, link, params)?,
        Discover::METHOD => shared.discover_result(),
        Ping::METHOD => json!({}),
        ListTools::METHOD => list(shared, era, ListKind::Tools, params).await?,
        ListPrompts::METHOD => list(shared, era, ListKind::Prompts, params).await?,
        ListResources::METHOD => list(shared, era, ListKind::Resources, params).await?,
        ListResourceTemplates::METHOD => {
            list(shared, era, ListKind::ResourceTemplates, params).await?
        }
        CallTool::METHOD => call_tool(shared, link, era, params).await?,
        ReadResource::METHOD => read_resource(shared, link, era, params).await?,
        GetPrompt::METHOD => get_prompt(shared, link, era, params).await?,
        SubscriptionsListen::METHOD if era == Era::Modern => {
            let listen: SubscriptionsListenParams = decode(SubscriptionsListen::METHOD, params)?;
            link.listen(request.id.clone(), listen.notifications).await
        }
        other => return Err(ErrorObject::method_not_found(other)),
    };
    if era == Era::Modern && result.get("resultType").is_none() {
        server::complete_modern(&mut result, &shared.server_info());
    }
    Ok(result)
}

fn decode<T: DeserializeOwned>(method: &str, params: Option<&Value>) -> Result<T, ErrorObject> {
    let params = params.cloned().unwrap_or_else(|| Value::Object(Map::new()));
    serde_json::from_value(params).map_err(|error| {
        ErrorObject::new(
            ErrorCode::INVALID_PARAMS,
            format!("{method}: invalid params: {error}"),
        )
    })
}

fn initialize(
    shared: &Shared,
    link: &ClientLink,
    params: Option<&Value>,
) -> Result<Value, ErrorObject> {
    let params: InitializeParams = decode(Initialize::METHOD, params)?;
    let version = server::initialize_version(Some(&params.protocol_version));
    link.initialize(params.capabilities);
    Ok(shared.initialize_result(version))
}

async fn list(
    shared: &Shared,
    era: Era,
    kind: ListKind,
    params: Option<&Value>,
) -> Result<Value, ErrorObject> {
    let params: PaginatedParams = decode(kind.method(), params)?;
    let listing = shared.listing().await;
    let items = listing.items(kind);
    let cursor = params.cursor.map(Value::String);
    let (range, next) = server::page(items.len(), cursor.as_ref(), Some(shared.options.page_size))?;
    let mut result = server::list_result(kind.items_key(), items[range].to_vec(), next);
    if era == Era::Modern
        && let Some(object) = result.as_object_mut()
    {
        // The lists change as servers come and go: stale at once, and this
        // gateway's own (its filters, its servers).
        object.insert("ttlMs".into(), json!(0));
        object.insert("cacheScope".into(), json!("private"));
    }
    Ok(result)
}

/// What a modern request's `_meta` declares, or what the legacy client did.
fn capabilities_of(link: &ClientLink, era: Era, params: Option<&Value>) -> Arc<ClientCapabilities> {
    match era {
        Era::Legacy => link.capabilities(),
        Era::Modern => Arc::new(
            params
                .and_then(|p| p.get("_meta"))
                .and_then(|meta| meta.get(CLIENT_CAPABILITIES_KEY))
                .and_then(|caps| serde_json::from_value(caps.clone()).ok())
                .unwrap_or_default(),
        ),
    }
}

async fn call_tool(
    shared: &Arc<Shared>,
    link: &Arc<ClientLink>,
    era: Era,
    params: Option<&Value>,
) -> Result<Value, ErrorObject> {
    const METHOD: &str = CallTool::METHOD;
    let call: CallToolParams = decode(METHOD, params)?;
    if let Some(resumed) = shared.resume(
        METHOD,
        era,
        call.request_state.as_deref(),
        call.input_responses.as_ref(),
    )? {
        return shared.inputs.drive(METHOD, resumed).await;
    }
    let (server, tool) = shared
        .supervisor
        .resolve(ListKind::Tools, &call.name)
        .await
        .map_err(to_error)?;
    let arguments = call.arguments.unwrap_or_else(|| json!({}));
    let supervisor = shared.supervisor.clone();
    let routed_server = server.clone();
    routed(
        shared,
        link,
        era,
        params,
        &server,
        METHOD,
        move |options| async move {
            supervisor
                .call_tool_with(&routed_server, &tool, arguments, options)
                .await
        },
    )
    .await
}

async fn read_resource(
    shared: &Arc<Shared>,
    link: &Arc<ClientLink>,
    era: Era,
    params: Option<&Value>,
) -> Result<Value, ErrorObject> {
    const METHOD: &str = ReadResource::METHOD;
    let read: ReadResourceParams = decode(METHOD, params)?;
    if let Some(resumed) = shared.resume(
        METHOD,
        era,
        read.request_state.as_deref(),
        read.input_responses.as_ref(),
    )? {
        return shared.inputs.drive(METHOD, resumed).await;
    }
    let route = shared
        .route_resource(&read.uri)
        .await
        .ok_or_else(|| ErrorObject {
            code: ErrorCode::INVALID_PARAMS,
            message: format!("no server of the gateway offers the resource {}", read.uri),
            data: Some(json!({"uri": read.uri})),
        })?;
    let supervisor = shared.supervisor.clone();
    let server = route.server.clone();
    routed(
        shared,
        link,
        era,
        params,
        &route.server,
        METHOD,
        move |options| async move {
            supervisor
                .read_resource_with(&server, &route.uri, options)
                .await
        },
    )
    .await
}

async fn get_prompt(
    shared: &Arc<Shared>,
    link: &Arc<ClientLink>,
    era: Era,
    params: Option<&Value>,
) -> Result<Value, ErrorObject> {
    const METHOD: &str = GetPrompt::METHOD;
    let get: GetPromptParams = decode(METHOD, params)?;
    if let Some(resumed) = shared.resume(
        METHOD,
        era,
        get.request_state.as_deref(),
        get.input_responses.as_ref(),
    )? {
        return shared.inputs.drive(METHOD, resumed).await;
    }
    let (server, prompt) = shared
        .supervisor
        .resolve(ListKind::Prompts, &get.name)
        .await
        .map_err(to_error)?;
    let arguments = get.arguments.map_or(Value::Null, Value::Object);
    let supervisor = shared.supervisor.clone();
    let routed_server = server.clone();
    routed(
        shared,
        link,
        era,
        params,
        &server,
        METHOD,
        move |options| async move {
            supervisor
                .get_prompt_with(&routed_server, &prompt, arguments, options)
                .await
        },
    )
    .await
}

/// Runs a call routed to `server`: progress passed back to the client, the
/// server's questions sent to it (over its connection, or as
/// `input_required` for a modern request), and the error mapped.
async fn routed<F, Fut>(
    shared: &Arc<Shared>,
    link: &Arc<ClientLink>,
    era: Era,
    params: Option<&Value>,
    server: &str,
    method: &'static str,
    call: F,
) -> Result<Value, ErrorObject>
where
    F: FnOnce(RequestOptions) -> Fut,
    Fut: Future<Output = Result<Value, SupervisorError>> + Send + 'static,
{
    let token = params
        .and_then(|p| p.get("_meta"))
        .and_then(|meta| meta.get(PROGRESS_TOKEN_KEY))
        .filter(|token| token.is_string() || token.is_i64() || token.is_u64())
        .cloned();
    let (options, progress) = match token {
        Some(token) => {
            let (sender, receiver) = mpsc::unbounded_channel();
            (
                RequestOptions::with_progress(sender),
                Some((token, receiver)),
            )
        }
        None => (RequestOptions::default(), None),
    };
    let work = call(options);
    let progress_link = Arc::clone(link);
    // Progress is passed on as it comes, and all of it before the answer.
    let call = async move {
        let forward = async {
            if let Some((token, mut receiver)) = progress {
                while let Some(progress) = receiver.recv().await {
                    let params = progress_params(&token, progress);
                    progress_link.notify::<ProgressNotification>(&params).await;
                }
            }
        };
        let (result, ()) = tokio::join!(work, forward);
        result.map(without_envelope).map_err(to_error)
    };
    match era {
        Era::Legacy => {
            let _on_record = shared
                .bridge
                .enter(server, Caller::Connection(Arc::clone(link)));
            call.await
        }
        Era::Modern => {
            let (asks, questions) = mpsc::channel(8);
            let on_record = shared.bridge.enter(
                server,
                Caller::Input {
                    asks,
                    capabilities: capabilities_of(link, era, params),
                },
            );
            let running = RunningCall::spawn(
                async move {
                    let _on_record = on_record;
                    call.await
                },
                questions,
            );
            shared.inputs.drive(method, running).await
        }
    }
}

/// A server's result without its own modern envelope (`resultType`, its
/// `serverInfo`): the gateway answers in its client's era, as itself.
fn without_envelope(mut result: Value) -> Value {
    if let Some(object) = result.as_object_mut() {
        object.remove("resultType");
        if let Some(Value::Object(meta)) = object.get_mut("_meta") {
            meta.remove(SERVER_INFO_KEY);
            if meta.is_empty() {
                object.remove("_meta");
            }
        }
    }
    result
}

fn progress_params(token: &Value, progress: Progress) -> ProgressParams {
    ProgressParams {
        progress_token: token.clone(),
        progress: progress.progress,
        total: progress.total,
        message: progress.message,
        meta: None,
        extra: Map::new(),
    }
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
