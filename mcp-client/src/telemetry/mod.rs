//! OpenTelemetry traces and metrics by the MCP semantic conventions
//! (GenAI conventions, `model/mcp`, Development status). Feature `otel`.
//!
//! The host builds its tracer and meter providers and hands them over as a
//! [`Telemetry`]; nothing here installs a global provider or reads the
//! environment. A session's request path gets two layers
//! ([`LayerStack::telemetry`](crate::policy::LayerStack::telemetry)):
//!
//! ```text
//! outermost first:
//!   telemetry      the span `{mcp.method.name} {target}` of each request, its
//!                  attributes, error.type and status; mcp.client.operation.duration.
//!                  CLIENT, carried as `_meta.traceparent`, when the request has
//!                  one attempt; INTERNAL, over the attempts, with retry
//!   retry          events `retry` (with the delay) on the request's span
//!     attempt      (inside the innermost retry layer below telemetry) a CLIENT
//!                  span per attempt, with the request's attributes; its context
//!                  goes to the server as `_meta.traceparent`
//!   rate limit     event `rate_limit.wait` when a request waited for a token
//!   authorization  event `auth.refresh` when a refusal made it refresh or authorize
//!   core
//! ```
//!
//! So a server's SERVER span is always the child of a CLIENT span.
//!
//! A host opens its own spans around its work with [`SpanScope`] (the root
//! span of a command, a server's span); a server answering requests (the
//! gateway) opens a [`ServerRequestSpan`] per request, a child of the
//! caller's `traceparent`, and times its connections with
//! [`SessionDuration`].
//!
//! Every attribute value passes the session's masker. Tool arguments and
//! results are recorded only when asked ([`Telemetry::record_arguments`],
//! [`Telemetry::record_results`]), masked too.

mod carrier;
mod classify;
mod handle;
pub(crate) mod layer;
pub mod names;
mod scope;
mod server;

pub use carrier::{from_carrier, to_carrier, with_remote_parent};
pub use classify::Failure;
pub use handle::{Instruments, SCOPE_NAME, Telemetry};
pub use scope::SpanScope;
pub use server::{ServerRequestSpan, SessionDuration, Side};

#[cfg(test)]
mod tests;
