//! Tool search: the two tools listed, the index following list changes,
//! and `call_tool` behaving as a direct call (progress, cancel, the
//! server's questions, the unknown-name error).

use super::*;

fn searching(seen: &Arc<Seen>) -> (Gateway, MemoryTransport) {
    gateway_with(
        seen,
        GatewayOptions {
            tool_search: true,
            ..GatewayOptions::default()
        },
    )
}

/// The names `search_tools` answers for `query`, checking that its text
/// says the same as its structured content.
async fn search(client: &MemoryTransport, id: i64, query: &str) -> Vec<String> {
    send(
        client,
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": "search_tools", "arguments": {"query": query}}}),
    )
    .await;
    let answer = next(client, |m| m["id"] == id).await;
    let result = &answer["result"];
    let structured = &result["structuredContent"];
    let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(&text, structured, "{answer}");
    structured["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{answer}"))
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(start_paused = true)]
async fn two_tools_are_listed_and_the_index_follows_list_changes() {
    let seen = Arc::new(Seen::default());
    let (gateway, client) = searching(&seen);
    initialize(&client, json!({})).await;
    send(
        &client,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    )
    .await;
    let listed = next(&client, |m| m["id"] == 2).await;
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["search_tools", "call_tool"]);
    assert_eq!(search(&client, 3, "slow").await, ["s__slow"]);
    assert!(search(&client, 4, "fresh").await.is_empty());

    *seen.extra_tool.lock() = Some("fresh".into());
    seen.list_changed.notify_one();
    next(&client, |m| {
        m["method"] == "notifications/tools/list_changed"
    })
    .await;
    assert_eq!(search(&client, 5, "fresh").await, ["s__fresh"]);
    gateway.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn call_tool_passes_progress_back_and_a_cancel_on() {
    let seen = Arc::new(Seen::default());
    let (gateway, client) = searching(&seen);
    initialize(&client, json!({})).await;
    send(
        &client,
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
               "params": {"name": "call_tool", "arguments": {"name": "s__slow", "arguments": {}},
                          "_meta": {"progressToken": "tok-7"}}}),
    )
    .await;
    for step in 1..=2 {
        let progress = next(&client, |m| m["method"] == "notifications/progress").await;
        assert_eq!(progress["params"]["progressToken"], "tok-7");
        assert_eq!(
            progress["params"]["progress"].as_f64(),
            Some(f64::from(step))
        );
    }
    send(
        &client,
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
               "params": {"requestId": 7, "reason": "user"}}),
    )
    .await;
    until_cancelled(&seen).await;
    assert_eq!(seen.cancelled.lock().len(), 1);
    gateway.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn call_tool_relays_the_servers_question_to_the_client() {
    let seen = Arc::new(Seen::default());
    let (gateway, client) = searching(&seen);
    initialize(&client, json!({"sampling": {}})).await;
    send(
        &client,
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
               "params": {"name": "call_tool", "arguments": {"name": "s__relay"}}}),
    )
    .await;
    let question = next(&client, |m| m["method"] == "sampling/createMessage").await;
    send(
        &client,
        json!({"jsonrpc": "2.0", "id": question["id"], "result": {"role": "assistant",
               "content": {"type": "text", "text": "sampled"}, "model": "m"}}),
    )
    .await;
    let answer = next(&client, |m| m["id"] == 3).await;
    assert_eq!(
        answer["result"]["content"][0]["text"], "sampled",
        "{answer}"
    );
    gateway.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn call_tool_of_an_unknown_name_is_the_error_of_a_direct_call() {
    let seen = Arc::new(Seen::default());
    let (gateway, client) = searching(&seen);
    initialize(&client, json!({})).await;
    send(
        &client,
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "call_tool", "arguments": {"name": "nobody__nothing"}}}),
    )
    .await;
    let through = next(&client, |m| m["id"] == 1).await;
    send(
        &client,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": "nobody__nothing", "arguments": {}}}),
    )
    .await;
    let direct = next(&client, |m| m["id"] == 2).await;
    assert_eq!(through["error"]["code"], -32602, "{through}");
    assert_eq!(through["error"], direct["error"]);
    // A query without a single word is invalid params too.
    send(
        &client,
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
               "params": {"name": "search_tools", "arguments": {"query": "--"}}}),
    )
    .await;
    let empty = next(&client, |m| m["id"] == 4).await;
    assert_eq!(empty["error"]["code"], -32602, "{empty}");
    gateway.shutdown().await;
}
