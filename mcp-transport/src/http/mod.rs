//! HTTP client transports (feature `http`): Streamable HTTP (both eras) and
//! the legacy 2024-11-05 HTTP+SSE transport, with automatic fallback between
//! them. [`HttpKind`], which of them a config asks for, is always there, so a
//! host reads HTTP server configs in a build without the transports.
//!
//! All transports share one pooled `HttpClient`. Every response body is read
//! to its end, so connections go back to the pool.

#[cfg(feature = "http")]
mod auto;
#[cfg(feature = "http")]
mod body;
#[cfg(feature = "http")]
mod client;
#[cfg(feature = "http")]
mod config;
#[cfg(feature = "http")]
mod credentials;
mod kind;
#[cfg(feature = "http")]
mod legacy_sse;
#[cfg(feature = "http")]
pub mod param_headers;
#[cfg(feature = "http")]
mod streamable;
#[cfg(feature = "http")]
pub mod tls;

#[cfg(feature = "http")]
pub use auto::HttpTransport;
#[cfg(feature = "http")]
pub use body::error_chain;
#[cfg(feature = "http")]
pub use client::HttpClient;
#[cfg(feature = "http")]
pub use config::HttpConfig;
#[cfg(feature = "http")]
pub use credentials::RequestCredentials;
pub use kind::HttpKind;
#[cfg(feature = "http")]
pub use legacy_sse::LegacySseTransport;
#[cfg(feature = "http")]
pub use streamable::StreamableHttpTransport;
