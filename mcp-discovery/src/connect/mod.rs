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
//! let file = config::parse_str(
//!     "/p/.mcp.json".as_ref(),
//!     r#"{"mcpServers": {"inproc": {"type": "memory", "server": "demo"}}}"#,
//!     &ProcessEnv,
//!     &connectors.parse_options(),
//! ).unwrap();
//! assert_eq!(file.servers[0].launch.transport_type(), "memory");
//! ```
//!
//! [`connect`] starts one server and runs the handshake, as
//! [`ConnectOptions`] say:
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use mcpdisco::config::ServerConfig;
//! use mcpdisco::connect::{ConnectOptions, connect};
//! let server = ServerConfig::stdio("files", "npx", ["-y", "@modelcontextprotocol/server-filesystem", "."], ".");
//! let session = connect(&server, &ConnectOptions::default()).await?;
//! println!("{:?}", session.server_info());
//! # Ok(()) }
//! ```

mod builtin;
mod connection;
mod connector;
mod memory;

use std::collections::BTreeMap;
use std::sync::Arc;

use mcpdisco_client::session::{ErrorKind, Session, SessionError, SessionOptions};
#[cfg(feature = "http")]
use mcpdisco_transport::http::HttpClient;

#[cfg(feature = "http")]
pub use builtin::HttpConnector;
#[cfg(feature = "stdio")]
pub use builtin::StdioConnector;
pub use connection::{Connection, ConnectionDetails};
pub use connector::{ConnectContext, Connector, StopGraces};
pub use memory::MemoryConnector;

use crate::config::{ParseOptions, ServerConfig};

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
    /// `stdio` and `http` (which also serves `sse` and `streamable-http`
    /// configs). In a build without the feature of one (`stdio`, `http`),
    /// a server of that type fails to start with an error naming the feature.
    pub fn builtin() -> Self {
        let mut by_type: BTreeMap<String, Arc<dyn Connector>> = BTreeMap::new();
        #[cfg(feature = "stdio")]
        by_type.insert("stdio".into(), Arc::new(StdioConnector));
        #[cfg(not(feature = "stdio"))]
        by_type.insert("stdio".into(), Arc::new(builtin::LeftOut("stdio")));
        #[cfg(feature = "http")]
        by_type.insert("http".into(), Arc::new(HttpConnector));
        #[cfg(not(feature = "http"))]
        by_type.insert("http".into(), Arc::new(builtin::LeftOut("http")));
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
        ParseOptions::default().custom_types(self.types().filter(|t| !BUILTIN_TYPES.contains(t)))
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

/// How [`connect`] starts a server and runs its session. Built from
/// [`ConnectOptions::default`] (the built-in connectors, default session
/// options) and the setters below (a new option is then no breaking change).
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct ConnectOptions {
    /// The session's options; its tracer and masker are the connectors' too.
    pub session: SessionOptions,
    /// What starts the server, by transport `type`.
    pub connectors: Connectors,
    /// The pooled HTTP client; the process-wide shared one when `None`.
    /// The `http` feature.
    #[cfg(feature = "http")]
    pub http: Option<HttpClient>,
    /// How a child process is stopped.
    pub graces: StopGraces,
    /// Where HTTP servers' tokens live and how a user approves; without it,
    /// tokens live for the process and a server that needs a user fails
    /// with `auth_required`. The `oauth` feature.
    #[cfg(feature = "oauth")]
    pub auth: Option<mcpdisco_client::auth::AuthContext>,
}

impl std::fmt::Debug for ConnectOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConnectOptions")
            .field("session", &self.session)
            .field("connectors", &self.connectors)
            .field("graces", &self.graces)
            .finish_non_exhaustive()
    }
}

impl ConnectOptions {
    /// The session's options.
    pub fn session(mut self, session: SessionOptions) -> Self {
        self.session = session;
        self
    }

    /// What starts the server (default: the built-in connectors).
    pub fn connectors(mut self, connectors: Connectors) -> Self {
        self.connectors = connectors;
        self
    }

    /// The pooled HTTP client (default: the process-wide shared one). The
    /// `http` feature.
    #[cfg(feature = "http")]
    pub fn http(mut self, http: impl Into<Option<HttpClient>>) -> Self {
        self.http = http.into();
        self
    }

    /// How a child process is stopped.
    pub fn graces(mut self, graces: StopGraces) -> Self {
        self.graces = graces;
        self
    }

    /// Where HTTP servers' tokens live and how a user approves. The `oauth` feature.
    #[cfg(feature = "oauth")]
    pub fn auth(mut self, auth: impl Into<Option<mcpdisco_client::auth::AuthContext>>) -> Self {
        self.auth = auth.into();
        self
    }

    /// What the connectors get.
    fn context(&self) -> ConnectContext {
        let context = ConnectContext::for_session(&self.session).graces(self.graces);
        #[cfg(feature = "http")]
        let context = context.http(self.http.clone());
        #[cfg(feature = "oauth")]
        let context = context.auth(self.auth.clone());
        context
    }
}

/// Starts `server` with the connector of its transport `type` and connects
/// a session to it, as `options` say (`&ConnectOptions::default()`: the
/// built-in connectors and default session options). The session masks the
/// server's secrets ([`ServerConfig::masker`]) on top of the options' masker,
/// and the server's own `rateLimit` replaces theirs ([`options_for`]).
pub async fn connect(
    server: &ServerConfig,
    options: &ConnectOptions,
) -> Result<Session, SessionError> {
    let context = options.context();
    let session_options = options_for(server, &options.session);
    let connection = options.connectors.open(server, &context).await?;
    let session_options = connection.session_options(session_options);
    Session::connect_shared(&server.name, connection.transport(), session_options).await
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
