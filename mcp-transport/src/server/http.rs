//! Streamable HTTP, server side, for both eras, as axum routes.
//!
//! Each connection the router accepts is a [`Transport`] (seen from the
//! server): a legacy session begins with `initialize` and lives until its
//! `DELETE`; a modern request that comes without a session id is a
//! connection of its own, which ends with its answer.
//!
//! - A request's POST is answered with JSON when its answer is the first
//!   thing the server sends for it, and with an event stream otherwise
//!   (progress first, or a request to the client), which ends with the
//!   answer.
//! - Log messages go with the newest open request; other server messages
//!   (list changes, requests to the client with no request of the client
//!   open) go on the session's GET stream, or wait for it (bounded).
//! - A notification or an answer from the client gets 202.
//! - With `max_streams`, one more SSE stream than that (a GET stream, or a
//!   POST whose answer must stream, whose request is then cancelled) gets
//!   503 with `Retry-After`.
//! - `Origin` must be a loopback origin when present (DNS rebinding); with a
//!   token, every request must carry `Authorization: Bearer <token>`.
//! - A legacy session's id is sealed ([`session_seal`]): it carries the
//!   handshake, the route and the subject, so any server holding the key
//!   opens it and resumes the session with no lookup
//!   ([`Transport::resumed_handshake`]). The table of live connections is
//!   a bounded cache (`session_table`); a held session's id is not opened
//!   again while its subject, the keys and its age still hold
//!   (`held_session`). An id refused for any reason is answered as an
//!   unknown session (404), with one log line saying why.
//! - With a [`session_relay`] (a store shared by a fleet), a `DELETE` ends
//!   the session on every server, and a session's messages reach its GET
//!   stream whichever server holds it.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use async_trait::async_trait;
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{DefaultBodyLimit, Extension, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use mcpdisco_protocol::meta::{SUBSCRIPTION_ID_KEY, TRACEPARENT_KEY, TRACESTATE_KEY, TraceContext};
use mcpdisco_protocol::method::{NotificationMethod, RequestMethod};
use mcpdisco_protocol::methods::{Cancelled, Initialize, LoggingMessage};
use mcpdisco_protocol::schema::{Schema, X_MCP_HEADER};
use mcpdisco_protocol::types::CancelledParams;
use mcpdisco_protocol::{
    ErrorCode, ErrorObject, ErrorResponse, JsonView, Message, Notification, RequestId,
};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};

use crate::error::TransportError;
use crate::inbound::Inbound;
use crate::secret::{ExposeSecret, SecretString};
use crate::sync::Mutex;
use crate::transport::{ResumedHandshake, Transport};
use held_session::OpenedWith;
use session_relay::{Doorway, SessionDoor, SessionKey, SessionRelay};
use session_seal::{SessionClaims, SessionKeyRing, SessionKeys, SessionRefusal};
use session_table::SessionTable;
pub use subject::Subject;

mod held_session;
#[cfg(test)]
mod held_session_tests;
mod listen;
mod modern_checks;
mod poll_again;
pub mod session_relay;
pub mod session_seal;
mod session_table;
#[cfg(test)]
mod stream_cap_tests;
mod subject;

/// `Mcp-Session-Id`.
const SESSION_HEADER: &str = "mcp-session-id";
/// Messages that wait for a GET stream before the oldest are dropped.
const BACKLOG: usize = 256;
/// Messages queued for one open response stream.
const STREAM_QUEUE: usize = 256;
/// Messages from clients queued for the server, per connection.
const INBOUND_QUEUE: usize = 256;
/// How long open requests get to finish when the server shuts down.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);
/// The longest a POST waits for its answer.
const ANSWER_WAIT: Duration = Duration::from_secs(600);
/// `Retry-After` (seconds) of a stream refused at `max_streams`.
const STREAMS_RETRY_AFTER: &str = "1";

/// How the HTTP server behaves: [`HttpServerOptions::default()`] (named
/// `mcp`, no token, bodies up to 4 MiB), then a setter per field. New
/// fields may be added, so the struct cannot be built as a literal outside
/// this crate.
#[derive(Clone)]
#[non_exhaustive]
pub struct HttpServerOptions {
    /// The server's name, for logs.
    pub name: String,
    /// The bearer token clients must send, if any.
    pub token: Option<SecretString>,
    /// The largest request body accepted.
    pub max_body: usize,
    /// The `x-mcp-header` arguments of each tool, whose `Mcp-Param-*`
    /// headers modern `tools/call` POSTs are checked against (SEP-2243);
    /// `None` checks none.
    pub param_headers: Option<ToolParamHeaders>,
    /// The most SSE streams (GET streams and streamed POST answers) open
    /// at once; one more is answered 503 with `Retry-After`. `None`: no cap.
    pub max_streams: Option<usize>,
    /// The keys legacy session ids are sealed with and opened by
    /// ([`session_seal`]); one random key of this process by default.
    pub session_keys: SessionKeyRing,
    /// The oldest a session id may be; 24 hours by default.
    pub session_max_age: Duration,
    /// The route sessions are bound to (`/mcp`, `/profiles/<name>/mcp`):
    /// an id opened on another route is refused. `/mcp` by default.
    pub route: String,
    /// The store a fleet of servers shares legacy sessions through
    /// ([`session_relay`]); `None` (the default): each server's own.
    pub session_relay: Option<Arc<dyn SessionRelay>>,
}

