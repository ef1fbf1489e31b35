//! What each of the gateway's handlers is given besides its params.

use std::sync::Arc;

use mcpdisco_protocol::RequestId;
use mcpdisco_protocol::version::Era;

use super::client::ClientLink;
use super::shared::Shared;

/// One request of a client: the gateway, the client's connection and its
/// profile, the request's id and its era.
#[derive(Clone)]
pub(crate) struct RequestContext {
    /// What every client of the gateway shares.
    pub(crate) shared: Arc<Shared>,
    /// The client's connection.
    pub(crate) link: Arc<ClientLink>,
    /// The request's id.
    pub(crate) id: RequestId,
    /// The era its `_meta` puts it in.
    pub(crate) era: Era,
    /// The profile whose view the client sees; every item when `None`.
    pub(crate) profile: Option<Arc<str>>,
}
