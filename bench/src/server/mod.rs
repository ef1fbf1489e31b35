//! The bench server: a minimal legacy-era MCP server that answers at once.
//!
//! [`responder`] is the protocol logic without I/O; [`stdio`] serves it over
//! standard input and output; [`http`] serves it over Streamable HTTP and
//! counts the TCP connections it accepts.

pub mod http;
pub mod responder;
pub mod stdio;

pub use responder::{Answer, Responder};
