//! The Streamable HTTP transport and the session against a local test server
//! (axum, 127.0.0.1) whose behaviour each test scripts: session ids and their
//! expiry, the GET stream refused with 405, DELETE on close, connection reuse,
//! redirects to another origin, status classification, and answers that come
//! back with the send (a JSON body, an event stream) or after what the server
//! streamed before them.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::serve::ListenerExt;
use mcp_tests::scripted_http::{Reply, ScriptedServer, SeenRequest};
use mcpdisco_client::session::{EraPreference, Session, SessionOptions};
use mcpdisco_protocol::{Message, Request, RequestId};
use mcpdisco_transport::http::{HttpClient, HttpConfig, StreamableHttpTransport};
use mcpdisco_transport::{Inbound, Transport, TransportError};
use serde_json::{Value, json};

/// A scripted answer: status, extra headers, body.
type CannedResponse = (StatusCode, Vec<(String, String)>, String);

/// What the test server saw and how it should behave.
#[derive(Default)]
struct Server {
    connections: AtomicUsize,
    sessions_started: AtomicUsize,
    expire_next: AtomicBool,
    status_override: Mutex<Option<CannedResponse>>,
    seen: Mutex<Vec<(String, Option<String>, HeaderMap)>>,
}

impl Server {
    fn seen(&self) -> Vec<(String, Option<String>, HeaderMap)> {
        self.seen.lock().unwrap().clone()
    }
}

fn session_of(headers: &HeaderMap) -> Option<String> {
    headers
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

async fn handle_post(
    State(server): State<Arc<Server>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let message: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let method = message["method"].as_str().unwrap_or("").to_owned();
    server
        .seen
        .lock()
        .unwrap()
        .push((method.clone(), session_of(&headers), headers.clone()));
    if let Some((status, extra_headers, body)) = server.status_override.lock().unwrap().clone() {
        let mut response = (status, body).into_response();
        for (name, value) in extra_headers {
            response.headers_mut().insert(
                header::HeaderName::from_bytes(name.as_bytes()).unwrap(),
                HeaderValue::from_str(&value).unwrap(),
            );
        }
        return response;
    }
    if method != "initialize"
        && session_of(&headers).is_some()
        && server.expire_next.swap(false, Ordering::SeqCst)
    {
        return (StatusCode::NOT_FOUND, "session not found").into_response();
    }
    let Some(id) = message.get("id").cloned() else {
        return StatusCode::ACCEPTED.into_response();
    };
    let result = match method.as_str() {
        "initialize" => {
            json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "local", "version": "1"}})
        }
        "tools/list" => json!({"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}),
        _ => json!({}),
    };
    let mut response =
        axum::Json(json!({"jsonrpc": "2.0", "id": id, "result": result})).into_response();
    if method == "initialize" {
        let n = server.sessions_started.fetch_add(1, Ordering::SeqCst) + 1;
        response.headers_mut().insert(
            "mcp-session-id",
            HeaderValue::from_str(&format!("session-{n}")).unwrap(),
        );
    }
    response
}

async fn handle_get(State(server): State<Arc<Server>>, headers: HeaderMap) -> StatusCode {
    server
        .seen
        .lock()
        .unwrap()
        .push(("GET".into(), session_of(&headers), headers));
    StatusCode::METHOD_NOT_ALLOWED
}

async fn handle_delete(State(server): State<Arc<Server>>, headers: HeaderMap) -> StatusCode {
    server
        .seen
        .lock()
        .unwrap()
        .push(("DELETE".into(), session_of(&headers), headers));
    StatusCode::OK
}

/// Starts a server on 127.0.0.1 and returns its URL and state.
async fn start() -> (String, Arc<Server>) {
    let server = Arc::new(Server::default());
    let app = Router::new()
        .route(
            "/mcp",
            post(handle_post).get(handle_get).delete(handle_delete),
        )
        .with_state(Arc::clone(&server));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let counter = Arc::clone(&server);
    let listener = listener.tap_io(move |_| {
        counter.connections.fetch_add(1, Ordering::SeqCst);
    });
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, server)
}

fn legacy() -> SessionOptions {
    SessionOptions::default().era(EraPreference::Legacy)
}

