//! OpenTelemetry export of the real `mcp-cli` to a real OTLP/HTTP receiver
//! (`mcp_tests::otlp`, decoding with `opentelemetry-proto`): the span tree
//! of a discovery over a legacy and a modern server, calls that succeed,
//! fail as tools and fail as JSON-RPC, the `traceparent` a server
//! received (always a CLIENT span's), the gateway's chain from a client's
//! `traceparent` down to the backend and from `mcp-cli call` through `serve`
//! (each SERVER span the child of a CLIENT span), the metrics, no secret in any exported byte, and nothing sent
//! without the environment or with `OTEL_SDK_DISABLED=true`.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use mcp_tests::otlp::{OtlpReceiver, SpanView};
use mcp_tests::tools::workspace_bin;
use serde_json::{Value, json};

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture-server");
const SECRET: &str = "sk-otel-secret-4711";
const INTERNAL: i32 = 1;
const SERVER: i32 = 2;
const CLIENT: i32 = 3;
const ERROR: i32 = 2;

struct Setup {
    dir: tempfile::TempDir,
    config: PathBuf,
}

impl Setup {
    fn new(servers: Value) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join(".mcp.json");
        std::fs::write(&config, json!({"mcpServers": servers}).to_string()).unwrap();
        Self { dir, config }
    }

    fn requests_log(&self) -> PathBuf {
        self.dir.path().join("requests.log")
    }

    /// `mcp-cli` with no `OTEL_*` variable of the test's own environment.
    fn command(&self, otel: &[(&str, &str)]) -> Command {
        let mut command = Command::new(workspace_bin("mcp-cli"));
        command
            .current_dir(self.dir.path())
            .env("MCP_DISCOVERY_CACHE_DIR", self.dir.path().join("cache"))
            .env("NO_COLOR", "1")
            .env("OTEL_TEST_SECRET", SECRET)
            .env_remove("RUST_LOG");
        for (name, _) in std::env::vars() {
            if name.starts_with("OTEL_") && name != "OTEL_TEST_SECRET" {
                command.env_remove(name);
            }
        }
        for (name, value) in otel {
            command.env(name, value);
        }
        command.args(["--config", self.config.to_str().unwrap(), "--no-cache"]);
        command
    }

    fn run(&self, otel: &[(&str, &str)], args: &[&str]) -> Output {
        self.command(otel).args(args).output().unwrap()
    }

    /// The `_meta` of every request the fixture server read.
    fn received_meta(&self) -> Vec<(String, Value)> {
        std::fs::read_to_string(self.requests_log())
            .unwrap_or_default()
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter(|message| message.get("id").is_some() && message.get("method").is_some())
            .map(|message| {
                (
                    message["method"].as_str().unwrap_or_default().to_owned(),
                    message["params"]["_meta"].clone(),
                )
            })
            .collect()
    }
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn legacy(log: &std::path::Path, mode: &str) -> Value {
    json!({"command": FIXTURE, "args": [mode],
           "env": {"FIXTURE_REQUEST_LOG": log, "API_KEY": "${OTEL_TEST_SECRET}"}})
}

fn modern() -> Value {
    json!({"command": workspace_bin("mcp-example-server"), "args": ["stdio"]})
}

fn find<'a>(spans: &'a [SpanView], name: &str) -> &'a SpanView {
    spans
        .iter()
        .find(|span| span.name == name)
        .unwrap_or_else(|| panic!("no span {name:?} in {:#?}", names(spans)))
}

fn names(spans: &[SpanView]) -> Vec<String> {
    spans.iter().map(|span| span.name.clone()).collect()
}

fn children<'a>(spans: &'a [SpanView], parent: &SpanView) -> Vec<&'a SpanView> {
    spans
        .iter()
        .filter(|span| span.parent_span_id == parent.span_id)
        .collect()
}

fn attribute<'a>(span: &'a SpanView, key: &str) -> Option<&'a str> {
    span.attributes.get(key).map(String::as_str)
}

/// `00-{trace}-{parent}-{flags}` into (trace, parent).
fn split_traceparent(traceparent: &str) -> (String, String) {
    let parts: Vec<&str> = traceparent.split('-').collect();
    assert_eq!(parts.len(), 4, "{traceparent}");
    assert_eq!(parts[0], "00");
    (parts[1].to_owned(), parts[2].to_owned())
}

