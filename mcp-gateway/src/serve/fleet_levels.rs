//! The log level a legacy client set, held for its session on every
//! replica of a fleet (`--session-store`, see the `session_store` module):
//! a `logging/setLevel` here is told to the store; a level heard from the
//! store is given to this replica's connections of the session; a session
//! resumed here takes the level the store holds. Without a store, nothing
//! here runs and the level is the connection's own.

use std::sync::Arc;

use mcpdisco_protocol::types::LoggingLevel;

use super::client::{ClientLink, LogWish};
use super::logging;
use super::shared::Shared;

/// Tells the store (if any) that the client of `link` set `level`.
pub(crate) fn level_set(shared: &Shared, link: &ClientLink, level: &LoggingLevel) {
    if let Some(levels) = shared.shared_levels.get()
        && let Some(session) = link.session_key()
    {
        levels.set(&session, level.as_str());
    }
}

/// Gives `link`, a session resumed here in the view of `profile`, the
/// level its client set on another replica, if the store knows one (and
/// sends the servers the most verbose level wanted).
pub(crate) async fn restore(shared: &Arc<Shared>, link: &ClientLink, profile: Option<&Arc<str>>) {
    let Some(levels) = shared.shared_levels.get() else {
        return;
    };
    let Some(session) = link.session_key() else {
        return;
    };
    if let Some(level) = levels.get(&session).await {
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

/// Gives this replica's connections of `session` the log `level` heard
/// from the fleet, and sends the servers the most verbose level wanted.
#[cfg(feature = "redis")]
fn apply(shared: &Arc<Shared>, session: &str, level: &str) {
    let level = LoggingLevel::from(level);
    let mut changed = false;
    for link in shared.bridge.clients() {
        if link.session_key().as_deref() == Some(session) {
            link.set_log_wish(LogWish {
                level: level.clone(),
                profile: link.profile(),
            });
            changed = true;
        }
    }
    if changed {
        send_wanted_level(shared);
    }
}

/// Shares the log levels of `shared`'s sessions through `store`.
#[cfg(feature = "redis")]
pub(crate) fn attach(shared: &Arc<Shared>, store: &Arc<crate::session_store::SessionStore>) {
    let levels: Arc<dyn crate::session_store::SharedLevels> = Arc::clone(store) as _;
    if shared.shared_levels.set(levels).is_err() {
        return;
    }
    let gateway = Arc::downgrade(shared);
    store.on_level(Arc::new(move |session, level| {
        if let Some(shared) = gateway.upgrade() {
            apply(&shared, session, level);
        }
    }));
}
