//! [`Listings`]: what each view of the gateway lists, the state the list,
//! call and completion handlers share: the profiles as of the last config,
//! and the lists of the current catalog in each view, built once per
//! catalog and profiles.

use foldhash::HashMap;
use std::sync::Arc;

use mcpdisco::catalog::Catalog;
use mcpdisco::config::Profiles;
use mcpdisco_transport::sync::{Mutex, RwLock};
use tokio::sync::OnceCell;

use super::listing::{Listing, ResourceRoute};
use super::view::View;
use crate::supervisor::Supervisor;

/// The lists of one view, and what they were built from.
struct CachedListing {
    catalog: Arc<Catalog>,
    profiles: Arc<Profiles>,
    listing: Arc<Listing>,
}

/// The profiles, and the lists of the supervisor's catalog in each view.
pub(crate) struct Listings {
    /// Whose catalog is listed.
    supervisor: Supervisor,
    /// Whether the gateway answers `tools/list` with its two search tools.
    tool_search: bool,
    /// The profiles, as of the last config.
    profiles: RwLock<Arc<Profiles>>,
    /// The lists of each view (`None`: every item), rebuilt when the
    /// catalog or the profiles change.
    cached: Mutex<HashMap<Option<Arc<str>>, CachedListing>>,
    /// Set once the servers' first starts have settled.
    warmed: OnceCell<()>,
}

impl Listings {
    /// The lists of `supervisor`'s catalog in the views of `profiles`,
    /// with the search tools when `tool_search`.
    pub(crate) fn new(supervisor: Supervisor, profiles: Profiles, tool_search: bool) -> Self {
        Self {
            supervisor,
            tool_search,
            profiles: RwLock::new(Arc::new(profiles)),
            cached: Mutex::new(HashMap::default()),
            warmed: OnceCell::new(),
        }
    }

    /// The profiles, as of the last config.
    pub(crate) fn profiles(&self) -> Arc<Profiles> {
        Arc::clone(&self.profiles.read())
    }

    /// Replaces the profiles (a reload); the lists of every view are rebuilt.
    pub(crate) fn set_profiles(&self, profiles: Profiles) {
        *self.profiles.write() = Arc::new(profiles);
        self.cached.lock().clear();
    }

    /// What a client of `profile` sees (every item when `None`).
    pub(crate) fn view(&self, profile: Option<&str>) -> View {
        View::of(&self.profiles(), profile)
    }

    /// Whether a client of `profile` gets the search tools in place of the tools.
    pub(crate) fn tool_search(&self, profile: Option<&str>) -> bool {
        self.view(profile).tool_search(self.tool_search)
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
        let mut cached = self.cached.lock();
        if let Some(entry) = cached.get(&profile.cloned())
            && Arc::ptr_eq(&entry.catalog, &catalog)
            && Arc::ptr_eq(&entry.profiles, &profiles)
        {
            return Arc::clone(&entry.listing);
        }
        let view = View::of(&profiles, profile.map(|name| &**name));
        let tool_search = view.tool_search(self.tool_search);
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
