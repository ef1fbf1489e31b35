//! What a supervisor reports as it runs ([`SupervisorEvent`]).

use std::sync::Arc;

use mcpdisco::catalog::Catalog;

use super::state::Status;

/// What a supervisor reports as it runs.
#[derive(Debug, Clone)]
pub enum SupervisorEvent {
    /// A server changed state.
    Status {
        /// The server.
        server: String,
        /// Its new state.
        status: Status,
    },
    /// A server said one of its lists changed (it is being listed again).
    ListChanged {
        /// The server.
        server: String,
    },
    /// The catalog changed (a server became ready or went away, or listed again).
    Catalog(Arc<Catalog>),
}
