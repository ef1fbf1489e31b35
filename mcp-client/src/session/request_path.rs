//! The session's core: the innermost service of its request path.
//!
//! ```text
//! Session (typed methods, the modern `_meta` envelope, input_required rounds)
//!   └─ RequestService = SessionOptions::stack, outermost first (by default
//!      retry, rate limit, your layers, authorization: policy::stack)
//!        └─ SessionCore: one JSON-RPC request over the engine; an expired
//!           legacy HTTP session is re-initialized (single-flight) and the
//!           request sent once more
//! ```
//!
//! The core is policy-free: it never waits, retries or limits on its own
//! (besides re-initializing an expired session, which is the protocol's
//! lifecycle, not a policy). The wire trace sits one level lower, at the
//! message seam ([`mcpdisco_transport::trace::TracedTransport`]), because it must
//! also see notifications and the server's own requests.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::task::{Context, Poll};

use mcpdisco_protocol::RawJson;
use mcpdisco_protocol::method::RequestMethod;
use mcpdisco_protocol::methods::Initialize;
use mcpdisco_protocol::version::Era;
use mcpdisco_transport::TransportError;
use mcpdisco_transport::sync::RwLock;
use tower::Service;

use super::engine::Engine;
use super::handshake;
use super::options::SessionOptions;
use super::server_state::ServerState;
use crate::error::{ErrorKind, SessionError};
use crate::policy::stack::{BuiltStack, SessionBinding};
use crate::request::{McpRequest, RequestService, ResponseFuture};

/// What the core and the session share about the connection.
pub(crate) struct Connection {
    pub(crate) engine: Arc<Engine>,
    pub(crate) options: SessionOptions,
    /// What the server said about itself; a placeholder until the handshake ends.
    pub(crate) state: RwLock<ServerState>,
    /// Whether the handshake ended (until then, nothing is re-initialized).
    pub(crate) established: AtomicBool,
    /// How many times the legacy session was re-initialized.
    reinitialized: AtomicU64,
    /// Held while re-initializing, so it happens once for many requests; it
    /// holds why the last attempt failed, and for which generation, so the
    /// requests that waited for it fail with it instead of trying again.
    reinitializing: tokio::sync::Mutex<Option<(u64, String)>>,
    /// No retry starts past it; moved when a session outlives its discovery.
    pub(crate) deadline: crate::policy::Deadline,
}

impl Connection {
    pub(crate) fn new(engine: Arc<Engine>, options: SessionOptions) -> Self {
        Self {
            deadline: crate::policy::Deadline::new(options.deadline),
            engine,
            options,
            state: RwLock::new(ServerState::pending()),
            established: AtomicBool::new(false),
            reinitialized: AtomicU64::new(0),
            reinitializing: tokio::sync::Mutex::new(None),
        }
    }

    /// Re-initializes an expired legacy session, once for all the requests
    /// that saw it expire: a request that was sent before someone else's
    /// re-initialization finished just tries again.
    async fn reinitialize(&self, seen: u64) -> Result<(), SessionError> {
        let mut last_failure = self.reinitializing.lock().await;
        if self.reinitialized.load(Ordering::Acquire) != seen {
            return Ok(());
        }
        if let Some((generation, reason)) = last_failure.as_ref()
            && *generation == seen
        {
            // Someone tried for this expiry and failed: fail alike, at once.
            return Err(SessionError::new(
                self.engine.server(),
                Initialize::METHOD,
                ErrorKind::ConnectionLost {
                    reason: format!("the expired session could not be renewed: {reason}"),
                },
            ));
        }
        tracing::info!(server = %self.engine.server(), "HTTP session expired; initializing again");
        match handshake::initialize_direct(&self.engine, &self.options).await {
            Ok(state) => {
                *self.state.write() = state.masked(&self.options.masker);
                self.reinitialized.fetch_add(1, Ordering::AcqRel);
                *last_failure = None;
                Ok(())
            }
            Err(error) => {
                let error = error.masked(&self.options.masker);
                *last_failure = Some((seen, error.to_string()));
                Err(error)
            }
        }
    }
}

