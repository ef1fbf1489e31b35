//! The gateway: one MCP server in front of every supervised server
//! (`mcp-cli serve`).
//!
//! A [`Gateway`] owns a [`Supervisor`] and serves any number of client
//! connections, each a [`Transport`] seen from the server side (stdin and
//! stdout, or one Streamable HTTP session or request; see
//! `mcpdisco_transport::server`).
//!
//! - **Both eras, whatever the servers speak.** `initialize` →
//!   `notifications/initialized` → requests, or stateless requests with the
//!   modern `_meta` (and `server/discover`).
//! - **Lists** (`tools/list`, `prompts/list`, `resources/list`,
//!   `resources/templates/list`): every ready server's items, filters
//!   applied, paginated (`page_size` per page). Tools and prompts carry
//!   their catalog names (`<server>__<name>`, at most 64 characters of
//!   `[a-zA-Z0-9_-]`, see [`mcpdisco::catalog`]); resource URIs are kept, and
//!   map back to their server ([`listing`]).
//! - **Calls** (`tools/call`, `resources/read`, `prompts/get`) go through
//!   the supervisor: a server that is down is waited for, a call that was
//!   never delivered is sent again after its restart, one that may have run
//!   never is. Progress comes back to the client; the client's
//!   `notifications/cancelled` stops the call at its server.
//! - **List changes** (a server's list changed, a server became ready or
//!   went down) reach legacy clients as `notifications/*/list_changed`, and
//!   modern ones on their `subscriptions/listen`.
//! - **Servers' questions** (sampling, elicitation, roots) go to the client
//!   that declared the capability (the `bridge` module); modern clients get them as
//!   `input_required` (the `input` module).
//! - **Tool search** ([`GatewayOptions::tool_search`]): `tools/list`
//!   answers two tools, `search_tools` (BM25 over every server's tools)
//!   and `call_tool` (a call by served name, down the same path as a
//!   direct call); see [`search`].
//! - **Profiles** ([`GatewayOptions::profiles`]): a client of a profile
//!   ([`Gateway::serve_profile`], `/profiles/<name>/mcp` with
//!   `http_endpoints`) sees only that profile's servers and tools;
//!   anything else is unknown to it (the `view` module).
//! - **Reload** ([`Gateway::reload`]): servers and profiles replaced while
//!   clients stay connected; unchanged servers keep running, and clients
//!   hear of the lists that changed.
//! - **Completion** (`completion/complete`, both eras) goes to the server
//!   of the prompt or resource template it names (the `completion` module).
//! - **Logging** (legacy clients): `logging/setLevel` reaches the servers
//!   that take it, and servers' log messages reach the clients whose calls
//!   they serve, or that set a level, filtered by it (the `logging` module).
//! - **Resource subscriptions** (legacy clients): subscribed at the server
//!   once per resource; its updates reach each subscribed client under the
//!   URI it subscribed with (the `resource_subscriptions` module). The
//!   `relay` module reads the servers' notifications from the supervisor.
//!   The handshake declares these as the servers do (the `offered` module).
//! - **Tasks** (extension `io.modelcontextprotocol/tasks`, modern clients
//!   that declare it): a server's task is relayed under an id that names
//!   the server and its incarnation (the `task_id` module), so `tasks/get`,
//!   `tasks/update` and `tasks/cancel` reach it with no state kept, from
//!   any connection; a restarted server's tasks fail at once (the `tasks` module).
//!
//! Each method has a typed handler (`handshake`, `lists`, `calls`,
//! `completion`, `logging`, `resource_subscriptions`, `subscriptions`, `tasks`),
//! routed by `mcpdisco_transport::server::Router` (`routes`); `connection`
//! reads a client's messages and hands them on, polling its requests in
//! progress in the same task (`in_flight`), and `upstream` is where
//! calls go into the supervisor.

