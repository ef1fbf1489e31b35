//! The test catalog over an in-memory connection: requests to the client
//! answered while a call waits, list changes reaching a modern listener,
//! and the methods the modern era removed.

use std::time::Duration;

use mcpdisco_protocol::meta::{CLIENT_CAPABILITIES_KEY, PROTOCOL_VERSION_KEY, SUBSCRIPTION_ID_KEY};
use mcpdisco_protocol::{ErrorCode, Message, RawJson, Response};
use mcpdisco_transport::{Inbound, MemoryTransport, Transport};
use serde_json::{Value, json};

use crate::{Server, ServerOptions, serve_transport};

fn conformance_server() -> Server {
    Server::new(ServerOptions {
        conformance: true,
        ..ServerOptions::default()
    })
}

/// A client end connected to `server`.
fn connect(server: &Server) -> MemoryTransport {
    let (client, served) = MemoryTransport::pair();
    tokio::spawn(serve_transport(server.clone(), served));
    client
}

async fn send(client: &MemoryTransport, message: Value) {
    client
        .send(Message::from_value(message).unwrap())
        .await
        .unwrap();
}

/// The next message from the server, as a value (bounded wait).
async fn next(client: &MemoryTransport) -> Value {
    let message = tokio::time::timeout(Duration::from_secs(10), client.receive())
        .await
        .expect("the server answered in time")
        .unwrap()
        .and_then(Inbound::into_message)
        .expect("the connection is open");
    message.to_value()
}

fn modern_meta() -> Value {
    json!({PROTOCOL_VERSION_KEY: "2026-07-28", CLIENT_CAPABILITIES_KEY: {}})
}

#[tokio::test]
async fn a_legacy_call_waits_for_the_clients_sampling_answer() {
    let client = connect(&conformance_server());
    send(
        &client,
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "test_sampling", "arguments": {"prompt": "Say hi"}}}),
    )
    .await;
    let question = next(&client).await;
    assert_eq!(question["method"], "sampling/createMessage");
    assert_eq!(
        question["params"]["messages"][0]["content"]["text"],
        "Say hi"
    );
    let answer = Message::Response(Response {
        id: mcpdisco_protocol::RequestId::from_value(&question["id"]).unwrap(),
        result: RawJson::from_value(&json!({
            "role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"
        })),
    });
    client.send(answer).await.unwrap();
    let result = next(&client).await;
    assert_eq!(result["id"], 1);
    assert_eq!(result["result"]["content"][0]["text"], "LLM response: hi");
}

#[tokio::test]
async fn list_changes_reach_the_listeners_that_asked_for_them() {
    let server = conformance_server();
    let listener = connect(&server);
    send(
        &listener,
        json!({"jsonrpc": "2.0", "id": "listen-1", "method": "subscriptions/listen",
               "params": {"notifications": {"toolsListChanged": true}, "_meta": modern_meta()}}),
    )
    .await;
    let ack = next(&listener).await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(ack["params"]["_meta"][SUBSCRIPTION_ID_KEY], "listen-1");
    let caller = connect(&server);
    for (id, tool) in [
        (2, "test_trigger_prompt_change"),
        (3, "test_trigger_tool_change"),
    ] {
        send(
            &caller,
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                   "params": {"name": tool, "arguments": {}, "_meta": modern_meta()}}),
        )
        .await;
        assert_eq!(next(&caller).await["result"]["resultType"], "complete");
    }
    // The prompt change was filtered out: the first notification is the tools'.
    let changed = next(&listener).await;
    assert_eq!(changed["method"], "notifications/tools/list_changed");
    assert_eq!(changed["params"]["_meta"][SUBSCRIPTION_ID_KEY], "listen-1");
}

#[tokio::test]
async fn modern_requests_for_removed_methods_are_not_found_but_legacy_ones_work() {
    let client = connect(&conformance_server());
    send(
        &client,
        json!({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"_meta": modern_meta()}}),
    )
    .await;
    let modern = next(&client).await;
    assert_eq!(modern["error"]["code"], ErrorCode::METHOD_NOT_FOUND.0);
    send(
        &client,
        json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}),
    )
    .await;
    assert_eq!(next(&client).await["result"], json!({}));
}

