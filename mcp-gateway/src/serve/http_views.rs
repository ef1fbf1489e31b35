//! The profiles' views over Streamable HTTP: `/profiles/<name>/mcp` serves
//! the view of profile `<name>` (each with its own sessions, built when
//! first asked for); `/mcp`, every item, is `http_endpoints`' route. A
//! profile that is not configured (now: profiles reload) is HTTP 404.

use std::collections::HashMap;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, Request, State};
use axum::http::{StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use mcpdisco_transport::server::http::{Connections, HttpServer, HttpServerOptions};
use mcpdisco_transport::sync::Mutex;
use tokio::task::{JoinHandle, JoinSet};
use tower::ServiceExt;

use super::Gateway;

/// The routes of the profiles' views, made as they are first asked for.
pub(crate) struct ProfileRoutes {
    gateway: Gateway,
    options: HttpServerOptions,
    /// Each profile's Streamable HTTP routes, by name.
    routers: Mutex<HashMap<String, Router>>,
    /// The tasks that serve each route's connections.
    accepting: Mutex<Vec<JoinHandle<()>>>,
}

impl ProfileRoutes {
    /// The profiles' routes of `gateway`, each a Streamable HTTP server
    /// with `options` (its name, limits, token).
    pub(crate) fn new(gateway: Gateway, options: HttpServerOptions) -> Arc<Self> {
        Arc::new(Self {
            gateway,
            options,
            routers: Mutex::new(HashMap::new()),
            accepting: Mutex::new(Vec::new()),
        })
    }

    /// `/profiles/{profile}/mcp`: 404 for a name that is not a profile.
    pub(crate) fn router(self: &Arc<Self>) -> Router {
        Router::new()
            .route(PATH, any(on_profile))
            .with_state(Arc::clone(self))
    }

    /// Ends every profile's connections (the server has shut down).
    pub(crate) async fn stop(&self) {
        let tasks: Vec<JoinHandle<()>> = self.accepting.lock().drain(..).collect();
        for task in &tasks {
            task.abort();
        }
        for task in tasks {
            let _ = task.await;
        }
    }
}

/// The route of the profiles' views.
pub(crate) const PATH: &str = "/profiles/{profile}/mcp";

/// The profile a request to [`PATH`] names, if its path is one (for the
/// scopes a JWT must grant).
#[cfg(feature = "jwt-auth")]
pub(crate) fn profile_of(path: &str) -> Option<&str> {
    path.strip_prefix("/profiles/")?
        .strip_suffix("/mcp")
        .filter(|name| !name.is_empty() && !name.contains('/'))
}

/// Serves each connection `connections` accepts, in the view of `profile`;
/// the connections end with this task.
async fn accept(mut connections: Connections, gateway: Gateway, profile: Option<Arc<str>>) {
    let mut served = JoinSet::new();
    loop {
        tokio::select! {
            connection = connections.accept() => match connection {
                Some(connection) => {
                    let gateway = gateway.clone();
                    let profile = profile.clone();
                    served.spawn(async move {
                        gateway.serve_view(Arc::new(connection), profile).await;
                    });
                }
                None => break,
            },
            // Reap finished connections as they end.
            Some(_) = served.join_next(), if !served.is_empty() => {}
        }
    }
    served.shutdown().await;
}

/// A request to `/profiles/<profile>/mcp`: 404 unless `profile` is
/// configured, else handed to that profile's routes as a request to `/mcp`.
async fn on_profile(
    State(routes): State<Arc<ProfileRoutes>>,
    Path(profile): Path<String>,
    mut request: Request,
) -> Response {
    if !routes.gateway.profiles().contains_key(&profile) {
        return (StatusCode::NOT_FOUND, "no such profile\n").into_response();
    }
    let router = {
        let mut routers = routes.routers.lock();
        match routers.get(&profile) {
            Some(router) => router.clone(),
            None => {
                // Its sessions are bound to its route: an id from another is refused.
                let options = routes
                    .options
                    .clone()
                    .route(format!("/profiles/{profile}/mcp"));
                let (router, connections) = HttpServer::routes(options);
                let name: Arc<str> = Arc::from(profile.as_str());
                routes.accepting.lock().push(tokio::spawn(accept(
                    connections,
                    routes.gateway.clone(),
                    Some(name),
                )));
                routers.insert(profile, router.clone());
                router
            }
        }
    };
    let path = match request.uri().query() {
        Some(query) => format!("/mcp?{query}"),
        None => "/mcp".to_owned(),
    };
    match path.parse::<Uri>() {
        Ok(uri) => *request.uri_mut() = uri,
        Err(_) => return StatusCode::BAD_REQUEST.into_response(),
    }
    match router.oneshot(request).await {
        Ok(response) => response,
        Err(never) => match never {},
    }
}
