//! B9: `mcp-cli serve --http` as a fleet (issue #42). Replicas with the
//! same config, token and `--session-keys` file, each in front of its own
//! `bench-server`, and concurrent clients making `tools/call`s:
//!
//! * through HAProxy ([`crate::haproxy`], a config derived from
//!   `deploy/haproxy.cfg`: round-robin, no stickiness) to 1 or to 3
//!   replicas;
//! * or straight to one replica, with no HAProxy.
//!
//! Each client is a legacy (2025-11-25) session of its own, so every
//! request carries a sealed session id that the replica it lands on opens.
//! Latency is each call's, throughput the timed calls over the timed
//! phase's wall time, as in B5 ([`crate::fronts`]).
//!
//! The run is checked: every call must succeed, and afterwards each
//! replica's `/metrics` must count `tools/call`s it answered, all of them
//! `ok`, adding up to the calls made ([`check_served`]).

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use mcpdisco_client::protocol::method::RequestMethod;
use mcpdisco_client::protocol::methods::CallTool;
use mcpdisco_client::session::Session;

use crate::BenchError;
use crate::discovery::ServerSet;
use crate::fronts::{self, Front};
use crate::haproxy::{HaProxy, HaProxyProgram};
use crate::serve_http::{self, ServeHttp};
use crate::statistics::LatencySummary;

/// The static token every replica asks for (HAProxy's health check sends it).
const TOKEN: &str = "bench-fleet-token";
/// The one session-sealing key every replica reads (base64 of 32 bytes).
const SESSION_KEY: &str = "YmVuY2ggZmxlZXQ6IG9uZSBrZXksIDMgcmVwbGljYXM=";
/// How long HAProxy may take to forward a first session.
const FORWARD_TIMEOUT: Duration = Duration::from_secs(20);
/// How long a replica may take to answer `/metrics`, and the most it may say.
const METRICS_TIMEOUT: Duration = Duration::from_secs(10);
const MAX_METRICS_BYTES: usize = 1024 * 1024;
/// The counter whose `tools/call` samples say what a replica answered.
const REQUESTS_COUNTER: &str = "mcp_gateway_requests_total{";

/// One B9 case.
#[derive(Debug, Clone)]
pub struct FleetCase {
    /// Replicas of `serve --http`.
    pub replicas: usize,
    /// HAProxy in front of them; `None`: the clients call the one replica
    /// straight.
    pub haproxy: Option<HaProxyProgram>,
    /// Concurrent clients, each a session of its own.
    pub clients: usize,
    /// Timed calls, over all clients.
    pub requests: usize,
    /// Untimed calls first, over all clients.
    pub warmup: usize,
    /// Tools of the `bench-server` behind each replica.
    pub tools: usize,
    /// `bench-server`.
    pub server: PathBuf,
    /// `mcp-cli`.
    pub cli: PathBuf,
    /// Where the config, the key file and HAProxy's config are written.
    pub scratch: PathBuf,
}

/// What one B9 case measured.
#[derive(Debug, Clone, serde::Serialize)]
pub struct FleetResult {
    /// Replicas of `serve --http`.
    pub replicas: usize,
    /// Whether the clients went through HAProxy.
    pub through_haproxy: bool,
    /// Concurrent clients.
    pub clients: usize,
    /// Per-call latency (timed calls).
    pub latency: Option<LatencySummary>,
    /// Timed calls per second.
    pub throughput_per_s: f64,
    /// The `tools/call`s each replica answered (warm-up and timed), from its `/metrics`.
    pub served: Vec<u64>,
}

/// The `tools/call`s one replica's `/metrics` counts, by outcome.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Served {
    /// Answered with a result.
    pub ok: u64,
    /// Answered with a tool error or a JSON-RPC error.
    pub failed: u64,
}

/// The `tools/call`s counted in `metrics` (a replica's `/metrics` text):
/// the samples of `mcp_gateway_requests_total` for `tools/call`, summed
/// over servers.
pub fn served(metrics: &str) -> Served {
    let method = format!("mcp_method_name=\"{}\"", CallTool::METHOD);
    let mut served = Served::default();
    for line in metrics.lines() {
        let Some(labels_and_value) = line.strip_prefix(REQUESTS_COUNTER) else {
            continue;
        };
        let Some((labels, value)) = labels_and_value.rsplit_once('}') else {
            continue;
        };
        if !labels.split(',').any(|label| label == method) {
            continue;
        }
        // Counters are printed as integers; anything else counts as none.
        let count = value.trim().parse::<f64>().map_or(0, |v| v.max(0.0) as u64);
        if labels.split(',').any(|label| label == "outcome=\"ok\"") {
            served.ok += count;
        } else {
            served.failed += count;
        }
    }
    served
}

