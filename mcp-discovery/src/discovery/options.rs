//! [`DiscoveryOptions`]: how discovery runs (concurrency, deadlines, cache,
//! connectors), and the [`DiscoveryEvent`]s it reports while it runs.

use std::sync::Arc;
use std::time::Duration;

use mcpdisco_client::session::SessionOptions;
#[cfg(feature = "http")]
use mcpdisco_transport::http::HttpClient;

use crate::cache::{Cache, CacheMode, Fingerprint};
use crate::config::ServerConfig;
use crate::connect::{Connectors, StopGraces};
use crate::report::ServerReport;

/// The default number of servers discovered at once: measured (`cargo
/// xtask bench`, the B3 sweep) as never more than 1.1× slower than the best
/// of 8, 16, 32, 64 and unlimited, for 10 and 50 servers that start
/// instantly or in 300 ms; 16 was 3.4× slower for 50 slow starters.
pub const DEFAULT_CONCURRENCY: usize = 64;
/// The default deadline of one server.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(30);

/// What discovery reports while it runs (for a progress display).
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum DiscoveryEvent<'a> {
    /// A server is being started (its deadline runs from now).
    Started {
        /// The server's name.
        server: &'a str,
    },
    /// A server is done (ready from the server or the cache, failed, or disabled).
    Finished {
        /// Its report.
        report: &'a ServerReport,
    },
}

/// Receives [`DiscoveryEvent`]s; called from the discovering task, so keep it quick.
pub type DiscoveryObserver = Arc<dyn Fn(DiscoveryEvent<'_>) + Send + Sync>;

/// How discovery runs. Built from [`DiscoveryOptions::default`] and the
/// setters below (a new option is then no breaking change).
///
/// ```
/// use std::time::Duration;
/// use mcpdisco::cache::Cache;
/// use mcpdisco::discovery::DiscoveryOptions;
/// let options = DiscoveryOptions::default()
///     .concurrency(8)
///     .deadline(Duration::from_secs(10))
///     .cache(Cache::in_memory());
/// assert_eq!(options.concurrency, 8);
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct DiscoveryOptions {
    /// How many servers are discovered at once.
    pub concurrency: usize,
    /// The deadline of each server, unless its configuration sets its own.
    pub deadline: Duration,
    /// The session options of every server.
    pub session: SessionOptions,
    /// The cache, if any.
    pub cache: Option<Cache>,
    /// How the cache is used.
    pub cache_mode: CacheMode,
    /// The HTTP client for HTTP servers; the process-wide shared one when
    /// `None`. The `http` feature.
    #[cfg(feature = "http")]
    pub http: Option<HttpClient>,
    /// How a stdio server is stopped after discovery or a failure.
    pub graces: StopGraces,
    /// Progress reports.
    pub observer: Option<DiscoveryObserver>,
    /// What starts each server, by transport `type`.
    pub connectors: Connectors,
    /// Tokens for HTTP servers that need authorization (discovery never asks
    /// a user: give a context without a provider). The `oauth` feature.
    #[cfg(feature = "oauth")]
    pub auth: Option<mcpdisco_client::auth::AuthContext>,
    /// Whether a server whose discovery fails is reported with its last good
    /// cached catalog, marked stale with the failure beside it (for up to its
    /// `staleMaxAgeMs`, [`DEFAULT_STALE_MAX_AGE`](crate::cache::DEFAULT_STALE_MAX_AGE) by default). On by
    /// default; off (`--no-stale`) for a run that must be strict. The cache
    /// keeps a good entry either way.
    pub serve_stale: bool,
}

impl Default for DiscoveryOptions {
    fn default() -> Self {
        Self {
            concurrency: DEFAULT_CONCURRENCY,
            deadline: DEFAULT_DEADLINE,
            session: SessionOptions::default(),
            cache: None,
            cache_mode: CacheMode::Use,
            #[cfg(feature = "http")]
            http: None,
            // A session opened only for discovery: a short grace after stdin's
            // end, then SIGTERM (closing runs after the report is complete).
            graces: StopGraces {
                after_eof: Duration::from_millis(100),
                after_term: Duration::from_secs(1),
            },
            observer: None,
            connectors: Connectors::builtin(),
            serve_stale: true,
            #[cfg(feature = "oauth")]
            auth: None,
        }
    }
}

impl std::fmt::Debug for DiscoveryOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DiscoveryOptions")
            .field("concurrency", &self.concurrency)
            .field("deadline", &self.deadline)
            .field("session", &self.session)
            .field("cache", &self.cache.as_ref().map(Cache::dir))
            .field("cache_mode", &self.cache_mode)
            .finish_non_exhaustive()
    }
}

impl DiscoveryOptions {
    /// How many servers are discovered at once (default [`DEFAULT_CONCURRENCY`]).
    pub fn concurrency(mut self, concurrency: usize) -> Self {
        self.concurrency = concurrency;
        self
    }

    /// The deadline of each server, unless its configuration sets its own
    /// (default [`DEFAULT_DEADLINE`]).
    pub fn deadline(mut self, deadline: Duration) -> Self {
        self.deadline = deadline;
        self
    }

    /// The session options of every server.
    pub fn session(mut self, session: SessionOptions) -> Self {
        self.session = session;
        self
    }

    /// The cache (none by default).
    pub fn cache(mut self, cache: impl Into<Option<Cache>>) -> Self {
        self.cache = cache.into();
        self
    }

    /// How the cache is used (default [`CacheMode::Use`]).
    pub fn cache_mode(mut self, mode: CacheMode) -> Self {
        self.cache_mode = mode;
        self
    }

    /// The HTTP client for HTTP servers (default: the process-wide shared one).
    /// The `http` feature.
    #[cfg(feature = "http")]
    pub fn http(mut self, http: impl Into<Option<HttpClient>>) -> Self {
        self.http = http.into();
        self
    }

    /// How a stdio server is stopped after discovery or a failure.
    pub fn graces(mut self, graces: StopGraces) -> Self {
        self.graces = graces;
        self
    }

    /// Where progress is reported.
    pub fn observer(mut self, observer: impl Into<Option<DiscoveryObserver>>) -> Self {
        self.observer = observer.into();
        self
    }

    /// What starts each server, by transport `type` (default: the built-in ones).
    pub fn connectors(mut self, connectors: Connectors) -> Self {
        self.connectors = connectors;
        self
    }

    /// Tokens for HTTP servers that need authorization. The `oauth` feature.
    #[cfg(feature = "oauth")]
    pub fn auth(mut self, auth: impl Into<Option<mcpdisco_client::auth::AuthContext>>) -> Self {
        self.auth = auth.into();
        self
    }

    /// Whether a failed server is reported with its last good cached
    /// catalog, marked stale (default true).
    pub fn serve_stale(mut self, serve_stale: bool) -> Self {
        self.serve_stale = serve_stale;
        self
    }

    /// The deadline of `server`.
    pub fn deadline_of(&self, server: &ServerConfig) -> Duration {
        server.timeout.unwrap_or(self.deadline)
    }

    /// The cache key of `server`.
    pub fn fingerprint(&self, server: &ServerConfig) -> Fingerprint {
        Fingerprint::of(server, &self.session)
    }

    /// Reports `event` to the observer, if there is one.
    pub(super) fn notify(&self, event: DiscoveryEvent<'_>) {
        if let Some(observer) = &self.observer {
            observer(event);
        }
    }
}
