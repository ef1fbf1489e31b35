//! The checks of a modern (2026-07-28) POST before its message reaches the
//! server, and the HTTP status of its answer: `_meta` (-32602), the headers
//! that repeat the body (SEP-2243, -32020), the version (-32022), each
//! refused with 400; an unknown method's -32601 goes out with 404.

use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use mcpdisco_protocol::modern_request::{self, RequestHeaders};
use mcpdisco_protocol::{ErrorCode, ErrorObject, ErrorResponse, Message, RequestId};
use serde_json::Value;

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
    params: Option<&Value>,
) -> Result<bool, ErrorObject> {
    let text = |name: &str| headers.get(name).and_then(|value| value.to_str().ok());
    let request_headers = RequestHeaders {
        protocol_version: text(VERSION_HEADER),
        method: text(METHOD_HEADER),
        name: text(NAME_HEADER),
    };
    if !modern_request::is_modern_post(request_headers.protocol_version, params) {
        return Ok(false);
    }
    modern_request::check_post(request_headers, method, params)?;
    Ok(true)
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
