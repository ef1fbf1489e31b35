//! The gateway in process, on tokio's paused clock: a test client on one end
//! of an in-memory connection, a scripted server behind the supervisor.
//! Progress and cancellation in both directions, and modern subscriptions.
//! Tool search in `search.rs`, profiles in `profiles.rs`.

mod legacy_features;
mod pass_through;
mod profiles;
mod search;

use std::sync::Arc;
use std::time::Duration;

use mcpdisco_protocol::{
    ErrorCode, ErrorObject, ErrorResponse, Message, RawJson, RequestId, Response,
};
use mcpdisco_transport::sync::Mutex;
use mcpdisco_transport::{Inbound, MemoryTransport, Transport};
use serde_json::{Value, json};

use super::*;
use mcpdisco::config::{Launch, ServerConfig};
use mcpdisco::connect::{Connectors, MemoryConnector};
use mcpdisco_client::session::{EraPreference, SessionOptions};

/// What the scripted server saw.
#[derive(Default)]
struct Seen {
    /// Ids of its requests that the gateway cancelled.
    cancelled: Mutex<Vec<Value>>,
    /// Wakes it to say its tools changed.
    list_changed: tokio::sync::Notify,
    /// Answers to its own requests (to the client, through the gateway).
    answers: Mutex<Vec<Value>>,
    /// A tool it lists besides `slow` and `ask`, once set.
    extra_tool: Mutex<Option<String>>,
    /// The `relay` call waiting for the client's answer to its question.
    relaying: Mutex<Option<RequestId>>,
}

fn result_message(id: &RequestId, result: Value) -> Message {
    Message::Response(Response {
        id: id.clone(),
        result: RawJson::from_value(&result),
    })
}

fn notification(method: &str, params: Value) -> Message {
    Message::Notification(mcpdisco_protocol::Notification {
        method: method.into(),
        params: Some(params),
    })
}

/// A legacy server with tools `slow` (progress, then waits to be
/// cancelled) and `ask` (asks the client to sample, then cancels that).
async fn scripted(end: MemoryTransport, seen: Arc<Seen>) {
    let end = Arc::new(end);
    loop {
        let message = tokio::select! {
            received = end.receive() => match received {
                Ok(Some(Inbound::Message(message))) => message,
                _ => return,
            },
            () = seen.list_changed.notified() => {
                let _ = end.send(notification("notifications/tools/list_changed", json!({}))).await;
                continue;
            }
        };
        let request = match message {
            Message::Request(request) => request,
            Message::Notification(n) if n.method == "notifications/cancelled" => {
                let id = n.params.and_then(|p| p.get("requestId").cloned());
                seen.cancelled.lock().push(id.unwrap_or(Value::Null));
                continue;
            }
            Message::Response(Response { result, .. }) => {
                let answer = result.to_value().unwrap_or(Value::Null);
                let relaying = seen.relaying.lock().take();
                if let Some(call) = relaying {
                    let text = answer["content"]["text"].clone();
                    let reply = json!({"content": [{"type": "text", "text": text}]});
                    let _ = end.send(result_message(&call, reply)).await;
                }
                seen.answers.lock().push(answer);
                continue;
            }
            Message::Error(error) => {
                seen.answers
                    .lock()
                    .push(json!({"error": error.error.code.0}));
                continue;
            }
            Message::Notification(_) => continue,
        };
        let params = request
            .params
            .as_ref()
            .map_or(Value::Null, |p| p.to_value().unwrap());
        let reply = match request.method.as_str() {
            "initialize" => result_message(
                &request.id,
                json!({"protocolVersion": "2025-11-25",
                       "capabilities": {"tools": {"listChanged": true}},
                       "serverInfo": {"name": "scripted", "version": "1"}}),
            ),
            "ping" => result_message(&request.id, json!({})),
            "tools/list" => {
                let mut names = vec!["slow".to_owned(), "ask".to_owned()];
                names.extend(seen.extra_tool.lock().clone());
                names.push("relay".to_owned());
                let tools: Vec<Value> = names
                    .iter()
                    .map(|name| json!({"name": name, "inputSchema": {"type": "object"}}))
                    .collect();
                result_message(&request.id, json!({ "tools": tools }))
            }
            "tools/call" if params["name"] == "slow" => {
                let token = params["_meta"]["progressToken"].clone();
                for step in 1..=2 {
                    let progress = json!({"progressToken": token, "progress": step, "total": 10});
                    let _ = end
                        .send(notification("notifications/progress", progress))
                        .await;
                }
                // Never answers: the client cancels.
                continue;
            }
            "tools/call" if params["name"] == "relay" => {
                // Asks the client to sample, and answers with what it said.
                *seen.relaying.lock() = Some(request.id.clone());
                let question = Message::Request(mcpdisco_protocol::Request {
                    id: RequestId::from(901),
                    method: "sampling/createMessage".into(),
                    params: Some(json!({"messages": [], "maxTokens": 5}).into()),
                });
                let _ = end.send(question).await;
                continue;
            }
            "tools/call" if params["name"] == "ask" => {
                let question = Message::Request(mcpdisco_protocol::Request {
                    id: RequestId::from(900),
                    method: "sampling/createMessage".into(),
                    params: Some(json!({"messages": [], "maxTokens": 5}).into()),
                });
                let _ = end.send(question).await;
                tokio::time::sleep(Duration::from_secs(1)).await;
                let cancel = json!({"requestId": 900, "reason": "changed my mind"});
                let _ = end
                    .send(notification("notifications/cancelled", cancel))
                    .await;
                result_message(
                    &request.id,
                    json!({"content": [{"type": "text", "text": "asked, then cancelled"}]}),
                )
            }
            other => Message::Error(ErrorResponse {
                id: Some(request.id.clone()),
                error: ErrorObject::new(ErrorCode::METHOD_NOT_FOUND, other),
            }),
        };
        if end.send(reply).await.is_err() {
            return;
        }
    }
}

