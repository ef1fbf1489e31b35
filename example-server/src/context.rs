//! What every handler is given besides its params: the server's options and
//! shared state, the client of the connection (when there is one), and the
//! request being answered (its id, era and `_meta`).

use std::sync::Arc;

use mcpdisco_protocol::meta::{CLIENT_CAPABILITIES_KEY, LOG_LEVEL_KEY, PROGRESS_TOKEN_KEY};
use mcpdisco_protocol::methods::{LoggingMessage, Progress};
use mcpdisco_protocol::types::{LoggingLevel, LoggingMessageParams, ProgressParams};
use mcpdisco_protocol::version::Era;
use mcpdisco_protocol::{ErrorCode, ErrorObject, RequestId};
use serde_json::Value;

use crate::options::ServerOptions;
use crate::peer::SharedPeer;
use crate::shared::SharedState;

/// The request a handler answers.
#[derive(Debug)]
pub(crate) struct RequestInfo {
    /// Its JSON-RPC id.
    pub(crate) id: RequestId,
    /// Its era.
    pub(crate) era: Era,
    /// Its `_meta`, when it has one.
    pub(crate) meta: Option<Value>,
}

/// What a handler is given. Cheap to clone.
#[derive(Debug, Clone)]
pub(crate) struct Context {
    /// The server's options.
    pub(crate) options: Arc<ServerOptions>,
    /// State shared by every connection.
    pub(crate) shared: Arc<SharedState>,
    /// The client of this connection; `None` for a message answered alone.
    pub(crate) peer: Option<SharedPeer>,
    /// The request.
    pub(crate) request: Arc<RequestInfo>,
}

impl Context {
    /// The client, or -32603 for a message answered without a connection.
    pub(crate) fn peer(&self) -> Result<&SharedPeer, ErrorObject> {
        self.peer.as_ref().ok_or_else(|| {
            ErrorObject::new(
                ErrorCode::INTERNAL_ERROR,
                "this request needs a connection to the client",
            )
        })
    }

    fn meta(&self, key: &str) -> Option<&Value> {
        self.request.meta.as_ref().and_then(|meta| meta.get(key))
    }

    /// The client's capabilities as a modern request declares them.
    pub(crate) fn modern_capabilities(&self) -> Option<&Value> {
        self.meta(CLIENT_CAPABILITIES_KEY)
    }

    /// Whether the client declared the capability `name` (a modern request's
    /// `_meta`; a legacy client is taken at its word).
    pub(crate) fn client_can(&self, name: &str) -> bool {
        match self.request.era {
            Era::Modern => self
                .modern_capabilities()
                .is_some_and(|capabilities| capabilities.get(name).is_some()),
            Era::Legacy => true,
        }
    }

    /// The least severe level the client wants logged for this request:
    /// the modern request's `logLevel`, or the connection's `logging/setLevel`.
    /// `None` means no log messages (a modern request that names no level).
    fn wanted_level(&self) -> Option<LoggingLevel> {
        match self.request.era {
            Era::Modern => self
                .meta(LOG_LEVEL_KEY)
                .and_then(|level| serde_json::from_value(level.clone()).ok()),
            Era::Legacy => Some(
                self.peer
                    .as_ref()
                    .and_then(|peer| peer.log_level())
                    .unwrap_or(LoggingLevel::Debug),
            ),
        }
    }

    /// Logs `text` at `level` to the client, when it wants that level.
    pub(crate) async fn log(&self, level: LoggingLevel, text: &str) -> Result<(), ErrorObject> {
        let (Some(peer), Some(wanted)) = (&self.peer, self.wanted_level()) else {
            return Ok(());
        };
        if severity(&level) < severity(&wanted) {
            return Ok(());
        }
        let params = LoggingMessageParams {
            level,
            logger: Some(self.options.name.clone()),
            data: Value::String(text.to_owned()),
            meta: None,
            extra: Default::default(),
        };
        peer.notify::<LoggingMessage>(&params).await
    }

    /// Reports `progress` of `total` when the request asked for progress.
    pub(crate) async fn progress(&self, progress: f64, total: f64) -> Result<(), ErrorObject> {
        let (Some(peer), Some(token)) = (&self.peer, self.meta(PROGRESS_TOKEN_KEY)) else {
            return Ok(());
        };
        let params = ProgressParams {
            progress_token: token.clone(),
            progress,
            total: Some(total),
            message: None,
            meta: None,
            extra: Default::default(),
        };
        peer.notify::<Progress>(&params).await
    }
}

/// How severe `level` is ([`LoggingLevel::severity`]); an unknown level counts as info.
fn severity(level: &LoggingLevel) -> u8 {
    level.severity().unwrap_or(1)
}
