//! What a server answers reaches the client as the server sent it: every
//! member of a `tools/call` result (`structuredContent`, `isError`, its
//! `_meta`, unknown content types and members) in both eras, less only the
//! server's own modern envelope; and a modern server's `input_required`
//! goes to a modern client as it came, its retry back to the server.

use super::*;

/// The server's own `_meta` entry that names it (the gateway answers as itself).
const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// What the modern server answers a call of `rich`: every kind of member.
fn rich_result() -> Value {
    json!({
        "content": [
            {"type": "text", "text": "t", "annotations": {"audience": ["user"], "priority": 0.5},
             "_meta": {"k": 1}},
            {"type": "image", "data": "AAA=", "mimeType": "image/png"},
            {"type": "resource_link", "uri": "file:///a", "name": "a", "size": 3},
            {"type": "resource", "resource": {"uri": "file:///b", "blob": "AA==", "x-r": 1}},
            {"type": "hologram", "frames": [1, 2]},
            {"type": "text", "text": 5}
        ],
        "structuredContent": {"n": 1, "nested": [true, null]},
        "isError": true,
        "x-vendor": {"kept": "yes"}
    })
}

/// `result` as a modern server sends it: its envelope added.
fn enveloped(mut result: Value) -> Value {
    result["resultType"] = json!("complete");
    result["_meta"] = json!({"trace": "t-1", SERVER_INFO: {"name": "modern", "version": "1"}});
    result
}

/// A modern (2026-07-28) server with tools `rich` (answers [`rich_result`])
/// and `asks` (asks its client a question first, then answers with the
/// answer it got). The retries it saw go to `retries`.
async fn modern(end: MemoryTransport, retries: Arc<Mutex<Vec<Value>>>) {
    while let Ok(Some(Inbound::Message(message))) = end.receive().await {
        let Message::Request(request) = message else {
            continue;
        };
        let params = request
            .params
            .as_ref()
            .map_or(Value::Null, |p| p.to_value().unwrap());
        let result = match (request.method.as_str(), params["name"].as_str()) {
            ("server/discover", _) => json!({
                "supportedVersions": ["2026-07-28"],
                "capabilities": {"tools": {}},
                "resultType": "complete",
                "_meta": {SERVER_INFO: {"name": "modern", "version": "1"}}}),
            ("tools/list", _) => json!({"tools": [
                {"name": "rich", "inputSchema": {"type": "object"}},
                {"name": "asks", "inputSchema": {"type": "object"}}], "resultType": "complete"}),
            ("tools/call", Some("rich")) => enveloped(rich_result()),
            ("tools/call", Some("asks")) if params.get("requestState").is_none() => json!({
                "resultType": "input_required",
                "inputRequests": {"who": {"method": "elicitation/create",
                    "params": {"message": "Who?", "requestedSchema": {"type": "object"}}}},
                "requestState": "server-state-1",
                "x-vendor": 1,
                "_meta": {SERVER_INFO: {"name": "modern", "version": "1"}}}),
            ("tools/call", Some("asks")) => {
                retries.lock().push(params.clone());
                let name = &params["inputResponses"]["who"]["content"]["name"];
                enveloped(json!({"content": [{"type": "text", "text": name}]}))
            }
            (other, _) => {
                let error = ErrorObject::new(ErrorCode::METHOD_NOT_FOUND, other);
                let refusal = ErrorResponse {
                    id: Some(request.id.clone()),
                    error,
                };
                let _ = end.send(Message::Error(refusal)).await;
                continue;
            }
        };
        if end.send(result_message(&request.id, result)).await.is_err() {
            return;
        }
    }
}

/// A gateway whose one server, `m`, is the modern server.
fn modern_gateway(retries: &Arc<Mutex<Vec<Value>>>) -> (Gateway, MemoryTransport) {
    let retries = Arc::clone(retries);
    let script = move |end| modern(end, Arc::clone(&retries));
    let gateway = scripted_gateway_in(
        EraPreference::Modern,
        "m",
        script,
        GatewayOptions::default(),
    );
    let (client, served) = MemoryTransport::pair();
    let serving = gateway.clone();
    tokio::spawn(async move { serving.serve(served).await });
    (gateway, client)
}

