//! Discovering one server: start it, connect, list everything it advertises,
//! all under the server's own deadline.

use std::sync::Arc;

use mcpdisco_transport::sync::Mutex;
use std::time::{Duration, Instant};

use futures::future::join_all;
use tokio::sync::broadcast::error::TryRecvError;

use crate::clock::{millis, now_ms};
use crate::config::ServerConfig;
use crate::connect::{ConnectContext, Connection, Connectors};
use crate::report::{Failure, ServerReport, ServerStatus, Timings};
use mcpdisco_client::session::{ListKind, Session, SessionError, SessionOptions};

/// The longest a failed server's transport may take to close.
const CLOSE_LIMIT: Duration = Duration::from_secs(5);
/// How much of a timed-out server's stderr goes into its error.
const STDERR_IN_ERROR: usize = 2048;

/// What one probe produced.
pub(crate) struct Probed {
    /// The report (never from the cache).
    pub report: ServerReport,
    /// The open session, when the caller asked to keep it and the server is ready.
    pub session: Option<Session>,
    /// The session to close, when the caller did not keep it: closing is
    /// left to the caller, so the report does not wait for it.
    pub to_close: Option<Session>,
    /// Whether a `list_changed` arrived while listing: the lists may already be stale.
    pub saw_list_changed: bool,
}

/// Where a probe is, for the timeout message.
#[derive(Clone, Default)]
struct Phase(Arc<Mutex<&'static str>>);

impl Phase {
    fn set(&self, phase: &'static str) {
        *self.0.lock() = phase;
    }
    fn get(&self) -> &'static str {
        *self.0.lock()
    }
}

/// The settings of one probe.
pub(crate) struct ProbeSettings<'a> {
    pub connectors: &'a Connectors,
    pub context: ConnectContext,
    pub session: SessionOptions,
    pub deadline: Duration,
    pub keep_session: bool,
}

/// Discovers `server` within `settings.deadline`. Never fails: a failure is a failed report.
pub(crate) async fn probe(server: &ServerConfig, settings: ProbeSettings<'_>) -> Probed {
    let started = Instant::now();
    let phase = Phase::default();
    let opened: Arc<Mutex<Option<Connection>>> = Arc::default();
    let work = run(server, &settings, &phase, &opened);
    let outcome = tokio::time::timeout(settings.deadline, work).await;
    let elapsed = started.elapsed();
    let transport = opened.lock().take();
    match outcome {
        Ok(Ok(mut ready)) => {
            ready.report.duration_ms = millis(elapsed);
            // Discovery's deadline ends with discovery.
            ready.session.set_deadline(None);
            let (session, to_close) = if settings.keep_session {
                (Some(ready.session), None)
            } else {
                (None, Some(ready.session))
            };
            Probed {
                report: ready.report,
                session,
                to_close,
                saw_list_changed: ready.saw_list_changed,
            }
        }
        Ok(Err(error)) => {
            close_bounded(transport.as_ref()).await;
            failed(server, Failure::from_session(&error), elapsed)
        }
        Err(_) => {
            let mut message = format!(
                "server '{}': no answer within the {} deadline (while {})",
                server.name,
                humanize(settings.deadline),
                phase.get()
            );
            if let Some(transport) = &transport {
                if let Some(skipped) = transport.details().skipped_lines() {
                    if skipped.oversized() > 0 {
                        message.push_str(&format!(
                            "; {} stdout line(s) over the size limit were discarded",
                            skipped.oversized()
                        ));
                    } else if skipped.count() > 0 {
                        message.push_str(&format!(
                            "; {} stdout line(s) were not JSON-RPC and were skipped",
                            skipped.count()
                        ));
                    }
                }
                let tail = transport.stderr_tail();
                let tail = last_chars(tail.trim(), STDERR_IN_ERROR);
                if !tail.is_empty() {
                    message.push_str("; stderr: ");
                    message.push_str(tail);
                }
            }
            close_bounded(transport.as_ref()).await;
            failed(
                server,
                Failure {
                    kind: "timeout".into(),
                    message,
                },
                elapsed,
            )
        }
    }
}

struct Ready {
    report: ServerReport,
    session: Session,
    saw_list_changed: bool,
}

async fn run(
    server: &ServerConfig,
    settings: &ProbeSettings<'_>,
    phase: &Phase,
    opened: &Mutex<Option<Connection>>,
) -> Result<Ready, SessionError> {
    let started = Instant::now();
    phase.set("starting the server");
    let transport = settings.connectors.open(server, &settings.context).await?;
    *opened.lock() = Some(transport.clone());
    phase.set("connecting (era detection and handshake)");
    let session = Session::connect_shared(
        &server.name,
        transport.transport(),
        transport.session_options(settings.session.clone()),
    )
    .await?;
    let connected = started.elapsed();
    phase.set("listing tools, resources, templates, prompts and skills");
    let (mut report, saw_list_changed) = match describe(&session).await {
        Ok(described) => described,
        Err(error) => {
            let _ = session.close().await;
            return Err(error);
        }
    };
    report.timings = Some(Timings {
        connect_ms: millis(connected),
        list_ms: millis(started.elapsed().saturating_sub(connected)),
        close_ms: None,
    });
    Ok(Ready {
        report,
        session,
        saw_list_changed,
    })
}

