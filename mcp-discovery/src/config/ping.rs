//! [`PingSettings`]: a server's own health pings, as its entry sets them.

use std::time::Duration;

/// A server's own health pings (`"health": {"pingInterval": 10, "pingTimeout": 2}`,
/// in seconds); what is left out comes from the supervisor's options.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PingSettings {
    /// Between pings.
    pub interval: Option<Duration>,
    /// How long a ping may take.
    pub timeout: Option<Duration>,
}
