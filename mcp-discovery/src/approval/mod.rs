//! Approval: the capability manifests a person reviews and approves, and
//! the pins of what was approved, as library calls a host runs the way
//! `mcp-cli export`, `pending`, `approve`, `revoke`, `pins diff` and
//! `discover --verify-pins` do.
//!
//! * [`Approvals`] ([`workflow`]): the transaction. Export one manifest per
//!   tool of every ready server to `pending/`; approve a server's manifests
//!   (pinning what it offers now) or revoke them (unpinning). Each step
//!   returns a typed outcome ([`Exported`], [`ApprovalOutcome`]) with the
//!   [`Warning`]s of what it passed over; an error keeps them too.
//! * [`CapabilityDir`] ([`dir`]): the folder of manifests.
//! * [`PinStore`] ([`store`]): where the pins live (the lock file, and a
//!   fleet's shared copy in Redis), and [`PinStore::verify`], the checks of
//!   what servers offer now against the pins.
//! * [`pins`]: a configured server's pin scope, a report's items as sent.
//! * [`introspect`]: output types learnt by calling read-only tools.
//!
//! The formats and the arithmetic (type expressions, manifests, the
//! canonical hash, the checks) are [`mcpdisco_capability`]'s; this module
//! applies them to configured servers and their discovery reports.
//!
//! ```no_run
//! # async fn demo(loaded: mcpdisco::config::LoadedConfig) -> Result<(), Box<dyn std::error::Error>> {
//! use mcpdisco::approval::{Approvals, CapabilityDir, Formats, OutputTypes, PinStore};
//! use mcpdisco::discovery::{self, DiscoveryOptions};
//!
//! let approvals = Approvals::new(
//!     CapabilityDir::new(CapabilityDir::default_root()),
//!     PinStore::new(PinStore::path_for(&loaded)),
//! );
//! let report = discovery::discover(&loaded.servers, &DiscoveryOptions::default()).await;
//! let exported = approvals.export(&loaded.servers, &report, &OutputTypes::default(), Formats::Both)?;
//! for warning in &exported.warnings {
//!     eprintln!("warning: {warning}");
//! }
//! // A person reviews `capabilities/servers/pending/github/`, then:
//! let github = loaded.server("github")?;
//! let approved = approvals.approve(github, &[], &report).await?;
//! println!("{} approved, {} pinned", approved.manifests.len(), approved.pins.len());
//! # Ok(()) }
//! ```

pub mod dir;
pub mod introspect;
pub mod pins;
pub mod store;
mod warning;
pub mod workflow;

use mcpdisco_capability::{Manifest, Provider};
use mcpdisco_protocol::RawJson;
use mcpdisco_protocol::types::Tool;

use crate::config::{Launch, ServerConfig};

pub use dir::{CapabilityDir, Formats, Listed, Stage, file_stem};
pub use introspect::{Introspection, OutputTypes};
pub use pins::ServerChecks;
pub use store::{PinStore, PinStoreError, Verification};
pub use warning::{SharedPinsFailure, Warning};
pub use workflow::{ApprovalError, ApprovalFailure, ApprovalOutcome, Approvals, Exported};

/// How a configured server is reached, as a manifest names it: its URL or
/// command and arguments as shown (secrets masked).
pub fn provider_of(server: &ServerConfig) -> Provider {
    match &server.launch {
        Launch::Http { .. } => Provider::Http {
            url: server.shown_url().unwrap_or_default().to_owned(),
        },
        Launch::Stdio { command, .. } => Provider::Stdio {
            command: command.clone(),
            args: server.shown_args().to_vec(),
        },
        Launch::Custom { transport, .. } => Provider::Other {
            transport: transport.clone(),
        },
    }
}

/// The manifest of `tool` as `server` listed it, with the server's secrets
/// masked in it; an error when the item is not a tool.
pub fn manifest_of(server: &ServerConfig, tool: &RawJson) -> Result<Manifest, serde_json::Error> {
    let mut definition = tool.to_value()?;
    server.masker().mask_value(&mut definition);
    let tool: Tool = serde_json::from_value(definition)?;
    Ok(Manifest::of(&server.name, provider_of(server), &tool))
}

#[cfg(test)]
mod workflow_tests;

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
        let tool = RawJson::from_value(
            &json!({"name": "read", "description": "Reads.", "inputSchema": {}}),
        );
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
        let nameless = RawJson::from_value(&json!({"description": "no name", "inputSchema": {}}));
        assert!(manifest_of(&http, &nameless).is_err());
    }
}
