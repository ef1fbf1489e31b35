//! The request policies and the Streamable HTTP state machine against local
//! servers that misbehave the way real deployments do: rate limits and
//! outages that pass, a refused connection (not retried), a connection dropped after
//! a tool call, a login page, a body that is not JSON, a session that
//! expires under concurrent requests, a session id that cannot be sent back,
//! and a response stream that breaks and cannot be resumed.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use mcp_tests::scripted_http::{Reply, ScriptedServer, SeenRequest, legacy_answer};
use mcpdisco::config::ServerConfig;
use mcpdisco::connect::{ConnectOptions, connect};
use mcpdisco::discovery::{DiscoveryOptions, ServerStatus, discover};
use mcpdisco_client::session::{EraPreference, RequestOptions, SessionError, SessionOptions};
use mcpdisco_protocol::types::CallToolParams;
use mcpdisco_transport::{Delivery, TransportError};
use serde_json::json;

/// Legacy only, so the probe does not muddle the counts.
fn legacy() -> SessionOptions {
    SessionOptions::default().era(EraPreference::Legacy)
}

/// Every request the server saw, as `METHOD rpc-method` (`METHOD` alone
/// without one).
fn sent(server: &ScriptedServer) -> Vec<String> {
    server
        .seen()
        .iter()
        .map(|request| match request.rpc_method() {
            Some(method) => format!("{} {method}", request.method),
            None => request.method.clone(),
        })
        .collect()
}

fn server(url: &str) -> ServerConfig {
    ServerConfig::http("scripted", url)
}

async fn connect_to(
    url: &str,
    options: &SessionOptions,
) -> Result<mcpdisco_client::session::Session, SessionError> {
    connect(
        &server(url),
        &ConnectOptions::default().session(options.clone()),
    )
    .await
}

#[tokio::test]
async fn a_rate_limit_with_retry_after_is_waited_out() {
    let server = ScriptedServer::start(|request: &SeenRequest, n| {
        if request.rpc_method() == Some("initialize") && n < 2 {
            return Reply::status(429).with_header("retry-after", "1");
        }
        legacy_answer(request, "s1")
    })
    .await;
    let started = Instant::now();
    let session = connect_to(&server.url, &legacy()).await.unwrap();
    assert!(
        started.elapsed() >= Duration::from_secs(2),
        "Retry-After was not honoured"
    );
    assert_eq!(server.count("initialize"), 3);
    assert_eq!(session.list_tools().await.unwrap().len(), 1);
    session.close().await.unwrap();
}

#[tokio::test]
async fn a_passing_outage_is_retried() {
    let server = ScriptedServer::start(|request: &SeenRequest, n| {
        if request.rpc_method() == Some("tools/list") && n == 0 {
            return Reply::status(503);
        }
        legacy_answer(request, "s1")
    })
    .await;
    let session = connect_to(&server.url, &legacy()).await.unwrap();
    let tools = session.list_tools().await.unwrap();
    assert_eq!(tools.len(), 1);
    assert_eq!(server.count("tools/list"), 2);
    session.close().await.unwrap();
}

#[tokio::test]
async fn a_refused_connection_fails_at_once_with_its_cause() {
    // Nobody listens: waiting does not bring a server, so the request is
    // not retried (a server that starts later is the supervisor's business).
    let port = mcp_tests::tools::free_ports::<1>().unwrap()[0];
    let url = format!("http://127.0.0.1:{port}/mcp");
    let error = connect_to(&url, &legacy()).await.unwrap_err();
    assert!(
        matches!(
            error.kind(),
            mcpdisco_client::session::ErrorKind::Transport(TransportError::Connect {
                cause: mcpdisco_transport::ConnectCause::Refused,
                ..
            })
        ),
        "{error:?}"
    );
    assert!(error.to_string().contains("connection refused"), "{error}");
    assert_eq!(error.delivery(), Delivery::NotSent);
}

#[tokio::test]
async fn a_tool_call_whose_connection_drops_after_sending_is_not_retried() {
    let server = ScriptedServer::start(|request: &SeenRequest, _| {
        if request.rpc_method() == Some("tools/call") {
            return Reply::Drop;
        }
        legacy_answer(request, "s1")
    })
    .await;
    let session = connect_to(&server.url, &legacy()).await.unwrap();
    let error = session
        .call_tool(
            CallToolParams::new("echo", json!({}).as_object().cloned()),
            RequestOptions::default(),
        )
        .await
        .unwrap_err();
    assert_eq!(server.count("tools/call"), 1, "the call was sent again");
    assert_eq!(error.delivery(), Delivery::Lost);
    let message = error.to_string();
    assert!(message.contains("may have run"), "{message}");
    session.close().await.unwrap();
}

