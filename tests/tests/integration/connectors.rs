//! Third-party transports through the `Connector` seam: servers in this
//! process over an in-memory duplex, started from a config that names their
//! `type`, discovered, cached and called through the supervisor like any other; and
//! the wire trace of a whole discovery.

use std::sync::Arc;

use mcp_example_server::{EraSupport, Server, ServerOptions, serve_transport};
use mcpdisco::cache::Cache;
use mcpdisco::config::{self, ProcessEnv, ServerConfig};
use mcpdisco::connect::{Connectors, MemoryConnector};
use mcpdisco::discovery::{DiscoveryOptions, ServerStatus, discover};
use mcpdisco_client::session::RequestOptions;
use mcpdisco_gateway::supervisor::{Supervisor, SupervisorOptions};
use mcpdisco_protocol::version::Era;
use mcpdisco_transport::MemoryTransport;
use mcpdisco_transport::secret::Masker;
use mcpdisco_transport::trace::{Direction, MemoryTrace, TraceEvent, Tracer};
use serde_json::json;

/// A connector that serves the example server in-process; `"eras"` in the
/// server's settings picks `legacy`, `modern` or both.
fn memory_connectors() -> Connectors {
    Connectors::builtin().with(
        "memory",
        Arc::new(MemoryConnector::new(|server: &ServerConfig| {
            let eras = match &server.launch {
                config::Launch::Custom { settings, .. } => {
                    match settings.get("eras").and_then(|v| v.as_str()) {
                        Some("legacy") => EraSupport::Legacy,
                        Some("modern") => EraSupport::Modern,
                        Some("both") | None => EraSupport::Both,
                        Some(other) => return Err(format!("unknown eras {other:?}")),
                    }
                }
                _ => return Err("not a memory server".into()),
            };
            let (client, server_end) = MemoryTransport::pair();
            let example = Server::new(ServerOptions {
                eras,
                name: format!("in-process {}", server.name),
                ..ServerOptions::default()
            });
            tokio::spawn(serve_transport(example, server_end));
            Ok(client)
        })),
    )
}

fn servers(connectors: &Connectors) -> Vec<ServerConfig> {
    let text = json!({"mcpServers": {
        "legacy": {"type": "memory", "eras": "legacy", "token": "memory-secret-0815"},
        "modern": {"type": "memory", "eras": "modern"},
        "broken": {"type": "memory", "eras": "sideways"},
    }})
    .to_string();
    config::parse_str(
        "/virtual/.mcp.json".as_ref(),
        &text,
        &ProcessEnv,
        &connectors.parse_options(),
    )
    .unwrap()
    .servers
}

#[tokio::test]
async fn discovery_runs_over_an_in_memory_connector_named_by_the_config() {
    let connectors = memory_connectors();
    let servers = servers(&connectors);
    assert_eq!(servers[0].summary(), "memory: custom transport");
    let shown = servers[0].redacted();
    assert_eq!(shown["transport"], "memory");
    assert_eq!(shown["settings"]["token"], "***");
    assert_eq!(shown["settings"]["eras"], "legacy");

    let options = DiscoveryOptions::default()
        .connectors(connectors.clone())
        .cache(Cache::in_memory());
    let report = discover(&servers, &options).await;
    let legacy = report.server("legacy").unwrap();
    assert_eq!(legacy.status, ServerStatus::Ready, "{:?}", legacy.error);
    assert_eq!(legacy.era, Some(Era::Legacy));
    assert_eq!(legacy.server_info_name(), Some("in-process legacy"));
    assert_eq!(legacy.tools.len(), 4);
    let modern = report.server("modern").unwrap();
    assert_eq!(modern.era, Some(Era::Modern));
    assert_eq!(modern.prompts.len(), 2);
    let broken = report.server("broken").unwrap();
    assert_eq!(broken.status, ServerStatus::Failed);
    let message = &broken.error.as_ref().unwrap().message;
    assert!(message.contains("unknown eras \"sideways\""), "{message}");

    // A second run is served from the cache.
    let again = discover(&servers, &options).await;
    assert!(again.server("legacy").unwrap().from_cache);
}

#[tokio::test]
async fn an_unregistered_type_is_a_config_error_naming_the_known_ones() {
    let error = config::parse_str(
        "/virtual/.mcp.json".as_ref(),
        r#"{"mcpServers": {"x": {"type": "memory"}}}"#,
        &ProcessEnv,
        &config::ParseOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        error
            .contains("unknown transport \"memory\"; expected stdio, http, streamable-http or sse"),
        "{error}"
    );
}

#[tokio::test]
async fn the_supervisor_routes_calls_over_an_in_memory_connector() {
    let connectors = memory_connectors();
    let mut servers = servers(&connectors);
    servers.retain(|server| server.name != "broken");
    let hub = Supervisor::new(servers, SupervisorOptions::default().connectors(connectors));
    let sum = hub
        .call_tool(
            "legacy__add",
            json!({"a": 2, "b": 40}).as_object().cloned(),
            RequestOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(sum.content[0].as_text().unwrap(), "42");
    let echoed = hub
        .call_tool(
            "modern__echo",
            json!({"text": "over memory"}).as_object().cloned(),
            RequestOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(echoed.content[0].as_text().unwrap(), "over memory");
    hub.shutdown().await;
}

#[tokio::test]
async fn a_trace_of_a_whole_discovery_holds_every_message_in_order_masked() {
    let connectors = memory_connectors();
    let mut servers = servers(&connectors);
    servers.retain(|server| server.name == "legacy");
    let trace = Arc::new(MemoryTrace::default());
    let mut options = DiscoveryOptions::default().connectors(connectors);
    // The client info carries a planted secret; the trace must show it masked.
    options.session.client_info.title = Some("client memory-secret-0815".into());
    options.session.tracer = Some(Tracer::new(trace.clone(), Masker::default()));
    let report = discover(&servers, &options).await;
    assert_eq!(report.servers[0].status, ServerStatus::Ready);

    let events = trace.events();
    let messages: Vec<(Direction, serde_json::Value)> = events
        .iter()
        .map(|event| match event {
            TraceEvent::Message {
                direction,
                text,
                server,
                ..
            } => {
                assert_eq!(server, "legacy");
                (*direction, serde_json::from_str(text).unwrap())
            }
            other => panic!("an HTTP event over memory: {other:?}"),
        })
        .collect();
    let methods: Vec<String> = messages
        .iter()
        .filter(|(direction, _)| *direction == Direction::Out)
        .filter_map(|(_, message)| message["method"].as_str().map(str::to_owned))
        .collect();
    // The legacy-only server refuses the probe, then the handshake, then the lists.
    assert_eq!(
        &methods[..3],
        ["server/discover", "initialize", "notifications/initialized"]
    );
    let mut lists = methods[3..].to_vec();
    lists.sort();
    assert_eq!(
        lists,
        [
            "prompts/list",
            "resources/list",
            "resources/templates/list",
            "tools/list"
        ]
    );
    // Every request has its answer, after it.
    for (index, (direction, message)) in messages.iter().enumerate() {
        if *direction == Direction::Out && message.get("id").is_some() {
            let answered = messages[index + 1..]
                .iter()
                .any(|(d, m)| *d == Direction::In && m["id"] == message["id"]);
            assert!(answered, "no answer to {message}");
        }
    }
    let all: String = events
        .iter()
        .map(|event| event.to_json(std::time::SystemTime::now()).to_string())
        .collect();
    assert!(!all.contains("memory-secret-0815"), "{all}");
    assert!(all.contains("client ***"));
}
