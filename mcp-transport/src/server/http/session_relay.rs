//! What one server of a fleet shares with the others about its legacy
//! sessions, through a store the caller provides
//! ([`HttpServerOptions::session_relay`](super::HttpServerOptions)):
//!
//! - a session's deletion: a `DELETE` here is told to the store
//!   ([`SessionRelay::deleted`]); a session this server resumes (it holds
//!   no connection for it) is first checked against it
//!   ([`SessionRelay::was_deleted`]), once per resume, never per request;
//!   the store ends the connections of a session deleted elsewhere with
//!   [`SessionDoor::end`];
//! - the messages for a session (list changes, resource updates, log
//!   messages with no request open) that find no GET stream here are
//!   handed to the store ([`SessionRelay::forward`], besides the bounded
//!   backlog), which hands them to the server that holds the stream
//!   ([`SessionDoor::deliver`]).
//!
//! A session id never leaves the process: the store sees its
//! [`SessionKey`], a digest of the id.

use std::sync::Weak;
use std::time::SystemTime;

use async_trait::async_trait;
use mcpdisco_protocol::Message;

/// The name of a legacy session that may be shared and stored: the first
/// 16 bytes of the SHA-256 of its id, in hex. It opens nothing.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct SessionKey(String);

impl std::fmt::Debug for SessionKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SessionKey({})", self.0)
    }
}

impl SessionKey {
    /// The key of the session id `id`.
    pub fn of(id: &str) -> Self {
        let digest = hmac_sha256::Hash::hash(id.as_bytes());
        let mut text = String::with_capacity(32);
        for byte in &digest[..16] {
            use std::fmt::Write as _;
            let _ = write!(text, "{byte:02x}");
        }
        Self(text)
    }

    /// A key as the store gave it back (any text; one that names no
    /// session here matches none).
    pub fn from_stored(text: impl Into<String>) -> Self {
        Self(text.into())
    }

    /// The key's text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The store a fleet of servers shares legacy sessions through. The calls
/// that return nothing must not wait: they queue (bounded) and return.
#[async_trait]
pub trait SessionRelay: Send + Sync + 'static {
    /// Hands the store the door to one server's sessions (once per set of
    /// routes built with it).
    fn attach(&self, door: SessionDoor);

    /// Whether `session` was deleted (here or by another replica). Asked
    /// when this server resumes a session it holds no connection for; it
    /// must answer in bounded time (`false` when the store cannot tell).
    async fn was_deleted(&self, session: &SessionKey) -> bool;

    /// `session` was deleted here; its id expires at `expires_at` anyway.
    fn deleted(&self, session: &SessionKey, expires_at: SystemTime);

    /// `message`, for `session`, found no open GET stream here.
    fn forward(&self, session: &SessionKey, message: &Message);
}

/// What a server does for its relay (the HTTP server's shared state
/// implements it).
pub(super) trait Doorway: Send + Sync {
    /// Sends `message` on `session`'s GET stream if it is open here; true if it did.
    fn deliver(&self, session: &SessionKey, message: Message) -> bool;
    /// Ends `session` here, and refuses its id from now on.
    fn end(&self, session: &SessionKey);
}

/// The way into one server's sessions, for its [`SessionRelay`].
#[derive(Clone)]
pub struct SessionDoor(pub(super) Weak<dyn Doorway>);

impl std::fmt::Debug for SessionDoor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SessionDoor(..)")
    }
}

impl SessionDoor {
    /// Sends `message` on `session`'s GET stream if this server holds it
    /// open (and it has room); true if it did.
    pub fn deliver(&self, session: &SessionKey, message: Message) -> bool {
        self.0
            .upgrade()
            .is_some_and(|server| server.deliver(session, message))
    }

    /// Ends `session` here (deleted by another replica): its connection,
    /// if held, ends, and its id is refused from now on.
    pub fn end(&self, session: &SessionKey) {
        if let Some(server) = self.0.upgrade() {
            server.end(session);
        }
    }

    /// Whether the server is gone.
    pub fn is_closed(&self) -> bool {
        self.0.strong_count() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_names_its_id_and_shows_none_of_it() {
        let id = "c2VhbGVkLXNlc3Npb24taWQ";
        let key = SessionKey::of(id);
        assert_eq!(key, SessionKey::of(id));
        assert_ne!(key, SessionKey::of("another"));
        assert_eq!(key.as_str().len(), 32);
        assert!(!key.as_str().contains(id));
        assert_eq!(SessionKey::from_stored(key.as_str()), key);
    }
}
