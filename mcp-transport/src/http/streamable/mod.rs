//! The Streamable HTTP client transport, for both eras.
//!
//! Each message is its own POST. Answers come back as a JSON body or as an SSE
//! stream. A request sent with `send_request` reads its stream in the
//! requesting task up to the first message: when that is the answer, it is
//! returned directly; anything else is delivered, and the rest of the stream
//! is pumped into the inbound queue by a task of its own. What a message
//! carries and what a response means is decided by the I/O-free state
//! machine in [`state`]; this module only moves bytes: the POST, the GET
//! stream for server-initiated messages, SSE resumption with
//! `Last-Event-ID`, and the DELETE that ends a session.
//!
//! Failing at once: a 2xx reply that is neither JSON nor an event stream (a
//! login page, a proxy's HTML), a JSON body that does not parse, a redirect
//! to another origin, and a session id that cannot be sent back are errors
//! of the `send` that met them, naming the cause. A response stream that
//! breaks before its answer and cannot be resumed yields a
//! [`Inbound::AnswerLost`] for that request at once.

mod state;
mod wire;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::sync::Mutex;
use async_trait::async_trait;
use mcpdisco_protocol::{Message, RequestId};
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue, LOCATION};
use tokio::sync::mpsc;
use tokio::task::AbortHandle;
use tokio_util::sync::CancellationToken;

use super::body::{self, SseStream};
use super::client::HttpClient;
use super::config::HttpConfig;
use crate::error::TransportError;
use crate::inbound::Inbound;
use crate::trace::HttpEvent;
use crate::transport::{Transport, TransportInfo};
use state::{Outgoing, ResponseClass, SESSION_HEADER, StreamableState};
use wire::{insert, quote};

const LAST_EVENT_ID: &str = "last-event-id";
/// The wait before resuming a stream whose server named no `retry`.
const DEFAULT_RETRY: Duration = Duration::from_secs(1);
/// The longest `retry` we honour.
const MAX_RETRY: Duration = Duration::from_secs(30);
/// The shortest `retry` we honour (`retry: 0` would be a busy loop).
const MIN_RETRY: Duration = Duration::from_millis(100);
/// How long sending `notifications/initialized` waits for the GET stream to open.
const GET_STREAM_WAIT: Duration = Duration::from_secs(2);
/// How long the DELETE on close may take.
const DELETE_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a request that has its answer waits for its stream to end.
const STREAM_END_GRACE: Duration = Duration::from_millis(5);

/// State shared by the transport and its stream tasks.
pub(crate) struct Shared {
    config: HttpConfig,
    url: url::Url,
    client: HttpClient,
    inbound: Mutex<Option<mpsc::Sender<Inbound>>>,
    state: Mutex<StreamableState>,
    tasks: Mutex<Vec<AbortHandle>>,
    closing: CancellationToken,
    get_stream_opened: AtomicBool,
    closed: AtomicBool,
}

