//! Composition over the lower crates.
//!
//! Today this is [`session`]: the MCP client session for both protocol eras
//! over any [`mcp_transport::Transport`]. Server configuration, parallel
//! discovery, caching, aggregation and call routing build on it and are not
//! written yet.

#![warn(missing_docs)]

pub mod session;
