//! The wire trace: every JSON-RPC message in and out, and what the HTTP
//! transports see below them, as events a [`TraceSink`] records.
//!
//! [`TracedTransport`] wraps any [`Transport`] and reports each message with
//! its time, server, direction and size, and for an answer how long after
//! its request it came. The HTTP transports report each response's status,
//! content type, session-id presence, `WWW-Authenticate` challenge and
//! redirect, and each SSE event id, through the sink in their
//! `HttpConfig` (the observer hook). Message texts
//! are masked with the trace's [`Masker`] before any sink sees them.
//!
//! [`JsonLinesTrace`] writes events as JSON lines (`mcp-cli --trace FILE`).

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use crate::sync::Mutex;
use async_trait::async_trait;
use mcpdisco_protocol::{Message, RequestId};
use serde_json::{Map, Value, json};

use crate::error::TransportError;
use crate::inbound::Inbound;
use crate::secret::Masker;
use crate::transport::{Transport, TransportInfo};

/// Messages larger than this are traced as a preview, not whole.
pub const MAX_TRACED_MESSAGE: usize = 1024 * 1024;
/// How many requests awaiting an answer a traced transport remembers for timing.
const MAX_PENDING: usize = 10_000;

/// Which way a message went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// From us to the server.
    Out,
    /// From the server to us.
    In,
}

impl Direction {
    /// `out` or `in`.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Out => "out",
            Direction::In => "in",
        }
    }
}

/// What the HTTP transports saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HttpEvent {
    /// A response to one of our HTTP requests.
    Response {
        /// `POST`, `GET` or `DELETE`.
        method: &'static str,
        /// The status code.
        status: u16,
        /// The `Content-Type`, if any.
        content_type: Option<String>,
        /// Whether it carried an `Mcp-Session-Id`.
        session_id: bool,
        /// The `WWW-Authenticate` challenge of a 401 or 403, if any.
        www_authenticate: Option<String>,
        /// Where a redirect pointed (`Location`, masked), or where a followed
        /// same-origin redirect ended.
        redirect: Option<String>,
    },
    /// One server-sent event arrived.
    SseEvent {
        /// Its `id`, if any.
        id: Option<String>,
        /// Its `event` name, if any.
        event: Option<String>,
    },
}

/// One traced event.
#[derive(Debug, Clone, PartialEq)]
pub enum TraceEvent {
    /// A JSON-RPC message.
    Message {
        /// The server.
        server: String,
        /// Which way.
        direction: Direction,
        /// Its size on the wire, in bytes.
        size: usize,
        /// For an answer: how long after its request it came.
        elapsed: Option<Duration>,
        /// The message, masked (a preview when over [`MAX_TRACED_MESSAGE`]).
        text: String,
        /// Whether `text` is only the start of the message.
        truncated: bool,
    },
    /// An HTTP-level event.
    Http {
        /// The server.
        server: String,
        /// What happened.
        event: HttpEvent,
    },
}

impl TraceEvent {
    /// The server the event is about.
    pub fn server(&self) -> &str {
        match self {
            TraceEvent::Message { server, .. } | TraceEvent::Http { server, .. } => server,
        }
    }

