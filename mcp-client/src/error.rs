//! [`SessionError`]: the one error type of a session, naming the server and
//! the operation; and [`AuthError`], why authorization failed.

use std::fmt;
use std::time::Duration;

use mcpdisco_protocol::{ErrorCode, ErrorObject};
use mcpdisco_transport::secret::Masker;
use mcpdisco_transport::{Delivery, ExitStatus, TransportError};
use serde_json::Value;

/// What went wrong, as a value a caller can match on.
#[derive(Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The server process could not be started.
    SpawnFailed {
        /// The operating system's reason.
        reason: String,
    },
    /// The server process exited (or closed its output).
    Exited {
        /// How it ended.
        status: ExitStatus,
        /// The end of what it wrote to stderr.
        stderr_tail: String,
    },
    /// No answer within the time allowed.
    Timeout {
        /// How long the session waited.
        after: Duration,
    },
    /// The server broke the protocol (a malformed result, a repeated cursor, too many pages).
    ProtocolViolation {
        /// What was wrong.
        reason: String,
    },
    /// No protocol version both sides speak.
    VersionMismatch {
        /// What the server answered or supports.
        server: String,
        /// What we offered.
        offered: String,
    },
    /// The server answered with a JSON-RPC error.
    Server {
        /// The error code.
        code: ErrorCode,
        /// The server's message.
        message: String,
        /// The server's extra data.
        data: Option<Value>,
    },
    /// The connection failed below the protocol (HTTP status, I/O, closed connection).
    Transport(TransportError),
    /// The connection ended or failed (not a process exit).
    ConnectionLost {
        /// Why.
        reason: String,
    },
    /// The operation does not exist in the era in use.
    Unsupported {
        /// Why.
        reason: String,
    },
    /// The server needs authorization, and it could not be obtained.
    Auth(AuthError),
    /// The session was closed by its owner.
    Closed,
    /// The task the call ran as was cancelled, not by this call
    /// (extension `io.modelcontextprotocol/tasks`).
    TaskCancelled {
        /// The server's id of the task.
        task_id: String,
    },
}

/// A session error: the server's name, the operation (method), the kind,
/// and whether the request reached the server ([`Delivery`]), which decides
/// whether it may be sent again.
#[derive(Debug, thiserror::Error)]
pub struct SessionError {
    server: String,
    operation: String,
    kind: Box<ErrorKind>,
    delivery: Delivery,
    /// Set when a request that may have run was, for that reason, not sent again.
    not_repeated: bool,
}

impl SessionError {
    /// Builds an error about a request that was never sent (set another
    /// [`Delivery`] with [`with_delivery`](Self::with_delivery)).
    pub fn new(server: impl Into<String>, operation: impl Into<String>, kind: ErrorKind) -> Self {
        Self {
            server: server.into(),
            operation: operation.into(),
            kind: Box::new(kind),
            delivery: Delivery::NotSent,
            not_repeated: false,
        }
    }

    /// The same error, saying how far the request got.
    pub fn with_delivery(mut self, delivery: Delivery) -> Self {
        self.delivery = delivery;
        self
    }

    /// Whether the request reached the server: never sent, sent and then the
    /// connection was lost, answered with an error, or timed out after sending.
    pub fn delivery(&self) -> Delivery {
        self.delivery
    }

    /// Whether the server may have acted on the request (it was sent, and no
    /// answer came): a tool may have run.
    pub fn may_have_run(&self) -> bool {
        self.delivery.may_have_run()
    }

    /// Marks a request that may have run and was therefore not sent again;
    /// the message then says so.
    pub fn not_repeated(mut self) -> Self {
        self.not_repeated = true;
        self
    }

    /// Whether the same request may succeed if sent again later: no
    /// connection (refused or reset), HTTP 429, 502, 503 or 504, an expired
    /// session, an answer lost with a broken stream. Whether it *may* be sent
    /// again also depends on [`delivery`](Self::delivery) and on whether the
    /// method is idempotent; the retry policy decides.
    pub fn is_retryable(&self) -> bool {
        match self.kind.as_ref() {
            ErrorKind::Transport(error) => error.is_retryable(),
            ErrorKind::ConnectionLost { .. } => self.delivery == Delivery::Lost,
            _ => false,
        }
    }

