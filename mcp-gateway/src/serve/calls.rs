//! Calls routed to a server (`tools/call`, `resources/read`,
//! `prompts/get`): progress passed back to the client, the client's cancel
//! passed on, and the server's questions sent to the client, over its
//! connection or (modern requests) as `input_required`.

use std::sync::Arc;

use futures::FutureExt;
use mcpdisco_protocol::meta::{CLIENT_CAPABILITIES_KEY, LOG_LEVEL_KEY, PROGRESS_TOKEN_KEY};
use mcpdisco_protocol::method::RequestMethod;
use mcpdisco_protocol::methods::{
    CallTool, GetPrompt, Progress as ProgressNotification, ReadResource,
};
use mcpdisco_protocol::types::{
    Answer, CallToolResult, ClientCapabilities, Extra, GetPromptParams, GetPromptResult,
    ProgressParams, ReadResourceParams, ReadResourceResult, TASKS_EXTENSION,
};
use mcpdisco_protocol::version::Era;
use mcpdisco_protocol::{ErrorCode, ErrorObject, RawJson};
use serde::Deserialize;
use serde_json::{Map, Value};
use tokio::sync::mpsc;

use super::bridge::Caller;
use super::context::RequestContext;
use super::input::RunningCall;
use super::search::tools as search_tools;
use super::upstream::{self, RELAYED_STATE_PREFIX};
use crate::supervisor::{RelayedCall, SupervisorError};
use mcpdisco_client::session::{InputRetry, ListKind, Progress, RequestOptions};
use mcpdisco_transport::server::Reply;

/// `tools/call` of a tool by its served name; in tool-search mode also
/// `search_tools`, and `call_tool`, which is a call of the tool it names.
/// A legacy client's call gets the server's result as the text it sent.
pub(crate) async fn call_tool(
    params: RelayedCall,
    request: RequestContext,
) -> Result<Reply<CallToolResult>, ErrorObject> {
    let state = params.request_state.as_deref();
    let responses = params.input_responses.as_ref();
    if let Some(resumed) = resume::<CallTool>(&request, state, responses)? {
        let answer = request.shared.inputs.drive::<CallTool>(resumed).await;
        return answer.map(Reply::Typed);
    }
    let retry = relayed_retry(&request, state, responses);
    if request
        .shared
        .listings
        .tool_search(request.profile.as_deref())
    {
        match params.name.as_str() {
            search_tools::SEARCH_TOOLS => {
                let listing = request
                    .shared
                    .listings
                    .listing(request.profile.as_ref())
                    .await;
                let index = listing.search().ok_or_else(|| {
                    ErrorObject::new(ErrorCode::INTERNAL_ERROR, "the tool index is missing")
                })?;
                let found = search_tools::search(index, params.arguments);
                return found.map(|result| Reply::Typed(Answer::Complete(result)));
            }
            search_tools::CALL_TOOL => {
                let call = search_tools::call_arguments(params.arguments)?;
                let meta = params.meta.as_ref();
                return call_served_tool(&request, &call.name, call.arguments, meta, retry).await;
            }
            _ => {}
        }
    }
    call_served_tool(
        &request,
        &params.name,
        params.arguments,
        params.meta.as_ref(),
        retry,
    )
    .await
}

/// The one call path of a tool by its served name (direct, or through
/// `call_tool`): routed to its server, with the request's `_meta`. A
/// legacy client's result is the server's text, passed on as it came.
async fn call_served_tool(
    request: &RequestContext,
    name: &str,
    arguments: Option<RawJson>,
    meta: Option<&Extra>,
    retry: Option<InputRetry>,
) -> Result<Reply<CallToolResult>, ErrorObject> {
    let supervisor = request.shared.supervisor.clone();
    let (server, tool) = resolve_in_view(request, ListKind::Tools, name).await?;
    // A call without arguments reaches the server with `{}`, which every server reads.
    let arguments = Some(arguments.unwrap_or_else(RawJson::empty_object));
    if request.era == Era::Legacy {
        let routing = Routing::new(request, meta, retry, &server);
        let call = |options| {
            upstream::call_tool_text(supervisor, server.clone(), tool, arguments, options)
        };
        return on_connection(request, &server, routing.run(call)).await;
    }
    let call = |options| upstream::call_tool(supervisor, server.clone(), tool, arguments, options);
    let answer = routed::<CallTool, _>(request, meta, retry, &server, call).await;
    answer.map(Reply::Typed)
}

/// `resources/read` of a served URI.
pub(crate) async fn read_resource(
    params: ReadResourceParams,
    request: RequestContext,
) -> Result<Answer<ReadResourceResult>, ErrorObject> {
    let state = params.request_state.as_deref();
    let responses = params.input_responses.as_ref();
    if let Some(resumed) = resume::<ReadResource>(&request, state, responses)? {
        return request.shared.inputs.drive::<ReadResource>(resumed).await;
    }
    let retry = relayed_retry(&request, state, responses);
    let route = request
        .shared
        .listings
        .route_resource(request.profile.as_ref(), &params.uri)
        .await
        .ok_or_else(|| {
            ErrorObject::for_resource(
                ErrorCode::INVALID_PARAMS,
                format!(
                    "no server of the gateway offers the resource {}",
                    params.uri
                ),
                &params.uri,
            )
        })?;
    let supervisor = request.shared.supervisor.clone();
    let server = route.server.clone();
    let call = |options| upstream::read_resource(supervisor, route.server, route.uri, options);
    routed::<ReadResource, _>(&request, params.meta.as_ref(), retry, &server, call).await
}

