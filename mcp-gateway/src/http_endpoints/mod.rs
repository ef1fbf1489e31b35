//! Everything `serve --http` answers, and who may ask:
//!
//! | path | what | access |
//! |---|---|---|
//! | `/mcp` | Streamable HTTP (`mcpdisco_transport::server::http`) | the token or a JWT |
//! | `/profiles/<name>/mcp` | the view of profile `<name>`; 404 for no such profile | the token, or a JWT with the profile's `requiredScopes` |
//! | `/healthz` | 200 while the process serves | open |
//! | `/readyz` | 200 when every enabled server is connected, else 503; `{"servers": {name: state}}`, and `"sessionStore": "up"` or `"degraded"` with a store, and `"degradedFeatures"` | the token or a JWT |
//! | `/metrics` | Prometheus text (feature `metrics`) | the token or a JWT |
//! | `/.well-known/oauth-protected-resource` | RFC 9728 metadata (with JWT auth) | open |
//!
//! [`Access`] says what a request must carry: nothing, the static
//! `--http-token`, or (feature `jwt-auth`) a JWT the [`ResourceServer`]
//! accepts. A legacy session's id is sealed, bound to its route and to who
//! opened it (the JWT's subject, or the token), so any replica holding the
//! keys ([`read_session_keys`]) serves it.
//!
//! Every path answers 421 to a `Host` that
//! [`allowed_hosts`](HttpEndpointsOptions::allowed_hosts) does not list;
//! the MCP routes answer 429 with `Retry-After` to a client subject over
//! the [`client_rate_limit`](HttpEndpointsOptions::client_rate_limit)
//! (`limit_checks`).
//!
//! [`ResourceServer`]: crate::resource_server::ResourceServer

mod access;
mod limit_checks;
mod operations;
mod session_keys;

use std::sync::Arc;

use axum::Router;
use axum::middleware::from_fn_with_state;
use mcpdisco_transport::server::http::{HttpServer, HttpServerOptions};

use crate::limits::{AllowedHosts, ClientRateLimiter};
use crate::serve::Gateway;
use crate::serve::http_views::ProfileRoutes;
pub use access::Access;
pub use session_keys::{SessionKeyFileError, read_session_keys};

/// How `serve --http` serves: by default the Streamable HTTP side's
/// defaults, open to every request (for a loopback address), behind no
/// proxy; changed with the builder methods (one per field).
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct HttpEndpointsOptions {
    /// The Streamable HTTP side (name, body limit). Its `token` is set
    /// from [`access`](Self::access).
    pub server: HttpServerOptions,
    /// What requests must carry.
    pub access: Access,
    /// The public URL of the gateway (scheme, host, port), when clients
    /// reach it through a proxy: the base of the metadata URL in
    /// challenges and of the `resource` in the metadata. Without it, the
    /// request's `Host` over plain HTTP.
    pub public_url: Option<String>,
    /// The `Host` names requests may use (default: any).
    pub allowed_hosts: AllowedHosts,
    /// The rate of requests each client subject may send to the MCP
    /// routes (default: none).
    pub client_rate_limit: Option<Arc<ClientRateLimiter>>,
    /// The store the replicas of a fleet share legacy sessions through
    /// (deletion, log level, notifications; feature `redis`); default none.
    #[cfg(feature = "redis")]
    pub session_store: Option<Arc<crate::session_store::SessionStore>>,
}

impl std::fmt::Debug for HttpEndpointsOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpEndpointsOptions")
            .field("access", &self.access)
            .field("public_url", &self.public_url)
            .field("allowed_hosts", &self.allowed_hosts)
            .field("client_rate_limit", &self.client_rate_limit)
            .field("session_store", &self.store_state())
            .finish_non_exhaustive()
    }
}

impl HttpEndpointsOptions {
    /// The Streamable HTTP side (name, body limit).
    pub fn server(mut self, server: HttpServerOptions) -> Self {
        self.server = server;
        self
    }

    /// What requests must carry.
    pub fn access(mut self, access: Access) -> Self {
        self.access = access;
        self
    }

    /// The public URL of the gateway, when clients reach it through a proxy.
    pub fn public_url(mut self, url: impl Into<Option<String>>) -> Self {
        self.public_url = url.into();
        self
    }

