//! The Streamable HTTP client transport, for both eras.
//!
//! Each message is its own POST. Answers come back as a JSON body or as an SSE
//! stream, which a spawned task pumps into the inbound queue. Legacy sessions
//! (`Mcp-Session-Id`), the protocol version header, the GET stream and SSE
//! resumption are handled here; so are the modern `Mcp-Method`, `Mcp-Name`
//! and `Mcp-Param-*` headers, whose `x-mcp-header` annotations are learned
//! from the `tools/list` results that pass through.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::Mutex;
use std::time::Duration;

use async_trait::async_trait;
use mcp_protocol::meta::RequestMeta;
use mcp_protocol::{Message, RequestId};
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use tokio::sync::mpsc;
use tokio::task::AbortHandle;
use tokio_util::sync::CancellationToken;

use super::body::{self, SseStream};
use super::param_headers::{self, ParamHeader};
use super::{HttpClient, HttpConfig};
use crate::error::TransportError;
use crate::transport::Transport;

const SESSION_HEADER: &str = "mcp-session-id";
const VERSION_HEADER: &str = "mcp-protocol-version";
const LAST_EVENT_ID: &str = "last-event-id";
/// The wait before resuming a stream whose server named no `retry`.
const DEFAULT_RETRY: Duration = Duration::from_secs(1);
/// The longest `retry` we honour.
const MAX_RETRY: Duration = Duration::from_secs(30);
/// How long sending `notifications/initialized` waits for the GET stream to open.
const GET_STREAM_WAIT: Duration = Duration::from_secs(2);
/// How long the DELETE on close may take.
const DELETE_TIMEOUT: Duration = Duration::from_secs(5);

/// State shared by the transport and its stream tasks.
pub(crate) struct Shared {
    config: HttpConfig,
    url: url::Url,
    client: HttpClient,
    inbound: Mutex<Option<mpsc::Sender<Message>>>,
    session_id: Mutex<Option<String>>,
    legacy_version: Mutex<Option<String>>,
    initialize_id: Mutex<Option<RequestId>>,
    tool_list_ids: Mutex<HashSet<RequestId>>,
    tool_headers: Mutex<HashMap<String, Vec<ParamHeader>>>,
    tasks: Mutex<Vec<AbortHandle>>,
    closing: CancellationToken,
    get_stream_opened: AtomicBool,
    closed: AtomicBool,
}

/// A Streamable HTTP connection to one server.
pub struct StreamableHttpTransport {
    shared: Arc<Shared>,
    receiver: Option<tokio::sync::Mutex<mpsc::Receiver<Message>>>,
}

impl StreamableHttpTransport {
    /// A transport for `config.url`, using `client`'s connection pool.
    pub fn new(config: HttpConfig, client: &HttpClient) -> Result<Self, TransportError> {
        let (sender, receiver) = body::inbound_channel();
        let mut transport = Self::with_inbound(config, client, sender)?;
        transport.receiver = Some(tokio::sync::Mutex::new(receiver));
        Ok(transport)
    }

    /// A transport that delivers into someone else's inbound queue (the fallback wrapper's).
    pub(crate) fn with_inbound(
        config: HttpConfig,
        client: &HttpClient,
        inbound: mpsc::Sender<Message>,
    ) -> Result<Self, TransportError> {
        let config = config.with_own_secrets_masked();
        let url = config.parsed_url()?;
        Ok(Self {
            shared: Arc::new(Shared {
                url,
                client: client.clone(),
                inbound: Mutex::new(Some(inbound)),
                session_id: Mutex::new(None),
                legacy_version: Mutex::new(None),
                initialize_id: Mutex::new(None),
                tool_list_ids: Mutex::new(HashSet::new()),
                tool_headers: Mutex::new(HashMap::new()),
                tasks: Mutex::new(Vec::new()),
                closing: CancellationToken::new(),
                get_stream_opened: AtomicBool::new(false),
                closed: AtomicBool::new(false),
                config,
            }),
            receiver: None,
        })
    }

    /// The legacy session id the server issued, if any.
    pub fn session_id(&self) -> Option<String> {
        self.shared.session_id.lock().clone()
    }

    pub(crate) async fn send_message(&self, message: Message) -> Result<(), TransportError> {
        Shared::send(&self.shared, message).await
    }

    pub(crate) async fn close_connection(&self) -> Result<(), TransportError> {
        self.shared.close().await
    }
}

impl Drop for StreamableHttpTransport {
    fn drop(&mut self) {
        self.shared.abort_tasks();
    }
}

impl Shared {
    fn server(&self) -> &str {
        &self.config.name
    }

    fn closed_error(&self) -> TransportError {
        TransportError::Closed {
            server: self.server().to_owned(),
        }
    }