/// `prompts/get` of a prompt by its served name.
pub(crate) async fn get_prompt(
    params: GetPromptParams,
    request: RequestContext,
) -> Result<Answer<GetPromptResult>, ErrorObject> {
    let state = params.request_state.as_deref();
    let responses = params.input_responses.as_ref();
    if let Some(resumed) = resume::<GetPrompt>(&request, state, responses)? {
        return request.shared.inputs.drive::<GetPrompt>(resumed).await;
    }
    let retry = relayed_retry(&request, state, responses);
    let supervisor = request.shared.supervisor.clone();
    let (server, prompt) = resolve_in_view(&request, ListKind::Prompts, &params.name).await?;
    let arguments = params.arguments;
    let call =
        |options| upstream::get_prompt(supervisor, server.clone(), prompt, arguments, options);
    routed::<GetPrompt, _>(&request, params.meta.as_ref(), retry, &server, call).await
}

/// The server and own name of the tool or prompt served as `name`, in the
/// view of the request's profile: a name outside it is unknown, with the
/// error of a name no server offers.
pub(super) async fn resolve_in_view(
    request: &RequestContext,
    kind: ListKind,
    name: &str,
) -> Result<(String, String), ErrorObject> {
    let (server, own) = request
        .shared
        .supervisor
        .resolve(kind, name)
        .await
        .map_err(upstream::to_error)?;
    let view = request.shared.listings.view(request.profile.as_deref());
    let shown = match kind {
        ListKind::Tools => view.shows_tool(&server, name),
        _ => view.shows_server(&server),
    };
    if shown {
        Ok((server, own))
    } else {
        Err(upstream::to_error(SupervisorError::UnknownItem {
            kind: if kind == ListKind::Tools {
                "tool"
            } else {
                "prompt"
            },
            name: name.to_owned(),
        }))
    }
}

/// The parked call a modern retry (`requestState`) takes back, with its
/// answers given. A server's relayed state is no parked call's.
fn resume<M: RequestMethod>(
    request: &RequestContext,
    state: Option<&str>,
    responses: Option<&Extra>,
) -> Result<Option<RunningCall<Answer<M::Result>>>, ErrorObject> {
    match state {
        Some(state) if state.starts_with(RELAYED_STATE_PREFIX) => Ok(None),
        Some(state) if request.era == Era::Modern => request
            .shared
            .inputs
            .resume::<M>(state, responses)
            .map(Some),
        _ => Ok(None),
    }
}

/// A modern request's answers for its server: the answers to a server's
/// relayed `input_required` (sent back with the server's own state), or
/// input responses a request carries without any state.
fn relayed_retry(
    request: &RequestContext,
    state: Option<&str>,
    responses: Option<&Extra>,
) -> Option<InputRetry> {
    if request.era != Era::Modern {
        return None;
    }
    let own = match state {
        Some(state) => Some(state.strip_prefix(RELAYED_STATE_PREFIX)?),
        None => None,
    };
    if own.is_none() && responses.is_none() {
        return None;
    }
    Some(InputRetry {
        responses: responses.cloned().unwrap_or_default(),
        request_state: own.filter(|own| !own.is_empty()).map(str::to_owned),
    })
}

/// Runs `call`, routed to `server`, for the request `M` whose `_meta` is
/// `meta`: progress passed back to the client, the server's questions sent
/// to it (over its connection, or as `input_required` for a modern
/// request). The server sees the capabilities the client declared; a
/// modern server's own `input_required` goes to a modern client as it
/// came, and `retry` (the client's answers to it) back to the server.
async fn routed<M, Fut>(
    request: &RequestContext,
    meta: Option<&Extra>,
    retry: Option<InputRetry>,
    server: &str,
    call: impl FnOnce(RequestOptions) -> Fut,
) -> Result<Answer<M::Result>, ErrorObject>
where
    M: RequestMethod,
    Fut: Future<Output = Result<Answer<M::Result>, ErrorObject>> + Send + 'static,
{
    let routing = Routing::new(request, meta, retry, server);
    let declared = Arc::clone(&routing.declared);
    let call = routing.run(call);
    match request.era {
        Era::Legacy => on_connection(request, server, call).await,
        Era::Modern => {
            let (asks, questions) = mpsc::channel(8);
            let caller = Caller::Input {
                asks,
                capabilities: declared,
            };
            let on_record = request.shared.bridge.enter(server, caller);
            let running = RunningCall::spawn(
                async move {
                    let _on_record = on_record;
                    call.await
                },
                questions,
            );
            request.shared.inputs.drive::<M>(running).await
        }
    }
}

