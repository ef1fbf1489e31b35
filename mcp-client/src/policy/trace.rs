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
use std::task::{Context, Poll};

use mcpdisco_protocol::RawJson;
use mcpdisco_transport::secret::Masker;
use tower::{Layer, Service, ServiceExt};
use tracing::Instrument;

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
        Traced {
            inner,
            layer: self.clone(),
        }
    }
}

/// A request service whose requests each run in a span of their own.
#[derive(Debug, Clone)]
pub struct Traced<S> {
    inner: S,
    layer: TraceLayer,
}

impl<S> Service<McpRequest> for Traced<S>
where
    S: Service<McpRequest, Response = RawJson, Error = SessionError> + Clone + Send + 'static,
    S::Future: Send,
{
    type Response = RawJson;
    type Error = SessionError;
    type Future = ResponseFuture;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), SessionError>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        let span = tracing::debug_span!(
            SPAN_NAME,
            server = %self.layer.server,
            method = %request.method,
        );
        let inner = self.inner.clone();
        let masker = self.layer.masker.clone();
        Box::pin(
            async move {
                let outcome = inner.oneshot(request).await;
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