async fn connect(url: &str, client: &HttpClient) -> Session {
    let transport = StreamableHttpTransport::new(HttpConfig::new("local", url), client).unwrap();
    Session::connect("local", transport, legacy())
        .await
        .unwrap()
}

#[tokio::test]
async fn session_id_is_sent_and_an_expired_session_is_reinitialized_once() {
    let (url, server) = start().await;
    let session = connect(&url, &HttpClient::new().unwrap()).await;
    assert_eq!(session.list_tools().await.unwrap().len(), 1);
    server.expire_next.store(true, Ordering::SeqCst);
    assert_eq!(session.list_tools().await.unwrap().len(), 1);
    assert_eq!(server.sessions_started.load(Ordering::SeqCst), 2);
    let seen = server.seen();
    let posts: Vec<(&str, Option<&str>)> = seen
        .iter()
        .filter(|(m, _, _)| m != "GET")
        .map(|(m, s, _)| (m.as_str(), s.as_deref()))
        .collect();
    assert_eq!(
        posts,
        [
            ("initialize", None),
            ("notifications/initialized", Some("session-1")),
            ("tools/list", Some("session-1")),
            ("tools/list", Some("session-1")),
            ("initialize", None),
            ("notifications/initialized", Some("session-2")),
            ("tools/list", Some("session-2")),
        ]
    );
    let (_, _, headers) = &seen
        .iter()
        .rev()
        .find(|(m, _, _)| m == "tools/list")
        .unwrap();
    assert_eq!(headers["mcp-protocol-version"], "2025-11-25");
    assert_eq!(headers["accept"], "application/json, text/event-stream");
    assert_eq!(headers["content-type"], "application/json");
}

#[tokio::test]
async fn get_stream_refused_with_405_is_tolerated_and_close_deletes_the_session() {
    let (url, server) = start().await;
    let session = connect(&url, &HttpClient::new().unwrap()).await;
    session.ping().await.unwrap();
    session.close().await.unwrap();
    let seen = server.seen();
    let gets: Vec<_> = seen.iter().filter(|(m, _, _)| m == "GET").collect();
    assert_eq!(gets.len(), 1, "one GET stream attempt");
    assert_eq!(gets[0].2["accept"], "text/event-stream");
    let deletes: Vec<_> = seen.iter().filter(|(m, _, _)| m == "DELETE").collect();
    assert_eq!(deletes.len(), 1);
    assert_eq!(deletes[0].1.as_deref(), Some("session-1"));
}

#[tokio::test]
async fn sequential_requests_reuse_one_connection() {
    let (url, server) = start().await;
    let client = HttpClient::new().unwrap();
    let session = connect(&url, &client).await;
    for _ in 0..20 {
        session.ping().await.unwrap();
    }
    session.close().await.unwrap();
    // The handshake's GET stream attempt may run beside a POST; everything else shares a connection.
    assert!(
        server.connections.load(Ordering::SeqCst) <= 2,
        "{} connections",
        server.connections.load(Ordering::SeqCst)
    );
}

/// A Streamable HTTP transport named `local` for `url`, with a client of its own.
fn local_transport(url: &str) -> StreamableHttpTransport {
    StreamableHttpTransport::new(HttpConfig::new("local", url), &HttpClient::new().unwrap())
        .unwrap()
}

fn ping(id: i64) -> Message {
    Message::Request(Request {
        id: RequestId::from(id),
        method: "ping".into(),
        params: None,
    })
}

#[tokio::test]
async fn statuses_are_classified() {
    let (url, server) = start().await;
    let transport = local_transport(&url);
    *server.status_override.lock().unwrap() = Some((
        StatusCode::TOO_MANY_REQUESTS,
        vec![("retry-after".into(), "7".into())],
        String::new(),
    ));
    match transport.send(ping(1)).await {
        Err(TransportError::RateLimited { retry_after, .. }) => {
            assert_eq!(retry_after, Some(Duration::from_secs(7)))
        }
        other => panic!("{other:?}"),
    }
    *server.status_override.lock().unwrap() =
        Some((StatusCode::BAD_GATEWAY, vec![], "upstream down".into()));
    let error = transport.send(ping(2)).await.unwrap_err();
    assert!(error.is_retryable());
    assert_eq!(error.to_string(), "server 'local': HTTP 502: upstream down");
    // A JSON-RPC error with an id is the server's answer: it is delivered, not raised.
    *server.status_override.lock().unwrap() = Some((
        StatusCode::BAD_REQUEST,
        vec![("content-type".into(), "application/json".into())],
        r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"]}}}"#.into(),
    ));
    transport.send(ping(3)).await.unwrap();
    let Some(Inbound::Message(Message::Error(answer))) = transport.receive().await.unwrap() else {
        panic!()
    };
    assert_eq!(answer.id, Some(RequestId::from(3)));
    assert_eq!(answer.error.code.0, -32022);
}