#[tokio::test]
async fn undeclared_capabilities_and_changed_states_are_refused() {
    let client = connect(&conformance_server());
    send(
        &client,
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "test_missing_capability", "arguments": {}, "_meta": modern_meta()}}),
    )
    .await;
    let refused = next(&client).await;
    assert_eq!(
        refused["error"]["code"],
        ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY.0
    );
    assert_eq!(
        refused["error"]["data"]["requiredCapabilities"]["sampling"],
        json!({})
    );
    let call = |id: i64, extra: Value| {
        let mut params = json!({"name": "test_input_required_result_tampered_state",
                                "arguments": {}, "_meta": modern_meta()});
        params
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
    };
    send(&client, call(2, json!({}))).await;
    let asked = next(&client).await;
    assert_eq!(asked["result"]["resultType"], "input_required");
    let state = asked["result"]["requestState"].as_str().unwrap().to_owned();
    let confirm = json!({"confirm": {"action": "accept", "content": {"ok": true}}});
    send(
        &client,
        call(
            3,
            json!({"inputResponses": confirm, "requestState": format!("{state}x")}),
        ),
    )
    .await;
    assert_eq!(
        next(&client).await["error"]["code"],
        ErrorCode::INVALID_PARAMS.0
    );
    send(
        &client,
        call(4, json!({"inputResponses": confirm, "requestState": state})),
    )
    .await;
    let done = next(&client).await;
    assert!(
        done["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("state-ok")
    );
}

/// The `_meta` of a modern request whose client declares the tasks extension.
fn tasks_meta() -> Value {
    json!({PROTOCOL_VERSION_KEY: "2026-07-28",
           CLIENT_CAPABILITIES_KEY: {"extensions": {"io.modelcontextprotocol/tasks": {}}}})
}

/// Sends request `id` and waits for its answer.
async fn ask(client: &MemoryTransport, id: u64, method: &str, params: Value) -> Value {
    send(
        client,
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
    )
    .await;
    next(client).await
}

#[tokio::test]
async fn a_task_is_created_followed_and_cancelled_once_for_all() {
    let client = connect(&conformance_server());
    let created = ask(
        &client,
        1,
        "tools/call",
        json!({"name": "slow_compute", "arguments": {"seconds": 60}, "_meta": tasks_meta()}),
    )
    .await;
    let task = &created["result"];
    assert_eq!(task["resultType"], "task");
    assert_eq!(task["status"], "working");
    assert!(
        task["ttlMs"].as_u64().is_some() && task.get("result").is_none(),
        "{task}"
    );
    let id = task["taskId"].clone();
    let get = json!({"taskId": id, "_meta": tasks_meta()});
    let working = ask(&client, 2, "tasks/get", get.clone()).await;
    assert_eq!(working["result"]["status"], "working");
    assert_eq!(working["result"]["resultType"], "complete");
    for request in [3, 4] {
        let ack = ask(&client, request, "tasks/cancel", get.clone()).await;
        assert!(ack["result"].get("taskId").is_none(), "{ack}");
        assert_eq!(ack["result"]["resultType"], "complete");
    }
    let cancelled = ask(&client, 5, "tasks/get", get).await;
    assert_eq!(cancelled["result"]["status"], "cancelled");
    let unknown = ask(
        &client,
        6,
        "tasks/get",
        json!({"taskId": "nope", "_meta": tasks_meta()}),
    )
    .await;
    assert_eq!(unknown["error"]["code"], ErrorCode::INVALID_PARAMS.0);
}

#[tokio::test]
async fn a_task_asks_its_questions_and_ends_when_they_are_answered() {
    let client = connect(&conformance_server());
    let created = ask(&client, 1, "tools/call",
        json!({"name": "confirm_delete", "arguments": {"filename": "a.txt"}, "_meta": tasks_meta()})).await;
    let get = json!({"taskId": created["result"]["taskId"], "_meta": tasks_meta()});
    let asking = ask(&client, 2, "tasks/get", get.clone()).await;
    assert_eq!(asking["result"]["status"], "input_required");
    assert_eq!(
        asking["result"]["inputRequests"]["confirm"]["method"],
        "elicitation/create"
    );
    let mut update = get.clone();
    update["inputResponses"] =
        json!({"confirm": {"action": "accept", "content": {"confirm": true}}});
    let ack = ask(&client, 3, "tasks/update", update).await;
    assert_eq!(ack["result"]["resultType"], "complete");
    let done = ask(&client, 4, "tasks/get", get).await;
    assert_eq!(done["result"]["status"], "completed");
    assert_eq!(
        done["result"]["result"]["content"][0]["text"],
        "Deleted a.txt."
    );
}

