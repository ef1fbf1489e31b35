//! [`ServerNotification`]: what a server tells the client without being asked.

use mcpdisco_protocol::method::NotificationMethod;
use mcpdisco_protocol::methods::{
    self, LoggingMessage, PromptListChanged, ResourceListChanged, ResourceUpdated, ToolListChanged,
};
use serde_json::Value;

/// A `notifications/progress` for one of our requests.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// The progress so far; increases with each notification.
    pub progress: f64,
    /// The total, when known.
    pub total: Option<f64>,
    /// A human-readable message.
    pub message: Option<String>,
}

impl Progress {
    pub(crate) fn from_params(params: &Value) -> Option<Self> {
        Some(Self {
            progress: params.get("progress")?.as_f64()?,
            total: params.get("total").and_then(Value::as_f64),
            message: params
                .get("message")
                .and_then(Value::as_str)
                .map(str::to_owned),
        })
    }
}

/// A notification from the server, delivered to subscribers of the session.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ServerNotification {
    /// `notifications/tools/list_changed`.
    ToolListChanged,
    /// `notifications/prompts/list_changed`.
    PromptListChanged,
    /// `notifications/resources/list_changed`.
    ResourceListChanged,
    /// `notifications/resources/updated`.
    ResourceUpdated {
        /// The resource that changed.
        uri: String,
    },
    /// `notifications/message`: a log message.
    LogMessage {
        /// The level, such as `info` (kept as sent).
        level: String,
        /// The logger's name.
        logger: Option<String>,
        /// The payload.
        data: Value,
    },
    /// `notifications/progress` whose token matched no request of ours any more.
    Progress {
        /// The progress token.
        token: Value,
        /// The progress itself.
        progress: Progress,
    },
    /// Any other notification, kept raw.
    Other {
        /// The method.
        method: String,
        /// The parameters.
        params: Option<Value>,
    },
}

impl ServerNotification {
    /// Classifies a notification by method.
    pub fn from_parts(method: &str, params: Option<Value>) -> Self {
        let field = |name: &str| {
            params
                .as_ref()
                .and_then(|p| p.get(name))
                .cloned()
                .unwrap_or(Value::Null)
        };
        match method {
            ToolListChanged::METHOD => Self::ToolListChanged,
            PromptListChanged::METHOD => Self::PromptListChanged,
            ResourceListChanged::METHOD => Self::ResourceListChanged,
            ResourceUpdated::METHOD => match field("uri") {
                Value::String(uri) => Self::ResourceUpdated { uri },
                _ => Self::Other {
                    method: method.to_owned(),
                    params,
                },
            },
            LoggingMessage::METHOD => Self::LogMessage {
                level: field("level").as_str().unwrap_or("info").to_owned(),
                logger: field("logger").as_str().map(str::to_owned),
                data: field("data"),
            },
            methods::Progress::METHOD => match params.as_ref().and_then(Progress::from_params) {
                Some(progress) => Self::Progress {
                    token: field("progressToken"),
                    progress,
                },
                None => Self::Other {
                    method: method.to_owned(),
                    params,
                },
            },
            _ => Self::Other {
                method: method.to_owned(),
                params,
            },
        }
    }

    /// Whether this notification means a cached list of this server is stale.
    pub fn invalidates_lists(&self) -> bool {
        matches!(
            self,
            Self::ToolListChanged | Self::PromptListChanged | Self::ResourceListChanged
        )
    }
}
