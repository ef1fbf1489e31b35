//! The MCP Registry: search it, read a server's `server.json`, and resolve
//! it into one of our config entries.
//!
//! | module | what |
//! |---|---|
//! | [`types`] | the registry's documents (`ServerList`, `ServerResponse`, `server.json`) |
//! | `client` | [`RegistryClient`]: search with pages and a cache, get one server, fetch a bundle |
//! | `resolve` | [`resolve`]: a `server.json` into an `mcpServers` entry |
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use mcpdisco::registry::{RegistryClient, RegistryOptions, ResolveOptions, SearchQuery, resolve};
//! let client = RegistryClient::new(RegistryOptions::default())?;
//! let found = client
//!     .search(&SearchQuery { search: Some("filesystem".into()), limit: Some(5), latest_only: true, ..Default::default() })
//!     .await?;
//! for entry in &found.entries {
//!     let resolved = resolve(&entry.server, &ResolveOptions::default())?;
//!     println!("{}: {}", resolved.name, resolved.entry);
//! }
//! # Ok(()) }
//! ```

mod bundle;
mod cache;
mod client;
mod error;
mod resolve;
pub mod types;

pub use cache::CACHE_TTL;
pub use client::{
    DEFAULT_REGISTRY, REGISTRY_URL_ENV, RegistryClient, RegistryOptions, SearchQuery, SearchResults,
};
pub use error::RegistryError;
pub use resolve::{
    Choice, McpbDownload, ResolveError, ResolveOptions, Resolved, local_name, mcpb_entry, resolve,
};
pub use types::{Official, RegistryEntry, ServerJson};

#[cfg(test)]
mod tests;
