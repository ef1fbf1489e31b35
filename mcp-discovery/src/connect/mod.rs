//! From a configured server to a connected [`Session`]: a [`Connector`]
//! opens the transport its launch names, then the session runs the
//! handshake.
//!
//! Connectors are registered by transport `type` in [`Connectors`]: the
//! built-in `stdio` and `http` (Streamable HTTP, legacy SSE, or detect), and
//! any third party's. A server whose config names another `type`
//! ([`Launch::Custom`](crate::config::Launch::Custom)) is started by the connector registered under it, like
//! the others: see [`MemoryConnector`] for a complete one, and the crate
//! docs of `mcp-transport` for writing the transport itself.
//!
//! ```
//! use std::sync::Arc;
//! use mcpdisco::config::{self, ProcessEnv};
//! use mcpdisco::connect::{Connectors, MemoryConnector};
//!
//! // Register a connector, and let configs name its type.
//! let connectors = Connectors::builtin().with(
//!     "memory",
//!     Arc::new(MemoryConnector::new(|_server| Err("no servers in this example".into()))),
//! );
//! let file = config::parse_str_with(
//!     "/p/.mcp.json".as_ref(),
//!     r#"{"mcpServers": {"inproc": {"type": "memory", "server": "demo"}}}"#,
//!     &ProcessEnv,
//!     &connectors.parse_options(),
//! ).unwrap();
//! assert_eq!(file.servers[0].launch.transport_type(), "memory");
//! ```

mod builtin;
mod memory;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use mcpdisco_transport::Transport;
use mcpdisco_transport::codec::ndjson::SkipLog;
use mcpdisco_transport::http::HttpClient;
use mcpdisco_transport::secret::Masker;
use mcpdisco_transport::trace::Tracer;

pub use builtin::{HttpConnector, StdioConnector};
pub use memory::MemoryConnector;

use crate::config::{ParseOptions, ServerConfig};
use mcpdisco_client::policy::{LayerStack, RequestLayer};
use mcpdisco_client::session::{ErrorKind, Session, SessionError, SessionOptions};

/// How a launched server is stopped: the graces of the stdio shutdown sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StopGraces {
    /// After closing stdin, before SIGTERM.
    pub after_eof: Duration,
    /// After SIGTERM, before SIGKILL.
    pub after_term: Duration,
}

impl Default for StopGraces {
    fn default() -> Self {
        Self {
            after_eof: Duration::from_secs(2),
            after_term: Duration::from_secs(2),
        }
    }
}

/// What a connector may use to open a connection.
#[derive(Clone, Default)]
pub struct ConnectContext {
    /// The pooled HTTP client; the process-wide shared one when `None`.
    pub http: Option<HttpClient>,
    /// How a child process is stopped.
    pub graces: StopGraces,
    /// Where transports report HTTP events, when tracing.
    pub tracer: Option<Tracer>,
    /// Secrets to mask besides the server's own (the session's masker).
    pub masker: Masker,
    /// Where HTTP servers' tokens live and how a user approves; without it,
    /// tokens live for the process and a server that needs a user fails
    /// with `auth_required`. The `oauth` feature.
    #[cfg(feature = "oauth")]
    pub auth: Option<mcpdisco_client::auth::AuthContext>,
}

impl std::fmt::Debug for ConnectContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConnectContext")
            .field("graces", &self.graces)
            .field("tracing", &self.tracer.is_some())
            .finish_non_exhaustive()
    }
}

/// What a connection can tell about its server beyond messages: what
/// diagnostics quote when a server fails.
pub trait ConnectionDetails: Send + Sync {
    /// The end of what the server wrote to stderr (masked); empty when there is none.
    fn stderr_tail(&self) -> String {
        String::new()
    }

    /// The lines of output skipped as not JSON-RPC (noise, oversized), if the transport reads lines.
    fn skipped_lines(&self) -> Option<SkipLog> {
        None
    }
}

/// Details of a transport that has none to give.
struct NoDetails;

impl ConnectionDetails for NoDetails {}

/// An open transport to a configured server, before the handshake.
#[derive(Clone)]
pub struct Connection {
    transport: Arc<dyn Transport>,
    details: Arc<dyn ConnectionDetails>,
    /// Layers the session over it needs (an HTTP server's authorization),
    /// innermost in its stack.
    layers: LayerStack,
    /// Secrets those layers hold.
    masker: Masker,
}

impl Connection {
    /// A connection over `transport`, with nothing more to tell.
    pub fn new(transport: Arc<dyn Transport>) -> Self {
        Self::with_details(transport, Arc::new(NoDetails))
    }

    /// A connection whose `details` diagnostics can quote.
    pub fn with_details(
        transport: Arc<dyn Transport>,
        details: Arc<dyn ConnectionDetails>,
    ) -> Self {
        Self {
            transport,
            details,
            layers: LayerStack::empty(),
            masker: Masker::default(),
        }
    }

    /// The same, with a layer the session over it must run (innermost in
    /// its stack, inside the options' own layers), and the secrets it holds.
    pub fn with_layer(mut self, layer: impl RequestLayer, masker: Masker) -> Self {
        self.layers = self.layers.layer(layer);
        self.masker = self.masker.union(&masker);
        self
    }

