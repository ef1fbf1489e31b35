//! Resource subscriptions of legacy clients (`resources/subscribe`,
//! `resources/unsubscribe`) and the servers' `notifications/resources/updated`.
//!
//! A served URI routes to its server and the URI that server knows (as
//! `resources/read` does: listed resources, `mcp-gateway://` URIs,
//! template expansions, in the client's view). The gateway subscribes at
//! the server once per resource, however many clients subscribe, and
//! unsubscribes when the last of them unsubscribes or disconnects; a server
//! that restarts is subscribed again (how, for each era: the
//! `server_watches` module). A server's update goes to each
//! client subscribed to that resource, under the URI the client
//! subscribed with. Modern clients have no such methods (-32601).

use std::collections::HashMap;
use std::sync::{Arc, Weak};
use std::time::Duration;

use mcpdisco_protocol::method::{NotificationMethod, RequestMethod};
use mcpdisco_protocol::methods::{ResourceUpdated, Subscribe, Unsubscribe};
use mcpdisco_protocol::types::{EmptyResult, ResourceUpdatedParams, SubscribeParams};
use mcpdisco_protocol::version::Era;
use mcpdisco_protocol::{ErrorCode, ErrorObject};
use mcpdisco_transport::sync::Mutex;

use super::client::ClientLink;
use super::context::RequestContext;
use super::listing::ResourceRoute;
use super::server_watches::ServerWatches;
use super::shared::Shared;
use super::upstream;

/// How long one client may take to take one update.
const DELIVERY_TIMEOUT: Duration = Duration::from_secs(5);

/// Who is subscribed to what: for each resource (server and own URI), each
/// client and the URI it subscribed with. Pure: `C` names a client.
#[derive(Debug)]
pub(crate) struct Registry<C> {
    watched: HashMap<ResourceRoute, Vec<(C, String)>>,
}

impl<C> Default for Registry<C> {
    fn default() -> Self {
        Self {
            watched: HashMap::new(),
        }
    }
}

impl<C: PartialEq + Clone> Registry<C> {
    /// Whether `client` holds any subscription.
    pub(crate) fn has_client(&self, client: &C) -> bool {
        self.watched
            .values()
            .any(|holders| holders.iter().any(|(holder, _)| holder == client))
    }

    /// Records that `client` subscribed to `resource` as `served`; true when
    /// nobody was subscribed to it before (subscribe at its server).
    pub(crate) fn add(&mut self, resource: ResourceRoute, client: C, served: String) -> bool {
        let holders = self.watched.entry(resource).or_default();
        let first = holders.is_empty();
        if !holders.iter().any(|(c, s)| *c == client && *s == served) {
            holders.push((client, served));
        }
        first
    }

    /// The resource `client` subscribed to as `served`, if it did.
    pub(crate) fn resource_of(&self, client: &C, served: &str) -> Option<ResourceRoute> {
        self.watched.iter().find_map(|(resource, holders)| {
            holders
                .iter()
                .any(|(c, s)| c == client && s == served)
                .then(|| resource.clone())
        })
    }

    /// Drops `client`'s subscription to `resource` as `served`; true when it
    /// was the last one (unsubscribe at its server).
    pub(crate) fn remove(&mut self, resource: &ResourceRoute, client: &C, served: &str) -> bool {
        let Some(holders) = self.watched.get_mut(resource) else {
            return false;
        };
        let before = holders.len();
        holders.retain(|(c, s)| !(c == client && s == served));
        let last = before > 0 && holders.is_empty();
        if holders.is_empty() {
            self.watched.remove(resource);
        }
        last
    }

    /// Drops every subscription of `client`; answers the resources nobody
    /// is subscribed to any more (unsubscribe at their servers).
    pub(crate) fn remove_client(&mut self, client: &C) -> Vec<ResourceRoute> {
        let mut unwatched = Vec::new();
        self.watched.retain(|resource, holders| {
            let before = holders.len();
            holders.retain(|(c, _)| c != client);
            if holders.is_empty() && before > 0 {
                unwatched.push(resource.clone());
            }
            !holders.is_empty()
        });
        unwatched
    }

    /// Each client subscribed to `resource`, with the URI it subscribed with.
    pub(crate) fn subscribers(&self, resource: &ResourceRoute) -> Vec<(C, String)> {
        self.watched.get(resource).cloned().unwrap_or_default()
    }

    /// The URIs (its own) of the resources of `server` someone is
    /// subscribed to, in order.
    pub(crate) fn watched_at(&self, server: &str) -> Vec<String> {
        let mut uris: Vec<String> = self
            .watched
            .keys()
            .filter(|resource| resource.server == server)
            .map(|resource| resource.uri.clone())
            .collect();
        uris.sort();
        uris
    }
}