mod bridge;
mod calls;
mod client;
mod completion;
mod connection;
mod context;
mod fleet_sessions;
mod handshake;
#[cfg(feature = "http")]
pub(crate) mod http_views;
mod in_flight;
mod input;
pub mod listing;
mod listings;
mod lists;
mod logging;
mod offered;
mod operation;
mod options;
mod relay;
mod resource_subscriptions;
mod routes;
pub mod search;
mod server_watches;
mod shared;
mod subscriptions;
mod task_id;
mod tasks;
mod tasks_listen;
mod tasks_relay;
mod upstream;
mod view;

use std::sync::Arc;

use mcpdisco_protocol::types::{ElicitationCapability, RootsCapability, SamplingCapability};
use mcpdisco_transport::Transport;

use crate::operations::readiness::Readiness;
use crate::supervisor::{ReloadSummary, Supervisor, SupervisorOptions};
use bridge::Bridge;
use mcpdisco::config::{Profiles, ServerConfig};
pub use options::GatewayOptions;
use routes::Routes;
use shared::Shared;

/// One MCP server in front of supervised servers. Cheap to clone.
#[derive(Clone)]
pub struct Gateway {
    shared: Arc<Shared>,
    routes: Arc<Routes>,
}

impl std::fmt::Debug for Gateway {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gateway")
            .field("supervisor", &self.shared.supervisor)
            .finish_non_exhaustive()
    }
}

impl Gateway {
    /// Supervises `servers` (starting them all now) and serves them.
    /// The servers' sessions declare sampling, elicitation and roots, and
    /// pass those requests on to the gateway's clients. A call for a
    /// legacy client that set a log level asks a modern server for log
    /// messages at that level (`_meta.logLevel`).
    ///
    /// Must be called within a tokio runtime (the servers' tasks and the
    /// gateway's relay of their notifications start now).
    pub fn new(
        servers: Vec<ServerConfig>,
        mut supervisor: SupervisorOptions,
        options: GatewayOptions,
    ) -> Self {
        let bridge = Arc::new(Bridge::new(options.client_request_timeout));
        supervisor.handlers = Some(bridge.handlers());
        let declared = &mut supervisor.session.capabilities;
        declared.roots.get_or_insert_with(RootsCapability::default);
        declared
            .sampling
            .get_or_insert_with(SamplingCapability::default);
        declared
            .elicitation
            .get_or_insert_with(ElicitationCapability::default);
        let supervisor = Supervisor::new(servers, supervisor);
        let events = supervisor.subscribe();
        supervisor.start_all();
        let shared = Arc::new(Shared::new(supervisor, options, bridge));
        tokio::spawn(relay::run(Arc::downgrade(&shared), events));
        Self {
            shared,
            routes: Arc::new(Routes::new()),
        }
    }

    /// The supervisor of the servers.
    pub fn supervisor(&self) -> &Supervisor {
        &self.shared.supervisor
    }

    /// Whether every enabled server can take requests, with each one's state
    /// (the body of `GET /readyz`).
    pub fn readiness(&self) -> Readiness {
        let supervisor = &self.shared.supervisor;
        Readiness::of(
            supervisor
                .statuses()
                .into_iter()
                .filter(|(name, _)| supervisor.config(name).is_some_and(|config| config.enabled)),
        )
    }

    /// The metrics of the gateway's requests, clients and servers, the
    /// state gauge set to the servers' states now (the body of `GET /metrics`).
    #[cfg(feature = "metrics")]
    pub fn metrics_text(&self) -> String {
        let readiness = self.readiness();
        let statuses = self.shared.supervisor.statuses();
        let enabled = statuses
            .iter()
            .filter(|(name, _)| readiness.servers.contains_key(*name))
            .map(|(name, status)| (name.as_str(), *status));
        self.shared.metrics.set_states(enabled);
        self.shared.metrics.encode()
    }

    /// Shares its legacy sessions' log levels through `store` (once).
    #[cfg(feature = "redis")]
    pub(crate) fn attach_session_store(&self, store: &Arc<crate::session_store::SessionStore>) {
        fleet_sessions::attach(&self.shared, store);
    }

