//! The MCP client session: speaks MCP over any [`Transport`], in either era.
//!
//! [`Session::connect`] detects the era (a `server/discover` probe, falling
//! back to the legacy `initialize` handshake) unless it is pinned, and then
//! offers typed calls. Many requests can be in flight at once; each has a
//! timeout, and a timed-out or dropped request is cancelled on the server.
//!
//! ```no_run
//! # async fn demo(transport: mcpdisco_transport::memory::MemoryTransport) -> Result<(), mcpdisco_client::session::SessionError> {
//! use mcpdisco_client::session::{Session, SessionOptions};
//! let session = Session::connect("demo", transport, SessionOptions::default()).await?;
//! let tools = session.list_tools().await?;
//! println!("{} speaks {} and has {} tools", session.name(), session.protocol_version(), tools.len());
//! session.close().await?;
//! # Ok(()) }
//! ```
//!
//! Lists come typed and whole: [`Session::list_tools`] and its siblings
//! follow every page and return an [`ItemList`](mcpdisco_protocol::types::ItemList)
//! of the protocol type, each item decoded when first read. For passing
//! items on as they came, [`Session::list_page`] and
//! [`Session::list_complete`] give the raw pages.
//!
//! A tool call the server runs as a task (extension
//! `io.modelcontextprotocol/tasks`) is followed to its result by
//! [`Session::call_tool`]; [`Session::start_tool_call`],
//! [`Session::await_task`] and [`Session::cancel_task`] keep and resume it by id.

mod deadline;
mod deadline_queue;
mod engine;
pub(crate) mod handler;
mod handshake;
mod list;
mod negotiation;
mod options;
mod request_path;
mod request_table;
mod server_state;
mod task;
mod task_follow;

use std::sync::Arc;
use std::sync::atomic::Ordering;

use mcpdisco_protocol::method::RequestMethod;
use mcpdisco_protocol::methods::{
    Complete, Discover, GetPrompt, Ping, ReadResource, SetLevel, Subscribe, SubscriptionsListen,
    Unsubscribe,
};
use mcpdisco_protocol::types::{
    CompleteParams, CompleteResult, GetPromptParams, GetPromptResult, Implementation, MetaParams,
    ReadResourceParams, ReadResourceResult, ServerCapabilities, SetLevelParams, SubscribeParams,
    SubscriptionFilter, SubscriptionsListenParams,
};
use mcpdisco_protocol::version::{Era, ProtocolVersion};
use mcpdisco_protocol::{RawJson, RequestId};
use mcpdisco_transport::Transport;
use mcpdisco_transport::trace::TracedTransport;
use serde_json::{Map, Value};
use tokio::sync::{broadcast, mpsc};
use tower::ServiceExt;

pub use crate::error::{ErrorKind, SessionError};
pub use crate::notification::{Progress, ServerNotification};
pub use crate::policy::LayerStack;
pub use crate::request::{InputRetry, McpRequest, RequestOptions, RequestService, ResponseFuture};
pub use handler::{ClientHandler, NoHandler, apply_elicitation_defaults};
pub use list::{CompleteList, ListKind, ListPage};
pub use options::{EraPreference, SessionOptions};
pub use server_state::{Negotiation, ServerState};
pub use task::ToolCallStart;

use engine::Engine;
use request_path::Connection;

/// A connected MCP session. Cheap to clone; clones share the connection.
#[derive(Clone)]
pub struct Session {
    inner: Arc<Inner>,
}

struct Inner {
    connection: Arc<Connection>,
    service: RequestService,
    /// The buckets of the session's rate limits (none without a limit).
    rate_limits: Vec<crate::policy::RateLimitLayer>,
    reader: tokio::task::JoinHandle<()>,
    /// Records `mcp.client.session.duration` when taken (at close) or dropped.
    #[cfg(feature = "otel")]
    duration: mcpdisco_transport::sync::Mutex<Option<crate::telemetry::SessionDuration>>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("server", &self.name())
            .field("state", &self.state())
            .finish_non_exhaustive()
    }
}

