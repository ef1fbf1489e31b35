//! [`Connector`]: what opens connections for one transport `type`, and the
//! [`ConnectContext`] it is given (HTTP client, stop graces, tracer, masker).

use std::time::Duration;

use async_trait::async_trait;
use mcpdisco_client::session::{SessionError, SessionOptions};
#[cfg(feature = "http")]
use mcpdisco_transport::http::HttpClient;
use mcpdisco_transport::secret::Masker;
use mcpdisco_transport::trace::Tracer;

use super::connection::Connection;
use crate::config::ServerConfig;

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

/// What a connector may use to open a connection. Built from
/// [`ConnectContext::for_session`] (or `default`) and the setters below (a
/// new field is then no breaking change).
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct ConnectContext {
    /// The pooled HTTP client; the process-wide shared one when `None`.
    /// The `http` feature.
    #[cfg(feature = "http")]
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

impl ConnectContext {
    /// The context of a session with `options`: its tracer and its masker.
    pub fn for_session(options: &SessionOptions) -> Self {
        Self {
            tracer: options.tracer.clone(),
            masker: options.masker.clone(),
            ..Self::default()
        }
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

    /// Where transports report HTTP events.
    pub fn tracer(mut self, tracer: impl Into<Option<Tracer>>) -> Self {
        self.tracer = tracer.into();
        self
    }

    /// Secrets to mask besides the server's own.
    pub fn masker(mut self, masker: Masker) -> Self {
        self.masker = masker;
        self
    }

    /// Where HTTP servers' tokens live and how a user approves. The `oauth` feature.
    #[cfg(feature = "oauth")]
    pub fn auth(mut self, auth: impl Into<Option<mcpdisco_client::auth::AuthContext>>) -> Self {
        self.auth = auth.into();
        self
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