    /// The event as one JSON object (what a JSON-lines trace writes), stamped `at`.
    pub fn to_json(&self, at: SystemTime) -> Value {
        let mut object = Map::new();
        object.insert(
            "ts".into(),
            json!(humantime::format_rfc3339_micros(at).to_string()),
        );
        object.insert("server".into(), json!(self.server()));
        match self {
            TraceEvent::Message {
                direction,
                size,
                elapsed,
                text,
                truncated,
                ..
            } => {
                object.insert("dir".into(), json!(direction.as_str()));
                object.insert("size".into(), json!(size));
                if let Some(elapsed) = elapsed {
                    object.insert("elapsedMs".into(), json!(elapsed.as_secs_f64() * 1000.0));
                }
                if *truncated {
                    object.insert("truncated".into(), json!(true));
                    object.insert("preview".into(), json!(text));
                } else {
                    let message = serde_json::from_str::<Value>(text)
                        .unwrap_or_else(|_| Value::String(text.clone()));
                    object.insert("message".into(), message);
                }
            }
            TraceEvent::Http { event, .. } => {
                let http = match event {
                    HttpEvent::Response {
                        method,
                        status,
                        content_type,
                        session_id,
                        www_authenticate,
                        redirect,
                    } => {
                        let mut http = json!({
                            "method": method,
                            "status": status,
                            "contentType": content_type,
                            "sessionId": session_id,
                        });
                        if let Some(challenge) = www_authenticate {
                            http["wwwAuthenticate"] = json!(challenge);
                        }
                        if let Some(redirect) = redirect {
                            http["redirect"] = json!(redirect);
                        }
                        http
                    }
                    HttpEvent::SseEvent { id, event } => {
                        json!({"sseEventId": id, "sseEvent": event})
                    }
                };
                object.insert("http".into(), http);
            }
        }
        Value::Object(object)
    }
}

/// Receives trace events. Called on the I/O path: keep it quick.
pub trait TraceSink: Send + Sync {
    /// Records one event.
    fn record(&self, event: TraceEvent);
}

/// Writes events as JSON lines to a file, one object per line, flushed per line.
pub struct JsonLinesTrace {
    writer: Mutex<BufWriter<File>>,
}

impl JsonLinesTrace {
    /// Creates (or truncates) `path`, readable by its owner only: a trace
    /// holds what servers said, masked, but still private.
    pub fn create(path: &Path) -> std::io::Result<Self> {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let file = options.open(path)?;
        // A file that existed keeps its mode on open: make it private too.
        #[cfg(unix)]
        std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(0o600))?;
        Ok(Self {
            writer: Mutex::new(BufWriter::new(file)),
        })
    }
}

impl TraceSink for JsonLinesTrace {
    fn record(&self, event: TraceEvent) {
        let line = event.to_json(SystemTime::now()).to_string();
        let mut writer = self.writer.lock();
        let written = writer
            .write_all(line.as_bytes())
            .and_then(|()| writer.write_all(b"\n"))
            .and_then(|()| writer.flush());
        if let Err(error) = written {
            tracing::debug!(%error, "could not write to the trace");
        }
    }
}

/// Keeps events in memory (tests, `mcp-cli doctor`).
#[derive(Default)]
pub struct MemoryTrace {
    events: Mutex<Vec<TraceEvent>>,
}

impl MemoryTrace {
    /// Every event so far, in order.
    pub fn events(&self) -> Vec<TraceEvent> {
        self.events.lock().clone()
    }
}

impl TraceSink for MemoryTrace {
    fn record(&self, event: TraceEvent) {
        let mut events = self.events.lock();
        // Bounded: a trace in memory keeps the first 100 000 events.
        if events.len() < 100_000 {
            events.push(event);
        }
    }
}

/// A sink and the masker its events pass through.
#[derive(Clone)]
pub struct Tracer {
    sink: Arc<dyn TraceSink>,
    masker: Masker,
}

impl Tracer {
    /// Events go to `sink`, with message texts masked by `masker`.
    pub fn new(sink: Arc<dyn TraceSink>, masker: Masker) -> Self {
        Self { sink, masker }
    }

    /// The same sink with `masker` joined to this one's.
    pub fn with_masker(&self, masker: &Masker) -> Self {
        Self {
            sink: Arc::clone(&self.sink),
            masker: self.masker.union(masker),
        }
    }

    /// Records an HTTP event for `server` (its texts masked).
    pub fn http(&self, server: &str, event: HttpEvent) {
        let mask = |text: Option<String>| text.map(|text| self.masker.mask_string(text));
        let event = match event {
            HttpEvent::Response {
                method,
                status,
                content_type,
                session_id,
                www_authenticate,
                redirect,
            } => HttpEvent::Response {
                method,
                status,
                content_type,
                session_id,
                www_authenticate: mask(www_authenticate),
                redirect: mask(redirect),
            },
            other => other,
        };
        self.sink.record(TraceEvent::Http {
            server: server.to_owned(),
            event,
        });
    }

