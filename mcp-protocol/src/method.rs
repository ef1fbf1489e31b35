//! Typed methods, in the lsp-types pattern: one zero-sized type per method pairs
//! its name with its params and result types, so a session's
//! `request::<ListTools>(params)` can never mix them up.

use serde::Serialize;
use serde::de::DeserializeOwned;

/// A request method: its name, its params and its result.
pub trait RequestMethod {
    /// The method name, such as `tools/list`.
    const METHOD: &'static str;
    /// Whether sending it twice has the effect of sending it once, so a
    /// request that may already have reached the server can be sent again
    /// (lists, reads, `ping`). `tools/call` is not: a tool may act.
    const IDEMPOTENT: bool;
    /// What the request is to the client that sends it: part of the
    /// handshake, one page of a listing, or an operation of its own.
    const KIND: RequestKind;
    /// The params type.
    type Params: Serialize + DeserializeOwned + Send + Sync + 'static;
    /// The result type.
    type Result: Serialize + DeserializeOwned + Send + Sync + 'static;
}

/// A notification method: its name and its params.
pub trait NotificationMethod {
    /// The method name, such as `notifications/initialized`.
    const METHOD: &'static str;
    /// The params type.
    type Params: Serialize + DeserializeOwned + Send + Sync + 'static;
}

/// What a request is to the client that sends it. A client's policies count
/// work by it: a whole discovery (the handshake and every page of every
/// list) is one operation, as is each call, read or prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RequestKind {
    /// Opens or renews a session: `initialize`, `server/discover`.
    Handshake,
    /// One page of a list: `tools/list`, `resources/list`, …
    Listing,
    /// Anything else: a call, a read, a prompt, a ping, a subscription.
    Operation,
}