#[tokio::test]
async fn connection_refused_is_a_connect_error() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    drop(listener);
    let transport =
        StreamableHttpTransport::new(HttpConfig::new("down", &url), &HttpClient::new().unwrap())
            .unwrap();
    let error = transport.send(ping(1)).await.unwrap_err();
    assert!(
        matches!(
            error,
            TransportError::Connect {
                cause: mcpdisco_transport::ConnectCause::Refused,
                ..
            }
        ),
        "{error:?}"
    );
    assert!(
        !error.is_retryable(),
        "nobody is there: waiting cannot help"
    );
    assert!(error.to_string().contains("connection refused"), "{error}");
}

#[tokio::test]
async fn a_name_that_does_not_resolve_is_a_dns_failure() {
    // `.invalid` never resolves (RFC 6761), and needs no network to say so.
    let transport = StreamableHttpTransport::new(
        HttpConfig::new("nowhere", "http://mcp.example.invalid/mcp"),
        &HttpClient::new().unwrap(),
    )
    .unwrap();
    let error = transport.send(ping(1)).await.unwrap_err();
    assert!(
        matches!(
            error,
            TransportError::Connect {
                cause: mcpdisco_transport::ConnectCause::Dns,
                ..
            }
        ),
        "{error:?}"
    );
    assert!(!error.is_retryable());
}

#[tokio::test]
async fn a_server_that_does_not_speak_tls_is_a_tls_failure() {
    // A plain HTTP server asked for HTTPS: the handshake fails.
    let (url, _server) = start().await;
    let url = url.replacen("http://", "https://", 1);
    let transport =
        StreamableHttpTransport::new(HttpConfig::new("plain", &url), &HttpClient::new().unwrap())
            .unwrap();
    let error = transport.send(ping(1)).await.unwrap_err();
    assert!(
        matches!(
            error,
            TransportError::Connect {
                cause: mcpdisco_transport::ConnectCause::Tls,
                ..
            }
        ),
        "{error:?}"
    );
    assert!(!error.is_retryable());
}

