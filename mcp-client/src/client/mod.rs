//! [`Client`]: a connected [`Session`] in one expression.
//!
//! ```no_run
//! # #[cfg(feature = "stdio")]
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use mcpdisco_client::Client;
//!
//! let session = Client::stdio("uvx").args(["mcp-server-time"]).connect().await?;
//! # Ok(()) }
//! ```
//!
//! A `Client` says which server to reach and how to speak to it; its
//! [`connect`](Client::connect) starts the transport (a child process, an
//! HTTP connection, or a transport of yours), detects the era and completes
//! the handshake. The three starts:
//!
//! * [`Client::stdio`] (feature `stdio`): a program started as a child
//!   process, named after its file stem; [`Stdio`]'s setters take its
//!   arguments, environment, working directory and where its stderr goes.
//! * [`Client::http`] (feature `http`): a Streamable HTTP (or legacy SSE)
//!   endpoint, named after the URL's host; [`Http`]'s setters take headers
//!   and a bearer token.
//! * [`Client::transport`]: any [`Transport`].
//!
//! Every start takes the session's settings: [`name`](Client::name),
//! [`options`](Client::options) (all of [`SessionOptions`]), and the common
//! ones directly ([`handler`](Client::handler), [`era`](Client::era),
//! [`request_timeout`](Client::request_timeout),
//! [`initialize_timeout`](Client::initialize_timeout)). The session's
//! masker also gets the secrets the start was given (environment values,
//! credential-like arguments, headers, the URL's userinfo), so what the
//! server sends back never shows them.

#[cfg(feature = "http")]
mod http;
#[cfg(feature = "stdio")]
mod stdio;

use std::sync::Arc;
use std::time::Duration;

use mcpdisco_transport::{Peer, Transport};

use crate::session::{ClientHandler, EraPreference, Session, SessionError, SessionOptions};

#[cfg(feature = "http")]
pub use http::Http;
#[cfg(feature = "stdio")]
pub use stdio::Stdio;

/// A server to connect to, and how: its start (`S`: [`Stdio`], [`Http`],
/// [`Custom`]), its name, and the session's options. Made by
/// [`Client::stdio`], [`Client::http`] or [`Client::transport`]; each
/// setter consumes and returns it; [`connect`](Client::connect) gives the
/// [`Session`].
#[derive(Debug, Clone)]
#[must_use = "a client does nothing until it connects"]
pub struct Client<S> {
    start: S,
    name: String,
    options: SessionOptions,
}

/// The start of a [`Client`] over a transport of yours.
#[derive(Clone)]
pub struct Custom {
    transport: Arc<dyn Transport>,
}

impl std::fmt::Debug for Custom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Custom")
            .field("peer", &self.transport.info().peer())
            .finish()
    }
}

impl<S> Client<S> {
    fn with_start(start: S, name: String) -> Self {
        Self {
            start,
            name,
            options: SessionOptions::default(),
        }
    }

    /// Names the server (for errors, logs and traces).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Replaces the session's options (those set so far included).
    pub fn options(mut self, options: SessionOptions) -> Self {
        self.options = options;
        self
    }

    /// Sets what answers the server's requests: roots, sampling, elicitation
    /// ([`SessionOptions::handler`]).
    pub fn handler(mut self, handler: impl ClientHandler) -> Self {
        self.options = self.options.handler(handler);
        self
    }

    /// Sets which era to speak ([`SessionOptions::era`]).
    pub fn era(mut self, era: EraPreference) -> Self {
        self.options = self.options.era(era);
        self
    }

    /// Sets each request's default timeout ([`SessionOptions::request_timeout`]).
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.options = self.options.request_timeout(timeout);
        self
    }

    /// Sets how long the legacy handshake may take
    /// ([`SessionOptions::initialize_timeout`]).
    pub fn initialize_timeout(mut self, timeout: Duration) -> Self {
        self.options = self.options.initialize_timeout(timeout);
        self
    }
}

impl Client<Custom> {
    /// A client over `transport`, named after its peer's host (else
    /// `server`).
    pub fn transport(transport: impl Transport) -> Self {
        let name = match transport.info().peer() {
            Peer::Tcp { host, .. } => host,
            Peer::Pipe | Peer::Unknown => "server".to_owned(),
        };
        Self::with_start(
            Custom {
                transport: Arc::new(transport),
            },
            name,
        )
    }

    /// Detects the era and completes the handshake over the transport.
    pub async fn connect(self) -> Result<Session, SessionError> {
        Session::connect_shared(&self.name, self.start.transport, self.options).await
    }
}

#[cfg(test)]
mod tests;
