//! From a configured server to a connected [`Session`]: starts the process or
//! opens the HTTP connection, then runs the session handshake.

use std::sync::Arc;
use std::time::Duration;

use mcp_transport::Transport;
use mcp_transport::http::{HttpClient, HttpConfig, HttpTransport};
use mcp_transport::stdio::{StdioConfig, StdioTransport};

use crate::config::{Launch, ServerConfig};
use crate::session::{Session, SessionError, SessionOptions};

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

/// An open transport to a configured server, before the handshake.
#[derive(Clone)]
pub enum OpenTransport {
    /// A child process.
    Stdio(Arc<StdioTransport>),
    /// An HTTP connection.
    Http(Arc<HttpTransport>),
}

impl OpenTransport {
    /// Starts the process or opens the connection. HTTP servers use `http`,
    /// or the process-wide shared client when it is `None`. An error is
    /// masked with the server's masker.
    pub async fn open(
        server: &ServerConfig,
        http: Option<&HttpClient>,
        graces: StopGraces,
    ) -> Result<Self, SessionError> {
        Self::open_unmasked(server, http, graces)
            .await
            .map_err(|error| error.masked(&server.masker()))
    }

    async fn open_unmasked(
        server: &ServerConfig,
        http: Option<&HttpClient>,
        graces: StopGraces,
    ) -> Result<Self, SessionError> {
        match &server.launch {
            Launch::Stdio {
                command,
                args,
                env,
                cwd,
                env_policy,
            } => {
                let mut config = StdioConfig::new(server.name.clone(), command.clone())
                    .args(args.iter().cloned());
                config.env = env.clone();
                config.env_policy = env_policy.clone();
                config.masker = server.masker();
                config.cwd = Some(cwd.clone());
                config.shutdown_grace = graces.after_eof;
                config.term_grace = graces.after_term;
                let transport = StdioTransport::spawn(config)
                    .map_err(|error| SessionError::from_transport(&server.name, "start", error))?;
                Ok(Self::Stdio(Arc::new(transport)))
            }
            Launch::Http { url, headers, kind } => {
                let mut config = HttpConfig::new(server.name.clone(), url.clone());
                config.headers = headers
                    .iter()
                    .map(|(name, value)| (name.clone(), value.clone()))
                    .collect();
                config.masker = server.masker();
                let client = match http {
                    Some(client) => client.clone(),
                    None => HttpClient::shared().map_err(|error| {
                        SessionError::from_transport(&server.name, "connect", error)
                    })?,
                };
                let transport = HttpTransport::connect(config, &client, *kind)
                    .await
                    .map_err(|error| {
                        SessionError::from_transport(&server.name, "connect", error)
                    })?;
                Ok(Self::Http(Arc::new(transport)))
            }
        }
    }

    /// The transport, type-erased for the session.
    pub fn shared(&self) -> Arc<dyn Transport> {
        match self {
            Self::Stdio(transport) => Arc::clone(transport) as Arc<dyn Transport>,
            Self::Http(transport) => Arc::clone(transport) as Arc<dyn Transport>,
        }
    }

    /// The end of the server's stderr (stdio only; empty otherwise).
    pub fn stderr_tail(&self) -> String {
        match self {
            Self::Stdio(transport) => transport.stderr_tail(),
            Self::Http(_) => String::new(),
        }
    }

    /// Closes the transport: the process is stopped and reaped, the HTTP session ended.
    pub async fn close(&self) {
        if let Err(error) = self.shared().close().await {
            tracing::debug!(%error, "closing the transport");
        }
    }
}

/// Starts `server` and connects a session to it (HTTP servers use `http`, or the shared client).
/// The session masks the server's secrets ([`ServerConfig::masker`]) on top of `options.masker`.
pub async fn connect(
    server: &ServerConfig,
    http: Option<&HttpClient>,
    options: &SessionOptions,
) -> Result<Session, SessionError> {
    let options = options_for(server, options);
    let transport = OpenTransport::open(server, http, StopGraces::default()).await?;
    Session::connect_shared(&server.name, transport.shared(), options).await
}

/// `options` for a session with `server`: its masker joins theirs.
pub fn options_for(server: &ServerConfig, options: &SessionOptions) -> SessionOptions {
    let mut options = options.clone();
    options.masker = options.masker.union(&server.masker());
    options
}
