//! Approval: the capability manifests a person reviews and approves, kept
//! in a folder ([`dir`]); the pins of what was approved, in the lock file
//! and a fleet's shared copy ([`pins`]); and output types learnt by calling
//! read-only tools ([`introspect`]). The formats and the arithmetic (type
//! expressions, manifests, the canonical hash, the checks) are
//! [`mcpdisco_capability`]'s; this module applies them to configured
//! servers and their discovery reports.

pub mod dir;
pub mod introspect;
pub mod pins;

use mcpdisco_capability::{Manifest, Provider};
use mcpdisco_protocol::RawJson;
use serde_json::Value;

use crate::config::ServerConfig;

pub use dir::{CapabilityDir, Formats, Listed, Stage, file_stem};
pub use pins::PinStore;

/// How a configured server is reached, as a manifest names it: its URL or
/// command and arguments as shown (secrets masked).
pub fn provider_of(server: &ServerConfig) -> Provider {
    let shown = server.redacted();
    match shown.get("transport").and_then(Value::as_str) {
        Some("http") => Provider::Http {
            url: shown["url"].as_str().unwrap_or_default().to_owned(),
        },
        Some("stdio") => Provider::Stdio {
            command: shown["command"].as_str().unwrap_or_default().to_owned(),
            args: shown["args"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
        },
        other => Provider::Other {
            transport: other.unwrap_or("custom").to_owned(),
        },
    }
}

/// The manifest of `tool` as `server` listed it, with the server's secrets
/// masked in it; `None` for an item that has no name.
pub fn manifest_of(server: &ServerConfig, tool: &RawJson) -> Option<Manifest> {
    let mut definition = tool.to_value().ok()?;
    server.masker().mask_value(&mut definition);
    Manifest::of(&server.name, provider_of(server), &definition)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_stdio_server_is_masked_in_its_manifest() {
        let server = ServerConfig::stdio(
            "fs",
            "npx",
            ["-y", "server-fs", "--token", "sk-live-0123456789abcdef"],
            "/",
        );
        let tool = RawJson::from_value(&json!({"name": "read", "description": "Reads."}));
        let manifest = manifest_of(&server, &tool).unwrap();
        let rtfs = manifest.to_rtfs();
        assert!(
            rtfs.contains(":command \"npx\" :args [\"-y\" \"server-fs\" \"--token\" \"***\"]"),
            "{rtfs}"
        );
        assert!(!rtfs.contains("sk-live"));
        let http = ServerConfig::http("github", "https://api.github.com/mcp");
        assert_eq!(
            manifest_of(&http, &tool).unwrap().provider,
            Provider::Http {
                url: "https://api.github.com/mcp".into()
            }
        );
    }
}