    /// The gateway's metrics (feature `metrics`).
    #[cfg(feature = "metrics")]
    pub(crate) fn metrics(&self) -> &Arc<crate::operations::metrics::GatewayMetrics> {
        &self.shared.metrics
    }

    /// Serves one client until its connection ends; then everything the
    /// client started (calls, questions, subscriptions) is stopped.
    pub async fn serve(&self, transport: impl Transport + 'static) {
        self.serve_shared(Arc::new(transport)).await;
    }

    /// [`serve`](Self::serve) for a shared transport.
    pub async fn serve_shared(&self, transport: Arc<dyn Transport>) {
        self.serve_view(transport, None).await;
    }

    /// Serves one client the view of profile `profile` (its servers, the
    /// tools its globs let through, tool search if it says so) until its
    /// connection ends. A name that is not (or no longer) a profile shows
    /// nothing; check [`profiles`](Self::profiles) first.
    pub async fn serve_profile(&self, transport: impl Transport + 'static, profile: &str) {
        self.serve_view(Arc::new(transport), Some(Arc::from(profile)))
            .await;
    }

    /// Serves one client the view of `profile`, or every item.
    ///
    /// The connection is served in a task of its own, on the runtime's
    /// workers, where its calls are spawned beside it and a server's answer
    /// wakes them: served on the caller's thread (a `block_on` one), every
    /// request would cross threads twice. Dropping this future stops it.
    async fn serve_view(&self, transport: Arc<dyn Transport>, profile: Option<Arc<str>>) {
        /// Aborts the connection's task when the serving future is dropped.
        struct AbortOnDrop(tokio::task::AbortHandle);
        impl Drop for AbortOnDrop {
            fn drop(&mut self) {
                self.0.abort();
            }
        }
        let (shared, routes) = (Arc::clone(&self.shared), Arc::clone(&self.routes));
        let task = tokio::spawn(connection::serve(shared, routes, transport, profile));
        let _abort = AbortOnDrop(task.abort_handle());
        if let Err(error) = task.await
            && error.is_panic()
        {
            tracing::error!(%error, "serving a client connection panicked");
        }
    }

    /// The `x-mcp-header` arguments of each tool the gateway serves, by its
    /// served name (SEP-2243), read from the current catalog at each call:
    /// the HTTP server checks a modern `tools/call`'s `Mcp-Param-*` headers
    /// against them.
    #[cfg(feature = "http")]
    pub fn param_headers(&self) -> mcpdisco_transport::server::http::ToolParamHeaders {
        let supervisor = self.shared.supervisor.clone();
        Arc::new(move |tool: &str| {
            let catalog = supervisor.catalog();
            let Some(entry) = catalog.tool(tool) else {
                return Vec::new();
            };
            match entry.item.member::<serde_json::Value>("inputSchema") {
                Ok(Some(schema)) => {
                    mcpdisco_transport::server::http::ParamHeaderRule::of_schema(&schema)
                }
                _ => Vec::new(),
            }
        })
    }

    /// The profiles, as of the last config.
    pub fn profiles(&self) -> Arc<Profiles> {
        self.shared.listings.profiles()
    }

    /// Applies a new config without dropping a client: servers as
    /// [`Supervisor::reload`] says (unchanged ones keep running), and the
    /// profiles replaced. Clients hear of the lists that changed in their view.
    pub async fn reload(&self, servers: Vec<ServerConfig>, profiles: Profiles) -> ReloadSummary {
        // Before any new server runs: its secrets are masked from the first span.
        self.shared.learn_secrets(&servers);
        let summary = self.shared.supervisor.reload(servers).await;
        self.shared.listings.set_profiles(profiles);
        // Views may have changed with the profiles alone.
        self.shared.supervisor.republish();
        summary
    }

    /// Stops every server (processes reaped) and drops waiting calls.
    pub async fn shutdown(&self) {
        self.shared.inputs.clear();
        self.shared.supervisor.shutdown().await;
    }
}

#[cfg(test)]
mod tests;