/// A client, named by its connection (compared by identity).
#[derive(Clone)]
pub(crate) struct Subscriber(Weak<ClientLink>);

impl Subscriber {
    fn of(link: &Arc<ClientLink>) -> Self {
        Self(Arc::downgrade(link))
    }
}

impl PartialEq for Subscriber {
    fn eq(&self, other: &Self) -> bool {
        Weak::ptr_eq(&self.0, &other.0)
    }
}

/// The gateway's resource subscriptions.
#[derive(Default)]
pub(crate) struct ResourceSubscriptions {
    registry: Mutex<Registry<Subscriber>>,
    /// How the servers are subscribed.
    servers: ServerWatches,
    /// Held across a change and its request to the server, so the
    /// servers see subscribes and unsubscribes in the registry's order.
    changing: tokio::sync::Mutex<()>,
}

/// `resources/subscribe` (legacy clients).
pub(crate) async fn subscribe(
    params: SubscribeParams,
    request: RequestContext,
) -> Result<EmptyResult, ErrorObject> {
    legacy_only::<Subscribe>(&request)?;
    let resource = route(&request, &params.uri).await?;
    let shared = &request.shared;
    let subscriptions = &shared.resource_subscriptions;
    let subscriber = Subscriber::of(&request.link);
    let _changing = subscriptions.changing.lock().await;
    // Recorded before the server is asked: an update it sends at once finds the client.
    let (first, known, watched) = {
        let mut registry = subscriptions.registry.lock();
        let known = registry.has_client(&subscriber);
        let first = registry.add(resource.clone(), subscriber.clone(), params.uri.clone());
        (first, known, registry.watched_at(&resource.server))
    };
    if first {
        super::operation::routed_to(&resource.server);
        let subscribed = subscriptions
            .servers
            .subscribe(&shared.supervisor, &resource, watched)
            .await;
        if let Err(error) = subscribed {
            subscriptions
                .registry
                .lock()
                .remove(&resource, &subscriber, &params.uri);
            return Err(upstream::to_error(error));
        }
    }
    if !known {
        release_when_gone(shared, &request.link, subscriber);
    }
    Ok(EmptyResult::default())
}

/// `resources/unsubscribe` (legacy clients): the server is told when its
/// resource has no subscriber left. A URI the client is not subscribed to
/// is answered `{}` when it names a resource.
pub(crate) async fn unsubscribe(
    params: SubscribeParams,
    request: RequestContext,
) -> Result<EmptyResult, ErrorObject> {
    legacy_only::<Unsubscribe>(&request)?;
    let shared = &request.shared;
    let subscriptions = &shared.resource_subscriptions;
    let subscriber = Subscriber::of(&request.link);
    let _changing = subscriptions.changing.lock().await;
    let held = subscriptions
        .registry
        .lock()
        .resource_of(&subscriber, &params.uri);
    let Some(resource) = held else {
        route(&request, &params.uri).await?;
        return Ok(EmptyResult::default());
    };
    let last = subscriptions
        .registry
        .lock()
        .remove(&resource, &subscriber, &params.uri);
    if last {
        super::operation::routed_to(&resource.server);
        unsubscribe_at_server(shared, &resource).await;
    }
    Ok(EmptyResult::default())
}

/// Passes a server's update of its resource `uri` on to each client
/// subscribed to it, under the URI the client subscribed with.
pub(crate) async fn deliver(shared: &Shared, server: &str, uri: String) {
    let resource = ResourceRoute {
        server: server.to_owned(),
        uri,
    };
    let subscribers = shared
        .resource_subscriptions
        .registry
        .lock()
        .subscribers(&resource);
    for (Subscriber(link), served) in subscribers {
        let Some(link) = link.upgrade() else {
            continue;
        };
        let params = ResourceUpdatedParams::new(served);
        let sent = tokio::time::timeout(DELIVERY_TIMEOUT, link.notify::<ResourceUpdated>(&params));
        if sent.await.is_err() {
            tracing::debug!(
                method = ResourceUpdated::METHOD,
                "a client did not take a resource update in time"
            );
        }
    }
}

/// Subscribes `server`, which just became ready, to the resources clients
/// are subscribed to (a restarted server has forgotten them).
pub(crate) async fn resubscribe(shared: &Shared, server: &str) {
    let subscriptions = &shared.resource_subscriptions;
    let _changing = subscriptions.changing.lock().await;
    let watched = subscriptions.registry.lock().watched_at(server);
    if !watched.is_empty() {
        subscriptions
            .servers
            .renew(&shared.supervisor, server, watched)
            .await;
    }
}

