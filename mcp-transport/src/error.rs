//! The one error type of this crate.

use std::time::Duration;

use mcpdisco_protocol::ErrorObject;

use crate::secret::Masker;

/// Whether a request reached the server, which decides whether it may be
/// sent again: one that was never sent may always be; one that may have run
/// only when the method is idempotent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery {
    /// It never left (no connection, the process was gone, the session was
    /// closed or expired): it cannot have run.
    NotSent,
    /// It was sent (or may have been), then the connection was lost before
    /// an answer: it may have run.
    Lost,
    /// The server answered with an error (JSON-RPC, or an HTTP status).
    Answered,
    /// It was sent and no answer came in time: it may have run.
    TimedOut,
}

impl Delivery {
    /// Whether the server may have acted on the request.
    pub fn may_have_run(self) -> bool {
        matches!(self, Delivery::Lost | Delivery::TimedOut)
    }
}

/// How a child process ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExitStatus {
    /// It exited with this code.
    Code(i32),
    /// It was killed by this signal.
    Signal(i32),
    /// It is gone but its status could not be read.
    Unknown,
}

impl std::fmt::Display for ExitStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExitStatus::Code(code) => write!(f, "status {code}"),
            ExitStatus::Signal(signal) => write!(f, "signal {signal}"),
            ExitStatus::Unknown => write!(f, "unknown status"),
        }
    }
}

/// Formats a stderr tail for an error message: `": <tail>"`, or nothing when empty.
fn tail_suffix(tail: &str) -> String {
    let trimmed = tail.trim();
    if trimmed.is_empty() {
        String::new()
    } else {
        format!(": {trimmed}")
    }
}

/// Everything that can go wrong below the session. Callers match on the
/// variant to decide whether to retry, re-initialize or give up.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TransportError {
    /// The child process could not be started.
    #[error("server '{server}': failed to start '{command}': {source}")]
    Spawn {
        /// The server's name.
        server: String,
        /// The program that was run (never its environment).
        command: String,
        /// The operating system's reason.
        #[source]
        source: std::io::Error,
    },
    /// The child process exited or closed its stdout.
    #[error("server '{server}' exited with {status}{}", tail_suffix(stderr_tail))]
    Exited {
        /// The server's name.
        server: String,
        /// How it ended.
        status: ExitStatus,
        /// The last lines it wrote to stderr.
        stderr_tail: String,
    },
    /// The connection is closed; nothing more can be sent or received.
    #[error("server '{server}': connection closed")]
    Closed {
        /// The server's name.
        server: String,
    },
    /// A local I/O error on the connection.
    #[error("server '{server}': I/O error: {source}")]
    Io {
        /// The server's name.
        server: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// No connection could be made (refused, unreachable, DNS, TLS): the
    /// message was never sent.
    #[error("server '{server}': cannot connect to {url}: {cause}: {reason}")]
    Connect {
        /// The server's name.
        server: String,
        /// The URL, without credentials.
        url: String,
        /// What kind of failure it was, which decides whether trying again
        /// can help.
        cause: ConnectCause,
        /// Why, in the words of the layer that failed.
        reason: String,
    },
    /// The connection broke while the message was being sent or its answer
    /// awaited (reset, closed early): the server may have received it.
    #[error("server '{server}': the connection to {url} broke off: {reason}")]
    Interrupted {
        /// The server's name.
        server: String,
        /// The URL, without credentials.
        url: String,
        /// Why.
        reason: String,
    },
    /// An HTTP exchange took too long.
    #[error("server '{server}': HTTP request timed out after {after:?}")]
    Timeout {
        /// The server's name.
        server: String,
        /// How long it waited.
        after: Duration,
    },
    /// HTTP 429.
    #[error("server '{server}': rate limited (HTTP 429){}", retry_after.map(|d| format!(", retry after {d:?}")).unwrap_or_default())]
    RateLimited {
        /// The server's name.
        server: String,
        /// What `Retry-After` asked for.
        retry_after: Option<Duration>,
    },
    /// The HTTP session is gone (404 on a request that carried a session id).
    /// The session layer re-initializes.
    #[error("server '{server}': HTTP session expired")]
    SessionExpired {
        /// The server's name.
        server: String,
    },
    /// Any other HTTP status that is not success.
    #[error("server '{server}': HTTP {status}{}{}", rpc_error.as_ref().map(|e| format!(": {e}")).unwrap_or_default(), if rpc_error.is_none() && !body.is_empty() { format!(": {body}") } else { String::new() })]
    Http {
        /// The server's name.
        server: String,
        /// The status code.
        status: u16,
        /// A JSON-RPC error carried in the body, if any.
        rpc_error: Option<Box<ErrorObject>>,
        /// The start of the body, when it is not JSON-RPC (bounded).
        body: String,
    },
    /// The server refused the request's credentials: HTTP 401, or 403 with a
    /// `Bearer` challenge (such as `insufficient_scope`). The request was not
    /// acted on; an authorization layer may obtain a token and send it again.
    #[error("server '{server}': authorization required (HTTP {status}){}", challenge.as_ref().map(|c| format!(": {c}")).unwrap_or_default())]
    Unauthorized {
        /// The server's name.
        server: String,
        /// 401 or 403.
        status: u16,
        /// The `WWW-Authenticate` header, as sent (masked).
        challenge: Option<String>,
        /// A `DPoP-Nonce` header, if the server sent one.
        dpop_nonce: Option<String>,
    },
    /// The server redirected to another origin. Redirects are followed within
    /// the server's origin only, so credentials never reach another host.
    #[error(
        "server '{server}': the server redirected (HTTP {status}) to another origin, {origin}; cross-origin redirects are not followed, so credentials never leave the server's origin"
    )]
    CrossOriginRedirect {
        /// The server's name.
        server: String,
        /// The redirect's status.
        status: u16,
        /// The origin it pointed to (masked).
        origin: String,
    },
    /// The peer broke the wire protocol (bad content type, bad SSE, bad JSON where JSON was required).
    #[error("server '{server}': protocol error: {reason}")]
    Protocol {
        /// The server's name.
        server: String,
        /// What was wrong.
        reason: String,
    },
    /// A configuration value is unusable (bad URL, bad header name).
    #[error("server '{server}': invalid configuration: {reason}")]
    Config {
        /// The server's name.
        server: String,
        /// What was wrong.
        reason: String,
    },
}