    /// `options` for the session over this connection: its layers added
    /// innermost to the options' stack, its secrets masked.
    pub fn session_options(&self, options: SessionOptions) -> SessionOptions {
        let mut options = options;
        options.stack = options.stack.append(self.layers.clone());
        options.masker = options.masker.union(&self.masker);
        options
    }

    /// The transport, for the session.
    pub fn transport(&self) -> Arc<dyn Transport> {
        Arc::clone(&self.transport)
    }

    /// What the connection can tell about its server.
    pub fn details(&self) -> &dyn ConnectionDetails {
        self.details.as_ref()
    }

    /// The end of the server's stderr (stdio only; empty otherwise).
    pub fn stderr_tail(&self) -> String {
        self.details.stderr_tail()
    }

    /// Closes the transport: the process is stopped and reaped, the HTTP session ended.
    pub async fn close(&self) {
        if let Err(error) = self.transport.close().await {
            tracing::debug!(%error, "closing the transport");
        }
    }
}

/// Opens connections for one transport `type`.
#[async_trait]
pub trait Connector: Send + Sync {
    /// Starts `server` (spawns its process, opens its connection). An error
    /// names the server and the cause; the caller masks it.
    async fn open(
        &self,
        server: &ServerConfig,
        context: &ConnectContext,
    ) -> Result<Connection, SessionError>;
}

/// The connectors by transport `type`. Cheap to clone.
#[derive(Clone)]
pub struct Connectors {
    by_type: BTreeMap<String, Arc<dyn Connector>>,
}

impl Default for Connectors {
    fn default() -> Self {
        Self::builtin()
    }
}

impl std::fmt::Debug for Connectors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.by_type.keys()).finish()
    }
}

/// The `type`s the built-in connectors serve.
pub const BUILTIN_TYPES: [&str; 2] = ["stdio", "http"];

impl Connectors {
    /// `stdio` and `http` (which also serves `sse` and `streamable-http` configs).
    pub fn builtin() -> Self {
        let mut by_type: BTreeMap<String, Arc<dyn Connector>> = BTreeMap::new();
        by_type.insert("stdio".into(), Arc::new(StdioConnector));
        by_type.insert("http".into(), Arc::new(HttpConnector));
        Self { by_type }
    }

    /// The same, with `connector` serving `transport_type` (replacing any there).
    pub fn with(
        mut self,
        transport_type: impl Into<String>,
        connector: Arc<dyn Connector>,
    ) -> Self {
        self.by_type.insert(transport_type.into(), connector);
        self
    }

    /// Every registered type, built-ins included.
    pub fn types(&self) -> impl Iterator<Item = &str> {
        self.by_type.keys().map(String::as_str)
    }

    /// How to read configs whose servers may name any registered type: the
    /// types besides the built-in ones are custom transports.
    pub fn parse_options(&self) -> ParseOptions {
        ParseOptions::with_custom_types(self.types().filter(|t| !BUILTIN_TYPES.contains(t)))
    }

    /// Opens `server` with the connector of its launch's type; errors are masked.
    pub async fn open(
        &self,
        server: &ServerConfig,
        context: &ConnectContext,
    ) -> Result<Connection, SessionError> {
        let transport_type = server.launch.transport_type();
        let result = match self.by_type.get(transport_type) {
            Some(connector) => connector.open(server, context).await,
            None => Err(SessionError::new(
                &server.name,
                "start",
                ErrorKind::Unsupported {
                    reason: format!(
                        "no connector for transport type \"{transport_type}\" (registered: {})",
                        self.types().collect::<Vec<_>>().join(", ")
                    ),
                },
            )),
        };
        result.map_err(|error| error.masked(&context.masker.union(&server.masker())))
    }
}

/// Starts `server` and connects a session to it with the built-in connectors
/// (HTTP servers use `http`, or the shared client). The session masks the
/// server's secrets ([`ServerConfig::masker`]) on top of `options.masker`.
pub async fn connect(
    server: &ServerConfig,
    http: Option<&HttpClient>,
    options: &SessionOptions,
) -> Result<Session, SessionError> {
    let context = ConnectContext {
        http: http.cloned(),
        graces: StopGraces::default(),
        tracer: options.tracer.clone(),
        masker: options.masker.clone(),
        #[cfg(feature = "oauth")]
        auth: None,
    };
    connect_with(&Connectors::builtin(), server, &context, options).await
}

/// Like [`connect`], with your connectors and context.
pub async fn connect_with(
    connectors: &Connectors,
    server: &ServerConfig,
    context: &ConnectContext,
    options: &SessionOptions,
) -> Result<Session, SessionError> {
    let options = options_for(server, options);
    let connection = connectors.open(server, context).await?;
    let options = connection.session_options(options);
    Session::connect_shared(&server.name, connection.transport(), options).await
}

/// `options` for a session with `server`: its masker joins theirs, and its
/// own rate limit (`rateLimit` in its config) replaces theirs.
pub fn options_for(server: &ServerConfig, options: &SessionOptions) -> SessionOptions {
    let mut options = options.clone();
    options.masker = options.masker.union(&server.masker());
    if let Some(limit) = server.rate_limit {
        options.stack.set_rate_limit(Some(limit));
    }
    options
}
