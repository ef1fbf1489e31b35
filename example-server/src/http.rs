//! Serving Streamable HTTP at `/mcp`, on the workspace's own server-side
//! framing (`mcpdisco_transport::server::http`): each connection it accepts is
//! served like a stdio one.

use axum::Router;
use mcpdisco_transport::server::http::{HttpServer, HttpServerOptions};
use tokio::net::TcpListener;

use crate::Server;
use crate::stdio::serve_transport;

/// The axum router of the MCP endpoint, for embedding in another app; its
/// connections are served on the current tokio runtime.
pub fn router(server: Server) -> Router {
    let (router, mut connections) = HttpServer::routes(HttpServerOptions {
        name: "mcp-example-server".into(),
        ..HttpServerOptions::default()
    });
    tokio::spawn(async move {
        while let Some(connection) = connections.accept().await {
            tokio::spawn(serve_transport(server.clone(), connection));
        }
    });
    router
}

/// Serves `server` on `listener` until `shutdown` completes.
pub async fn serve_http(
    listener: TcpListener,
    server: Server,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, router(server))
        .with_graceful_shutdown(shutdown)
        .await
}