/// A gateway over the scripted server, and a client connection to it.
fn gateway(seen: &Arc<Seen>) -> (Gateway, MemoryTransport) {
    gateway_with(seen, GatewayOptions::default())
}

/// [`gateway`] with `options`.
fn gateway_with(seen: &Arc<Seen>, options: GatewayOptions) -> (Gateway, MemoryTransport) {
    let script = Arc::clone(seen);
    let gateway = scripted_gateway("s", move |end| scripted(end, Arc::clone(&script)), options);
    let (client, served) = MemoryTransport::pair();
    let serving = gateway.clone();
    tokio::spawn(async move { serving.serve(served).await });
    (gateway, client)
}

/// A gateway with `options` whose one server, `name`, is `script` on an
/// in-memory connection (run anew at each start), spoken to in the legacy era.
fn scripted_gateway<F>(
    name: &str,
    script: impl Fn(MemoryTransport) -> F + Send + Sync + 'static,
    options: GatewayOptions,
) -> Gateway
where
    F: Future<Output = ()> + Send + 'static,
{
    scripted_gateway_in(EraPreference::Legacy, name, script, options)
}

/// [`scripted_gateway`], its server spoken to in `era`.
fn scripted_gateway_in<F>(
    era: EraPreference,
    name: &str,
    script: impl Fn(MemoryTransport) -> F + Send + Sync + 'static,
    options: GatewayOptions,
) -> Gateway
where
    F: Future<Output = ()> + Send + 'static,
{
    let connectors = Connectors::builtin().with(
        "scripted",
        Arc::new(MemoryConnector::new(move |_| {
            let (client, server) = MemoryTransport::pair();
            tokio::spawn(script(server));
            Ok(client)
        })),
    );
    let server = ServerConfig::new(
        name,
        Launch::Custom {
            transport: "scripted".into(),
            settings: serde_json::Map::new(),
        },
    );
    let supervisor = SupervisorOptions {
        connectors,
        session: SessionOptions::default().era(era),
        ..SupervisorOptions::default()
    };
    Gateway::new(vec![server], supervisor, options)
}

async fn send(client: &MemoryTransport, message: Value) {
    client
        .send(Message::from_value(message).unwrap())
        .await
        .unwrap();
}

/// The next message from the gateway that `want` accepts (others are skipped).
async fn next(client: &MemoryTransport, want: impl Fn(&Value) -> bool) -> Value {
    loop {
        let message = tokio::time::timeout(Duration::from_secs(60), client.receive())
            .await
            .expect("the gateway said something")
            .unwrap()
            .and_then(Inbound::into_message)
            .expect("the connection is open");
        let value = message.to_value();
        if want(&value) {
            return value;
        }
    }
}

