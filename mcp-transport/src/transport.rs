//! The [`Transport`] trait: the one seam between session logic and bytes.

use async_trait::async_trait;
use mcpdisco_protocol::Message;
use mcpdisco_protocol::types::{ClientCapabilities, Implementation};

use crate::error::TransportError;
use crate::inbound::Inbound;

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
///   cancel-safe: dropping its future loses no message. It yields the
///   server's messages, and [`Inbound::AnswerLost`] for a request whose
///   answer the transport knows will never come (a response stream broke and
///   cannot be resumed). `Ok(None)` means the
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
/// Implement `send`, `receive`, `close` and `describe` for your connection
/// type; see the crate documentation and `examples/tcp_transport.rs`. What
/// only telemetry reads (where the messages go, an HTTP session id) is
/// [`TransportInfo`], which a transport may offer through
/// [`info`](Transport::info); by default it offers nothing.
#[async_trait]
pub trait Transport: Send + Sync + 'static {
    /// Sends one message to the server.
    async fn send(&self, message: Message) -> Result<(), TransportError>;

    /// Waits for the next message from the server.
    async fn receive(&self) -> Result<Option<Inbound>, TransportError>;

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

    /// Sends `messages` in order, like [`send`](Transport::send) for each,
    /// stopping at the first failure. A transport that writes a stream may
    /// write them together (stdio: one write for what fits its buffer), so
    /// that answers finished together cost one system call, not one each.
    ///
    /// The default sends them one by one.
    async fn send_all(&self, messages: Vec<Message>) -> Result<(), TransportError> {
        for message in messages {
            self.send(message).await?;
        }
        Ok(())
    }

    /// Closes the connection gracefully. Idempotent.
    async fn close(&self) -> Result<(), TransportError>;

    /// A short description for logs and errors, such as `stdio: npx -y server` or
    /// `http: https://example.com/mcp`. It must never contain a secret.
    fn describe(&self) -> String;

    /// What telemetry may read about the connection. By default nothing
    /// ([`Peer::Unknown`], no session id); the built-in transports return
    /// themselves.
    fn info(&self) -> &dyn TransportInfo {
        &NoInfo
    }

    /// The handshake of a session this connection takes up again with no
    /// new `initialize` (seen from a server: a sealed HTTP session id
    /// opened by a replica that never saw the session, or no longer held
    /// it), from which the server restores the session's state. `None` by
    /// default: the connection begins with a handshake of its own.
    fn resumed_handshake(&self) -> Option<ResumedHandshake> {
        None
    }

    /// A name of this connection's session that may be shared and stored
    /// by a fleet of servers (a digest of the session id, never the id),
    /// once it has one; `None` by default.
    fn session_key(&self) -> Option<String> {
        None
    }
}

/// What a legacy session's `initialize` settled, carried by a resumed
/// connection ([`Transport::resumed_handshake`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ResumedHandshake {
    /// The protocol version the handshake settled on.
    pub protocol_version: String,
    /// The client's declared `capabilities`.
    pub client_capabilities: ClientCapabilities,
    /// The client's `clientInfo`, when it sent one.
    pub client_info: Option<Implementation>,
}

impl ResumedHandshake {
    /// The handshake of `protocol_version`, with the client's capabilities and info.
    pub fn new(
        protocol_version: impl Into<String>,
        client_capabilities: ClientCapabilities,
        client_info: Option<Implementation>,
    ) -> Self {
        Self {
            protocol_version: protocol_version.into(),
            client_capabilities,
            client_info,
        }
    }
}

/// What only telemetry reads about a connection, apart from the
/// [`Transport`] that moves its messages. Both methods have defaults, so a
/// transport implements only what it knows.
pub trait TransportInfo: Send + Sync {
    /// Where the messages go (`network.transport`, `server.address`,
    /// `server.port`). [`Peer::Unknown`] by default.
    fn peer(&self) -> Peer {
        Peer::Unknown
    }

