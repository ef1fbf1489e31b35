//! Composition over the lower crates: everything a host needs to know what
//! its configured MCP servers offer, quickly and reliably.
//!
//! * [`config`]: reads the MCP configurations hosts already have (chatbot
//!   `mcp_config.json`, Claude Desktop / Cursor / Claude Code `.mcp.json`,
//!   VS Code `.vscode/mcp.json`), with variable expansion and secrets kept
//!   out of every message.
//! * [`connect`]: from a configured server to a connected session.
//! * [`discovery`]: every server at once, each under its own deadline, each
//!   ending `ready`, `failed` or `disabled`.
//! * [`doctor`]: one server diagnosed step by step (`mcp-cli doctor`).
//! * [`cache`]: discovery results in memory and on disk, keyed by a
//!   fingerprint of the launch configuration.
//! * [`catalog`]: the aggregated view with unique namespaced names.
//! * [`report`]: what discovery found, per server and per run (the `--json` shape).
//! * [`skills`]: loading a skill (SEP-2640) with every file verified
//!   against its entry.
//! * [`approval`]: capability manifests a person approves, and the pins of
//!   what was approved.
//! * `registry` (feature `registry`): the MCP Registry client, verified
//!   bundle downloads, and its servers brought in: written into a config
//!   file, or read as servers to discover.
//!
//! Options structs are `#[non_exhaustive]`: each is built from its
//! `default()` (or constructor) and setters named after its fields, so a
//! new option breaks no caller.
//!
//! # Features
//!
//! | feature | what it adds |
//! |---|---|
//! | `stdio` (default) | stdio servers (`mcpdisco-client/stdio`) |
//! | `http` (default) | HTTP servers (`mcpdisco-client/http`) |
//! | `toml` | Codex CLI's `config.toml` (read and edited) |
//! | `yaml` | Goose's `config.yaml` (read and edited), skills' `SKILL.md` frontmatter |
//! | `oauth`, `oauth-extensions` | OAuth 2.1 for HTTP servers |
//! | `redis` | the shared cache and pins in Redis |
//! | `registry` | the MCP Registry client |
//! | `otel` | a span per server around its discovery |
//!
//! JSON configs are always read. A file in a format whose feature was left
//! out is a [`ConfigError::NeedsFeature`](config::ConfigError::NeedsFeature)
//! naming it, and a server whose transport's feature was left out fails to
//! start with an error naming the feature.
//!
//! # No secret leaves
//!
//! Every text that comes from a server (results, error messages, its
//! stderr, `serverInfo`, instructions, notifications) passes through the
//! masker of its configuration ([`config::ServerConfig::masker`]) before a
//! host sees it: in the transport (stderr, HTTP error bodies, the HTTP
//! library's error text, which never carries the URL), in the session (every
//! result and error), and in the discovery report (failure texts). Secret
//! values (env and header values, URL credentials, credential-looking
//! arguments) become `***`, so a [`discovery::DiscoveryReport`], a cache
//! entry or a log line holds none, even when a server echoes its API key.
//! See [`mcpdisco_transport::secret`].
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use mcpdisco::{cache::Cache, catalog::Catalog, config, discovery};
//! let options = config::ParseOptions::default();
//! let file = config::load_file("mcp_config.json".as_ref(), &config::ProcessEnv, &options)?;
//! let options = discovery::DiscoveryOptions::default().cache(Cache::open_default());
//! let report = discovery::discover(&file.servers, &options).await;
//! for tool in &Catalog::build(&report.servers, &Default::default()).tools {
//!     println!("{}", tool.qualified_name);
//! }
//! # Ok(()) }
//! ```

#![warn(missing_docs)]
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod approval;
pub mod cache;
pub mod catalog;
mod clock;
pub mod config;
pub mod connect;
pub mod discovery;
pub mod doctor;
mod fnv;
mod item_name;
#[cfg(feature = "registry")]
pub mod registry;
pub mod report;
pub mod skills;

/// The protocol types this crate speaks ([`mcpdisco_protocol`]): items,
/// results and schemas kept as the server sent them (`RawJson`) and read
/// through borrowed views (`ToolView`, …).
pub use mcpdisco_protocol as protocol;

/// The sessions this crate opens ([`mcpdisco_client`]), with the transports
/// under them (`client::transport`: secrets and the masker, the wire trace,
/// stdio and HTTP), so a host that depends on this crate alone can name
/// what its API takes and gives.
pub use mcpdisco_client as client;

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
