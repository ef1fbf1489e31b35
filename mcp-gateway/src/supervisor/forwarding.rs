//! Requests the gateway forwards to one server on its clients' behalf,
//! besides calls: `completion/complete`, `logging/setLevel`,
//! `resources/subscribe` and `resources/unsubscribe`. Each goes through
//! the one delivery path of calls (sent once more after a restart only if
//! it was never delivered).

use mcpdisco_client::session::{RequestOptions, Session};
use mcpdisco_protocol::methods::Complete;
use mcpdisco_protocol::types::{CompleteParams, CompleteResult, LoggingLevel, ServerCapabilities};

use super::Supervisor;
use super::error::SupervisorError;

impl Supervisor {
    /// The session of `server` if it is connected now (no start, no wait).
    pub fn connected_session(&self, server: &str) -> Option<Session> {
        let unit = self.inner.unit(server).ok()?;
        let connected = unit.status.borrow().is_connected();
        if connected {
            unit.session.read().clone()
        } else {
            None
        }
    }

    /// What `server` declared when it was last ready, down or not; `None`
    /// when it never was ready (or declared nothing).
    pub fn last_capabilities(&self, server: &str) -> Option<ServerCapabilities> {
        self.inner.catalogs.last_capabilities(server)
    }

    /// `completion/complete` on `server`, its `ref` already in the server's
    /// own names; the result as the server sent it.
    pub async fn complete(
        &self,
        server: &str,
        params: &CompleteParams,
        options: RequestOptions,
    ) -> Result<CompleteResult, SupervisorError> {
        self.request::<Complete>(server, params, options).await
    }

    /// `logging/setLevel` on `server` (legacy servers only: a modern
    /// session refuses it).
    pub async fn set_log_level(
        &self,
        server: &str,
        level: LoggingLevel,
    ) -> Result<(), SupervisorError> {
        self.deliver(server, |session| {
            let level = level.clone();
            async move { session.set_log_level(level).await }
        })
        .await
    }

    /// `resources/subscribe` of `uri` (the server's own) on `server`.
    pub async fn subscribe_resource(&self, server: &str, uri: &str) -> Result<(), SupervisorError> {
        self.deliver(server, |session| async move {
            session.subscribe_resource(uri).await
        })
        .await
    }

    /// `resources/unsubscribe` of `uri` (the server's own) on `server`.
    pub async fn unsubscribe_resource(
        &self,
        server: &str,
        uri: &str,
    ) -> Result<(), SupervisorError> {
        self.deliver(server, |session| async move {
            session.unsubscribe_resource(uri).await
        })
        .await
    }
}
