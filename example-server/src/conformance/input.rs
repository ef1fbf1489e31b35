//! Multi-round-trip requests (2026-07-28, SEP-2322) for the test catalog:
//! the questions an `input_required` result asks, the answers a retry
//! carries, and a `requestState` signed so a changed one is refused.

use hmac_sha256::Hash as Sha256;
use mcpdisco_protocol::methods::{CreateMessage, Elicit, ListRoots};
use mcpdisco_protocol::types::{
    CreateMessageParams, ElicitParams, Extra, InputRequest, MetaParams, SamplingMessage,
};
use mcpdisco_protocol::{ErrorCode, ErrorObject};
use serde::de::DeserializeOwned;

use super::schemas;

/// -32603 for a question this server could not write.
fn unwritable(error: serde_json::Error) -> ErrorObject {
    ErrorObject::new(
        ErrorCode::INTERNAL_ERROR,
        format!("could not write an input request: {error}"),
    )
}

/// An `elicitation/create` question: `message`, answered in the form of `schema`.
pub(crate) fn elicit(message: &str, schema: &str) -> Result<InputRequest, ErrorObject> {
    let params = ElicitParams {
        mode: None,
        message: message.to_owned(),
        requested_schema: Some(schemas::value(schema)),
        url: None,
        elicitation_id: None,
        meta: None,
        extra: Extra::new(),
    };
    InputRequest::of::<Elicit>(&params).map_err(unwritable)
}

/// The `sampling/createMessage` params of one user message `text`.
pub(crate) fn sampling_params(text: &str, max_tokens: u64) -> CreateMessageParams {
    CreateMessageParams::new(vec![SamplingMessage::user_text(text)], max_tokens)
}

/// A `sampling/createMessage` question.
pub(crate) fn sample(text: &str, max_tokens: u64) -> Result<InputRequest, ErrorObject> {
    InputRequest::of::<CreateMessage>(&sampling_params(text, max_tokens)).map_err(unwritable)
}

/// A `roots/list` question.
pub(crate) fn list_roots() -> Result<InputRequest, ErrorObject> {
    InputRequest::of::<ListRoots>(&MetaParams::default()).map_err(unwritable)
}

/// The answer under `key` of a retry's `inputResponses`, read as `T`:
/// `Ok(None)` when there is none, -32602 when it is not a `T`.
pub(crate) fn answer<T: DeserializeOwned>(
    responses: Option<&Extra>,
    key: &str,
) -> Result<Option<T>, ErrorObject> {
    let Some(value) = responses.and_then(|responses| responses.get(key)) else {
        return Ok(None);
    };
    serde_json::from_value(value.clone())
        .map(Some)
        .map_err(|error| {
            ErrorObject::new(
                ErrorCode::INVALID_PARAMS,
                format!("inputResponses.{key} is not a valid answer: {error}"),
            )
        })
}

/// The signature of `payload` under `key`, in hex.
fn signature(key: &str, payload: &str) -> String {
    let mut hash = Sha256::new();
    hash.update(key.as_bytes());
    hash.update([0u8]);
    hash.update(payload.as_bytes());
    let digest = hash.finalize();
    digest.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// `payload`, signed with `key`: the `requestState` to hand out.
pub(crate) fn sign(key: &str, payload: &str) -> String {
    format!("{payload}.{}", signature(key, payload))
}

/// The payload of a `requestState` signed with `key`; -32602 when it was changed.
pub(crate) fn verify<'a>(key: &str, state: &'a str) -> Result<&'a str, ErrorObject> {
    let invalid = || {
        ErrorObject::new(
            ErrorCode::INVALID_PARAMS,
            "requestState failed its integrity check",
        )
    };
    let (payload, given) = state.rsplit_once('.').ok_or_else(invalid)?;
    if signature(key, payload) == given {
        Ok(payload)
    } else {
        Err(invalid())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpdisco_protocol::types::ElicitResult;
    use serde_json::Value;

    #[test]
    fn signed_states_survive_only_unchanged() {
        let state = sign("k", "multi_round.1.Alice");
        assert_eq!(verify("k", &state).unwrap(), "multi_round.1.Alice");
        assert!(verify("k", &format!("{state}-TAMPERED")).is_err());
        assert!(verify("other", &state).is_err());
        assert!(verify("k", "no-signature").is_err());
    }

    #[test]
    fn answers_are_read_or_refused() {
        let mut responses = Extra::new();
        responses.insert("bad".into(), Value::from(12345));
        let missing: Option<ElicitResult> = answer(Some(&responses), "user_name").unwrap();
        assert!(missing.is_none());
        let bad = answer::<ElicitResult>(Some(&responses), "bad").unwrap_err();
        assert_eq!(bad.code, ErrorCode::INVALID_PARAMS);
    }
}
