use mcpdisco_protocol::methods::{CallTool, Cancelled, ListTools, Ping};
use mcpdisco_protocol::types::{
    Answer, CallToolParams, CallToolResult, CancelledParams, ContentBlock, EmptyResult,
    InputRequest, InputRequiredResult, ItemList, ListToolsResult, MetaParams, PaginatedParams,
    Tool,
};
use mcpdisco_protocol::{ErrorCode, ErrorObject, RawJson};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::{Reply, Router};

/// What a test handler is given: a name, and where notifications are reported.
#[derive(Clone)]
struct Context {
    name: &'static str,
    seen: mpsc::UnboundedSender<String>,
}

fn context() -> (Context, mpsc::UnboundedReceiver<String>) {
    let (seen, receiver) = mpsc::unbounded_channel();
    (Context { name: "ctx", seen }, receiver)
}

async fn ping(_: MetaParams, _: Context) -> Result<EmptyResult, ErrorObject> {
    Ok(EmptyResult::default())
}

async fn list_tools(
    params: PaginatedParams,
    context: Context,
) -> Result<ListToolsResult, ErrorObject> {
    let tools = ItemList::encode([Tool::new(context.name, RawJson::empty_object())])
        .map_err(|e| ErrorObject::new(ErrorCode::INTERNAL_ERROR, e.to_string()))?;
    mcpdisco_protocol::server::list_page(&tools, params.cursor.as_deref(), Some(1))
}

/// Echoes its arguments' text; a tool called `ask` asks for input first; `fail` fails.
async fn call_tool(
    params: CallToolParams,
    _: Context,
) -> Result<Answer<CallToolResult>, ErrorObject> {
    match params.name.as_str() {
        "ask" => {
            let question = InputRequest::of::<Ping>(&MetaParams::default())
                .map_err(|e| ErrorObject::new(ErrorCode::INTERNAL_ERROR, e.to_string()))?;
            let input = InputRequiredResult::new([("q".to_owned(), question)], "state");
            Ok(Answer::input_required(input))
        }
        "fail" => Err(ErrorObject::new(ErrorCode(-32000), "it failed")),
        _ => {
            let text = params
                .arguments
                .map_or(Value::Null, Value::Object)
                .to_string();
            Ok(CallToolResult::new(vec![ContentBlock::text(text)]).into())
        }
    }
}

async fn cancelled(params: CancelledParams, context: Context) {
    let id = params
        .request_id
        .map(|id| id.to_string())
        .unwrap_or_default();
    let _ = context.seen.send(format!("cancelled {id}"));
}

fn router() -> Router<Context> {
    Router::new()
        .on::<Ping>(ping)
        .on::<ListTools>(list_tools)
        .on::<CallTool>(call_tool)
        .on_notification::<Cancelled>(cancelled)
}

#[tokio::test]
async fn typed_handlers_get_decoded_params_and_their_results_are_encoded() {
    let (context, _) = context();
    let router = router();
    assert_eq!(
        router.request("ping", None, context.clone()).await.unwrap(),
        json!({})
    );
    let first = router
        .request("tools/list", Some(json!({}).into()), context.clone())
        .await
        .unwrap();
    assert_eq!(
        first,
        json!({"tools": [{"name": "ctx", "inputSchema": {}}]})
    );
    let echoed = router
        .request(
            "tools/call",
            Some(json!({"name": "echo", "arguments": {"a": 1}}).into()),
            context.clone(),
        )
        .await
        .unwrap();
    assert_eq!(
        echoed,
        json!({"content": [{"type": "text", "text": "{\"a\":1}"}]})
    );
    let asked = router
        .request(
            "tools/call",
            Some(json!({"name": "ask"}).into()),
            context.clone(),
        )
        .await
        .unwrap();
    assert_eq!(
        asked,
        json!({"resultType": "input_required",
               "inputRequests": {"q": {"method": "ping", "params": {}}},
               "requestState": "state"})
    );
    let failed = router
        .request("tools/call", Some(json!({"name": "fail"}).into()), context)
        .await
        .unwrap_err();
    assert_eq!(
        (failed.code, failed.message.as_str()),
        (ErrorCode(-32000), "it failed")
    );
}

#[tokio::test]
async fn absent_or_null_params_read_as_an_empty_object() {
    let (context, _) = context();
    let router = router();
    for params in [None, Some(RawJson::null())] {
        let page = router
            .request("tools/list", params, context.clone())
            .await
            .unwrap();
        assert_eq!(page["tools"][0]["name"], "ctx");
    }
}