/// Why a connection could not be made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConnectCause {
    /// Nothing listens at the address: the connection was refused.
    Refused,
    /// The host name does not resolve.
    Dns,
    /// The TLS handshake failed (an untrusted certificate, a server that
    /// does not speak TLS, …).
    Tls,
    /// The connection was reset or aborted while it was being made.
    Reset,
    /// The connection was not made in time.
    TimedOut,
    /// Anything else (an unreachable network, say).
    Other,
}

impl ConnectCause {
    /// Whether trying again soon may succeed: a reset or a timeout may pass;
    /// a refusal, a DNS failure, a TLS failure or an unknown cause is
    /// reported at once.
    pub fn is_transient(self) -> bool {
        matches!(self, ConnectCause::Reset | ConnectCause::TimedOut)
    }

    /// A short name, such as `connection_refused`, for logs and telemetry.
    pub fn as_str(self) -> &'static str {
        match self {
            ConnectCause::Refused => "connection_refused",
            ConnectCause::Dns => "dns_failure",
            ConnectCause::Tls => "tls_failure",
            ConnectCause::Reset => "connection_reset",
            ConnectCause::TimedOut => "connect_timeout",
            ConnectCause::Other => "connect_failure",
        }
    }
}

impl std::fmt::Display for ConnectCause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ConnectCause::Refused => "connection refused",
            ConnectCause::Dns => "the host name does not resolve",
            ConnectCause::Tls => "the TLS handshake failed",
            ConnectCause::Reset => "the connection was reset",
            ConnectCause::TimedOut => "no connection in time",
            ConnectCause::Other => "no connection",
        })
    }
}

