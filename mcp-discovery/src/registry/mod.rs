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
mod resolve;
pub mod types;

pub use client::{
    CACHE_TTL, DEFAULT_REGISTRY, REGISTRY_URL_ENV, RegistryClient, RegistryOptions, SearchQuery,
    SearchResults,
};
pub use resolve::{
    Choice, McpbDownload, ResolveError, ResolveOptions, Resolved, local_name, mcpb_entry, resolve,
};
pub use types::{Official, RegistryEntry, ServerJson};

/// Why the registry could not be used. No message holds a credential.
#[derive(Debug, Clone, thiserror::Error)]
pub enum RegistryError {
    /// The options are wrong (a registry URL that is not one, say).
    #[error("registry: {0}")]
    Usage(String),
    /// No answer: the connection failed or took too long.
    #[error("registry {url} cannot be reached: {message}")]
    Unreachable {
        /// The request.
        url: String,
        /// Why.
        message: String,
    },
    /// An answer with an error status.
    #[error("registry {url} answered {status}: {body}")]
    Status {
        /// The request.
        url: String,
        /// The HTTP status.
        status: u16,
        /// The start of the body, control characters removed.
        body: String,
    },
    /// An answer that is not what the API describes.
    #[error("registry {url}: {message}")]
    Malformed {
        /// The request.
        url: String,
        /// What is wrong.
        message: String,
    },
    /// A bundle that could not be downloaded, verified or unpacked.
    #[error("bundle {url}: {message}")]
    Bundle {
        /// Where it is.
        url: String,
        /// What went wrong.
        message: String,
    },
}

#[cfg(test)]
mod tests;
