//! The gateway's one task that passes its servers' log messages and
//! resource updates on to clients (the `logging` and
//! `resource_subscriptions` modules say to whom), and brings a server that
//! becomes ready up to date: the clients' log level, their resource
//! subscriptions. It reads the supervisor's events, so the servers'
//! runners never wait for a client.

use std::sync::Weak;

use mcpdisco_protocol::types::{Extra, LoggingMessageParams};
use tokio::sync::broadcast;

use super::shared::Shared;
use super::{logging, resource_subscriptions};
use crate::supervisor::{Status, SupervisorEvent};

/// Relays `events` of the gateway's supervisor until the gateway is gone.
pub(crate) async fn run(shared: Weak<Shared>, mut events: broadcast::Receiver<SupervisorEvent>) {
    loop {
        let event = match events.recv().await {
            Ok(event) => event,
            Err(broadcast::error::RecvError::Lagged(missed)) => {
                tracing::debug!(
                    missed,
                    "the gateway missed some of its servers' notifications"
                );
                continue;
            }
            Err(broadcast::error::RecvError::Closed) => return,
        };
        let Some(shared) = shared.upgrade() else {
            return;
        };
        match event {
            SupervisorEvent::Log {
                server,
                level,
                logger,
                data,
            } => {
                let message = LoggingMessageParams {
                    level,
                    logger,
                    data,
                    meta: None,
                    extra: Extra::new(),
                };
                logging::deliver(&shared.bridge, &shared.listings, &server, message).await;
            }
            SupervisorEvent::ResourceUpdated { server, uri } => {
                resource_subscriptions::deliver(&shared.resource_subscriptions, &server, uri).await;
            }
            SupervisorEvent::Status {
                server,
                status: Status::Ready,
            } => {
                // In a task of its own: the server is asked, and may be slow.
                tokio::spawn(async move {
                    let supervisor = &shared.supervisor;
                    if let Some(level) = logging::wanted_by_clients(&shared.bridge) {
                        logging::forward_level(supervisor, &level, vec![server.clone()]).await;
                    }
                    let subscriptions = &shared.resource_subscriptions;
                    resource_subscriptions::resubscribe(subscriptions, supervisor, &server).await;
                });
            }
            _ => {}
        }
    }
}