    /// Records a message for `server`.
    pub fn message(
        &self,
        server: &str,
        direction: Direction,
        bytes: &[u8],
        elapsed: Option<Duration>,
    ) {
        let truncated = bytes.len() > MAX_TRACED_MESSAGE;
        let text = if truncated {
            // Masked before the cut, so a secret across it never shows its start.
            let margin = MAX_TRACED_MESSAGE + self.masker.longest_secret();
            let head = String::from_utf8_lossy(&bytes[..bytes.len().min(margin)]);
            self.masker.mask_prefix(&head, MAX_TRACED_MESSAGE)
        } else {
            // A message is JSON: secrets spelled with escapes are found too.
            self.masker.mask_json_text(&String::from_utf8_lossy(bytes))
        };
        self.sink.record(TraceEvent::Message {
            server: server.to_owned(),
            direction,
            size: bytes.len(),
            elapsed,
            text,
            truncated,
        });
    }
}

impl std::fmt::Debug for Tracer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tracer")
            .field("masker", &self.masker)
            .finish_non_exhaustive()
    }
}

/// A transport whose every message in and out is traced.
pub struct TracedTransport {
    inner: Arc<dyn Transport>,
    server: String,
    tracer: Tracer,
    sent: Mutex<HashMap<RequestId, Instant>>,
}

impl TracedTransport {
    /// Traces `inner`'s messages for `server`.
    pub fn new(server: impl Into<String>, inner: Arc<dyn Transport>, tracer: Tracer) -> Self {
        Self {
            inner,
            server: server.into(),
            tracer,
            sent: Mutex::new(HashMap::new()),
        }
    }

    /// Traces a message going out; a request's time is noted.
    fn trace_out(&self, message: &Message) {
        if let Message::Request(request) = message {
            let mut sent = self.sent.lock();
            if sent.len() < MAX_PENDING {
                sent.insert(request.id.clone(), Instant::now());
            }
        }
        self.tracer
            .message(&self.server, Direction::Out, &message.to_vec(), None);
    }

    /// Traces a message coming in; an answer carries its request's time.
    fn trace_in(&self, message: &Message) {
        let elapsed = message
            .response_id()
            .and_then(|id| self.sent.lock().remove(id))
            .map(|sent| sent.elapsed());
        self.tracer
            .message(&self.server, Direction::In, &message.to_vec(), elapsed);
    }
}

#[async_trait]
impl Transport for TracedTransport {
    async fn send(&self, message: Message) -> Result<(), TransportError> {
        self.trace_out(&message);
        self.inner.send(message).await
    }

    async fn receive(&self) -> Result<Option<Inbound>, TransportError> {
        let received = self.inner.receive().await?;
        if let Some(Inbound::Message(message)) = &received {
            self.trace_in(message);
        }
        Ok(received)
    }

    async fn send_request(&self, request: Message) -> Result<Option<Message>, TransportError> {
        self.trace_out(&request);
        let answer = self.inner.send_request(request).await?;
        if let Some(message) = &answer {
            self.trace_in(message);
        }
        Ok(answer)
    }

    async fn close(&self) -> Result<(), TransportError> {
        self.inner.close().await
    }

    fn describe(&self) -> String {
        self.inner.describe()
    }

    fn info(&self) -> &dyn TransportInfo {
        self.inner.info()
    }

