//! An MCP client for both protocol eras, over any
//! [`Transport`](mcpdisco_transport::Transport).
//!
//! Start a server, list its tools, print them:
//!
//! ```
//! use mcpdisco_client::Client;
//!
//! # /// The workspace's example server: the one the test command built
//! # /// (`MCP_EXAMPLE_SERVER`), else built by cargo when missing or stale;
//! # /// `None` outside the workspace (a published crate).
//! # async fn example_server() -> Result<Option<String>, Box<dyn std::error::Error>> {
//! #     if let Some(built) = std::env::var_os("MCP_EXAMPLE_SERVER") {
//! #         return Ok(Some(built.to_string_lossy().into_owned()));
//! #     }
//! #     let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.toml");
//! #     if !std::path::Path::new(manifest).exists() {
//! #         return Ok(None);
//! #     }
//! #     let build = tokio::process::Command::new(env!("CARGO"))
//! #         .args(["build", "--quiet", "--message-format=json", "--manifest-path", manifest])
//! #         .args(["-p", "mcp-example-server", "--bin", "mcp-example-server"])
//! #         .kill_on_drop(true)
//! #         .output();
//! #     let built = tokio::time::timeout(std::time::Duration::from_secs(1800), build).await??;
//! #     let executable = String::from_utf8_lossy(&built.stdout)
//! #         .lines()
//! #         .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
//! #         .find_map(|message| message["executable"].as_str().map(str::to_owned));
//! #     match executable {
//! #         Some(path) => Ok(Some(path)),
//! #         None => Err(format!("cargo built no mcp-example-server: {}",
//! #             String::from_utf8_lossy(&built.stderr)).into()),
//! #     }
//! # }
//! # #[cfg(not(feature = "stdio"))]
//! # fn main() {}
//! # #[cfg(feature = "stdio")]
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # // Found (or built) on a runtime of this thread alone, then put on PATH
//! # // while no other thread exists, so changing the environment races
//! # // nothing: found by its name, as an installed server is.
//! # let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
//! # let Some(example_server) = runtime.block_on(example_server())? else { return Ok(()) };
//! # drop(runtime);
//! # let dir = std::path::Path::new(&example_server).parent().ok_or("no directory")?;
//! # let path = std::env::var_os("PATH").unwrap_or_default();
//! # let path = std::env::join_paths(std::iter::once(dir.to_path_buf())
//! #     .chain(std::env::split_paths(&path)))?;
//! # unsafe { std::env::set_var("PATH", path) };
//! # tokio::runtime::Runtime::new()?.block_on(async {
//! let session = Client::stdio("mcp-example-server").args(["stdio"]).connect().await?;
//! let tools = session.list_tools().await?;
//! for tool in &tools {
//!     println!("{}", tool?.name);
//! }
//! # session.close().await?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # })
//! # }
//! ```
//!
//! Each tool is a [`Tool`](protocol::types::Tool), decoded when first read;
//! one the server sent malformed is a
//! [`MalformedItem`](protocol::types::MalformedItem) naming it and why (the
//! `?` above stops there; `tools.valid()` skips it). [`Client`] starts a
//! program ([`Client::stdio`]), reaches an HTTP endpoint ([`Client::http`])
//! or takes any transport ([`Client::transport`]), with the session's
//! settings on the way; [`Session::close`](session::Session::close) stops
//! and reaps the server (dropping the session kills it).
//!
//! * [`client`]: [`Client`], a connected session in one expression.
//! * [`session`]: the session. [`Session::connect`](session::Session::connect)
//!   detects the era (the modern `server/discover`, else the legacy
//!   `initialize` handshake) and offers typed requests in the
//!   [`protocol`] types; many may be in flight, each with a timeout, and a
//!   timed-out or dropped one is cancelled. A
//!   [`ClientHandler`](session::ClientHandler) answers what servers ask
//!   (roots, sampling, elicitation), in either era.
//! * [`request`]: the seam every policy wraps: a request on its way, and the
//!   session's requests as one `tower::Service`.
//! * [`policy`]: retry, rate limit and trace, as `tower::Layer`s over that
//!   service, and the [`LayerStack`](policy::LayerStack) that orders them
//!   with yours.
//! * [`auth`]: OAuth 2.1 for HTTP servers, as a layer too.
//! * `telemetry` (feature `otel`): OpenTelemetry spans by the MCP semantic
//!   conventions and their metrics, as layers of the same stack, with W3C
//!   trace context in `params._meta`.
//! * [`error`]: [`SessionError`](error::SessionError), naming the server, the
//!   operation, and whether the request may have run.
//! * [`notification`]: what servers send unasked.
//!
//! Every text that comes from a server (results, error messages, `serverInfo`,
//! instructions) passes through the session's masker, so no known secret
//! reaches a host.
//!
//! # Features
//!
//! | feature | what it adds |
//! |---|---|
//! | `stdio` (default) | servers as child processes (`mcpdisco-transport/stdio`) |
//! | `http` (default) | Streamable HTTP and legacy SSE servers (`mcpdisco-transport/http`: reqwest, TLS) |
//! | `oauth` | OAuth 2.1 for HTTP servers ([`auth`]); implies `http` |
//! | `oauth-extensions` | DPoP, `private_key_jwt`, the JWT bearer and enterprise grants |
//! | `otel` | OpenTelemetry spans and metrics (`telemetry`) |
//!
//! A stdio-only client, `default-features = false, features = ["stdio"]`,
//! has nothing of the HTTP stack in its tree.

#![warn(missing_docs)]
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod auth;
pub mod client;
pub mod error;
pub mod notification;
pub mod policy;
pub mod request;
pub mod session;
#[cfg(feature = "otel")]
pub mod telemetry;

pub use client::Client;

/// The protocol types this crate speaks ([`mcpdisco_protocol`]).
pub use mcpdisco_protocol as protocol;

/// The transports it runs over ([`mcpdisco_transport`]).
pub use mcpdisco_transport as transport;

/// The OpenTelemetry API this crate's telemetry speaks (feature `otel`).
#[cfg(feature = "otel")]
pub use opentelemetry;

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
