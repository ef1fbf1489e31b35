//! Logging and resource subscriptions between two legacy clients and one
//! scripted legacy server, on tokio's paused clock: subscriptions counted
//! across clients and released by the last one (a disconnect included),
//! and renewed (with the log level) when the server restarts,
//! log messages to the caller during its call and to every client that set
//! a level otherwise, each filtered by its level.

use std::sync::Arc;
use std::time::Duration;

use mcpdisco_protocol::{ErrorCode, ErrorObject, ErrorResponse, Message};
use mcpdisco_transport::sync::Mutex;
use mcpdisco_transport::{Inbound, MemoryTransport, Transport};
use serde_json::{Value, json};

use super::super::*;
use super::{initialize, next, notification, result_message, scripted_gateway, send};

/// What the scripted server was asked, and what wakes it to speak.
#[derive(Default)]
struct Seen {
    /// Its `resources/subscribe`, `resources/unsubscribe` and
    /// `logging/setLevel` requests, as (method, uri or level).
    asked: Mutex<Vec<(String, String)>>,
    /// Wakes it to log at `error` and say `test://r` changed.
    speak: tokio::sync::Notify,
}

impl Seen {
    fn asked(&self, method: &str) -> Vec<String> {
        self.asked
            .lock()
            .iter()
            .filter(|(asked, _)| asked == method)
            .map(|(_, what)| what.clone())
            .collect()
    }
}

fn log(level: &str, text: &str) -> Message {
    notification(
        "notifications/message",
        json!({"level": level, "logger": "w", "data": text}),
    )
}

/// A legacy server with one resource (`test://r`), subscriptions, logging,
/// and a tool `log` that logs at `warning` and `debug` before it answers.
async fn scripted(end: MemoryTransport, seen: Arc<Seen>) {
    let end = Arc::new(end);
    loop {
        let message = tokio::select! {
            received = end.receive() => match received {
                Ok(Some(Inbound::Message(message))) => message,
                _ => return,
            },
            () = seen.speak.notified() => {
                let _ = end.send(log("error", "outside")).await;
                let updated = json!({"uri": "test://r"});
                let _ = end.send(notification("notifications/resources/updated", updated)).await;
                continue;
            }
        };
        let Message::Request(request) = message else {
            continue;
        };
        let params = request
            .params
            .as_ref()
            .map_or(Value::Null, |p| p.to_value().unwrap());
        let result = match request.method.as_str() {
            "initialize" => json!({"protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}, "resources": {"subscribe": true}, "logging": {}},
                "serverInfo": {"name": "scripted", "version": "1"}}),
            "ping" => json!({}),
            "tools/list" => json!({"tools": [{"name": "log", "inputSchema": {"type": "object"}}]}),
            "resources/list" => json!({"resources": [{"uri": "test://r", "name": "r"}]}),
            "resources/templates/list" => json!({"resourceTemplates": []}),
            "tools/call" => {
                let _ = end.send(log("warning", "inside")).await;
                let _ = end.send(log("debug", "inside, verbose")).await;
                json!({"content": [{"type": "text", "text": "logged"}]})
            }
            method @ ("resources/subscribe" | "resources/unsubscribe" | "logging/setLevel") => {
                let what = params
                    .get("uri")
                    .or_else(|| params.get("level"))
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                seen.asked.lock().push((method.to_owned(), what.to_owned()));
                json!({})
            }
            other => {
                let refusal = Message::Error(ErrorResponse {
                    id: Some(request.id.clone()),
                    error: ErrorObject::new(ErrorCode::METHOD_NOT_FOUND, other),
                });
                let _ = end.send(refusal).await;
                continue;
            }
        };
        if end.send(result_message(&request.id, result)).await.is_err() {
            return;
        }
    }
}

/// A gateway over the scripted server, and two legacy clients of it.
async fn gateway(seen: &Arc<Seen>) -> (Gateway, MemoryTransport, MemoryTransport) {
    let script = Arc::clone(seen);
    let gateway = scripted_gateway(
        "w",
        move |end| scripted(end, Arc::clone(&script)),
        GatewayOptions::default(),
    );
    let mut clients = Vec::new();
    for _ in 0..2 {
        let (client, served) = MemoryTransport::pair();
        let serving = gateway.clone();
        tokio::spawn(async move { serving.serve(served).await });
        initialize(&client, json!({})).await;
        clients.push(client);
    }
    let second = clients.pop().unwrap();
    let first = clients.pop().unwrap();
    (gateway, first, second)
}