impl Session {
    /// Connects over `transport`: detects the era and completes the handshake.
    /// On failure the transport is closed.
    pub async fn connect(
        name: &str,
        transport: impl Transport,
        options: SessionOptions,
    ) -> Result<Self, SessionError> {
        Self::connect_shared(name, Arc::new(transport), options).await
    }

    /// Like [`connect`](Self::connect), for a transport that is already shared.
    /// With [`SessionOptions::tracer`], every message is traced.
    pub async fn connect_shared(
        name: &str,
        transport: Arc<dyn Transport>,
        options: SessionOptions,
    ) -> Result<Self, SessionError> {
        // The session's duration counts its handshake.
        #[cfg(feature = "otel")]
        let opened = std::time::Instant::now();
        let transport: Arc<dyn Transport> = match &options.tracer {
            Some(tracer) => Arc::new(TracedTransport::new(
                name,
                transport,
                tracer.with_masker(&options.masker),
            )),
            None => transport,
        };
        let engine = Engine::new(
            name,
            transport,
            Arc::clone(&options.handler),
            options.capabilities.clone(),
            options.masker.clone(),
        );
        let reader = tokio::spawn(Arc::clone(&engine).pump());
        // Ends by itself with the connection or the engine.
        tokio::spawn(engine.deadline_timer());
        let connection = Arc::new(Connection::new(Arc::clone(&engine), options));
        let crate::policy::stack::BuiltStack {
            service,
            rate_limits,
        } = request_path::build(&connection);
        let handshake = handshake::handshake(
            &engine,
            &handshake::Path::Policies(&service),
            &connection.options,
        )
        .await;
        match handshake {
            Ok(state) => {
                let state = state.masked(&connection.options.masker);
                tracing::debug!(server = name, era = ?state.era, version = %state.protocol_version, "connected");
                *connection.state.write() = state;
                connection.established.store(true, Ordering::Release);
                #[cfg(feature = "otel")]
                let duration =
                    session_duration(&connection, &state_attributes(&connection), opened);
                Ok(Self {
                    inner: Arc::new(Inner {
                        connection,
                        service,
                        rate_limits,
                        reader,
                        #[cfg(feature = "otel")]
                        duration: mcpdisco_transport::sync::Mutex::new(duration),
                    }),
                })
            }
            Err(error) => {
                let _ = engine.close().await;
                reader.abort();
                Err(error.masked(&connection.options.masker))
            }
        }
    }

    fn engine(&self) -> &Arc<Engine> {
        &self.inner.connection.engine
    }

    fn options(&self) -> &SessionOptions {
        &self.inner.connection.options
    }

    /// The server's name.
    pub fn name(&self) -> &str {
        self.engine().server()
    }

    /// What the server said about itself when we connected.
    pub fn state(&self) -> ServerState {
        self.inner.connection.state.read().clone()
    }

    /// Reads part of the state without cloning the rest (on every request).
    fn read_state<T>(&self, read: impl FnOnce(&ServerState) -> T) -> T {
        read(&self.inner.connection.state.read())
    }

    /// The era in use.
    pub fn era(&self) -> Era {
        self.read_state(|state| state.era)
    }

