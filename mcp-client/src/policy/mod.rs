//! Policies: layers around a session's request service
//! ([`RequestService`](crate::request::RequestService)), each an ordinary
//! `tower::Layer` of its own with its own tests, and the [`LayerStack`] that
//! states their order. The session and the transports stay policy-free.
//! Each is written the same way ([`service`]): a [`Policy`] says what it does
//! with a request, and [`PolicyService`] makes it a `tower::Service` that
//! handles readiness as tower intends.
//!
//! | policy | what it does | default |
//! |---|---|---|
//! | [`retry`] | sends a failed request again, with exponential backoff, when that is safe | 3 retries, 1 s to 30 s, factor 2, jitter 0.1 |
//! | [`rate_limit`] | a token bucket per server (the pure [`gcra`] decision) | 10 requests per second, burst 20 |
//! | [`trace`] | a `tracing` span around each request | not in the default stack |
//!
//! Authorization (`auth::AuthLayer`, feature `oauth`) and your own
//! layers take their place in the same stack; [`stack`] shows the default
//! order and how to change it.
//!
//! The wire trace is not here: it must see every message, notifications and
//! the server's own requests included, so it wraps the transport
//! ([`mcpdisco_transport::trace::TracedTransport`]).

pub mod gcra;
pub mod rate_limit;
pub mod retry;
pub mod service;
pub mod stack;
pub mod trace;

pub use gcra::{Gcra, GcraDecision};
pub use rate_limit::{RateLimit, RateLimitLayer};
pub use retry::{Deadline, RetryLayer, RetryPolicy};
pub use service::{Inner, Policy, PolicyService};
pub use stack::{LayerStack, RequestLayer};
pub use trace::TraceLayer;
