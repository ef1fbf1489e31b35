//! [`ClientHandler`]: how the client answers requests that come from the server.
//!
//! `roots/list`, `sampling/createMessage` and `elicitation/create` arrive either as
//! server requests (legacy era) or as `inputRequests` of a modern
//! `input_required` result; both go through the same handler, in the
//! `mcp-protocol` types. Params that do not decode into their type are
//! answered -32602 (invalid params) without reaching the handler; `ping` is
//! answered by the session itself.

use async_trait::async_trait;
use mcpdisco_protocol::method::RequestMethod;
use mcpdisco_protocol::methods::{CreateMessage, Elicit, ListRoots};
use mcpdisco_protocol::schema::Schema;
use mcpdisco_protocol::types::{
    ClientCapabilities, CreateMessageParams, CreateMessageResult, ElicitAction, ElicitParams,
    ElicitResult, ListRootsResult, MetaParams,
};
use mcpdisco_protocol::{ErrorCode, ErrorObject};
use serde_json::Value;

/// Answers server-initiated requests. Every method defaults to -32601
/// (method not found); implement the ones whose capability you declare.
#[async_trait]
pub trait ClientHandler: Send + Sync + 'static {
    /// `roots/list`: the roots the client exposes.
    async fn list_roots(&self, _params: MetaParams) -> Result<ListRootsResult, ErrorObject> {
        Err(ErrorObject::method_not_found(ListRoots::METHOD))
    }

    /// `sampling/createMessage`: what the model said.
    async fn create_message(
        &self,
        _params: CreateMessageParams,
    ) -> Result<CreateMessageResult, ErrorObject> {
        Err(ErrorObject::method_not_found(CreateMessage::METHOD))
    }

    /// `elicitation/create`: what the user did. When the action is `accept`,
    /// the session fills in the schema's defaults the handler left out.
    async fn elicit(&self, _params: ElicitParams) -> Result<ElicitResult, ErrorObject> {
        Err(ErrorObject::method_not_found(Elicit::METHOD))
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
        ListRoots::METHOD => {
            let params = decode::<ListRoots>(params)?;
            encode::<ListRoots>(&handler.list_roots(params).await?)
        }
        CreateMessage::METHOD => {
            let params = decode::<CreateMessage>(params)?;
            encode::<CreateMessage>(&handler.create_message(params).await?)
        }
        Elicit::METHOD => {
            let params = decode::<Elicit>(params)?;
            let schema = params.requested_schema.clone();
            let mut result = handler.elicit(params).await?;
            if let Some(schema) = &schema {
                apply_elicitation_defaults(&mut result, schema);
            }
            encode::<Elicit>(&result)
        }
        _ => Err(ErrorObject::method_not_found(method)),
    }
}

/// The params of a server request, or -32602 naming what is wrong with
/// them and where (`messages: invalid type: ...`).
fn decode<M: RequestMethod>(params: Value) -> Result<M::Params, ErrorObject> {
    serde_path_to_error::deserialize(params).map_err(|error| {
        let place = error.path().to_string();
        let reason = error.into_inner();
        let what = if place == "." {
            reason.to_string()
        } else {
            format!("{place}: {reason}")
        };
        ErrorObject::new(
            ErrorCode::INVALID_PARAMS,
            format!("{}: invalid params: {what}", M::METHOD),
        )
    })
}

/// The handler's result, as JSON.
fn encode<M: RequestMethod>(result: &M::Result) -> Result<Value, ErrorObject> {
    serde_json::to_value(result).map_err(|error| {
        ErrorObject::new(
            ErrorCode::INTERNAL_ERROR,
            format!("{}: cannot encode the result: {error}", M::METHOD),
        )
    })
}

