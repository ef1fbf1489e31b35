//! The session and transports against real third-party servers, installed
//! locally at pinned versions by `cargo xtask test` (see `mcp_tests::tools`).
//! Counts come from the recorded transcripts (tests/fixtures/README).

use std::time::Duration;

use mcp_tests::tools::{
    BackgroundServer as Server, FastMcpTransport, Tools, free_port, require_tools,
};
use mcpdisco_client::session::{ListKind, RequestOptions, Session, SessionOptions};
use mcpdisco_protocol::types::CallToolParams;
use mcpdisco_protocol::version::{Era, ProtocolVersion};
use mcpdisco_transport::http::{HttpClient, HttpConfig, HttpKind, HttpTransport};
use mcpdisco_transport::stdio::StdioTransport;
use serde_json::json;

async fn stdio_session(name: &str, command: mcp_tests::tools::ToolCommand) -> Session {
    let transport = StdioTransport::spawn(command.stdio_config(name)).unwrap();
    Session::connect(name, transport, SessionOptions::default())
        .await
        .unwrap()
}

async fn counts(session: &Session) -> [usize; 4] {
    let mut counts = [0; 4];
    for (slot, kind) in counts.iter_mut().zip(ListKind::ALL) {
        *slot = session
            .list_complete(kind)
            .await
            .map(|list| list.items.len())
            .unwrap_or(usize::MAX);
    }
    counts
}

async fn http_session(name: &str, url: String) -> Session {
    let transport = HttpTransport::connect(
        HttpConfig::new(name, url),
        &HttpClient::shared().unwrap(),
        HttpKind::Auto,
    )
    .await
    .unwrap();
    Session::connect(name, transport, SessionOptions::default())
        .await
        .unwrap()
}

fn tools() -> Option<Tools> {
    require_tools()
}

#[tokio::test]
async fn everything_over_stdio_is_legacy_with_13_tools() {
    let Some(tools) = tools() else { return };
    let session = stdio_session("everything", tools.everything_command()).await;
    assert_eq!(session.era(), Era::Legacy);
    assert_eq!(session.protocol_version(), ProtocolVersion::V2025_11_25);
    assert_eq!(session.server_info().name, "mcp-servers/everything");
    assert!(session.instructions().is_some_and(|i| !i.is_empty()));
    assert_eq!(counts(&session).await, [13, 7, 2, 4]);
    let result = session
        .call_tool(
            CallToolParams::new("echo", json!({"message": "hi"}).as_object().cloned()),
            RequestOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(result.content[0].as_text().unwrap(), "Echo: hi");
    session.ping().await.unwrap();
    session.close().await.unwrap();
}

#[tokio::test]
async fn everything_over_streamable_http() {
    let Some(tools) = tools() else { return };
    let port = free_port().unwrap();
    let _server = Server::start(tools.everything_http_command(port, true), port).await;
    let session = http_session("everything-http", format!("http://127.0.0.1:{port}/mcp")).await;
    assert_eq!(session.era(), Era::Legacy);
    assert_eq!(session.protocol_version(), ProtocolVersion::V2025_11_25);
    assert_eq!(counts(&session).await, [13, 7, 2, 4]);
    let result = session
        .call_tool(
            CallToolParams::new("echo", json!({"message": "over http"}).as_object().cloned()),
            RequestOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(result.content[0].as_text().unwrap(), "Echo: over http");
    session.close().await.unwrap();
}

#[tokio::test]
async fn everything_over_legacy_http_sse_via_fallback() {
    let Some(tools) = tools() else { return };
    let port = free_port().unwrap();
    let _server = Server::start(tools.everything_http_command(port, false), port).await;
    let session = http_session("everything-sse", format!("http://127.0.0.1:{port}/sse")).await;
    assert_eq!(session.era(), Era::Legacy);
    assert_eq!(counts(&session).await[0], 13);
    session.close().await.unwrap();
}

#[tokio::test]
async fn time_server_is_modern() {
    let Some(tools) = tools() else { return };
    let session = stdio_session("time", tools.time_command()).await;
    assert_eq!(session.era(), Era::Modern);
    assert_eq!(session.protocol_version(), ProtocolVersion::V2026_07_28);
    assert_eq!(session.server_info().name, "mcp-time");
    assert_eq!(session.state().cache_scope.as_deref(), Some("private"));
    assert_eq!(counts(&session).await, [2, 0, 0, 0]);
    let result = session
        .call_tool(
            CallToolParams::new(
                "get_current_time",
                json!({"timezone": "UTC"}).as_object().cloned(),
            ),
            RequestOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(
        result.structured_content.as_ref().unwrap()["timezone"],
        "UTC"
    );
    session.close().await.unwrap();
}

#[tokio::test]
async fn a_probe_that_times_out_on_a_slow_modern_server_still_connects() {
    let Some(tools) = tools() else { return };
    let transport =
        StdioTransport::spawn(tools.time_command().stdio_config("time-slow-probe")).unwrap();
    let options = SessionOptions::default().probe_timeout(Duration::from_millis(50));
    let session = Session::connect("time-slow-probe", transport, options)
        .await
        .unwrap();
    assert_eq!(counts(&session).await[0], 2);
    session.close().await.unwrap();
}

#[tokio::test]
async fn fastmcp_paginated_lists_are_followed_to_the_end() {
    let Some(tools) = tools() else { return };
    let command = tools
        .fastmcp_command(FastMcpTransport::Stdio)
        .with_env("PAGE_SIZE", "2")
        .with_env("EXTRA", "4");
    let session = stdio_session("fastmcp-paged", command).await;
    let first = session.list_page(ListKind::Tools, None).await.unwrap();
    assert_eq!(first.items.len(), 2);
    assert_eq!(first.next_cursor.as_deref(), Some("eyJvIjogMn0="));
    let all = session.list_tools().await.unwrap();
    let names: Vec<_> = all.iter().map(|t| t.unwrap().name.clone()).collect();
    assert_eq!(names.len(), 5, "{names:?}");
    assert!(names.contains(&"add".to_owned()));
    assert_eq!(session.list_resources().await.unwrap().valid().count(), 5);
    assert_eq!(session.list_prompts().await.unwrap().valid().count(), 5);
    let sum = session
        .call_tool(
            CallToolParams::new("add", json!({"a": 2, "b": 3}).as_object().cloned()),
            RequestOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(sum.structured_content.as_ref().unwrap()["result"], 5);
    session.close().await.unwrap();
}

#[tokio::test]
async fn fastmcp_over_http_in_every_mode() {
    let Some(tools) = tools() else { return };
    for (json_response, stateless) in [(false, false), (true, false), (true, true)] {
        let port = free_port().unwrap();
        let command = tools.fastmcp_command(FastMcpTransport::Http {
            port,
            json_response,
            stateless,
        });
        let _server = Server::start(command, port).await;
        let session = http_session("fastmcp-http", format!("http://127.0.0.1:{port}/mcp")).await;
        assert_eq!(
            session.era(),
            Era::Modern,
            "json={json_response} stateless={stateless}"
        );
        assert_eq!(counts(&session).await[0], 1);
        let sum = session
            .call_tool(
                CallToolParams::new("add", json!({"a": 20, "b": 22}).as_object().cloned()),
                RequestOptions::default(),
            )
            .await
            .unwrap();
        assert_eq!(sum.structured_content.as_ref().unwrap()["result"], 42);
        session.close().await.unwrap();
    }
}