#[tokio::test]
async fn a_login_page_fails_at_once_naming_it() {
    let server = ScriptedServer::start(|_: &SeenRequest, _| Reply::Respond {
        status: 200,
        headers: vec![("content-type".into(), b"text/html; charset=utf-8".to_vec())],
        body: b"<html><body><h1>Sign in to Example SSO</h1></body></html>".to_vec(),
    })
    .await;
    let error = connect_to(&server.url, &SessionOptions::default())
        .await
        .unwrap_err();
    // Each era tried once (the modern era's probe, then the legacy
    // handshake), nothing again.
    assert_eq!(
        sent(&server),
        ["POST server/discover", "POST initialize"],
        "retried"
    );
    let message = error.to_string();
    assert!(
        message.contains("expected JSON or an event stream, got text/html (a login page"),
        "{message}"
    );
    assert!(message.contains("Sign in to Example SSO"), "{message}");
}

#[tokio::test]
async fn a_body_that_is_not_json_fails_at_once_with_the_parse_error() {
    let server = ScriptedServer::start(|_: &SeenRequest, _| Reply::Respond {
        status: 200,
        headers: vec![("content-type".into(), b"application/json".to_vec())],
        body: b"{\"jsonrpc\": \"2.0\", oops".to_vec(),
    })
    .await;
    let error = connect_to(&server.url, &SessionOptions::default())
        .await
        .unwrap_err();
    // Each era tried once (the modern era's probe, then the legacy
    // handshake), nothing again.
    assert_eq!(
        sent(&server),
        ["POST server/discover", "POST initialize"],
        "retried"
    );
    let message = error.to_string();
    assert!(message.contains("not valid JSON-RPC"), "{message}");
    assert!(message.contains("line 1 column"), "{message}");
}

#[tokio::test]
async fn a_session_that_expires_under_concurrent_requests_is_initialized_again_once() {
    // After the first initialize, every request with session "s1" gets 404;
    // the second initialize issues "s2", which works.
    let initializes = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&initializes);
    let server = ScriptedServer::start(move |request: &SeenRequest, _| {
        if request.rpc_method() == Some("initialize") {
            let n = counter.fetch_add(1, Ordering::SeqCst);
            return legacy_answer(request, &format!("s{}", n + 1));
        }
        let is_request = request.body.get("id").is_some();
        if is_request && request.header("mcp-session-id") == Some("s1") {
            return Reply::status(404);
        }
        if request.method == "POST" && request.header("mcp-session-id").is_none() {
            return Reply::status(400);
        }
        legacy_answer(request, "s2")
    })
    .await;
    let session = connect_to(&server.url, &legacy()).await.unwrap();
    let lists = futures::future::join_all((0..4).map(|_| session.list_tools())).await;
    for list in lists {
        assert_eq!(list.unwrap().len(), 1);
    }
    assert_eq!(
        initializes.load(Ordering::SeqCst),
        2,
        "exactly one re-initialization"
    );
    session.close().await.unwrap();
}

#[tokio::test]
async fn a_session_id_that_cannot_be_sent_back_is_the_cause() {
    let server = ScriptedServer::start(|request: &SeenRequest, _| {
        if request.rpc_method() == Some("initialize") {
            let id = request.body["id"].clone();
            return Reply::json(&json!({"jsonrpc": "2.0", "id": id, "result": {
                "protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}
            }}))
            .with_header("mcp-session-id", b"caf\xe9".to_vec());
        }
        legacy_answer(request, "x")
    })
    .await;
    let error = connect_to(&server.url, &legacy()).await.unwrap_err();
    let message = error.to_string();
    assert!(
        message.contains("Mcp-Session-Id that is not visible ASCII"),
        "{message}"
    );
}

/// A POST answered by an event stream that ends before the answer, with an
/// event id (so resumption is tried); the GET to resume answers 405.
fn broken_stream(request: &SeenRequest, n: usize, broken: &str) -> Reply {
    if request.method == "GET" {
        return Reply::status(405);
    }
    if request.rpc_method() == Some(broken) && n == 0 {
        return Reply::Respond {
            status: 200,
            headers: vec![("content-type".into(), b"text/event-stream".to_vec())],
            body: b"id: ev-1\ndata: \n\n".to_vec(),
        };
    }
    legacy_answer(request, "s1")
}

#[tokio::test]
async fn a_broken_stream_that_cannot_be_resumed_is_reissued_when_idempotent() {
    let server =
        ScriptedServer::start(|request: &SeenRequest, n| broken_stream(request, n, "tools/list"))
            .await;
    let session = connect_to(&server.url, &legacy()).await.unwrap();
    let started = Instant::now();
    let tools = session.list_tools().await.unwrap();
    assert_eq!(tools.len(), 1);
    assert_eq!(server.count("tools/list"), 2);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "waited {:?}",
        started.elapsed()
    );
    session.close().await.unwrap();
}

