//! [`Fingerprint`]: the cache key of a server, a hash of everything that
//! decides what the server will say to us.

use std::fmt;

use hmac_sha256::Hash as Sha256;
use serde_json::{Value, json};

use crate::config::ServerConfig;
use mcpdisco_client::session::SessionOptions;

/// The version of the key's layout; bumping it misses every old entry.
/// 2: reports list skills (an entry of layout 1 never asked for them).
const KEY_LAYOUT: u32 = 2;

/// A SHA-256 over the server's launch configuration (command, args, env,
/// cwd, url, headers, transport kind, values included) and our protocol
/// preferences (era, client capabilities and client info). Never the name
/// alone: a changed configuration misses the cache.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fingerprint(String);

impl Fingerprint {
    /// The fingerprint of `server` as a session with `options` would see it.
    pub fn of(server: &ServerConfig, options: &SessionOptions) -> Self {
        let material = json!({
            "layout": KEY_LAYOUT,
            "launch": server.fingerprint_material(),
            "client": {
                "era": format!("{:?}", options.era),
                "capabilities": options.capabilities,
                "clientInfo": options.client_info,
            },
        });
        Self::of_value(&material)
    }

    fn of_value(material: &Value) -> Self {
        // serde_json writes maps in insertion order; the material is built in a fixed order.
        let bytes = serde_json::to_vec(material).unwrap_or_default();
        Self(hex::encode(Sha256::hash(&bytes)))
    }

    /// Reads a fingerprint back from its hex form; `None` unless it is 64 lowercase hex digits.
    pub fn parse(hex: &str) -> Option<Self> {
        let valid = hex.len() == 64 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        valid.then(|| Self(hex.to_owned()))
    }

    /// The 64 hex digits.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_material_same_key_and_any_change_differs() {
        let a = Fingerprint::of_value(&json!({"command": "x", "env": {"K": "1"}}));
        let b = Fingerprint::of_value(&json!({"command": "x", "env": {"K": "1"}}));
        let c = Fingerprint::of_value(&json!({"command": "x", "env": {"K": "2"}}));
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(a.as_str().len(), 64);
        assert_eq!(Fingerprint::parse(a.as_str()), Some(a));
        assert_eq!(Fingerprint::parse("../etc/passwd"), None);
    }
}
