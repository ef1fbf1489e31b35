//! [`ClientHandler`]: how the client answers requests that come from the server.
//!
//! `roots/list`, `sampling/createMessage` and `elicitation/create` arrive either as
//! server requests (legacy era) or as `inputRequests` of a modern
//! `input_required` result; both go through the same handler.

use async_trait::async_trait;
use mcpdisco_protocol::ErrorObject;
use mcpdisco_protocol::method::RequestMethod;
use mcpdisco_protocol::methods::{CreateMessage, Elicit, ListRoots};
use mcpdisco_protocol::types::ClientCapabilities;
use serde_json::{Map, Value};

/// Answers server-initiated requests. Every method defaults to -32601
/// (method not found); implement the ones whose capability you declare.
#[async_trait]
pub trait ClientHandler: Send + Sync + 'static {
    /// `roots/list`: the result object, such as `{"roots": [...]}`.
    async fn list_roots(&self, _params: Value) -> Result<Value, ErrorObject> {
        Err(ErrorObject::method_not_found("roots/list"))
    }

    /// `sampling/createMessage`: the result object.
    async fn create_message(&self, _params: Value) -> Result<Value, ErrorObject> {
        Err(ErrorObject::method_not_found("sampling/createMessage"))
    }

    /// `elicitation/create`: the result object (`{"action": "accept", "content": {...}}`).
    /// When the action is `accept`, the session fills in schema defaults the handler left out.
    async fn elicit(&self, _params: Value) -> Result<Value, ErrorObject> {
        Err(ErrorObject::method_not_found("elicitation/create"))
    }
}

/// A handler that supports nothing: every server request gets -32601.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoHandler;

#[async_trait]
impl ClientHandler for NoHandler {}

/// Answers one server request (or modern input request) through the handler,
/// refusing methods whose capability we did not declare.
pub(crate) async fn answer(
    handler: &dyn ClientHandler,
    capabilities: &ClientCapabilities,
    method: &str,
    params: Value,
) -> Result<Value, ErrorObject> {
    if !capabilities.allow_request(method) {
        return Err(ErrorObject::method_not_found(method));
    }
    match method {
        ListRoots::METHOD => handler.list_roots(params).await,
        CreateMessage::METHOD => handler.create_message(params).await,
        Elicit::METHOD => {
            let schema = params.get("requestedSchema").cloned();
            let mut result = handler.elicit(params).await?;
            if let Some(schema) = schema {
                apply_elicitation_defaults(&mut result, &schema);
            }
            Ok(result)
        }
        _ => Err(ErrorObject::method_not_found(method)),
    }
}

/// Fills in `default`s from the requested schema for every property an
/// accepted elicitation result left out.
pub fn apply_elicitation_defaults(result: &mut Value, requested_schema: &Value) {
    if result.get("action").and_then(Value::as_str) != Some("accept") {
        return;
    }
    let Some(properties) = requested_schema
        .get("properties")
        .and_then(Value::as_object)
    else {
        return;
    };
    let Some(object) = result.as_object_mut() else {
        return;
    };
    let content = object
        .entry("content")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(content) = content.as_object_mut() else {
        return;
    };
    for (name, property) in properties {
        if let Some(default) = property.get("default")
            && !content.contains_key(name)
        {
            content.insert(name.clone(), default.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_fill_only_missing_fields_of_an_accept() {
        let schema = json!({"type":"object","properties":{
            "name":{"type":"string","default":"John Doe"},
            "age":{"type":"integer","default":30},
            "plain":{"type":"string"}}});
        let mut accepted = json!({"action":"accept","content":{"age":41}});
        apply_elicitation_defaults(&mut accepted, &schema);
        assert_eq!(
            accepted,
            json!({"action":"accept","content":{"age":41,"name":"John Doe"}})
        );
        let mut declined = json!({"action":"decline"});
        apply_elicitation_defaults(&mut declined, &schema);
        assert_eq!(declined, json!({"action":"decline"}));
    }

    #[tokio::test]
    async fn undeclared_capability_is_method_not_found() {
        let error = answer(
            &NoHandler,
            &ClientCapabilities::default(),
            "roots/list",
            json!({}),
        )
        .await
        .unwrap_err();
        assert_eq!(error.code, mcpdisco_protocol::ErrorCode::METHOD_NOT_FOUND);
        let error = answer(
            &NoHandler,
            &ClientCapabilities::default(),
            "tasks/get",
            json!({}),
        )
        .await
        .unwrap_err();
        assert_eq!(error.code, mcpdisco_protocol::ErrorCode::METHOD_NOT_FOUND);
    }
}