/// The result of request `id`, `method` with `params`, which must succeed.
async fn ask(client: &MemoryTransport, id: u64, method: &str, params: Value) -> Value {
    send(
        client,
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
    )
    .await;
    let answer = next(client, |m| m["id"] == id).await;
    assert!(answer.get("error").is_none(), "{method}: {answer}");
    answer["result"].clone()
}

/// The next message of `method` that `client` gets.
async fn next_of(client: &MemoryTransport, method: &str) -> Value {
    next(client, |m| m["method"] == method).await
}

/// Waits (on the paused clock) until `done` holds, at most 100 steps of 10 ms.
async fn until(done: impl Fn() -> bool) {
    for _ in 0..100 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(start_paused = true)]
async fn a_resource_is_subscribed_once_and_released_by_its_last_client_even_one_that_leaves() {
    let seen = Arc::new(Seen::default());
    let (gateway, first, second) = gateway(&seen).await;
    let declared = ask(&first, 2, "resources/list", json!({})).await;
    assert_eq!(declared["resources"][0]["uri"], "test://r");
    for client in [&first, &second] {
        let subscribed = ask(client, 3, "resources/subscribe", json!({"uri": "test://r"})).await;
        assert_eq!(subscribed, json!({}));
    }
    assert_eq!(seen.asked("resources/subscribe"), ["test://r"]);
    // A restarted server has forgotten its subscriptions: it is asked again.
    gateway.supervisor().reconnect("w").unwrap();
    until(|| seen.asked("resources/subscribe").len() == 2).await;
    assert_eq!(seen.asked("resources/subscribe"), ["test://r", "test://r"]);

    // An update reaches both subscribers.
    seen.speak.notify_one();
    for client in [&first, &second] {
        let updated = next_of(client, "notifications/resources/updated").await;
        assert_eq!(updated["params"], json!({"uri": "test://r"}));
    }

    // The first unsubscribes: the second still holds the resource.
    ask(
        &first,
        4,
        "resources/unsubscribe",
        json!({"uri": "test://r"}),
    )
    .await;
    assert!(seen.asked("resources/unsubscribe").is_empty());
    // The second leaves: nobody holds it any more.
    second.close().await.unwrap();
    drop(second);
    until(|| !seen.asked("resources/unsubscribe").is_empty()).await;
    assert_eq!(seen.asked("resources/unsubscribe"), ["test://r"]);
    // A URI nobody offers is -32602, naming it.
    send(
        &first,
        json!({"jsonrpc": "2.0", "id": 5, "method": "resources/subscribe",
               "params": {"uri": "test://nowhere"}}),
    )
    .await;
    let refused = next(&first, |m| m["id"] == 5).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("test://nowhere")
    );
    gateway.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn log_messages_go_to_the_caller_during_its_call_and_to_every_listener_otherwise() {
    let seen = Arc::new(Seen::default());
    let (gateway, first, second) = gateway(&seen).await;
    ask(&first, 2, "tools/list", json!({})).await;
    ask(&first, 3, "logging/setLevel", json!({"level": "warning"})).await;
    ask(&second, 3, "logging/setLevel", json!({"level": "debug"})).await;
    // The server is told the most verbose level any client set.
    assert_eq!(seen.asked("logging/setLevel"), ["warning", "debug"]);
    // A restarted server is told it again.
    gateway.supervisor().reconnect("w").unwrap();
    until(|| seen.asked("logging/setLevel").len() == 3).await;
    assert_eq!(
        seen.asked("logging/setLevel"),
        ["warning", "debug", "debug"]
    );

    // During the first client's call: its messages, at its level, to it only.
    ask(
        &first,
        4,
        "tools/call",
        json!({"name": "w__log", "arguments": {}}),
    )
    .await;
    // Well after the call: to every client that set a level.
    tokio::time::sleep(Duration::from_secs(5)).await;
    seen.speak.notify_one();
    let mut heard = Vec::new();
    for client in [&first, &second] {
        let mut texts = Vec::new();
        while texts.last().map(String::as_str) != Some("outside") {
            let message = next_of(client, "notifications/message").await;
            assert_eq!(message["params"]["logger"], "w", "{message}");
            texts.push(message["params"]["data"].as_str().unwrap().to_owned());
        }
        heard.push(texts);
    }
    assert_eq!(heard, [vec!["inside", "outside"], vec!["outside"]]);

    // A level the gateway does not know is refused.
    send(
        &first,
        json!({"jsonrpc": "2.0", "id": 5, "method": "logging/setLevel",
               "params": {"level": "chatty"}}),
    )
    .await;
    let refused = next(&first, |m| m["id"] == 5).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    gateway.shutdown().await;
}