    /// The protocol version in use.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.read_state(|state| state.protocol_version)
    }

    /// The server's `serverInfo`.
    pub fn server_info(&self) -> Implementation {
        self.read_state(|state| state.server_info.clone())
    }

    /// The server's capabilities.
    pub fn capabilities(&self) -> ServerCapabilities {
        self.read_state(|state| state.capabilities.clone())
    }

    /// The server's instructions.
    pub fn instructions(&self) -> Option<String> {
        self.read_state(|state| state.instructions.clone())
    }

    /// Whether the server advertised a capability (`tools`, `resources`, `prompts`, `logging`, ...).
    pub fn has_capability(&self, name: &str) -> bool {
        self.read_state(|state| state.has_capability(name))
    }

    /// Notifications from the server: list changes, resource updates, logs, stray progress.
    pub fn notifications(&self) -> broadcast::Receiver<ServerNotification> {
        self.engine().subscribe()
    }

    /// Resolves once the connection is gone: the server exited or closed its
    /// output, the HTTP connection failed, or the session was closed. At
    /// once if it already is. A supervisor notices a crash by it, not at the
    /// next request.
    pub fn closed(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        self.engine().closed()
    }

    /// Why the connection is gone (exit status and stderr tail, say), when it is.
    pub fn gone(&self) -> Option<SessionError> {
        self.engine()
            .gone_error("connection")
            .map(|error| error.masked(&self.options().masker))
    }

    /// Moves the deadline past which no request of this session is retried
    /// (`None`: no deadline). Discovery sets one; a session kept afterwards
    /// (by the hub) should not keep it.
    pub fn set_deadline(&self, deadline: Option<tokio::time::Instant>) {
        self.inner.connection.deadline.set(deadline);
    }

    /// The request path every request of this session takes: the layers of
    /// [`SessionOptions::stack`] around the core. Calling it directly sends
    /// a request as it is, without the modern `_meta` envelope or masking.
    pub fn service(&self) -> RequestService {
        self.inner.service.clone()
    }

    /// How many requests of this session have waited for a rate-limit token
    /// (0 without a limit). Only operations ever wait: the handshake and
    /// the pages of a listing never do.
    pub fn rate_limit_waits(&self) -> u64 {
        self.inner
            .rate_limits
            .iter()
            .map(crate::policy::RateLimitLayer::waits)
            .sum()
    }

    /// Sends a typed request and returns its result as the server sent it
    /// ([`RawJson`], read on demand), known secrets masked. In the modern
    /// era the per-request `_meta` is added and `input_required` rounds are
    /// fulfilled through the handler.
    pub async fn send<M: RequestMethod>(
        &self,
        params: &M::Params,
        options: RequestOptions,
    ) -> Result<RawJson, SessionError> {
        let request = McpRequest::typed::<M>(params, options)
            .map_err(|e| self.violation(M::METHOD, format!("cannot encode params: {e}")))?;
        self.exchange(request).await
    }

    /// [`send`](Self::send) of params already written as `M::Params`'
    /// JSON (a relay passing on what it was sent; see
    /// [`McpRequest::encoded`]).
    pub async fn send_encoded<M: RequestMethod>(
        &self,
        params: RawJson,
        options: RequestOptions,
    ) -> Result<RawJson, SessionError> {
        self.exchange(McpRequest::encoded::<M>(params, options))
            .await
    }

    /// Sends a typed request and decodes its result.
    pub async fn request<M: RequestMethod>(
        &self,
        params: &M::Params,
        options: RequestOptions,
    ) -> Result<M::Result, SessionError> {
        let result = self.send::<M>(params, options).await?;
        if is_task_result(&result) {
            // Follow it with `call_tool`; read as `M::Result` it would be lost.
            return Err(self.violation(
                M::METHOD,
                "answered with a task; call_tool follows tasks".to_owned(),
            ));
        }
        result
            .decode()
            .map_err(|e| self.violation(M::METHOD, format!("malformed result: {e}")))
    }

    /// Sends a request of a method `mcp-protocol` has no type for (a vendor
    /// extension, say), with its params as JSON text; like
    /// [`send`](Self::send) otherwise. Unknown methods count as not idempotent.
    pub async fn request_raw(
        &self,
        method: &str,
        params: Option<RawJson>,
        options: RequestOptions,
    ) -> Result<RawJson, SessionError> {
        self.exchange(McpRequest::untyped(method, params, options))
            .await
    }

    /// One request through the policies, in the era's envelope, masked.
    async fn exchange(&self, request: McpRequest) -> Result<RawJson, SessionError> {
        let masker = &self.options().masker;
        match self.exchange_unmasked(request).await {
            Ok(result) => Ok(masker.mask_json(&result)),
            Err(error) => Err(error.masked(masker)),
        }
    }

    async fn exchange_unmasked(&self, request: McpRequest) -> Result<RawJson, SessionError> {
        let (era, protocol_version) = self.read_state(|state| (state.era, state.protocol_version));
        if era == Era::Legacy {
            return self.service().oneshot(request).await;
        }
        // Boxed: the rounds' state would make every request's future large.
        Box::pin(self.exchange_modern(request, protocol_version)).await
    }

    /// A modern request: the `_meta` envelope, and `input_required` rounds.
    async fn exchange_modern(
        &self,
        request: McpRequest,
        protocol_version: ProtocolVersion,
    ) -> Result<RawJson, SessionError> {
        let opts = self.options();
        let mut meta = handshake::modern_meta(opts, protocol_version);
        if let Some(own) = &request.options.meta {
            for (key, value) in own {
                meta.insert(key.clone(), value.clone());
            }
        }
        let method = request.method.clone();
        // The params stay text: `_meta` is spliced in beside the other
        // members (`with_meta`), which are neither parsed nor written
        // again. They are read as a value only for an input round.
        let mut params = match &request.options.input_retry {
            Some(retry) => Some(RawJson::from_value(&handshake::with_input_retry(
                self.params_value(&method, request.params.as_ref())?,
                retry,
            ))),
            None => request.params.clone(),
        };
        for round in 0..=opts.max_input_rounds {
            let mut attempt = request.clone();
            attempt.params = handshake::with_meta(params, &meta);
            let result = self.service().oneshot(attempt).await?;
            if is_task_result(&result) {
                // A task (extension `io.modelcontextprotocol/tasks`): for the caller to follow or relay.
                return Ok(result);
            }
            match mcpdisco_protocol::meta::ResultType::of(&result) {
                Ok(mcpdisco_protocol::meta::ResultType::Complete) => return Ok(result),
                // For the caller to relay: its client answers.
                Ok(mcpdisco_protocol::meta::ResultType::InputRequired)
                    if request.options.relay_input_required =>
                {
                    return Ok(result);
                }
                Ok(mcpdisco_protocol::meta::ResultType::InputRequired) => {
                    if round == opts.max_input_rounds {
                        return Err(self.violation(
                            &method,
                            format!("still input_required after {round} rounds"),
                        ));
                    }
                    let result = result
                        .to_value()
                        .map_err(|e| self.violation(&method, format!("unreadable result: {e}")))?;
                    let original = self.params_value(&method, request.params.as_ref())?;
                    let answered = self.fulfil_input(&method, &original, &result).await?;
                    params = Some(RawJson::from_value(&answered));
                }
                Err(error) => return Err(self.violation(&method, error.to_string())),
            }
        }
        Err(self.violation(&method, "too many input_required rounds".into()))
    }

    /// Answers the `inputRequests` of an `input_required` result and builds the retry's params.
    async fn fulfil_input(
        &self,
        method: &str,
        original: &Value,
        result: &Value,
    ) -> Result<Value, SessionError> {
        let mut responses = Map::new();
        if let Some(requests) = result.get("inputRequests").and_then(Value::as_object) {
            for (key, request) in requests {
                let input_method =
                    request
                        .get("method")
                        .and_then(Value::as_str)
                        .ok_or_else(|| {
                            self.violation(method, format!("input request '{key}' has no method"))
                        })?;
                let input_params = request
                    .get("params")
                    .cloned()
                    .unwrap_or_else(|| Value::Object(Map::new()));
                let answer = handler::answer(
                    self.options().handler.as_ref(),
                    &self.options().capabilities,
                    input_method,
                    input_params,
                )
                .await
                .map_err(|error| {
                    SessionError::from_rpc(self.name(), format!("{method} ({input_method})"), error)
                })?;
                responses.insert(key.clone(), answer);
            }
        }
        let mut params = original.clone();
        if let Some(object) = params.as_object_mut() {
            object.insert("inputResponses".into(), Value::Object(responses));
            match result.get("requestState") {
                Some(state) => {
                    object.insert("requestState".into(), state.clone());
                }
                None => {
                    object.remove("requestState");
                }
            }
        }
        Ok(params)
    }

    /// A request's params as a value (`{}` when it has none).
    fn params_value(&self, method: &str, params: Option<&RawJson>) -> Result<Value, SessionError> {
        match params {
            Some(params) => params
                .to_value()
                .map_err(|e| self.violation(method, format!("unreadable params: {e}"))),
            None => Ok(Value::Object(Map::new())),
        }
    }

    fn violation(&self, method: &str, reason: String) -> SessionError {
        SessionError::new(self.name(), method, ErrorKind::ProtocolViolation { reason })
    }

    /// `ping` (legacy); in the modern era, where ping is gone, `server/discover` serves as a liveness check.
    pub async fn ping(&self) -> Result<(), SessionError> {
        let params = MetaParams::default();
        match self.era() {
            Era::Legacy => self.send::<Ping>(&params, RequestOptions::default()).await,
            Era::Modern => {
                self.send::<Discover>(&params, RequestOptions::default())
                    .await
            }
        }
        .map(drop)
    }

    /// `resources/read`, with [`RequestOptions`] for this read.
    pub async fn read_resource(
        &self,
        params: ReadResourceParams,
        options: RequestOptions,
    ) -> Result<ReadResourceResult, SessionError> {
        self.request::<ReadResource>(&params, options).await
    }

    /// `prompts/get`, with [`RequestOptions`] for this request.
    pub async fn get_prompt(
        &self,
        params: GetPromptParams,
        options: RequestOptions,
    ) -> Result<GetPromptResult, SessionError> {
        self.request::<GetPrompt>(&params, options).await
    }

    /// `completion/complete`: values for an argument of a prompt
    /// (`ref/prompt`) or a resource template (`ref/resource`).
    pub async fn complete(&self, params: CompleteParams) -> Result<CompleteResult, SessionError> {
        self.request::<Complete>(&params, RequestOptions::default())
            .await
    }

    /// `logging/setLevel`: a [`LoggingLevel`](mcpdisco_protocol::types::LoggingLevel)
    /// or whole [`SetLevelParams`] (legacy only: the modern era sets the
    /// level per request, through [`SessionOptions::log_level`]).
    pub async fn set_log_level(
        &self,
        params: impl Into<SetLevelParams>,
    ) -> Result<(), SessionError> {
        if self.era() == Era::Modern {
            return Err(SessionError::new(
                self.name(),
                SetLevel::METHOD,
                ErrorKind::Unsupported {
                    reason: format!(
                        "2026-07-28 has no {}; set SessionOptions::log_level",
                        SetLevel::METHOD
                    ),
                },
            ));
        }
        self.send::<SetLevel>(&params.into(), RequestOptions::default())
            .await
            .map(drop)
    }

    /// `resources/subscribe` (legacy).
    pub async fn subscribe_resource(&self, uri: &str) -> Result<(), SessionError> {
        self.send::<Subscribe>(&SubscribeParams::new(uri), RequestOptions::default())
            .await
            .map(drop)
    }

    /// `resources/unsubscribe` (legacy).
    pub async fn unsubscribe_resource(&self, uri: &str) -> Result<(), SessionError> {
        self.send::<Unsubscribe>(&SubscribeParams::new(uri), RequestOptions::default())
            .await
            .map(drop)
    }

    /// Modern `subscriptions/listen`: notifications for this filter (such as
    /// `tools_list_changed`) arrive on the returned subscription, demultiplexed
    /// by subscription id. Dropping it cancels the listen request. Of
    /// `options`, only its `meta` applies (its entries win over the
    /// session's envelope: a gateway passes on the capabilities its own
    /// client declared); a listen is sent past the session's policies.
    pub async fn listen(
        &self,
        filter: SubscriptionFilter,
        options: RequestOptions,
    ) -> Result<Subscription, SessionError> {
        const METHOD: &str = SubscriptionsListen::METHOD;
        let state = self.state();
        if state.era != Era::Modern {
            return Err(SessionError::new(
                self.name(),
                METHOD,
                ErrorKind::Unsupported {
                    reason: format!(
                        "{METHOD} needs the modern era; legacy notifications arrive on notifications()"
                    ),
                },
            ));
        }
        let request = McpRequest::typed::<SubscriptionsListen>(
            &SubscriptionsListenParams::new(filter),
            RequestOptions::default(),
        )
        .map_err(|e| self.violation(METHOD, format!("cannot encode params: {e}")))?;
        let engine = self.engine();
        let id = engine.next_id();
        let receiver = engine.add_subscription(id.clone());
        let mut meta = handshake::modern_meta(self.options(), state.protocol_version);
        meta.extend(options.meta.unwrap_or_default());
        let params = handshake::with_meta(request.params, &meta);
        // The caller's span context, when there is one.
        #[cfg(feature = "otel")]
        let params = crate::telemetry::layer::carry_current(params);
        // A long-lived request, answered only when it ends: sent past the policies.
        if let Err(error) = engine.send_detached(id.clone(), METHOD, params).await {
            engine.remove_subscription(&id);
            return Err(error);
        }
        Ok(Subscription {
            engine: Arc::clone(engine),
            id,
            receiver,
        })
    }

    /// Closes the session and its transport (the child process is reaped, the HTTP session deleted).
    pub async fn close(&self) -> Result<(), SessionError> {
        let result = self.engine().close().await;
        self.inner.reader.abort();
        #[cfg(feature = "otel")]
        drop(self.inner.duration.lock().take());
        result
    }
}

