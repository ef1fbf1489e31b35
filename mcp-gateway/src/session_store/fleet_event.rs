//! What replicas tell each other on the store's channel, one JSON object
//! per Redis message: `{"from": <replica>, "event": {…}}`. A replica
//! ignores its own. Sessions are named by their keys (a digest of the id);
//! a message is the JSON text the server would have sent, already masked
//! as everything from a server is.

use serde::{Deserialize, Serialize};

/// One thing a replica tells the fleet.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum FleetEvent {
    /// `session` was deleted; its id expires at `expires_at` (Unix seconds).
    Deleted {
        /// The session's key.
        session: String,
        /// When its id expires anyway.
        #[serde(rename = "expiresAt")]
        expires_at: u64,
    },
    /// A client of `session` set its log `level`.
    Level {
        /// The session's key.
        session: String,
        /// The level's name.
        level: String,
    },
    /// A client of `session` unsubscribed from the served `uri`.
    Unsubscribe {
        /// The session's key.
        session: String,
        /// The URI it subscribed with.
        uri: String,
    },
    /// A `message` for `session`'s GET stream.
    Message {
        /// The session's key.
        session: String,
        /// The message's JSON text.
        message: String,
    },
}

/// An event as it travels, with the replica that sent it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Envelope {
    /// The sending replica (random per process).
    pub from: u64,
    /// What it tells.
    pub event: FleetEvent,
}

impl Envelope {
    /// The JSON text of the envelope.
    pub fn encode(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// The envelope in `bytes`; `None` for anything else (never a panic).
    pub fn decode(bytes: &[u8]) -> Option<Self> {
        serde_json::from_slice(bytes).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_envelope_round_trips_and_garbage_is_none() {
        let envelope = Envelope {
            from: 7,
            event: FleetEvent::Deleted {
                session: "ab".into(),
                expires_at: 9,
            },
        };
        assert_eq!(Envelope::decode(&envelope.encode()), Some(envelope));
        assert_eq!(Envelope::decode(b"\xff{not json"), None);
        assert_eq!(
            Envelope::decode(br#"{"from":1,"event":{"kind":"x"}}"#),
            None
        );
    }
}