/// Runs a legacy client's routed `call`: the server's questions meanwhile
/// go to the client over its connection, from now until `call` ends or is
/// dropped.
///
/// Not an `async fn`: one would keep `call` twice in its state (the
/// argument and the future it awaits), and a call's future is kilobytes,
/// copied on every call.
fn on_connection<T>(
    request: &RequestContext,
    server: &str,
    call: impl Future<Output = T>,
) -> impl Future<Output = T> {
    let caller = Caller::Connection(Arc::clone(&request.link));
    let on_record = request.shared.bridge.enter(server, caller);
    call.map(move |answer| {
        drop(on_record);
        answer
    })
}

/// What a call routed to a server is sent with, and the progress it passes back.
struct Routing {
    /// The capabilities the client declared, which the server sees.
    declared: Arc<ClientCapabilities>,
    options: RequestOptions,
    /// The client's progress token, and where the server's progress comes.
    progress: Option<(Value, mpsc::UnboundedReceiver<Progress>)>,
    link: Arc<super::client::ClientLink>,
}

impl Routing {
    /// The options of a call to `server` for a request whose `_meta` is `meta`.
    fn new(
        request: &RequestContext,
        meta: Option<&Extra>,
        retry: Option<InputRetry>,
        server: &str,
    ) -> Self {
        super::operation::routed_to(server);
        let declared = match request.era {
            Era::Legacy => request.link.capabilities(),
            Era::Modern => Arc::new(
                meta.and_then(|meta| meta.get(CLIENT_CAPABILITIES_KEY))
                    .and_then(|declared| ClientCapabilities::deserialize(declared).ok())
                    .unwrap_or_default(),
            ),
        };
        let token = meta
            .and_then(|meta| meta.get(PROGRESS_TOKEN_KEY))
            .filter(|token| token.is_string() || token.is_i64() || token.is_u64())
            .cloned();
        let (options, progress) = match token {
            Some(token) => {
                let (sender, receiver) = mpsc::unbounded_channel();
                (
                    RequestOptions::new().progress(sender),
                    Some((token, receiver)),
                )
            }
            None => (RequestOptions::default(), None),
        };
        let mut own_meta = Map::new();
        // Only a modern server reads a request's own `_meta` (a legacy one
        // knows its client from `initialize`): for a legacy server, the
        // declared capabilities are not written out on every call. A server
        // not connected yet, or restarting, gets them.
        let to_modern = request.shared.supervisor.era(server) != Some(Era::Legacy);
        if to_modern && let Ok(mut declared) = serde_json::to_value(declared.as_ref()) {
            // A legacy client cannot follow a task: its calls never ask for one.
            if request.era == Era::Legacy
                && let Some(extensions) = declared
                    .get_mut("extensions")
                    .and_then(Value::as_object_mut)
            {
                extensions.shift_remove(TASKS_EXTENSION);
            }
            own_meta.insert(CLIENT_CAPABILITIES_KEY.to_owned(), declared);
        }
        // A modern server logs only when a request asks: at the level the
        // legacy client set (its messages during this call go to it).
        if to_modern
            && request.era == Era::Legacy
            && let Some(wish) = request.link.log_wish()
        {
            own_meta.insert(LOG_LEVEL_KEY.to_owned(), Value::from(wish.level.as_str()));
        }
        let mut options = options.relay_input_required(request.era == Era::Modern);
        if !own_meta.is_empty() {
            options = options.meta(own_meta);
        }
        options.input_retry = retry;
        Self {
            declared,
            options,
            progress,
            link: Arc::clone(&request.link),
        }
    }

    /// `call` with these options, its progress passed on as it comes, and
    /// all of it before the answer.
    fn run<T, Fut>(
        self,
        call: impl FnOnce(RequestOptions) -> Fut,
    ) -> impl Future<Output = T> + Send + 'static
    where
        Fut: Future<Output = T> + Send + 'static,
        T: Send + 'static,
    {
        // Boxed where it is made: a call's future is kilobytes, and every
        // wrapper it went into (the join, the maps, each caller's state)
        // copied all of it again; a box is moved as a pointer.
        let work = Box::pin(call(self.options));
        let (progress, link) = (self.progress, self.link);
        let forward = async move {
            if let Some((token, mut receiver)) = progress {
                while let Some(progress) = receiver.recv().await {
                    let params = progress_params(&token, progress);
                    link.notify::<ProgressNotification>(&params).await;
                }
            }
        };
        // `join` keeps `work` once; an `async` block around `tokio::join!`
        // kept it twice (moved in, then joined).
        futures::future::join(work, forward).map(|(result, ())| result)
    }
}

fn progress_params(token: &Value, progress: Progress) -> ProgressParams {
    ProgressParams {
        progress_token: token.clone(),
        progress: progress.progress,
        total: progress.total,
        message: progress.message,
        meta: None,
        extra: Extra::new(),
    }
}
