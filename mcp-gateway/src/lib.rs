//! One MCP server in front of many.
//!
//! * [`supervisor`]: configured servers kept running: states, health pings,
//!   restarts with backoff, routing of calls by namespaced name, and events.
//! * [`serve`]: the gateway, an MCP server of both eras in front of every
//!   supervised server, over stdio or (feature `http`) Streamable HTTP
//!   (`mcp-cli serve`), in profiles' views. It serves on the server side of
//!   the transports, `mcpdisco_transport::server` (`StdioServer`;
//!   `HttpServerOptions` with the transport's `server-http` feature), which
//!   a host names from `mcpdisco-transport` itself.
//! * [`config_watch`]: hot reload: the config's files and folders watched
//!   (feature `watch`, on by default) and SIGHUP, each change applied to a
//!   running gateway.
//! * [`limits`]: limits that hold for a fleet of replicas: a rate per
//!   client subject (shared through Redis with feature `redis`), the
//!   `Host` names allowed, the open-file limit.
//! * [`session_store`]: what changes during a legacy session (deletion,
//!   log level, the GET stream's notifications), shared by a fleet through
//!   Redis (feature `redis`).
//! * [`operations`]: readiness and (feature `metrics`) Prometheus metrics.
//! * `http_endpoints` (feature `http`): everything `serve --http` answers:
//!   `/mcp`, `/profiles/<name>/mcp`, `/healthz`, `/readyz`, `/metrics`,
//!   with their access checks.
//! * `resource_server` (feature `jwt-auth`): bearer JWTs verified against
//!   an identity provider's JWKS, scopes, and RFC 9728 metadata.
//!
//! The servers behind the gateway are reached over stdio and HTTP in every
//! build; `oauth`, `oauth-extensions`, `metrics`, `jwt-auth` and `otel` are
//! asked for (`Cargo.toml` says what each adds).

#![warn(missing_docs)]
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod config_watch;
#[cfg(feature = "http")]
pub mod http_endpoints;
pub mod limits;
pub mod operations;
#[cfg(feature = "jwt-auth")]
pub mod resource_server;
pub mod serve;
pub mod session_store;
pub mod supervisor;

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