#[tokio::test]
async fn a_client_without_the_extension_gets_no_task() {
    let client = connect(&conformance_server());
    let get = ask(
        &client,
        1,
        "tasks/get",
        json!({"taskId": "t", "_meta": modern_meta()}),
    )
    .await;
    assert_eq!(
        get["error"]["code"],
        ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY.0
    );
    let required = ask(
        &client,
        2,
        "tools/call",
        json!({"name": "failing_job", "arguments": {}, "_meta": modern_meta()}),
    )
    .await;
    assert_eq!(
        required["error"]["code"],
        ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY.0
    );
    let extensions = &required["error"]["data"]["requiredCapabilities"]["extensions"];
    assert!(
        extensions.get("io.modelcontextprotocol/tasks").is_some(),
        "{required}"
    );
    let at_once = ask(
        &client,
        3,
        "tools/call",
        json!({"name": "slow_compute", "arguments": {"seconds": 0}, "_meta": modern_meta()}),
    )
    .await;
    assert_eq!(at_once["result"]["resultType"], "complete");
    assert!(at_once["result"].get("taskId").is_none(), "{at_once}");
}

#[tokio::test]
async fn a_listener_hears_the_status_changes_of_the_tasks_it_named_and_no_others() {
    let server = conformance_server();
    let client = connect(&server);
    let named = ask(&client, 1, "tools/call",
        json!({"name": "confirm_delete", "arguments": {"filename": "b.txt"}, "_meta": tasks_meta()})).await;
    let named_id = named["result"]["taskId"].clone();
    let other = ask(
        &client,
        2,
        "tools/call",
        json!({"name": "slow_compute", "arguments": {"seconds": 60}, "_meta": tasks_meta()}),
    )
    .await;
    let other_id = other["result"]["taskId"].clone();
    let listener = connect(&server);
    send(
        &listener,
        json!({"jsonrpc": "2.0", "id": "listen-tasks", "method": "subscriptions/listen",
               "params": {"notifications": {"taskIds": [named_id]}, "_meta": tasks_meta()}}),
    )
    .await;
    let ack = next(&listener).await;
    assert_eq!(ack["params"]["notifications"]["taskIds"], json!([named_id]));
    // Without the extension declared, the listen follows no task.
    let undeclared = connect(&server);
    send(
        &undeclared,
        json!({"jsonrpc": "2.0", "id": "listen-plain", "method": "subscriptions/listen",
               "params": {"notifications": {"taskIds": [named_id]}, "_meta": modern_meta()}}),
    )
    .await;
    let plain_ack = next(&undeclared).await;
    assert!(
        plain_ack["params"]["notifications"]
            .get("taskIds")
            .is_none(),
        "{plain_ack}"
    );

    let cancel = json!({"taskId": other_id, "_meta": tasks_meta()});
    ask(&client, 3, "tasks/cancel", cancel).await;
    let update = json!({"taskId": named_id, "_meta": tasks_meta(),
        "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}}});
    ask(&client, 4, "tasks/update", update).await;
    // The other task's cancellation is not this listener's: the first
    // notification is the named task working again, then its end.
    for (status, result) in [
        ("working", Value::Null),
        ("completed", json!("Deleted b.txt.")),
    ] {
        let heard = next(&listener).await;
        assert_eq!(heard["method"], "notifications/tasks", "{heard}");
        let params = &heard["params"];
        assert_eq!(params["_meta"][SUBSCRIPTION_ID_KEY], "listen-tasks");
        assert_eq!(
            (&params["taskId"], &params["status"]),
            (&named_id, &json!(status))
        );
        assert_eq!(params["result"]["content"][0]["text"], result);
    }
}
