//! How a session behaves: [`SessionOptions`] for the whole session (a
//! request's own are [`RequestOptions`](crate::request::RequestOptions)).

use std::sync::Arc;
use std::time::Duration;

use mcpdisco_protocol::types::{ClientCapabilities, Implementation};
use mcpdisco_transport::secret::Masker;
use mcpdisco_transport::trace::Tracer;
use tokio::time::Instant;

use super::handler::{ClientHandler, NoHandler};
use crate::policy::LayerStack;

/// Which protocol era to speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EraPreference {
    /// Probe with `server/discover`, fall back to the legacy handshake.
    #[default]
    Auto,
    /// Skip the probe: `initialize` straight away.
    Legacy,
    /// Skip the probe's fallback: modern (2026-07-28) or fail.
    Modern,
}

/// Options for a whole session.
#[derive(Clone)]
pub struct SessionOptions {
    /// Our `Implementation`: name, version, and so on.
    pub client_info: Implementation,
    /// Our client capabilities, as sent in `initialize` or the modern `_meta`.
    /// Server requests whose capability is not declared here are answered -32601.
    pub capabilities: ClientCapabilities,
    /// The era to speak.
    pub era: EraPreference,
    /// How long the `server/discover` probe may take before we assume a legacy server.
    pub probe_timeout: Duration,
    /// How long the legacy `initialize` may take.
    pub initialize_timeout: Duration,
    /// The default timeout of each request.
    pub request_timeout: Duration,
    /// The hard maximum of a request, even when progress keeps extending it.
    pub max_request_timeout: Duration,
    /// The most pages a whole list follows ([`Session::list_tools`](super::Session::list_tools)
    /// and the others, [`Session::list_complete`](super::Session::list_complete)).
    pub page_cap: usize,
    /// The most `input_required` rounds of one modern request.
    pub max_input_rounds: usize,
    /// Answers `roots/list`, `sampling/createMessage` and `elicitation/create`.
    pub handler: Arc<dyn ClientHandler>,
    /// The modern per-request log level (`io.modelcontextprotocol/logLevel`), if any.
    pub log_level: Option<String>,
    /// Masks known secrets in everything the server sends: results, error
    /// messages, `serverInfo` and instructions. Empty by default; discovery,
    /// the hub and `connect` use the server configuration's masker.
    pub masker: Masker,
    /// The layers every request goes through, outermost first: by default
    /// retry ([`crate::policy::retry`]) then the rate limit
    /// ([`crate::policy::rate_limit`]); layers you add go inside them
    /// ([`LayerStack`] states the order, and how to change it).
    pub stack: LayerStack,
    /// Traces every message in and out (and HTTP events), masked.
    pub tracer: Option<Tracer>,
    /// No request of this session is retried past this instant (discovery
    /// sets the server's deadline); a request's own deadline wins.
    pub deadline: Option<Instant>,
}

impl Default for SessionOptions {
    fn default() -> Self {
        Self {
            client_info: Implementation::new("mcp-discovery", env!("CARGO_PKG_VERSION")),
            capabilities: ClientCapabilities::default(),
            era: EraPreference::Auto,
            probe_timeout: Duration::from_secs(2),
            initialize_timeout: Duration::from_secs(30),
            request_timeout: Duration::from_secs(60),
            max_request_timeout: Duration::from_secs(600),
            page_cap: 1000,
            max_input_rounds: 8,
            handler: Arc::new(NoHandler),
            log_level: None,
            masker: Masker::default(),
            stack: LayerStack::default(),
            tracer: None,
            deadline: None,
        }
    }
}

impl std::fmt::Debug for SessionOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionOptions")
            .field("client_info", &self.client_info)
            .field("capabilities", &self.capabilities)
            .field("era", &self.era)
            .field("probe_timeout", &self.probe_timeout)
            .field("request_timeout", &self.request_timeout)
            .field("page_cap", &self.page_cap)
            .field("stack", &self.stack)
            .finish_non_exhaustive()
    }
}
