//! The MCP Registry: search it, read a server's `server.json`, resolve it
//! into one of our config entries, and bring it into a host: written into
//! a config file, or read as servers to discover at once.
//!
//! | module | what |
//! |---|---|
//! | [`types`] | the registry's documents (`ServerList`, `ServerResponse`, `server.json`) |
//! | `client` | [`RegistryClient`]: search with pages and a cache, get one server, fetch a bundle |
//! | `resolve`, `resolved` | [`resolve`]: a `server.json` into a [`ServerEntry`](crate::config::ServerEntry) ([`Resolved`]) |
//! | `import` | [`RegistryClient::look_up`], [`RegistryClient::add`] (into a config file), [`RegistryClient::server_configs`] (as [`ServerConfig`](crate::config::ServerConfig)s) |
//! | `warning` | [`RegistryWarning`]: what was passed over or worked around |
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use mcpdisco::config::ProcessEnv;
//! use mcpdisco::registry::{AddOptions, RegistryClient, RegistryOptions, ResolveOptions, SearchQuery};
//! let client = RegistryClient::new(RegistryOptions::default())?;
//!
//! // Every match, as servers to discover (nothing written).
//! let found = client
//!     .server_configs(&SearchQuery::matching("filesystem").limit(5).latest_only(true), &ProcessEnv)
//!     .await?;
//! for server in &found.servers {
//!     println!("{}: {}", server.name, server.summary());
//! }
//! for warning in &found.warnings {
//!     eprintln!("warning: {warning}");
//! }
//!
//! // One server, added to the first config found (or ./.mcp.json).
//! let lookup = client.look_up("io.github.acme/files", None, &ResolveOptions::default()).await?;
//! let added = client.add(&lookup, &AddOptions::default(), &ProcessEnv).await?;
//! for missing in &added.missing_env {
//!     eprintln!("set {missing} before using '{}'", added.name);
//! }
//! # Ok(()) }
//! ```

mod bundle;
mod cache;
mod client;
mod error;
mod import;
mod inputs;
mod options;
mod resolve;
mod resolved;
pub mod types;
mod warning;

pub use cache::CACHE_TTL;
pub use client::{RegistryClient, SearchResults};
pub use error::RegistryError;
pub use import::{AddError, AddOptions, Addition, Lookup, RegistryServers};
pub use options::{
    DEFAULT_MAX_PAGES, DEFAULT_REGISTRY, REGISTRY_URL_ENV, RegistryOptions, ResolveOptions,
    SearchQuery,
};
pub use resolve::{local_name, resolve};
pub use resolved::{
    Choice, McpbDownload, PendingBundle, RequiredEnv, ResolveError, Resolved, ResolvedEntry,
};
pub use types::{Official, RegistryEntry, ServerJson};
pub use warning::{LeftOutReason, RegistryWarning};

#[cfg(test)]
mod tests;
