//! The gateway over Streamable HTTP, one route per view:
//! `/mcp` serves every item, `/profiles/<name>/mcp` the view of profile
//! `<name>` (each with its own sessions, built when first asked for). A
//! profile that is not configured (now: profiles reload) is HTTP 404.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

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

/// How long open requests get to finish when the server shuts down.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);

/// The routes of the profiles' views, made as they are first asked for.
struct ProfileRoutes {
    gateway: Gateway,
    options: HttpServerOptions,
    /// Each profile's Streamable HTTP routes, by name.
    routers: Mutex<HashMap<String, Router>>,
    /// The tasks that serve each route's connections.
    accepting: Arc<Mutex<Vec<JoinHandle<()>>>>,
}

impl Gateway {
    /// Serves the gateway over Streamable HTTP on `listener` until
    /// `shutdown` completes: every item at `/mcp`, each profile's view at
    /// `/profiles/<name>/mcp` (404 for a name that is not a profile).
    /// Connections still open at shutdown are dropped with the routes.
    pub async fn serve_http(
        &self,
        listener: tokio::net::TcpListener,
        options: HttpServerOptions,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        let accepting = Arc::new(Mutex::new(Vec::new()));
        let (main, connections) = HttpServer::routes(options.clone());
        accepting
            .lock()
            .push(tokio::spawn(accept(connections, self.clone(), None)));
        let profiles = Arc::new(ProfileRoutes {
            gateway: self.clone(),
            options,
            routers: Mutex::new(HashMap::new()),
            accepting: Arc::clone(&accepting),
        });
        let router = main.merge(
            Router::new()
                .route("/profiles/{profile}/mcp", any(on_profile))
                .with_state(profiles),
        );
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = axum::serve(listener, router)
            .with_graceful_shutdown(async move {
                let _ = stopped.await;
            })
            .into_future();
        tokio::pin!(server);
        let result = tokio::select! {
            result = &mut server => result,
            () = shutdown => {
                let _ = stop.send(());
                // Open event streams would hold a graceful shutdown forever.
                tokio::time::timeout(SHUTDOWN_GRACE, server).await.unwrap_or(Ok(()))
            }
        };
        let tasks: Vec<JoinHandle<()>> = accepting.lock().drain(..).collect();
        for task in &tasks {
            task.abort();
        }
        for task in tasks {
            let _ = task.await;
        }
        result
    }
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
                let (router, connections) = HttpServer::routes(routes.options.clone());
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
