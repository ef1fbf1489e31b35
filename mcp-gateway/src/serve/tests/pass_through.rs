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
        let params = request.params.clone().unwrap_or(Value::Null);
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
