//! A small MCP server written with this workspace's own crates: the other end
//! of the quick start, and an example of a server written against typed
//! methods: one handler per `mcp-protocol` method, routed by
//! `mcpdisco_transport::server::Router`, served over `mcp-transport`'s
//! server-side framing.
//!
//! It speaks both protocol eras (`initialize` and `server/discover`) over
//! stdio and Streamable HTTP, and offers four tools (`add`, `echo`,
//! `word_count`, `fail`), two resources, a resource template
//! (`example://greeting/{name}`) and two prompts. Everything is
//! deterministic: no clock, no randomness, no files, no network (only the
//! `--conformance` catalog's tasks keep time and expire).
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! use mcp_example_server::{Server, ServerOptions, serve_stdio};
//! serve_stdio(Server::new(ServerOptions::default())).await
//! # }
//! ```

#![warn(missing_docs)]

pub mod catalog;
mod conformance;
mod context;
mod handlers;
mod http;
mod options;
mod peer;
mod results;
mod server;
mod shared;
mod slow_report;
mod stdio;
mod task_state;
mod task_store;

pub use http::{router, serve_http};
pub use options::{EraSupport, ServerOptions};
pub use server::Server;
pub use stdio::{serve_stdio, serve_transport};
