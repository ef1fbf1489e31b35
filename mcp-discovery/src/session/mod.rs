//! The MCP client session: speaks MCP over any [`Transport`], in either era.
//!
//! [`Session::connect`] detects the era (a `server/discover` probe, falling
//! back to the legacy `initialize` handshake) unless it is pinned, and then
//! offers typed calls. Many requests can be in flight at once; each has a
//! timeout, and a timed-out or dropped request is cancelled on the server.
//!
//! ```no_run
//! # async fn demo(transport: mcp_transport::memory::MemoryTransport) -> Result<(), mcp_discovery::session::SessionError> {
//! use mcp_discovery::session::{ListKind, Session, SessionOptions};
//! let session = Session::connect("demo", transport, SessionOptions::default()).await?;
//! let tools = session.list_all(ListKind::Tools).await?;
//! println!("{} speaks {} and has {} tools", session.name(), session.protocol_version(), tools.len());
//! session.close().await?;
//! # Ok(()) }
//! ```

mod engine;
mod error;
mod handler;
mod handshake;
mod list;
mod notification;
mod options;

use std::collections::HashSet;
use std::sync::Arc;

use parking_lot::RwLock;

use mcp_protocol::method::RequestMethod;
use mcp_protocol::version::{Era, ProtocolVersion};
use mcp_protocol::{RawJson, RequestId};
use mcp_transport::{Transport, TransportError};
use serde_json::{Map, Value, json};
use tokio::sync::{broadcast, mpsc};

pub use error::{ErrorKind, SessionError};
pub use handler::{ClientHandler, NoHandler, apply_elicitation_defaults};
pub use handshake::ServerState;
pub use list::{CompleteList, ListKind, ListPage};
pub use notification::{Progress, ServerNotification};
pub use options::{EraPreference, RequestOptions, SessionOptions};

use engine::Engine;

/// A connected MCP session. Cheap to clone; clones share the connection.
#[derive(Clone)]
pub struct Session {
    inner: Arc<Inner>,
}

struct Inner {
    engine: Arc<Engine>,
    reader: tokio::task::JoinHandle<()>,
    options: SessionOptions,
    state: RwLock<ServerState>,
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
    pub async fn connect_shared(
        name: &str,
        transport: Arc<dyn Transport>,
        options: SessionOptions,
    ) -> Result<Self, SessionError> {
        let (engine, reader) = Engine::start(
            name,
            transport,
            Arc::clone(&options.handler),
            options.capabilities.clone(),
            options.masker.clone(),
        );
        match handshake::handshake(&engine, &options).await {
            Ok(state) => {
                let state = state.masked(&options.masker);
                tracing::debug!(server = name, era = ?state.era, version = %state.protocol_version, "connected");
                Ok(Self {
                    inner: Arc::new(Inner {
                        engine,
                        reader,
                        options,
                        state: RwLock::new(state),
                    }),
                })
            }
            Err(error) => {
                let _ = engine.close().await;
                reader.abort();
                Err(error.masked(&options.masker))
            }
        }
    }

    /// The server's name.
    pub fn name(&self) -> &str {
        self.inner.engine.server()
    }

    /// What the server said about itself when we connected.
    pub fn state(&self) -> ServerState {
        self.inner.state.read().clone()
    }

    /// The era in use.
    pub fn era(&self) -> Era {
        self.read_state(|state| state.era)
    }