#[tokio::test]
async fn a_broken_stream_fails_a_tool_call_at_once_and_says_it_may_have_run() {
    let server =
        ScriptedServer::start(|request: &SeenRequest, n| broken_stream(request, n, "tools/call"))
            .await;
    let session = connect_to(&server.url, &legacy()).await.unwrap();
    let started = Instant::now();
    let error = session
        .call_tool(
            CallToolParams::new("echo", json!({}).as_object().cloned()),
            RequestOptions::default(),
        )
        .await
        .unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(server.count("tools/call"), 1);
    let message = error.to_string();
    assert!(
        message.contains("cannot resume it (GET answered 405)"),
        "{message}"
    );
    assert!(message.contains("may have run"), "{message}");
    session.close().await.unwrap();
}

#[tokio::test]
async fn discovery_fails_a_login_page_at_once_with_the_cause() {
    let server = ScriptedServer::start(|_: &SeenRequest, _| Reply::Respond {
        status: 200,
        headers: vec![("content-type".into(), b"text/html".to_vec())],
        body: b"<title>Captive portal</title>".to_vec(),
    })
    .await;
    let options = DiscoveryOptions::default().deadline(Duration::from_secs(20));
    let report = discover(&[server_named("portal", &server.url)], &options).await;
    // Each era tried once (the modern era's probe, then the legacy
    // handshake), nothing again.
    assert_eq!(
        sent(&server),
        ["POST server/discover", "POST initialize"],
        "retried"
    );
    let portal = &report.servers[0];
    assert_eq!(portal.status, ServerStatus::Failed);
    let message = &portal.error.as_ref().unwrap().message;
    assert!(message.contains("got text/html"), "{message}");
}

fn server_named(name: &str, url: &str) -> ServerConfig {
    ServerConfig::http(name, url)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_reports_a_login_page_at_once() {
    let server = ScriptedServer::start(|_: &SeenRequest, _| Reply::Respond {
        status: 200,
        headers: vec![("content-type".into(), b"text/html".to_vec())],
        body: b"<html>Please log in</html>".to_vec(),
    })
    .await;
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join(".mcp.json");
    std::fs::write(
        &config,
        json!({"mcpServers": {"wall": {"url": server.url}}}).to_string(),
    )
    .unwrap();
    let output = tokio::process::Command::new(mcp_tests::tools::workspace_bin("mcp-cli"))
        .args(["--no-cache", "--timeout", "8", "--config"])
        .arg(&config)
        .arg("discover")
        .env("NO_COLOR", "1")
        .output()
        .await
        .unwrap();
    // At once: no request was sent twice (no retry, no backoff to wait out).
    let seen = server.seen();
    assert!(!seen.is_empty());
    for request in &seen {
        let method = request.rpc_method().unwrap_or(&request.method);
        let sent = seen
            .iter()
            .filter(|other| other.rpc_method().unwrap_or(&other.method) == method)
            .count();
        assert_eq!(sent, 1, "{method} was sent {sent} times: {seen:#?}");
    }
    assert_eq!(output.status.code(), Some(2));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("expected JSON or an event stream, got text/html (a login page"),
        "{stdout}"
    );
    assert!(stdout.contains("Please log in"), "{stdout}");
}

#[tokio::test]
async fn a_modern_stream_that_breaks_before_its_answer_is_reissued_when_idempotent() {
    let server = ScriptedServer::start(|request: &SeenRequest, n| {
        let id = request.body.get("id").cloned().unwrap_or_default();
        let result = |result: serde_json::Value| {
            Reply::json(&json!({"jsonrpc": "2.0", "id": id, "result": result}))
        };
        match request.rpc_method() {
            Some("server/discover") => result(json!({
                "supportedVersions": ["2026-07-28"],
                "capabilities": {"tools": {}},
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "modern", "version": "1"}},
            })),
            // The first answer's stream ends before the answer.
            Some("tools/list") if n == 0 => Reply::Respond {
                status: 200,
                headers: vec![("content-type".into(), b"text/event-stream".to_vec())],
                body: b": nothing to see\n\n".to_vec(),
            },
            Some("tools/list") => {
                result(json!({"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}))
            }
            _ => Reply::status(400),
        }
    })
    .await;
    let options = SessionOptions::default().era(EraPreference::Modern);
    let session = connect_to(&server.url, &options).await.unwrap();
    let started = Instant::now();
    let tools = session.list_tools().await.unwrap();
    assert_eq!(tools.len(), 1);
    assert_eq!(server.count("tools/list"), 2);
    assert!(started.elapsed() < Duration::from_secs(10));
    session.close().await.unwrap();
}
