//! Session tests over the in-memory transport, against a scripted fake server.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use mcpdisco_protocol::types::{
    CallToolParams, ElicitParams, ElicitResult, ListRootsResult, MalformedItem, MetaParams, Root,
    SubscriptionFilter,
};
use mcpdisco_protocol::{
    ErrorCode, ErrorObject, ErrorResponse, Message, Notification, Request, RequestId, Response,
};
use mcpdisco_transport::{Inbound, MemoryTransport, Transport};
use serde_json::{Value, json};

use super::*;

/// A request's params read as a value (`null` when it has none).
fn params_of(request: &Request) -> Value {
    request
        .params
        .as_ref()
        .map_or(Value::Null, |params| params.to_value().unwrap())
}

/// The server end of a memory connection, with helpers to script it.
struct FakeServer {
    end: MemoryTransport,
}

impl FakeServer {
    async fn next(&self) -> Message {
        tokio::time::timeout(Duration::from_secs(5), self.end.receive())
            .await
            .expect("the client sent nothing within 5 s")
            .expect("transport error")
            .and_then(Inbound::into_message)
            .expect("client closed the connection")
    }

    async fn next_request(&self) -> Request {
        match self.next().await {
            Message::Request(request) => request,
            other => panic!("expected a request, got {other:?}"),
        }
    }

    async fn reply(&self, id: RequestId, result: Value) {
        self.end
            .send(Message::Response(Response {
                id,
                result: result.into(),
            }))
            .await
            .unwrap();
    }

    async fn fail(&self, id: RequestId, code: ErrorCode, message: &str, data: Option<Value>) {
        let mut error = ErrorObject::new(code, message);
        error.data = data;
        self.end
            .send(Message::Error(ErrorResponse {
                id: Some(id),
                error,
            }))
            .await
            .unwrap();
    }

    /// Answers the discover probe with -32601, then initialize; returns the initialized notification.
    async fn legacy_handshake(&self, version: &str) {
        let probe = self.next_request().await;
        assert_eq!(probe.method, "server/discover");
        self.fail(
            probe.id,
            ErrorCode::METHOD_NOT_FOUND,
            "Method not found",
            None,
        )
        .await;
        let init = self.next_request().await;
        assert_eq!(init.method, "initialize");
        self.reply(
            init.id,
            json!({"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": {"name": "fake", "version": "1"}}),
        )
        .await;
        match self.next().await {
            Message::Notification(n) => assert_eq!(n.method, "notifications/initialized"),
            other => panic!("expected notifications/initialized, got {other:?}"),
        }
    }
}

fn pair() -> (MemoryTransport, FakeServer) {
    let (client, server) = MemoryTransport::pair();
    (client, FakeServer { end: server })
}

/// A call of tool `name` without arguments.
fn call(name: &str) -> CallToolParams {
    CallToolParams::new(name, Some(serde_json::Map::new()))
}

fn options() -> SessionOptions {
    SessionOptions {
        probe_timeout: Duration::from_millis(300),
        ..SessionOptions::default()
    }
}