    /// How long the server asked us to wait before trying again (HTTP 429 `Retry-After`).
    pub fn retry_after(&self) -> Option<Duration> {
        match self.kind.as_ref() {
            ErrorKind::Transport(error) => error.retry_after(),
            _ => None,
        }
    }

    /// Converts a transport error, lifting spawn failures and exits into their own kinds.
    pub fn from_transport(
        server: impl Into<String>,
        operation: impl Into<String>,
        error: TransportError,
    ) -> Self {
        let kind = match error {
            TransportError::Spawn {
                command, source, ..
            } => ErrorKind::SpawnFailed {
                reason: format!("`{command}`: {source}"),
            },
            TransportError::Exited {
                status,
                stderr_tail,
                ..
            } => ErrorKind::Exited {
                status,
                stderr_tail,
            },
            other => ErrorKind::Transport(other),
        };
        Self::new(server, operation, kind)
    }

    /// Converts a transport error that failed a `send`, with what it means for delivery.
    pub fn from_send(
        server: impl Into<String>,
        operation: impl Into<String>,
        error: TransportError,
    ) -> Self {
        let delivery = error.delivery();
        Self::from_transport(server, operation, error).with_delivery(delivery)
    }

    /// Converts a JSON-RPC error answer.
    pub fn from_rpc(
        server: impl Into<String>,
        operation: impl Into<String>,
        error: ErrorObject,
    ) -> Self {
        Self::new(
            server,
            operation,
            ErrorKind::Server {
                code: error.code,
                message: error.message,
                data: error.data,
            },
        )
        .with_delivery(Delivery::Answered)
    }

    /// The same error with every known secret in its texts masked: the
    /// server's error message and data, the stderr tail, every reason.
    pub fn masked(self, masker: &Masker) -> Self {
        if masker.is_empty() {
            return self;
        }
        let mask = |text: String| masker.mask_string(text);
        let kind = match *self.kind {
            ErrorKind::SpawnFailed { reason } => ErrorKind::SpawnFailed {
                reason: mask(reason),
            },
            ErrorKind::Exited {
                status,
                stderr_tail,
            } => ErrorKind::Exited {
                status,
                stderr_tail: mask(stderr_tail),
            },
            ErrorKind::ProtocolViolation { reason } => ErrorKind::ProtocolViolation {
                reason: mask(reason),
            },
            ErrorKind::VersionMismatch { server, offered } => ErrorKind::VersionMismatch {
                server: mask(server),
                offered,
            },
            ErrorKind::Server {
                code,
                message,
                mut data,
            } => {
                if let Some(data) = &mut data {
                    masker.mask_value(data);
                }
                ErrorKind::Server {
                    code,
                    message: mask(message),
                    data,
                }
            }
            ErrorKind::Transport(error) => ErrorKind::Transport(error.masked(masker)),
            ErrorKind::ConnectionLost { reason } => ErrorKind::ConnectionLost {
                reason: mask(reason),
            },
            ErrorKind::Unsupported { reason } => ErrorKind::Unsupported {
                reason: mask(reason),
            },
            ErrorKind::Auth(error) => ErrorKind::Auth(error.masked(masker)),
            ErrorKind::TaskCancelled { task_id } => ErrorKind::TaskCancelled {
                task_id: mask(task_id),
            },
            kind @ (ErrorKind::Timeout { .. } | ErrorKind::Closed) => kind,
        };
        Self {
            kind: Box::new(kind),
            ..self
        }
    }

    /// The server's name.
    pub fn server(&self) -> &str {
        &self.server
    }

