//! What a supervisor reports as it runs ([`SupervisorEvent`]).

use std::sync::Arc;

use mcpdisco::catalog::Catalog;
use mcpdisco_protocol::types::LoggingLevel;
use serde_json::Value;

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
    /// A server sent a log message (`notifications/message`), masked like
    /// everything from a server.
    Log {
        /// The server.
        server: String,
        /// Its level, as sent.
        level: LoggingLevel,
        /// The logger's name, as sent.
        logger: Option<String>,
        /// The payload.
        data: Value,
    },
    /// A server said one of its resources changed
    /// (`notifications/resources/updated`).
    ResourceUpdated {
        /// The server.
        server: String,
        /// The resource's URI, as the server knows it.
        uri: String,
    },
}