/// Checks what the replicas answered against the `calls` made: every call
/// answered `ok`, every replica answered some, and they add up.
pub fn check_served(served: &[Served], calls: u64) -> Result<(), BenchError> {
    let counts: Vec<u64> = served.iter().map(|s| s.ok).collect();
    if let Some((index, failed)) = served
        .iter()
        .enumerate()
        .find(|(_, s)| s.failed > 0)
        .map(|(i, s)| (i, s.failed))
    {
        return Err(BenchError::Unexpected(format!(
            "replica {} answered {failed} tools/call(s) with an error",
            index + 1
        )));
    }
    if let Some(idle) = counts.iter().position(|&count| count == 0) {
        return Err(BenchError::Unexpected(format!(
            "replica {} served no tools/call (served per replica: {counts:?})",
            idle + 1
        )));
    }
    let total: u64 = counts.iter().sum();
    if total != calls {
        return Err(BenchError::Unexpected(format!(
            "the replicas answered {total} tools/calls, the clients made {calls} (per replica: {counts:?})"
        )));
    }
    Ok(())
}

/// Writes the key file every replica reads, readable by its owner only
/// (`serve` refuses any other).
fn write_keys(path: &Path) -> Result<(), BenchError> {
    let io = |e| BenchError::io(format!("cannot write {}", path.display()), e);
    std::fs::write(path, format!("{SESSION_KEY}\n")).map_err(io)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).map_err(io)
}

/// Starts the replicas, each with its own `bench-server`.
fn start_replicas(case: &FleetCase) -> Result<Vec<ServeHttp>, BenchError> {
    let config = case.scratch.join("fleet.json");
    let set = ServerSet {
        program: case.server.clone(),
        servers: 1,
        tools: case.tools,
        start_delay_ms: 0,
        start_log: None,
    };
    serve_http::write_config(&set, &config)?;
    let keys = case.scratch.join("fleet-session-keys");
    write_keys(&keys)?;
    let flags = [
        "--http-token".as_ref(),
        TOKEN.as_ref(),
        "--session-keys".as_ref(),
        keys.as_os_str(),
    ];
    (0..case.replicas)
        .map(|_| ServeHttp::start(&case.cli, &config, &flags))
        .collect()
}

