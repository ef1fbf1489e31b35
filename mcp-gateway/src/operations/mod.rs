//! What an orchestrator asks of a running gateway: is it ready
//! ([`readiness`]), and (feature `metrics`) how is it doing ([`metrics`]).
//! Both are plain values here; `serve --http` serves them as `GET /readyz`
//! and `GET /metrics` (see [`crate::http_endpoints`]).

#[cfg(feature = "metrics")]
pub mod metrics;
pub mod readiness;