#[tokio::test]
async fn malformed_params_are_invalid_params_naming_the_fault() {
    let (context, _) = context();
    let router = router();
    let missing = router
        .request(
            "tools/call",
            Some(json!({"arguments": {}}).into()),
            context.clone(),
        )
        .await
        .unwrap_err();
    assert_eq!(missing.code, ErrorCode::INVALID_PARAMS);
    assert!(
        missing.message.starts_with("tools/call: invalid params")
            && missing.message.contains("missing field `name`"),
        "{}",
        missing.message
    );
    let wrong = router
        .request(
            "tools/list",
            Some(json!({"cursor": 3}).into()),
            context.clone(),
        )
        .await
        .unwrap_err();
    assert_eq!(wrong.code, ErrorCode::INVALID_PARAMS);
    assert!(
        wrong.message.contains("invalid type: integer `3`"),
        "{}",
        wrong.message
    );
    let bad_cursor = router
        .request(
            "tools/list",
            Some(json!({"cursor": "nowhere"}).into()),
            context,
        )
        .await
        .unwrap_err();
    assert_eq!(bad_cursor.code, ErrorCode::INVALID_PARAMS);
}

#[tokio::test]
async fn a_method_without_a_handler_is_method_not_found() {
    let (context, _) = context();
    let router = router();
    assert!(router.handles("tools/call") && !router.handles("prompts/get"));
    let unknown = router
        .request("prompts/get", Some(json!({"name": "x"}).into()), context)
        .await
        .unwrap_err();
    assert_eq!(unknown, ErrorObject::method_not_found("prompts/get"));
    assert_eq!(
        format!("{router:?}"),
        r#"Router { requests: ["ping", "tools/call", "tools/list"], notifications: ["notifications/cancelled"] }"#
    );
}

#[tokio::test]
async fn notifications_reach_their_typed_handler_and_others_are_reported() {
    let (context, mut seen) = context();
    let router = router();
    router
        .notification(
            "notifications/cancelled",
            Some(json!({"requestId": 7, "reason": "user"})),
            context.clone(),
        )
        .await
        .unwrap();
    assert_eq!(seen.recv().await.unwrap(), "cancelled 7");
    let unknown = router
        .notification("notifications/progress", None, context.clone())
        .await
        .unwrap_err();
    assert_eq!(unknown.code, ErrorCode::METHOD_NOT_FOUND);
    let malformed = router
        .notification(
            "notifications/cancelled",
            Some(json!({"requestId": [1]})),
            context,
        )
        .await
        .unwrap_err();
    assert_eq!(malformed.code, ErrorCode::INVALID_PARAMS);
    assert!(seen.try_recv().is_err(), "the handler did not run");
}

#[tokio::test]
async fn a_request_future_owns_what_it_needs_and_can_be_spawned() {
    let (context, _) = context();
    let answer = {
        let router = router();
        tokio::spawn(router.request("ping", None, context))
    };
    assert_eq!(answer.await.unwrap().unwrap(), json!({}));
}

/// A relay's `tools/call`: a tool called `typed` answers typed, any other
/// with the text it names in `arguments.text`, as that text.
async fn relay_call(
    params: CallToolParams,
    _: Context,
) -> Result<Reply<CallToolResult>, ErrorObject> {
    if params.name == "typed" {
        let result = CallToolResult::new(vec![ContentBlock::text("t")]);
        return Ok(Reply::Typed(Answer::Complete(result)));
    }
    let text = params
        .arguments
        .as_ref()
        .and_then(|arguments| arguments.get("text"))
        .and_then(Value::as_str)
        .unwrap_or("{}")
        .to_owned();
    RawJson::parse(text)
        .map(Reply::Encoded)
        .map_err(|e| ErrorObject::new(ErrorCode::INTERNAL_ERROR, e.to_string()))
}

#[tokio::test]
async fn a_reply_handler_s_encoded_result_is_sent_as_its_text_and_a_typed_one_is_encoded() {
    let (context, _) = context();
    let router = Router::new().on_reply::<CallTool>(relay_call);
    let sent = r#"{ "content" : [ {"type":"text","text":"a\/b"} ] , "x": [1, 2] }"#;
    let passed = router
        .answer(
            "tools/call",
            Some(json!({"name": "relayed", "arguments": {"text": sent}}).into()),
            context.clone(),
        )
        .await
        .unwrap();
    assert_eq!(passed.as_str(), sent);
    let typed = router
        .answer(
            "tools/call",
            Some(json!({"name": "typed"}).into()),
            context.clone(),
        )
        .await
        .unwrap();
    assert_eq!(
        typed.as_str(),
        r#"{"content":[{"type":"text","text":"t"}]}"#
    );
    let malformed = router
        .answer("tools/call", Some(json!({"arguments": {}}).into()), context)
        .await
        .unwrap_err();
    assert_eq!(malformed.code, ErrorCode::INVALID_PARAMS);
}