/// One tool argument that clients repeat in a `Mcp-Param-<header>` header
/// (SEP-2243): where it sits in the arguments, and the header's name part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamHeaderRule {
    /// The argument's path in the arguments object.
    pub path: Vec<String>,
    /// The header's name after `Mcp-Param-`.
    pub header: String,
}

impl ParamHeaderRule {
    /// The rules of a tool's `inputSchema`: each top-level property that
    /// names an `x-mcp-header`.
    pub fn of_schema(input_schema: &serde_json::Value) -> Vec<Self> {
        Schema::new(input_schema)
            .properties()
            .filter_map(|(argument, property)| {
                let header = property.keyword(X_MCP_HEADER)?.as_str()?;
                Some(Self {
                    path: vec![argument.to_owned()],
                    header: header.to_owned(),
                })
            })
            .collect()
    }
}

/// The [`ParamHeaderRule`]s of the tool named by the argument.
pub type ToolParamHeaders = Arc<dyn Fn(&str) -> Vec<ParamHeaderRule> + Send + Sync>;

impl Default for HttpServerOptions {
    fn default() -> Self {
        Self {
            name: "mcp".into(),
            token: None,
            max_body: 4 * 1024 * 1024,
            param_headers: None,
            max_streams: None,
            session_keys: SessionKeyRing::default(),
            session_max_age: Duration::from_secs(24 * 3600),
            route: "/mcp".into(),
            session_relay: None,
        }
    }
}

impl HttpServerOptions {
    /// Sets [`name`](Self::name): the server's name, for logs.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Sets [`token`](Self::token): the bearer token clients must send.
    pub fn token(mut self, token: SecretString) -> Self {
        self.token = Some(token);
        self
    }

    /// Sets [`max_body`](Self::max_body): the largest request body accepted.
    pub fn max_body(mut self, bytes: usize) -> Self {
        self.max_body = bytes;
        self
    }

    /// Sets [`param_headers`](Self::param_headers): the `x-mcp-header` rules of each tool.
    pub fn param_headers(mut self, rules: ToolParamHeaders) -> Self {
        self.param_headers = Some(rules);
        self
    }

    /// Sets [`max_streams`](Self::max_streams): the most SSE streams open at once.
    pub fn max_streams(mut self, streams: impl Into<Option<usize>>) -> Self {
        self.max_streams = streams.into();
        self
    }

    /// Sets [`session_keys`](Self::session_keys): the keys session ids are sealed with.
    pub fn session_keys(mut self, keys: SessionKeyRing) -> Self {
        self.session_keys = keys;
        self
    }

    /// Sets [`session_max_age`](Self::session_max_age): the oldest a session id may be.
    pub fn session_max_age(mut self, max_age: Duration) -> Self {
        self.session_max_age = max_age;
        self
    }

    /// Sets [`route`](Self::route): the route sessions are bound to.
    pub fn route(mut self, route: impl Into<String>) -> Self {
        self.route = route.into();
        self
    }

    /// Sets [`session_relay`](Self::session_relay): the store a fleet shares sessions through.
    pub fn session_relay(mut self, relay: impl Into<Option<Arc<dyn SessionRelay>>>) -> Self {
        self.session_relay = relay.into();
        self
    }
}

/// The connections an [`HttpServer`]'s routes accept, one at a time.
pub struct Connections {
    receiver: mpsc::Receiver<HttpConnection>,
}

impl Connections {
    /// The next connection; `None` once the routes are gone.
    pub async fn accept(&mut self) -> Option<HttpConnection> {
        self.receiver.recv().await
    }
}

/// Streamable HTTP routes at `/mcp`, and the connections they accept.
pub struct HttpServer;

impl HttpServer {
    /// The routes (`POST`, `GET`, `DELETE` at `/mcp`) and their connections.
    pub fn routes(options: HttpServerOptions) -> (Router, Connections) {
        let (accept, receiver) = mpsc::channel(64);
        let token_subject = options
            .token
            .as_ref()
            .map(|token| Subject::token(token.expose_secret()));
        let shared = Arc::new(Shared {
            max_body: options.max_body,
            streams: options
                .max_streams
                .map(|streams| Arc::new(Semaphore::new(streams.min(Semaphore::MAX_PERMITS)))),
            options,
            sessions: Mutex::new(SessionTable::new(
                session_table::MAX_SESSIONS,
                session_table::MAX_DELETED,
            )),
            accept,
            token_subject,
            streams_by_session: Mutex::new(HashMap::new()),
        });
        if let Some(relay) = &shared.options.session_relay {
            let doorway: Arc<dyn Doorway> = Arc::clone(&shared) as _;
            relay.attach(SessionDoor(Arc::downgrade(&doorway)));
        }
        let max_body = shared.max_body;
        let router = Router::new()
            .route("/mcp", post(on_post).get(on_get).delete(on_delete))
            .layer(DefaultBodyLimit::max(max_body))
            .with_state(shared);
        (router, Connections { receiver })
    }
}