/// Waits until the server heard a cancel (at most 100 steps of 10 ms, on
/// the paused clock).
async fn until_cancelled(seen: &Seen) {
    for _ in 0..100 {
        if !seen.cancelled.lock().is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

async fn initialize(client: &MemoryTransport, capabilities: Value) {
    send(
        client,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": capabilities,
            "clientInfo": {"name": "test", "version": "1"}}}),
    )
    .await;
    next(client, |m| m["id"] == 1).await;
    send(
        client,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn progress_comes_back_and_a_cancel_reaches_the_server() {
    let seen = Arc::new(Seen::default());
    let (gateway, client) = gateway(&seen);
    initialize(&client, json!({})).await;
    send(
        &client,
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
               "params": {"name": "s__slow", "arguments": {}, "_meta": {"progressToken": "tok-7"}}}),
    )
    .await;
    for step in 1..=2 {
        let progress = next(&client, |m| m["method"] == "notifications/progress").await;
        assert_eq!(progress["params"]["progressToken"], "tok-7");
        assert_eq!(
            progress["params"]["progress"].as_f64(),
            Some(f64::from(step))
        );
        assert_eq!(progress["params"]["total"].as_f64(), Some(10.0));
    }
    send(
        &client,
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
               "params": {"requestId": 7, "reason": "user"}}),
    )
    .await;
    // The server hears of it (about its own id for the call).
    until_cancelled(&seen).await;
    assert_eq!(seen.cancelled.lock().len(), 1);
    // And no answer goes out for the cancelled request.
    send(
        &client,
        json!({"jsonrpc": "2.0", "id": 8, "method": "ping"}),
    )
    .await;
    let answer = next(&client, |m| m.get("id").is_some()).await;
    assert_eq!(answer["id"], 8);
    gateway.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn a_servers_question_goes_to_the_client_and_its_cancel_too() {
    let seen = Arc::new(Seen::default());
    let (gateway, client) = gateway(&seen);
    initialize(&client, json!({"sampling": {}})).await;
    send(
        &client,
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
               "params": {"name": "s__ask", "arguments": {}}}),
    )
    .await;
    let question = next(&client, |m| m["method"] == "sampling/createMessage").await;
    assert_eq!(question["params"]["maxTokens"], 5);
    // The cancel and the call's answer, in either order.
    let (mut cancelled, mut answer) = (None, None);
    while cancelled.is_none() || answer.is_none() {
        let message = next(&client, |m| {
            m["method"] == "notifications/cancelled" || m["id"] == 3
        })
        .await;
        if message["id"] == 3 {
            answer = Some(message);
        } else {
            cancelled = Some(message);
        }
    }
    let (cancelled, answer) = (cancelled.unwrap(), answer.unwrap());
    assert_eq!(cancelled["params"]["requestId"], question["id"]);
    assert_eq!(
        answer["result"]["content"][0]["text"],
        "asked, then cancelled"
    );
    // Answering after the cancel changes nothing, and the server got no answer.
    send(
        &client,
        json!({"jsonrpc": "2.0", "id": question["id"], "result": {"role": "assistant",
               "content": {"type": "text", "text": "late"}, "model": "m"}}),
    )
    .await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert!(seen.answers.lock().is_empty(), "{:?}", seen.answers.lock());
    gateway.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn a_client_without_the_capability_gets_the_question_refused() {
    let seen = Arc::new(Seen::default());
    let (gateway, client) = gateway(&seen);
    initialize(&client, json!({})).await;
    send(
        &client,
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
               "params": {"name": "s__ask", "arguments": {}}}),
    )
    .await;
    let answer = next(&client, |m| m["id"] == 3).await;
    assert!(answer.get("result").is_some(), "{answer}");
    assert_eq!(*seen.answers.lock(), [json!({"error": -32601})]);
    gateway.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn modern_subscribers_and_legacy_clients_hear_of_list_changes() {
    let seen = Arc::new(Seen::default());
    let (gateway, legacy) = gateway(&seen);
    initialize(&legacy, json!({})).await;
    // The first list waits for the server's start.
    send(
        &legacy,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    )
    .await;
    let tools = next(&legacy, |m| m["id"] == 2).await;
    assert_eq!(tools["result"]["tools"][0]["name"], "s__slow");

    let (modern, served) = MemoryTransport::pair();
    let serving = gateway.clone();
    tokio::spawn(async move { serving.serve(served).await });
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {}});
    send(
        &modern,
        json!({"jsonrpc": "2.0", "id": "listen-1", "method": "subscriptions/listen",
               "params": {"notifications": {"toolsListChanged": true, "promptsListChanged": false},
                          "_meta": meta}}),
    )
    .await;
    let ack = next(&modern, |m| {
        m["method"] == "notifications/subscriptions/acknowledged"
    })
    .await;
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "listen-1"
    );
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true})
    );

    *seen.extra_tool.lock() = Some("fresh".into());
    seen.list_changed.notify_one();
    let changed = next(&modern, |m| {
        m["method"] == "notifications/tools/list_changed"
    })
    .await;
    assert_eq!(
        changed["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "listen-1"
    );
    // The legacy client hears of it too, and lists the new tool.
    next(&legacy, |m| {
        m["method"] == "notifications/tools/list_changed"
    })
    .await;
    send(
        &legacy,
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list"}),
    )
    .await;
    let tools = next(&legacy, |m| m["id"] == 4).await;
    assert_eq!(tools["result"]["tools"][2]["name"], "s__fresh");
    gateway.shutdown().await;
}

