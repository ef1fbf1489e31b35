//! MCP client transports: bytes to [`mcpdisco_protocol::Message`]s and back.
//!
//! This crate owns the connection to a server (a child process or an HTTP
//! endpoint) and nothing above it: no handshake, no request ids, no timeouts
//! on requests. Those live in the session, in `mcp-client`.
//!
//! | module | what it holds |
//! |---|---|
//! | [`transport`] | the [`Transport`] trait, and [`TransportInfo`] for telemetry |
//! | [`inbound`] | [`Inbound`]: what `receive` yields |
//! | [`codec`] | newline-JSON ([`codec::ndjson`]) and server-sent events ([`codec::sse`]) |
//! | [`stdio`] | the child-process transport (feature `stdio`); its settings and command resolution always |
//! | [`http`] | Streamable HTTP, legacy HTTP+SSE, and the fallback between them (feature `http`); [`http::HttpKind`] always |
//! | [`memory`] | an in-memory duplex, for tests and in-process servers |
//! | [`trace`] | the wire trace: [`trace::TracedTransport`] and the HTTP observer events |
//! | `server` (feature `server`) | the server side of the same framing: stdio and (feature `server-http`) Streamable HTTP connections |
//! | [`secret`] | secret types and the [`secret::Masker`] every outside text passes through |
//! | [`error`] | [`TransportError`] |
//! | `fs` (feature `fs`) | writing a file atomically (temporary file, then rename) |
//! | [`sync`] | poison-tolerant locks |
//!
//! # Features by role
//!
//! The codecs, the [`Transport`] trait, the memory transport, the masker,
//! the trace and the locks are always there; each role turns on what it
//! runs:
//!
//! | feature | what it adds | for |
//! |---|---|---|
//! | `stdio` (default) | [`stdio::StdioTransport`]: a server as a child process (tokio `process`, `nix`) | clients |
//! | `http` (default) | the HTTP client transports ([`http`]: reqwest, rustls with ring on Unix, the platform's TLS on Windows); implies `url` | clients |
//! | `url` | URLs among the secrets: [`secret::SecretUrl`], [`secret::redact_url`], [`secret::MaskerBuilder::url`], [`Peer::of_url`] (the `url` crate) | hosts that read HTTP configs |
//! | `fs` | `fs`: writing a file atomically (tempfile) | hosts that keep files: token stores, caches, pins |
//! | `server` | `server::stdio::StdioServer` (one client on this process's stdin and stdout) and the `server::Router` | servers, gateways |
//! | `server-http` | `server::http`: Streamable HTTP connections (axum); implies `server` | servers, gateways |
//!
//! The defaults are the client side, `stdio` and `http`. A stdio-only
//! client takes `default-features = false, features = ["stdio"]` and has
//! none of the HTTP stack in its tree; a server takes `server` (or
//! `server-http`) and none of the client transports.
//!
//! # Adding a transport
//!
//! A transport is any type that implements [`Transport`]'s four required
//! methods; the session in `mcp-client` accepts it as it is, and no other
//! crate changes.
//! The contract:
//!
//! - `send` may be called from many tasks at once, and returns once the
//!   message is handed to the connection. An error concerns that message.
//! - `receive` is called by one task at a time and must be cancel-safe. Yield
//!   the messages of a batch one by one. `Ok(None)` is a clean end; an `Err`
//!   means the connection is gone.
//! - `close` is idempotent and releases everything; dropping must release it too.
//! - `describe` names the connection for logs, without secrets.
//! - A transport that knows a request's answer will never come (a response
//!   stream broke and cannot be resumed) yields [`Inbound::AnswerLost`] for
//!   it from `receive`, so the session fails or re-issues it at once.
//! - Telemetry's facts (the peer, an HTTP session id) are [`TransportInfo`],
//!   offered through [`Transport::info`]; leave it out and they are unknown.
//!
//! To start it from a config like the built-in transports, implement
//! `mcpdisco::connect::Connector` for it (open the transport from the
//! server's settings) and register it under a `type` name with
//! `Connectors::with`; a config entry `{"type": "<name>", ...}` then
//! starts it through discovery, the hub and the CLI alike. The
//! `mcpdisco::connect` docs show it end to end with an in-memory
//! transport.
//!
//! For a byte stream, [`codec::ndjson::NdjsonCodec`] with `tokio_util`'s
//! `FramedRead`/`FramedWrite` does the framing; `examples/tcp_transport.rs` is
//! a complete newline-JSON-over-TCP transport in about a hundred lines.
//!
//! ```
//! use async_trait::async_trait;
//! use mcpdisco_protocol::Message;
//! use mcpdisco_transport::{Inbound, Transport, TransportError};
//!
//! /// A transport that has nothing to say and accepts everything.
//! struct Silent;
//!
//! #[async_trait]
//! impl Transport for Silent {
//!     async fn send(&self, _message: Message) -> Result<(), TransportError> { Ok(()) }
//!     async fn receive(&self) -> Result<Option<Inbound>, TransportError> { Ok(None) }
//!     async fn close(&self) -> Result<(), TransportError> { Ok(()) }
//!     fn describe(&self) -> String { "silent".into() }
//! }
//! ```

#![warn(missing_docs)]
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod codec;
pub mod error;
#[cfg(feature = "fs")]
pub mod fs;
pub mod http;
pub mod inbound;
pub mod memory;
pub mod secret;
#[cfg(feature = "server")]
pub mod server;
pub mod stdio;
pub mod sync;
pub mod trace;
pub mod transport;

pub use error::{ConnectCause, Delivery, ExitStatus, TransportError};
pub use inbound::Inbound;
pub use memory::MemoryTransport;
pub use transport::{Peer, ResumedHandshake, Transport, TransportInfo};

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