    /// The operation that failed, such as `tools/list` or `connect`.
    pub fn operation(&self) -> &str {
        &self.operation
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// Takes the kind out.
    pub fn into_kind(self) -> ErrorKind {
        *self.kind
    }

    /// The JSON-RPC error code, when the server answered with an error.
    pub fn server_code(&self) -> Option<ErrorCode> {
        match self.kind.as_ref() {
            ErrorKind::Server { code, .. } => Some(*code),
            _ => None,
        }
    }

    /// The error's `data`, when the server answered with an error that has some.
    pub fn server_data(&self) -> Option<&Value> {
        match self.kind.as_ref() {
            ErrorKind::Server { data, .. } => data.as_ref(),
            _ => None,
        }
    }

    /// Whether the server said it does not know the method (-32601).
    pub fn is_method_not_found(&self) -> bool {
        self.server_code() == Some(ErrorCode::METHOD_NOT_FOUND)
    }

    /// Whether this was a timeout.
    pub fn is_timeout(&self) -> bool {
        matches!(*self.kind, ErrorKind::Timeout { .. })
    }

    /// A short stable name for the kind, for machine-readable output.
    pub fn kind_name(&self) -> &'static str {
        match self.kind.as_ref() {
            ErrorKind::SpawnFailed { .. } => "spawn_failed",
            ErrorKind::Exited { .. } => "exited",
            ErrorKind::Timeout { .. } => "timeout",
            ErrorKind::ProtocolViolation { .. } => "protocol_violation",
            ErrorKind::VersionMismatch { .. } => "version_mismatch",
            ErrorKind::Server { .. } => "server_error",
            ErrorKind::Transport(_) => "transport",
            ErrorKind::ConnectionLost { .. } => "connection_lost",
            ErrorKind::Unsupported { .. } => "unsupported",
            ErrorKind::Auth(error) => error.kind_name(),
            ErrorKind::Closed => "closed",
            ErrorKind::TaskCancelled { .. } => "task_cancelled",
        }
    }
}

impl fmt::Display for SessionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.describe(f)?;
        if self.not_repeated {
            write!(
                f,
                "; the request was sent, so it may have run on the server, and it was not sent again"
            )?;
        }
        Ok(())
    }
}

impl SessionError {
    fn describe(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (server, op) = (&self.server, &self.operation);
        match self.kind.as_ref() {
            ErrorKind::SpawnFailed { reason } => {
                write!(f, "server '{server}': {op}: failed to start: {reason}")
            }
            ErrorKind::Exited {
                status,
                stderr_tail,
            } => {
                write!(f, "server '{server}' exited with {status} during {op}")?;
                let tail = stderr_tail.trim();
                if !tail.is_empty() {
                    write!(f, ": {tail}")?;
                }
                Ok(())
            }
            ErrorKind::Timeout { after } => {
                write!(f, "server '{server}': {op}: timed out after {after:?}")
            }
            ErrorKind::ProtocolViolation { reason } => {
                write!(f, "server '{server}': {op}: protocol violation: {reason}")
            }
            ErrorKind::VersionMismatch {
                server: theirs,
                offered,
            } => write!(
                f,
                "server '{server}': {op}: no common protocol version (server: {theirs}; we speak: {offered})"
            ),
            ErrorKind::Server {
                code,
                message,
                data,
            } => {
                write!(f, "server '{server}': {op}: server error {code}: {message}")?;
                if let Some(data) = data {
                    let text = data.to_string();
                    if text.len() <= 200 {
                        write!(f, " ({text})")?;
                    }
                }
                Ok(())
            }
            ErrorKind::Transport(error) => write!(f, "{op}: {error}"),
            ErrorKind::ConnectionLost { reason } => {
                write!(f, "server '{server}': {op}: connection lost: {reason}")
            }
            ErrorKind::Unsupported { reason } => write!(f, "server '{server}': {op}: {reason}"),
            ErrorKind::Auth(error) => write!(f, "{op}: {error}"),
            ErrorKind::Closed => write!(f, "server '{server}': {op}: session is closed"),
            ErrorKind::TaskCancelled { task_id } => {
                write!(f, "server '{server}': {op}: task {task_id} was cancelled")
            }
        }
    }
}

