//! `--session-store redis://…`: what changes during a legacy session,
//! shared by every replica of a fleet (issue #42, part 2).
//!
//! - **Deletion.** A sealed id cannot be revoked by itself. The replica
//!   that takes a `DELETE` records the session's key (a digest of its id)
//!   in Redis until the id would expire anyway (`--session-max-age`), and
//!   publishes it; each replica ends its connection of the session and
//!   keeps the key in a bounded in-memory deny set. A replica asks Redis
//!   only when it resumes a session it holds no connection for (once per
//!   session and replica, never per request). The price: between the
//!   `DELETE` and the message reaching a replica (milliseconds), and while
//!   Redis is down, another replica may still serve the id; a replica that
//!   missed the message (its subscription was down) serves the id on a
//!   connection it still holds until that connection is dropped, and
//!   refuses it when it next resumes it.
//! - **Notifications.** A session's server messages that find no GET
//!   stream on the replica that produced them (list changes,
//!   `resources/updated`, log messages with no request open) are published
//!   on one channel; the replica that holds the session's GET stream
//!   delivers them. One channel for the fleet, not one per session: a
//!   replica subscribes once, and drops what is not for its streams (cheap
//!   for a handful of replicas; the events are small).
//! - **Resource subscriptions** stay where they were made: the replica
//!   that took `resources/subscribe` subscribes at its server and hears
//!   the updates, which then reach the stream as above; a
//!   `resources/unsubscribe` through any replica is published, and the
//!   replica holding the subscription drops it. Nothing is copied
//!   to the other replicas' servers (each would hear the same update and
//!   the client would get it once per replica). A subscription lives as
//!   long as that replica's connection of the session does; if the
//!   replica goes away, the client subscribes again.
//! - **Log level.** `logging/setLevel` through one replica is recorded
//!   (for the id's max age) and published; every replica's connection of
//!   the session takes it, and a replica that resumes the session later
//!   reads it.
//! - **Redis down never stops calls.** Sealed ids still open; deletions
//!   made here are kept (bounded) and written once Redis answers;
//!   messages for other replicas are dropped (they are news); the runner
//!   connects again with a doubling backoff (100 ms to 5 s). `/readyz`
//!   stays as ready as its servers make it, and says
//!   `"sessionStore": "degraded"`, like the `mcp_gateway_session_store_up`
//!   metric.
//!
//! The state is a pure core ([`fleet_state`]: `step(event, now) ->
//! actions`); the runner (`redis_store`, feature `redis`) does the Redis
//! I/O: one pub/sub connection, one multiplexed connection for the rest,
//! every command bounded by a timeout, one bounded queue of writes.

pub mod fleet_event;
pub mod fleet_state;
#[cfg(feature = "redis")]
pub mod redis_store;

#[cfg(feature = "redis")]
pub use redis_store::SessionStore;

/// What the gateway's handlers tell and ask a shared session store, of a
/// session named by its key.
#[async_trait::async_trait]
pub(crate) trait SharedSessions: Send + Sync {
    /// A client of `session` set its log `level` here.
    fn set_level(&self, session: &str, level: &str);
    /// The level a client of `session` set on any replica, if known.
    async fn level(&self, session: &str) -> Option<String>;
    /// A client of `session` unsubscribed here from the served `uri`.
    fn unsubscribed(&self, session: &str, uri: &str);
}

/// What the store does to this replica's connections of a session, on
/// word from the fleet (the gateway's side).
#[cfg(feature = "redis")]
pub(crate) trait SessionHooks: Send + Sync {
    /// Gives the connections of `session` the log `level`.
    fn apply_level(&self, session: &str, level: &str);
    /// Drops the subscriptions of `session`'s connections to the served `uri`.
    fn unsubscribe(&self, session: &str, uri: &str);
}