impl HttpServer {
    /// Serves the routes on `listener` until `shutdown` completes, handing
    /// each accepted connection to `serve_connection` (on its own task).
    /// At shutdown, requests in progress get a few seconds to be answered;
    /// connections still open then are dropped with the routes. A failed
    /// accept is logged and the next one waited for, so this ends only
    /// with `shutdown`.
    pub async fn serve<F, Fut>(
        listener: tokio::net::TcpListener,
        options: HttpServerOptions,
        serve_connection: F,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) where
        F: Fn(HttpConnection) -> Fut + Send + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let (router, connections) = Self::routes(options);
        Self::serve_router(listener, router, connections, serve_connection, shutdown).await
    }

    /// [`serve`](Self::serve) for routes built by [`routes`](Self::routes)
    /// and then extended (more routes merged in, layers around `/mcp`).
    pub async fn serve_router<F, Fut>(
        listener: tokio::net::TcpListener,
        router: Router,
        mut connections: Connections,
        serve_connection: F,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) where
        F: Fn(HttpConnection) -> Fut + Send + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let accept = tokio::spawn(async move {
            let mut served = tokio::task::JoinSet::new();
            loop {
                tokio::select! {
                    connection = connections.accept() => match connection {
                        Some(connection) => {
                            served.spawn(serve_connection(connection));
                        }
                        None => break,
                    },
                    // Reap finished connections as they end.
                    Some(_) = served.join_next(), if !served.is_empty() => {}
                }
            }
            served.shutdown().await;
        });
        // Open event streams would hold a graceful stop forever: they get `SHUTDOWN_GRACE`.
        listen::serve(listener, router, shutdown, SHUTDOWN_GRACE).await;
        accept.abort();
        let _ = accept.await;
    }
}

struct Shared {
    options: HttpServerOptions,
    max_body: usize,
    /// A permit per open SSE stream, when they are capped.
    streams: Option<Arc<Semaphore>>,
    sessions: Mutex<SessionTable<Held>>,
    accept: mpsc::Sender<HttpConnection>,
    /// Who holds the static token, when there is one.
    token_subject: Option<Subject>,
    /// With a relay: the connections whose session's GET stream is open
    /// here, by session key (a closed or dropped one is replaced or
    /// pruned when the next opens).
    streams_by_session: Mutex<HashMap<SessionKey, std::sync::Weak<Link>>>,
}

impl Doorway for Shared {
    fn deliver(&self, session: &SessionKey, message: Message) -> bool {
        let link = self
            .streams_by_session
            .lock()
            .get(session)
            .and_then(std::sync::Weak::upgrade);
        let Some(link) = link else {
            return false;
        };
        let stream = link.get_stream.lock().clone();
        stream.is_some_and(|stream| stream.try_send(message).is_ok())
    }

    fn end(&self, session: &SessionKey) {
        self.streams_by_session.lock().remove(session);
        let held = self
            .sessions
            .lock()
            .find(|held| held.link.session.lock().as_ref() == Some(session));
        if let Some(id) = held {
            let ended = self.sessions.lock().delete(&id);
            if let Some(Some(held)) = ended {
                held.link.end();
            }
        }
    }
}

/// Why a request in a session gets no connection.
enum Refused {
    /// The id is refused (logged): answered as an unknown session, 404.
    UnknownSession,
    /// The server is shutting down: 503.
    ShuttingDown,
    /// Every held connection is in use: 503.
    TooManySessions,
}

impl IntoResponse for Refused {
    fn into_response(self) -> Response {
        match self {
            Refused::UnknownSession => refuse(StatusCode::NOT_FOUND, "unknown or expired session"),
            Refused::ShuttingDown => shutting_down(),
            Refused::TooManySessions => refuse(
                StatusCode::SERVICE_UNAVAILABLE,
                "too many sessions in use; try again later",
            ),
        }
    }
}

/// A 503 while the server shuts down.
fn shutting_down() -> Response {
    refuse(
        StatusCode::SERVICE_UNAVAILABLE,
        "the server is shutting down",
    )
}

impl Shared {
    /// A place for one more SSE stream (`Some(None)`: no cap), or `None`
    /// when every place is taken.
    fn stream_place(&self) -> Option<Option<OwnedSemaphorePermit>> {
        match &self.streams {
            None => Some(None),
            Some(streams) => Arc::clone(streams).try_acquire_owned().ok().map(Some),
        }
    }

    /// Who sends a request: the subject a layer put in its extensions (a
    /// JWT's), else the static token's holder, else nobody.
    fn subject(&self, given: Option<Extension<Subject>>) -> Subject {
        match given {
            Some(Extension(subject)) => subject,
            None => self.token_subject.unwrap_or_else(Subject::anonymous),
        }
    }

