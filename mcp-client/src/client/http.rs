//! [`Client::http`]: a server at an HTTP endpoint.

use mcpdisco_transport::Peer;
use mcpdisco_transport::http::{HttpClient, HttpConfig, HttpKind, HttpTransport};
use mcpdisco_transport::secret::SecretUrl;

use super::Client;
use crate::session::{Session, SessionError};

/// The start of a [`Client`] that reaches an HTTP endpoint: its
/// [`HttpConfig`], which transport to speak ([`HttpKind`]) and the pooled
/// client to speak it with, set through the client's setters.
#[derive(Debug, Clone)]
pub struct Http {
    config: HttpConfig,
    kind: HttpKind,
    client: Option<HttpClient>,
}

impl Client<Http> {
    /// A client of the MCP endpoint at `url` (Streamable HTTP, falling back
    /// to the legacy HTTP+SSE transport), named after the URL's host.
    pub fn http(url: impl Into<SecretUrl>) -> Self {
        let mut config = HttpConfig::new(String::new(), url);
        config.name = match config.peer() {
            Peer::Tcp { host, .. } => host,
            Peer::Pipe | Peer::Unknown => "server".to_owned(),
        };
        Self::from(config)
    }

    fn config(mut self, change: impl FnOnce(HttpConfig) -> HttpConfig) -> Self {
        self.start.config = change(self.start.config);
        self
    }

    /// Adds a header sent with every request; its value is a secret, masked
    /// in everything the server sends.
    pub fn header(self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.config(|config| config.header(name, value))
    }

    /// Sends `Authorization: Bearer <token>` with every request; the token
    /// is masked in everything the server sends.
    pub fn bearer_token(self, token: impl Into<String>) -> Self {
        self.config(|config| config.bearer_token(token))
    }

    /// Sets which HTTP transport to speak (by default Streamable HTTP,
    /// falling back to HTTP+SSE).
    pub fn kind(mut self, kind: HttpKind) -> Self {
        self.start.kind = kind;
        self
    }

    /// Sets the pooled HTTP client to use (by default the process-wide one,
    /// [`HttpClient::shared`]).
    pub fn http_client(mut self, client: HttpClient) -> Self {
        self.start.client = Some(client);
        self
    }

    /// Connects, detects the era and completes the handshake. On failure
    /// the connection is closed.
    pub async fn connect(self) -> Result<Session, SessionError> {
        let Self {
            start:
                Http {
                    mut config,
                    kind,
                    client,
                },
            name,
            mut options,
        } = self;
        config.name.clone_from(&name);
        // What the server sends back is masked with the start's secrets too,
        // and what the transport passes on with the session's.
        options.masker = options
            .masker
            .union(&config.masker)
            .union(&config.own_masker());
        config.masker = options.masker.clone();
        if config.tracer.is_none() {
            config.tracer = options
                .tracer
                .as_ref()
                .map(|tracer| tracer.with_masker(&config.masker));
        }
        let client = match client {
            Some(client) => client,
            None => HttpClient::shared()
                .map_err(|error| SessionError::from_transport(&name, "connect", error))?,
        };
        let transport = HttpTransport::connect(config, &client, kind)
            .await
            .map_err(|error| SessionError::from_transport(&name, "connect", error))?;
        Session::connect(&name, transport, options).await
    }
}

impl From<HttpConfig> for Client<Http> {
    /// A client of the endpoint of `config`, under its name.
    fn from(config: HttpConfig) -> Self {
        let name = config.name.clone();
        Self::with_start(
            Http {
                config,
                kind: HttpKind::default(),
                client: None,
            },
            name,
        )
    }
}
