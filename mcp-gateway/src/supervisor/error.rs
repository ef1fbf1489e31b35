//! Why a supervisor could not do what was asked ([`SupervisorError`]).

use mcpdisco_client::session::{ErrorKind, ListKind, SessionError};
use mcpdisco_protocol::types::{CreateTaskResult, InputRequiredResult};
use mcpdisco_transport::Delivery;

use super::state::Status;

/// Why a supervisor could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum SupervisorError {
    /// No server has this name.
    #[error("no server named '{0}'")]
    UnknownServer(String),
    /// No server offers an item of this kind by this namespaced name.
    #[error("no {kind} named '{name}' (it may belong to a server that never became ready)")]
    UnknownItem {
        /// `tool`, `prompt`, `resource` or `resource template`.
        kind: &'static str,
        /// The namespaced name asked for.
        name: String,
    },
    /// The server is disabled in its config.
    #[error("server '{0}' is disabled in its config")]
    Disabled(String),
    /// A filter in the server's config hides the item.
    #[error("server '{server}': {kind} '{name}' is hidden by the server's filter in the config")]
    Hidden {
        /// The server.
        server: String,
        /// `tool`, `prompt` or `resource`.
        kind: &'static str,
        /// The item's own name.
        name: String,
    },
    /// The server did not become ready in time.
    #[error("server '{server}' is not ready ({status}){}", cause.as_ref().map(|c| format!(": {c}")).unwrap_or_default())]
    NotReady {
        /// The server.
        server: String,
        /// Its state.
        status: Status,
        /// Why its last start failed, if it did.
        cause: Option<String>,
    },
    /// A modern server needs its client's input before it answers
    /// (2026-07-28), and the request asked to relay such a question rather
    /// than answer it through the session's handler
    /// ([`RequestOptions::relay_input_required`]): the questions and the
    /// server's state, for the client to answer in a retry
    /// ([`RequestOptions::input_retry`]).
    ///
    /// [`RequestOptions::relay_input_required`]: mcpdisco_client::session::RequestOptions::relay_input_required
    /// [`RequestOptions::input_retry`]: mcpdisco_client::session::RequestOptions::input_retry
    #[error("server '{server}' needs its client's input before it answers")]
    InputRequired {
        /// The server.
        server: String,
        /// Its `input_required` result, as it sent it.
        input: Box<InputRequiredResult>,
    },
    /// A modern server runs the call as a task (extension
    /// `io.modelcontextprotocol/tasks`; only when the request declared it):
    /// the task as the server sent it, with the incarnation of the server
    /// that runs it, for [`Supervisor::get_task`](super::Supervisor::get_task) and the others.
    #[error("server '{server}' runs the call as a task")]
    RunsAsTask {
        /// The server.
        server: String,
        /// Its incarnation when it answered ([`Supervisor::incarnation`](super::Supervisor::incarnation)).
        incarnation: u64,
        /// Its answer.
        task: Box<CreateTaskResult>,
    },
    /// The server the supervisor runs was restarted (or its process exited)
    /// since it created the task asked about: the process that ran the
    /// task is gone, and the task with it.
    #[error("server '{server}' was restarted since it created this task: the task is lost")]
    Restarted {
        /// The server.
        server: String,
        /// Its incarnation when it created the task.
        created: u64,
    },
    /// The server answered with an error, or the connection failed.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// The supervisor was shut down.
    #[error("the supervisor is shut down")]
    ShutDown,
}

/// How errors name an item kind.
pub(crate) fn kind_name(kind: ListKind) -> &'static str {
    match kind {
        ListKind::Tools => "tool",
        ListKind::Prompts => "prompt",
        ListKind::Resources => "resource",
        ListKind::ResourceTemplates => "resource template",
        ListKind::Skills => "skill",
    }
}

/// The error of an answer of `server` to `method` that does not read as
/// one (`reason` says how). The server answered, so the request is not sent
/// again.
pub(super) fn malformed_answer(server: &str, method: &str, reason: String) -> SessionError {
    SessionError::new(server, method, ErrorKind::ProtocolViolation { reason })
        .with_delivery(Delivery::Answered)
}

/// The error of `method`'s params to `server` that cannot be written.
pub(super) fn unencodable(server: &str, method: &str, error: &serde_json::Error) -> SessionError {
    SessionError::new(
        server,
        method,
        ErrorKind::ProtocolViolation {
            reason: format!("cannot encode params: {error}"),
        },
    )
}