    /// The claims of session id `id` presented by `subject` now, or why it
    /// is refused (logged here; the refusal is answered 404).
    fn open_id(&self, id: &str, subject: &Subject) -> Result<SessionClaims, Refused> {
        self.open_id_with(&self.options.session_keys.keys(), id, subject)
    }

    /// [`open_id`](Self::open_id) with `keys`.
    fn open_id_with(
        &self,
        keys: &SessionKeys,
        id: &str,
        subject: &Subject,
    ) -> Result<SessionClaims, Refused> {
        let opened = keys.open(id).and_then(|claims| {
            let max_age = self.options.session_max_age;
            claims.check(&self.options.route, subject, SystemTime::now(), max_age)?;
            Ok(claims)
        });
        let opened = opened.and_then(|claims| {
            if self.sessions.lock().is_deleted(id) {
                Err(SessionRefusal::Deleted)
            } else {
                Ok(claims)
            }
        });
        opened.map_err(|refusal| {
            tracing::warn!(server = %self.options.name, reason = %refusal, "refused a session id");
            Refused::UnknownSession
        })
    }

    /// The live connection of session `id`, resumed from its sealed claims
    /// when this server holds none (another replica opened it, or its
    /// connection was dropped); `Err` is the refusal to answer. A held
    /// session is served without opening its id while what it was opened
    /// with still holds ([`OpenedWith::still_serves`]).
    async fn session(&self, id: &str, subject: &Subject) -> Result<Arc<Link>, Refused> {
        let keys = self.options.session_keys.keys();
        {
            let sessions = self.sessions.lock();
            if let Some(held) = sessions.get_ref(id) {
                let max_age = self.options.session_max_age;
                if held
                    .opened
                    .still_serves(subject, &keys, SystemTime::now(), max_age)
                    && !sessions.is_deleted(id)
                {
                    return Ok(Arc::clone(&held.link));
                }
            }
        }
        let claims = self.open_id_with(&keys, id, subject)?;
        let opened = OpenedWith::new(&claims, keys);
        if let Some(held) = self.sessions.lock().get_mut(id) {
            held.opened = opened;
            return Ok(Arc::clone(&held.link));
        }
        self.check_relay(id).await?;
        let resumed = ResumedHandshake::new(
            claims.protocol_version,
            claims.client_capabilities,
            claims.client_info,
        );
        let link = self
            .open(Some(resumed), Some(id))
            .await
            .ok_or(Refused::ShuttingDown)?;
        self.hold(id.to_owned(), link, opened)
            .ok_or(Refused::TooManySessions)
    }

    /// Refuses session `id` if the relay (when there is one) says another
    /// server deleted it; it is then remembered here as deleted.
    async fn check_relay(&self, id: &str) -> Result<(), Refused> {
        let Some(relay) = &self.options.session_relay else {
            return Ok(());
        };
        if !relay.was_deleted(&SessionKey::of(id)).await {
            return Ok(());
        }
        self.sessions.lock().delete(id);
        let reason = SessionRefusal::Deleted;
        tracing::warn!(server = %self.options.name, %reason, "refused a session id");
        Err(Refused::UnknownSession)
    }

    /// Holds `link` as session `id`'s connection (or the one already held),
    /// its id opened or sealed as `opened` says; `None` if the table is
    /// full of sessions in use (`link` then ends).
    fn hold(&self, id: String, link: Arc<Link>, opened: OpenedWith) -> Option<Arc<Link>> {
        let mut evicted = Vec::new();
        let held = Held {
            link: Arc::clone(&link),
            opened,
        };
        let held = self
            .sessions
            .lock()
            .insert(id, held, |held| held.link.is_idle(), &mut evicted);
        for dropped in evicted {
            dropped.link.end();
        }
        match held {
            Ok(Held { link: held, .. }) => {
                if !Arc::ptr_eq(&held, &link) {
                    link.end();
                }
                Some(held)
            }
            Err(session_table::Full) => {
                link.end();
                None
            }
        }
    }

    /// Seals the id of a new session for the `initialize` request `params`
    /// answered by `answer` (the version it settled on; the one asked for
    /// when the answer is not yet known), and holds `link` as its connection.
    fn issue(
        &self,
        link: &Arc<Link>,
        subject: Subject,
        params: Option<&serde_json::Value>,
        answer: Option<&Message>,
    ) -> String {
        let member = |name: &str| {
            params
                .and_then(|params| params.get(name))
                .cloned()
                .unwrap_or(serde_json::Value::Null)
        };
        let settled = match answer {
            Some(Message::Response(response)) => response
                .result
                .member::<String>("protocolVersion")
                .ok()
                .flatten(),
            _ => None,
        };
        let requested = member("protocolVersion").as_str().map(str::to_owned);
        let claims = SessionClaims {
            protocol_version: settled.or(requested).unwrap_or_default(),
            // What does not read as capabilities declares none, as a
            // resumed session would read it.
            client_capabilities: serde_json::from_value(member("capabilities")).unwrap_or_default(),
            client_info: serde_json::from_value(member("clientInfo")).ok().flatten(),
            route: self.options.route.clone(),
            subject,
            issued_at: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap_or_default()
                .as_secs(),
        };
        let keys = self.options.session_keys.keys();
        let id = keys.seal(&claims);
        link.name_session(&self.options, &id);
        let opened = OpenedWith::new(&claims, keys);
        // Full: the id still opens, and the session resumes when there is room.
        let _ = self.hold(id.clone(), Arc::clone(link), opened);
        id
    }