    /// The `Host` names requests may use.
    pub fn allowed_hosts(mut self, hosts: AllowedHosts) -> Self {
        self.allowed_hosts = hosts;
        self
    }

    /// The rate of requests each client subject may send.
    pub fn client_rate_limit(mut self, limiter: impl Into<Option<Arc<ClientRateLimiter>>>) -> Self {
        self.client_rate_limit = limiter.into();
        self
    }

    /// The store the replicas of a fleet share legacy sessions through.
    #[cfg(feature = "redis")]
    pub fn session_store(
        mut self,
        store: impl Into<Option<Arc<crate::session_store::SessionStore>>>,
    ) -> Self {
        self.session_store = store.into();
        self
    }

    /// The session store's state, when there is one.
    fn store_state(&self) -> Option<crate::limits::StoreState> {
        #[cfg(feature = "redis")]
        if let Some(store) = &self.session_store {
            return Some(store.state());
        }
        None
    }
}

/// Every endpoint's routes, the connections `/mcp` accepts, and the
/// profiles' routes (whose connections end with [`ProfileRoutes::stop`]).
pub(crate) fn router(
    gateway: &Gateway,
    options: HttpEndpointsOptions,
) -> (
    Router,
    mcpdisco_transport::server::http::Connections,
    Arc<ProfileRoutes>,
) {
    let HttpEndpointsOptions {
        mut server,
        access,
        public_url,
        allowed_hosts,
        client_rate_limit,
        #[cfg(feature = "redis")]
        session_store,
    } = options;
    #[cfg(feature = "redis")]
    let session_store = session_store.inspect(|store| {
        server.session_relay = Some(store.relay());
        gateway.attach_session_store(store);
        store.start();
    });
    let stores = operations::Stores {
        limiter: client_rate_limit.clone(),
        #[cfg(feature = "redis")]
        session_store,
    };
    server.param_headers = Some(gateway.param_headers());
    server.token = match &access {
        Access::Token(token) => Some(token.clone()),
        _ => None,
    };
    let guard = Arc::new(access::Guard {
        access,
        public_url: public_url.map(|url| url.trim_end_matches('/').to_owned()),
    });
    let profiles = ProfileRoutes::new(gateway.clone(), server.clone());
    let (mcp, connections) = HttpServer::routes(server);
    // The rate is checked inside the access check, which names the subject.
    let (mcp, views) = match &client_rate_limit {
        Some(limiter) => {
            let check: limit_checks::RateCheck = (
                Arc::clone(limiter),
                matches!(guard.access, Access::Token(_)),
            );
            (
                mcp.layer(from_fn_with_state(
                    check.clone(),
                    limit_checks::limit_client_rate,
                )),
                profiles
                    .router()
                    .layer(from_fn_with_state(check, limit_checks::limit_client_rate)),
            )
        }
        None => (mcp, profiles.router()),
    };
    let mcp = if guard.access.is_jwt() {
        mcp.layer(from_fn_with_state(Arc::clone(&guard), access::require_jwt))
    } else {
        mcp
    };
    let views = views.layer(from_fn_with_state(
        (Arc::clone(&guard), gateway.clone()),
        access::require_profile_access,
    ));
    let guarded = operations::guarded(gateway.clone(), stores).layer(from_fn_with_state(
        Arc::clone(&guard),
        access::require_access,
    ));
    let open = operations::open(Arc::clone(&guard));
    let router = mcp
        .merge(views)
        .merge(guarded)
        .merge(open)
        .layer(from_fn_with_state(
            Arc::new(allowed_hosts),
            limit_checks::require_allowed_host,
        ));
    (router, connections, profiles)
}

/// Serves every endpoint on `listener` until `shutdown` completes, each
/// connection served by `gateway` in its view (every item at `/mcp`, a
/// profile's at `/profiles/<name>/mcp`).
pub async fn serve(
    gateway: &Gateway,
    listener: tokio::net::TcpListener,
    options: HttpEndpointsOptions,
    shutdown: impl Future<Output = ()> + Send + 'static,
) {
    let (router, connections, profiles) = router(gateway, options);
    let serving = gateway.clone();
    HttpServer::serve_router(
        listener,
        router,
        connections,
        move |connection| {
            let gateway = serving.clone();
            async move { gateway.serve(connection).await }
        },
        shutdown,
    )
    .await;
    profiles.stop().await;
}
