//! [`Connector`]: what opens connections for one transport `type`, and the
//! [`ConnectContext`] it is given (HTTP client, stop graces, tracer, masker).

use std::time::Duration;

use async_trait::async_trait;
use mcpdisco_client::session::SessionError;
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

/// What a connector may use to open a connection.
#[derive(Clone, Default)]
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
