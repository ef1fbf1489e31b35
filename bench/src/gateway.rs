//! B5: the gateway (`mcp-cli serve`).
//!
//! * Latency: sequential `tools/call`s from our [`Session`] over stdio,
//!   either to `bench-server` directly or through `mcp-cli serve` in front
//!   of one `bench-server` (one more process and pipe on the way, as a host
//!   that uses the gateway has it).
//! * Memory: `mcp-cli serve` in front of N `bench-server`s, once every one
//!   is ready (all their tools listed through the gateway): the gateway
//!   process's resident memory, read from `/proc`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use mcpdisco_client::policy::{LayerStack, RetryPolicy};
use mcpdisco_client::protocol::types::CallToolParams;
use mcpdisco_client::session::{EraPreference, RequestOptions, Session, SessionOptions};
use mcpdisco_transport::stdio::{StdioConfig, StdioTransport};
use serde_json::json;

use crate::BenchError;
use crate::discovery::ServerSet;
use crate::statistics::LatencySummary;

/// How the client reaches the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Via {
    /// Straight to `bench-server`.
    Direct,
    /// Through `mcp-cli serve`.
    Gateway,
}

/// One B5 case.
#[derive(Debug, Clone)]
pub struct GatewayCase {
    /// How the client reaches the server(s).
    pub via: Via,
    /// Timed calls (latency).
    pub requests: usize,
    /// Untimed calls first.
    pub warmup: usize,
    /// `bench-server`.
    pub server: PathBuf,
    /// `mcp-cli`.
    pub cli: PathBuf,
    /// Tools per server.
    pub tools: usize,
    /// Servers behind the gateway.
    pub servers: usize,
    /// Where the gateway's config is written.
    pub scratch: PathBuf,
}

/// What one B5 process measured.
#[derive(Debug, Clone, serde::Serialize)]
pub struct GatewayResult {
    /// How the client reached the server(s).
    pub via: Via,
    /// Servers behind the gateway.
    pub servers: usize,
    /// Per-call latency, when calls were timed.
    pub latency: Option<LatencySummary>,
    /// The gateway's resident memory once every server was ready, in KiB.
    pub gateway_rss_kib: Option<u64>,
    /// The gateway's peak resident memory, in KiB.
    pub gateway_peak_kib: Option<u64>,
    /// Tools listed through the gateway.
    pub tools_listed: usize,
}

fn options() -> SessionOptions {
    SessionOptions::default()
        .era(EraPreference::Legacy)
        // The client's own policy is not what is measured.
        .stack(LayerStack::empty().retry(RetryPolicy::default()))
}

fn ours_error(error: impl std::fmt::Display) -> BenchError {
    BenchError::Ours(error.to_string())
}

/// Connects to the server(s) the case says; the gateway's pid when there is one.
async fn connect(case: &GatewayCase) -> Result<(Session, Option<u32>), BenchError> {
    let config = match case.via {
        Via::Direct => StdioConfig::new("bench", case.server.display().to_string())
            .args(crate::stdio::server_args(case.tools)),
        Via::Gateway => {
            let config = case.scratch.join(format!("gateway-{}.json", case.servers));
            write_config(case, &config)?;
            StdioConfig::new("gateway", case.cli.display().to_string()).args([
                "serve".to_owned(),
                "--config".to_owned(),
                config.display().to_string(),
                "--page-size".to_owned(),
                "1000".to_owned(),
            ])
        }
    };
    let transport = StdioTransport::spawn(config).map_err(ours_error)?;
    let pid = transport.pid();
    let session = Session::connect("bench", transport, options())
        .await
        .map_err(ours_error)?;
    Ok((session, pid.filter(|_| case.via == Via::Gateway)))
}

fn write_config(case: &GatewayCase, path: &Path) -> Result<(), BenchError> {
    let set = ServerSet {
        program: case.server.clone(),
        servers: case.servers,
        tools: case.tools,
        start_delay_ms: 0,
        start_log: None,
    };
    crate::serve_http::write_config(&set, path)
}

/// The name of the tool called: the first tool, directly or namespaced.
fn tool(case: &GatewayCase) -> String {
    match case.via {
        Via::Direct => "tool_0".to_owned(),
        Via::Gateway => format!("{}__tool_0", ServerSet::name(0)),
    }
}

/// Sequential `tools/call` latency.
pub async fn latency(case: GatewayCase) -> Result<GatewayResult, BenchError> {
    let (session, _) = connect(&case).await?;
    let name = tool(&case);
    let call = |session: &Session| {
        let session = session.clone();
        let name = name.clone();
        async move {
            let result = session
                .call_tool(
                    CallToolParams::new(name, json!({"path": "/"}).as_object().cloned()),
                    RequestOptions::default(),
                )
                .await
                .map_err(ours_error)?;
            if result.content.first().and_then(|block| block.as_text()) == Some("done") {
                Ok(())
            } else {
                Err(BenchError::Unexpected(format!(
                    "unexpected result {result:?}"
                )))
            }
        }
    };
    // The gateway's first call waits for its server to start.
    for _ in 0..case.warmup {
        call(&session).await?;
    }
    let mut latencies = Vec::with_capacity(case.requests);
    for _ in 0..case.requests {
        let started = Instant::now();
        call(&session).await?;
        latencies.push(started.elapsed());
    }
    let _ = session.close().await;
    Ok(GatewayResult {
        via: case.via,
        servers: 1,
        latency: LatencySummary::of(&latencies),
        gateway_rss_kib: None,
        gateway_peak_kib: None,
        tools_listed: 0,
    })
}

/// The gateway's memory over `case.servers` servers, once all are ready.
pub async fn memory(case: GatewayCase) -> Result<GatewayResult, BenchError> {
    let (session, pid) = connect(&case).await?;
    let expected = case.servers * case.tools;
    let deadline = Instant::now() + Duration::from_secs(120);
    let listed = loop {
        let listed = session.list_tools().await.map_err(ours_error)?.len();
        if listed >= expected || Instant::now() > deadline {
            break listed;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    if listed < expected {
        return Err(BenchError::Unexpected(format!(
            "the gateway listed {listed} tools, expected {expected}"
        )));
    }
    let status = pid
        .map(|pid| std::fs::read_to_string(format!("/proc/{pid}/status")))
        .transpose()
        .map_err(|e| BenchError::io("cannot read the gateway's /proc status", e))?
        .unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|kib| kib.parse::<u64>().ok())
    };
    let result = GatewayResult {
        via: case.via,
        servers: case.servers,
        latency: None,
        gateway_rss_kib: field("VmRSS:"),
        gateway_peak_kib: field("VmHWM:"),
        tools_listed: listed,
    };
    let _ = session.close().await;
    Ok(result)
}
