//! Log levels and log messages.

use serde_json::Value;

use super::extra::Extra;

super::string_enum::open_string_enum!(
    /// A syslog-style level. Unknown levels are kept.
    LoggingLevel {
        /// `debug`.
        Debug => "debug",
        /// `info`.
        Info => "info",
        /// `notice`.
        Notice => "notice",
        /// `warning`.
        Warning => "warning",
        /// `error`.
        Error => "error",
        /// `critical`.
        Critical => "critical",
        /// `alert`.
        Alert => "alert",
        /// `emergency`.
        Emergency => "emergency",
    }
);

impl LoggingLevel {
    /// Where this level stands in RFC 5424 order, from `debug` (0) to
    /// `emergency` (7); `None` for a level this crate does not know.
    pub fn severity(&self) -> Option<u8> {
        Some(match self {
            LoggingLevel::Debug => 0,
            LoggingLevel::Info => 1,
            LoggingLevel::Notice => 2,
            LoggingLevel::Warning => 3,
            LoggingLevel::Error => 4,
            LoggingLevel::Critical => 5,
            LoggingLevel::Alert => 6,
            LoggingLevel::Emergency => 7,
            LoggingLevel::Other(_) => return None,
        })
    }
}

super::extra::struct_with_extra! {
    /// `notifications/message` params.
    #[derive(Debug, Clone, PartialEq)]
    pub struct LoggingMessageParams {
        /// The level.
        pub level: LoggingLevel,
        /// The logger's name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub logger: Option<String>,
        /// The payload.
        pub data: Value,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

super::extra::struct_with_extra! {
    /// `logging/setLevel` params (legacy era).
    #[derive(Debug, Clone, PartialEq)]
    pub struct SetLevelParams {
        /// The lowest level the client wants.
        pub level: LoggingLevel,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

impl SetLevelParams {
    /// Asks for log messages at `level` and above.
    pub fn new(level: LoggingLevel) -> Self {
        Self {
            level,
            meta: None,
            extra: Extra::new(),
        }
    }
}

impl From<LoggingLevel> for SetLevelParams {
    fn from(level: LoggingLevel) -> Self {
        Self::new(level)
    }
}
