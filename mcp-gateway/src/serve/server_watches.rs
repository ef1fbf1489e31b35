//! How the gateway subscribes at a server to the resources its clients
//! watch: a legacy server gets `resources/subscribe` and
//! `resources/unsubscribe` for each URI; a modern (2026-07-28) server,
//! which has neither, gets one held-open `subscriptions/listen` naming every
//! watched URI (`resourceSubscriptions`), opened again whenever the set
//! changes. Either way the server's `notifications/resources/updated`
//! reach the session's notifications, which the supervisor publishes.

use std::collections::HashMap;

use mcpdisco_client::session::{RequestOptions, Session};
use mcpdisco_protocol::types::SubscriptionFilter;
use mcpdisco_protocol::version::Era;
use mcpdisco_transport::sync::Mutex;
use tokio::task::JoinHandle;

use super::listing::ResourceRoute;
use crate::supervisor::{Supervisor, SupervisorError};

/// A held-open listen; cancelled at its server when dropped.
struct HeldListen(JoinHandle<()>);

impl Drop for HeldListen {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// The gateway's held-open listens at modern servers, by server.
#[derive(Default)]
pub(crate) struct ServerWatches {
    listens: Mutex<HashMap<String, HeldListen>>,
}

impl ServerWatches {
    /// Subscribes at its server to `resource`, which nobody watched before;
    /// `watched` is every URI of that server watched now (it included).
    pub(crate) async fn subscribe(
        &self,
        supervisor: &Supervisor,
        resource: &ResourceRoute,
        watched: Vec<String>,
    ) -> Result<(), SupervisorError> {
        let session = supervisor.session(&resource.server).await?;
        if session.era() == Era::Modern {
            self.listen(&resource.server, &session, watched);
            return Ok(());
        }
        supervisor
            .subscribe_resource(&resource.server, &resource.uri)
            .await
    }

    /// Unsubscribes at its server from `resource`, which nobody watches any
    /// more; `watched` is every URI of that server still watched. A server
    /// that is down has no subscriptions to end.
    pub(crate) async fn unsubscribe(
        &self,
        supervisor: &Supervisor,
        resource: &ResourceRoute,
        watched: Vec<String>,
    ) -> Result<(), SupervisorError> {
        let Some(session) = supervisor.connected_session(&resource.server) else {
            self.listens.lock().remove(&resource.server);
            return Ok(());
        };
        if session.era() == Era::Modern {
            self.listen(&resource.server, &session, watched);
            return Ok(());
        }
        supervisor
            .unsubscribe_resource(&resource.server, &resource.uri)
            .await
    }

    /// Subscribes `server`, just ready (a restart forgets subscriptions), to
    /// every URI in `watched`; a refusal is logged.
    pub(crate) async fn renew(&self, supervisor: &Supervisor, server: &str, watched: Vec<String>) {
        let Some(session) = supervisor.connected_session(server) else {
            return;
        };
        if session.era() == Era::Modern {
            self.listen(server, &session, watched);
            return;
        }
        for uri in watched {
            if let Err(error) = supervisor.subscribe_resource(server, &uri).await {
                tracing::warn!(%server, %error, "could not subscribe a restarted server to a resource again");
            }
        }
    }

    /// Holds a listen at `server` for `uris` (none: no listen), in place
    /// of the one held before.
    fn listen(&self, server: &str, session: &Session, uris: Vec<String>) {
        if uris.is_empty() {
            self.listens.lock().remove(server);
            return;
        }
        let filter = SubscriptionFilter {
            resource_subscriptions: Some(uris),
            ..SubscriptionFilter::default()
        };
        let session = session.clone();
        let name = server.to_owned();
        let task = tokio::spawn(async move {
            match session.listen(filter, RequestOptions::default()).await {
                // Drained here; the supervisor hears each update on the session's notifications.
                Ok(mut subscription) => while subscription.next().await.is_some() {},
                Err(error) => {
                    tracing::info!(server = %name, %error, "cannot listen for the server's resource updates");
                }
            }
        });
        self.listens
            .lock()
            .insert(server.to_owned(), HeldListen(task));
    }
}
