//! An MCP client for both protocol eras, over any
//! [`Transport`](mcpdisco_transport::Transport).
//!
//! * [`session`]: the session. [`Session::connect`](session::Session::connect)
//!   detects the era (the modern `server/discover`, else the legacy
//!   `initialize` handshake) and offers typed requests; many may be in
//!   flight, each with a timeout, and a timed-out or dropped one is cancelled.
//! * [`request`]: the seam every policy wraps: a request on its way, and the
//!   session's requests as one `tower::Service`.
//! * [`policy`]: retry and rate limit, as layers over that service.
//! * [`auth`]: OAuth 2.1 for HTTP servers, as a layer too.
//! * [`error`]: [`SessionError`](error::SessionError), naming the server, the
//!   operation, and whether the request may have run.
//! * [`notification`]: what servers send unasked.
//!
//! Every text that comes from a server (results, error messages, `serverInfo`,
//! instructions) passes through the session's masker, so no known secret
//! reaches a host.

#![warn(missing_docs)]
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod auth;
pub mod error;
pub mod notification;
pub mod policy;
pub mod request;
pub mod session;

/// The protocol types this crate speaks ([`mcpdisco_protocol`]).
pub use mcpdisco_protocol as protocol;

/// The transports it runs over ([`mcpdisco_transport`]).
pub use mcpdisco_transport as transport;
