//! `tools/call` as a gateway relays it: the tool's arguments stay the JSON
//! text the client sent them as, from the client's request to the server's,
//! instead of being built as values and written again. Only the name is
//! read (to route the call); the arguments are checked to be an object.

use mcpdisco_client::error::SessionError;
use mcpdisco_protocol::RawJson;
use mcpdisco_protocol::method::{RequestKind, RequestMethod};
use mcpdisco_protocol::methods::CallTool;
use mcpdisco_protocol::raw::ObjectWriter;
use mcpdisco_protocol::types::{CallToolResult, Extra};
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};

use super::error::unencodable;

/// [`CallTool`] with [`RelayedCall`] params: the same method, name,
/// idempotency and result.
pub(crate) struct RelayCallTool;

impl RequestMethod for RelayCallTool {
    const METHOD: &'static str = CallTool::METHOD;
    const IDEMPOTENT: bool = CallTool::IDEMPOTENT;
    const KIND: RequestKind = CallTool::KIND;
    type Params = RelayedCall;
    type Result = CallToolResult;
}

/// `tools/call` params whose `arguments` are kept as sent. Members other
/// than these are not passed on (as with `CallToolParams::new`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RelayedCall {
    /// The tool.
    pub(crate) name: String,
    /// Its arguments: a JSON object as sent (an explicit `null` reads as none).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "object_text"
    )]
    pub(crate) arguments: Option<RawJson>,
    /// Answers to the server's input requests (2026-07-28 retries).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) input_responses: Option<Extra>,
    /// The server's request state, echoed unchanged (2026-07-28 retries).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) request_state: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub(crate) meta: Option<Extra>,
}

impl RelayedCall {
    /// A call of tool `name` with `arguments`, nothing else.
    pub(crate) fn new(name: impl Into<String>, arguments: Option<RawJson>) -> Self {
        Self {
            name: name.into(),
            arguments,
            input_responses: None,
            request_state: None,
            meta: None,
        }
    }
}

impl RelayedCall {
    /// These params as JSON, the arguments written as the text they are
    /// (serde would read that text again to write it); for `server`'s call.
    pub(crate) fn to_json(&self, server: &str) -> Result<RawJson, SessionError> {
        let unwritable = |error: serde_json::Error| unencodable(server, CallTool::METHOD, &error);
        let mut params = ObjectWriter::new()
            .value("name", &self.name)
            .map_err(unwritable)?;
        if let Some(arguments) = &self.arguments {
            params = params.raw("arguments", arguments);
        }
        if let Some(responses) = &self.input_responses {
            params = params
                .value("inputResponses", responses)
                .map_err(unwritable)?;
        }
        if let Some(state) = &self.request_state {
            params = params.value("requestState", state).map_err(unwritable)?;
        }
        if let Some(meta) = &self.meta {
            params = params.value("_meta", meta).map_err(unwritable)?;
        }
        Ok(params.finish())
    }
}

/// Reads an optional JSON object as its text; anything but an object or
/// `null` is refused.
pub(crate) fn object_text<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<RawJson>, D::Error> {
    match Option::<RawJson>::deserialize(deserializer)? {
        Some(text) if !text.is_object() => Err(D::Error::custom(format!(
            "arguments must be a JSON object, not {text}"
        ))),
        other => Ok(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_stay_as_sent_and_must_be_an_object() {
        let call: RelayedCall =
            serde_json::from_str(r#"{"name":"echo","arguments":{"b": 1,  "a":[2]},"x":0}"#)
                .unwrap();
        assert_eq!(call.name, "echo");
        assert_eq!(call.arguments.unwrap().as_str(), r#"{"b": 1,  "a":[2]}"#);
        let none: RelayedCall = serde_json::from_str(r#"{"name":"e","arguments":null}"#).unwrap();
        assert_eq!(none.arguments, None);
        for wrong in [r#"[1]"#, "3", r#""text""#] {
            let text = format!(r#"{{"name":"e","arguments":{wrong}}}"#);
            let error = serde_json::from_str::<RelayedCall>(&text).unwrap_err();
            assert!(
                error.to_string().contains("must be a JSON object"),
                "{error}"
            );
        }
        let sent = RawJson::encode(&RelayedCall::new("t", RawJson::parse("{ }").ok())).unwrap();
        assert_eq!(sent.as_str(), r#"{"name":"t","arguments":{ }}"#);
    }

    #[test]
    fn written_by_hand_the_params_are_what_serde_writes() {
        let mut full: RelayedCall = serde_json::from_str(
            r#"{"name":"a\"b","arguments":{"x": [1, "\u00e9"]},"inputResponses":{"k":{"v":1}},"requestState":"s\n","_meta":{"m":true}}"#,
        )
        .unwrap();
        for call in [
            full.clone(),
            RelayedCall::new("t", None),
            RelayedCall::new("t", RawJson::parse("{}").ok()),
        ] {
            let by_hand = call.to_json("server").unwrap();
            assert_eq!(by_hand.as_str(), RawJson::encode(&call).unwrap().as_str());
        }
        full.meta = None;
        assert!(!full.to_json("s").unwrap().as_str().contains("_meta"));
    }
}
