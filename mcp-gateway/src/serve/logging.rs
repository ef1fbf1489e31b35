//! Logging for legacy clients: `logging/setLevel` and the servers' log
//! messages (`notifications/message`) passed on to them.
//!
//! - A client's `logging/setLevel` is kept on its connection, and the most
//!   verbose level any connected client set goes to every connected legacy
//!   server that declares `logging` (and to a server that becomes ready
//!   later). A modern server has no `logging/setLevel`: a call for a
//!   client that set a level asks it for that level (`_meta.logLevel`,
//!   see `calls::routed`), and the gateway filters.
//! - A server's log message goes, while it serves calls of legacy clients
//!   (and for a second after each ends: what the server logged just before
//!   its answer reaches the gateway after it), to those clients only (a
//!   client that set no level gets every message of its own calls, as the
//!   server would have sent it); otherwise to
//!   every legacy client that set a level and sees the server. Each client
//!   gets the messages at its level or more severe (RFC 5424 order: debug <
//!   info < notice < warning < error < critical < alert < emergency; a
//!   level the gateway does not know counts as debug). The message is the
//!   server's (`logger` kept), masked like everything from a server.
//! - Modern clients set a level per request; the gateway does not pass
//!   servers' log messages on to them.
//! - With `--session-store`, the level a client set holds for its session
//!   on every replica of a fleet (`fleet_sessions`).

use std::sync::Arc;
use std::time::Duration;

use mcpdisco_protocol::method::{NotificationMethod, RequestMethod};
use mcpdisco_protocol::methods::{LoggingMessage, SetLevel};
use mcpdisco_protocol::types::{EmptyResult, LoggingLevel, LoggingMessageParams, SetLevelParams};
use mcpdisco_protocol::version::Era;
use mcpdisco_protocol::{ErrorCode, ErrorObject};

use super::bridge::Bridge;
use super::client::{ClientLink, LogWish};
use super::context::RequestContext;
use super::listings::Listings;
use crate::supervisor::Supervisor;

/// How long one client may take to take one log message.
const DELIVERY_TIMEOUT: Duration = Duration::from_secs(5);

/// Where `level` stands in RFC 5424 order ([`LoggingLevel::severity`]);
/// a level the gateway does not know counts as debug.
pub(crate) fn severity(level: &LoggingLevel) -> u8 {
    level.severity().unwrap_or(0)
}

/// Whether a client that wants `wanted` and above gets a message at `level`.
pub(crate) fn passes(level: &LoggingLevel, wanted: &LoggingLevel) -> bool {
    severity(level) >= severity(wanted)
}

/// The most verbose of `levels`, if any.
pub(crate) fn most_verbose(levels: impl IntoIterator<Item = LoggingLevel>) -> Option<LoggingLevel> {
    levels.into_iter().min_by_key(severity)
}

/// `logging/setLevel` (legacy clients): kept on the connection, and the
/// most verbose level of all clients sent to the servers that take it.
pub(crate) async fn set_level(
    params: SetLevelParams,
    request: RequestContext,
) -> Result<EmptyResult, ErrorObject> {
    if request.era != Era::Legacy {
        return Err(ErrorObject::method_not_found(SetLevel::METHOD));
    }
    if matches!(params.level, LoggingLevel::Other(_)) {
        return Err(ErrorObject::new(
            ErrorCode::INVALID_PARAMS,
            format!(
                "{}: unknown level {:?}",
                SetLevel::METHOD,
                params.level.as_str()
            ),
        ));
    }
    super::fleet_sessions::level_set(&request.shared, &request.link, &params.level);
    request.link.set_log_wish(LogWish {
        level: params.level,
        profile: request.profile.clone(),
    });
    let supervisor = &request.shared.supervisor;
    if let Some(level) = wanted_by_clients(&request.shared.bridge) {
        forward_level(supervisor, &level, supervisor.servers()).await;
    }
    Ok(EmptyResult::default())
}

