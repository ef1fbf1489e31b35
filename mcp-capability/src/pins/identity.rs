//! Whose pins: a server's identity as shown ([`ServerIdentity`]), its key
//! ([`server_key`]), and the two together as the scope its pins are filed
//! under ([`PinScope`]).

use hmac_sha256::Hash as Sha256;
use serde::Serialize;
use serde_json::Value;

/// What identifies a server for its pins, as shown (secrets masked): its
/// name, and how it is launched. Rotating an API key keeps the pins, while
/// pointing the name at another server does not. Each member is hashed,
/// an absent one as `null`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ServerIdentity {
    /// Its name in the config.
    pub name: String,
    /// `stdio`, `http`, or a third party's transport.
    pub transport: String,
    /// A stdio server's program.
    pub command: Option<String>,
    /// A stdio server's arguments, as shown.
    pub args: Option<Vec<String>>,
    /// An HTTP server's URL, as shown.
    pub url: Option<String>,
    /// A third-party transport's settings, as shown.
    pub settings: Option<Value>,
}

/// The key of a server's pins: a hash of the canonical JSON (RFC 8785) of
/// its identity (the first 16 bytes of its SHA-256, in hex).
pub fn server_key(identity: &ServerIdentity) -> String {
    let material = serde_jcs::to_string(identity).unwrap_or_default();
    hex::encode(&Sha256::hash(material.as_bytes())[..16])
}

/// Whose pins: a server's key (see [`server_key`]) and its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PinScope {
    /// The key its pins are filed under.
    pub key: String,
    /// Its name, kept beside the pins for people.
    pub name: String,
}

impl PinScope {
    /// The scope of the server `identity` says.
    pub fn of(identity: &ServerIdentity) -> Self {
        Self {
            key: server_key(identity),
            name: identity.name.clone(),
        }
    }
}
