//! The checks of a modern (2026-07-28) POST before its message reaches the
//! server, and the HTTP status of its answer: `_meta` (-32602), the headers
//! that repeat the body (SEP-2243, -32020), the version (-32022), each
//! refused with 400; an unknown method's -32601 goes out with 404. The
//! `Mcp-Name` and `Mcp-Param-*` values may be `=?base64?…?=` (strict
//! base64 of UTF-8, padding included); any other value is literal.

use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use base64::Engine as _;
use mcpdisco_protocol::method::RequestMethod;
use mcpdisco_protocol::methods::CallTool;
use mcpdisco_protocol::modern_request::{self, RequestHeaders};
use mcpdisco_protocol::{
    ErrorCode, ErrorObject, ErrorResponse, JsonView, Message, RawJson, RequestId,
};
use serde_json::Value;

use super::{ParamHeaderRule, ToolParamHeaders};

/// `MCP-Protocol-Version`.
const VERSION_HEADER: &str = "mcp-protocol-version";
/// `Mcp-Method`.
const METHOD_HEADER: &str = "mcp-method";
/// `Mcp-Name`.
const NAME_HEADER: &str = "mcp-name";

/// Whether a request POST is modern, after checking it; `Err` is why it is refused.
pub(super) fn check(
    headers: &HeaderMap,
    method: &str,
    params: Option<&RawJson>,
    rules: Option<&ToolParamHeaders>,
) -> Result<bool, ErrorObject> {
    let text = |name: &str| headers.get(name).and_then(|value| value.to_str().ok());
    let name = match text(NAME_HEADER) {
        Some(name) => Some(decoded(name).ok_or_else(|| {
            modern_request::header_mismatch("Mcp-Name is not valid base64 of UTF-8")
        })?),
        None => None,
    };
    let request_headers = RequestHeaders {
        protocol_version: text(VERSION_HEADER),
        method: text(METHOD_HEADER),
        name: name.as_deref(),
    };
    if !modern_request::is_modern_post(request_headers.protocol_version, params) {
        return Ok(false);
    }
    modern_request::check_post(request_headers, method, params)?;
    if method == CallTool::METHOD
        && let Some(rules) = rules
        && let Some(params) = params
        && let [Some(tool), arguments] = JsonView::of(params).pick(["name", "arguments"])
        && let Some(tool) = tool.as_str()
    {
        let arguments: Option<Value> =
            arguments.and_then(|arguments| serde_json::from_str(arguments.text()).ok());
        for rule in rules(&tool) {
            check_param(headers, &rule, arguments.as_ref())?;
        }
    }
    Ok(true)
}

/// A header value as sent: trimmed, and decoded when it is
/// `=?base64?…?=`; `None` when that base64 or its UTF-8 is invalid.
fn decoded(value: &str) -> Option<String> {
    let value = value.trim();
    match value
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
    {
        Some(encoded) => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(encoded)
                .ok()?;
            String::from_utf8(bytes).ok()
        }
        None => Some(value.to_owned()),
    }
}

/// The header text of an argument's value; `None` for values no header carries.
fn header_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Bool(flag) => Some(flag.to_string()),
        Value::Number(number) => number.as_i64().map(|n| n.to_string()),
        _ => None,
    }
}

/// Checks one `Mcp-Param-*` header against the argument it repeats: it
/// must be there when the argument is, and say the same.
fn check_param(
    headers: &HeaderMap,
    rule: &ParamHeaderRule,
    arguments: Option<&Value>,
) -> Result<(), ErrorObject> {
    let name = format!("mcp-param-{}", rule.header.to_ascii_lowercase());
    let expected = arguments
        .and_then(|arguments| {
            rule.path
                .iter()
                .try_fold(arguments, |value, key| value.get(key))
        })
        .and_then(header_text);
    let given = headers.get(name.as_str()).map(|value| {
        value.to_str().ok().and_then(decoded).ok_or_else(|| {
            modern_request::header_mismatch(format!(
                "Mcp-Param-{} is not valid base64 of UTF-8",
                rule.header
            ))
        })
    });
    match (expected, given) {
        (None, _) => Ok(()),
        (Some(_), None) => Err(modern_request::header_mismatch(format!(
            "Mcp-Param-{} is missing",
            rule.header
        ))),
        (Some(expected), Some(given)) => {
            if given? == expected {
                Ok(())
            } else {
                Err(modern_request::header_mismatch(format!(
                    "Mcp-Param-{} does not match the argument",
                    rule.header
                )))
            }
        }
    }
}

/// The refusal of a request that failed [`check`].
pub(super) fn refusal(id: Option<RequestId>, error: ErrorObject) -> Response {
    let status = status_for(error.code);
    super::json_response(status, &Message::Error(ErrorResponse { id, error }), None)
}

/// The status of a modern answer: an error's, by its code; 200 for a result.
pub(super) fn status_of(answer: &Message) -> StatusCode {
    match answer {
        Message::Error(error) => status_for(error.error.code),
        _ => StatusCode::OK,
    }
}

fn status_for(code: ErrorCode) -> StatusCode {
    StatusCode::from_u16(modern_request::http_status_of(code)).unwrap_or(StatusCode::BAD_REQUEST)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule() -> ParamHeaderRule {
        ParamHeaderRule {
            path: vec!["region".into()],
            header: "Region".into(),
        }
    }

    fn with(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert("mcp-param-region", value.parse().unwrap());
        headers
    }

    #[test]
    fn header_values_decode_strict_base64_or_stay_literal() {
        assert_eq!(decoded(" =?base64?SGVsbG8=?= ").as_deref(), Some("Hello"));
        assert_eq!(decoded("=?base64?SGVsbG8?="), None, "padding is required");
        assert_eq!(decoded("=?base64?SGVs!!!bG8=?="), None);
        assert_eq!(
            decoded("=?base64?SGVsbG8=").as_deref(),
            Some("=?base64?SGVsbG8=")
        );
        assert_eq!(decoded("SGVsbG8=").as_deref(), Some("SGVsbG8="));
    }

    #[test]
    fn param_headers_must_repeat_their_arguments() {
        let arguments = serde_json::json!({"region": "Hello"});
        let check = |headers: &HeaderMap, arguments: Option<&Value>| {
            check_param(headers, &rule(), arguments).map_err(|e| e.code)
        };
        assert_eq!(check(&with("Hello"), Some(&arguments)), Ok(()));
        assert_eq!(
            check(&with("=?base64?SGVsbG8=?="), Some(&arguments)),
            Ok(())
        );
        for wrong in ["hello", "=?base64?SGVsbG8?=", "=?base64?SGVs!!!bG8=?="] {
            assert_eq!(
                check(&with(wrong), Some(&arguments)),
                Err(ErrorCode::HEADER_MISMATCH),
                "{wrong}"
            );
        }
        assert_eq!(
            check(&HeaderMap::new(), Some(&arguments)),
            Err(ErrorCode::HEADER_MISMATCH)
        );
        assert_eq!(check(&HeaderMap::new(), None), Ok(()));
        let number = serde_json::json!({"region": 7});
        assert_eq!(check(&with("7"), Some(&number)), Ok(()));
    }
}