    fn abort_tasks(&self) {
        for task in self.tasks.lock().drain(..) {
            task.abort();
        }
    }

    fn spawn(self: &Arc<Self>, task: impl std::future::Future<Output = ()> + Send + 'static) {
        let handle = tokio::spawn(task);
        let mut tasks = self.tasks.lock();
        tasks.retain(|t| !t.is_finished());
        tasks.push(handle.abort_handle());
    }

    /// Headers every request carries: credentials, session id and protocol version.
    fn base_headers(&self, modern_version: Option<&str>) -> Result<HeaderMap, TransportError> {
        let mut headers = self.config.credential_headers()?;
        match modern_version {
            Some(version) => insert(&mut headers, VERSION_HEADER, version),
            None => {
                if let Some(id) = self.session_id.lock().as_deref() {
                    insert(&mut headers, SESSION_HEADER, id);
                }
                if let Some(version) = self.legacy_version.lock().as_deref() {
                    insert(&mut headers, VERSION_HEADER, version);
                }
            }
        }
        Ok(headers)
    }

    /// The modern per-message headers: `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`.
    fn modern_headers(&self, message: &Message, headers: &mut HeaderMap) {
        let Some(method) = message.method() else {
            return;
        };
        insert(headers, "mcp-method", method);
        let params = message.params();
        let field = |name: &str| params.and_then(|p| p.get(name)).and_then(|v| v.as_str());
        let name = match method {
            "tools/call" | "prompts/get" => field("name"),
            "resources/read" => field("uri"),
            _ => None,
        };
        if let Some(name) = name {
            insert(
                headers,
                "mcp-name",
                &param_headers::encode_header_value(name),
            );
        }
        if method == "tools/call"
            && let Some(tool) = field("name")
            && let Some(annotated) = self.tool_headers.lock().get(tool)
        {
            let arguments = params
                .and_then(|p| p.get("arguments"))
                .cloned()
                .unwrap_or(serde_json::Value::Null);
            for (header, value) in param_headers::param_header_values(annotated, &arguments) {
                insert(headers, &header, &value);
            }
        }
    }

