//! One MCP server in front of many.
//!
//! * [`supervisor`]: configured servers kept running: states, health pings,
//!   restarts with backoff, routing of calls by namespaced name, and events.
//! * [`serve`]: the gateway, an MCP server of both eras in front of every
//!   supervised server, over stdio or (feature `http`) Streamable HTTP
//!   (`mcp-cli serve`), in profiles' views.
//! * [`config_watch`]: hot reload: the config's files and folders watched
//!   (and SIGHUP), each change applied to a running gateway.

#![warn(missing_docs)]
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod config_watch;
pub mod serve;
pub mod supervisor;

/// The server side of the transports (stdio; Streamable HTTP with feature
/// `http`), which the gateway serves on.
pub use mcpdisco_transport::server;