    /// Opens a connection (of session `id`, when it resumes one) and hands
    /// it to the server.
    async fn open(&self, resumed: Option<ResumedHandshake>, id: Option<&str>) -> Option<Arc<Link>> {
        let (inbound, receiver) = mpsc::channel(INBOUND_QUEUE);
        let link = Arc::new(Link {
            inbound: Mutex::new(Some(inbound)),
            pending: Mutex::new(Vec::new()),
            progress: Mutex::new(HashMap::new()),
            get_stream: Mutex::new(None),
            backlog: Mutex::new(VecDeque::new()),
            relay: self.options.session_relay.clone(),
            session: Mutex::new(None),
        });
        if let Some(id) = id {
            link.name_session(&self.options, id);
        }
        let connection = HttpConnection {
            name: self.options.name.clone(),
            link: Arc::clone(&link),
            receiver: tokio::sync::Mutex::new(receiver),
            resumed,
        };
        if self.accept.send(connection).await.is_err() {
            return None;
        }
        Some(link)
    }
}

/// A held session: its connection, and what its id was opened with.
#[derive(Clone)]
struct Held {
    link: Arc<Link>,
    opened: OpenedWith,
}

/// What a connection shares with the routes.
struct Link {
    /// Client → server; `None` once the connection ended.
    inbound: Mutex<Option<mpsc::Sender<Message>>>,
    /// Open POSTs waiting for their answers, oldest first.
    pending: Mutex<Vec<(RequestId, mpsc::Sender<Message>)>>,
    /// Progress tokens of open requests, to the request they belong to.
    progress: Mutex<HashMap<RequestId, RequestId>>,
    /// The session's GET stream, when open.
    get_stream: Mutex<Option<mpsc::Sender<Message>>>,
    /// Server messages waiting for a GET stream.
    backlog: Mutex<VecDeque<Message>>,
    /// Where messages that find no GET stream here also go, if anywhere.
    relay: Option<Arc<dyn SessionRelay>>,
    /// Its session's key, once it has a session id (with a relay only).
    session: Mutex<Option<SessionKey>>,
}

impl Link {
    /// Names the connection's session `id` (with a relay: the id is then
    /// hashed once, here).
    fn name_session(&self, options: &HttpServerOptions, id: &str) {
        if options.session_relay.is_some() {
            *self.session.lock() = Some(SessionKey::of(id));
        }
    }

    /// Whether nothing is open on the connection: no request, no GET
    /// stream (so it may be dropped, and resumed from its id when used).
    fn is_idle(&self) -> bool {
        self.pending.lock().is_empty()
            && self
                .get_stream
                .lock()
                .as_ref()
                .is_none_or(mpsc::Sender::is_closed)
    }

    fn end(&self) {
        self.inbound.lock().take();
        self.pending.lock().clear();
        self.get_stream.lock().take();
    }

    /// Routes a server message: an answer to its POST, progress to its
    /// request's POST, anything else to the newest open POST, the GET
    /// stream, or the backlog.
    fn route(&self, message: Message) {
        let target = match &message {
            Message::Response(_) | Message::Error(_) => match message.response_id() {
                Some(id) => {
                    let mut pending = self.pending.lock();
                    let found = pending.iter().position(|(pending, _)| pending == id);
                    found.map(|at| pending.remove(at).1)
                }
                None => None,
            },
            Message::Notification(notification) => {
                let params = notification.params.as_ref();
                let token = params
                    .and_then(|p| p.get("progressToken"))
                    .and_then(|token| RequestId::from_value(token).ok());
                // A modern subscription's notifications go on its listen request's stream.
                let subscription = params
                    .and_then(|p| p.get("_meta"))
                    .and_then(|meta| meta.get(SUBSCRIPTION_ID_KEY))
                    .and_then(|id| RequestId::from_value(id).ok());
                let request = token
                    .and_then(|token| self.progress.lock().get(&token).cloned())
                    .or(subscription);
                let pending = self.pending.lock();
                match request {
                    Some(request) => pending
                        .iter()
                        .find(|(id, _)| *id == request)
                        .map(|(_, sender)| sender.clone()),
                    // A log message goes with the newest open request (a
                    // modern request has no other stream); other
                    // notifications (list changes) go on the GET stream.
                    None if notification.method == LoggingMessage::METHOD => {
                        pending.last().map(|(_, sender)| sender.clone())
                    }
                    None => None,
                }
            }
            Message::Request(_) => self.pending.lock().last().map(|(_, sender)| sender.clone()),
        };
        let message = match target {
            Some(sender) => match sender.try_send(message) {
                Ok(()) => return,
                Err(
                    mpsc::error::TrySendError::Full(message)
                    | mpsc::error::TrySendError::Closed(message),
                ) => message,
            },
            None => message,
        };
        if message.response_id().is_some() {
            // An answer whose POST is gone: nobody can receive it.
            return;
        }
        if let Some(stream) = self.get_stream.lock().as_ref()
            && stream.try_send(message.clone()).is_ok()
        {
            return;
        }
        // The session's GET stream may be open on another server of the fleet.
        if let Some(relay) = &self.relay
            && let Some(session) = self.session.lock().as_ref()
        {
            relay.forward(session, &message);
        }
        let mut backlog = self.backlog.lock();
        if backlog.len() >= BACKLOG {
            backlog.pop_front();
        }
        backlog.push_back(message);
    }
}

