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
//! - Not offered (answered -32601): `completion/complete`,
//!   `logging/setLevel`, `resources/subscribe`, and tasks.

mod bridge;
mod client;
mod input;
pub mod listing;
mod requests;

use std::sync::Arc;
use std::time::Duration;

use mcpdisco_protocol::ErrorObject;
use mcpdisco_protocol::meta::SERVER_INFO_KEY;
use mcpdisco_protocol::types::Extra;
use mcpdisco_protocol::types::{
    DiscoverResult, ElicitationCapability, Implementation, InitializeResult, ListChangedCapability,
    ResourcesCapability, RootsCapability, ServerCapabilities,
};
use mcpdisco_protocol::version::ProtocolVersion;
use mcpdisco_transport::Transport;
use mcpdisco_transport::sync::Mutex;
use serde_json::{Map, Value, json};
use tokio::sync::OnceCell;

use crate::supervisor::{Supervisor, SupervisorOptions};
use bridge::Bridge;
use input::{Inputs, RunningCall};
use listing::{Listing, ResourceRoute};
use mcpdisco::config::ServerConfig;

/// How the gateway serves its clients.
#[derive(Debug, Clone)]
pub struct GatewayOptions {
    /// The gateway's `serverInfo`.
    pub server_info: Implementation,
    /// Its `instructions`.
    pub instructions: Option<String>,
    /// Items per page of every list.
    pub page_size: usize,
    /// How long a client gets to answer a server's question (sampling, elicitation, roots).
    pub client_request_timeout: Duration,
    /// How long a modern request waiting for its client's input is kept.
    pub input_wait: Duration,
}

impl Default for GatewayOptions {
    fn default() -> Self {
        Self {
            server_info: Implementation::new("mcp-discovery-gateway", env!("CARGO_PKG_VERSION")),
            instructions: Some(
                "Tools and prompts of several MCP servers, named <server>__<name>.".to_owned(),
            ),
            page_size: 100,
            client_request_timeout: Duration::from_secs(300),
            input_wait: Duration::from_secs(300),
        }
    }
}

/// One MCP server in front of supervised servers. Cheap to clone.
#[derive(Clone)]
pub struct Gateway {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Gateway {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gateway")
            .field("supervisor", &self.shared.supervisor)
            .finish_non_exhaustive()
    }
}

/// What every client connection of a gateway shares.
pub(crate) struct Shared {
    supervisor: Supervisor,
    options: GatewayOptions,
    bridge: Arc<Bridge>,
    inputs: Arc<Inputs>,
    listing: Mutex<Option<Arc<Listing>>>,
    /// Set once the servers' first starts have settled.
    warmed: OnceCell<()>,
}

impl Gateway {
    /// Supervises `servers` (starting them all now) and serves them.
    /// The servers' sessions declare sampling, elicitation and roots, and
    /// pass those requests on to the gateway's clients.
    pub fn new(
        servers: Vec<ServerConfig>,
        mut supervisor: SupervisorOptions,
        options: GatewayOptions,
    ) -> Self {
        let bridge = Arc::new(Bridge::new(options.client_request_timeout));
        supervisor.handlers = Some(bridge.handlers());
        let declared = &mut supervisor.session.capabilities;
        declared.roots.get_or_insert_with(RootsCapability::default);
        declared.sampling.get_or_insert_with(|| json!({}));
        declared
            .elicitation
            .get_or_insert_with(ElicitationCapability::default);
        let supervisor = Supervisor::new(servers, supervisor);
        supervisor.start_all();
        Self {
            shared: Arc::new(Shared {
                supervisor,
                bridge,
                inputs: Arc::new(Inputs::new(options.input_wait)),
                options,
                listing: Mutex::new(None),
                warmed: OnceCell::new(),
            }),
        }
    }

    /// The supervisor of the servers.
    pub fn supervisor(&self) -> &Supervisor {
        &self.shared.supervisor
    }

    /// Serves one client until its connection ends; then everything the
    /// client started (calls, questions, subscriptions) is stopped.
    pub async fn serve(&self, transport: impl Transport + 'static) {
        self.serve_shared(Arc::new(transport)).await;
    }

    /// [`serve`](Self::serve) for a shared transport.
    pub async fn serve_shared(&self, transport: Arc<dyn Transport>) {
        client::serve(Arc::clone(&self.shared), transport).await;
    }

    /// Stops every server (processes reaped) and drops waiting calls.
    pub async fn shutdown(&self) {
        self.shared.inputs.clear();
        self.shared.supervisor.shutdown().await;
    }
}

impl Shared {
    fn server_info(&self) -> Value {
        serde_json::to_value(&self.options.server_info).unwrap_or_else(|_| json!({}))
    }

    fn capabilities() -> ServerCapabilities {
        let list_changed = ListChangedCapability {
            list_changed: Some(true),
            ..ListChangedCapability::default()
        };
        ServerCapabilities {
            tools: Some(list_changed.clone()),
            prompts: Some(list_changed),
            resources: Some(ResourcesCapability {
                subscribe: None,
                list_changed: Some(true),
                ..ResourcesCapability::default()
            }),
            ..ServerCapabilities::default()
        }
    }

    fn initialize_result(&self, version: ProtocolVersion) -> Value {
        let result = InitializeResult {
            protocol_version: version.as_str().to_owned(),
            capabilities: Self::capabilities(),
            server_info: self.options.server_info.clone(),
            instructions: self.options.instructions.clone(),
            meta: None,
            extra: Extra::new(),
        };
        serde_json::to_value(result).unwrap_or_else(|_| json!({}))
    }

    fn discover_result(&self) -> Value {
        let mut meta = Map::new();
        meta.insert(SERVER_INFO_KEY.into(), self.server_info());
        let result = DiscoverResult {
            supported_versions: vec![ProtocolVersion::V2026_07_28.as_str().to_owned()],
            capabilities: Self::capabilities(),
            instructions: self.options.instructions.clone(),
            ttl_ms: Some(0),
            cache_scope: Some(mcpdisco_protocol::types::CacheScope::Private),
            meta: Some(meta),
            extra: Extra::new(),
        };
        serde_json::to_value(result).unwrap_or_else(|_| json!({}))
    }

    /// The lists of the current catalog (built once per catalog). The first
    /// call waits until the servers' first starts have settled.
    async fn listing(&self) -> Arc<Listing> {
        self.warmed
            .get_or_init(|| self.supervisor.start_stopped())
            .await;
        let catalog = self.supervisor.catalog();
        let mut cached = self.listing.lock();
        match &*cached {
            Some(listing) if Arc::ptr_eq(&listing.catalog, &catalog) => Arc::clone(listing),
            _ => {
                let listing = Arc::new(Listing::build(catalog));
                *cached = Some(Arc::clone(&listing));
                listing
            }
        }
    }

    /// The server of a resource URI: among ready servers, else among the
    /// last lists of servers that are down (the call then waits for them).
    async fn route_resource(&self, uri: &str) -> Option<ResourceRoute> {
        if let Some(route) = self.listing().await.route(uri) {
            return Some(route);
        }
        Listing::build(self.supervisor.routes()).route(uri)
    }

    /// The parked call a modern retry (`requestState`) takes back, with its answers given.
    fn resume(
        &self,
        method: &'static str,
        era: mcpdisco_protocol::version::Era,
        state: Option<&str>,
        responses: Option<&Map<String, Value>>,
    ) -> Result<Option<RunningCall>, ErrorObject> {
        match state {
            Some(state) if era == mcpdisco_protocol::version::Era::Modern => {
                self.inputs.resume(method, state, responses).map(Some)
            }
            _ => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests;
