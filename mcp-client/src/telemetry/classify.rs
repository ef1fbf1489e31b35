//! `error.type` of a failed operation: the JSON-RPC error code as a string,
//! `tool_error`, or a short kind such as `timeout` or `connection_refused`.

use std::borrow::Cow;

use mcpdisco_transport::TransportError;

use crate::error::{ErrorKind, SessionError};

/// Why a request failed, as telemetry records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// `error.type`.
    pub error_type: Cow<'static, str>,
    /// `rpc.response.status_code`: the JSON-RPC error code, for a server's error answer.
    pub rpc_code: Option<i64>,
}

impl Failure {
    /// A JSON-RPC error answer with `code`.
    pub fn rpc(code: i64) -> Self {
        Self {
            error_type: Cow::Owned(code.to_string()),
            rpc_code: Some(code),
        }
    }

    /// A failure of a short kind (`tool_error`, `timeout`, ...).
    pub fn kind(kind: &'static str) -> Self {
        Self {
            error_type: Cow::Borrowed(kind),
            rpc_code: None,
        }
    }

    /// The failure of a session error.
    pub fn of(error: &SessionError) -> Self {
        match error.kind() {
            ErrorKind::Server { code, .. } => Self::rpc(code.0),
            ErrorKind::Transport(error) => Self::kind(transport_kind(error)),
            _ => Self::kind(error.kind_name()),
        }
    }
}

/// A short kind for a transport error.
fn transport_kind(error: &TransportError) -> &'static str {
    match error {
        TransportError::Connect { cause, .. } => cause.as_str(),
        TransportError::Timeout { .. } => "timeout",
        TransportError::Http { .. } => "http_error",
        TransportError::RateLimited { .. } => "rate_limited",
        TransportError::SessionExpired { .. } => "session_expired",
        TransportError::Unauthorized { .. } => "unauthorized",
        TransportError::Exited { .. } => "exited",
        TransportError::Spawn { .. } => "spawn_failed",
        TransportError::Closed { .. } => "closed",
        _ => "transport",
    }
}