#[cfg(feature = "otel")]
impl crate::request::SessionFacts for Connection {
    fn settled(&self) -> Option<(Era, mcpdisco_protocol::version::ProtocolVersion)> {
        if !self.established.load(Ordering::Acquire) {
            return None;
        }
        let state = self.state.read();
        Some((state.era, state.protocol_version))
    }

    fn peer(&self) -> mcpdisco_transport::Peer {
        self.engine.transport_info().peer()
    }

    fn http_session_id(&self) -> Option<String> {
        self.engine.transport_info().session_id()
    }
}

/// The innermost service: one JSON-RPC request over the engine; an expired
/// legacy HTTP session is initialized again (once for all the requests that
/// saw it expire) and the request sent once more. That is the protocol's
/// lifecycle, not a policy: the spec asks a client to start a new session
/// when its session is gone.
#[derive(Clone)]
pub(crate) struct SessionCore {
    connection: Arc<Connection>,
}

impl SessionCore {
    pub(crate) fn new(connection: Arc<Connection>) -> Self {
        Self { connection }
    }

    async fn send(self, mut request: McpRequest) -> Result<RawJson, SessionError> {
        let connection = &self.connection;
        let seen = connection.reinitialized.load(Ordering::Acquire);
        // Only a session the server issued (legacy Streamable HTTP) can
        // expire and need the request sent again: then the engine gets a
        // copy of the params; otherwise it takes them.
        let may_expire = connection.engine.transport_info().session_id().is_some();
        let params = if may_expire {
            request.params.clone()
        } else {
            request.params.take()
        };
        let result = self.once(&request, params).await;
        match result {
            Err(error)
                if may_expire
                    && is_session_expired(&error)
                    && connection.established.load(Ordering::Acquire)
                    && connection.state.read().era == Era::Legacy =>
            {
                // The rare path, boxed, so every request's future stays small.
                Box::pin(self.again_after_reinitializing(&request, seen)).await
            }
            other => other,
        }
    }

    /// Sends `request` once, with `params` (its own, or a copy).
    fn once<'a>(
        &'a self,
        request: &'a McpRequest,
        params: Option<RawJson>,
    ) -> impl Future<Output = Result<RawJson, SessionError>> + Send + 'a {
        let connection = &self.connection;
        connection.engine.request(
            &request.method,
            params,
            &request.options,
            connection.options.request_timeout,
            connection.options.max_request_timeout,
        )
    }

    async fn again_after_reinitializing(
        &self,
        request: &McpRequest,
        seen: u64,
    ) -> Result<RawJson, SessionError> {
        self.connection.reinitialize(seen).await?;
        self.once(request, request.params.clone()).await
    }
}

impl Service<McpRequest> for SessionCore {
    type Response = RawJson;
    type Error = SessionError;
    type Future = ResponseFuture;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), SessionError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        Box::pin(self.clone().send(request))
    }
}

fn is_session_expired(error: &SessionError) -> bool {
    matches!(
        error.kind(),
        ErrorKind::Transport(TransportError::SessionExpired { .. })
    )
}

/// The request path of a session: the core in the options' stack of
/// layers, and the buckets of its rate limits.
pub(crate) fn build(connection: &Arc<Connection>) -> BuiltStack {
    let options = &connection.options;
    let binding = SessionBinding {
        server: connection.engine.server().to_owned(),
        masker: options.masker.clone(),
        deadline: connection.deadline.clone(),
        #[cfg(feature = "otel")]
        facts: Some(Arc::clone(connection) as Arc<dyn crate::request::SessionFacts>),
    };
    let core = RequestService::from_ready(SessionCore::new(Arc::clone(connection)));
    options.stack.build(core, &binding)
}
