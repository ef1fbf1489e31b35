//! The operations endpoints: `/healthz` and the metadata (open), `/readyz`
//! and `/metrics` (guarded by the caller).

use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use super::access::Guard;
use crate::limits::{ClientRateLimiter, StoreState};
use crate::operations::readiness::StoreFeature;
use crate::serve::Gateway;

/// What uses the shared store, whose state `/readyz` and `/metrics` say.
#[derive(Clone, Default)]
pub(super) struct Stores {
    /// The client rate limiter (its counts shared through the store).
    pub(super) limiter: Option<Arc<ClientRateLimiter>>,
    /// The session store (feature `redis`).
    #[cfg(feature = "redis")]
    pub(super) session_store: Option<Arc<crate::session_store::SessionStore>>,
}

impl Stores {
    /// Each feature that uses the store, and its state.
    fn states(&self) -> Vec<(StoreFeature, StoreState)> {
        let mut states = Vec::new();
        if let Some(state) = self
            .limiter
            .as_ref()
            .and_then(|limiter| limiter.store_state())
        {
            states.push((StoreFeature::RateLimit, state));
        }
        #[cfg(feature = "redis")]
        if let Some(store) = &self.session_store {
            states.push((StoreFeature::Sessions, store.state()));
        }
        states
    }
}

/// What `/readyz` and `/metrics` read: the gateway, and what uses the
/// shared store (which may be degraded).
type Operations = (Gateway, Stores);

/// `/readyz` and (feature `metrics`) `/metrics`.
pub(super) fn guarded(gateway: Gateway, stores: Stores) -> Router {
    let router = Router::new().route("/readyz", get(readyz));
    #[cfg(feature = "metrics")]
    let router = router.route("/metrics", get(metrics));
    router.with_state((gateway, stores))
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

async fn readyz(State((gateway, stores)): State<Operations>) -> Response {
    // A degraded store never makes the replica unready: calls go on.
    let readiness = gateway.readiness().session_store(stores.states());
    let status = if readiness.ready {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    let body = serde_json::to_vec(&readiness).unwrap_or_default();
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

#[cfg(feature = "metrics")]
async fn metrics(State((gateway, stores)): State<Operations>) -> Response {
    use crate::operations::metrics::CONTENT_TYPE;
    gateway.metrics().set_session_store(&stores.states());
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