/// One client connection, seen from the server.
pub struct HttpConnection {
    name: String,
    link: Arc<Link>,
    receiver: tokio::sync::Mutex<mpsc::Receiver<Message>>,
    /// The handshake of the session it resumes, if it does.
    resumed: Option<ResumedHandshake>,
}

#[async_trait]
impl Transport for HttpConnection {
    async fn send(&self, message: Message) -> Result<(), TransportError> {
        self.link.route(message);
        Ok(())
    }

    async fn receive(&self) -> Result<Option<Inbound>, TransportError> {
        Ok(self
            .receiver
            .lock()
            .await
            .recv()
            .await
            .map(Inbound::Message))
    }

    async fn close(&self) -> Result<(), TransportError> {
        self.link.end();
        Ok(())
    }

    fn describe(&self) -> String {
        format!("http server connection: {}", self.name)
    }

    fn resumed_handshake(&self) -> Option<ResumedHandshake> {
        self.resumed.clone()
    }

    fn session_key(&self) -> Option<String> {
        self.link
            .session
            .lock()
            .as_ref()
            .map(|key| key.as_str().to_owned())
    }
}

fn refuse(status: StatusCode, reason: &str) -> Response {
    (status, reason.to_owned()).into_response()
}

/// Checks the token and the origin; `Some` is the refusal.
fn check(shared: &Shared, headers: &HeaderMap) -> Option<Response> {
    if let Some(token) = &shared.options.token {
        let expected = format!("Bearer {}", token.expose_secret());
        let given = headers
            .get(header::AUTHORIZATION)
            .map(HeaderValue::as_bytes)
            .unwrap_or_default();
        if !constant_time_eq(given, expected.as_bytes()) {
            let mut response = refuse(StatusCode::UNAUTHORIZED, "a bearer token is required");
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            return Some(response);
        }
    }
    if let Some(origin) = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok())
        && !is_loopback_origin(origin)
    {
        return Some(refuse(StatusCode::FORBIDDEN, "origin not allowed"));
    }
    None
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn is_loopback_origin(origin: &str) -> bool {
    url::Url::parse(origin).is_ok_and(|url| {
        matches!(
            url.host(),
            Some(url::Host::Domain("localhost"))
                | Some(url::Host::Ipv4(std::net::Ipv4Addr::LOCALHOST))
                | Some(url::Host::Ipv6(std::net::Ipv6Addr::LOCALHOST))
        )
    })
}

/// The W3C trace context of a POST's `traceparent` and `tracestate`
/// headers, when it has a `traceparent` of a sane length.
fn trace_context_of(headers: &HeaderMap) -> Option<TraceContext> {
    let text = |name: &str| {
        headers
            .get(name)
            .and_then(|value| value.to_str().ok())
            .filter(|text| text.len() <= TraceContext::MAX_LEN)
    };
    Some(TraceContext {
        traceparent: text(TRACEPARENT_KEY)?.to_owned(),
        tracestate: text(TRACESTATE_KEY).map(str::to_owned),
    })
}

fn session_of(headers: &HeaderMap) -> Option<&str> {
    headers.get(SESSION_HEADER).and_then(|v| v.to_str().ok())
}

fn error_answer(id: Option<RequestId>, code: ErrorCode, reason: &str) -> Response {
    json_response(
        StatusCode::BAD_REQUEST,
        &Message::Error(ErrorResponse {
            id,
            error: ErrorObject::new(code, reason),
        }),
        None,
    )
}

/// A legacy session being opened by its `initialize`: its id is sealed
/// once the answer is known; if none is, its connection ends.
struct NewSession {
    link: Arc<Link>,
    subject: Subject,
    /// The `initialize` params.
    params: Option<serde_json::Value>,
    issued: bool,
}

impl NewSession {
    /// The session's sealed id, for the `initialize` answered by `answer`.
    fn issue(mut self, shared: &Shared, answer: Option<&Message>) -> String {
        self.issued = true;
        shared.issue(&self.link, self.subject, self.params.as_ref(), answer)
    }
}

impl Drop for NewSession {
    fn drop(&mut self) {
        if !self.issued {
            self.link.end();
        }
    }
}