/// The first session through HAProxy, once it forwards (bounded).
async fn first_session(url: &str) -> Result<Session, BenchError> {
    let deadline = Instant::now() + FORWARD_TIMEOUT;
    loop {
        match fronts::connect_http(url, Some(TOKEN), fronts::options()).await {
            Ok(session) => return Ok(session),
            Err(error) if Instant::now() > deadline => return Err(error),
            Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
}

/// What `replica`'s `/metrics` counts (bounded in time and size).
async fn replica_served(
    client: &reqwest::Client,
    replica: &ServeHttp,
) -> Result<Served, BenchError> {
    let url = format!("{}/metrics", replica.base());
    let failed = |what: String| BenchError::Raw(format!("{url}: {what}"));
    let mut response = client
        .get(&url)
        .bearer_auth(TOKEN)
        .timeout(METRICS_TIMEOUT)
        .send()
        .await
        .map_err(|e| failed(e.to_string()))?;
    if !response.status().is_success() {
        return Err(failed(format!("status {}", response.status())));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| failed(e.to_string()))? {
        if body.len() + chunk.len() > MAX_METRICS_BYTES {
            return Err(failed(format!("more than {MAX_METRICS_BYTES} bytes")));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(served(&String::from_utf8_lossy(&body)))
}

/// Runs one case: the replicas (each serving every tool before any call),
/// HAProxy if asked for, the clients' sessions, the untimed calls, the
/// timed ones, then the check of what each replica answered.
pub async fn run(case: FleetCase) -> Result<FleetResult, BenchError> {
    if case.replicas == 0 || (case.haproxy.is_none() && case.replicas != 1) {
        return Err(BenchError::Unexpected(format!(
            "{} replica(s) without HAProxy: the clients call one replica straight, or go through HAProxy",
            case.replicas
        )));
    }
    let clients = case.clients.max(1);
    let replicas = start_replicas(&case)?;
    // Straight to each replica: its backend serves every tool.
    for replica in &replicas {
        let session = fronts::connect_http(replica.url(), Some(TOKEN), fronts::options()).await?;
        let listed = fronts::ready(&session, case.tools).await;
        let _ = session.close().await;
        listed?;
    }
    let haproxy = match &case.haproxy {
        Some(program) => {
            let addresses: Vec<&str> = replicas.iter().map(ServeHttp::address).collect();
            Some(HaProxy::start(program, &addresses, TOKEN, &case.scratch)?)
        }
        None => None,
    };
    let url = match &haproxy {
        Some(haproxy) => haproxy.url(),
        None => replicas[0].url().to_owned(),
    };
    let mut sessions = vec![first_session(&url).await?];
    while sessions.len() < clients {
        sessions.push(fronts::connect_http(&url, Some(TOKEN), fronts::options()).await?);
    }
    let (warmup, timed) = (
        case.warmup.div_ceil(clients),
        case.requests.div_ceil(clients),
    );
    let driven = async {
        fronts::drive(&sessions, Front::Http, warmup).await?;
        let started = Instant::now();
        let latencies = fronts::drive(&sessions, Front::Http, timed).await?;
        Ok::<_, BenchError>((latencies, started.elapsed().as_secs_f64()))
    }
    .await;
    for session in &sessions {
        let _ = session.close().await;
    }
    let (latencies, elapsed) = driven?;
    let client = reqwest::Client::new();
    let mut served = Vec::with_capacity(replicas.len());
    for replica in &replicas {
        served.push(replica_served(&client, replica).await?);
    }
    check_served(&served, (clients * (warmup + timed)) as u64)?;
    Ok(FleetResult {
        replicas: case.replicas,
        through_haproxy: haproxy.is_some(),
        clients,
        throughput_per_s: if elapsed > 0.0 {
            latencies.len() as f64 / elapsed
        } else {
            0.0
        },
        latency: LatencySummary::of(&latencies),
        served: served.iter().map(|s| s.ok).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a replica's `/metrics` says after some calls (the labels in
    /// the order `prometheus-client` prints them).
    const METRICS: &str = r#"# HELP mcp_gateway_requests Requests by server, method and outcome.
# TYPE mcp_gateway_requests counter
mcp_gateway_requests_total{server="",mcp_method_name="tools/list",outcome="ok"} 7
mcp_gateway_requests_total{server="server_0",mcp_method_name="tools/call",outcome="ok"} 1100
mcp_gateway_requests_total{server="server_1",mcp_method_name="tools/call",outcome="ok"} 2
mcp_gateway_requests_total{server="server_0",mcp_method_name="tools/call",outcome="tool_error"} 3
mcp_server_operation_duration_seconds_count{server="server_0",mcp_method_name="tools/call"} 1105
mcp_gateway_connected_clients 0
"#;

    #[test]
    fn the_calls_a_replica_answered_are_read_from_its_metrics() {
        assert_eq!(
            served(METRICS),
            Served {
                ok: 1102,
                failed: 3
            }
        );
        assert_eq!(served(""), Served::default());
        assert_eq!(
            served("mcp_gateway_requests_total{broken 3\n"),
            Served::default()
        );
    }

    #[test]
    fn every_replica_must_serve_and_every_call_be_answered() {
        let ok = |ok| Served { ok, failed: 0 };
        assert!(check_served(&[ok(40), ok(30), ok(30)], 100).is_ok());
        assert!(check_served(&[ok(100)], 100).is_ok());
        let idle = check_served(&[ok(50), ok(0), ok(50)], 100).unwrap_err();
        assert!(
            idle.to_string().contains("replica 2 served no tools/call"),
            "{idle}"
        );
        let lost = check_served(&[ok(40), ok(30), ok(29)], 100).unwrap_err();
        assert!(
            lost.to_string().contains("answered 99 tools/calls"),
            "{lost}"
        );
        let failing = [ok(40), Served { ok: 30, failed: 1 }, ok(30)];
        let failed = check_served(&failing, 100).unwrap_err();
        assert!(
            failed.to_string().contains("replica 2 answered 1"),
            "{failed}"
        );
    }

    #[test]
    fn replicas_without_haproxy_are_one() {
        let case = FleetCase {
            replicas: 3,
            haproxy: None,
            clients: 32,
            requests: 10,
            warmup: 0,
            tools: 1,
            server: PathBuf::from("bench-server"),
            cli: PathBuf::from("mcp-cli"),
            scratch: std::env::temp_dir(),
        };
        let refused = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(run(case));
        assert!(
            matches!(refused, Err(BenchError::Unexpected(_))),
            "{refused:?}"
        );
    }
}
