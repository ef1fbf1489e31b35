//! Limits that hold for a fleet of `serve --http` replicas:
//!
//! * [`client_rate`]: `--client-rate-limit RATE[/BURST]` per client
//!   subject (a JWT's `sub`, or the bearer token; the transport's
//!   `Subject`, the one a sealed session is bound to): the pure GCRA per
//!   subject (`subject_buckets`), shared through Redis when
//!   `--session-store` is given (`redis_buckets`, feature `redis`), run by
//!   `rate_limiter` (both with `http`), which falls back to the replica's own buckets while
//!   the store fails ([`store_health`]);
//! * [`allowed_hosts`]: `--allowed-host`, the `Host` names requests may use;
//! * [`open_files`]: the open-file limit raised at start.
//!
//! `--max-streams` (open SSE streams per replica) is the transport's
//! (`HttpServerOptions::max_streams`). The HTTP answers (421, 429 and
//! `Retry-After`) are `http_endpoints`'.

pub mod allowed_hosts;
pub mod client_rate;
pub mod open_files;
#[cfg(feature = "http")]
pub mod rate_limiter;
#[cfg(feature = "redis")]
pub mod redis_buckets;
pub mod store_health;
#[cfg(feature = "http")]
pub mod subject_buckets;

pub use allowed_hosts::{AllowedHosts, HostPattern};
pub use client_rate::ClientRateLimit;
#[cfg(feature = "http")]
pub use client_rate::{Subject, jwt_rate_subject};
pub use open_files::{OpenFilesLimit, raise_open_files_limit};
#[cfg(feature = "http")]
pub use rate_limiter::ClientRateLimiter;
pub use store_health::StoreState;

/// A limit that could not be read or applied.
#[derive(Debug, thiserror::Error)]
pub enum LimitError {
    /// `--client-rate-limit` is not `RATE[/BURST]`.
    #[error(
        "'{0}' is not RATE[/BURST] (a positive number of requests per second, and a whole number of at least 1)"
    )]
    Rate(String),
    /// `--allowed-host` is not `HOST` or `HOST:PORT`.
    #[error("'{0}' is not HOST or HOST:PORT")]
    Host(String),
    /// The shared store cannot be used.
    #[error("{0}")]
    Store(String),
    /// The open-file limit could not be read or raised.
    #[error("the open-file limit: {0}")]
    OpenFiles(String),
}
