//! The state of the gateway's resource subscriptions: who is subscribed
//! to what ([`Registry`], pure), and how the servers are subscribed
//! ([`ServerWatches`]). The handlers beside it change it.

use std::collections::HashMap;
use std::sync::{Arc, Weak};

use mcpdisco_transport::sync::Mutex;

use crate::serve::client::ClientLink;
use crate::serve::listing::ResourceRoute;
use crate::serve::server_watches::ServerWatches;

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
pub(crate) struct Subscriber(pub(super) Weak<ClientLink>);

impl Subscriber {
    /// The client of `link`.
    pub(super) fn of(link: &Arc<ClientLink>) -> Self {
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
    /// Who is subscribed to what.
    pub(super) registry: Mutex<Registry<Subscriber>>,
    /// How the servers are subscribed.
    pub(super) servers: ServerWatches,
    /// Held across a change and its request to the server, so the
    /// servers see subscribes and unsubscribes in the registry's order.
    pub(super) changing: tokio::sync::Mutex<()>,
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