/// Fills in `default`s from the requested schema for every property an
/// accepted elicitation result left out.
pub fn apply_elicitation_defaults(result: &mut ElicitResult, requested_schema: &Value) {
    if result.action != ElicitAction::Accept {
        return;
    }
    let schema = Schema::new(requested_schema);
    if !schema.keyword("properties").is_some_and(Value::is_object) {
        return;
    }
    let content = result.content.get_or_insert_with(Default::default);
    for (name, property) in schema.properties() {
        if let Some(default) = property.default_value()
            && !content.contains_key(name)
        {
            content.insert(name.to_owned(), default.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpdisco_protocol::types::{ElicitationCapability, Root, RootsCapability};
    use serde_json::json;

    fn elicit_result(value: Value) -> ElicitResult {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn defaults_fill_only_missing_fields_of_an_accept() {
        let schema = json!({"type":"object","properties":{
            "name":{"type":"string","default":"John Doe"},
            "age":{"type":"integer","default":30},
            "plain":{"type":"string"}}});
        let mut accepted = elicit_result(json!({"action":"accept","content":{"age":41}}));
        apply_elicitation_defaults(&mut accepted, &schema);
        assert_eq!(
            serde_json::to_value(&accepted).unwrap(),
            json!({"action":"accept","content":{"age":41,"name":"John Doe"}})
        );
        let mut declined = ElicitResult::decline();
        apply_elicitation_defaults(&mut declined, &schema);
        assert_eq!(
            serde_json::to_value(&declined).unwrap(),
            json!({"action":"decline"})
        );
    }

    #[tokio::test]
    async fn undeclared_capability_is_method_not_found() {
        let error = answer(
            &NoHandler,
            &ClientCapabilities::default(),
            ListRoots::METHOD,
            json!({}),
        )
        .await
        .unwrap_err();
        assert_eq!(error.code, ErrorCode::METHOD_NOT_FOUND);
        let error = answer(
            &NoHandler,
            &ClientCapabilities::default(),
            "tasks/get",
            json!({}),
        )
        .await
        .unwrap_err();
        assert_eq!(error.code, ErrorCode::METHOD_NOT_FOUND);
    }

    /// Answers in the protocol types, recording what it was asked.
    struct Typed;

    #[async_trait]
    impl ClientHandler for Typed {
        async fn list_roots(&self, _params: MetaParams) -> Result<ListRootsResult, ErrorObject> {
            Ok(ListRootsResult::new(vec![Root::new("file:///work")]))
        }

        async fn elicit(&self, params: ElicitParams) -> Result<ElicitResult, ErrorObject> {
            assert_eq!(params.message, "Your name?");
            let mut content = serde_json::Map::new();
            content.insert("name".into(), json!("Ada"));
            Ok(ElicitResult::accept(content))
        }
    }

    fn declaring_roots_and_forms() -> ClientCapabilities {
        ClientCapabilities {
            roots: Some(RootsCapability::default()),
            elicitation: Some(ElicitationCapability::default()),
            ..ClientCapabilities::default()
        }
    }

    #[tokio::test]
    async fn typed_answers_go_out_as_their_json() {
        let capabilities = declaring_roots_and_forms();
        let roots = answer(&Typed, &capabilities, ListRoots::METHOD, json!({}))
            .await
            .unwrap();
        assert_eq!(roots, json!({"roots": [{"uri": "file:///work"}]}));
        let elicited = answer(
            &Typed,
            &capabilities,
            Elicit::METHOD,
            json!({"message": "Your name?", "requestedSchema": {"type": "object", "properties": {
                "name": {"type": "string"}, "age": {"type": "integer", "default": 7}}}}),
        )
        .await
        .unwrap();
        assert_eq!(
            elicited,
            json!({"action": "accept", "content": {"name": "Ada", "age": 7}})
        );
    }

    #[tokio::test]
    async fn malformed_params_are_invalid_params_naming_what_is_wrong() {
        let capabilities = declaring_roots_and_forms();
        let error = answer(
            &Typed,
            &capabilities,
            Elicit::METHOD,
            json!({"requestedSchema": {"type": "object"}}),
        )
        .await
        .unwrap_err();
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
        assert!(error.message.contains("elicitation/create"), "{error:?}");
        assert!(error.message.contains("message"), "{error:?}");
        let error = answer(
            &Typed,
            &capabilities,
            Elicit::METHOD,
            json!({"message": "Your name?", "mode": 3}),
        )
        .await
        .unwrap_err();
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
        assert!(error.message.contains("mode: invalid type"), "{error:?}");
        let error = answer(&Typed, &capabilities, ListRoots::METHOD, json!([1, 2]))
            .await
            .unwrap_err();
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
        assert!(error.message.contains("roots/list"), "{error:?}");
    }
}
