//! The seam every policy wraps: a request on its way to a server
//! ([`McpRequest`], with its [`RequestOptions`]) and a session's requests as
//! one [`tower::Service`] ([`RequestService`]), from a request to the raw
//! result. Policies (retry, rate limit, authorization, trace, yours) are
//! `tower::Layer`s over it, in the order a
//! [`LayerStack`](crate::policy::LayerStack) states; the session's core is
//! its innermost service.

use std::borrow::Cow;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use mcpdisco_protocol::method::{RequestKind, RequestMethod};
use mcpdisco_protocol::types::Task;
#[cfg(feature = "otel")]
use mcpdisco_protocol::version::{Era, ProtocolVersion};
use mcpdisco_protocol::{RawJson, RequestId};
#[cfg(feature = "otel")]
use mcpdisco_transport::Peer;
use serde_json::Value;
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;
use tower::Service;

use crate::error::SessionError;
use crate::notification::Progress;

/// One request on its way to the server.
#[derive(Debug, Clone)]
pub struct McpRequest {
    /// The method, such as `tools/list`.
    pub method: Cow<'static, str>,
    /// The params as they will be sent, `_meta` included (the session adds
    /// the modern envelope before the request enters the stack).
    pub params: Option<RawJson>,
    /// Timeout, progress, deadline.
    pub options: RequestOptions,
    /// Whether sending it twice has the effect of sending it once; a request
    /// that may have run is sent again only if it is.
    pub idempotent: bool,
    /// Part of the handshake, a page of a listing, or an operation of its
    /// own: the rate limit charges a whole discovery once, not each page.
    pub kind: RequestKind,
}

impl McpRequest {
    /// A request of typed method `M` (its name and idempotency from the type).
    /// An empty params object is left out.
    pub fn typed<M: RequestMethod>(
        params: &M::Params,
        options: RequestOptions,
    ) -> Result<Self, serde_json::Error> {
        Ok(Self::encoded::<M>(RawJson::encode(params)?, options))
    }

    /// A request of typed method `M` whose params are already written
    /// (`M::Params` as JSON: a relay passing on what it was sent, written
    /// with [`ObjectWriter`](mcpdisco_protocol::raw::ObjectWriter)). An
    /// empty params object is left out.
    pub fn encoded<M: RequestMethod>(params: RawJson, options: RequestOptions) -> Self {
        let params = (!matches!(params.as_str(), "{}" | "null")).then_some(params);
        Self {
            method: Cow::Borrowed(M::METHOD),
            params,
            options,
            idempotent: M::IDEMPOTENT,
            kind: M::KIND,
        }
    }

    /// A request of a method the protocol crate has no type for (a vendor
    /// extension, say); its idempotency comes from the method name
    /// ([`mcpdisco_protocol::methods::is_idempotent`]: unknown methods are not).
    pub fn untyped(
        method: impl Into<String>,
        params: Option<RawJson>,
        options: RequestOptions,
    ) -> Self {
        let method: String = method.into();
        let idempotent = mcpdisco_protocol::methods::is_idempotent(&method);
        let kind = mcpdisco_protocol::methods::kind_of(&method);
        Self {
            method: Cow::Owned(method),
            params,
            options,
            idempotent,
            kind,
        }
    }
}

/// The boxed future of a request service.
pub type ResponseFuture = Pin<Box<dyn Future<Output = Result<RawJson, SessionError>> + Send>>;

/// A session's request path: what every policy layer wraps and returns. A
/// `tower::Service` that is cheap to clone (one `Arc`, no allocation), so a
/// request costs no more than the layers it passes through.
///
/// Services put in it must be ready at once (`poll_ready` is not awaited
/// when the inner future is already a [`ResponseFuture`], see
/// [`from_ready`](Self::from_ready)); [`new`](Self::new) accepts any service
/// and waits for it to be ready before each call.
#[derive(Clone)]
pub struct RequestService {
    call: Arc<dyn Fn(McpRequest) -> ResponseFuture + Send + Sync>,
}

impl std::fmt::Debug for RequestService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestService").finish_non_exhaustive()
    }
}

impl RequestService {
    /// Erases any service: each call clones it, waits until it is ready, and calls it.
    pub fn new<S>(service: S) -> Self
    where
        S: Service<McpRequest, Response = RawJson, Error = SessionError>
            + Clone
            + Send
            + Sync
            + 'static,
        S::Future: Send + 'static,
    {
        Self {
            call: Arc::new(move |request| {
                let mut service = service.clone();
                Box::pin(async move {
                    std::future::poll_fn(|cx| service.poll_ready(cx)).await?;
                    service.call(request).await
                })
            }),
        }
    }

    /// Erases a service that is always ready and already returns boxed
    /// futures (every layer of this crate): each call clones it and calls
    /// it, with no further allocation.
    pub fn from_ready<S>(service: S) -> Self
    where
        S: Service<McpRequest, Response = RawJson, Error = SessionError, Future = ResponseFuture>
            + Clone
            + Send
            + Sync
            + 'static,
    {
        Self {
            call: Arc::new(move |request| service.clone().call(request)),
        }
    }
}

impl RequestService {
    /// A service from a function returning boxed futures (a policy written
    /// as an `async fn` over the inner service).
    pub fn from_fn<F>(call: F) -> Self
    where
        F: Fn(McpRequest) -> ResponseFuture + Send + Sync + 'static,
    {
        Self {
            call: Arc::new(call),
        }
    }
}

impl Service<McpRequest> for RequestService {
    type Response = RawJson;
    type Error = SessionError;
    type Future = ResponseFuture;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), SessionError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: McpRequest) -> ResponseFuture {
        (self.call)(request)
    }
}

