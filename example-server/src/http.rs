//! Serving Streamable HTTP at `/mcp`, on the workspace's own server-side
//! framing (`mcpdisco_transport::server::http`): each connection it accepts is
//! served like a stdio one.

use std::collections::HashMap;
use std::sync::Arc;

use axum::Router;
use mcpdisco_protocol::types::Tool;
use mcpdisco_transport::server::http::{
    HttpServer, HttpServerOptions, ParamHeaderRule, ToolParamHeaders,
};
use tokio::net::TcpListener;

use crate::Server;
use crate::handlers;
use crate::stdio::serve_transport;

/// The axum router of the MCP endpoint, for embedding in another app; its
/// connections are served on the current tokio runtime.
pub fn router(server: Server) -> Router {
    let (router, mut connections) = HttpServer::routes(options(&server));
    tokio::spawn(async move {
        while let Some(connection) = connections.accept().await {
            tokio::spawn(serve_transport(server.clone(), connection));
        }
    });
    router
}

/// Serves `server` on `listener` until `shutdown` completes (with
/// `HttpServer::serve`: each connection polled as hyper needs, and requests
/// in progress given a few seconds to be answered).
pub async fn serve_http(
    listener: TcpListener,
    server: Server,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) {
    let options = options(&server);
    let serve = move |connection| serve_transport(server.clone(), connection);
    HttpServer::serve(listener, options, serve, shutdown).await;
}

/// The HTTP server's options for `server`.
fn options(server: &Server) -> HttpServerOptions {
    HttpServerOptions::default()
        .name("mcp-example-server")
        .param_headers(param_headers(&handlers::tools(server.options())))
}

/// The `x-mcp-header` arguments of `tools` (top-level properties), by tool,
/// for the HTTP server to check each call's `Mcp-Param-*` headers against.
fn param_headers(tools: &[Tool]) -> ToolParamHeaders {
    let rules: HashMap<String, Vec<ParamHeaderRule>> = tools
        .iter()
        .filter_map(|tool| {
            let schema = tool.input_schema.to_value().ok()?;
            let rules = ParamHeaderRule::of_schema(&schema);
            (!rules.is_empty()).then(|| (tool.name.clone(), rules))
        })
        .collect();
    Arc::new(move |tool: &str| rules.get(tool).cloned().unwrap_or_default())
}
