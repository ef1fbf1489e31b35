//! What every client connection of a gateway shares: the supervisor, the
//! options, and the state each feature owns, each part in the feature's
//! own module: the bridge, the parked calls (`input`), the lists of each
//! view (`listings`), the resource subscriptions, the metrics and the
//! telemetry. The features take the parts they need, not this whole.

use std::sync::Arc;

#[cfg(feature = "otel")]
use mcpdisco_transport::sync::RwLock;

use super::bridge::Bridge;
use super::input::Inputs;
use super::listings::Listings;
use super::operation::Meter;
use super::options::GatewayOptions;
use super::resource_subscriptions::state::ResourceSubscriptions;
use crate::supervisor::Supervisor;

/// What every client connection of a gateway shares.
pub(crate) struct Shared {
    pub(crate) supervisor: Supervisor,
    pub(crate) options: GatewayOptions,
    pub(crate) bridge: Arc<Bridge>,
    pub(crate) inputs: Arc<Inputs>,
    /// The profiles, and the lists of each view.
    pub(crate) listings: Arc<Listings>,
    /// The legacy clients' resource subscriptions.
    pub(crate) resource_subscriptions: ResourceSubscriptions,
    /// The store a fleet shares legacy sessions through, if any
    /// (`fleet_sessions`).
    pub(crate) fleet: std::sync::OnceLock<Arc<dyn crate::session_store::SharedSessions>>,
    /// The gateway's metrics (feature `metrics`).
    #[cfg(feature = "metrics")]
    pub(crate) metrics: Arc<crate::operations::metrics::GatewayMetrics>,
    /// The sessions' telemetry, and the masker of every server's secrets
    /// (feature `otel`): the SERVER spans of the clients' requests.
    /// The masker grows with each reload (a new server's secrets).
    #[cfg(feature = "otel")]
    pub(crate) telemetry: Option<(
        mcpdisco_client::telemetry::Telemetry,
        RwLock<mcpdisco_transport::secret::Masker>,
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
            (telemetry.clone(), RwLock::new(masker))
        });
        Self {
            #[cfg(feature = "otel")]
            telemetry,
            #[cfg(feature = "metrics")]
            metrics: Arc::default(),
            bridge,
            inputs: Arc::new(Inputs::new(options.input_wait)),
            listings: Arc::new(Listings::new(
                supervisor.clone(),
                options.profiles.clone(),
                options.tool_search,
            )),
            resource_subscriptions: ResourceSubscriptions::default(),
            fleet: std::sync::OnceLock::new(),
            options,
            supervisor,
        }
    }

    /// The telemetry's masker learns the secrets of `servers` (a reload's
    /// config); what it knew stays known.
    #[cfg_attr(not(feature = "otel"), allow(unused_variables))]
    pub(crate) fn learn_secrets(&self, servers: &[mcpdisco::config::ServerConfig]) {
        #[cfg(feature = "otel")]
        if let Some((_, masker)) = &self.telemetry {
            let mut known = masker.write();
            *known = servers
                .iter()
                .fold(known.clone(), |all, config| all.union(&config.masker()));
        }
    }

    /// What counts the clients' requests: the metrics (feature `metrics`).
    pub(crate) fn meter(&self) -> &Meter {
        #[cfg(feature = "metrics")]
        {
            &self.metrics
        }
        #[cfg(not(feature = "metrics"))]
        {
            &()
        }
    }
}
