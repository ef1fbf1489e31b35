//! `mcp-cli serve`: the gateway of `mcp-discovery`, over stdio or
//! Streamable HTTP, until stdin ends, SIGTERM or Ctrl-C; then every server
//! is stopped and its process reaped.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use mcpdisco::secret::SecretString;
use mcpdisco_client::session::SessionOptions;
use mcpdisco_gateway::serve::{Gateway, GatewayOptions};
use mcpdisco_gateway::server::http::{HttpServer, HttpServerOptions};
use mcpdisco_gateway::server::stdio::StdioServer;
use mcpdisco_gateway::supervisor::SupervisorOptions;

use crate::credentials::stored_context;
use crate::error::UsageError;
use crate::load::Loaded;

/// What `serve` was asked.
#[derive(Debug)]
pub struct ServeOptions {
    /// Streamable HTTP on this address; stdio when `None`.
    pub http: Option<SocketAddr>,
    /// The bearer token HTTP clients must send.
    pub token: Option<String>,
    /// Items per list page.
    pub page_size: usize,
    /// The deadline of each server's start.
    pub start_deadline: Duration,
    /// Between server and item names.
    pub separator: String,
    /// The lock file whose pins hide changed tools, when asked to.
    pub hide_changed_tools: Option<std::path::PathBuf>,
    /// List `search_tools` and `call_tool` instead of every server's tools.
    pub tool_search: bool,
}

/// Runs the gateway until it is told to stop.
pub async fn serve(
    loaded: &Loaded,
    session: SessionOptions,
    options: ServeOptions,
) -> Result<ExitCode, UsageError> {
    if let Some(addr) = options.http
        && !addr.ip().is_loopback()
        && options.token.is_none()
    {
        return Err(UsageError::OpenBind(addr));
    }
    let stop = stop_signal();
    // Bind first: a busy port is a usage error before any server starts.
    let listener = match options.http {
        Some(addr) => Some(
            tokio::net::TcpListener::bind(addr)
                .await
                .map_err(|source| UsageError::Listen { addr, source })?,
        ),
        None => None,
    };
    let supervisor = SupervisorOptions {
        session,
        start_deadline: options.start_deadline,
        separator: options.separator,
        auth: stored_context(),
        gate: options
            .hide_changed_tools
            .map(mcpdisco_gateway::supervisor::hide_changed),
        ..SupervisorOptions::default()
    };
    let gateway = Gateway::new(
        loaded.servers.clone(),
        supervisor,
        GatewayOptions {
            page_size: options.page_size,
            tool_search: options.tool_search,
            ..GatewayOptions::default()
        },
    );
    match listener {
        None => {
            tokio::select! {
                () = gateway.serve(StdioServer::new("mcp-cli serve")) => {
                    tracing::info!("stdin ended; stopping");
                }
                () = stop => {}
            }
        }
        Some(listener) => {
            let addr = listener.local_addr().map_err(|source| UsageError::Listen {
                addr: options.http.unwrap_or_else(|| ([127, 0, 0, 1], 0).into()),
                source,
            })?;
            eprintln!("mcp-cli serve: listening on http://{addr}/mcp");
            let http = HttpServerOptions {
                name: "mcp-cli serve".into(),
                token: options.token.map(SecretString::from),
                ..HttpServerOptions::default()
            };
            let serving = gateway.clone();
            let served = HttpServer::serve(
                listener,
                http,
                move |connection| {
                    let gateway = serving.clone();
                    async move { gateway.serve(connection).await }
                },
                stop,
            )
            .await;
            if let Err(error) = served {
                eprintln!("error: the HTTP server failed: {error}");
            }
        }
    }
    gateway.shutdown().await;
    Ok(ExitCode::SUCCESS)
}

/// SIGTERM or Ctrl-C, with the handlers registered now: a signal that
/// arrives before the returned future is first polled still stops the
/// gateway cleanly (servers reaped, telemetry flushed) instead of taking
/// the default action and killing the process.
fn stop_signal() -> impl std::future::Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    let signals = {
        use tokio::signal::unix::{SignalKind, signal};
        (
            signal(SignalKind::terminate()).ok(),
            signal(SignalKind::interrupt()).ok(),
        )
    };
    async move {
        #[cfg(unix)]
        match signals {
            (Some(mut terminate), Some(mut interrupt)) => {
                tokio::select! {
                    _ = terminate.recv() => {}
                    _ = interrupt.recv() => {}
                }
            }
            (Some(mut terminate), None) => {
                tokio::select! {
                    _ = terminate.recv() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
            }
            (None, _) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
        }
        tracing::info!("signal received; stopping");
    }
}
