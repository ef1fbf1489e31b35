//! MCP client transports: bytes to [`mcp_protocol::Message`]s and back.
//!
//! This crate owns the connection to a server (a child process or an HTTP
//! endpoint) and nothing above it: no handshake, no request ids, no timeouts
//! on requests. Those live in the session, in `mcp-discovery`.

pub mod codec;
pub mod error;
pub mod http;
pub mod memory;
pub mod stdio;
pub mod transport;

pub use error::{ExitStatus, TransportError};
pub use memory::MemoryTransport;
pub use transport::Transport;