    fn resumed_handshake(&self) -> Option<crate::transport::ResumedHandshake> {
        self.inner.resumed_handshake()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::MemoryTransport;
    use mcpdisco_protocol::{Request, Response};

    #[tokio::test]
    async fn every_message_is_traced_in_order_masked_and_timed() {
        let (client, server) = MemoryTransport::pair();
        let trace = Arc::new(MemoryTrace::default());
        let tracer = Tracer::new(trace.clone(), Masker::new(["sk-live-0815abc"]));
        let traced = TracedTransport::new("t", Arc::new(client), tracer);
        traced
            .send(Message::Request(Request {
                id: RequestId::from(1),
                method: "tools/call".into(),
                params: Some(
                    json!({"name": "echo", "arguments": {"key": "sk-live-0815abc"}}).into(),
                ),
            }))
            .await
            .unwrap();
        let request = server
            .receive()
            .await
            .unwrap()
            .and_then(Inbound::into_message)
            .unwrap();
        assert_eq!(request.method(), Some("tools/call"));
        server
            .send(Message::Response(Response {
                id: RequestId::from(1),
                result: json!({"content": [{"type": "text", "text": "sk-live-0815abc"}]}).into(),
            }))
            .await
            .unwrap();
        traced
            .receive()
            .await
            .unwrap()
            .and_then(Inbound::into_message)
            .unwrap();
        let events = trace.events();
        assert_eq!(events.len(), 2);
        for event in &events {
            let line = event.to_json(SystemTime::now()).to_string();
            assert!(!line.contains("sk-live-0815abc"), "{line}");
            assert!(line.contains("***"), "{line}");
        }
        let TraceEvent::Message {
            direction: Direction::In,
            elapsed: Some(_),
            size,
            ..
        } = &events[1]
        else {
            panic!("{:?}", events[1])
        };
        assert!(*size > 0);
        let line = events[0].to_json(SystemTime::now());
        assert_eq!(line["dir"], "out");
        assert_eq!(line["message"]["method"], "tools/call");
    }

    /// Answers every request at once from `send_request`, as an HTTP POST with a JSON body does.
    struct AnswersAtOnce;

    #[async_trait]
    impl Transport for AnswersAtOnce {
        async fn send(&self, _message: Message) -> Result<(), TransportError> {
            Ok(())
        }

        async fn receive(&self) -> Result<Option<Inbound>, TransportError> {
            std::future::pending().await
        }

        async fn send_request(&self, request: Message) -> Result<Option<Message>, TransportError> {
            let Message::Request(request) = request else {
                return Ok(None);
            };
            Ok(Some(Message::Response(Response {
                id: request.id,
                result: json!({"ok": true}).into(),
            })))
        }

        async fn close(&self) -> Result<(), TransportError> {
            Ok(())
        }

        fn describe(&self) -> String {
            "answers at once".into()
        }
    }

    #[test]
    fn the_trace_passes_the_inner_transports_info_on() {
        let tracer = Tracer::new(Arc::new(MemoryTrace::default()), Masker::default());
        let (client, _server) = MemoryTransport::pair();
        struct Piped(MemoryTransport);
        #[async_trait]
        impl Transport for Piped {
            async fn send(&self, message: Message) -> Result<(), TransportError> {
                self.0.send(message).await
            }
            async fn receive(&self) -> Result<Option<Inbound>, TransportError> {
                self.0.receive().await
            }
            async fn close(&self) -> Result<(), TransportError> {
                self.0.close().await
            }
            fn describe(&self) -> String {
                "piped".into()
            }
            fn info(&self) -> &dyn TransportInfo {
                self
            }
        }
        impl TransportInfo for Piped {
            fn peer(&self) -> crate::transport::Peer {
                crate::transport::Peer::Pipe
            }
        }
        let traced = TracedTransport::new("t", Arc::new(Piped(client)), tracer);
        assert_eq!(traced.info().peer(), crate::transport::Peer::Pipe);
    }

    #[tokio::test]
    async fn an_answer_returned_by_send_request_is_traced_as_received() {
        let trace = Arc::new(MemoryTrace::default());
        let tracer = Tracer::new(trace.clone(), Masker::default());
        let traced = TracedTransport::new("t", Arc::new(AnswersAtOnce), tracer);
        let answer = traced
            .send_request(Message::Request(Request {
                id: RequestId::from(4),
                method: "ping".into(),
                params: None,
            }))
            .await
            .unwrap();
        assert_eq!(
            answer.and_then(|a| a.response_id().cloned()),
            Some(RequestId::from(4))
        );
        let events = trace.events();
        assert_eq!(events.len(), 2);
        let TraceEvent::Message {
            direction: Direction::In,
            elapsed: Some(_),
            ..
        } = &events[1]
        else {
            panic!("{:?}", events[1])
        };
    }
}
