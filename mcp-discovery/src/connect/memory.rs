//! [`MemoryConnector`]: servers in the same process, over an in-memory
//! duplex ([`MemoryTransport`]). For tests, and for hosts that embed a
//! server; also a complete example of a third-party connector.

use std::sync::Arc;

use async_trait::async_trait;
use mcpdisco_transport::MemoryTransport;

use super::connection::Connection;
use super::connector::{ConnectContext, Connector};
use crate::config::ServerConfig;
use mcpdisco_client::session::{ErrorKind, SessionError};

/// Makes the client end of an in-memory connection for a configured server
/// (and starts whatever serves the other end), or says why it cannot.
pub type MemoryFactory = dyn Fn(&ServerConfig) -> Result<MemoryTransport, String> + Send + Sync;

/// Connects servers that live in this process.
#[derive(Clone)]
pub struct MemoryConnector {
    factory: Arc<MemoryFactory>,
}

impl std::fmt::Debug for MemoryConnector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryConnector").finish_non_exhaustive()
    }
}

impl MemoryConnector {
    /// A connector whose `factory` makes the client end of each connection.
    pub fn new(
        factory: impl Fn(&ServerConfig) -> Result<MemoryTransport, String> + Send + Sync + 'static,
    ) -> Self {
        Self {
            factory: Arc::new(factory),
        }
    }
}

#[async_trait]
impl Connector for MemoryConnector {
    async fn open(
        &self,
        server: &ServerConfig,
        _context: &ConnectContext,
    ) -> Result<Connection, SessionError> {
        let transport = (self.factory)(server).map_err(|reason| {
            SessionError::new(&server.name, "start", ErrorKind::SpawnFailed { reason })
        })?;
        Ok(Connection::new(Arc::new(transport)))
    }
}