/// What the layers of a session's request path may read about the session
/// as a request starts (telemetry's attributes). The session implements it.
#[cfg(feature = "otel")]
pub(crate) trait SessionFacts: Send + Sync {
    /// The era and protocol version, once the handshake is over.
    fn settled(&self) -> Option<(Era, ProtocolVersion)>;
    /// Where the messages go.
    fn peer(&self) -> Peer;
    /// The HTTP session id the server issued, if any.
    fn http_session_id(&self) -> Option<String>;
}

/// Options for one request: [`RequestOptions::new()`] (the session's
/// defaults), then a setter per field:
///
/// ```
/// use std::time::Duration;
/// use mcpdisco_client::request::RequestOptions;
///
/// let options = RequestOptions::new().timeout(Duration::from_secs(5));
/// assert_eq!(options.timeout, Some(Duration::from_secs(5)));
/// ```
///
/// New fields may be added, so the struct cannot be built as a literal
/// outside this crate.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct RequestOptions {
    /// Overrides the session's request timeout.
    pub timeout: Option<Duration>,
    /// Receives `notifications/progress` for this request; a progress token is attached.
    pub progress: Option<mpsc::UnboundedSender<Progress>>,
    /// Whether each progress notification restarts the timeout (up to the hard maximum).
    pub progress_extends_timeout: bool,
    /// No retry of this request starts at or past this instant.
    pub deadline: Option<Instant>,
    /// Receives the JSON-RPC id the request is sent with (telemetry's
    /// `jsonrpc.request.id`): the last one, when it is sent more than once.
    pub sent_id: Option<SentId>,
    /// `_meta` entries of this request that win over the session's modern
    /// envelope (a gateway passes on the capabilities its own client declared).
    pub meta: Option<serde_json::Map<String, Value>>,
    /// Whether a modern `input_required` result is answered as it came, for
    /// the caller to relay to its own client, instead of its questions being
    /// answered through the session's handler.
    pub relay_input_required: bool,
    /// The answers to an earlier `input_required` round of this request,
    /// sent with it (a relayed client's retry).
    pub input_retry: Option<InputRetry>,
    /// Whether a `tools/call` asks to run as a task (extension
    /// `io.modelcontextprotocol/tasks`, declared for this request) where
    /// the server offers the extension. [`Session::call_tool`](crate::session::Session::call_tool)
    /// follows the task to its end; the timeout is the whole task's.
    pub task: bool,
    /// Receives each status a followed task shows (the last one stays).
    pub task_status: Option<watch::Sender<Option<Task>>>,
}

/// A modern request's answers to the questions of its last
/// `input_required` round: `inputResponses` and the `requestState` it came with.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct InputRetry {
    /// `inputResponses`: each question's key, to its answer.
    pub responses: serde_json::Map<String, Value>,
    /// `requestState`, as the server sent it.
    pub request_state: Option<String>,
}

/// Where a session writes the JSON-RPC id it sends a request with (see
/// [`RequestOptions::sent_id`]). Cheap to clone; clones share the id.
#[derive(Debug, Clone, Default)]
pub struct SentId(Arc<mcpdisco_transport::sync::Mutex<Option<RequestId>>>);

impl SentId {
    /// An empty slot.
    pub fn new() -> Self {
        Self::default()
    }

    /// The id written last, if any.
    pub fn get(&self) -> Option<RequestId> {
        self.0.lock().clone()
    }

    /// Writes `id` (the session does, as it sends the request).
    pub fn set(&self, id: RequestId) {
        *self.0.lock() = Some(id);
    }
}

impl RequestOptions {
    /// The session's defaults: its timeout, no progress, no deadline of its own.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets [`timeout`](Self::timeout): this request's, instead of the session's.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Sets [`progress`](Self::progress): `notifications/progress` of this
    /// request go to `sender`, and each restarts the timeout (up to the
    /// session's hard maximum; see
    /// [`progress_extends_timeout`](Self::progress_extends_timeout)).
    pub fn progress(mut self, sender: mpsc::UnboundedSender<Progress>) -> Self {
        self.progress = Some(sender);
        self.progress_extends_timeout = true;
        self
    }

    /// Sets [`progress_extends_timeout`](Self::progress_extends_timeout).
    pub fn progress_extends_timeout(mut self, extends: bool) -> Self {
        self.progress_extends_timeout = extends;
        self
    }

    /// Sets [`deadline`](Self::deadline): no retry of this request starts past it.
    pub fn deadline(mut self, deadline: Instant) -> Self {
        self.deadline = Some(deadline);
        self
    }

    /// Sets [`sent_id`](Self::sent_id): where the JSON-RPC id it is sent with is written.
    pub fn sent_id(mut self, sent_id: SentId) -> Self {
        self.sent_id = Some(sent_id);
        self
    }

    /// Sets [`meta`](Self::meta): `_meta` entries that win over the session's.
    pub fn meta(mut self, meta: serde_json::Map<String, Value>) -> Self {
        self.meta = Some(meta);
        self
    }

    /// Sets [`relay_input_required`](Self::relay_input_required).
    pub fn relay_input_required(mut self, relay: bool) -> Self {
        self.relay_input_required = relay;
        self
    }

    /// Sets [`task`](Self::task): the call asks to run as a task.
    pub fn task(mut self, task: bool) -> Self {
        self.task = task;
        self
    }

    /// Sets [`task_status`](Self::task_status): a followed task's statuses go to `sender`.
    pub fn task_status(mut self, sender: watch::Sender<Option<Task>>) -> Self {
        self.task_status = Some(sender);
        self
    }

    /// Sets [`input_retry`](Self::input_retry): the answers to an earlier round.
    pub fn input_retry(mut self, retry: InputRetry) -> Self {
        self.input_retry = Some(retry);
        self
    }
}
