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
//! subscribed with. Modern clients have no such methods (-32601). With
//! `--session-store`, a subscription stays on the replica that took it,
//! its updates reach the client's GET stream on whichever replica holds
//! it (relayed by the transport; see `crate::session_store`), and an
//! unsubscribe through any replica reaches it (`fleet_sessions`).
//!
//! The handlers here take the parts they need; the state they change
//! (who is subscribed to what, and how each server is) lives in `state`,
//! the part of what the connections share that this feature owns.

pub(super) mod state;

use std::sync::Arc;
use std::time::Duration;

use mcpdisco_protocol::method::{NotificationMethod, RequestMethod};
use mcpdisco_protocol::methods::{ResourceUpdated, Subscribe, Unsubscribe};
use mcpdisco_protocol::types::{EmptyResult, ResourceUpdatedParams, SubscribeParams};
use mcpdisco_protocol::version::Era;
use mcpdisco_protocol::{ErrorCode, ErrorObject};

use state::{ResourceSubscriptions, Subscriber};

use super::client::ClientLink;
use super::context::RequestContext;
use super::listing::ResourceRoute;
use super::operation::routed_to;
use super::shared::Shared;
use super::upstream;
use crate::supervisor::Supervisor;

/// How long one client may take to take one update.
const DELIVERY_TIMEOUT: Duration = Duration::from_secs(5);

/// `resources/subscribe` (legacy clients).
pub(crate) async fn subscribe(
    params: SubscribeParams,
    request: RequestContext,
) -> Result<EmptyResult, ErrorObject> {
    legacy_only::<Subscribe>(&request)?;
    let resource = route(&request, &params.uri).await?;
    let (subscriptions, supervisor) = (
        &request.shared.resource_subscriptions,
        &request.shared.supervisor,
    );
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
        routed_to(&resource.server);
        let subscribed = subscriptions
            .servers
            .subscribe(supervisor, &resource, watched)
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
        release_when_gone(&request, subscriber);
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
    // The replica of a fleet that holds the subscription drops it too.
    if let Some(fleet) = request.shared.fleet.get()
        && let Some(session) = request.link.session_key()
    {
        fleet.unsubscribed(&session, &params.uri);
    }
    if !drop_held(&request.shared, &request.link, &params.uri).await {
        route(&request, &params.uri).await?;
    }
    Ok(EmptyResult::default())
}

/// Drops the subscription of the client of `link` to the served `uri`, if
/// it holds one here (the server is told when it was the last); whether
/// it held one.
pub(crate) async fn drop_held(shared: &Shared, link: &Arc<ClientLink>, uri: &str) -> bool {
    let (subscriptions, supervisor) = (&shared.resource_subscriptions, &shared.supervisor);
    let subscriber = Subscriber::of(link);
    let _changing = subscriptions.changing.lock().await;
    let held = subscriptions.registry.lock().resource_of(&subscriber, uri);
    let Some(resource) = held else {
        return false;
    };
    let last = subscriptions
        .registry
        .lock()
        .remove(&resource, &subscriber, uri);
    if last {
        routed_to(&resource.server);
        unsubscribe_at_server(subscriptions, supervisor, &resource).await;
    }
    true
}

/// Passes a server's update of its resource `uri` on to each client
/// subscribed to it, under the URI the client subscribed with.
pub(crate) async fn deliver(subscriptions: &ResourceSubscriptions, server: &str, uri: String) {
    let resource = ResourceRoute {
        server: server.to_owned(),
        uri,
    };
    let subscribers = subscriptions.registry.lock().subscribers(&resource);
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
pub(crate) async fn resubscribe(
    subscriptions: &ResourceSubscriptions,
    supervisor: &Supervisor,
    server: &str,
) {
    let _changing = subscriptions.changing.lock().await;
    let watched = subscriptions.registry.lock().watched_at(server);
    if !watched.is_empty() {
        subscriptions
            .servers
            .renew(supervisor, server, watched)
            .await;
    }
}

/// When the serving of the `request`'s client ends, drops its
/// subscriptions (unsubscribing at the servers whose resources nobody
/// watches any more), unless the gateway is gone by then.
fn release_when_gone(request: &RequestContext, subscriber: Subscriber) {
    let stopped = request.link.until_stopped();
    let gateway = Arc::downgrade(&request.shared);
    tokio::spawn(async move {
        stopped.await;
        let Some(gateway) = gateway.upgrade() else {
            return;
        };
        let (subscriptions, supervisor) = (&gateway.resource_subscriptions, &gateway.supervisor);
        let _changing = subscriptions.changing.lock().await;
        let unwatched = subscriptions.registry.lock().remove_client(&subscriber);
        for resource in unwatched {
            unsubscribe_at_server(subscriptions, supervisor, &resource).await;
        }
    });
}

/// Unsubscribes at the resource's server, which nobody subscribed to it
/// any more; a refusal is logged.
async fn unsubscribe_at_server(
    subscriptions: &ResourceSubscriptions,
    supervisor: &Supervisor,
    resource: &ResourceRoute,
) {
    let watched = subscriptions.registry.lock().watched_at(&resource.server);
    let unsubscribed = subscriptions
        .servers
        .unsubscribe(supervisor, resource, watched)
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
        .listings
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
