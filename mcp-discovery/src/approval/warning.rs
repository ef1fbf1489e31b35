//! [`Warning`]: what an approval step passed over and went on without, for
//! the user to see. Each step returns its warnings beside its outcome (or
//! inside its error): none is logged and dropped.

use std::path::PathBuf;
use std::time::Duration;

use crate::cache::StoreError;

/// What an approval step passed over.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum Warning {
    /// The fleet's shared pins could not be read: the lock file's were used.
    #[error("shared pins unavailable ({failure}); using {}", lock.display())]
    SharedPinsUnread {
        /// Why.
        failure: SharedPinsFailure,
        /// The lock file read instead.
        lock: PathBuf,
    },
    /// The fleet's shared pins were not updated: the lock file has them.
    #[error("the shared pins were not updated ({failure}); {} has them", lock.display())]
    SharedPinsNotUpdated {
        /// Why.
        failure: SharedPinsFailure,
        /// The lock file written.
        lock: PathBuf,
    },
    /// An item of a server's tools is not a tool: it has no manifest.
    #[error("'{server}' lists a tool that cannot be read ({error}); it was not exported")]
    NotATool {
        /// The server.
        server: String,
        /// Why it is not a tool, naming it when it has a name.
        error: String,
    },
    /// A server could not be connected to, so none of its output types
    /// were learnt.
    #[error("no output types for '{server}': {error}")]
    NoOutputTypes {
        /// The server.
        server: String,
        /// Why (masked).
        error: String,
    },
    /// Calling a tool did not show its output type: it stays unknown.
    #[error("the output type of '{server}' tool '{tool}' stays unknown")]
    OutputTypeUnknown {
        /// The server.
        server: String,
        /// The tool.
        tool: String,
    },
}

/// Why the fleet's shared pins could not be used.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum SharedPinsFailure {
    /// The shared store could not be opened (its URL is not one, or this
    /// build has no Redis client).
    #[error("cannot open the shared store: {0}")]
    Unopened(StoreError),
    /// The store answered with an error.
    #[error("{0}")]
    Failed(StoreError),
    /// The store did not answer in time.
    #[error("{store}: no answer within {} s", after.as_secs())]
    NoAnswer {
        /// The store, without credentials.
        store: String,
        /// How long it was given.
        after: Duration,
    },
}