/// Lists everything a connected server advertises, into a ready report.
/// A JSON-RPC error on one list is recorded in `list_errors`; anything else fails.
///
/// A `list_changed` that arrives while listing (server-everything sends one
/// right after `initialized`) means the lists may predate the change: they
/// are taken once more. The flag says whether the lists changed again even then.
pub async fn describe(session: &Session) -> Result<(ServerReport, bool), SessionError> {
    let mut notifications = session.notifications();
    let mut report = list_everything(session).await?;
    if !drain_list_changes(&mut notifications) {
        return Ok((report, false));
    }
    tracing::debug!(
        server = session.name(),
        "lists changed while listing; listing again"
    );
    report = list_everything(session).await?;
    Ok((report, drain_list_changes(&mut notifications)))
}

/// Whether any pending notification invalidates lists (a lag counts: we cannot tell).
fn drain_list_changes(
    notifications: &mut tokio::sync::broadcast::Receiver<
        mcpdisco_client::session::ServerNotification,
    >,
) -> bool {
    let mut changed = false;
    loop {
        match notifications.try_recv() {
            Ok(notification) => changed |= notification.invalidates_lists(),
            Err(TryRecvError::Lagged(_)) => changed = true,
            Err(TryRecvError::Empty | TryRecvError::Closed) => return changed,
        }
    }
}

async fn list_everything(session: &Session) -> Result<ServerReport, SessionError> {
    let state = session.state();
    let kinds: Vec<ListKind> = ListKind::ALL
        .into_iter()
        .filter(|kind| session.has_capability(kind.capability()))
        .collect();
    let lists = join_all(kinds.iter().map(|kind| session.list_complete(*kind))).await;

    let mut report = ServerReport::empty(session.name(), ServerStatus::Ready);
    report.protocol_version = Some(state.protocol_version.as_str().to_owned());
    report.era = Some(state.era);
    report.server_info = Some(state.server_info);
    report.capabilities = Some(state.capabilities);
    report.instructions = state.instructions;
    report.cache_scope = state.cache_scope;
    report.ttl_ms = state.ttl_ms;
    for (kind, list) in kinds.into_iter().zip(lists) {
        match list {
            Ok(list) => {
                report.set_items(kind, list.items);
                report.ttl_ms = match (report.ttl_ms, list.ttl_ms) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                };
            }
            // The server answered with an error: record it, keep the server.
            Err(error) if error.server_code().is_some() => {
                report
                    .list_errors
                    .insert(kind.method().to_owned(), Failure::from_session(&error));
            }
            Err(error) => return Err(error),
        }
    }
    report.fetched_at_ms = Some(now_ms());
    Ok(report)
}

fn failed(server: &ServerConfig, failure: Failure, elapsed: Duration) -> Probed {
    tracing::info!(server = %server.name, kind = %failure.kind, "discovery failed");
    Probed {
        report: ServerReport::failed(&server.name, failure, elapsed),
        session: None,
        to_close: None,
        saw_list_changed: false,
    }
}

async fn close_bounded(transport: Option<&Connection>) {
    if let Some(transport) = transport
        && tokio::time::timeout(CLOSE_LIMIT, transport.close())
            .await
            .is_err()
    {
        tracing::warn!("a failed server's transport did not close in time; it is killed on drop");
    }
}

fn last_chars(text: &str, limit: usize) -> &str {
    if text.len() <= limit {
        return text;
    }
    let mut start = text.len() - limit;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}

/// `30s`, `1.5s`, `250ms`.
pub(crate) fn humanize(duration: Duration) -> String {
    if duration.as_millis() < 1000 {
        format!("{}ms", duration.as_millis())
    } else if duration.subsec_millis() == 0 {
        format!("{}s", duration.as_secs())
    } else {
        format!("{:.1}s", duration.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_well() {
        assert_eq!(humanize(Duration::from_secs(30)), "30s");
        assert_eq!(humanize(Duration::from_millis(1500)), "1.5s");
        assert_eq!(humanize(Duration::from_millis(250)), "250ms");
    }

    #[test]
    fn last_chars_respects_utf8() {
        assert_eq!(last_chars("abc", 10), "abc");
        assert_eq!(last_chars("aé", 1), "");
        assert_eq!(last_chars("xyz", 2), "yz");
    }
}