async fn on_post(
    State(shared): State<Arc<Shared>>,
    subject: Option<Extension<Subject>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if let Some(refusal) = check(&shared, &headers) {
        return refusal;
    }
    let mut message = match Message::from_slice(&body) {
        Ok(message) => message,
        Err(error) => return error_answer(None, ErrorCode::PARSE_ERROR, &error.to_string()),
    };
    if let Message::Request(request) = &mut message
        && let Some(context) = trace_context_of(&headers)
    {
        // The W3C headers, where the request's own `_meta` says nothing (SEP-414).
        request.params = context.apply_if_absent(request.params.take());
    }
    let modern = match &message {
        Message::Request(request) => {
            let rules = shared.options.param_headers.as_ref();
            match modern_checks::check(&headers, &request.method, request.params.as_ref(), rules) {
                Ok(modern) => modern,
                Err(error) => return modern_checks::refusal(Some(request.id.clone()), error),
            }
        }
        _ => false,
    };
    let is_initialize = message.method() == Some(Initialize::METHOD) && !modern;
    let subject = shared.subject(subject);
    let (link, new_session, one_shot) = match session_of(&headers) {
        Some(id) => match shared.session(id, &subject).await {
            Ok(link) => (link, None, false),
            Err(refused) => return refused.into_response(),
        },
        None if is_initialize => match shared.open(None, None).await {
            Some(link) => {
                let params = match &message {
                    Message::Request(request) => {
                        request.params.as_ref().and_then(|p| p.to_value().ok())
                    }
                    _ => None,
                };
                let new_session = NewSession {
                    link: Arc::clone(&link),
                    subject,
                    params,
                    issued: false,
                };
                (link, Some(new_session), false)
            }
            None => return shutting_down(),
        },
        None => match shared.open(None, None).await {
            Some(link) => (link, None, true),
            None => return shutting_down(),
        },
    };
    let Message::Request(request) = &message else {
        // A notification, or the client's answer to a server request.
        let inbound = link.inbound.lock().clone();
        if let Some(inbound) = inbound {
            let _ = inbound.send(message).await;
        }
        if one_shot {
            link.end();
        }
        return StatusCode::ACCEPTED.into_response();
    };
    let id = request.id.clone();
    let token = request
        .params
        .as_ref()
        .and_then(|p| JsonView::of(p).get("_meta"))
        .and_then(|m| m.get("progressToken"))
        .and_then(|t| serde_json::from_str::<RequestId>(t.text()).ok());
    let (sender, mut answers) = mpsc::channel(STREAM_QUEUE);
    link.pending.lock().push((id.clone(), sender));
    if let Some(token) = &token {
        link.progress.lock().insert(token.clone(), id.clone());
    }
    let inbound = link.inbound.lock().clone();
    let delivered = match inbound {
        Some(inbound) => inbound.send(message).await.is_ok(),
        None => false,
    };
    if !delivered {
        return refuse(StatusCode::NOT_FOUND, "the session has ended");
    }
    // Runs when the answer is out, and also when the client goes away first
    // (the stream is dropped): a one-shot connection then ends, so the
    // server stops working for nobody.
    let cleanup = Cleanup {
        link: Arc::clone(&link),
        token,
        one_shot,
    };
    let first = tokio::time::timeout(ANSWER_WAIT, answers.recv()).await;
    match first {
        Ok(Some(answer)) if answer.response_id() == Some(&id) => {
            drop(cleanup);
            let status = if modern {
                modern_checks::status_of(&answer)
            } else {
                StatusCode::OK
            };
            let session = new_session.map(|new| new.issue(&shared, Some(&answer)));
            json_response(status, &answer, session)
        }
        Ok(Some(first)) => {
            // Something before the answer: stream it all, ending with the answer.
            let Some(place) = shared.stream_place() else {
                // No place for the stream: the request is cancelled.
                cancel(&link, id).await;
                drop(cleanup);
                return streams_full();
            };
            // The place is held while the stream lives (in its state).
            let stream = futures::stream::unfold(
                (Some(first), answers, id, Some(cleanup), place),
                |(next, mut answers, id, mut cleanup, place)| async move {
                    let message = match next {
                        Some(message) => message,
                        None => match tokio::time::timeout(ANSWER_WAIT, answers.recv()).await {
                            Ok(Some(message)) => message,
                            _ => {
                                drop(cleanup.take());
                                return None;
                            }
                        },
                    };
                    let done = message.response_id() == Some(&id);
                    let event = sse_event(&message);
                    if done {
                        drop(cleanup.take());
                        // One more turn yields the event, the next ends the stream.
                        answers.close();
                    }
                    Some((
                        Ok::<Bytes, std::io::Error>(event),
                        (None, answers, id, cleanup, place),
                    ))
                },
            );
            let session = new_session.map(|new| new.issue(&shared, None));
            let mut response = Response::new(Body::from_stream(stream));
            set_event_stream(&mut response, session);
            response
        }
        Ok(None) | Err(_) => {
            drop(cleanup);
            error_answer(
                Some(id),
                ErrorCode::INTERNAL_ERROR,
                "the server gave no answer",
            )
        }
    }
}

