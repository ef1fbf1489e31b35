//! Everything `serve --http` answers, and who may ask:
//!
//! | path | what | access |
//! |---|---|---|
//! | `/mcp` | Streamable HTTP (`mcpdisco_transport::server::http`) | the token or a JWT |
//! | `/profiles/<name>/mcp` | the view of profile `<name>`; 404 for no such profile | the token, or a JWT with the profile's `requiredScopes` |
//! | `/healthz` | 200 while the process serves | open |
//! | `/readyz` | 200 when every enabled server is connected, else 503; `{"servers": {name: state}}` | the token or a JWT |
//! | `/metrics` | Prometheus text (feature `metrics`) | the token or a JWT |
//! | `/.well-known/oauth-protected-resource` | RFC 9728 metadata (with JWT auth) | open |
//!
//! [`Access`] says what a request must carry: nothing, the static
//! `--http-token`, or (feature `jwt-auth`) a JWT the [`ResourceServer`]
//! accepts. A legacy session's id is sealed, bound to its route and to who
//! opened it (the JWT's subject, or the token), so any replica holding the
//! keys ([`read_session_keys`]) serves it.
//!
//! [`ResourceServer`]: crate::resource_server::ResourceServer

mod access;
mod operations;
mod session_keys;

use std::sync::Arc;

use axum::Router;
use axum::middleware::from_fn_with_state;
use mcpdisco_transport::server::http::{HttpServer, HttpServerOptions};

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
}

impl std::fmt::Debug for HttpEndpointsOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpEndpointsOptions")
            .field("access", &self.access)
            .field("public_url", &self.public_url)
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
    } = options;
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
    let mcp = if guard.access.is_jwt() {
        mcp.layer(from_fn_with_state(Arc::clone(&guard), access::require_jwt))
    } else {
        mcp
    };
    let views = profiles.router().layer(from_fn_with_state(
        (Arc::clone(&guard), gateway.clone()),
        access::require_profile_access,
    ));
    let guarded = operations::guarded(gateway.clone()).layer(from_fn_with_state(
        Arc::clone(&guard),
        access::require_access,
    ));
    let open = operations::open(Arc::clone(&guard));
    (
        mcp.merge(views).merge(guarded).merge(open),
        connections,
        profiles,
    )
}

/// Serves every endpoint on `listener` until `shutdown` completes, each
/// connection served by `gateway` in its view (every item at `/mcp`, a
/// profile's at `/profiles/<name>/mcp`).
pub async fn serve(
    gateway: &Gateway,
    listener: tokio::net::TcpListener,
    options: HttpEndpointsOptions,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let (router, connections, profiles) = router(gateway, options);
    let serving = gateway.clone();
    let served = HttpServer::serve_router(
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
    served
}
