//! `max_streams`: a GET stream or a streamed POST answer over the cap is
//! answered 503 with `Retry-After`, and a refused POST's request is
//! cancelled for the server; a place comes back when its stream ends.

use std::time::Duration;

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::{HttpServer, HttpServerOptions};
use crate::inbound::Inbound;
use crate::transport::Transport;
use mcpdisco_protocol::Message;

const WAIT: Duration = Duration::from_secs(10);

/// Sends a POST of `body` (with `session`), and reads the answer's head:
/// its status, its head as sent (header values keep their case: a sealed
/// session id is case-sensitive), and the open stream.
pub(super) async fn post(
    addr: &str,
    session: Option<&str>,
    body: &str,
) -> (u16, String, TcpStream) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let session = session.map_or(String::new(), |id| format!("Mcp-Session-Id: {id}\r\n"));
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\n{session}Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut read = Vec::new();
    while !read.ends_with(b"\r\n\r\n") {
        let byte = tokio::time::timeout(WAIT, stream.read_u8())
            .await
            .unwrap()
            .unwrap();
        read.push(byte);
    }
    let text = String::from_utf8(read).unwrap();
    let status = text.split(' ').nth(1).unwrap().parse().unwrap();
    (status, text, stream)
}

/// The value of header `name` (lower-case) in `head`, names compared
/// without case.
pub(super) fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines()
        .find_map(|line| {
            let (found, value) = line.split_once(':')?;
            found.eq_ignore_ascii_case(name).then_some(value)
        })
        .map(str::trim)
}

fn call(id: i64) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": "slow", "_meta": {"progressToken": id}}})
    .to_string()
}

#[tokio::test]
async fn a_streamed_answer_over_the_cap_is_refused_and_its_request_cancelled() {
    let (router, mut connections) = HttpServer::routes(HttpServerOptions::default().max_streams(1));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    tokio::spawn(async move { axum::serve(listener, router).await });
    // The server: answers `initialize`, sends progress for a call and
    // answers it only when told; reports what else it receives.
    let (seen, mut heard) = tokio::sync::mpsc::unbounded_channel::<Message>();
    let (finish, mut finishing) = tokio::sync::mpsc::unbounded_channel::<i64>();
    tokio::spawn(async move {
        let connection = connections.accept().await.unwrap();
        loop {
            tokio::select! {
                inbound = connection.receive() => {
                    let Ok(Some(Inbound::Message(message))) = inbound else { return };
                    let reply = match message.method() {
                        Some("initialize") => json!({"jsonrpc": "2.0", "id": 1, "result": {
                            "protocolVersion": "2025-11-25", "capabilities": {},
                            "serverInfo": {"name": "s", "version": "1"}}}),
                        Some("tools/call") => {
                            let Message::Request(request) = &message else { continue };
                            let id = serde_json::to_value(&request.id).unwrap();
                            json!({"jsonrpc": "2.0", "method": "notifications/progress",
                                   "params": {"progressToken": id, "progress": 1}})
                        }
                        _ => {
                            let _ = seen.send(message);
                            continue;
                        }
                    };
                    let reply = Message::from_slice(reply.to_string().as_bytes()).unwrap();
                    connection.send(reply).await.unwrap();
                }
                Some(id) = finishing.recv() => {
                    let answer = json!({"jsonrpc": "2.0", "id": id, "result": {"content": []}});
                    let answer = Message::from_slice(answer.to_string().as_bytes()).unwrap();
                    connection.send(answer).await.unwrap();
                }
            }
        }
    });
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "c", "version": "1"}}});
    let (status, head, _stream) = post(&addr, None, &initialize.to_string()).await;
    assert_eq!(status, 200);
    let session = header(&head, "mcp-session-id").unwrap().to_owned();

    let (status, head, streaming) = post(&addr, Some(&session), &call(2)).await;
    assert_eq!(status, 200);
    assert_eq!(header(&head, "content-type"), Some("text/event-stream"));

    let (status, head, _refused) = post(&addr, Some(&session), &call(3)).await;
    assert_eq!(status, 503);
    assert_eq!(header(&head, "retry-after"), Some("1"));
    let cancelled = tokio::time::timeout(WAIT, heard.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(cancelled.method(), Some("notifications/cancelled"));
    let params = match &cancelled {
        Message::Notification(notification) => notification.params.clone().unwrap(),
        other => panic!("not a notification: {other:?}"),
    };
    assert_eq!(params["requestId"], 3);

    // The first stream ends with its answer; its place comes back.
    finish.send(2).unwrap();
    let mut streaming = streaming;
    let mut rest = Vec::new();
    while !rest.ends_with(b"0\r\n\r\n") {
        let byte = tokio::time::timeout(WAIT, streaming.read_u8())
            .await
            .unwrap()
            .unwrap();
        rest.push(byte);
    }
    assert!(String::from_utf8_lossy(&rest).contains(r#""id":2"#));
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let (status, _, _stream) = post(&addr, Some(&session), &call(4)).await;
        if status == 200 {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the place never came back"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
