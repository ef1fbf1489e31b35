//! What every client connection of a gateway shares: the supervisor, the
//! bridge and parked calls, the resource subscriptions, the profiles, and
//! the lists of the current catalog in each view.

use std::collections::HashMap;
use std::sync::Arc;

use mcpdisco::catalog::Catalog;
use mcpdisco::config::Profiles;
use mcpdisco_transport::sync::{Mutex, RwLock};
use tokio::sync::OnceCell;

use super::bridge::Bridge;
use super::input::Inputs;
use super::listing::{Listing, ResourceRoute};
use super::options::GatewayOptions;
use super::resource_subscriptions::ResourceSubscriptions;
use super::view::View;
use crate::supervisor::Supervisor;

/// The lists of one view, and what they were built from.
struct CachedListing {
    catalog: Arc<Catalog>,
    profiles: Arc<Profiles>,
    listing: Arc<Listing>,
}

/// What every client connection of a gateway shares.
pub(crate) struct Shared {
    pub(crate) supervisor: Supervisor,
    pub(crate) options: GatewayOptions,
    pub(crate) bridge: Arc<Bridge>,
    pub(crate) inputs: Arc<Inputs>,
    /// The legacy clients' resource subscriptions.
    pub(crate) resource_subscriptions: ResourceSubscriptions,
    /// The gateway's metrics (feature `metrics`).
    #[cfg(feature = "metrics")]
    pub(crate) metrics: Arc<crate::operations::metrics::GatewayMetrics>,
    /// The profiles, as of the last config.
    profiles: RwLock<Arc<Profiles>>,
    /// The lists of each view (`None`: every item), rebuilt when the
    /// catalog or the profiles change.
    listings: Mutex<HashMap<Option<Arc<str>>, CachedListing>>,
    /// Set once the servers' first starts have settled.
    warmed: OnceCell<()>,
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
            supervisor,
            bridge,
            inputs: Arc::new(Inputs::new(options.input_wait)),
            resource_subscriptions: ResourceSubscriptions::default(),
            profiles: RwLock::new(Arc::new(options.profiles.clone())),
            options,
            listings: Mutex::new(HashMap::new()),
            warmed: OnceCell::new(),
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

    /// The profiles, as of the last config.
    pub(crate) fn profiles(&self) -> Arc<Profiles> {
        Arc::clone(&self.profiles.read())
    }

    /// Replaces the profiles (a reload); the lists of every view are rebuilt.
    pub(crate) fn set_profiles(&self, profiles: Profiles) {
        *self.profiles.write() = Arc::new(profiles);
        self.listings.lock().clear();
    }

    /// What a client of `profile` sees (every item when `None`).
    pub(crate) fn view(&self, profile: Option<&str>) -> View {
        View::of(&self.profiles(), profile)
    }

    /// The lists of the current catalog in the view of `profile` (built
    /// once per catalog and profiles). The first call waits until the
    /// servers' first starts have settled.
    pub(crate) async fn listing(&self, profile: Option<&Arc<str>>) -> Arc<Listing> {
        self.warmed
            .get_or_init(|| self.supervisor.start_stopped())
            .await;
        let catalog = self.supervisor.catalog();
        let profiles = self.profiles();
        let mut cached = self.listings.lock();
        if let Some(entry) = cached.get(&profile.cloned())
            && Arc::ptr_eq(&entry.catalog, &catalog)
            && Arc::ptr_eq(&entry.profiles, &profiles)
        {
            return Arc::clone(&entry.listing);
        }
        let view = View::of(&profiles, profile.map(|name| &**name));
        let tool_search = view.tool_search(self.options.tool_search);
        let listing = Arc::new(Listing::build(view.catalog(&catalog), tool_search));
        cached.insert(
            profile.cloned(),
            CachedListing {
                catalog,
                profiles,
                listing: Arc::clone(&listing),
            },
        );
        listing
    }

    /// The server of a resource URI in the view of `profile`: among ready
    /// servers, else among the last lists of servers that are down (the
    /// call then waits for them).
    pub(crate) async fn route_resource(
        &self,
        profile: Option<&Arc<str>>,
        uri: &str,
    ) -> Option<ResourceRoute> {
        if let Some(route) = self.listing(profile).await.route(uri) {
            return Some(route);
        }
        let view = self.view(profile.map(|name| &**name));
        Listing::build(view.catalog(&self.supervisor.routes()), false)
            .route(uri)
            .filter(|route| view.shows_server(&route.server))
    }
}
