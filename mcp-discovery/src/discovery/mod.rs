//! Parallel discovery: every enabled server at once (up to a limit), each
//! under its own deadline, each ending `ready`, `failed` or `disabled`.
//!
//! One server's failure (a spawn error, a crash, a hang, garbage output, an
//! oversized message) never delays the others beyond its own deadline. After
//! discovery the sessions are closed and their processes reaped; a
//! supervisor (`mcpdisco-gateway`) keeps them open instead.
//!
//! ```no_run
//! # async fn demo(servers: Vec<mcpdisco::config::ServerConfig>) {
//! use mcpdisco::discovery::{discover, DiscoveryOptions};
//! let report = discover(&servers, &DiscoveryOptions::default()).await;
//! for server in &report.servers {
//!     println!("{}: {} ({} tools)", server.name, server.status, server.tools.len());
//! }
//! # }
//! ```

mod options;
mod probe;
mod run;
mod warm;

pub use crate::report::{
    DiscoveryReport, Failure, ServerReport, ServerStatus, StatusSummary, Timings,
};
pub use options::{
    DEFAULT_CONCURRENCY, DEFAULT_DEADLINE, DiscoveryEvent, DiscoveryObserver, DiscoveryOptions,
};
pub use probe::describe;
pub use run::{Closing, discover, discover_detached};
pub use warm::{WarmMode, WarmStats, warm};