/// Tells the server that the client's request `id` is cancelled.
async fn cancel(link: &Link, id: RequestId) {
    let params = CancelledParams::new(id, "no place for its stream (max streams)");
    let message = Message::Notification(Notification {
        method: Cancelled::METHOD.to_owned(),
        params: serde_json::to_value(params).ok(),
    });
    let inbound = link.inbound.lock().clone();
    if let Some(inbound) = inbound {
        let _ = inbound.send(message).await;
    }
}

/// 503 with `Retry-After`: every place for a stream is taken.
fn streams_full() -> Response {
    let mut response = refuse(
        StatusCode::SERVICE_UNAVAILABLE,
        "too many open streams; try again later",
    );
    response.headers_mut().insert(
        header::RETRY_AFTER,
        HeaderValue::from_static(STREAMS_RETRY_AFTER),
    );
    response
}

/// What ends with a request's POST: its progress token, and a one-shot connection.
struct Cleanup {
    link: Arc<Link>,
    token: Option<RequestId>,
    one_shot: bool,
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        if let Some(token) = &self.token {
            self.link.progress.lock().remove(token);
        }
        if self.one_shot {
            self.link.end();
        }
    }
}

fn sse_event(message: &Message) -> Bytes {
    let mut event = b"event: message\ndata: ".to_vec();
    event.extend_from_slice(&message.to_vec());
    event.extend_from_slice(b"\n\n");
    Bytes::from(event)
}

fn set_event_stream(response: &mut Response, session: Option<String>) {
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    if let Some(session) = session.and_then(|s| HeaderValue::from_str(&s).ok()) {
        headers.insert(SESSION_HEADER, session);
    }
}

pub(super) fn json_response(
    status: StatusCode,
    message: &Message,
    session: Option<String>,
) -> Response {
    let mut response = (status, message.to_vec()).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    if let Some(session) = session.and_then(|s| HeaderValue::from_str(&s).ok()) {
        headers.insert(SESSION_HEADER, session);
    }
    response
}

async fn on_get(
    State(shared): State<Arc<Shared>>,
    subject: Option<Extension<Subject>>,
    headers: HeaderMap,
) -> Response {
    if let Some(refusal) = check(&shared, &headers) {
        return refusal;
    }
    let Some(id) = session_of(&headers) else {
        return refuse(
            StatusCode::METHOD_NOT_ALLOWED,
            "a GET stream needs a session",
        );
    };
    let link = match shared.session(id, &shared.subject(subject)).await {
        Ok(link) => link,
        Err(refused) => return refused.into_response(),
    };
    let Some(place) = shared.stream_place() else {
        return streams_full();
    };
    let (sender, receiver) = mpsc::channel(STREAM_QUEUE);
    for message in link.backlog.lock().drain(..) {
        let _ = sender.try_send(message);
    }
    *link.get_stream.lock() = Some(sender);
    if let Some(session) = link.session.lock().clone() {
        let mut streams = shared.streams_by_session.lock();
        streams.retain(|_, held| {
            held.upgrade().is_some_and(|held| {
                held.get_stream
                    .lock()
                    .as_ref()
                    .is_some_and(|stream| !stream.is_closed())
            })
        });
        streams.insert(session, Arc::downgrade(&link));
    }
    // The place is held while the stream lives.
    let stream = futures::stream::unfold((receiver, place), |(mut receiver, place)| async move {
        let message = receiver.recv().await?;
        Some((
            Ok::<Bytes, std::io::Error>(sse_event(&message)),
            (receiver, place),
        ))
    });
    let mut response = Response::new(Body::from_stream(stream));
    set_event_stream(&mut response, None);
    response
}

async fn on_delete(
    State(shared): State<Arc<Shared>>,
    subject: Option<Extension<Subject>>,
    headers: HeaderMap,
) -> Response {
    if let Some(refusal) = check(&shared, &headers) {
        return refusal;
    }
    let Some(id) = session_of(&headers) else {
        return refuse(StatusCode::BAD_REQUEST, "no session to end");
    };
    let claims = match shared.open_id(id, &shared.subject(subject)) {
        Ok(claims) => claims,
        Err(refused) => return refused.into_response(),
    };
    if let Err(refused) = shared.check_relay(id).await {
        return refused.into_response();
    }
    // Ended here; the servers that share a relay end it when told.
    let deleted = shared.sessions.lock().delete(id);
    match deleted {
        Some(held) => {
            if let Some(held) = held {
                held.link.end();
            }
            if let Some(relay) = &shared.options.session_relay {
                let expires_at = UNIX_EPOCH
                    + Duration::from_secs(claims.issued_at)
                    + shared.options.session_max_age;
                relay.deleted(&SessionKey::of(id), expires_at);
            }
            StatusCode::OK.into_response()
        }
        None => {
            tracing::warn!(server = %shared.options.name, reason = %SessionRefusal::Deleted, "refused a session id");
            Refused::UnknownSession.into_response()
        }
    }
}
