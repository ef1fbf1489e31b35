//! The operations endpoints: `/healthz` and the metadata (open), `/readyz`
//! and `/metrics` (guarded by the caller).

use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use super::access::Guard;
use crate::limits::ClientRateLimiter;
use crate::serve::Gateway;

/// What `/readyz` and `/metrics` read: the gateway, and the client rate
/// limiter (whose shared store may be degraded).
type Operations = (Gateway, Option<Arc<ClientRateLimiter>>);

/// `/readyz` and (feature `metrics`) `/metrics`.
pub(super) fn guarded(gateway: Gateway, limiter: Option<Arc<ClientRateLimiter>>) -> Router {
    let router = Router::new().route("/readyz", get(readyz));
    #[cfg(feature = "metrics")]
    let router = router.route("/metrics", get(metrics));
    router.with_state((gateway, limiter))
}

/// `/healthz`, and the resource metadata when JWTs are asked for.
pub(super) fn open(guard: Arc<Guard>) -> Router {
    let router = Router::new().route("/healthz", get(healthz));
    #[cfg(feature = "jwt-auth")]
    let router = {
        use crate::resource_server::METADATA_PATH;
        if guard.access.is_jwt() {
            // The bare path, and RFC 9728's for the resource `/mcp`.
            router
                .route(METADATA_PATH, get(metadata))
                .route(&format!("{METADATA_PATH}/mcp"), get(metadata))
        } else {
            router
        }
    };
    router.with_state(guard)
}

async fn healthz() -> &'static str {
    "ok\n"
}

async fn readyz(State((gateway, limiter)): State<Operations>) -> Response {
    let store = limiter.as_ref().and_then(|limiter| limiter.store_state());
    // A degraded store never makes the replica unready: calls go on.
    let readiness = gateway.readiness().session_store(store);
    let status = if readiness.ready {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    let body = serde_json::to_vec(&readiness).unwrap_or_default();
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

#[cfg(feature = "metrics")]
async fn metrics(State((gateway, limiter)): State<Operations>) -> Response {
    use crate::operations::metrics::CONTENT_TYPE;
    let store = limiter.as_ref().and_then(|limiter| limiter.store_state());
    gateway.metrics().set_session_store(store);
    let text = gateway.metrics_text();
    ([(header::CONTENT_TYPE, CONTENT_TYPE)], text).into_response()
}

#[cfg(feature = "jwt-auth")]
async fn metadata(State(guard): State<Arc<Guard>>, headers: axum::http::HeaderMap) -> Response {
    let super::Access::Jwt(server) = &guard.access else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let document = server.metadata(format!("{}/mcp", guard.base_url(&headers)));
    let body = serde_json::to_vec(&document).unwrap_or_default();
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}