#[tokio::test(start_paused = true)]
async fn a_call_result_reaches_either_client_as_the_server_sent_it() {
    let retries = Arc::new(Mutex::new(Vec::new()));
    let (gateway, legacy) = modern_gateway(&retries);
    initialize(&legacy, json!({})).await;
    send(
        &legacy,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": "m__rich", "arguments": {}}}),
    )
    .await;
    let answer = next(&legacy, |m| m["id"] == 2).await;
    let mut expected = rich_result();
    expected["_meta"] = json!({"trace": "t-1"});
    assert_eq!(answer["result"], expected, "{answer}");

    send(
        &legacy,
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
               "params": {"name": "m__rich", "_meta": modern_meta(json!({}))}}),
    )
    .await;
    let answer = next(&legacy, |m| m["id"] == 3).await;
    let mut result = answer["result"].clone();
    assert_eq!(result["resultType"], "complete", "{answer}");
    assert_eq!(
        result["_meta"][SERVER_INFO]["name"],
        "mcp-discovery-gateway"
    );
    result["_meta"].as_object_mut().unwrap().remove(SERVER_INFO);
    result.as_object_mut().unwrap().remove("resultType");
    assert_eq!(result, expected);
    gateway.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn a_modern_servers_question_reaches_a_modern_client_as_it_came_and_the_answer_goes_back() {
    let retries = Arc::new(Mutex::new(Vec::new()));
    let (gateway, client) = modern_gateway(&retries);
    let call = json!({"name": "m__asks", "arguments": {},
                      "_meta": modern_meta(json!({"elicitation": {}}))});
    send(
        &client,
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call}),
    )
    .await;
    let first = next(&client, |m| m["id"] == 1).await;
    let asked = &first["result"];
    assert_eq!(
        asked["inputRequests"],
        json!({"who": {"method": "elicitation/create",
                       "params": {"message": "Who?", "requestedSchema": {"type": "object"}}}}),
        "{first}"
    );
    assert_eq!(asked["resultType"], "input_required");
    assert_eq!(asked["requestState"], "relayed:server-state-1");
    assert_eq!(asked["x-vendor"], 1);
    assert_ne!(
        asked["_meta"][SERVER_INFO]["name"], "modern",
        "the gateway's own answer"
    );
    let mut retry = call.clone();
    retry["requestState"] = asked["requestState"].clone();
    retry["inputResponses"] = json!({"who": {"action": "accept", "content": {"name": "Ada"}}});
    send(
        &client,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": retry}),
    )
    .await;
    let done = next(&client, |m| m["id"] == 2).await;
    assert_eq!(
        done["result"]["content"],
        json!([{"type": "text", "text": "Ada"}]),
        "{done}"
    );
    let retried = retries.lock().clone();
    assert_eq!(retried.len(), 1);
    assert_eq!(retried[0]["requestState"], "server-state-1");
    assert_eq!(
        retried[0]["inputResponses"],
        json!({"who": {"action": "accept", "content": {"name": "Ada"}}})
    );
    gateway.shutdown().await;
}

/// Secrets of the server's config, each in the result it sends as it
/// appears there: plainly, JSON-escaped (`\/`, `\"`), and spelled with an
/// escape any JSON writer may use (`\u0073`).
const PLAIN: &str = "sk-live-raw-7f8e9d0c";
const ESCAPED: &str = "pass/\"word-3a4b5c";
const SPELLED: &str = "unicode-secret-9a8b";

/// The text of the result of `leak`: the three secrets in the bytes.
const LEAKING: &str = r#"{"content": [{"type": "text", "text": "plain sk-live-raw-7f8e9d0c, escaped pass\/\"word-3a4b5c, spelled unicode-\u0073ecret-9a8b"}], "x-kept": 1}"#;

/// The text of the result of `spelled`: only a secret that no byte of it spells as is.
const SPELLED_ONLY: &str =
    r#"{"content": [{"type": "text", "text": "only unicode-\u0073ecret-9a8b"}]}"#;

/// The text of the result of `clean`: no secret, spaced as no writer of ours spaces.
const CLEAN: &str =
    r#"{ "content" : [ {"type":"text","text":"a\/b"} ],"isError":false , "x-kept":[1, 2] }"#;

