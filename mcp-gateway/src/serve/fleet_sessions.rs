//! The gateway's side of a fleet's shared legacy sessions
//! (`--session-store`, see the `session_store` module):
//!
//! - a `logging/setLevel` here is told to the store; a level heard from
//!   the store is given to this replica's connections of the session; a
//!   session resumed here takes the level the store holds;
//! - a `resources/unsubscribe` (told to the store by its handler) is
//!   heard here: the replica that holds the subscription drops it.
//!
//! Without a store, nothing here runs: the level and the subscriptions
//! are the connection's own.

use std::sync::Arc;

use mcpdisco_protocol::types::LoggingLevel;

use super::client::{ClientLink, LogWish};
use super::logging;
use super::shared::Shared;

/// Tells the store (if any) that the client of `link` set `level`.
pub(crate) fn level_set(shared: &Shared, link: &ClientLink, level: &LoggingLevel) {
    if let Some(fleet) = shared.fleet.get()
        && let Some(session) = link.session_key()
    {
        fleet.set_level(&session, level.as_str());
    }
}

/// Gives `link`, a session resumed here in the view of `profile`, the
/// level its client set on another replica, if the store knows one (and
/// sends the servers the most verbose level wanted).
pub(crate) async fn restore(shared: &Arc<Shared>, link: &ClientLink, profile: Option<&Arc<str>>) {
    let Some(fleet) = shared.fleet.get() else {
        return;
    };
    let Some(session) = link.session_key() else {
        return;
    };
    if let Some(level) = fleet.level(&session).await {
        link.set_log_wish(LogWish {
            level: LoggingLevel::from(level.as_str()),
            profile: profile.cloned(),
        });
        send_wanted_level(shared);
    }
}

/// Sends the servers the most verbose level this replica's clients want
/// (on a task of its own: a server may be slow to answer).
fn send_wanted_level(shared: &Arc<Shared>) {
    let shared = Arc::clone(shared);
    tokio::spawn(async move {
        if let Some(level) = logging::wanted_by_clients(&shared.bridge) {
            let supervisor = &shared.supervisor;
            logging::forward_level(supervisor, &level, supervisor.servers()).await;
        }
    });
}

/// This replica's connections of the session named `session`.
#[cfg(feature = "redis")]
fn connections_of(shared: &Shared, session: &str) -> Vec<Arc<ClientLink>> {
    shared
        .bridge
        .clients()
        .into_iter()
        .filter(|link| link.session_key().as_deref() == Some(session))
        .collect()
}

/// What the store does to this gateway's connections on word from the fleet.
#[cfg(feature = "redis")]
struct Hooks(std::sync::Weak<Shared>);

#[cfg(feature = "redis")]
impl crate::session_store::SessionHooks for Hooks {
    /// Gives this replica's connections of `session` the log `level`, and
    /// sends the servers the most verbose level wanted.
    fn apply_level(&self, session: &str, level: &str) {
        let Some(shared) = self.0.upgrade() else {
            return;
        };
        let level = LoggingLevel::from(level);
        let connections = connections_of(&shared, session);
        for link in &connections {
            link.set_log_wish(LogWish {
                level: level.clone(),
                profile: link.profile(),
            });
        }
        if !connections.is_empty() {
            send_wanted_level(&shared);
        }
    }

    /// Drops the subscriptions of this replica's connections of `session`
    /// to the served `uri`.
    fn unsubscribe(&self, session: &str, uri: &str) {
        let Some(shared) = self.0.upgrade() else {
            return;
        };
        let connections = connections_of(&shared, session);
        if connections.is_empty() {
            return;
        }
        let uri = uri.to_owned();
        tokio::spawn(async move {
            for link in connections {
                super::resource_subscriptions::drop_held(&shared, &link, &uri).await;
            }
        });
    }
}

/// Shares the log levels and unsubscriptions of `shared`'s sessions through `store`.
#[cfg(feature = "redis")]
pub(crate) fn attach(shared: &Arc<Shared>, store: &Arc<crate::session_store::SessionStore>) {
    let fleet: Arc<dyn crate::session_store::SharedSessions> = Arc::clone(store) as _;
    if shared.fleet.set(fleet).is_err() {
        return;
    }
    store.hooks(Arc::new(Hooks(Arc::downgrade(shared))));
}
