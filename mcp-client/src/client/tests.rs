use std::time::Duration;

use mcpdisco_protocol::{ErrorCode, ErrorObject, ErrorResponse, Message, Request, Response};
use mcpdisco_transport::{Inbound, MemoryTransport};
use serde_json::{Value, json};

use super::*;

/// The next request the client sent (notifications skipped).
async fn next_request(end: &MemoryTransport) -> Request {
    loop {
        let message = tokio::time::timeout(Duration::from_secs(5), end.receive())
            .await
            .expect("the client sent nothing within 5 s")
            .expect("transport error")
            .expect("the client closed the connection");
        if let Inbound::Message(Message::Request(request)) = message {
            return request;
        }
    }
}

async fn reply(end: &MemoryTransport, request: Request, result: Value) {
    let response = Response {
        id: request.id,
        result: result.into(),
    };
    end.send(Message::Response(response)).await.unwrap();
}

/// A legacy server with one tool, answering until the client is gone.
async fn legacy_server(end: MemoryTransport) {
    loop {
        let request = next_request(&end).await;
        match request.method.as_str() {
            "server/discover" => {
                let error = ErrorObject::new(ErrorCode::METHOD_NOT_FOUND, "Method not found");
                let response = ErrorResponse {
                    id: Some(request.id),
                    error,
                };
                end.send(Message::Error(response)).await.unwrap();
            }
            "initialize" => {
                let result = json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                    "serverInfo": {"name": "fake", "version": "1"}});
                reply(&end, request, result).await;
            }
            "tools/list" => {
                let tools = json!({"tools": [{"name": "add", "inputSchema": {"type": "object"}}]});
                reply(&end, request, tools).await;
                return;
            }
            other => panic!("unexpected {other}"),
        }
    }
}

#[test]
fn a_server_is_named_after_its_program_or_host_unless_named() {
    #[cfg(feature = "stdio")]
    {
        assert_eq!(Client::stdio("/opt/bin/mcp-time.sh").name, "mcp-time");
        assert_eq!(Client::stdio("uvx").name, "uvx");
        let named = Client::stdio("uvx").args(["mcp-server-time"]).name("time");
        assert_eq!(named.name, "time");
    }
    #[cfg(feature = "http")]
    {
        let http = Client::http("https://user:secret@api.example.com:8443/mcp?key=k");
        assert_eq!(http.name, "api.example.com");
        assert_eq!(Client::http("not a url").name, "server");
    }
    let (client, _server) = MemoryTransport::pair();
    assert_eq!(Client::transport(client).name, "server");
}

#[tokio::test(start_paused = true)]
async fn a_client_over_a_transport_connects_and_lists_typed_tools() {
    let (client, server) = MemoryTransport::pair();
    let server = tokio::spawn(legacy_server(server));
    let session = Client::transport(client)
        .name("fake")
        .era(EraPreference::Legacy)
        .request_timeout(Duration::from_secs(3))
        .connect()
        .await
        .unwrap();
    assert_eq!(session.name(), "fake");
    let tools = session.list_tools().await.unwrap();
    assert_eq!(tools.get(0).unwrap().unwrap().name, "add");
    server.await.unwrap();
}

#[cfg(feature = "stdio")]
#[tokio::test]
async fn a_program_that_cannot_start_is_a_spawn_error_naming_the_server() {
    let error = Client::stdio("/nonexistent/dir/mcp-nothing")
        .connect()
        .await
        .unwrap_err();
    assert_eq!(error.server(), "mcp-nothing");
    assert_eq!(error.kind_name(), "spawn_failed", "{error}");
}
