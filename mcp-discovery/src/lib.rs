//! Composition: MCP client sessions for both protocol eras over any
//! [`mcp_transport::Transport`], server configuration, parallel discovery,
//! caching, aggregation and call routing.

pub mod session;
