//! The [`Transport`] trait: the one seam between session logic and bytes.

use async_trait::async_trait;
use mcpdisco_protocol::Message;

use crate::error::TransportError;

/// A bidirectional channel of MCP messages to one server.
///
/// A transport only moves messages. It knows nothing about handshakes, ids or
/// timeouts; those belong to the session that drives it.
///
/// # Contract
/// - [`send`](Transport::send) may be called concurrently from many tasks. It
///   returns once the message has been handed to the connection (written to the
///   child's stdin, or accepted by the HTTP server). An error from `send`
///   concerns that one message: for a request, the session fails the request.
/// - [`receive`](Transport::receive) is called by one task at a time. It must be
///   cancel-safe: dropping its future loses no message. `Ok(None)` means the
///   peer ended the stream cleanly; an `Err` means the connection is gone, and
///   every later call returns an error too (for a child process it carries the
///   exit status and the end of stderr).
/// - [`close`](Transport::close) ends the connection gracefully and releases
///   everything it holds (processes are reaped, HTTP sessions deleted). It is
///   idempotent. Dropping a transport without closing it must still release
///   its resources, if less gracefully.
///
/// Batches that arrive as JSON arrays are flattened: `receive` yields their
/// messages one by one, in order.
///
/// # Adding a transport
/// Implement these three methods for your connection type; see the crate
/// documentation and `examples/tcp_transport.rs`.
#[async_trait]
pub trait Transport: Send + Sync + 'static {
    /// Sends one message to the server.
    async fn send(&self, message: Message) -> Result<(), TransportError>;

    /// Waits for the next message from the server.
    async fn receive(&self) -> Result<Option<Message>, TransportError>;

    /// Sends one request, like [`send`](Transport::send), and returns its
    /// answer when the send itself brings it (an HTTP POST answered with a
    /// JSON body, or with an event stream whose first message is the
    /// answer): that answer is then not also yielded by
    /// [`receive`](Transport::receive), which saves the session a hand-off
    /// between tasks. `Ok(None)`: the answer comes through `receive`.
    ///
    /// Such a send may last until the answer: callers bound it with the
    /// request's timeout (the session does, and counts progress meanwhile).
    ///
    /// The default sends and returns `Ok(None)`; a transport whose answers
    /// always arrive on a stream has no reason to override it.
    async fn send_request(&self, request: Message) -> Result<Option<Message>, TransportError> {
        self.send(request).await.map(|()| None)
    }

    /// Closes the connection gracefully. Idempotent.
    async fn close(&self) -> Result<(), TransportError>;

    /// A short description for logs and errors, such as `stdio: npx -y server` or
    /// `http: https://example.com/mcp`. It must never contain a secret.
    fn describe(&self) -> String;

    /// Where the messages go, for telemetry (`network.transport`,
    /// `server.address`, `server.port`). [`Peer::Unknown`] by default.
    fn peer(&self) -> Peer {
        Peer::Unknown
    }

    /// The HTTP session id the server issued (legacy Streamable HTTP
    /// sessions only), for telemetry. `None` by default.
    fn session_id(&self) -> Option<String> {
        None
    }
}

/// Where a transport's messages go, as telemetry names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Peer {
    /// A child process's pipes (stdio): `network.transport` = `pipe`.
    Pipe,
    /// A TCP connection (HTTP): `network.transport` = `tcp`, with the host
    /// (never userinfo) and port of the server's URL.
    Tcp {
        /// The URL's host.
        host: String,
        /// The URL's port, or its scheme's default.
        port: u16,
    },
    /// Anything else (in memory, a third party's transport).
    Unknown,
}

impl Peer {
    #[cfg(feature = "url")]
    /// The peer of an HTTP server at `url` (its host and port; `Unknown`
    /// when it has none).
    pub fn of_url(url: &url::Url) -> Self {
        match (url.host_str(), url.port_or_known_default()) {
            (Some(host), Some(port)) => Peer::Tcp {
                host: host.to_owned(),
                port,
            },
            _ => Peer::Unknown,
        }
    }
}

#[async_trait]
impl<T: Transport + ?Sized> Transport for Box<T> {
    async fn send(&self, message: Message) -> Result<(), TransportError> {
        (**self).send(message).await
    }

    async fn receive(&self) -> Result<Option<Message>, TransportError> {
        (**self).receive().await
    }

    async fn send_request(&self, request: Message) -> Result<Option<Message>, TransportError> {
        (**self).send_request(request).await
    }

    async fn close(&self) -> Result<(), TransportError> {
        (**self).close().await
    }

    fn describe(&self) -> String {
        (**self).describe()
    }

    fn peer(&self) -> Peer {
        (**self).peer()
    }

    fn session_id(&self) -> Option<String> {
        (**self).session_id()
    }
}

#[async_trait]
impl<T: Transport + ?Sized> Transport for std::sync::Arc<T> {
    async fn send(&self, message: Message) -> Result<(), TransportError> {
        (**self).send(message).await
    }

    async fn receive(&self) -> Result<Option<Message>, TransportError> {
        (**self).receive().await
    }

    async fn send_request(&self, request: Message) -> Result<Option<Message>, TransportError> {
        (**self).send_request(request).await
    }

    async fn close(&self) -> Result<(), TransportError> {
        (**self).close().await
    }

    fn describe(&self) -> String {
        (**self).describe()
    }

    fn peer(&self) -> Peer {
        (**self).peer()
    }

    fn session_id(&self) -> Option<String> {
        (**self).session_id()
    }
}

/// The code of the error answer a transport makes up for a request whose
/// real answer it knows will never come (see [`lost_answer`]).
pub const LOST_ANSWER_CODE: i64 = -32099;
/// The `data` member that marks a made-up answer, so a server's own -32099 is never mistaken for one.
const LOST_ANSWER_MARK: &str = "io.mcp-discovery/lost-answer";

/// An error answer to request `id`, made up by a transport that knows the
/// real answer will never come: a response stream broke before it and
/// cannot be resumed. The session fails the request at once (as "sent, then
/// the connection was lost") instead of waiting out its timeout, and re-issues
/// it when it is idempotent. A transport yields it from `receive`.
pub fn lost_answer(id: mcpdisco_protocol::RequestId, reason: impl Into<String>) -> Message {
    Message::Error(mcpdisco_protocol::ErrorResponse {
        id: Some(id),
        error: mcpdisco_protocol::ErrorObject {
            code: mcpdisco_protocol::ErrorCode(LOST_ANSWER_CODE),
            message: reason.into(),
            data: Some(serde_json::json!({ LOST_ANSWER_MARK: true })),
        },
    })
}

/// Whether an error answer was made up by [`lost_answer`].
pub fn is_lost_answer(error: &mcpdisco_protocol::ErrorObject) -> bool {
    error.code == mcpdisco_protocol::ErrorCode(LOST_ANSWER_CODE)
        && error
            .data
            .as_ref()
            .and_then(|data| data.get(LOST_ANSWER_MARK))
            .is_some_and(|mark| mark == &serde_json::Value::Bool(true))
}