/// The `_meta` of a modern request from a client that declared `capabilities`.
fn modern_meta(capabilities: Value) -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
           "io.modelcontextprotocol/clientCapabilities": capabilities})
}

#[tokio::test(start_paused = true)]
async fn a_modern_request_gets_the_servers_question_as_input_required_and_its_retry_the_result() {
    let seen = Arc::new(Seen::default());
    let (gateway, client) = gateway(&seen);
    let call = json!({"name": "s__relay", "arguments": {},
                      "_meta": modern_meta(json!({"sampling": {}}))});
    send(
        &client,
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call}),
    )
    .await;
    let first = next(&client, |m| m["id"] == 1).await;
    let asked = &first["result"];
    assert_eq!(asked["resultType"], "input_required", "{first}");
    let question = &asked["inputRequests"]["input-0"];
    assert_eq!(question["method"], "sampling/createMessage");
    assert_eq!(question["params"]["maxTokens"], 5);
    let mut retry = call.clone();
    retry["requestState"] = asked["requestState"].clone();
    retry["inputResponses"] = json!({"input-0": {"role": "assistant",
        "content": {"type": "text", "text": "sampled"}, "model": "m"}});
    send(
        &client,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": retry}),
    )
    .await;
    let done = next(&client, |m| m["id"] == 2).await;
    let result = &done["result"];
    assert_eq!(result["content"][0]["text"], "sampled", "{done}");
    assert_eq!(result["resultType"], "complete");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "mcp-discovery-gateway"
    );
    // The server got the client's answer, typed through the gateway.
    assert_eq!(seen.answers.lock()[0]["model"], "m");
    // A state is used once.
    send(
        &client,
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": retry}),
    )
    .await;
    let again = next(&client, |m| m["id"] == 3).await;
    assert_eq!(again["error"]["code"], -32602, "{again}");
    gateway.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn modern_lists_are_paged_complete_and_private_and_faults_are_named() {
    let seen = Arc::new(Seen::default());
    let (gateway, client) = gateway(&seen);
    let meta = modern_meta(json!({}));
    send(
        &client,
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}}),
    )
    .await;
    let tools = next(&client, |m| m["id"] == 1).await;
    let page = &tools["result"];
    assert_eq!(page["tools"][1]["name"], "s__ask", "{tools}");
    assert_eq!(
        (&page["resultType"], &page["ttlMs"], &page["cacheScope"]),
        (&json!("complete"), &json!(0), &json!("private"))
    );
    send(
        &client,
        json!({"jsonrpc": "2.0", "id": 2, "method": "server/discover", "params": {"_meta": meta}}),
    )
    .await;
    let discover = next(&client, |m| m["id"] == 2).await;
    assert_eq!(
        discover["result"]["supportedVersions"],
        json!(["2026-07-28"])
    );
    assert_eq!(
        discover["result"]["capabilities"]["tools"]["listChanged"],
        true
    );
    for (id, method, params, code) in [
        (
            3,
            "resources/subscribe",
            json!({"uri": "x", "_meta": meta}),
            -32601,
        ),
        (4, "tools/call", json!({"name": 5, "_meta": meta}), -32602),
        (
            5,
            "subscriptions/listen",
            json!({"notifications": {}}),
            -32601,
        ),
        (
            6,
            "tools/list",
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2099-01-01"}}),
            -32022,
        ),
        (7, "completion/complete", json!({"_meta": meta}), -32602),
        (
            8,
            "logging/setLevel",
            json!({"level": "info", "_meta": meta}),
            -32601,
        ),
    ] {
        send(
            &client,
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
        )
        .await;
        let answer = next(&client, |m| m["id"] == id).await;
        assert_eq!(answer["error"]["code"], code, "{answer}");
    }
    gateway.shutdown().await;
}