#[tokio::test]
async fn credentials_never_follow_a_redirect_to_another_origin() {
    let (other_url, other) = start().await;
    let redirecting = Router::new().route(
        "/mcp",
        post(move || {
            let target = other_url.clone();
            async move { (StatusCode::TEMPORARY_REDIRECT, [(header::LOCATION, target)]) }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!(
        "http://localhost:{}/mcp",
        listener.local_addr().unwrap().port()
    );
    tokio::spawn(async move { axum::serve(listener, redirecting).await });
    let mut config = HttpConfig::new("redirect", &url);
    config.bearer_token = Some("top-secret-token".into());
    config
        .headers
        .push(("X-Api-Key".into(), "another-secret".into()));
    let transport =
        StreamableHttpTransport::new(config.clone(), &HttpClient::new().unwrap()).unwrap();
    let error = transport.send(ping(1)).await.unwrap_err();
    assert!(
        matches!(
            &error,
            TransportError::CrossOriginRedirect { status: 307, origin, .. } if origin.starts_with("http://127.0.0.1:")
        ),
        "{error:?}"
    );
    let message = error.to_string();
    assert!(
        message.contains("redirected (HTTP 307) to another origin, http://127.0.0.1:")
            && message.contains("cross-origin redirects are not followed"),
        "{message}"
    );
    assert!(
        other.seen().is_empty(),
        "the other origin received the request"
    );
    for text in [
        error.to_string(),
        format!("{error:?}"),
        format!("{config:?}"),
    ] {
        assert!(
            !text.contains("top-secret-token") && !text.contains("another-secret"),
            "{text}"
        );
    }
}

#[tokio::test]
async fn a_json_answer_returns_from_send_request_and_is_not_received_again() {
    let (url, _server) = start().await;
    let transport = local_transport(&url);
    let answer = transport.send_request(ping(7)).await.unwrap();
    let Some(Message::Response(response)) = answer else {
        panic!("no direct answer: {answer:?}")
    };
    assert_eq!(response.id, RequestId::from(7));
    assert_eq!(response.result.as_str(), "{}");
    assert!(
        tokio::time::timeout(Duration::from_millis(200), transport.receive())
            .await
            .is_err(),
        "the direct answer is not queued as well"
    );
    // A plain send still delivers the answer through receive.
    transport.send(ping(8)).await.unwrap();
    let received = tokio::time::timeout(Duration::from_secs(5), transport.receive())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        received
            .and_then(Inbound::into_message)
            .and_then(|m| m.response_id().cloned()),
        Some(RequestId::from(8))
    );
    transport.close().await.unwrap();
}

/// A server whose every answer is a `tools/list` result for id 1, sent in
/// three pieces (a chunked body).
async fn start_chunked() -> String {
    async fn answer() -> Response {
        let tools: Vec<Value> = (0..40)
            .map(|i| json!({"name": format!("tool_{i}"), "inputSchema": {"type": "object"}}))
            .collect();
        let text = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": tools}}).to_string();
        let third = text.len() / 3;
        let pieces: Vec<Result<Bytes, std::io::Error>> = vec![
            Ok(Bytes::from(text[..third].to_owned())),
            Ok(Bytes::from(text[third..2 * third].to_owned())),
            Ok(Bytes::from(text[2 * third..].to_owned())),
        ];
        (
            [(header::CONTENT_TYPE, "application/json")],
            axum::body::Body::from_stream(futures::stream::iter(pieces)),
        )
            .into_response()
    }
    let app = Router::new().route("/mcp", post(answer));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    url
}

fn tools_list(id: i64) -> Message {
    Message::Request(Request {
        id: RequestId::from(id),
        method: "tools/list".into(),
        params: None,
    })
}

#[tokio::test]
async fn a_body_in_pieces_is_joined_and_one_over_the_limit_refused() {
    let url = start_chunked().await;
    let client = HttpClient::new().unwrap();
    let transport = StreamableHttpTransport::new(HttpConfig::new("local", &url), &client).unwrap();
    let Some(Message::Response(response)) = transport.send_request(tools_list(1)).await.unwrap()
    else {
        panic!("no answer")
    };
    let page = response.result.list_page("tools").unwrap();
    assert_eq!(page.items.len(), 40);
    assert_eq!(
        page.items[39].member::<String>("name").unwrap().as_deref(),
        Some("tool_39")
    );
    let mut config = HttpConfig::new("small", &url);
    config.max_message_len = 200;
    let transport = StreamableHttpTransport::new(config, &client).unwrap();
    let error = transport.send_request(tools_list(1)).await.unwrap_err();
    assert!(
        error.to_string().contains("larger than 200 bytes"),
        "{error}"
    );
}

/// An event stream of `events` (each an SSE event's text), as a POST's answer.
fn event_stream(events: &[String]) -> Reply {
    Reply::Respond {
        status: 200,
        headers: vec![("content-type".into(), b"text/event-stream".to_vec())],
        body: events.concat().into_bytes(),
    }
}

fn data_event(id: &str, message: &Value) -> String {
    format!("id: {id}\ndata: {message}\n\n")
}

#[tokio::test]
async fn an_event_stream_holding_only_the_answer_returns_it_from_send_request() {
    let server = ScriptedServer::start(|request: &SeenRequest, _| {
        let id = request.body["id"].clone();
        event_stream(&[
            // A priming event (no data) first, as servers that resume send it.
            "id: p-0\ndata: \n\n".to_owned(),
            data_event(
                "e-1",
                &json!({"jsonrpc": "2.0", "id": id, "result": {"tools": []}}),
            ),
        ])
    })
    .await;
    let transport = local_transport(&server.url);
    let answer = transport.send_request(tools_list(3)).await.unwrap();
    let Some(Message::Response(response)) = answer else {
        panic!("no direct answer: {answer:?}")
    };
    assert_eq!(response.id, RequestId::from(3));
    assert_eq!(response.result.as_str(), r#"{"tools":[]}"#);
    assert!(
        tokio::time::timeout(Duration::from_millis(200), transport.receive())
            .await
            .is_err(),
        "the direct answer is not queued as well"
    );
    transport.close().await.unwrap();
}

#[tokio::test]
async fn progress_before_the_answer_keeps_the_order_the_server_sent() {
    let server = ScriptedServer::start(|request: &SeenRequest, _| {
        let id = request.body["id"].clone();
        event_stream(&[
            data_event(
                "e-1",
                &json!({"jsonrpc": "2.0", "method": "notifications/progress",
                        "params": {"progressToken": id, "progress": 1, "total": 2}}),
            ),
            data_event(
                "e-2",
                &json!({"jsonrpc": "2.0", "id": id, "result": {"content": []}}),
            ),
        ])
    })
    .await;
    let transport = local_transport(&server.url);
    let call = Message::Request(Request {
        id: RequestId::from(4),
        method: "tools/call".into(),
        params: Some(json!({"name": "slow", "arguments": {}}).into()),
    });
    assert!(
        transport.send_request(call).await.unwrap().is_none(),
        "the answer comes after the progress, through receive"
    );
    let receive = || async {
        tokio::time::timeout(Duration::from_secs(5), transport.receive())
            .await
            .unwrap()
            .unwrap()
            .unwrap()
            .into_message()
            .unwrap()
    };
    let first = receive().await;
    assert_eq!(first.method(), Some("notifications/progress"));
    let second = receive().await;
    assert_eq!(second.response_id(), Some(&RequestId::from(4)));
    transport.close().await.unwrap();
}

/// A server whose event stream sends the answer to id 5, stays open until
/// `go` is notified, then sends a log notification and ends.
async fn start_lingering_stream(go: Arc<tokio::sync::Notify>) -> String {
    async fn answer(State(go): State<Arc<tokio::sync::Notify>>) -> Response {
        let answer = data_event(
            "e-1",
            &json!({"jsonrpc": "2.0", "id": 5, "result": {"tools": []}}),
        );
        let later = data_event(
            "e-2",
            &json!({"jsonrpc": "2.0", "method": "notifications/message",
                    "params": {"level": "info", "data": "after the answer"}}),
        );
        let events = futures::stream::unfold(0, move |step| {
            let (answer, later, go) = (answer.clone(), later.clone(), Arc::clone(&go));
            async move {
                match step {
                    0 => Some((Ok::<_, std::io::Error>(Bytes::from(answer)), 1)),
                    1 => {
                        go.notified().await;
                        Some((Ok(Bytes::from(later)), 2))
                    }
                    _ => None,
                }
            }
        });
        (
            [(header::CONTENT_TYPE, "text/event-stream")],
            axum::body::Body::from_stream(events),
        )
            .into_response()
    }
    let app = Router::new().route("/mcp", post(answer)).with_state(go);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    url
}

#[tokio::test]
async fn a_stream_left_open_after_its_answer_returns_the_answer_and_delivers_the_rest() {
    let go = Arc::new(tokio::sync::Notify::new());
    let url = start_lingering_stream(Arc::clone(&go)).await;
    let transport = local_transport(&url);
    // The stream stays open until told: a send that waited for its end would never return.
    let answer = tokio::time::timeout(
        Duration::from_secs(10),
        transport.send_request(tools_list(5)),
    )
    .await
    .expect("the answer came before the stream's end")
    .unwrap();
    assert_eq!(
        answer.and_then(|m| m.response_id().cloned()),
        Some(RequestId::from(5))
    );
    go.notify_one();
    let later = tokio::time::timeout(Duration::from_secs(5), transport.receive())
        .await
        .unwrap()
        .unwrap()
        .and_then(Inbound::into_message)
        .unwrap();
    assert_eq!(later.method(), Some("notifications/message"));
    transport.close().await.unwrap();
}
