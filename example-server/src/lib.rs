//! A small MCP server written with this workspace's own crates: the other end
//! of the quick start, and an example of server-side message handling with
//! `mcp-protocol` types and `mcp-transport`'s newline-JSON codec.
//!
//! It speaks both protocol eras (`initialize` and `server/discover`) over
//! stdio and Streamable HTTP, and offers four tools (`add`, `echo`,
//! `word_count`, `fail`), two resources, a resource template
//! (`example://greeting/{name}`) and two prompts. Everything is
//! deterministic: no clock, no randomness, no files, no network.
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! use mcp_example_server::{Server, ServerOptions, serve_stdio};
//! serve_stdio(Server::new(ServerOptions::default())).await
//! # }
//! ```

#![warn(missing_docs)]

pub mod catalog;
mod handler;
mod http;
mod stdio;

pub use handler::{EraSupport, Server, ServerOptions};
pub use http::{router, serve_http};
pub use stdio::{serve_stdio, serve_transport};