#[test]
fn discover_exports_one_trace_a_span_per_server_and_a_client_span_per_attempt() {
    let receiver = OtlpReceiver::start();
    let setup = Setup::new(json!({}));
    std::fs::write(
        &setup.config,
        json!({"mcpServers": {"legacy": legacy(&setup.requests_log(), "well-behaved"), "modern": modern()}})
            .to_string(),
    )
    .unwrap();
    let endpoint = receiver.endpoint();
    let output = setup.run(
        &[("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint)],
        &["--json", "discover"],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let spans = receiver.spans();

    // One trace, its root named after the command.
    let root = find(&spans, "discover");
    assert_eq!(root.kind, INTERNAL);
    assert!(root.parent_span_id.is_empty());
    assert!(
        spans.iter().all(|span| span.trace_id == root.trace_id),
        "{spans:#?}"
    );
    assert_eq!(
        root.resource.get("service.name").map(String::as_str),
        Some("mcp-cli")
    );

    // A span per server under it, with the configured name.
    for server in ["legacy", "modern"] {
        let span = find(&spans, &format!("server {server}"));
        assert_eq!(span.parent_span_id, root.span_id);
        assert_eq!(attribute(span, "mcp.server.name"), Some(server));
    }

    // Legacy: the probe refused (-32601), then initialize and the lists;
    // with retry on, each request an INTERNAL span over its attempts.
    let legacy_span = find(&spans, "server legacy");
    let requests = children(&spans, legacy_span);
    assert!(
        requests.iter().all(|span| span.kind == INTERNAL),
        "{requests:#?}"
    );
    let probe = requests
        .iter()
        .find(|span| span.name == "server/discover")
        .expect("the era probe");
    assert_eq!(attribute(probe, "error.type"), Some("-32601"));
    assert_eq!(attribute(probe, "rpc.response.status_code"), Some("-32601"));
    assert_eq!(probe.status_code, ERROR);
    let list = requests
        .iter()
        .find(|span| span.name == "tools/list")
        .expect("tools/list");
    assert_eq!(attribute(list, "mcp.method.name"), Some("tools/list"));
    assert_eq!(attribute(list, "jsonrpc.protocol.version"), Some("2.0"));
    assert_eq!(attribute(list, "mcp.protocol.version"), Some("2025-11-25"));
    assert_eq!(attribute(list, "network.transport"), Some("pipe"));
    assert!(attribute(list, "jsonrpc.request.id").is_some());
    assert!(attribute(list, "error.type").is_none());
    assert_ne!(list.status_code, ERROR);
    let initialize = requests
        .iter()
        .find(|span| span.name == "initialize")
        .expect("initialize");
    assert_eq!(
        attribute(initialize, "mcp.protocol.version"),
        Some("2025-11-25")
    );
    // Under retry, one CLIENT span per attempt, described as the request.
    let attempts = children(&spans, list);
    assert_eq!(attempts.len(), 1, "{attempts:#?}");
    assert_eq!(attempts[0].name, "tools/list");
    assert_eq!(attempts[0].kind, CLIENT);
    assert_eq!(attribute(attempts[0], "mcp.request.attempt"), Some("1"));
    assert_eq!(
        attribute(attempts[0], "mcp.method.name"),
        Some("tools/list")
    );
    assert_eq!(
        attribute(attempts[0], "jsonrpc.request.id"),
        attribute(list, "jsonrpc.request.id")
    );

    // Modern: server/discover and the lists, in 2026-07-28, no session id.
    let modern_span = find(&spans, "server modern");
    let requests = children(&spans, modern_span);
    let discover = requests
        .iter()
        .find(|span| span.name == "server/discover")
        .expect("server/discover");
    assert_eq!(
        attribute(discover, "mcp.protocol.version"),
        Some("2026-07-28")
    );
    assert!(attribute(discover, "error.type").is_none());
    let list = requests
        .iter()
        .find(|span| span.name == "tools/list")
        .expect("tools/list");
    assert_eq!(attribute(list, "mcp.protocol.version"), Some("2026-07-28"));
    assert!(
        spans
            .iter()
            .all(|span| attribute(span, "mcp.session.id").is_none())
    );

    // The fixture server received each attempt's context in `_meta`: the
    // parent of its SERVER span is a CLIENT span, for every request it read.
    let received = setup.received_meta();
    let (_, meta) = received
        .iter()
        .find(|(method, _)| method == "tools/list")
        .expect("the server read tools/list");
    let (trace, parent) = split_traceparent(meta["traceparent"].as_str().unwrap());
    assert_eq!(trace, root.trace_id);
    assert_eq!(parent, attempts[0].span_id);
    for (method, meta) in &received {
        let traceparent = meta["traceparent"]
            .as_str()
            .unwrap_or_else(|| panic!("{method} carried no traceparent"));
        let (_, parent) = split_traceparent(traceparent);
        let parent = spans
            .iter()
            .find(|span| span.span_id == parent)
            .unwrap_or_else(|| panic!("{method}: its parent is no exported span"));
        assert_eq!(parent.kind, CLIENT, "{method}: {parent:#?}");
    }

    // The metrics.
    let points = receiver.points();
    let durations: Vec<_> = points
        .iter()
        .filter(|point| point.metric == "mcp.client.operation.duration")
        .collect();
    assert!(durations.iter().all(|point| point.unit == "s"));
    // By method and protocol version: each server listed its tools once.
    let listed: Vec<_> = durations
        .iter()
        .filter(|point| {
            point.attributes.get("mcp.method.name").map(String::as_str) == Some("tools/list")
        })
        .map(|point| point.attributes["mcp.protocol.version"].clone())
        .collect();
    assert!(
        listed.contains(&"2025-11-25".to_owned()) && listed.contains(&"2026-07-28".to_owned()),
        "{listed:?}"
    );
    assert!(durations.iter().any(|point| {
        point.attributes.get("mcp.method.name").map(String::as_str) == Some("server/discover")
            && point.attributes.get("error.type").map(String::as_str) == Some("-32601")
    }));
    let sessions: f64 = points
        .iter()
        .filter(|point| point.metric == "mcp.client.session.duration")
        .map(|point| point.value)
        .sum();
    assert_eq!(sessions, 2.0, "{points:#?}");
}

/// The example server over Streamable HTTP on a free port of 127.0.0.1,
/// speaking `era`; killed and reaped when dropped.
struct HttpExampleServer {
    child: std::process::Child,
    url: String,
}

impl HttpExampleServer {
    fn start(era: &str) -> Self {
        let mut child = Command::new(workspace_bin("mcp-example-server"))
            .args(["http", "--host", "127.0.0.1", "--port", "0", "--era", era])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let url = announced_url(&mut child, "listening on ");
        Self { child, url }
    }

    fn port(&self) -> String {
        let rest = self.url.strip_prefix("http://127.0.0.1:").unwrap();
        rest.split('/').next().unwrap().to_owned()
    }
}

impl Drop for HttpExampleServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_legacy_http_session_names_its_id_and_peer_and_a_modern_one_no_session() {
    let legacy = HttpExampleServer::start("legacy");
    let modern = HttpExampleServer::start("modern");
    let receiver = OtlpReceiver::start();
    let setup =
        Setup::new(json!({"legacy-http": {"url": legacy.url}, "modern-http": {"url": modern.url}}));
    let endpoint = receiver.endpoint();
    let output = setup.run(&[("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint)], &["discover"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let spans = receiver.spans();

    for (server, http) in [("legacy-http", &legacy), ("modern-http", &modern)] {
        let parent = find(&spans, &format!("server {server}"));
        let requests = children(&spans, parent);
        let list = requests
            .iter()
            .find(|span| span.name == "tools/list")
            .unwrap_or_else(|| panic!("tools/list of {server} in {requests:#?}"));
        assert_eq!(attribute(list, "network.transport"), Some("tcp"));
        assert_eq!(attribute(list, "server.address"), Some("127.0.0.1"));
        assert_eq!(attribute(list, "server.port"), Some(http.port().as_str()));
        let session = attribute(list, "mcp.session.id");
        if server == "legacy-http" {
            assert_eq!(attribute(list, "mcp.protocol.version"), Some("2025-11-25"));
            // The session the server assigned, as every later request names it.
            let session = session.expect("a legacy HTTP session names its id");
            assert!(!session.is_empty());
            assert!(
                requests
                    .iter()
                    .filter(|span| span.name != "initialize" && span.name != "server/discover")
                    .all(|span| attribute(span, "mcp.session.id") == Some(session)),
                "{requests:#?}"
            );
        } else {
            assert_eq!(attribute(list, "mcp.protocol.version"), Some("2026-07-28"));
            assert!(
                requests
                    .iter()
                    .all(|span| attribute(span, "mcp.session.id").is_none()),
                "2026-07-28 has no session: {requests:#?}"
            );
        }
    }
}

#[test]
fn calls_are_spans_that_say_success_tool_error_and_jsonrpc_error_with_no_secret_anywhere() {
    let receiver = OtlpReceiver::start();
    let setup = Setup::new(json!({}));
    std::fs::write(
        &setup.config,
        json!({"mcpServers": {
            "good": legacy(&setup.requests_log(), "well-behaved"),
            "leaky": legacy(&setup.dir.path().join("leaky.log"), "leak"),
        }})
        .to_string(),
    )
    .unwrap();
    let endpoint = receiver.endpoint();
    let otel = [("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.as_str())];

    let ok = setup.run(
        &otel,
        &["call", "good", "echo", "--args", r#"{"text":"hello"}"#],
    );
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok));
    let tool_error = setup.run(&otel, &["call", "good", "fail"]);
    assert_eq!(tool_error.status.code(), Some(5), "{}", text(&tool_error));
    let rpc_error = setup.run(&otel, &["call", "leaky", "fail"]);
    assert_eq!(rpc_error.status.code(), Some(2), "{}", text(&rpc_error));
    // Opted in: arguments and results, masked.
    let recorded = setup.run(
        &otel,
        &[
            "--otel-record-arguments",
            "--otel-record-results",
            "call",
            "leaky",
            "echo",
            "--args",
            &format!(r#"{{"text":"{SECRET}"}}"#),
        ],
    );
    assert_eq!(recorded.status.code(), Some(0), "{}", text(&recorded));

    let spans = receiver.spans();
    let calls: Vec<&SpanView> = spans
        .iter()
        .filter(|span| {
            span.attributes.get("mcp.method.name").map(String::as_str) == Some("tools/call")
        })
        .filter(|span| span.kind == CLIENT)
        .collect();
    assert_eq!(calls.len(), 4, "{:#?}", names(&spans));
    let roots: Vec<&SpanView> = spans.iter().filter(|span| span.name == "call").collect();
    assert_eq!(roots.len(), 4, "one trace per run");
    for call in &calls {
        // Each call's attempt (CLIENT) under the call (INTERNAL) under its server.
        let request = spans
            .iter()
            .find(|span| span.span_id == call.parent_span_id)
            .expect("the attempt's parent");
        assert_eq!(request.kind, INTERNAL, "{request:?}");
        assert_eq!(request.name, call.name);
        assert_eq!(attribute(call, "mcp.request.attempt"), Some("1"));
        let server = spans
            .iter()
            .find(|span| span.span_id == request.parent_span_id)
            .expect("the call's parent");
        assert!(server.name.starts_with("server "), "{server:?}");
        assert!(
            roots
                .iter()
                .any(|root| root.span_id == server.parent_span_id)
        );
        assert_eq!(
            attribute(call, "gen_ai.operation.name"),
            Some("execute_tool")
        );
    }

    let [ok, tool_error, rpc_error, recorded] = [calls[0], calls[1], calls[2], calls[3]];
    assert_eq!(ok.name, "tools/call echo");
    assert_eq!(attribute(ok, "gen_ai.tool.name"), Some("echo"));
    assert!(attribute(ok, "error.type").is_none());
    assert_ne!(ok.status_code, ERROR);
    assert!(
        attribute(ok, "gen_ai.tool.call.arguments").is_none(),
        "not asked for"
    );
    assert!(
        attribute(ok, "gen_ai.tool.call.result").is_none(),
        "not asked for"
    );

    assert_eq!(tool_error.name, "tools/call fail");
    assert_eq!(attribute(tool_error, "error.type"), Some("tool_error"));
    assert!(attribute(tool_error, "rpc.response.status_code").is_none());
    assert_eq!(tool_error.status_code, ERROR);

    assert_eq!(rpc_error.name, "tools/call fail");
    assert_eq!(attribute(rpc_error, "error.type"), Some("-32603"));
    assert_eq!(
        attribute(rpc_error, "rpc.response.status_code"),
        Some("-32603")
    );
    assert_eq!(rpc_error.status_code, ERROR);
    assert!(rpc_error.status_message.contains("***"), "{rpc_error:?}");

    let arguments = attribute(recorded, "gen_ai.tool.call.arguments").expect("asked for");
    assert!(arguments.contains("***"), "{arguments}");
    let result = attribute(recorded, "gen_ai.tool.call.result").expect("asked for");
    assert!(result.contains("***"), "{result}");

    // No secret in any byte that left the process.
    let raw = receiver.raw();
    assert!(!raw.is_empty());
    assert!(
        !raw.windows(SECRET.len())
            .any(|window| window == SECRET.as_bytes()),
        "a secret was exported"
    );
}

/// Reads lines from `mcp-cli serve` until the answer with `id`.
fn answer(lines: &mut impl Iterator<Item = std::io::Result<String>>, id: i64) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        let line = lines.next().expect("the gateway answers").unwrap();
        let message: Value = serde_json::from_str(&line).unwrap();
        if message["id"] == json!(id) {
            return message;
        }
    }
    panic!("no answer to {id}");
}

/// A receiver, and a config of one backend (`backend`, the well-behaved
/// legacy fixture) for `mcp-cli serve`.
fn gateway_setup() -> (OtlpReceiver, Setup) {
    let receiver = OtlpReceiver::start();
    let setup = Setup::new(json!({}));
    std::fs::write(
        &setup.config,
        json!({"mcpServers": {"backend": legacy(&setup.requests_log(), "well-behaved")}})
            .to_string(),
    )
    .unwrap();
    (receiver, setup)
}

/// The URL a child announces on stderr after `prefix`, within 30 s.
fn announced_url(child: &mut std::process::Child, prefix: &'static str) -> String {
    let stderr = child.stderr.take().unwrap();
    let (sender, urls) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(url) = line.strip_prefix(prefix) {
                let _ = sender.send(url.trim().to_owned());
            }
        }
    });
    urls.recv_timeout(Duration::from_secs(30))
        .unwrap_or_else(|_| panic!("no {prefix:?} line on stderr within 30 s"))
}

#[test]
fn the_gateway_continues_the_callers_trace_down_to_the_backend() {
    let (receiver, setup) = gateway_setup();
    let endpoint = receiver.endpoint();
    let mut gateway = setup
        .command(&[("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint)])
        .arg("serve")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = gateway.stdin.take().unwrap();
    let mut lines = BufReader::new(gateway.stdout.take().unwrap()).lines();
    let caller_trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    let caller_span = "00f067aa0ba902b7";
    let mut send = |message: Value| {
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    };
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "otel-test", "version": "1"}}}),
    );
    assert!(answer(&mut lines, 1)["result"].is_object());
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "backend__echo", "arguments": {"text": "hi"},
        "_meta": {"traceparent": format!("00-{caller_trace}-{caller_span}-01"),
                  "tracestate": "vendor=opaque"}}}),
    );
    let called = answer(&mut lines, 2);
    assert_eq!(called["result"]["content"][0]["text"], "hi", "{called}");
    // stdin ends: the gateway stops, flushing its telemetry.
    drop(stdin);
    let status = gateway.wait().unwrap();
    assert!(status.success());

    let spans = receiver.spans();
    // The gateway's SERVER span is a child of the caller's span.
    let server = find(&spans, "tools/call backend__echo");
    assert_eq!(server.kind, SERVER);
    assert_eq!(server.trace_id, caller_trace);
    assert_eq!(server.parent_span_id, caller_span);
    assert_eq!(attribute(server, "jsonrpc.request.id"), Some("2"));
    assert_eq!(attribute(server, "gen_ai.tool.name"), Some("backend__echo"));
    // The request to the backend is its child (INTERNAL, over its attempts).
    let request = spans
        .iter()
        .find(|span| span.name == "tools/call echo" && span.parent_span_id == server.span_id)
        .expect("the backend request under the SERVER span");
    assert_eq!(request.kind, INTERNAL);
    assert_eq!(request.trace_id, caller_trace);
    let attempt = children(&spans, request)
        .into_iter()
        .next()
        .expect("an attempt span");
    assert_eq!(attempt.kind, CLIENT);
    assert_eq!(attribute(attempt, "gen_ai.tool.name"), Some("echo"));
    // The backend received a traceparent of the same trace, whose parent
    // is the attempt, a CLIENT span, and the caller's tracestate.
    let received = setup.received_meta();
    let (_, meta) = received
        .iter()
        .find(|(method, _)| method == "tools/call")
        .expect("the backend read the call");
    let (trace, parent) = split_traceparent(meta["traceparent"].as_str().unwrap());
    assert_eq!(trace, caller_trace);
    assert_eq!(parent, attempt.span_id);
    assert_eq!(meta["tracestate"], "vendor=opaque");

    // The gateway's metrics, and its supervisor's.
    let points = receiver.points();
    let named = |metric: &str| -> Vec<_> {
        points
            .iter()
            .filter(|point| point.metric == metric)
            .collect()
    };
    assert!(named("mcp.server.operation.duration").iter().any(|point| {
        point.attributes.get("mcp.method.name").map(String::as_str) == Some("tools/call")
    }));
    assert!(
        !named("mcp.server.session.duration").is_empty(),
        "{points:#?}"
    );
    assert!(named("mcp.client.operation.duration").iter().any(|point| {
        point.attributes.get("mcp.method.name").map(String::as_str) == Some("tools/call")
    }));
    let starts = named("mcp.supervisor.starts");
    assert_eq!(starts.len(), 1, "{points:#?}");
    assert_eq!(
        starts[0]
            .attributes
            .get("mcp.server.name")
            .map(String::as_str),
        Some("backend")
    );
    assert_eq!(starts[0].value, 1.0);
    assert!(named("mcp.supervisor.state").iter().any(|point| {
        point
            .attributes
            .get("mcp.supervisor.state")
            .map(String::as_str)
            == Some("ready")
            && point.value == 1.0
    }));
}