/// The most verbose level any legacy client connected to `bridge` set.
pub(crate) fn wanted_by_clients(bridge: &Bridge) -> Option<LoggingLevel> {
    most_verbose(
        bridge
            .clients()
            .iter()
            .filter(|link| link.is_legacy())
            .filter_map(|link| link.log_wish().map(|wish| wish.level)),
    )
}

/// Sends `level` to each of `servers` that is connected, legacy, and
/// declares `logging`; a server that refuses is logged, not an error.
pub(crate) async fn forward_level(
    supervisor: &Supervisor,
    level: &LoggingLevel,
    servers: Vec<String>,
) {
    let takers = servers.into_iter().filter(|server| {
        supervisor.connected_session(server).is_some_and(|session| {
            session.era() == Era::Legacy && session.capabilities().logging.is_some()
        })
    });
    let sends = takers.map(|server| async move {
        if let Err(error) = supervisor.set_log_level(&server, level.clone()).await {
            tracing::warn!(%server, %error, "could not set the server's log level");
        }
    });
    futures::future::join_all(sends).await;
}

/// Passes `message`, from `server`, on to the clients of `bridge` that get
/// it (a client that set a level only when its view, of `listings`, shows
/// the server).
pub(crate) async fn deliver(
    bridge: &Bridge,
    listings: &Listings,
    server: &str,
    message: LoggingMessageParams,
) {
    let callers = bridge.legacy_callers(server);
    let (recipients, own_calls) = if callers.is_empty() {
        let listening = bridge
            .clients()
            .into_iter()
            .filter(|link| link.is_legacy() && sees(listings, link, server))
            .collect();
        (listening, false)
    } else {
        (callers, true)
    };
    for link in recipients {
        let wanted = link.log_wish().map(|wish| wish.level);
        let takes = match &wanted {
            Some(wanted) => passes(&message.level, wanted),
            // No level set: only its own calls' messages, all of them.
            None => own_calls,
        };
        if takes {
            let sent =
                tokio::time::timeout(DELIVERY_TIMEOUT, link.notify::<LoggingMessage>(&message));
            if sent.await.is_err() {
                tracing::debug!(
                    method = LoggingMessage::METHOD,
                    "a client did not take a log message in time"
                );
            }
        }
    }
}

/// Whether the client `link`, which set a level, sees `server` in its profile.
fn sees(listings: &Listings, link: &Arc<ClientLink>, server: &str) -> bool {
    link.log_wish()
        .is_some_and(|wish| listings.view(wish.profile.as_deref()).shows_server(server))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ORDER: [LoggingLevel; 8] = [
        LoggingLevel::Debug,
        LoggingLevel::Info,
        LoggingLevel::Notice,
        LoggingLevel::Warning,
        LoggingLevel::Error,
        LoggingLevel::Critical,
        LoggingLevel::Alert,
        LoggingLevel::Emergency,
    ];

    #[test]
    fn a_client_gets_its_level_and_the_more_severe_ones_only() {
        for (wanted_at, wanted) in ORDER.iter().enumerate() {
            for (level_at, level) in ORDER.iter().enumerate() {
                assert_eq!(
                    passes(level, wanted),
                    level_at >= wanted_at,
                    "{level} for a client at {wanted}"
                );
            }
        }
        let unknown = LoggingLevel::Other("trace".into());
        assert!(passes(&unknown, &LoggingLevel::Debug));
        assert!(!passes(&unknown, &LoggingLevel::Info));
    }

    #[test]
    fn servers_are_sent_the_most_verbose_level_any_client_set() {
        let levels = [
            LoggingLevel::Error,
            LoggingLevel::Info,
            LoggingLevel::Critical,
        ];
        assert_eq!(most_verbose(levels), Some(LoggingLevel::Info));
        assert_eq!(
            most_verbose([LoggingLevel::Alert]),
            Some(LoggingLevel::Alert)
        );
        assert_eq!(most_verbose([]), None);
    }
}