/// Whether a modern result is a task (`resultType: "task"`).
fn is_task_result(result: &RawJson) -> bool {
    matches!(
        result.member::<Value>("resultType"),
        Ok(Some(Value::String(kind))) if kind == mcpdisco_protocol::types::TaskResultType::TASK
    )
}

/// The attributes of a session's duration: its protocol version and network.
#[cfg(feature = "otel")]
fn state_attributes(connection: &Connection) -> Vec<opentelemetry::KeyValue> {
    use crate::telemetry::names;
    let mut attributes = vec![opentelemetry::KeyValue::new(
        names::MCP_PROTOCOL_VERSION,
        connection.state.read().protocol_version.as_str().to_owned(),
    )];
    match connection.engine.transport_info().peer() {
        mcpdisco_transport::Peer::Pipe => {
            attributes.push(opentelemetry::KeyValue::new(
                names::NETWORK_TRANSPORT,
                "pipe",
            ));
        }
        mcpdisco_transport::Peer::Tcp { .. } => {
            attributes.push(opentelemetry::KeyValue::new(
                names::NETWORK_TRANSPORT,
                "tcp",
            ));
        }
        mcpdisco_transport::Peer::Unknown => {}
    }
    attributes
}

/// The timer of a session's `mcp.client.session.duration`, with telemetry,
/// counted from `opened` (before the handshake).
#[cfg(feature = "otel")]
fn session_duration(
    connection: &Connection,
    attributes: &[opentelemetry::KeyValue],
    opened: std::time::Instant,
) -> Option<crate::telemetry::SessionDuration> {
    let telemetry = connection.options.stack.telemetry_handle()?;
    Some(
        crate::telemetry::SessionDuration::start(
            telemetry,
            crate::telemetry::Side::Client,
            attributes.to_vec(),
        )
        .since(opened),
    )
}

/// A modern `subscriptions/listen` stream.
pub struct Subscription {
    engine: Arc<Engine>,
    id: RequestId,
    receiver: mpsc::UnboundedReceiver<ServerNotification>,
}

impl Subscription {
    /// The subscription id (the listen request's id).
    pub fn id(&self) -> &RequestId {
        &self.id
    }

    /// The next notification of this subscription; `None` once the connection is gone.
    pub async fn next(&mut self) -> Option<ServerNotification> {
        self.receiver.recv().await
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.engine.remove_subscription(&self.id);
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let engine = Arc::clone(&self.engine);
            let id = self.id.clone();
            runtime.spawn(async move { engine.send_cancel(&id, "subscription dropped").await });
        }
    }
}

#[cfg(test)]
mod tests;