/// Why authorization failed.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum AuthError {
    /// The server needs authorization and no usable token exists; this
    /// process may not ask a user.
    #[error("server '{server}' requires authorization: run `mcp-cli login {server}`")]
    Required {
        /// The server's name.
        server: String,
    },
    /// The metadata could not be found or was refused.
    #[error("server '{server}': authorization discovery failed: {reason}")]
    Discovery {
        /// The server's name.
        server: String,
        /// Why.
        reason: String,
    },
    /// The authorization server refused (registration, token, refresh).
    #[error("server '{server}': the authorization server refused: {reason}")]
    Refused {
        /// The server's name.
        server: String,
        /// Why (the server's error code and description, masked).
        reason: String,
    },
    /// The authorization response was not accepted (state, issuer, an error).
    #[error("server '{server}': the authorization response was rejected: {reason}")]
    Rejected {
        /// The server's name.
        server: String,
        /// Why.
        reason: String,
    },
    /// The flow cannot be run with what the server offers or the config says.
    #[error("server '{server}': cannot authorize: {reason}")]
    Unsupported {
        /// The server's name.
        server: String,
        /// Why.
        reason: String,
    },
    /// An HTTP exchange of the flow failed.
    #[error("server '{server}': authorization request failed: {reason}")]
    Http {
        /// The server's name.
        server: String,
        /// Why.
        reason: String,
    },
    /// The token store failed.
    #[error("token store: {reason}")]
    Store {
        /// Why.
        reason: String,
    },
}

impl AuthError {
    /// `auth_required` for [`AuthError::Required`], `auth_failed` otherwise.
    pub fn kind_name(&self) -> &'static str {
        match self {
            AuthError::Required { .. } => "auth_required",
            _ => "auth_failed",
        }
    }

    /// The same error with every secret `masker` knows replaced.
    pub fn masked(self, masker: &Masker) -> Self {
        self.map_reason(|reason| masker.mask_string(reason))
    }

    /// The same error with `note`, about the exchanges with the servers,
    /// after its reason; `Required` and `Store`, which are not about them,
    /// are unchanged.
    #[cfg(feature = "oauth")]
    pub(crate) fn with_note(self, note: &str) -> Self {
        match self {
            AuthError::Required { .. } | AuthError::Store { .. } => self,
            other => other.map_reason(|reason| format!("{reason}; {note}")),
        }
    }

    /// The same error with `change` applied to its reason.
    fn map_reason(self, change: impl Fn(String) -> String) -> Self {
        match self {
            AuthError::Discovery { server, reason } => AuthError::Discovery {
                server,
                reason: change(reason),
            },
            AuthError::Refused { server, reason } => AuthError::Refused {
                server,
                reason: change(reason),
            },
            AuthError::Rejected { server, reason } => AuthError::Rejected {
                server,
                reason: change(reason),
            },
            AuthError::Unsupported { server, reason } => AuthError::Unsupported {
                server,
                reason: change(reason),
            },
            AuthError::Http { server, reason } => AuthError::Http {
                server,
                reason: change(reason),
            },
            AuthError::Store { reason } => AuthError::Store {
                reason: change(reason),
            },
            required @ AuthError::Required { .. } => required,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_server_and_operation() {
        let exited = SessionError::from_transport(
            "github",
            "initialize",
            TransportError::Exited {
                server: "github".into(),
                status: ExitStatus::Code(3),
                stderr_tail: "fatal: missing API_TOKEN\n".into(),
            },
        );
        assert_eq!(
            exited.to_string(),
            "server 'github' exited with status 3 during initialize: fatal: missing API_TOKEN"
        );
        assert_eq!(exited.kind_name(), "exited");
        let timeout = SessionError::new(
            "slow",
            "tools/list",
            ErrorKind::Timeout {
                after: Duration::from_secs(60),
            },
        );
        assert_eq!(
            timeout.to_string(),
            "server 'slow': tools/list: timed out after 60s"
        );
        let leaked = SessionError::from_rpc(
            "fs",
            "tools/call",
            ErrorObject {
                code: ErrorCode::INTERNAL_ERROR,
                message: "upstream refused key sk-live-0815abc".into(),
                data: Some(serde_json::json!({"key": "sk-live-0815abc"})),
            },
        )
        .masked(&Masker::new(["sk-live-0815abc"]));
        assert_eq!(
            leaked.to_string(),
            "server 'fs': tools/call: server error -32603 (internal error): upstream refused key *** ({\"key\":\"***\"})"
        );
        let rpc = SessionError::from_rpc(
            "fs",
            "prompts/list",
            ErrorObject::method_not_found("prompts/list"),
        );
        assert!(rpc.is_method_not_found());
        assert!(rpc.to_string().contains("-32601 (method not found)"));
    }
}
