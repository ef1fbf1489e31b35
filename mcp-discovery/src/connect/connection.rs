//! [`Connection`]: an open transport to a configured server, before the
//! handshake, with what it can tell about its server
//! ([`ConnectionDetails`]) and the layers the session over it must run.

use std::sync::Arc;

use mcpdisco_client::policy::{LayerStack, RequestLayer};
use mcpdisco_client::session::SessionOptions;
use mcpdisco_transport::Transport;
use mcpdisco_transport::codec::ndjson::SkipLog;
use mcpdisco_transport::secret::Masker;

/// What a connection can tell about its server beyond messages: what
/// diagnostics quote when a server fails.
pub trait ConnectionDetails: Send + Sync {
    /// The end of what the server wrote to stderr (masked); empty when there is none.
    fn stderr_tail(&self) -> String {
        String::new()
    }

    /// The lines of output skipped as not JSON-RPC (noise, oversized), if the transport reads lines.
    fn skipped_lines(&self) -> Option<SkipLog> {
        None
    }
}

/// Details of a transport that has none to give.
struct NoDetails;

impl ConnectionDetails for NoDetails {}

/// An open transport to a configured server, before the handshake.
#[derive(Clone)]
pub struct Connection {
    transport: Arc<dyn Transport>,
    details: Arc<dyn ConnectionDetails>,
    /// Layers the session over it needs (an HTTP server's authorization),
    /// innermost in its stack.
    layers: LayerStack,
    /// Secrets those layers hold.
    masker: Masker,
}

impl Connection {
    /// A connection over `transport`, with nothing more to tell.
    pub fn new(transport: Arc<dyn Transport>) -> Self {
        Self::with_details(transport, Arc::new(NoDetails))
    }

    /// A connection whose `details` diagnostics can quote.
    pub fn with_details(
        transport: Arc<dyn Transport>,
        details: Arc<dyn ConnectionDetails>,
    ) -> Self {
        Self {
            transport,
            details,
            layers: LayerStack::empty(),
            masker: Masker::default(),
        }
    }

    /// The same, with a layer the session over it must run (innermost in
    /// its stack, inside the options' own layers), and the secrets it holds.
    pub fn with_layer(mut self, layer: impl RequestLayer, masker: Masker) -> Self {
        self.layers = self.layers.layer(layer);
        self.masker = self.masker.union(&masker);
        self
    }

    /// `options` for the session over this connection: its layers added
    /// innermost to the options' stack, its secrets masked.
    pub fn session_options(&self, options: SessionOptions) -> SessionOptions {
        let mut options = options;
        options.stack = options.stack.append(self.layers.clone());
        options.masker = options.masker.union(&self.masker);
        options
    }

    /// The transport, for the session.
    pub fn transport(&self) -> Arc<dyn Transport> {
        Arc::clone(&self.transport)
    }

    /// What the connection can tell about its server.
    pub fn details(&self) -> &dyn ConnectionDetails {
        self.details.as_ref()
    }

    /// The end of the server's stderr (stdio only; empty otherwise).
    pub fn stderr_tail(&self) -> String {
        self.details.stderr_tail()
    }

    /// Closes the transport: the process is stopped and reaped, the HTTP session ended.
    pub async fn close(&self) {
        if let Err(error) = self.transport.close().await {
            tracing::debug!(%error, "closing the transport");
        }
    }
}