#[test]
fn a_served_requests_server_span_is_the_child_of_its_callers_client_span() {
    // `mcp-cli call` through a gateway (`mcp-cli serve` over stdio) to the
    // backend, both processes exporting to one receiver.
    let (receiver, backend) = gateway_setup();
    let endpoint = receiver.endpoint();
    let caller = Setup::new(json!({"gateway": {
        "command": workspace_bin("mcp-cli"),
        "args": ["--config", backend.config, "--no-cache", "serve"],
        "env": {
            "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint,
            "OTEL_TEST_SECRET": SECRET,
            "MCP_DISCOVERY_CACHE_DIR": backend.dir.path().join("cache"),
        },
    }}));
    let output = caller.run(
        &[("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint)],
        &[
            "call",
            "gateway",
            "backend__echo",
            "--args",
            r#"{"text":"hi"}"#,
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));

    let spans = receiver.spans();
    let served: Vec<&SpanView> = spans.iter().filter(|span| span.kind == SERVER).collect();
    assert!(
        served
            .iter()
            .any(|span| span.name == "tools/call backend__echo"),
        "{:#?}",
        names(&spans)
    );
    // Every request the gateway served hangs under the caller's CLIENT span.
    for server in &served {
        let parent = spans
            .iter()
            .find(|span| span.span_id == server.parent_span_id)
            .unwrap_or_else(|| panic!("{}: its parent is no exported span", server.name));
        assert_eq!(parent.kind, CLIENT, "{}: {parent:#?}", server.name);
        assert_eq!(parent.trace_id, server.trace_id);
        assert_eq!(
            attribute(parent, "mcp.method.name"),
            attribute(server, "mcp.method.name")
        );
    }
}

#[test]
fn nothing_is_sent_without_the_environment_or_when_disabled() {
    let receiver = OtlpReceiver::start();
    let setup = Setup::new(json!({}));
    std::fs::write(
        &setup.config,
        json!({"mcpServers": {"legacy": legacy(&setup.requests_log(), "well-behaved")}})
            .to_string(),
    )
    .unwrap();
    let endpoint = receiver.endpoint();
    let traceparents = |meta: &[(String, Value)]| {
        meta.iter()
            .filter(|(_, meta)| meta.get("traceparent").is_some())
            .count()
    };
    let plain = setup.run(&[], &["discover"]);
    assert_eq!(plain.status.code(), Some(0), "{}", text(&plain));
    // The plain run's own requests: there are some, and none carries a
    // traceparent (a run that traced by default would send one with each).
    let plain_meta = setup.received_meta();
    assert!(!plain_meta.is_empty(), "the server logged no request");
    assert_eq!(traceparents(&plain_meta), 0, "{plain_meta:?}");
    let disabled = setup.run(
        &[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint),
            ("OTEL_SDK_DISABLED", "true"),
        ],
        &["discover"],
    );
    assert_eq!(disabled.status.code(), Some(0), "{}", text(&disabled));
    assert_eq!(receiver.requests(), 0);
    // Without export, no traceparent is made up either.
    let quiet_meta = setup.received_meta();
    assert!(quiet_meta.len() > plain_meta.len());
    assert_eq!(traceparents(&quiet_meta), 0, "{quiet_meta:?}");
    // The same run with the environment does send, and its requests carry
    // a traceparent: the checks above can see one.
    let exported = setup.run(&[("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint)], &["discover"]);
    assert_eq!(exported.status.code(), Some(0), "{}", text(&exported));
    assert!(receiver.requests() > 0);
    let all_meta = setup.received_meta();
    assert!(traceparents(&all_meta) > 0, "{all_meta:?}");
}

#[test]
fn the_signal_endpoints_win_and_the_service_name_is_the_environments() {
    let receiver = OtlpReceiver::start();
    let setup = Setup::new(json!({}));
    std::fs::write(
        &setup.config,
        json!({"mcpServers": {"legacy": legacy(&setup.requests_log(), "well-behaved")}})
            .to_string(),
    )
    .unwrap();
    let traces = format!("{}/v1/traces", receiver.endpoint());
    let output = setup.run(
        &[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9"),
            ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", &traces),
            ("OTEL_SERVICE_NAME", "ops-probe"),
            ("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=test"),
            (
                "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
                &format!("{}/v1/metrics", receiver.endpoint()),
            ),
        ],
        &["discover"],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let spans = receiver.spans();
    let root = find(&spans, "discover");
    assert_eq!(
        root.resource.get("service.name").map(String::as_str),
        Some("ops-probe")
    );
    assert_eq!(
        root.resource
            .get("deployment.environment")
            .map(String::as_str),
        Some("test")
    );
    assert!(!receiver.points().is_empty());
}

/// One HTTP/1.1 POST of `body` to `url` with `headers`; the response's text.
fn post(url: &str, headers: &[(&str, &str)], body: &str) -> String {
    use std::io::Read;
    let rest = url.strip_prefix("http://").unwrap();
    let (host, path) = rest.split_once('/').unwrap();
    let mut stream = std::net::TcpStream::connect(host).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut request = format!(
        "POST /{path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    response
}

#[test]
fn an_http_clients_traceparent_header_is_honoured() {
    let (receiver, setup) = gateway_setup();
    let endpoint = receiver.endpoint();
    let mut gateway = setup
        .command(&[("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint)])
        .args(["serve", "--http", "127.0.0.1:0"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let url = announced_url(&mut gateway, "mcp-cli serve: listening on ");
    let caller_trace = "0af7651916cd43dd8448eb211c80319c";
    let caller_span = "b7ad6b7169203331";
    let traceparent = format!("00-{caller_trace}-{caller_span}-01");
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "otel-test", "version": "1"}}});
    let response = post(&url, &[("traceparent", &traceparent)], &body.to_string());
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    let pid = nix::unistd::Pid::from_raw(i32::try_from(gateway.id()).unwrap());
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while gateway.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "mcp-cli serve ignored SIGTERM");
        std::thread::sleep(Duration::from_millis(50));
    }

    let spans = receiver.spans();
    // The gateway's own `initialize` of its backend is a CLIENT span of the
    // same name, exported in whatever order: take the served one.
    let initialize = spans
        .iter()
        .find(|span| span.name == "initialize" && span.kind == SERVER)
        .unwrap_or_else(|| panic!("no SERVER span \"initialize\" in {:#?}", names(&spans)));
    assert_eq!(initialize.trace_id, caller_trace);
    assert_eq!(initialize.parent_span_id, caller_span);
    assert_eq!(attribute(initialize, "jsonrpc.request.id"), Some("7"));
}