#[tokio::test(start_paused = true)]
async fn legacy_handshake_sends_initialized_before_any_request() {
    let (client, server) = pair();
    let server_task = tokio::spawn(async move {
        server.legacy_handshake("2025-06-18").await;
        let list = server.next_request().await;
        assert_eq!(list.method, "tools/list");
        server
            .reply(
                list.id,
                json!({"tools": [{"name": "a", "inputSchema": {"type": "object"}}]}),
            )
            .await;
        server
    });
    let session = Session::connect("fake", client, options()).await.unwrap();
    assert_eq!(session.era(), Era::Legacy);
    assert_eq!(session.protocol_version().as_str(), "2025-06-18");
    assert_eq!(session.server_info().name, "fake");
    let tools = session.list_tools().await.unwrap();
    assert_eq!(tools.len(), 1);
    assert_eq!(tools.get(0).unwrap().unwrap().name, "a");
    server_task.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn typed_lists_follow_every_page_and_keep_a_malformed_item_as_sent() {
    let (client, server) = pair();
    let server_task = tokio::spawn(async move {
        server.legacy_handshake("2025-11-25").await;
        let first = server.next_request().await;
        assert_eq!(first.method, "tools/list");
        server
            .reply(
                first.id,
                json!({"tools": [{"name": "a", "inputSchema": {"type": "object"}}], "nextCursor": "2"}),
            )
            .await;
        let second = server.next_request().await;
        assert_eq!(params_of(&second)["cursor"], "2");
        server
            .reply(
                second.id,
                json!({"tools": [{"name": "b"}, {"name": "c", "inputSchema": {}}]}),
            )
            .await;
        // Each typed list asks its own method and reads its own member.
        for (method, key, item) in [
            (
                "resources/list",
                "resources",
                json!({"uri": "file:///r", "name": "r"}),
            ),
            (
                "resources/templates/list",
                "resourceTemplates",
                json!({"uriTemplate": "file:///{p}", "name": "t"}),
            ),
            ("prompts/list", "prompts", json!({"name": "p"})),
            (
                "skills/list",
                "skills",
                json!({"uri": "skill://s/SKILL.md"}),
            ),
        ] {
            let list = server.next_request().await;
            assert_eq!(list.method, method);
            server.reply(list.id, json!({ key: [item] })).await;
        }
    });
    let session = Session::connect("paged", client, options()).await.unwrap();
    let tools = session.list_tools().await.unwrap();
    let names: Vec<&str> = tools.valid().map(|tool| tool.name.as_str()).collect();
    assert_eq!(names, ["a", "c"]);
    let malformed: Vec<MalformedItem> = tools.malformed().collect();
    assert_eq!(malformed.len(), 1);
    assert_eq!(malformed[0].index(), 1);
    assert_eq!(malformed[0].raw().as_str(), r#"{"name":"b"}"#);
    let resources = session.list_resources().await.unwrap();
    assert_eq!(resources.get(0).unwrap().unwrap().uri, "file:///r");
    let templates = session.list_resource_templates().await.unwrap();
    assert_eq!(
        templates.get(0).unwrap().unwrap().uri_template,
        "file:///{p}"
    );
    let prompts = session.list_prompts().await.unwrap();
    assert_eq!(prompts.get(0).unwrap().unwrap().name, "p");
    let skills = session.list_skills().await.unwrap();
    assert_eq!(skills.get(0).unwrap().unwrap().uri, "skill://s/SKILL.md");
    server_task.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn silence_on_discover_means_legacy_and_the_probe_is_cancelled() {
    let (client, server) = pair();
    let server_task = tokio::spawn(async move {
        let probe = server.next_request().await;
        assert_eq!(probe.method, "server/discover");
        // Say nothing: the client must cancel the probe and fall back to initialize.
        let Message::Notification(cancel) = server.next().await else {
            panic!("expected cancel")
        };
        assert_eq!(cancel.method, "notifications/cancelled");
        assert_eq!(cancel.params.unwrap()["requestId"], probe.id.to_value());
        // A late answer to the probe is ignored.
        server
            .reply(
                probe.id,
                json!({"supportedVersions": ["2026-07-28"], "capabilities": {}}),
            )
            .await;
        let init = server.next_request().await;
        assert_eq!(init.method, "initialize");
        assert_eq!(params_of(&init)["protocolVersion"], "2025-11-25");
        server.reply(init.id, json!({"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "quiet", "version": "0"}})).await;
        server.next().await
    });
    let session = Session::connect("quiet", client, options()).await.unwrap();
    assert_eq!(session.era(), Era::Legacy);
    let last = server_task.await.unwrap();
    assert_eq!(last.method(), Some("notifications/initialized"));
}

#[tokio::test(start_paused = true)]
async fn ping_during_handshake_is_answered() {
    let (client, server) = pair();
    let server_task = tokio::spawn(async move {
        let probe = server.next_request().await;
        server
            .fail(probe.id, ErrorCode::METHOD_NOT_FOUND, "nope", None)
            .await;
        let init = server.next_request().await;
        // Before answering initialize, the server pings the client.
        server
            .end
            .send(Message::Request(Request {
                id: RequestId::from("srv-1"),
                method: "ping".into(),
                params: None,
            }))
            .await
            .unwrap();
        let pong = server.next().await;
        assert_eq!(
            pong,
            Message::Response(Response {
                id: RequestId::from("srv-1"),
                result: json!({}).into()
            })
        );
        server.reply(init.id, json!({"protocolVersion": "2024-11-05", "capabilities": {}, "serverInfo": {"name": "p", "version": "0"}})).await;
        server.next().await
    });
    let session = Session::connect("p", client, options()).await.unwrap();
    assert_eq!(session.protocol_version().as_str(), "2024-11-05");
    assert_eq!(
        server_task.await.unwrap().method(),
        Some("notifications/initialized")
    );
}

#[tokio::test(start_paused = true)]
async fn unknown_version_is_refused_and_the_connection_closed() {
    let (client, server) = pair();
    let server_task = tokio::spawn(async move {
        let probe = server.next_request().await;
        server
            .fail(probe.id, ErrorCode::METHOD_NOT_FOUND, "nope", None)
            .await;
        let init = server.next_request().await;
        server.reply(init.id, json!({"protocolVersion": "1999-01-01", "capabilities": {}, "serverInfo": {"name": "old", "version": "0"}})).await;
        // The client closes: the server sees the end of the stream, and no initialized.
        tokio::time::timeout(Duration::from_secs(5), server.end.receive())
            .await
            .unwrap()
            .unwrap()
    });
    let error = Session::connect("old", client, options())
        .await
        .unwrap_err();
    assert!(
        matches!(error.kind(), ErrorKind::VersionMismatch { .. }),
        "{error}"
    );
    assert!(error.to_string().contains("1999-01-01"), "{error}");
    assert!(
        error.to_string().starts_with("server 'old': initialize:"),
        "{error}"
    );
    assert_eq!(server_task.await.unwrap(), None);
}

#[tokio::test(start_paused = true)]
async fn discover_result_means_modern_and_requests_carry_meta() {
    let (client, server) = pair();
    let server_task = tokio::spawn(async move {
        let probe = server.next_request().await;
        let meta = params_of(&probe)["_meta"].clone();
        assert_eq!(
            meta["io.modelcontextprotocol/protocolVersion"],
            "2026-07-28"
        );
        assert_eq!(
            meta["io.modelcontextprotocol/clientCapabilities"],
            json!({})
        );
        assert_eq!(
            meta["io.modelcontextprotocol/clientInfo"]["name"],
            "mcp-discovery"
        );
        server.reply(probe.id, json!({
            "resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
            "ttlMs": 5000, "cacheScope": "private",
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "modern", "version": "2"}}
        })).await;
        let list = server.next_request().await;
        assert_eq!(
            params_of(&list)["_meta"]["io.modelcontextprotocol/protocolVersion"],
            "2026-07-28"
        );
        server
            .reply(list.id, json!({"resultType": "complete", "tools": []}))
            .await;
    });
    let session = Session::connect("modern", client, options()).await.unwrap();
    assert_eq!(session.era(), Era::Modern);
    assert_eq!(session.server_info().name, "modern");
    assert_eq!(session.state().ttl_ms, Some(5000));
    assert_eq!(session.state().cache_scope.as_deref(), Some("private"));
    assert!(session.list_tools().await.unwrap().is_empty());
    server_task.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_modern_requests_params_pass_as_written_with_the_envelope_beside_its_own_meta() {
    let (client, server) = pair();
    let written = r#"{"n":123456789012345678901234567890,"z":1.50,"_meta":{"progressToken":"p-1"},"s":"\u00e9"}"#;
    let server_task = tokio::spawn(async move {
        let probe = server.next_request().await;
        server
            .reply(
                probe.id,
                json!({"resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {}}),
            )
            .await;
        let request = server.next_request().await;
        assert_eq!(request.method, "vendor/echo");
        let text = request.params.as_ref().unwrap().as_str().to_owned();
        // Every other member as written, in order: no number rounded, no
        // escape rewritten.
        assert!(
            text.starts_with(r#"{"n":123456789012345678901234567890,"z":1.50,"_meta":{"#),
            "{text}"
        );
        assert!(text.ends_with(r#"},"s":"\u00e9"}"#), "{text}");
        let meta = params_of(&request)["_meta"].clone();
        assert_eq!(meta["progressToken"], "p-1");
        assert_eq!(
            meta["io.modelcontextprotocol/protocolVersion"],
            "2026-07-28"
        );
        server
            .reply(request.id, json!({"resultType": "complete"}))
            .await;
    });
    let session = Session::connect("modern", client, options()).await.unwrap();
    assert_eq!(session.era(), Era::Modern);
    session
        .request_raw(
            "vendor/echo",
            Some(RawJson::parse(written).unwrap()),
            RequestOptions::default(),
        )
        .await
        .unwrap();
    server_task.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn unsupported_version_error_means_modern_and_is_retried() {
    let (client, server) = pair();
    let server_task = tokio::spawn(async move {
        let first = server.next_request().await;
        server
            .fail(
                first.id.clone(),
                ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
                "Unsupported protocol version",
                Some(json!({"supported": ["2026-07-28"], "requested": "2026-07-28"})),
            )
            .await;
        let second = server.next_request().await;
        assert_eq!(second.method, "server/discover");
        assert_ne!(second.id, first.id);
        server
            .reply(
                second.id,
                json!({"supportedVersions": ["2026-07-28"], "capabilities": {}}),
            )
            .await;
    });
    let session = Session::connect("m", client, options()).await.unwrap();
    assert_eq!(session.era(), Era::Modern);
    server_task.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn timeout_sends_cancel_and_late_answer_is_ignored() {
    let (client, server) = pair();
    let server_task = tokio::spawn(async move {
        server.legacy_handshake("2025-11-25").await;
        let slow = server.next_request().await;
        let Message::Notification(cancel) = server.next().await else {
            panic!("expected cancel")
        };
        assert_eq!(cancel.method, "notifications/cancelled");
        assert_eq!(
            cancel.params.as_ref().unwrap()["requestId"],
            slow.id.to_value()
        );
        assert_eq!(cancel.params.as_ref().unwrap()["reason"], "timeout");
        server.reply(slow.id, json!({"late": true})).await;
        let ping = server.next_request().await;
        assert_eq!(ping.method, "ping");
        server.reply(ping.id, json!({})).await;
    });
    let session = Session::connect("slow", client, options()).await.unwrap();
    let error = session
        .request_raw(
            "tools/call",
            Some(json!({"name": "sleep"}).into()),
            RequestOptions::new().timeout(Duration::from_millis(100)),
        )
        .await
        .unwrap_err();
    assert!(error.is_timeout(), "{error}");
    assert_eq!(
        error.to_string(),
        "server 'slow': tools/call: timed out after 100ms"
    );
    session.ping().await.unwrap();
    server_task.await.unwrap();
}

/// Sends `notifications/progress` for `request`.
async fn send_progress(server: &FakeServer, request: &Request, step: u32) {
    let token = request.id.to_value();
    server
        .end
        .send(Message::Notification(Notification {
            method: "notifications/progress".into(),
            params: Some(json!({"progressToken": token, "progress": step})),
        }))
        .await
        .unwrap();
}

#[tokio::test(start_paused = true)]
async fn progress_extends_the_timeout_up_to_the_limit() {
    let (client, server) = pair();
    let server_task = tokio::spawn(async move {
        server.legacy_handshake("2025-11-25").await;
        // Progress every 80 ms keeps a 100 ms timeout alive past 100 ms.
        let call = server.next_request().await;
        for step in 1..=2 {
            tokio::time::sleep(Duration::from_millis(80)).await;
            send_progress(&server, &call, step).await;
        }
        tokio::time::sleep(Duration::from_millis(80)).await;
        server.reply(call.id, json!({"content": []})).await;
        // The 250 ms limit ends this one however much progress comes.
        let capped = server.next_request().await;
        for step in 1..=4 {
            tokio::time::sleep(Duration::from_millis(80)).await;
            send_progress(&server, &capped, step).await;
        }
        let Message::Notification(cancel) = server.next().await else {
            panic!("expected cancel")
        };
        assert_eq!(cancel.method, "notifications/cancelled");
    });
    let session = Session::connect(
        "p",
        client,
        options().max_request_timeout(Duration::from_millis(250)),
    )
    .await
    .unwrap();
    let extending = || {
        let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
        RequestOptions::new()
            .timeout(Duration::from_millis(100))
            .progress(tx)
            .progress_extends_timeout(true)
    };
    let started = tokio::time::Instant::now();
    session
        .request_raw(
            "tools/call",
            Some(json!({"name": "long"}).into()),
            extending(),
        )
        .await
        .unwrap();
    assert_eq!(started.elapsed(), Duration::from_millis(240));
    let started = tokio::time::Instant::now();
    let error = session
        .request_raw(
            "tools/call",
            Some(json!({"name": "longer"}).into()),
            extending(),
        )
        .await
        .unwrap_err();
    assert_eq!(started.elapsed(), Duration::from_millis(250));
    assert_eq!(
        error.to_string(),
        "server 'p': tools/call: timed out after 250ms"
    );
    server_task.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_shorter_timeout_behind_a_longer_one_ends_on_time() {
    let (client, server) = pair();
    let server_task = tokio::spawn(async move {
        server.legacy_handshake("2025-11-25").await;
        let long = server.next_request().await;
        let short = server.next_request().await;
        let Message::Notification(cancel) = server.next().await else {
            panic!("expected cancel")
        };
        assert_eq!(
            cancel.params.as_ref().unwrap()["requestId"],
            short.id.to_value()
        );
        server.reply(long.id, json!({"content": []})).await;
    });
    let session = Arc::new(Session::connect("t", client, options()).await.unwrap());
    let long = tokio::spawn({
        let session = Arc::clone(&session);
        async move {
            session
                .request_raw(
                    "tools/call",
                    Some(json!({"name": "long"}).into()),
                    RequestOptions::new().timeout(Duration::from_secs(10)),
                )
                .await
        }
    });
    tokio::task::yield_now().await;
    let started = tokio::time::Instant::now();
    let error = session
        .request_raw(
            "tools/call",
            Some(json!({"name": "short"}).into()),
            RequestOptions::new().timeout(Duration::from_millis(100)),
        )
        .await
        .unwrap_err();
    assert!(error.is_timeout(), "{error}");
    assert_eq!(started.elapsed(), Duration::from_millis(100));
    long.await.unwrap().unwrap();
    server_task.await.unwrap();
}

/// A transport whose `tools/call` sends never finish (a POST that hangs
/// while its answer streams in, say); everything else passes through.
struct StuckCalls {
    inner: MemoryTransport,
}

#[async_trait]
impl Transport for StuckCalls {
    async fn send(&self, message: Message) -> Result<(), mcpdisco_transport::TransportError> {
        self.inner.send(message).await
    }

    async fn receive(&self) -> Result<Option<Inbound>, mcpdisco_transport::TransportError> {
        self.inner.receive().await
    }

    async fn send_request(
        &self,
        request: Message,
    ) -> Result<Option<Message>, mcpdisco_transport::TransportError> {
        if request.method() == Some("tools/call") {
            std::future::pending().await
        } else {
            self.inner.send(request).await.map(|()| None)
        }
    }

    async fn close(&self) -> Result<(), mcpdisco_transport::TransportError> {
        self.inner.close().await
    }

    fn describe(&self) -> String {
        "stuck calls".into()
    }
}

#[tokio::test(start_paused = true)]
async fn a_send_that_never_finishes_times_out_and_is_cancelled() {
    let (client, server) = pair();
    let server_task = tokio::spawn(async move {
        server.legacy_handshake("2025-11-25").await;
        // The call itself never arrived: the cancellation does.
        let Message::Notification(cancel) = server.next().await else {
            panic!("expected cancel")
        };
        assert_eq!(cancel.method, "notifications/cancelled");
        assert_eq!(cancel.params.as_ref().unwrap()["reason"], "timeout");
        let ping = server.next_request().await;
        server.reply(ping.id, json!({})).await;
    });
    let session = Session::connect("stuck", StuckCalls { inner: client }, options())
        .await
        .unwrap();
    let error = session
        .request_raw(
            "tools/call",
            Some(json!({"name": "x"}).into()),
            RequestOptions::new().timeout(Duration::from_millis(100)),
        )
        .await
        .unwrap_err();
    assert!(error.is_timeout(), "{error}");
    assert_eq!(
        error.to_string(),
        "server 'stuck': tools/call: timed out after 100ms"
    );
    session.ping().await.unwrap();
    server_task.await.unwrap();
}

/// A transport that, like a response stream broken beyond resuming, says
/// the answer to every `tools/call` is lost (the call never reaches the
/// server); everything else passes through.
struct LosesCallAnswers {
    inner: MemoryTransport,
    lost: tokio::sync::mpsc::UnboundedSender<Inbound>,
    lost_queue: tokio::sync::Mutex<tokio::sync::mpsc::UnboundedReceiver<Inbound>>,
}

impl LosesCallAnswers {
    fn new(inner: MemoryTransport) -> Self {
        let (lost, lost_queue) = tokio::sync::mpsc::unbounded_channel();
        Self {
            inner,
            lost,
            lost_queue: tokio::sync::Mutex::new(lost_queue),
        }
    }
}

#[async_trait]
impl Transport for LosesCallAnswers {
    async fn send(&self, message: Message) -> Result<(), mcpdisco_transport::TransportError> {
        match message {
            Message::Request(request) if request.method == "tools/call" => {
                let _ = self
                    .lost
                    .send(Inbound::answer_lost(request.id, "the stream broke"));
                Ok(())
            }
            other => self.inner.send(other).await,
        }
    }

    async fn receive(&self) -> Result<Option<Inbound>, mcpdisco_transport::TransportError> {
        tokio::select! {
            biased;
            Some(lost) = async { self.lost_queue.lock().await.recv().await } => Ok(Some(lost)),
            received = self.inner.receive() => received,
        }
    }

    async fn close(&self) -> Result<(), mcpdisco_transport::TransportError> {
        self.inner.close().await
    }

    fn describe(&self) -> String {
        "loses call answers".into()
    }
}

#[tokio::test(start_paused = true)]
async fn a_lost_answer_fails_its_request_at_once_and_the_session_lives_on() {
    let (client, server) = pair();
    let server_task = tokio::spawn(async move {
        server.legacy_handshake("2025-11-25").await;
        let ping = server.next_request().await;
        assert_eq!(ping.method, "ping");
        server.reply(ping.id, json!({})).await;
    });
    let session = Session::connect("lossy", LosesCallAnswers::new(client), options())
        .await
        .unwrap();
    let started = tokio::time::Instant::now();
    let error = session
        .request_raw(
            "tools/call",
            Some(json!({"name": "x"}).into()),
            RequestOptions::new(),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(error.kind(), ErrorKind::ConnectionLost { reason } if reason == "the stream broke"),
        "{error}"
    );
    assert_eq!(error.delivery(), mcpdisco_transport::Delivery::Lost);
    assert_eq!(started.elapsed(), Duration::ZERO, "not waited out");
    session.ping().await.unwrap();
    server_task.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn dropping_a_call_cancels_it() {
    let (client, server) = pair();
    let server_task = tokio::spawn(async move {
        server.legacy_handshake("2025-11-25").await;
        let request = server.next_request().await;
        let Message::Notification(cancel) = server.next().await else {
            panic!("expected cancel")
        };
        assert_eq!(cancel.method, "notifications/cancelled");
        assert_eq!(cancel.params.unwrap()["requestId"], request.id.to_value());
    });
    let session = Session::connect("d", client, options()).await.unwrap();
    let call = session.call_tool(call("forever"), RequestOptions::default());
    // Poll long enough for the request to go out, then drop the future.
    let _ = tokio::time::timeout(Duration::from_millis(50), call).await;
    server_task.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn concurrent_requests_match_out_of_order_answers() {
    let (client, server) = pair();
    let server_task = tokio::spawn(async move {
        server.legacy_handshake("2025-11-25").await;
        let mut requests = Vec::new();
        for _ in 0..10 {
            requests.push(server.next_request().await);
        }
        let ids: std::collections::HashSet<_> = requests.iter().map(|r| r.id.clone()).collect();
        assert_eq!(ids.len(), 10, "ids must be unique");
        for request in requests.into_iter().rev() {
            let name = params_of(&request)["name"].clone();
            server
                .reply(
                    request.id,
                    json!({"content": [{"type": "text", "text": name}]}),
                )
                .await;
        }
    });
    let session = Session::connect("c", client, options()).await.unwrap();
    let calls = (0..10).map(|i| {
        let session = session.clone();
        async move {
            session
                .call_tool(call(&format!("t{i}")), RequestOptions::default())
                .await
        }
    });
    let results = futures::future::join_all(calls).await;
    for (i, result) in results.into_iter().enumerate() {
        let result = result.unwrap();
        assert_eq!(result.content[0].as_text(), Some(format!("t{i}").as_str()));
    }
    server_task.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn typed_results_keep_the_members_they_do_not_know() {
    let (client, server) = pair();
    let server_task = tokio::spawn(async move {
        server.legacy_handshake("2025-11-25").await;
        let call = server.next_request().await;
        assert_eq!(call.method, "tools/call");
        assert_eq!(
            call.params.unwrap(),
            json!({"name": "add", "arguments": {"a": 1}})
        );
        server
            .reply(
                call.id,
                json!({"content": [{"type": "text", "text": "1", "x-hint": 2}], "x-vendor": {"kept": true}}),
            )
            .await;
        let read = server.next_request().await;
        assert_eq!(read.params.unwrap(), json!({"uri": "file:///a"}));
        server
            .reply(
                read.id,
                json!({"contents": [{"uri": "file:///a", "text": "a"}], "x-vendor": 3}),
            )
            .await;
    });
    let session = Session::connect("typed", client, options()).await.unwrap();
    let result = session
        .call_tool(
            CallToolParams::new("add", json!({"a": 1}).as_object().cloned()),
            RequestOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(result.extra["x-vendor"], json!({"kept": true}));
    assert_eq!(
        serde_json::to_value(&result.content[0]).unwrap(),
        json!({"type": "text", "text": "1", "x-hint": 2})
    );
    let read = session
        .read_resource(
            ReadResourceParams::new("file:///a"),
            RequestOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(read.extra["x-vendor"], 3);
    server_task.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn repeated_cursor_is_an_error() {
    let (client, server) = pair();
    let server_task = tokio::spawn(async move {
        server.legacy_handshake("2025-11-25").await;
        for _ in 0..2 {
            let list = server.next_request().await;
            server
                .reply(
                    list.id,
                    json!({"prompts": [{"name": "p"}], "nextCursor": "same"}),
                )
                .await;
        }
    });
    let session = Session::connect("loop", client, options()).await.unwrap();
    let error = session.list_prompts().await.unwrap_err();
    assert!(matches!(error.kind(), ErrorKind::ProtocolViolation { .. }));
    assert_eq!(
        error.to_string(),
        "server 'loop': prompts/list: protocol violation: the server repeated cursor \"same\""
    );
    server_task.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn page_cap_stops_an_endless_list() {
    let (client, server) = pair();
    let server_task = tokio::spawn(async move {
        server.legacy_handshake("2025-11-25").await;
        for page in 0..3 {
            let list = server.next_request().await;
            if page > 0 {
                assert_eq!(params_of(&list)["cursor"], format!("c{page}"));
            }
            server
                .reply(
                    list.id,
                    json!({"tools": [], "nextCursor": format!("c{}", page + 1)}),
                )
                .await;
        }
    });
    let session = Session::connect(
        "endless",
        client,
        SessionOptions {
            page_cap: 3,
            ..options()
        },
    )
    .await
    .unwrap();
    let error = session.list_tools().await.unwrap_err();
    assert!(error.to_string().contains("more than 3 pages"), "{error}");
    server_task.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn server_requests_without_capability_get_method_not_found() {
    let (client, server) = pair();
    let server_task = tokio::spawn(async move {
        server.legacy_handshake("2025-11-25").await;
        for (id, method) in [
            (0, "roots/list"),
            (1, "sampling/createMessage"),
            (2, "elicitation/create"),
            (3, "tasks/list"),
        ] {
            server
                .end
                .send(Message::Request(Request {
                    id: RequestId::from(id),
                    method: method.into(),
                    params: Some(json!({}).into()),
                }))
                .await
                .unwrap();
            let Message::Error(answer) = server.next().await else {
                panic!("expected an error answer")
            };
            assert_eq!(answer.id, Some(RequestId::from(id)));
            assert_eq!(answer.error.code, ErrorCode::METHOD_NOT_FOUND, "{method}");
        }
    });
    let _session = Session::connect("asks", client, options()).await.unwrap();
    server_task.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_malformed_server_request_is_invalid_params_naming_what_is_wrong() {
    let (client, server) = pair();
    let server_task = tokio::spawn(async move {
        server.legacy_handshake("2025-11-25").await;
        for (id, method, params) in [
            (0, "elicitation/create", json!({"requestedSchema": {}})),
            (
                1,
                "sampling/createMessage",
                json!({"messages": "not a list"}),
            ),
        ] {
            server
                .end
                .send(Message::Request(Request {
                    id: RequestId::from(id),
                    method: method.into(),
                    params: Some(params.into()),
                }))
                .await
                .unwrap();
            let Message::Error(answer) = server.next().await else {
                panic!("expected an error answer to {method}")
            };
            assert_eq!(answer.id, Some(RequestId::from(id)));
            assert_eq!(answer.error.code, ErrorCode::INVALID_PARAMS, "{method}");
            assert!(answer.error.message.contains(method), "{answer:?}");
            assert!(
                answer.error.message.contains("message"),
                "names the field: {answer:?}"
            );
        }
    });
    let options = SessionOptions {
        handler: Arc::new(AcceptingHandler),
        capabilities: serde_json::from_value(json!({"elicitation": {}, "sampling": {}})).unwrap(),
        ..options()
    };
    let _session = Session::connect("malformed", client, options)
        .await
        .unwrap();
    server_task.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn every_request_goes_through_the_options_stack() {
    let seen = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = Arc::clone(&seen);
    let counting = tower::layer::layer_fn(move |inner: RequestService| {
        let counter = Arc::clone(&counter);
        tower::service_fn(move |request: McpRequest| {
            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            inner.clone().oneshot(request)
        })
    });
    let (client, server) = pair();
    let server_task = tokio::spawn(async move {
        server.legacy_handshake("2025-11-25").await;
        let request = server.next_request().await;
        server.reply(request.id, json!({"content": []})).await;
    });
    let options = SessionOptions {
        stack: LayerStack::default().layer(counting),
        ..options()
    };
    let session = Session::connect("stacked", client, options).await.unwrap();
    // The probe and `initialize` (the notification takes no request path).
    assert_eq!(seen.load(std::sync::atomic::Ordering::SeqCst), 2);
    session
        .call_tool(call("t"), RequestOptions::default())
        .await
        .unwrap();
    assert_eq!(seen.load(std::sync::atomic::Ordering::SeqCst), 3);
    server_task.await.unwrap();
}

struct AcceptingHandler;

#[async_trait]
impl ClientHandler for AcceptingHandler {
    async fn elicit(&self, _params: ElicitParams) -> Result<ElicitResult, ErrorObject> {
        let mut content = serde_json::Map::new();
        content.insert("confirmed".into(), json!(true));
        Ok(ElicitResult::accept(content))
    }
    async fn list_roots(&self, _params: MetaParams) -> Result<ListRootsResult, ErrorObject> {
        let mut root = Root::new("file:///work");
        root.name = Some("work".into());
        Ok(ListRootsResult::new(vec![root]))
    }
}

#[tokio::test(start_paused = true)]
async fn input_required_rounds_echo_state_with_new_ids() {
    let (client, server) = pair();
    let state = r#"{"step":1,"nonce":"a\u00e9 b"}"#;
    let server_task = tokio::spawn(async move {
        let probe = server.next_request().await;
        server
            .reply(
                probe.id,
                json!({"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}}),
            )
            .await;
        let first = server.next_request().await;
        assert!(params_of(&first).get("inputResponses").is_none());
        server.reply(first.id.clone(), json!({
            "resultType": "input_required",
            "inputRequests": {
                "confirm": {"method": "elicitation/create", "params": {"message": "ok?", "requestedSchema": {"type": "object", "properties": {"confirmed": {"type": "boolean"}, "note": {"type": "string", "default": "none"}}}}},
                "where": {"method": "roots/list", "params": {}}
            },
            "requestState": state,
        })).await;
        let retry = server.next_request().await;
        assert_ne!(retry.id, first.id);
        let params = params_of(&retry);
        assert_eq!(params["name"], "deploy");
        assert_eq!(params["requestState"], state);
        assert_eq!(
            params["inputResponses"]["confirm"],
            json!({"action": "accept", "content": {"confirmed": true, "note": "none"}})
        );
        assert_eq!(
            params["inputResponses"]["where"]["roots"][0]["name"],
            "work"
        );
        assert_eq!(
            params["_meta"]["io.modelcontextprotocol/protocolVersion"],
            "2026-07-28"
        );
        server
            .reply(
                retry.id,
                json!({"resultType": "complete", "content": [{"type": "text", "text": "done"}]}),
            )
            .await;
    });
    let options = SessionOptions {
        handler: Arc::new(AcceptingHandler),
        capabilities: serde_json::from_value(
            json!({"elicitation": {"form": {"applyDefaults": true}}, "roots": {}}),
        )
        .unwrap(),
        ..options()
    };
    let session = Session::connect("mrtr", client, options).await.unwrap();
    let result = session
        .call_tool(call("deploy"), RequestOptions::default())
        .await
        .unwrap();
    assert_eq!(result.content[0].as_text(), Some("done"));
    server_task.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn input_rounds_are_bounded() {
    let (client, server) = pair();
    let server_task = tokio::spawn(async move {
        let probe = server.next_request().await;
        server
            .reply(
                probe.id,
                json!({"supportedVersions": ["2026-07-28"], "capabilities": {}}),
            )
            .await;
        for _ in 0..3 {
            let request = server.next_request().await;
            server
                .reply(
                    request.id,
                    json!({"resultType": "input_required", "requestState": "again"}),
                )
                .await;
        }
    });
    let session = Session::connect(
        "greedy",
        client,
        SessionOptions {
            max_input_rounds: 2,
            ..options()
        },
    )
    .await
    .unwrap();
    let error = session
        .call_tool(call("t"), RequestOptions::default())
        .await
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("still input_required after 2 rounds"),
        "{error}"
    );
    server_task.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn unknown_result_type_is_invalid() {
    let (client, server) = pair();
    let server_task = tokio::spawn(async move {
        let probe = server.next_request().await;
        server
            .reply(
                probe.id,
                json!({"supportedVersions": ["2026-07-28"], "capabilities": {}}),
            )
            .await;
        let request = server.next_request().await;
        server
            .reply(request.id, json!({"resultType": "maybe", "content": []}))
            .await;
    });
    let session = Session::connect("odd", client, options()).await.unwrap();
    let error = session
        .call_tool(call("t"), RequestOptions::default())
        .await
        .unwrap_err();
    assert!(
        matches!(error.kind(), ErrorKind::ProtocolViolation { .. }),
        "{error}"
    );
    server_task.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn notifications_and_progress_reach_the_caller() {
    let (client, server) = pair();
    let server_task = tokio::spawn(async move {
        server.legacy_handshake("2025-11-25").await;
        let request = server.next_request().await;
        let token = params_of(&request)["_meta"]["progressToken"].clone();
        assert_eq!(token, request.id.to_value());
        for step in 1..=2 {
            server
                .end
                .send(Message::Notification(Notification {
                    method: "notifications/progress".into(),
                    params: Some(json!({"progressToken": token, "progress": step, "total": 2})),
                }))
                .await
                .unwrap();
        }
        server
            .end
            .send(Message::Notification(Notification {
                method: "notifications/tools/list_changed".into(),
                params: None,
            }))
            .await
            .unwrap();
        server.reply(request.id, json!({"content": []})).await;
    });
    let session = Session::connect("n", client, options()).await.unwrap();
    let mut notifications = session.notifications();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    session
        .request_raw(
            "tools/call",
            Some(json!({"name": "long"}).into()),
            RequestOptions::new().progress(tx),
        )
        .await
        .unwrap();
    assert_eq!(rx.recv().await.unwrap().progress, 1.0);
    assert_eq!(
        rx.recv().await.unwrap(),
        Progress {
            progress: 2.0,
            total: Some(2.0),
            message: None
        }
    );
    assert_eq!(
        notifications.recv().await.unwrap(),
        ServerNotification::ToolListChanged
    );
    server_task.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_dead_connection_fails_pending_and_later_calls() {
    let (client, server) = pair();
    let server_task = tokio::spawn(async move {
        server.legacy_handshake("2025-11-25").await;
        let _request = server.next_request().await;
        server.end.close().await.unwrap();
    });
    let session = Session::connect("gone", client, options()).await.unwrap();
    let error = session
        .call_tool(call("t"), RequestOptions::default())
        .await
        .unwrap_err();
    assert!(
        matches!(error.kind(), ErrorKind::ConnectionLost { .. }),
        "{error}"
    );
    server_task.await.unwrap();
    let later = session.ping().await.unwrap_err();
    assert!(
        matches!(later.kind(), ErrorKind::ConnectionLost { .. }),
        "{later}"
    );
}

#[tokio::test(start_paused = true)]
async fn pinned_legacy_skips_the_probe() {
    let (client, server) = pair();
    let server_task = tokio::spawn(async move {
        let init = server.next_request().await;
        assert_eq!(init.method, "initialize");
        server.reply(init.id, json!({"protocolVersion": "2025-03-26", "capabilities": {}, "serverInfo": {"name": "x", "version": "0"}})).await;
        server.next().await
    });
    let session = Session::connect(
        "pinned",
        client,
        SessionOptions {
            era: EraPreference::Legacy,
            ..options()
        },
    )
    .await
    .unwrap();
    assert_eq!(session.protocol_version().as_str(), "2025-03-26");
    assert_eq!(
        server_task.await.unwrap().method(),
        Some("notifications/initialized")
    );
}

#[tokio::test(start_paused = true)]
async fn modern_listen_demultiplexes_by_subscription_id() {
    let (client, server) = pair();
    let server_task = tokio::spawn(async move {
        let probe = server.next_request().await;
        server.reply(probe.id, json!({"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {"listChanged": true}}})).await;
        let listen = server.next_request().await;
        assert_eq!(listen.method, "subscriptions/listen");
        assert_eq!(
            params_of(&listen)["notifications"],
            json!({"toolsListChanged": true})
        );
        // The options' `_meta` entries win over the session's envelope.
        let meta = params_of(&listen)["_meta"].clone();
        assert_eq!(
            meta[mcpdisco_protocol::meta::CLIENT_CAPABILITIES_KEY],
            json!({"extensions": {"x-declared": {}}})
        );
        assert_eq!(
            meta[mcpdisco_protocol::meta::PROTOCOL_VERSION_KEY],
            json!("2026-07-28")
        );
        for id in [Value::from(999), listen.id.to_value()] {
            server
                .end
                .send(Message::Notification(Notification {
                    method: "notifications/tools/list_changed".into(),
                    params: Some(json!({"_meta": {"io.modelcontextprotocol/subscriptionId": id}})),
                }))
                .await
                .unwrap();
        }
        listen.id
    });
    let session = Session::connect("sub", client, options()).await.unwrap();
    let mut subscription = session
        .listen(
            SubscriptionFilter {
                tools_list_changed: Some(true),
                ..SubscriptionFilter::default()
            },
            RequestOptions::new().meta(serde_json::Map::from_iter([(
                mcpdisco_protocol::meta::CLIENT_CAPABILITIES_KEY.to_owned(),
                json!({"extensions": {"x-declared": {}}}),
            )])),
        )
        .await
        .unwrap();
    assert_eq!(
        subscription.next().await,
        Some(ServerNotification::ToolListChanged)
    );
    let listen_id = server_task.await.unwrap();
    assert_eq!(subscription.id(), &listen_id);
}

#[tokio::test(start_paused = true)]
async fn initialize_refused_for_the_modern_era_switches_to_modern() {
    let (client, server) = pair();
    let server_task = tokio::spawn(async move {
        let probe = server.next_request().await;
        let Message::Notification(cancel) = server.next().await else {
            panic!("expected cancel")
        };
        assert_eq!(cancel.method, "notifications/cancelled");
        let init = server.next_request().await;
        // The probe was answered late; the connection now serves 2026-07-28 only.
        server
            .reply(
                probe.id,
                json!({"supportedVersions": ["2026-07-28"], "capabilities": {}}),
            )
            .await;
        server
            .fail(
                init.id,
                ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
                "the initialize handshake is not accepted",
                Some(json!({"supported": ["2026-07-28"], "requested": "2025-11-25"})),
            )
            .await;
        let discover = server.next_request().await;
        assert_eq!(discover.method, "server/discover");
        server
            .reply(
                discover.id,
                json!({"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}}),
            )
            .await;
    });
    let session = Session::connect("late", client, options()).await.unwrap();
    assert_eq!(session.era(), Era::Modern);
    server_task.await.unwrap();
}

/// A modern-only server on a busy machine: it answers nothing until the
/// probe has timed out, then refuses `initialize` as an unknown method.
async fn slow_modern_only(server: FakeServer, refusal: ErrorCode) {
    let probe = server.next_request().await;
    assert_eq!(probe.method, "server/discover");
    let Message::Notification(cancel) = server.next().await else {
        panic!("expected cancel")
    };
    assert_eq!(cancel.method, "notifications/cancelled");
    let init = server.next_request().await;
    assert_eq!(init.method, "initialize");
    server
        .fail(init.id, refusal, "Method not found: initialize", None)
        .await;
    let discover = server.next_request().await;
    assert_eq!(discover.method, "server/discover");
    server
        .reply(
            discover.id,
            json!({"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}}),
        )
        .await;
}

#[tokio::test(start_paused = true)]
async fn a_slow_modern_only_server_refusing_initialize_is_modern() {
    let (client, server) = pair();
    let server_task = tokio::spawn(slow_modern_only(server, ErrorCode::METHOD_NOT_FOUND));
    let session = Session::connect("slow-modern", client, options())
        .await
        .unwrap();
    assert_eq!(session.era(), Era::Modern);
    assert!(session.state().negotiation.probe_timed_out);
    server_task.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_refused_initialize_after_an_answered_probe_is_not_retried_as_modern() {
    // The probe was answered (-32601: not modern), so a -32601 to
    // `initialize` is the server's last word: no second probe.
    let (client, server) = pair();
    let server_task = tokio::spawn(async move {
        let probe = server.next_request().await;
        server
            .fail(probe.id, ErrorCode::METHOD_NOT_FOUND, "nope", None)
            .await;
        let init = server.next_request().await;
        server
            .fail(init.id, ErrorCode::METHOD_NOT_FOUND, "nope", None)
            .await;
        server
    });
    let error = Session::connect("neither", client, options())
        .await
        .unwrap_err();
    assert!(error.to_string().contains("initialize"), "{error}");
    let server = server_task.await.unwrap();
    // Nothing more was asked: the connection was closed.
    assert!(
        tokio::time::timeout(Duration::from_secs(1), server.end.receive())
            .await
            .map_or(true, |next| {
                !matches!(next, Ok(Some(Inbound::Message(Message::Request(_)))))
            }),
    );
}

/// With telemetry in the stack, every request of either era carries a
/// `traceparent` in `_meta`, beside the modern envelope's entries.
#[cfg(feature = "otel")]
#[tokio::test(start_paused = true)]
async fn requests_of_both_eras_carry_a_traceparent_in_meta() {
    use mcpdisco_protocol::meta::TraceContext;
    use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};

    let exporter = InMemorySpanExporter::default();
    let tracers = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let telemetry = crate::telemetry::Telemetry::new(
        &tracers,
        &opentelemetry::metrics::noop::NoopMeterProvider::new(),
    );
    let traced = || {
        let mut options = options();
        options.stack = options.stack.telemetry(telemetry.clone());
        options
    };
    let carried = |request: &Request| {
        TraceContext::of_params(request.params.as_ref())
            .map(|context| context.traceparent)
            .unwrap_or_else(|| panic!("no traceparent in {request:?}"))
    };

    // Legacy: the probe, initialize and a call.
    let (client, server) = pair();
    let legacy = tokio::spawn(async move {
        let probe = server.next_request().await;
        let mut seen = vec![carried(&probe)];
        server
            .fail(
                probe.id,
                ErrorCode::METHOD_NOT_FOUND,
                "Method not found",
                None,
            )
            .await;
        let init = server.next_request().await;
        seen.push(carried(&init));
        server.reply(init.id, json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "fake", "version": "1"}})).await;
        let _initialized = server.next().await;
        let call = server.next_request().await;
        seen.push(carried(&call));
        server.reply(call.id, json!({"content": []})).await;
        seen
    });
    let session = Session::connect("legacy", client, traced()).await.unwrap();
    session
        .call_tool(call("echo"), RequestOptions::default())
        .await
        .unwrap();
    let seen = legacy.await.unwrap();
    assert_eq!(seen.len(), 3);

    // Modern: the envelope's entries and the traceparent side by side.
    let (client, server) = pair();
    let modern = tokio::spawn(async move {
        let probe = server.next_request().await;
        let probe_parent = carried(&probe);
        server.reply(probe.id, json!({"resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}})).await;
        let list = server.next_request().await;
        let meta = params_of(&list)["_meta"].clone();
        assert_eq!(
            meta["io.modelcontextprotocol/protocolVersion"],
            "2026-07-28"
        );
        let list_parent = carried(&list);
        server
            .reply(list.id, json!({"resultType": "complete", "tools": []}))
            .await;
        (probe_parent, list_parent)
    });
    let session = Session::connect("modern", client, traced()).await.unwrap();
    session.list_tools().await.unwrap();
    let (probe_parent, list_parent) = modern.await.unwrap();
    assert_ne!(probe_parent, list_parent);

    // Each parent the servers were given is an exported CLIENT span: an attempt's.
    let spans = exporter.get_finished_spans().unwrap();
    for traceparent in seen.iter().chain([&probe_parent, &list_parent]) {
        let context = crate::telemetry::from_carrier(&TraceContext {
            traceparent: traceparent.clone(),
            tracestate: None,
        })
        .unwrap();
        let parent = spans
            .iter()
            .find(|span| span.span_context.span_id() == context.span_id())
            .unwrap_or_else(|| panic!("{traceparent} names no exported span"));
        assert_eq!(parent.span_kind, opentelemetry::trace::SpanKind::Client);
        assert!(
            parent
                .attributes
                .iter()
                .any(|kv| kv.key.as_str() == crate::telemetry::names::MCP_REQUEST_ATTEMPT),
            "{parent:?}"
        );
    }
}