/// When `link`'s serving ends, drops its subscriptions (unsubscribing at
/// the servers whose resources nobody watches any more).
fn release_when_gone(shared: &Arc<Shared>, link: &Arc<ClientLink>, subscriber: Subscriber) {
    let stopped = link.until_stopped();
    let shared = Arc::downgrade(shared);
    tokio::spawn(async move {
        stopped.await;
        let Some(shared) = shared.upgrade() else {
            return;
        };
        let subscriptions = &shared.resource_subscriptions;
        let _changing = subscriptions.changing.lock().await;
        let unwatched = subscriptions.registry.lock().remove_client(&subscriber);
        for resource in unwatched {
            unsubscribe_at_server(&shared, &resource).await;
        }
    });
}

/// Unsubscribes at the resource's server, which nobody subscribed to it
/// any more; a refusal is logged.
async fn unsubscribe_at_server(shared: &Shared, resource: &ResourceRoute) {
    let subscriptions = &shared.resource_subscriptions;
    let watched = subscriptions.registry.lock().watched_at(&resource.server);
    let unsubscribed = subscriptions
        .servers
        .unsubscribe(&shared.supervisor, resource, watched)
        .await;
    if let Err(error) = unsubscribed {
        tracing::warn!(server = %resource.server, %error, "could not unsubscribe at the server");
    }
}

/// -32601 for a modern request: `M` is a legacy method.
fn legacy_only<M: RequestMethod>(request: &RequestContext) -> Result<(), ErrorObject> {
    if request.era == Era::Legacy {
        Ok(())
    } else {
        Err(ErrorObject::method_not_found(M::METHOD))
    }
}

/// The server and own URI of the served `uri`, in the client's view;
/// -32602 naming it when no server offers it.
async fn route(request: &RequestContext, uri: &str) -> Result<ResourceRoute, ErrorObject> {
    request
        .shared
        .route_resource(request.profile.as_ref(), uri)
        .await
        .ok_or_else(|| {
            ErrorObject::for_resource(
                ErrorCode::INVALID_PARAMS,
                format!("no server of the gateway offers the resource {uri}"),
                uri,
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(server: &str, uri: &str) -> ResourceRoute {
        ResourceRoute {
            server: server.into(),
            uri: uri.into(),
        }
    }

    #[test]
    fn a_resource_is_subscribed_at_its_server_once_and_unsubscribed_with_its_last_client() {
        let mut registry = Registry::default();
        let watched = at("a", "test://r");
        assert!(registry.add(watched.clone(), 1, "test://r".into()));
        assert!(!registry.add(watched.clone(), 2, "test://r".into()));
        // The same subscription again changes nothing.
        assert!(!registry.add(watched.clone(), 1, "test://r".into()));
        assert_eq!(registry.subscribers(&watched).len(), 2);
        assert!(!registry.remove(&watched, &1, "test://r"));
        // One that was never made is not the last.
        assert!(!registry.remove(&watched, &1, "test://r"));
        assert!(!registry.subscribers(&watched).is_empty());
        assert!(registry.remove(&watched, &2, "test://r"));
        assert!(registry.subscribers(&watched).is_empty());
        assert!(!registry.remove(&watched, &2, "test://r"));
    }

    #[test]
    fn a_client_that_goes_leaves_only_the_resources_nobody_else_watches() {
        let mut registry = Registry::default();
        let (shared, own) = (at("a", "test://shared"), at("b", "test://own"));
        registry.add(shared.clone(), 1, "test://shared".into());
        registry.add(own.clone(), 1, "mcp-gateway://b/test://own".into());
        registry.add(shared.clone(), 2, "test://shared".into());
        assert!(registry.has_client(&1));
        assert_eq!(registry.remove_client(&1), vec![own.clone()]);
        assert!(!registry.has_client(&1));
        assert_eq!(
            registry.subscribers(&shared),
            vec![(2, "test://shared".to_owned())]
        );
        assert_eq!(registry.watched_at("a"), ["test://shared"]);
        assert!(registry.watched_at("b").is_empty());
    }

    #[test]
    fn updates_go_out_under_the_uri_each_client_subscribed_with() {
        let mut registry = Registry::default();
        let watched = at("b", "test://r");
        registry.add(watched.clone(), 1, "mcp-gateway://b/test://r".into());
        registry.add(watched.clone(), 2, "test://r".into());
        assert_eq!(
            registry.resource_of(&1, "mcp-gateway://b/test://r"),
            Some(watched.clone())
        );
        assert_eq!(registry.resource_of(&1, "test://r"), None);
        assert_eq!(
            registry.subscribers(&watched),
            vec![
                (1, "mcp-gateway://b/test://r".to_owned()),
                (2, "test://r".to_owned())
            ]
        );
    }
}