/// A legacy server whose `leak`, `spelled` and `clean` answer [`LEAKING`],
/// [`SPELLED_ONLY`] and [`CLEAN`], byte for byte.
async fn sending_text(end: MemoryTransport) {
    while let Ok(Some(Inbound::Message(message))) = end.receive().await {
        let Message::Request(request) = message else {
            continue;
        };
        let params = request
            .params
            .as_ref()
            .map_or(Value::Null, |p| p.to_value().unwrap());
        let text = match (request.method.as_str(), params["name"].as_str()) {
            ("initialize", _) => {
                json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                                        "serverInfo": {"name": "texts", "version": "1"}})
                .to_string()
            }
            ("tools/list", _) => json!({"tools": [
                {"name": "leak", "inputSchema": {"type": "object"}},
                {"name": "spelled", "inputSchema": {"type": "object"}},
                {"name": "clean", "inputSchema": {"type": "object"}}]})
            .to_string(),
            ("tools/call", Some("leak")) => LEAKING.to_owned(),
            ("tools/call", Some("spelled")) => SPELLED_ONLY.to_owned(),
            ("tools/call", Some("clean")) => CLEAN.to_owned(),
            _ => "{}".to_owned(),
        };
        let result = RawJson::parse(text).unwrap();
        let answer = Message::Response(Response {
            id: request.id.clone(),
            result,
        });
        if end.send(answer).await.is_err() {
            return;
        }
    }
}

/// The text of the result of the answer to request `id`.
async fn result_text(client: &MemoryTransport, id: i64) -> String {
    loop {
        let message = tokio::time::timeout(Duration::from_secs(60), client.receive())
            .await
            .expect("the gateway answered")
            .unwrap()
            .and_then(Inbound::into_message)
            .expect("the connection is open");
        if let Message::Response(response) = message
            && response.id == RequestId::from(id)
        {
            return response.result.as_str().to_owned();
        }
    }
}

#[tokio::test(start_paused = true)]
async fn a_legacy_clients_call_result_is_the_servers_text_with_every_secret_in_it_masked() {
    let mut server = ServerConfig::new(
        "t",
        Launch::Custom {
            transport: "texts".into(),
            settings: serde_json::Map::new(),
        },
    );
    if let Launch::Custom { settings, .. } = &mut server.launch {
        settings.insert(
            "env".into(),
            json!({"A": PLAIN, "B": ESCAPED, "C": SPELLED}),
        );
    }
    let connectors = Connectors::builtin().with(
        "texts",
        Arc::new(MemoryConnector::new(|_| {
            let (client, server) = MemoryTransport::pair();
            tokio::spawn(sending_text(server));
            Ok(client)
        })),
    );
    let supervisor = SupervisorOptions {
        connectors,
        session: SessionOptions::default().era(EraPreference::Legacy),
        ..SupervisorOptions::default()
    };
    let gateway = Gateway::new(vec![server], supervisor, GatewayOptions::default());
    let (client, served) = MemoryTransport::pair();
    let serving = gateway.clone();
    tokio::spawn(async move { serving.serve(served).await });
    initialize(&client, json!({})).await;

    let call = |id: i64, tool: &str| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": format!("t__{tool}"), "arguments": {}}})
    };
    send(&client, call(2, "clean")).await;
    assert_eq!(result_text(&client, 2).await, CLEAN, "passed on as it came");

    send(&client, call(3, "leak")).await;
    let masked = result_text(&client, 3).await;
    for shown in [
        PLAIN,
        ESCAPED,
        r#"pass\/\"word-3a4b5c"#,
        r#"pass/\"word-3a4b5c"#,
        SPELLED,
        r"unicode-\u0073ecret-9a8b",
    ] {
        assert!(!masked.contains(shown), "{shown} leaked: {masked}");
    }
    let result: Value = serde_json::from_str(&masked).unwrap();
    assert_eq!(
        result,
        json!({"content": [{"type": "text", "text": "plain ***, escaped ***, spelled ***"}],
               "x-kept": 1})
    );

    send(&client, call(4, "spelled")).await;
    let masked = result_text(&client, 4).await;
    let result: Value = serde_json::from_str(&masked).unwrap();
    assert_eq!(result["content"][0]["text"], "only ***", "{masked}");
    gateway.shutdown().await;
}
