//! How a supervisor runs its servers ([`SupervisorOptions`]).

use std::sync::Arc;
use std::time::Duration;

use mcpdisco::catalog::DEFAULT_SEPARATOR;
use mcpdisco::connect::{Connectors, StopGraces};
use mcpdisco_client::session::SessionOptions;
use mcpdisco_transport::http::HttpClient;

use super::gate::ItemGate;
use super::state::Health;

/// Makes the [`ClientHandler`](mcpdisco_client::session::ClientHandler) of each
/// server's sessions from the server's name (the gateway forwards each
/// server's requests to the client whose call it is serving).
pub type HandlerFactory =
    Arc<dyn Fn(&str) -> Arc<dyn mcpdisco_client::session::ClientHandler> + Send + Sync>;

/// How a supervisor runs its servers.
#[derive(Clone)]
pub struct SupervisorOptions {
    /// Pings, restarts, backoff, the circuit breaker.
    pub health: Health,
    /// The options of every session (policies, handler, capabilities, tracer).
    pub session: SessionOptions,
    /// What starts each server.
    pub connectors: Connectors,
    /// The deadline of one start (process, handshake, lists), unless the
    /// server's config sets its own `timeout`.
    pub start_deadline: Duration,
    /// How long a call waits for its server to become ready.
    pub ready_wait: Duration,
    /// Between server and item names in the catalog.
    pub separator: String,
    /// The HTTP client of HTTP servers; the shared one when `None`.
    pub http: Option<HttpClient>,
    /// How a stopped server's process is shut down.
    pub graces: StopGraces,
    /// The handler of each server's sessions; `session.handler` for all when `None`.
    pub handlers: Option<HandlerFactory>,
    /// Tokens for HTTP servers that need authorization. The `oauth` feature.
    #[cfg(feature = "oauth")]
    pub auth: Option<mcpdisco_client::auth::AuthContext>,
    /// A policy that hides items after the config's filters (such as
    /// [`hide_changed`](crate::supervisor::hide_changed)): hidden items are neither
    /// listed nor routed.
    pub gate: Option<ItemGate>,
}

impl Default for SupervisorOptions {
    fn default() -> Self {
        Self {
            health: Health::default(),
            session: SessionOptions::default(),
            connectors: Connectors::builtin(),
            start_deadline: Duration::from_secs(30),
            ready_wait: Duration::from_secs(60),
            separator: DEFAULT_SEPARATOR.to_owned(),
            http: None,
            graces: StopGraces::default(),
            handlers: None,
            #[cfg(feature = "oauth")]
            auth: None,
            gate: None,
        }
    }
}