    /// The protocol version in use.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.read_state(|state| state.protocol_version)
    }

    /// Reads part of the state without cloning the rest (on every request).
    fn read_state<T>(&self, read: impl FnOnce(&ServerState) -> T) -> T {
        read(&self.inner.state.read())
    }

    /// The server's `serverInfo`.
    pub fn server_info(&self) -> Value {
        self.state().server_info
    }

    /// The server's capabilities.
    pub fn capabilities(&self) -> Value {
        self.state().capabilities
    }

    /// The server's instructions.
    pub fn instructions(&self) -> Option<String> {
        self.state().instructions
    }

    /// Whether the server advertised a capability (`tools`, `resources`, `prompts`, `logging`, ...).
    pub fn has_capability(&self, name: &str) -> bool {
        self.capabilities()
            .get(name)
            .is_some_and(|value| !value.is_null())
    }

    /// Notifications from the server: list changes, resource updates, logs, stray progress.
    pub fn notifications(&self) -> broadcast::Receiver<ServerNotification> {
        self.inner.engine.subscribe()
    }

    /// Sends a request with raw JSON params and returns the result exactly as
    /// the server sent it, unparsed ([`RawJson::decode`] reads it), but for
    /// known secrets, which the session's masker replaces (in the result and
    /// in an error alike).
    ///
    /// In the modern era the per-request `_meta` is added and `input_required`
    /// rounds are fulfilled through the handler. Over HTTP, an expired legacy
    /// session is re-initialized once and the request retried.
    pub async fn request_raw(
        &self,
        method: &str,
        params: Option<Value>,
        options: RequestOptions,
    ) -> Result<RawJson, SessionError> {
        let masker = &self.inner.options.masker;
        match self.request_unmasked(method, params, options).await {
            Ok(result) => Ok(masker.mask_json(&result)),
            Err(error) => Err(error.masked(masker)),
        }
    }

    async fn request_unmasked(
        &self,
        method: &str,
        params: Option<Value>,
        options: RequestOptions,
    ) -> Result<RawJson, SessionError> {
        match self.request_rounds(method, params.clone(), &options).await {
            Err(error) if is_session_expired(&error) && self.era() == Era::Legacy => {
                tracing::info!(server = %self.name(), "HTTP session expired; initializing again");
                let state = handshake::initialize(&self.inner.engine, &self.inner.options)
                    .await?
                    .masked(&self.inner.options.masker);
                *self.inner.state.write() = state;
                self.request_rounds(method, params, &options).await
            }
            other => other,
        }
    }

    async fn request_rounds(
        &self,
        method: &str,
        params: Option<Value>,
        options: &RequestOptions,
    ) -> Result<RawJson, SessionError> {
        let (era, protocol_version) = self.read_state(|state| (state.era, state.protocol_version));
        let engine = &self.inner.engine;
        let opts = &self.inner.options;
        if era == Era::Legacy {
            return engine
                .request(
                    method,
                    params,
                    options,
                    opts.request_timeout,
                    opts.max_request_timeout,
                )
                .await;
        }
        let meta = handshake::modern_meta(opts, protocol_version);
        let original = params.unwrap_or_else(|| Value::Object(Map::new()));
        let mut params = original.clone();
        for round in 0..=opts.max_input_rounds {
            let result = engine
                .request(
                    method,
                    handshake::with_meta(Some(params), &meta),
                    options,
                    opts.request_timeout,
                    opts.max_request_timeout,
                )
                .await?;
            match mcp_protocol::meta::ResultType::of(&result) {
                Ok(mcp_protocol::meta::ResultType::Complete) => return Ok(result),
                Ok(mcp_protocol::meta::ResultType::InputRequired) => {
                    if round == opts.max_input_rounds {
                        return Err(self.violation(
                            method,
                            format!("still input_required after {round} rounds"),
                        ));
                    }
                    let result = result
                        .to_value()
                        .map_err(|e| self.violation(method, format!("unreadable result: {e}")))?;
                    params = self.fulfil_input(method, &original, &result).await?;
                }
                Err(error) => return Err(self.violation(method, error.to_string())),
            }
        }
        Err(self.violation(method, "too many input_required rounds".into()))
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
                let input_params = request.get("params").cloned().unwrap_or_else(|| json!({}));
                let answer = handler::answer(
                    self.inner.options.handler.as_ref(),
                    &self.inner.options.capabilities,
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

    fn violation(&self, method: &str, reason: String) -> SessionError {
        SessionError::new(self.name(), method, ErrorKind::ProtocolViolation { reason })
    }

    /// Sends a typed request: the method type pairs the name with its params and result.
    pub async fn request<M: RequestMethod>(
        &self,
        params: M::Params,
        options: RequestOptions,
    ) -> Result<M::Result, SessionError> {
        let params = serde_json::to_value(params)
            .map_err(|e| self.violation(M::METHOD, format!("cannot encode params: {e}")))?;
        let params = match params {
            Value::Null => None,
            other => Some(other),
        };
        let result = self.request_raw(M::METHOD, params, options).await?;
        result
            .decode()
            .map_err(|e| self.violation(M::METHOD, format!("malformed result: {e}")))
    }

    /// Sends a request and reads its (small) result as a JSON value.
    async fn request_value(&self, method: &str, params: Value) -> Result<Value, SessionError> {
        self.request_raw(method, Some(params), RequestOptions::default())
            .await?
            .to_value()
            .map_err(|e| self.violation(method, format!("unreadable result: {e}")))
    }

    /// `ping` (legacy); in the modern era, where ping is gone, `server/discover` serves as a liveness check.
    pub async fn ping(&self) -> Result<(), SessionError> {
        let method = match self.era() {
            Era::Legacy => "ping",
            Era::Modern => "server/discover",
        };
        self.request_raw(method, None, RequestOptions::default())
            .await
            .map(drop)
    }

    /// One page of a list.
    pub async fn list(
        &self,
        kind: ListKind,
        cursor: Option<&str>,
    ) -> Result<ListPage, SessionError> {
        let params = cursor.map(|cursor| json!({ "cursor": cursor }));
        let result = self
            .request_raw(kind.method(), params, RequestOptions::default())
            .await?;
        ListPage::from_result(kind, &result).ok_or_else(|| {
            self.violation(
                kind.method(),
                format!("result has no \"{}\" array", kind.items_key()),
            )
        })
    }

    /// Every page of a list, following cursors up to the page cap; a repeated cursor is an error.
    pub async fn list_all(&self, kind: ListKind) -> Result<Vec<RawJson>, SessionError> {
        self.list_complete(kind).await.map(|list| list.items)
    }

    /// Like [`list_all`](Self::list_all), also telling how many pages it took
    /// and the smallest `ttlMs` any page carried.
    pub async fn list_complete(&self, kind: ListKind) -> Result<CompleteList, SessionError> {
        let mut list = CompleteList::default();
        let mut seen = HashSet::new();
        let mut cursor: Option<String> = None;
        for _ in 0..self.inner.options.page_cap {
            let page = self.list(kind, cursor.as_deref()).await?;
            list.items.extend(page.items);
            list.pages += 1;
            list.ttl_ms = match (list.ttl_ms, page.ttl_ms) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            match page.next_cursor {
                None => return Ok(list),
                Some(next) => {
                    if !seen.insert(next.clone()) {
                        return Err(self.violation(
                            kind.method(),
                            format!("the server repeated cursor {next:?}"),
                        ));
                    }
                    cursor = Some(next);
                }
            }
        }
        Err(self.violation(
            kind.method(),
            format!("more than {} pages", self.inner.options.page_cap),
        ))
    }

    /// `tools/call`: the raw result (`content`, `structuredContent`, `isError`).
    pub async fn call_tool(&self, name: &str, arguments: Value) -> Result<Value, SessionError> {
        self.request_value("tools/call", json!({"name": name, "arguments": arguments}))
            .await
    }

    /// `resources/read`.
    pub async fn read_resource(&self, uri: &str) -> Result<Value, SessionError> {
        self.request_value("resources/read", json!({ "uri": uri }))
            .await
    }

    /// `prompts/get`.
    pub async fn get_prompt(&self, name: &str, arguments: Value) -> Result<Value, SessionError> {
        self.request_value("prompts/get", json!({"name": name, "arguments": arguments}))
            .await
    }

    /// `completion/complete` for a reference (`ref/prompt` or `ref/resource`) and an argument.
    pub async fn complete(
        &self,
        reference: Value,
        argument_name: &str,
        argument_value: &str,
    ) -> Result<Value, SessionError> {
        self.request_value(
            "completion/complete",
            json!({
                "ref": reference,
                "argument": {"name": argument_name, "value": argument_value},
            }),
        )
        .await
    }

    /// `logging/setLevel` (legacy only: the modern era sets the level per request).
    pub async fn set_log_level(&self, level: &str) -> Result<(), SessionError> {
        if self.era() == Era::Modern {
            return Err(SessionError::new(
                self.name(),
                "logging/setLevel",
                ErrorKind::Unsupported {
                    reason: "2026-07-28 has no logging/setLevel; set SessionOptions::log_level"
                        .into(),
                },
            ));
        }
        self.request_raw(
            "logging/setLevel",
            Some(json!({ "level": level })),
            RequestOptions::default(),
        )
        .await
        .map(drop)
    }

    /// `resources/subscribe` (legacy).
    pub async fn subscribe_resource(&self, uri: &str) -> Result<(), SessionError> {
        self.request_raw(
            "resources/subscribe",
            Some(json!({ "uri": uri })),
            RequestOptions::default(),
        )
        .await
        .map(drop)
    }

    /// Modern `subscriptions/listen`: notifications for this filter (such as
    /// `{"toolsListChanged": true}`) arrive on the returned subscription, demultiplexed
    /// by subscription id. Dropping it cancels the listen request.
    pub async fn listen(&self, filter: Value) -> Result<Subscription, SessionError> {
        const METHOD: &str = "subscriptions/listen";
        let state = self.state();
        if state.era != Era::Modern {
            return Err(SessionError::new(
                self.name(),
                METHOD,
                ErrorKind::Unsupported {
                    reason: "subscriptions/listen needs the modern era; legacy notifications arrive on notifications()".into(),
                },
            ));
        }
        let engine = &self.inner.engine;
        let id = engine.next_id();
        let receiver = engine.add_subscription(id.clone());
        let meta = handshake::modern_meta(&self.inner.options, state.protocol_version);
        let params = handshake::with_meta(Some(json!({ "notifications": filter })), &meta);
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
        let result = self.inner.engine.close().await;
        self.inner.reader.abort();
        result
    }
}

fn is_session_expired(error: &SessionError) -> bool {
    matches!(
        error.kind(),
        ErrorKind::Transport(TransportError::SessionExpired { .. })
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
