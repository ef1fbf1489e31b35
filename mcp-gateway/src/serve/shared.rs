//! What every client connection of a gateway shares: the supervisor, the
//! bridge and parked calls, and the lists of the current catalog.

use std::sync::Arc;

use mcpdisco_transport::sync::Mutex;
use tokio::sync::OnceCell;

use super::bridge::Bridge;
use super::input::Inputs;
use super::listing::{Listing, ResourceRoute};
use super::options::GatewayOptions;
use crate::supervisor::Supervisor;

/// What every client connection of a gateway shares.
pub(crate) struct Shared {
    pub(crate) supervisor: Supervisor,
    pub(crate) options: GatewayOptions,
    pub(crate) bridge: Arc<Bridge>,
    pub(crate) inputs: Arc<Inputs>,
    listing: Mutex<Option<Arc<Listing>>>,
    /// The gateway's metrics (feature `metrics`).
    #[cfg(feature = "metrics")]
    pub(crate) metrics: Arc<crate::operations::metrics::GatewayMetrics>,
    /// Set once the servers' first starts have settled.
    warmed: OnceCell<()>,
    /// The sessions' telemetry, and the masker of every server's secrets
    /// (feature `otel`): the SERVER spans of the clients' requests.
    #[cfg(feature = "otel")]
    pub(crate) telemetry: Option<(
        mcpdisco_client::telemetry::Telemetry,
        mcpdisco_transport::secret::Masker,
    )>,
}

impl Shared {
    /// The gateway of `supervisor`, whose servers' questions go through `bridge`.
    pub(crate) fn new(
        supervisor: Supervisor,
        options: GatewayOptions,
        bridge: Arc<Bridge>,
    ) -> Self {
        #[cfg(feature = "otel")]
        let telemetry = supervisor.telemetry().map(|telemetry| {
            let masker = supervisor
                .servers()
                .iter()
                .filter_map(|server| supervisor.config(server))
                .fold(
                    mcpdisco_transport::secret::Masker::default(),
                    |all, config| all.union(&config.masker()),
                );
            (telemetry.clone(), masker)
        });
        Self {
            #[cfg(feature = "otel")]
            telemetry,
            #[cfg(feature = "metrics")]
            metrics: Arc::default(),
            supervisor,
            bridge,
            inputs: Arc::new(Inputs::new(options.input_wait)),
            options,
            listing: Mutex::new(None),
            warmed: OnceCell::new(),
        }
    }

    /// The lists of the current catalog (built once per catalog). The first
    /// call waits until the servers' first starts have settled.
    pub(crate) async fn listing(&self) -> Arc<Listing> {
        self.warmed
            .get_or_init(|| self.supervisor.start_stopped())
            .await;
        let catalog = self.supervisor.catalog();
        let mut cached = self.listing.lock();
        match &*cached {
            Some(listing) if Arc::ptr_eq(&listing.catalog, &catalog) => Arc::clone(listing),
            _ => {
                let listing = Arc::new(Listing::build(catalog, self.options.tool_search));
                *cached = Some(Arc::clone(&listing));
                listing
            }
        }
    }

    /// The server of a resource URI: among ready servers, else among the
    /// last lists of servers that are down (the call then waits for them).
    pub(crate) async fn route_resource(&self, uri: &str) -> Option<ResourceRoute> {
        if let Some(route) = self.listing().await.route(uri) {
            return Some(route);
        }
        Listing::build(self.supervisor.routes(), false).route(uri)
    }
}