impl TransportError {
    /// The same error with every known secret in its texts masked (the
    /// stderr tail, reasons, bodies, a server's JSON-RPC error).
    pub fn masked(self, masker: &Masker) -> Self {
        if masker.is_empty() {
            return self;
        }
        let mask = |text: String| masker.mask_string(text);
        match self {
            TransportError::Exited {
                server,
                status,
                stderr_tail,
            } => TransportError::Exited {
                server,
                status,
                stderr_tail: mask(stderr_tail),
            },
            TransportError::Connect {
                server,
                url,
                cause,
                reason,
            } => TransportError::Connect {
                server,
                url: mask(url),
                cause,
                reason: mask(reason),
            },
            TransportError::Interrupted {
                server,
                url,
                reason,
            } => TransportError::Interrupted {
                server,
                url: mask(url),
                reason: mask(reason),
            },
            TransportError::Http {
                server,
                status,
                rpc_error,
                body,
            } => TransportError::Http {
                server,
                status,
                rpc_error: rpc_error.map(|error| Box::new(masker.mask_error_object(*error))),
                body: mask(body),
            },
            TransportError::CrossOriginRedirect {
                server,
                status,
                origin,
            } => TransportError::CrossOriginRedirect {
                server,
                status,
                origin: mask(origin),
            },
            TransportError::Unauthorized {
                server,
                status,
                challenge,
                dpop_nonce,
            } => TransportError::Unauthorized {
                server,
                status,
                challenge: challenge.map(mask),
                dpop_nonce,
            },
            TransportError::Protocol { server, reason } => TransportError::Protocol {
                server,
                reason: mask(reason),
            },
            TransportError::Config { server, reason } => TransportError::Config {
                server,
                reason: mask(reason),
            },
            TransportError::Spawn {
                server,
                command,
                source,
            } => TransportError::Spawn {
                server,
                command: mask(command),
                source,
            },
            other => other,
        }
    }

    /// Whether the connection as a whole is gone (as opposed to one message failing).
    pub fn is_fatal(&self) -> bool {
        matches!(
            self,
            TransportError::Spawn { .. }
                | TransportError::Exited { .. }
                | TransportError::Closed { .. }
        )
    }

    /// Whether the same message may succeed if sent again soon: a
    /// connection reset or timed out while connecting, one that broke off
    /// (a lost answer), HTTP 429, 502, 503 and 504, an expired session
    /// (once re-initialized). A refused connection, a name that does not
    /// resolve and a failed TLS handshake are not: nobody is there, or
    /// nobody we can trust, and waiting does not change that. Whether it
    /// *may* be sent again also depends on [`delivery`](Self::delivery) and
    /// on the method.
    pub fn is_retryable(&self) -> bool {
        match self {
            TransportError::Connect { cause, .. } => cause.is_transient(),
            TransportError::Interrupted { .. }
            | TransportError::RateLimited { .. }
            | TransportError::SessionExpired { .. } => true,
            TransportError::Http { status, .. } => matches!(status, 502..=504),
            _ => false,
        }
    }

    /// What a failed `send` means for the message: whether it can have
    /// reached the server.
    pub fn delivery(&self) -> Delivery {
        match self {
            TransportError::Spawn { .. }
            | TransportError::Connect { .. }
            | TransportError::Closed { .. }
            | TransportError::Config { .. }
            | TransportError::SessionExpired { .. }
            // A write to a process that is gone fails before anything is read.
            | TransportError::Exited { .. } => Delivery::NotSent,
            TransportError::Interrupted { .. } | TransportError::Io { .. } => Delivery::Lost,
            TransportError::Timeout { .. } => Delivery::TimedOut,
            TransportError::RateLimited { .. }
            | TransportError::Http { .. }
            | TransportError::Unauthorized { .. }
            | TransportError::CrossOriginRedirect { .. }
            | TransportError::Protocol { .. } => Delivery::Answered,
        }
    }

    /// How long the server asked us to wait before trying again (HTTP 429 `Retry-After`).
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            TransportError::RateLimited { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_message_names_server_status_and_tail() {
        let error = TransportError::Exited {
            server: "github".into(),
            status: ExitStatus::Code(3),
            stderr_tail: "fatal: missing API_TOKEN\n".into(),
        };
        assert_eq!(
            error.to_string(),
            "server 'github' exited with status 3: fatal: missing API_TOKEN"
        );
        let quiet = TransportError::Exited {
            server: "s".into(),
            status: ExitStatus::Signal(9),
            stderr_tail: String::new(),
        };
        assert_eq!(quiet.to_string(), "server 's' exited with signal 9");
    }
}