    async fn send(self: &Arc<Self>, message: Message) -> Result<(), TransportError> {
        if self.closed.load(Ordering::Acquire) {
            return Err(self.closed_error());
        }
        let modern_version = message
            .params()
            .and_then(RequestMeta::protocol_version_of)
            .map(str::to_owned);
        let request_id = match &message {
            Message::Request(request) => {
                if request.method == "initialize" {
                    *self.initialize_id.lock() = Some(request.id.clone());
                    // A new handshake starts a new session.
                    self.session_id.lock().take();
                    self.legacy_version.lock().take();
                }
                if request.method == "tools/list" {
                    self.tool_list_ids.lock().insert(request.id.clone());
                }
                Some(request.id.clone())
            }
            _ => None,
        };
        let is_initialized =
            matches!(&message, Message::Notification(n) if n.method == "notifications/initialized");
        let mut headers = self.base_headers(modern_version.as_deref())?;
        if modern_version.is_some() {
            self.modern_headers(&message, &mut headers);
        }
        let sent_session = headers.contains_key(SESSION_HEADER);
        headers.insert(
            ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        let request = self
            .client
            .reqwest()
            .post(self.url.clone())
            .headers(headers)
            .body(message.to_vec());
        let timeout = self.config.request_timeout;
        let mut response = match tokio::time::timeout(timeout, request.send()).await {
            Err(_) => {
                return Err(TransportError::Timeout {
                    server: self.server().to_owned(),
                    after: timeout,
                });
            }
            Ok(Err(error)) => {
                return Err(body::request_error(&self.config, error, timeout));
            }
            Ok(Ok(response)) => response,
        };
        let status = response.status();
        if status.is_success() {
            if request_id.is_some()
                && request_id == *self.initialize_id.lock()
                && let Some(id) = response
                    .headers()
                    .get(SESSION_HEADER)
                    .and_then(|v| v.to_str().ok())
            {
                *self.session_id.lock() = Some(id.to_owned());
            }
            if body::is_event_stream(&response) {
                let shared = Arc::clone(self);
                let legacy = modern_version.is_none();
                self.spawn(
                    async move { shared.pump_post_stream(response, request_id, legacy).await },
                );
            } else {
                let bytes = tokio::time::timeout(
                    timeout,
                    body::read_bounded(self.server(), &mut response, self.config.max_message_len),
                )
                .await
                .map_err(|_| TransportError::Timeout {
                    server: self.server().to_owned(),
                    after: timeout,
                })??;
                for message in body::parse_messages(&self.config, bytes.into()) {
                    self.deliver(message).await;
                }
            }
            if is_initialized && modern_version.is_none() && self.config.open_get_stream {
                self.open_get_stream().await;
            }
            return Ok(());
        }
        let headers = response.headers().clone();
        let bytes: bytes::Bytes =
            body::read_bounded(self.server(), &mut response, body::ERROR_BODY_LIMIT)
                .await
                .unwrap_or_default()
                .into();
        // A JSON-RPC error that names its request is the server's answer: deliver it.
        let answers: Vec<Message> = body::parse_messages(&self.config, bytes.clone())
            .into_iter()
            .filter(|m| m.response_id().is_some())
            .collect();
        if !answers.is_empty() {
            for answer in answers {
                self.deliver(answer).await;
            }
            return Ok(());
        }
        if status == reqwest::StatusCode::NOT_FOUND && sent_session {
            self.session_id.lock().take();
            return Err(TransportError::SessionExpired {
                server: self.server().to_owned(),
            });
        }
        Err(body::status_error(&self.config, status, &headers, &bytes))
    }

    /// Watches what passes through: the negotiated version, and tool headers.
    fn observe(&self, message: &mut Message) {
        let Message::Response(response) = message else {
            return;
        };
        if self.initialize_id.lock().as_ref() == Some(&response.id)
            && let Ok(Some(version)) = response.result.member::<String>("protocolVersion")
        {
            *self.legacy_version.lock() = Some(version);
        }
        if self.tool_list_ids.lock().remove(&response.id) {
            let learned = param_headers::filter_tools_list(self.server(), &mut response.result);
            self.tool_headers.lock().extend(learned);
        }
    }

    async fn deliver(&self, mut message: Message) {
        self.observe(&mut message);
        let sender = self.inbound.lock().clone();
        if let Some(sender) = sender
            && sender.send(message).await.is_err()
        {
            tracing::debug!(server = %self.server(), "dropping a message: the transport is closed");
        }
    }

    /// Reads one SSE stream to its end; returns whether `awaited` was answered, and the resumption state.
    async fn read_events(
        &self,
        stream: &mut SseStream,
        awaited: Option<&RequestId>,
        last_event_id: &mut Option<String>,
        retry: &mut Option<Duration>,
    ) -> bool {
        let mut answered = false;
        loop {
            match stream.next().await {
                Ok(Some(event)) => {
                    if let Some(id) = event.id {
                        *last_event_id = Some(id);
                    }
                    if event.retry.is_some() {
                        *retry = event.retry;
                    }
                    if event.data.is_empty() {
                        continue;
                    }
                    for message in body::parse_messages(&self.config, event.data.into()) {
                        if awaited.is_some() && message.response_id() == awaited {
                            answered = true;
                        }
                        self.deliver(message).await;
                    }
                }
                Ok(None) => return answered,
                Err(error) => {
                    tracing::debug!(server = %self.server(), %error, "SSE stream broke off");
                    return answered;
                }
            }
        }
    }

    async fn pump_post_stream(
        self: Arc<Self>,
        response: reqwest::Response,
        request_id: Option<RequestId>,
        legacy: bool,
    ) {
        let mut stream = SseStream::new(response, self.config.max_message_len);
        let mut last_event_id = None;
        let mut retry = None;
        let mut answered = self
            .read_events(
                &mut stream,
                request_id.as_ref(),
                &mut last_event_id,
                &mut retry,
            )
            .await;
        if request_id.is_none() || answered {
            return;
        }
        if !legacy {
            tracing::warn!(server = %self.server(), "the response stream ended before the answer; the request will time out");
            return;
        }
        for attempt in 1..=self.config.max_resumptions {
            if self.closed.load(Ordering::Acquire) {
                return;
            }
            tokio::time::sleep(retry.unwrap_or(DEFAULT_RETRY).min(MAX_RETRY)).await;
            tracing::debug!(server = %self.server(), attempt, "resuming an SSE stream");
            let Some(mut stream) = self.get_stream(last_event_id.as_deref()).await else {
                continue;
            };
            answered = self
                .read_events(
                    &mut stream,
                    request_id.as_ref(),
                    &mut last_event_id,
                    &mut retry,
                )
                .await;
            if answered {
                return;
            }
        }
        tracing::warn!(server = %self.server(), "gave up resuming a broken SSE stream");
    }

    /// GETs the endpoint as an SSE stream; `None` when the server does not offer one.
    async fn get_stream(&self, last_event_id: Option<&str>) -> Option<SseStream> {
        let mut headers = self.base_headers(None).ok()?;
        headers.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
        if let Some(id) = last_event_id {
            insert(&mut headers, LAST_EVENT_ID, id);
        }
        let request = self.client.reqwest().get(self.url.clone()).headers(headers);
        let mut response =
            match tokio::time::timeout(self.config.request_timeout, request.send()).await {
                Ok(Ok(response)) => response,
                Ok(Err(error)) => {
                    let error = body::error_chain(error);
                    tracing::debug!(server = %self.server(), %error, "GET stream failed");
                    return None;
                }
                Err(_) => return None,
            };
        if !response.status().is_success() || !body::is_event_stream(&response) {
            tracing::debug!(server = %self.server(), status = %response.status(), "no GET stream");
            let _ = body::read_bounded(self.server(), &mut response, body::ERROR_BODY_LIMIT).await;
            return None;
        }
        Some(SseStream::new(response, self.config.max_message_len))
    }

    /// Opens the standalone GET stream once, after the legacy handshake. The first
    /// GET is awaited (briefly), so it reaches the server before any later request.
    async fn open_get_stream(self: &Arc<Self>) {
        if self.get_stream_opened.swap(true, Ordering::AcqRel) {
            return;
        }
        let first = match tokio::time::timeout(GET_STREAM_WAIT, self.get_stream(None)).await {
            Ok(None) => return, // not offered (400, 404, 405)
            Ok(Some(stream)) => Some(stream),
            Err(_) => None,
        };
        let shared = Arc::clone(self);
        self.spawn(async move { shared.run_get_stream(first).await });
    }

    async fn run_get_stream(self: Arc<Self>, mut stream: Option<SseStream>) {
        let mut last_event_id = None;
        let mut retry = None;
        let mut failures = 0;
        while !self.closed.load(Ordering::Acquire) && failures <= self.config.max_resumptions {
            let current = match stream.take() {
                Some(stream) => Some(stream),
                None => self.get_stream(last_event_id.as_deref()).await,
            };
            let Some(mut current) = current else {
                if last_event_id.is_none() {
                    return; // not offered
                }
                failures += 1;
                tokio::time::sleep(retry.unwrap_or(DEFAULT_RETRY).min(MAX_RETRY)).await;
                continue;
            };
            failures = 0;
            self.read_events(&mut current, None, &mut last_event_id, &mut retry)
                .await;
            if last_event_id.is_none() {
                return; // a stream without ids cannot be resumed
            }
            tokio::time::sleep(retry.unwrap_or(DEFAULT_RETRY).min(MAX_RETRY)).await;
        }
    }

    async fn close(&self) -> Result<(), TransportError> {
        if self.closed.swap(true, Ordering::AcqRel) {
            return Ok(());
        }
        self.abort_tasks();
        self.inbound.lock().take();
        self.closing.cancel();
        let session = self.session_id.lock().take();
        if session.is_some() {
            let mut headers = self.base_headers(None).unwrap_or_default();
            if let Some(id) = session.as_deref() {
                insert(&mut headers, SESSION_HEADER, id);
            }
            let delete = self
                .client
                .reqwest()
                .delete(self.url.clone())
                .headers(headers);
            match tokio::time::timeout(DELETE_TIMEOUT, delete.send()).await {
                Ok(Ok(mut response)) => {
                    let _ =
                        body::read_bounded(self.server(), &mut response, body::ERROR_BODY_LIMIT)
                            .await;
                }
                Ok(Err(error)) => {
                    let error = body::error_chain(error);
                    tracing::debug!(server = %self.server(), %error, "DELETE of the session failed")
                }
                Err(_) => {
                    tracing::debug!(server = %self.server(), "DELETE of the session timed out")
                }
            }
        }
        Ok(())
    }
}

fn insert(headers: &mut HeaderMap, name: &str, value: &str) {
    match (
        HeaderName::from_bytes(name.as_bytes()),
        HeaderValue::from_str(value),
    ) {
        (Ok(name), Ok(value)) => {
            headers.insert(name, value);
        }
        _ => tracing::debug!(header = name, "skipping a header that cannot be sent"),
    }
}

#[async_trait]
impl Transport for StreamableHttpTransport {
    async fn send(&self, message: Message) -> Result<(), TransportError> {
        self.send_message(message).await
    }

    async fn receive(&self) -> Result<Option<Message>, TransportError> {
        match &self.receiver {
            Some(receiver) => tokio::select! {
                biased;
                () = self.shared.closing.cancelled() => Ok(None),
                message = async { receiver.lock().await.recv().await } => Ok(message),
            },
            None => Err(self.shared.closed_error()),
        }
    }

    async fn close(&self) -> Result<(), TransportError> {
        self.close_connection().await
    }

    fn describe(&self) -> String {
        format!("http: {}", self.shared.config.display_url())
    }
}
