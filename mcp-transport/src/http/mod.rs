//! HTTP client transports: Streamable HTTP (both eras) and the legacy
//! 2024-11-05 HTTP+SSE transport, with automatic fallback between them.
//!
//! All transports share one pooled [`HttpClient`]. Every response body is read
//! to its end, so connections go back to the pool.

mod auto;
mod body;
mod client;
mod config;
mod credentials;
mod legacy_sse;
pub mod param_headers;
mod streamable;
pub mod tls;

pub use auto::{HttpKind, HttpTransport};
pub use body::error_chain;
pub use client::HttpClient;
pub use config::HttpConfig;
pub use credentials::RequestCredentials;
pub use legacy_sse::LegacySseTransport;
pub use streamable::StreamableHttpTransport;
