//! What a client hears of list changes (a server's list changed, a server
//! became ready or went down, a reload changed the servers or the
//! profiles), in its view (a profile's client hears of its profile's
//! items only): legacy clients get
//! `notifications/*/list_changed` once initialized; modern ones get them on
//! their `subscriptions/listen`, tagged with its id. A modern client that
//! declared the tasks extension also hears, on a listen whose filter names
//! its tasks (`taskIds`), their status changes (`tasks_listen`,
//! `tasks_relay`).

use std::sync::Arc;

use mcpdisco_protocol::meta::SUBSCRIPTION_ID_KEY;
use mcpdisco_protocol::method::{NotificationMethod, RequestMethod};
use mcpdisco_protocol::methods::{
    PromptListChanged, ResourceListChanged, SubscriptionsAcknowledged, SubscriptionsListen,
    ToolListChanged,
};
use mcpdisco_protocol::types::{
    EmptyResult, Extra, MetaParams, SubscriptionFilter, SubscriptionsListenParams,
};
use mcpdisco_protocol::version::Era;
use mcpdisco_protocol::{ErrorObject, RequestId};
use tokio::sync::broadcast;

use super::client::ClientLink;
use super::context::RequestContext;
use super::listings::Listings;
use super::{tasks, tasks_listen, tasks_relay};
use crate::supervisor::{Supervisor, SupervisorEvent};
use mcpdisco::catalog::Catalog;
use mcpdisco_client::session::ListKind;

/// A modern `subscriptions/listen`: acknowledged at once, then held open
/// (list changes go out tagged with its id) until the client cancels it or
/// goes away. Legacy clients have no such method. The task ids it names
/// (for a client that declared the tasks extension) are honoured when the
/// gateway gave them out for a server in the client's view; their status
/// changes come from a listen on each server, opened before the
/// acknowledgement and dropped with this one (see `tasks_relay` for a
/// server restarted meanwhile).
pub(crate) async fn listen(
    params: SubscriptionsListenParams,
    request: RequestContext,
) -> Result<EmptyResult, ErrorObject> {
    if request.era != Era::Modern {
        return Err(ErrorObject::method_not_found(SubscriptionsListen::METHOD));
    }
    let asked = params.notifications;
    // Resource subscriptions are not offered; list changes are.
    let mut honored = SubscriptionFilter {
        tools_list_changed: asked.tools_list_changed.filter(|on| *on),
        prompts_list_changed: asked.prompts_list_changed.filter(|on| *on),
        resources_list_changed: asked.resources_list_changed.filter(|on| *on),
        resource_subscriptions: None,
        extra: Extra::new(),
    };
    let mut backends = None;
    if let Some(task_ids) = asked.task_ids()
        && tasks::negotiated(&request, params.meta.as_ref())
    {
        let view = request.shared.listings.view(request.profile.as_deref());
        let plan = tasks_listen::plan(&task_ids, |server| view.shows_server(server));
        honored = honored.with_task_ids(plan.honored);
        let options = tasks::declaring(params.meta.as_ref());
        backends =
            Some(tasks_relay::open(&request.shared.supervisor, plan.backends, &options).await);
    }
    let link = request.link;
    link.add_listen(request.id.clone(), honored.clone());
    let acknowledged = SubscriptionsListenParams {
        meta: Some(subscription_meta(&request.id)),
        ..SubscriptionsListenParams::new(honored)
    };
    link.notify::<SubscriptionsAcknowledged>(&acknowledged)
        .await;
    if let Some(backends) = backends {
        backends.forward(link, request.id).await;
    }
    std::future::pending::<()>().await;
    Ok(EmptyResult::default())
}

/// The `_meta` of a notification on subscription `id`.
fn subscription_meta(id: &RequestId) -> Extra {
    let mut meta = Extra::new();
    meta.insert(SUBSCRIPTION_ID_KEY.into(), id.to_value());
    meta
}

/// Tells `link`, a client of `profile` (every item when `None`), of
/// changes of the lists it sees (its view, of `listings`) as `supervisor`'s
/// catalog (or the profiles) change, until the supervisor goes away.
pub(crate) async fn announce_changes(
    supervisor: Supervisor,
    listings: Arc<Listings>,
    link: Arc<ClientLink>,
    profile: Option<Arc<str>>,
) {
    let mut events = supervisor.subscribe();
    let seen = |catalog: &Arc<Catalog>| listings.view(profile.as_deref()).catalog(catalog);
    let mut announced = seen(&supervisor.catalog());
    loop {
        let catalog = match events.recv().await {
            Ok(SupervisorEvent::Catalog(catalog)) => catalog,
            Ok(_) => continue,
            // Missed some: compare with what we last announced.
            Err(broadcast::error::RecvError::Lagged(_)) => {
                let mut latest = None;
                while let Ok(event) = events.try_recv() {
                    if let SupervisorEvent::Catalog(catalog) = event {
                        latest = Some(catalog);
                    }
                }
                match latest {
                    Some(catalog) => catalog,
                    None => continue,
                }
            }
            Err(broadcast::error::RecvError::Closed) => return,
        };
        let catalog = seen(&catalog);
        announce(&link, &announced, &catalog).await;
        announced = catalog;
    }
}

/// Tells the client which lists changed from `old` to `new`.
async fn announce(link: &ClientLink, old: &Catalog, new: &Catalog) {
    let changed = |kind: ListKind| old.entries(kind) != new.entries(kind);
    let resources = changed(ListKind::Resources) || changed(ListKind::ResourceTemplates);
    if changed(ListKind::Tools) {
        announce_one::<ToolListChanged>(link, |f| f.tools_list_changed).await;
    }
    if changed(ListKind::Prompts) {
        announce_one::<PromptListChanged>(link, |f| f.prompts_list_changed).await;
    }
    if resources {
        announce_one::<ResourceListChanged>(link, |f| f.resources_list_changed).await;
    }
}

/// Sends the list change `N` to a legacy client, and on each subscription
/// whose filter (`wanted`) asks for it.
async fn announce_one<N>(link: &ClientLink, wanted: impl Fn(&SubscriptionFilter) -> Option<bool>)
where
    N: NotificationMethod<Params = MetaParams>,
{
    if link.hears_list_changes() {
        link.notify::<N>(&MetaParams::default()).await;
    }
    for id in link.listeners(|filter| wanted(filter) == Some(true)) {
        let params = MetaParams {
            meta: Some(subscription_meta(&id)),
            ..MetaParams::default()
        };
        link.notify::<N>(&params).await;
    }
}
