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

/// How a supervisor runs its servers: the defaults, changed with the
/// builder methods (one per field):
///
/// ```
/// use std::time::Duration;
/// use mcpdisco_gateway::supervisor::{Health, SupervisorOptions};
///
/// let options = SupervisorOptions::default()
///     .ready_wait(Duration::from_secs(10))
///     .health(Health::default().ping_interval(Duration::from_secs(5)));
/// assert_eq!(options.health.ping_interval, Duration::from_secs(5));
/// ```
#[derive(Clone)]
#[non_exhaustive]
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

impl SupervisorOptions {
    /// Pings, restarts, backoff, the circuit breaker.
    pub fn health(mut self, health: Health) -> Self {
        self.health = health;
        self
    }

    /// The options of every session.
    pub fn session(mut self, session: SessionOptions) -> Self {
        self.session = session;
        self
    }

    /// What starts each server.
    pub fn connectors(mut self, connectors: Connectors) -> Self {
        self.connectors = connectors;
        self
    }

    /// The deadline of one start, unless a server's config sets its own.
    pub fn start_deadline(mut self, deadline: Duration) -> Self {
        self.start_deadline = deadline;
        self
    }

    /// How long a call waits for its server to become ready.
    pub fn ready_wait(mut self, wait: Duration) -> Self {
        self.ready_wait = wait;
        self
    }

    /// Between server and item names in the catalog.
    pub fn separator(mut self, separator: impl Into<String>) -> Self {
        self.separator = separator.into();
        self
    }

    /// The HTTP client of HTTP servers (`None`: the shared one).
    pub fn http(mut self, http: impl Into<Option<HttpClient>>) -> Self {
        self.http = http.into();
        self
    }

    /// How a stopped server's process is shut down.
    pub fn graces(mut self, graces: StopGraces) -> Self {
        self.graces = graces;
        self
    }

    /// The handler of each server's sessions (`None`: `session.handler` for all).
    pub fn handlers(mut self, handlers: impl Into<Option<HandlerFactory>>) -> Self {
        self.handlers = handlers.into();
        self
    }

    /// Tokens for HTTP servers that need authorization. The `oauth` feature.
    #[cfg(feature = "oauth")]
    pub fn auth(mut self, auth: impl Into<Option<mcpdisco_client::auth::AuthContext>>) -> Self {
        self.auth = auth.into();
        self
    }

    /// A policy that hides items after the config's filters (`None`: none).
    pub fn gate(mut self, gate: impl Into<Option<ItemGate>>) -> Self {
        self.gate = gate.into();
        self
    }
}
