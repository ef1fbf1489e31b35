//! The server side of the same framing: what an MCP server (the gateway of
//! `mcp-cli serve`, the example server) uses to talk to its clients.
//!
//! A client connection is a [`Transport`](crate::Transport) seen from the
//! server: `receive` yields what the client sent, `send` sends to it. So a
//! server is written once, against the trait, whatever carries it.
//!
//! - [`stdio::StdioServer`]: one client on this process's stdin and stdout
//!   (newline JSON, the same codec as the client side).
//! - `http::HttpServer` (feature `server-http`): Streamable HTTP at one
//!   endpoint, for both eras. Each legacy session (`initialize`,
//!   `Mcp-Session-Id`, sealed so that any server holding the keys resumes
//!   it) is a connection; each modern request without a
//!   session is a connection of its own. Answers go back as JSON, or as an
//!   event stream when the server sends anything else first (progress, a
//!   request to the client); other server messages go on the GET stream.
//! - [`Router`]: what answers the messages, whatever carries them: typed
//!   handlers by method (`router.on::<ListTools>(list_tools)`), which decode
//!   the method's params and encode its result.

#[cfg(feature = "server-http")]
pub mod http;
pub mod router;
pub mod stdio;

pub use router::{NotificationHandler, Reply, ReplyHandler, RequestHandler, Router};
