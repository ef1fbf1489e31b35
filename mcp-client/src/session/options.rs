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

/// Options for a whole session: [`SessionOptions::default()`], then a
/// setter per field, each consuming and returning the options:
///
/// ```
/// use std::time::Duration;
/// use mcpdisco_client::session::{EraPreference, SessionOptions};
///
/// let options = SessionOptions::default()
///     .era(EraPreference::Legacy)
///     .request_timeout(Duration::from_secs(10));
/// assert_eq!(options.era, EraPreference::Legacy);
/// ```
///
/// The fields stay public to read and to assign; new ones may be added, so
/// the struct cannot be built as a literal outside this crate.
#[derive(Clone)]
#[non_exhaustive]
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

impl SessionOptions {
    /// The default options (as [`Default`]).
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets [`client_info`](Self::client_info): our name and version.
    pub fn client_info(mut self, client_info: Implementation) -> Self {
        self.client_info = client_info;
        self
    }

    /// Sets [`capabilities`](Self::capabilities): what we declare.
    pub fn capabilities(mut self, capabilities: ClientCapabilities) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// Sets [`era`](Self::era): which era to speak.
    pub fn era(mut self, era: EraPreference) -> Self {
        self.era = era;
        self
    }

    /// Sets [`probe_timeout`](Self::probe_timeout).
    pub fn probe_timeout(mut self, timeout: Duration) -> Self {
        self.probe_timeout = timeout;
        self
    }

    /// Sets [`initialize_timeout`](Self::initialize_timeout).
    pub fn initialize_timeout(mut self, timeout: Duration) -> Self {
        self.initialize_timeout = timeout;
        self
    }

    /// Sets [`request_timeout`](Self::request_timeout): each request's default.
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Sets [`max_request_timeout`](Self::max_request_timeout).
    pub fn max_request_timeout(mut self, timeout: Duration) -> Self {
        self.max_request_timeout = timeout;
        self
    }

    /// Sets [`page_cap`](Self::page_cap): the most pages of one list.
    pub fn page_cap(mut self, pages: usize) -> Self {
        self.page_cap = pages;
        self
    }

    /// Sets [`max_input_rounds`](Self::max_input_rounds).
    pub fn max_input_rounds(mut self, rounds: usize) -> Self {
        self.max_input_rounds = rounds;
        self
    }

    /// Sets [`handler`](Self::handler): what answers the server's requests.
    pub fn handler(mut self, handler: impl ClientHandler) -> Self {
        self.handler = Arc::new(handler);
        self
    }

    /// Sets [`log_level`](Self::log_level): the modern per-request log level.
    pub fn log_level(mut self, level: impl Into<String>) -> Self {
        self.log_level = Some(level.into());
        self
    }

    /// Sets [`masker`](Self::masker): the secrets masked in what the server sends.
    pub fn masker(mut self, masker: Masker) -> Self {
        self.masker = masker;
        self
    }

    /// Sets [`stack`](Self::stack): the layers every request goes through.
    pub fn stack(mut self, stack: LayerStack) -> Self {
        self.stack = stack;
        self
    }

    /// Sets [`tracer`](Self::tracer): every message in and out is traced.
    pub fn tracer(mut self, tracer: Tracer) -> Self {
        self.tracer = Some(tracer);
        self
    }

    /// Sets [`deadline`](Self::deadline): no retry past it.
    pub fn deadline(mut self, deadline: Instant) -> Self {
        self.deadline = Some(deadline);
        self
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
