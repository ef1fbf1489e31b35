//! A held session is served without opening its id only while what it was
//! opened with holds: presented by another subject, or once the keys no
//! longer hold its sealing key, it is refused (404) like any other id.

use axum::extract::Request;
use axum::middleware::{self, Next};
use serde_json::json;

use super::Subject;
use super::session_seal::{SessionKeyRing, SessionKeys};
use super::stream_cap_tests::{header, post};
use super::{HttpServer, HttpServerOptions};
use crate::inbound::Inbound;
use crate::transport::Transport;
use mcpdisco_protocol::{Message, Response};

/// The subject a JWT layer would name, taken here from `x-subject`.
const SUBJECT_HEADER: &str = "x-subject";

/// Serves the routes of `options` (subjects from [`SUBJECT_HEADER`]) with a
/// server that answers every request with an empty result; its address.
async fn serve(options: HttpServerOptions) -> String {
    let (router, mut connections) = HttpServer::routes(options);
    let router = router.layer(middleware::from_fn(
        |mut request: Request, next: Next| async move {
            let subject = request
                .headers()
                .get(SUBJECT_HEADER)
                .and_then(|value| value.to_str().ok())
                .map(|name| Subject::jwt(Some(name)));
            if let Some(subject) = subject {
                request.extensions_mut().insert(subject);
            }
            next.run(request).await
        },
    ));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    tokio::spawn(async move { axum::serve(listener, router).await });
    tokio::spawn(async move {
        while let Some(connection) = connections.accept().await {
            tokio::spawn(async move {
                while let Ok(Some(Inbound::Message(Message::Request(request)))) =
                    connection.receive().await
                {
                    let result = if request.method == "initialize" {
                        json!({"protocolVersion": "2025-11-25", "capabilities": {},
                               "serverInfo": {"name": "s", "version": "1"}})
                    } else {
                        json!({})
                    };
                    let answer = Message::Response(Response {
                        id: request.id,
                        result: mcpdisco_protocol::RawJson::from_value(&result),
                    });
                    connection.send(answer).await.unwrap();
                }
            });
        }
    });
    addr
}

/// Opens a session as `subject`; its id.
async fn initialize(addr: &str) -> String {
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "c", "version": "1"}}});
    let (status, head, _stream) = post(addr, None, &initialize.to_string()).await;
    assert_eq!(status, 200, "{head}");
    header(&head, "mcp-session-id").unwrap().to_owned()
}

/// The status of a `ping` in session `id`, sent as `subject` (if any).
async fn ping(addr: &str, id: &str, subject: Option<&str>) -> u16 {
    // The subject's header rides on the session header's line end.
    let session = match subject {
        Some(subject) => format!("{id}\r\n{SUBJECT_HEADER}: {subject}"),
        None => id.to_owned(),
    };
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}).to_string();
    post(addr, Some(&session), &ping).await.0
}

#[tokio::test]
async fn a_held_session_presented_by_another_subject_is_refused() {
    let addr = serve(HttpServerOptions::default()).await;
    let id = initialize(&addr).await;
    // Held now: served again, then refused to a subject who did not open it.
    assert_eq!(ping(&addr, &id, None).await, 200);
    assert_eq!(ping(&addr, &id, Some("mallory")).await, 404);
    assert_eq!(ping(&addr, &id, None).await, 200);
}

#[tokio::test]
async fn a_held_session_is_refused_once_the_keys_no_longer_open_its_id() {
    let ring = SessionKeyRing::new(SessionKeys::random());
    let addr = serve(HttpServerOptions::default().session_keys(ring.clone())).await;
    let id = initialize(&addr).await;
    assert_eq!(ping(&addr, &id, None).await, 200);
    ring.replace(SessionKeys::random());
    assert_eq!(ping(&addr, &id, None).await, 404);
}