    /// The HTTP session id the server issued (legacy Streamable HTTP
    /// sessions only). `None` by default.
    fn session_id(&self) -> Option<String> {
        None
    }
}

/// The information of a transport that offers none.
struct NoInfo;

impl TransportInfo for NoInfo {}

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

    async fn receive(&self) -> Result<Option<Inbound>, TransportError> {
        (**self).receive().await
    }

    async fn send_request(&self, request: Message) -> Result<Option<Message>, TransportError> {
        (**self).send_request(request).await
    }

    async fn send_all(&self, messages: Vec<Message>) -> Result<(), TransportError> {
        (**self).send_all(messages).await
    }

    async fn close(&self) -> Result<(), TransportError> {
        (**self).close().await
    }

    fn describe(&self) -> String {
        (**self).describe()
    }

    fn info(&self) -> &dyn TransportInfo {
        (**self).info()
    }

    fn resumed_handshake(&self) -> Option<ResumedHandshake> {
        (**self).resumed_handshake()
    }

    fn session_key(&self) -> Option<String> {
        (**self).session_key()
    }
}

#[async_trait]
impl<T: Transport + ?Sized> Transport for std::sync::Arc<T> {
    async fn send(&self, message: Message) -> Result<(), TransportError> {
        (**self).send(message).await
    }

    async fn receive(&self) -> Result<Option<Inbound>, TransportError> {
        (**self).receive().await
    }

    async fn send_request(&self, request: Message) -> Result<Option<Message>, TransportError> {
        (**self).send_request(request).await
    }

    async fn send_all(&self, messages: Vec<Message>) -> Result<(), TransportError> {
        (**self).send_all(messages).await
    }

    async fn close(&self) -> Result<(), TransportError> {
        (**self).close().await
    }

    fn describe(&self) -> String {
        (**self).describe()
    }

    fn info(&self) -> &dyn TransportInfo {
        (**self).info()
    }

    fn resumed_handshake(&self) -> Option<ResumedHandshake> {
        (**self).resumed_handshake()
    }

    fn session_key(&self) -> Option<String> {
        (**self).session_key()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Moves nothing; knows only how to move it.
    struct Plain;

    #[async_trait]
    impl Transport for Plain {
        async fn send(&self, _message: Message) -> Result<(), TransportError> {
            Ok(())
        }
        async fn receive(&self) -> Result<Option<Inbound>, TransportError> {
            Ok(None)
        }
        async fn close(&self) -> Result<(), TransportError> {
            Ok(())
        }
        fn describe(&self) -> String {
            "plain".into()
        }
    }

    /// A transport that offers its telemetry facts.
    struct Described;

    #[async_trait]
    impl Transport for Described {
        async fn send(&self, _message: Message) -> Result<(), TransportError> {
            Ok(())
        }
        async fn receive(&self) -> Result<Option<Inbound>, TransportError> {
            Ok(None)
        }
        async fn close(&self) -> Result<(), TransportError> {
            Ok(())
        }
        fn describe(&self) -> String {
            "described".into()
        }
        fn info(&self) -> &dyn TransportInfo {
            self
        }
    }

    impl TransportInfo for Described {
        fn peer(&self) -> Peer {
            Peer::Pipe
        }
        fn session_id(&self) -> Option<String> {
            Some("s-1".into())
        }
    }

    #[test]
    fn a_transport_that_offers_no_info_is_unknown() {
        let plain: std::sync::Arc<dyn Transport> = std::sync::Arc::new(Plain);
        assert_eq!(plain.info().peer(), Peer::Unknown);
        assert_eq!(plain.info().session_id(), None);
    }

    #[test]
    fn boxes_and_arcs_pass_the_info_on() {
        let shared: std::sync::Arc<dyn Transport> =
            std::sync::Arc::new(Box::new(std::sync::Arc::new(Described)));
        assert_eq!(shared.info().peer(), Peer::Pipe);
        assert_eq!(shared.info().session_id().as_deref(), Some("s-1"));
    }
}
