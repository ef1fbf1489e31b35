//! Benchmarks of this workspace's MCP client side by side with `rmcp` (the
//! official Rust SDK) and with a raw baseline that does no protocol work (the
//! floor), as `cargo xtask bench` runs them.
//!
//! This crate sits outside the workspace so that `cargo build` never compiles
//! rmcp (the test command runs this crate's tests on their own). Its features
//! are the sides: `ours` (our crates, with the serde_json features our
//! workspace turns on) and `peers` (rmcp and the raw floors, with serde_json's
//! defaults, as rmcp's users get it). The bench builds each side alone, in a
//! target folder of its own, so that feature unification cannot leak one
//! side's features into the other's; the default, both, is for the tests. It
//! builds two programs:
//!
//! * `bench-server`: a minimal MCP server that answers `initialize`, `ping`
//!   and `tools/list` at once, over stdio (optionally after a start delay,
//!   like a Node server) or over Streamable HTTP (JSON or SSE responses,
//!   counting the TCP connections it accepts).
//! * `bench-runner`: one case for one contender per process, so the harness
//!   can take each case's peak memory from the operating system. It prints
//!   one line `bench-result {json}` with its measurements. Its `measure`
//!   subcommand runs any program (a case, or `mcp-cli`) and reports the wall
//!   time and peak RSS the OS gives ([`measure`]).
//!
//! | module | benchmark |
//! |---|---|
//! | [`codec`] | B1: decoding throughput of one 40 MB line and of 100 000 small messages, checked (against a validating floor) and typed (against rmcp) |
//! | [`stdio`] | B2: request latency and throughput over stdio |
//! | [`discovery`] | B3: rmcp over every server at once and the single-server floor (ours is `mcp-cli`) |
//! | [`fronts`] | B5 under load: our gateway over stdio and HTTP, a byte relay (the floor) and `mcp-proxy` (the peer), at 1 and 32 clients |
//! | [`fleet`] | B9: `serve --http` replicas behind HAProxy ([`haproxy`]) and one alone, 32 clients |
//! | [`serve_http`] | `mcp-cli serve --http` in a process of its own (B5's HTTP front, B9's replicas) |
//! | [`http`] | B4: `tools/list` over Streamable HTTP, and the connections it opens |
//! | [`real`] | B6: real Node and Python servers discovered all at once (rmcp with `join_all`, and the raw floor) |
//! | [`placement`] | which CPUs a client and its server run on (latency on a VM is bimodal) |
//!
//! ```no_run
//! # async fn demo() -> Result<(), mcp_bench::BenchError> {
//! use mcp_bench::{codec, Contender};
//! let result =
//!     codec::run(Contender::Ours, codec::Decoding::Typed, codec::Workload::Small, 3).await?;
//! println!("{} bytes in {:?} s", result.bytes, result.seconds);
//! # Ok(()) }
//! ```

#![warn(missing_docs)]

#[cfg(not(any(feature = "ours", feature = "peers")))]
compile_error!("mcp-bench needs a side: the `ours` feature, the `peers` feature, or both");

pub mod codec;
pub mod contender;
pub mod discovery;
pub mod error;
#[cfg(feature = "ours")]
pub mod fleet;
#[cfg(feature = "ours")]
pub mod fronts;
#[cfg(feature = "ours")]
pub mod gateway;
#[cfg(feature = "ours")]
pub mod haproxy;
pub mod http;
pub mod measure;
pub mod pipe;
pub mod placement;
#[cfg(feature = "peers")]
pub mod raw_client;
#[cfg(feature = "peers")]
pub mod real;
#[cfg(feature = "ours")]
pub mod relay;
pub mod rss;
#[cfg(feature = "ours")]
pub mod serve_http;
pub mod server;
pub mod statistics;
pub mod stdio;
pub mod workload;

pub use contender::Contender;
pub use error::BenchError;
