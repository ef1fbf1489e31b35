//! Trace: a `tracing` span around each request that passes the layer
//! (`mcp_request`, with the server and the method), and a debug event when
//! it is answered or fails (the error masked, and its kind).
//!
//! Where it stands in the [`LayerStack`](super::LayerStack) decides what a
//! span covers: outside retry, one span per call, backoff included (the
//! retries' own log lines fall inside it); inside retry, one per attempt.
//! It sees requests, not messages: the wire trace, which must also see
//! notifications and the server's own requests, wraps the transport
//! ([`mcpdisco_transport::trace::TracedTransport`]).

use std::sync::Arc;

use mcpdisco_protocol::RawJson;
use mcpdisco_transport::secret::Masker;
use tower::{Layer, Service};
use tracing::Instrument;

use super::service::{Inner, Policy, PolicyService};
use crate::error::SessionError;
use crate::request::{McpRequest, ResponseFuture};

/// The name of the span around each request.
pub const SPAN_NAME: &str = "mcp_request";

/// Adds [`Traced`] around a request service.
#[derive(Debug, Clone)]
pub struct TraceLayer {
    server: Arc<str>,
    masker: Masker,
}

impl TraceLayer {
    /// Traces the requests to `server`.
    pub fn new(server: impl Into<String>) -> Self {
        Self {
            server: Arc::from(server.into()),
            masker: Masker::default(),
        }
    }

    /// Masks known secrets in the errors its events quote.
    pub fn masked_with(mut self, masker: Masker) -> Self {
        self.masker = masker;
        self
    }

    /// `inner`, traced.
    pub fn wrap<S>(&self, inner: S) -> Traced<S> {
        self.layer(inner)
    }
}

impl<S> Layer<S> for TraceLayer {
    type Service = Traced<S>;

    fn layer(&self, inner: S) -> Traced<S> {
        PolicyService::new(self.clone(), inner)
    }
}

/// A request service whose requests each run in a span of their own.
pub type Traced<S> = PolicyService<TraceLayer, S>;

impl Policy for TraceLayer {
    fn send<S>(&self, mut inner: Inner<S>, request: McpRequest) -> ResponseFuture
    where
        S: Service<McpRequest, Response = RawJson, Error = SessionError> + Send + 'static,
        S::Future: Send,
    {
        let span = tracing::debug_span!(
            SPAN_NAME,
            server = %self.server,
            method = %request.method,
        );
        let masker = self.masker.clone();
        Box::pin(
            async move {
                let outcome = inner.send(request).await;
                match &outcome {
                    Ok(_) => tracing::debug!("answered"),
                    Err(error) => {
                        let shown = masker.mask_string(error.to_string());
                        tracing::debug!(kind = error.kind_name(), error = %shown, "failed");
                    }
                }
                outcome
            }
            .instrument(span),
        )
    }
}