/// A Streamable HTTP connection to one server.
pub struct StreamableHttpTransport {
    shared: Arc<Shared>,
    receiver: Option<tokio::sync::Mutex<mpsc::Receiver<Inbound>>>,
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
        inbound: mpsc::Sender<Inbound>,
    ) -> Result<Self, TransportError> {
        let config = config.with_own_secrets_masked();
        let url = config.parsed_url()?;
        Ok(Self {
            shared: Arc::new(Shared {
                url,
                client: client.clone(),
                inbound: Mutex::new(Some(inbound)),
                state: Mutex::new(StreamableState::default()),
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
        self.shared.state.lock().session_id().map(str::to_owned)
    }

    pub(crate) async fn send_message(&self, message: Message) -> Result<(), TransportError> {
        Shared::send(&self.shared, message, false).await.map(drop)
    }

    /// Sends a request; its answer when the POST's JSON body held it alone.
    pub(crate) async fn send_request_message(
        &self,
        message: Message,
    ) -> Result<Option<Message>, TransportError> {
        Shared::send(&self.shared, message, true).await
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

    fn protocol_error(&self, reason: String) -> TransportError {
        TransportError::Protocol {
            server: self.server().to_owned(),
            reason: self.config.masker.mask_string(reason),
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

    /// Credentials plus the protocol headers the state machine chose.
    fn headers(
        &self,
        method: &str,
        protocol: &[(state::HeaderKey, String)],
    ) -> Result<HeaderMap, TransportError> {
        let mut headers = self.config.credential_headers(method, &self.url)?;
        for (name, value) in protocol {
            let Ok(value) = HeaderValue::from_str(value) else {
                tracing::debug!(header = %name, "skipping a header value that cannot be sent");
                continue;
            };
            match name {
                // Our own names are lowercase constants: no parsing.
                std::borrow::Cow::Borrowed(name) => {
                    headers.insert(HeaderName::from_static(name), value);
                }
                std::borrow::Cow::Owned(name) => match HeaderName::from_bytes(name.as_bytes()) {
                    Ok(name) => {
                        headers.insert(name, value);
                    }
                    Err(_) => {
                        tracing::debug!(header = %name, "skipping a header that cannot be sent")
                    }
                },
            }
        }
        Ok(headers)
    }

    /// Reports a response to the trace, if there is one.
    fn observe_response(&self, method: &'static str, response: &reqwest::Response) {
        let Some(tracer) = &self.config.tracer else {
            return;
        };
        let header = |name| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let redirect = header(LOCATION).or_else(|| {
            (response.url() != &self.url)
                .then(|| crate::secret::redact_url(response.url().as_str()))
        });
        tracer.http(
            self.server(),
            HttpEvent::Response {
                method,
                status: response.status().as_u16(),
                content_type: header(CONTENT_TYPE),
                session_id: response.headers().contains_key(SESSION_HEADER),
                www_authenticate: header(reqwest::header::WWW_AUTHENTICATE),
                redirect,
            },
        );
    }

    /// POSTs `message`. With `direct`, a JSON body that holds the request's
    /// answer and nothing else is returned instead of delivered (the caller
    /// takes it from here); anything else is delivered in order.
    async fn send(
        self: &Arc<Self>,
        message: Message,
        direct: bool,
    ) -> Result<Option<Message>, TransportError> {
        if self.closed.load(Ordering::Acquire) {
            return Err(self.closed_error());
        }
        let outgoing = self.state.lock().prepare(&message);
        let mut headers = self.headers("POST", &outgoing.headers)?;
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
            Ok(Err(error)) => return Err(body::request_error(&self.config, error, timeout)),
            Ok(Ok(response)) => response,
        };
        self.observe_response("POST", &response);
        let status = response.status();
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok());
        let class = self
            .state
            .lock()
            .classify(&outgoing, status.as_u16(), content_type);
        if status.is_success() && outgoing.is_initialize {
            let session = response
                .headers()
                .get(SESSION_HEADER)
                .map(|v| v.as_bytes().to_vec());
            let adopted = self
                .state
                .lock()
                .adopt_session(&outgoing, session.as_deref());
            if adopted.is_ok() && self.state.lock().renewed_since(&outgoing) {
                // A new session gets its own GET stream once `initialized` is sent.
                self.get_stream_opened.store(false, Ordering::Release);
            }
            if let Err(reason) = adopted {
                let _ =
                    body::read_bounded(&self.config, &mut response, body::ERROR_BODY_LIMIT).await;
                return Err(self.protocol_error(reason));
            }
        }
        match class {
            ResponseClass::EventStream => {
                let mut stream = PostStream {
                    events: SseStream::new(response, self.config.max_message_len),
                    last_event_id: None,
                    retry: None,
                    ended: false,
                };
                let mut awaited = outgoing.request_id.clone();
                if direct && let Some(id) = &awaited {
                    match self.first_messages(&mut stream, id).await {
                        First::Answer(mut answer) => {
                            self.state.lock().observe(self.server(), &mut answer);
                            if !self.end_follows(&mut stream).await {
                                // Whatever follows the answer is delivered as it comes.
                                self.spawn_pump(stream, None, &outgoing);
                            }
                            self.after_post(&outgoing).await;
                            return Ok(Some(answer));
                        }
                        First::Delivered { answered: true } => awaited = None,
                        First::Delivered { answered: false } | First::Ended => {}
                    }
                }
                self.spawn_pump(stream, awaited, &outgoing);
            }
            ResponseClass::Json => {
                // Bounded in time by the request timeout, as the send was.
                let bytes =
                    body::read_bounded(&self.config, &mut response, self.config.max_message_len)
                        .await?;
                let mut messages = self.parse_answer(&outgoing, bytes)?;
                let answered = outgoing.request_id.as_ref().is_none_or(|id| {
                    messages
                        .iter()
                        .any(|message| message.response_id() == Some(id))
                });
                if direct
                    && messages.len() == 1
                    && answered
                    && outgoing.request_id.is_some()
                    && let Some(mut answer) = messages.pop()
                {
                    self.state.lock().observe(self.server(), &mut answer);
                    self.after_post(&outgoing).await;
                    return Ok(Some(answer));
                }
                for message in messages {
                    self.deliver(message).await;
                }
                if !answered && let Some(id) = outgoing.request_id.clone() {
                    // It will not come later: a POST's answer is in its response.
                    self.deliver_lost(
                        id,
                        "the server answered the request's POST without an answer to it",
                    )
                    .await;
                }
            }
            ResponseClass::Unexpected { content_type } => {
                let bytes = body::read_bounded(&self.config, &mut response, body::ERROR_BODY_LIMIT)
                    .await
                    .unwrap_or_default();
                let hint = if content_type == "text/html" {
                    " (a login page, or a proxy's page?)"
                } else {
                    ""
                };
                return Err(self.protocol_error(format!(
                    "expected JSON or an event stream, got {content_type}{hint}: {}",
                    quote(&bytes)
                )));
            }
            ResponseClass::SessionExpired => {
                let _ =
                    body::read_bounded(&self.config, &mut response, body::ERROR_BODY_LIMIT).await;
                return Err(TransportError::SessionExpired {
                    server: self.server().to_owned(),
                });
            }
            ResponseClass::Error => {
                let (error, answers) = self.status_error(response).await;
                if answers.is_empty() {
                    return Err(error);
                }
                // A JSON-RPC error that names its request is the server's answer: deliver it.
                for answer in answers {
                    self.deliver(answer).await;
                }
            }
        }
        self.after_post(&outgoing).await;
        Ok(None)
    }

    /// After a POST: `notifications/initialized` opens the GET stream (legacy era).
    async fn after_post(self: &Arc<Self>, outgoing: &Outgoing) {
        if outgoing.is_initialized
            && outgoing.modern_version.is_none()
            && self.config.open_get_stream
        {
            self.open_get_stream().await;
        }
    }

    /// A failed status, and the JSON-RPC answers its body carries (to be
    /// delivered instead of failing the send). A redirect to another origin
    /// says so; anything else is the status.
    async fn status_error(
        &self,
        mut response: reqwest::Response,
    ) -> (TransportError, Vec<Message>) {
        let status = response.status();
        let headers = response.headers().clone();
        if let Some(refused) = body::unauthorized(&self.config, status, &headers) {
            // Refused credentials fail the send, whatever JSON-RPC the body holds.
            let _ = body::read_bounded(&self.config, &mut response, body::ERROR_BODY_LIMIT).await;
            return (refused, Vec::new());
        }
        let bytes = body::read_bounded(&self.config, &mut response, body::ERROR_BODY_LIMIT)
            .await
            .unwrap_or_default();
        let answers: Vec<Message> = body::parse_messages(&self.config, bytes.clone())
            .into_iter()
            .filter(|m| m.response_id().is_some())
            .collect();
        (self.status_cause(status, &headers, &bytes), answers)
    }

    fn status_cause(
        &self,
        status: reqwest::StatusCode,
        headers: &HeaderMap,
        bytes: &[u8],
    ) -> TransportError {
        if status.is_redirection()
            && let Some(location) = headers.get(LOCATION).and_then(|v| v.to_str().ok())
            && let Ok(target) = self.url.join(location)
            && target.origin() != self.url.origin()
        {
            return TransportError::CrossOriginRedirect {
                server: self.server().to_owned(),
                status: status.as_u16(),
                origin: self
                    .config
                    .masker
                    .mask_string(target.origin().ascii_serialization()),
            };
        }
        body::status_error(&self.config, status, headers, bytes)
    }

    /// Reads the JSON answer to `outgoing`. A request's answer that is not
    /// JSON, or not JSON-RPC, fails the send at once with the parse error.
    fn parse_answer(
        &self,
        outgoing: &Outgoing,
        bytes: bytes::Bytes,
    ) -> Result<Vec<Message>, TransportError> {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(Vec::new());
        }
        match mcpdisco_protocol::Incoming::from_bytes(&bytes) {
            Ok(incoming) => Ok(incoming.into_messages()),
            Err(error) if outgoing.request_id.is_some() => Err(self.protocol_error(format!(
                "the answer is not valid JSON-RPC ({error}): {}",
                quote(&bytes)
            ))),
            Err(_) => Ok(body::parse_messages(&self.config, bytes)),
        }
    }

    async fn deliver(&self, mut message: Message) {
        self.state.lock().observe(self.server(), &mut message);
        self.deliver_inbound(Inbound::Message(message)).await;
    }

    /// Tells the session that request `id`'s answer will never come.
    async fn deliver_lost(&self, id: RequestId, reason: impl Into<String>) {
        self.deliver_inbound(Inbound::answer_lost(id, reason)).await;
    }

    async fn deliver_inbound(&self, inbound: Inbound) {
        let sender = self.inbound.lock().clone();
        if let Some(sender) = sender
            && sender.send(inbound).await.is_err()
        {
            tracing::debug!(server = %self.server(), "dropping a message: the transport is closed");
        }
    }

    /// Traces an event and keeps its id and `retry` for resuming; its data,
    /// unless it has none (a priming event).
    fn note_event(
        &self,
        event: crate::codec::sse::SseEvent,
        last_event_id: &mut Option<String>,
        retry: &mut Option<Duration>,
    ) -> Option<String> {
        if let Some(tracer) = &self.config.tracer {
            tracer.http(
                self.server(),
                HttpEvent::SseEvent {
                    id: event.id.clone(),
                    event: event.event.clone(),
                },
            );
        }
        if let Some(id) = event.id {
            *last_event_id = Some(id);
        }
        if event.retry.is_some() {
            *retry = event.retry;
        }
        (!event.data.is_empty()).then_some(event.data)
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
                    let Some(data) = self.note_event(event, last_event_id, retry) else {
                        continue;
                    };
                    for message in body::parse_messages(&self.config, data.into()) {
                        if awaited.is_some() && message.response_id() == awaited {
                            answered = true;
                        }
                        self.deliver(message).await;
                    }
                }
                Ok(None) => return answered,
                Err(error) => {
                    let error = body::error_chain(error);
                    tracing::debug!(server = %self.server(), %error, "SSE stream broke off");
                    return answered;
                }
            }
        }
    }

    /// Reads a POST's response stream in the requesting task up to its first
    /// event with data. The request's answer alone there is returned, not
    /// delivered: the caller takes it without a hand-off. Anything else
    /// (progress, a notification, a server request) is delivered, and so is
    /// everything after it, so the order the server sent stays the order
    /// the session sees.
    async fn first_messages(&self, stream: &mut PostStream, awaited: &RequestId) -> First {
        loop {
            let event = match stream.events.next().await {
                Ok(Some(event)) => event,
                Ok(None) => {
                    stream.ended = true;
                    return First::Ended;
                }
                Err(error) => {
                    let error = body::error_chain(error);
                    tracing::debug!(server = %self.server(), %error, "SSE stream broke off");
                    stream.ended = true;
                    return First::Ended;
                }
            };
            let Some(data) = self.note_event(event, &mut stream.last_event_id, &mut stream.retry)
            else {
                continue;
            };
            let mut messages = body::parse_messages(&self.config, data.into());
            if messages.len() == 1
                && messages[0].response_id() == Some(awaited)
                && let Some(answer) = messages.pop()
            {
                return First::Answer(answer);
            }
            let answered = messages
                .iter()
                .any(|message| message.response_id() == Some(awaited));
            for message in messages {
                self.deliver(message).await;
            }
            return First::Delivered { answered };
        }
    }

    /// Whether a POST's stream ends right after its answer, as servers end
    /// it. The end is awaited for a moment ([`STREAM_END_GRACE`]) if it has
    /// not come yet: a body read to its end gives the connection back to the
    /// pool before the next request wants one. An event that comes instead
    /// is kept for the pump.
    async fn end_follows(&self, stream: &mut PostStream) -> bool {
        if stream.events.ended_now() {
            return true;
        }
        match tokio::time::timeout(STREAM_END_GRACE, stream.events.next()).await {
            Ok(Ok(None)) => true,
            Ok(Err(error)) => {
                let error = body::error_chain(error);
                tracing::debug!(server = %self.server(), %error, "SSE stream broke off after its answer");
                true
            }
            Ok(Ok(Some(event))) => {
                stream.events.put_back(event);
                false
            }
            Err(_) => false,
        }
    }

    /// Hands the rest of a POST's response stream to a task of its own.
    fn spawn_pump(
        self: &Arc<Self>,
        stream: PostStream,
        awaited: Option<RequestId>,
        outgoing: &Outgoing,
    ) {
        let shared = Arc::clone(self);
        let legacy = outgoing.modern_version.is_none();
        self.spawn(async move { shared.pump_post_stream(stream, awaited, legacy).await });
    }

    /// Pumps a POST's response stream. If it ends before the answer, a
    /// legacy stream is resumed with `Last-Event-ID` (when the server
    /// supports it); otherwise the request's answer is reported lost at once.
    async fn pump_post_stream(
        self: Arc<Self>,
        stream: PostStream,
        request_id: Option<RequestId>,
        legacy: bool,
    ) {
        let PostStream {
            events: mut stream,
            mut last_event_id,
            mut retry,
            ended,
        } = stream;
        let answered = !ended
            && self
                .read_events(
                    &mut stream,
                    request_id.as_ref(),
                    &mut last_event_id,
                    &mut retry,
                )
                .await;
        let Some(request_id) = request_id else {
            return;
        };
        if answered || self.closed.load(Ordering::Acquire) {
            return;
        }
        let reason = if !legacy {
            "the response stream ended before the answer".to_owned()
        } else if last_event_id.is_none() {
            "the response stream ended before the answer, and it had no event ids to resume from"
                .to_owned()
        } else {
            match self.resume(&request_id, last_event_id, retry).await {
                Resumed::Answered | Resumed::Closed => return,
                Resumed::Failed(reason) => reason,
            }
        };
        tracing::debug!(server = %self.server(), %request_id, %reason, "the answer is lost");
        self.deliver_lost(request_id, reason).await;
    }

    /// Resumes a broken legacy response stream until its answer comes, the
    /// server says it cannot resume (no GET stream), or the attempts run out.
    async fn resume(
        &self,
        request_id: &RequestId,
        mut last_event_id: Option<String>,
        mut retry: Option<Duration>,
    ) -> Resumed {
        for attempt in 1..=self.config.max_resumptions {
            tokio::time::sleep(retry.unwrap_or(DEFAULT_RETRY).clamp(MIN_RETRY, MAX_RETRY)).await;
            if self.closed.load(Ordering::Acquire) {
                return Resumed::Closed;
            }
            tracing::debug!(server = %self.server(), attempt, "resuming an SSE stream");
            let mut stream = match self.get_stream(last_event_id.as_deref()).await {
                GetStream::Open(stream) => stream,
                GetStream::NotOffered(status) => {
                    return Resumed::Failed(format!(
                        "the response stream broke before the answer, and the server cannot resume it (GET answered {status})"
                    ));
                }
                GetStream::Failed => continue,
            };
            if self
                .read_events(
                    &mut stream,
                    Some(request_id),
                    &mut last_event_id,
                    &mut retry,
                )
                .await
            {
                return Resumed::Answered;
            }
        }
        Resumed::Failed(format!(
            "the response stream broke before the answer and {} attempts to resume it failed",
            self.config.max_resumptions
        ))
    }

    /// GETs the endpoint as an SSE stream.
    async fn get_stream(&self, last_event_id: Option<&str>) -> GetStream {
        let protocol = self.state.lock().get_headers();
        let Ok(mut headers) = self.headers("GET", &protocol) else {
            return GetStream::Failed;
        };
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
                    return GetStream::Failed;
                }
                Err(_) => return GetStream::Failed,
            };
        self.observe_response("GET", &response);
        let status = response.status();
        if !status.is_success() || !body::is_event_stream(&response) {
            tracing::debug!(server = %self.server(), %status, "no GET stream");
            let _ = body::read_bounded(&self.config, &mut response, body::ERROR_BODY_LIMIT).await;
            // Refused credentials (an expired token) are not "not offered":
            // the stream is tried again, with the credentials then current.
            let refused = matches!(status.as_u16(), 401 | 403);
            return if (status.is_client_error() && !refused) || status.is_success() {
                GetStream::NotOffered(status.as_u16())
            } else {
                GetStream::Failed
            };
        }
        GetStream::Open(Box::new(SseStream::new(
            response,
            self.config.max_message_len,
        )))
    }

    /// Opens the standalone GET stream once, after the legacy handshake. The first
    /// GET is awaited (briefly), so it reaches the server before any later request.
    async fn open_get_stream(self: &Arc<Self>) {
        if self.get_stream_opened.swap(true, Ordering::AcqRel) {
            return;
        }
        let first = match tokio::time::timeout(GET_STREAM_WAIT, self.get_stream(None)).await {
            Ok(GetStream::NotOffered(_)) => return, // not offered (400, 404, 405)
            Ok(GetStream::Open(stream)) => Some(*stream),
            Ok(GetStream::Failed) | Err(_) => None,
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
                None => match self.get_stream(last_event_id.as_deref()).await {
                    GetStream::Open(stream) => Some(*stream),
                    GetStream::NotOffered(_) => return,
                    GetStream::Failed => None,
                },
            };
            let Some(mut current) = current else {
                if last_event_id.is_none() {
                    return; // nothing to resume from
                }
                failures += 1;
                tokio::time::sleep(retry.unwrap_or(DEFAULT_RETRY).clamp(MIN_RETRY, MAX_RETRY))
                    .await;
                continue;
            };
            failures = 0;
            self.read_events(&mut current, None, &mut last_event_id, &mut retry)
                .await;
            if last_event_id.is_none() {
                return; // a stream without ids cannot be resumed
            }
            tokio::time::sleep(retry.unwrap_or(DEFAULT_RETRY).clamp(MIN_RETRY, MAX_RETRY)).await;
        }
    }

    async fn close(&self) -> Result<(), TransportError> {
        if self.closed.swap(true, Ordering::AcqRel) {
            return Ok(());
        }
        self.abort_tasks();
        self.inbound.lock().take();
        self.closing.cancel();
        let (session, protocol) = {
            let mut state = self.state.lock();
            let protocol = state.get_headers();
            (state.end_session(), protocol)
        };
        if session.is_some() {
            let headers = self.headers("DELETE", &protocol).unwrap_or_default();
            let delete = self
                .client
                .reqwest()
                .delete(self.url.clone())
                .headers(headers);
            match tokio::time::timeout(DELETE_TIMEOUT, delete.send()).await {
                Ok(Ok(mut response)) => {
                    self.observe_response("DELETE", &response);
                    let _ = body::read_bounded(&self.config, &mut response, body::ERROR_BODY_LIMIT)
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

/// A POST's response stream and what resuming it needs.
struct PostStream {
    events: SseStream,
    last_event_id: Option<String>,
    retry: Option<Duration>,
    /// It ended (or broke) already.
    ended: bool,
}

/// What the first event with data of a POST's response stream held.
enum First {
    /// The request's answer, alone.
    Answer(Message),
    /// Something else, delivered; `answered` if the answer was among it.
    Delivered { answered: bool },
    /// Nothing: the stream ended or broke first.
    Ended,
}

/// How resuming a broken stream ended.
enum Resumed {
    Answered,
    Closed,
    Failed(String),
}

/// What a GET for an event stream got.
enum GetStream {
    Open(Box<SseStream>),
    /// The server does not offer one (a 4xx, or a 2xx that is not a stream).
    NotOffered(u16),
    /// A transient failure (no connection, 5xx, timeout).
    Failed,
}

#[async_trait]
impl Transport for StreamableHttpTransport {
    async fn send(&self, message: Message) -> Result<(), TransportError> {
        self.send_message(message).await
    }

    async fn send_request(&self, request: Message) -> Result<Option<Message>, TransportError> {
        self.send_request_message(request).await
    }

    async fn receive(&self) -> Result<Option<Inbound>, TransportError> {
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

    fn info(&self) -> &dyn TransportInfo {
        self
    }
}

impl TransportInfo for StreamableHttpTransport {
    fn peer(&self) -> crate::transport::Peer {
        self.shared.config.peer()
    }

    fn session_id(&self) -> Option<String> {
        StreamableHttpTransport::session_id(self)
    }
}
