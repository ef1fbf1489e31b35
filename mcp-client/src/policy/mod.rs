//! Policies: layers around a session's request service
//! ([`RequestService`](crate::request::RequestService)), each a type of its
//! own with its own tests. The session and the transports stay policy-free.
//!
//! | policy | what it does | default |
//! |---|---|---|
//! | [`retry`] | sends a failed request again, with exponential backoff, when that is safe | 3 retries, 1 s to 30 s, factor 2, jitter 0.1 |
//! | [`rate_limit`] | a token bucket per server | 10 requests per second, burst 20 |
//!
//! The wire trace is not here: it must see every message, notifications and
//! the server's own requests included, so it wraps the transport
//! ([`mcpdisco_transport::trace::TracedTransport`]).

pub mod rate_limit;
pub mod retry;

pub use rate_limit::{RateLimit, RateLimitLayer};
pub use retry::{Deadline, RetryLayer, RetryPolicy};
