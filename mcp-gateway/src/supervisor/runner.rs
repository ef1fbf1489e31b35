//! The runner of one server: a tokio task that performs what the server's
//! [`Lifecycle`] asks (starts, pings, listings, timers, states published)
//! and feeds back what came of it and what happened meanwhile (the process
//! exited, a list changed, a command came). It decides nothing itself.
//! A server's log messages and resource updates are published as events
//! for `serve` to deliver.

use std::collections::{BTreeMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};
use std::time::Duration;

use mcpdisco::report::ServerReport;
use mcpdisco_client::session::{ServerNotification, Session};
use mcpdisco_protocol::types::LoggingLevel;
use tokio::sync::broadcast::{self, error::RecvError};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::events::SupervisorEvent;
use super::lifecycle::{Action, Event, Lifecycle, Timer};
use super::listen::{ListChangeListen, listen_for_list_changes};
use super::opening::{list_again, open};
use super::shared::{Command, Shared, Unit};

/// Resolves once, when a session ends.
type Closed = Pin<Box<dyn Future<Output = ()> + Send>>;

/// The task of one server.
pub(crate) struct Runner {
    shared: Weak<Shared>,
    unit: Arc<Unit>,
    lifecycle: Lifecycle,
    /// When each set timer fires.
    timers: BTreeMap<Timer, Instant>,
    /// A session just connected and what it listed, until it is used.
    connected: Option<(Session, ServerReport)>,
    /// A listing just made, until it is offered.
    listing: Option<ServerReport>,
    /// The end of the session in use (taken when it fired).
    closed: Option<Closed>,
    /// The notifications of the session in use.
    notifications: Option<broadcast::Receiver<ServerNotification>>,
    /// The held-open listen of a modern session in use, for its list changes.
    listen: Option<ListChangeListen>,
}

/// What woke a waiting runner.
enum Wake {
    Closed,
    Notification(Result<ServerNotification, RecvError>),
    Timer(Timer),
    Command(Option<Command>),
}

impl Runner {
    /// The runner of `unit`, one of the servers of `shared`.
    pub(crate) fn new(shared: &Arc<Shared>, unit: Arc<Unit>) -> Self {
        let options = &shared.options;
        let health = options.health.for_server(&unit.config.ping);
        let deadline = unit.config.timeout.unwrap_or(options.start_deadline);
        let backoff = health.restart_backoff(fastrand::u64(..));
        let lifecycle = Lifecycle::new(unit.name(), health, deadline, backoff);
        Self {
            shared: Arc::downgrade(shared),
            unit,
            lifecycle,
            timers: BTreeMap::new(),
            connected: None,
            listing: None,
            closed: None,
            notifications: None,
            listen: None,
        }
    }

    /// Runs the server until the supervisor is gone (or the task aborted),
    /// taking `commands` from the supervisor.
    pub(crate) async fn run(mut self, mut commands: mpsc::Receiver<Command>) {
        let mut answers = VecDeque::new();
        loop {
            let event = match answers.pop_front() {
                Some(event) => event,
                None => self.next_event(&mut commands).await,
            };
            for action in self.lifecycle.step(event, Instant::now()) {
                if action == Action::Quit {
                    return;
                }
                if let Some(answer) = self.perform(action).await {
                    answers.push_back(answer);
                }
            }
        }
    }

    /// Waits for what happens next to the server.
    async fn next_event(&mut self, commands: &mut mpsc::Receiver<Command>) -> Event {
        loop {
            if self.shared.strong_count() == 0 {
                return Event::Shutdown;
            }
            let timer = self
                .timers
                .iter()
                .min_by_key(|(_, at)| **at)
                .map(|(timer, at)| (*timer, *at));
            let wake = tokio::select! {
                () = until_closed(self.closed.as_mut()) => Wake::Closed,
                received = next_notification(self.notifications.as_mut()) => {
                    Wake::Notification(received)
                }
                fired = until_timer(timer) => Wake::Timer(fired),
                command = commands.recv() => Wake::Command(command),
            };
            match wake {
                Wake::Closed => {
                    self.closed = None;
                    return Event::Exited {
                        cause: self.exit_cause(),
                    };
                }
                Wake::Notification(Ok(notification)) if notification.invalidates_lists() => {
                    return Event::ListChanged;
                }
                Wake::Notification(Ok(notification)) => self.publish(notification),
                // Notifications were lost: one of them may have said so.
                Wake::Notification(Err(RecvError::Lagged(_))) => return Event::ListChanged,
                Wake::Notification(Err(RecvError::Closed)) => self.notifications = None,
                Wake::Timer(timer) => {
                    self.timers.remove(&timer);
                    return timer.event();
                }
                Wake::Command(Some(Command::Start)) => return Event::StartRequested,
                Wake::Command(Some(Command::Reconnect)) => return Event::Reconnect,
                Wake::Command(None) => return Event::Shutdown,
            }
        }
    }

    /// Performs `action`; answers the event it ended in, if it ends in one.
    async fn perform(&mut self, action: Action) -> Option<Event> {
        match action {
            Action::Connect { deadline } => return Some(self.connect(deadline).await),
            Action::UseSession => self.use_session(),
            Action::Close => self.close().await,
            Action::Abandon => {
                if let Some((session, _)) = self.connected.take() {
                    let _ = session.close().await;
                }
            }
            Action::Ping { timeout } => return Some(ping(self.session(), timeout).await),
            Action::Relist { deadline } => return Some(self.relist(deadline).await),
            Action::OfferListing => {
                if let (Some(listing), Some(shared)) = (self.listing.take(), self.shared.upgrade())
                {
                    shared.offer(self.unit.name(), Some(listing));
                }
            }
            Action::Schedule { timer, at } => {
                self.timers.insert(timer, at);
            }
            Action::Cancel(timer) => {
                self.timers.remove(&timer);
            }
            Action::Publish(status) => match self.shared.upgrade() {
                Some(shared) => shared.set_status(&self.unit, status),
                None => {
                    self.unit.status.send_replace(status);
                }
            },
            Action::RecordCause(cause) => *self.unit.last_failure.lock() = cause,
            Action::AnnounceListChanged => {
                if let Some(shared) = self.shared.upgrade() {
                    let _ = shared.events.send(SupervisorEvent::ListChanged {
                        server: self.unit.name().to_owned(),
                    });
                }
            }
            Action::Quit => {}
        }
        None
    }

    /// Starts the server; keeps its session until it is used.
    async fn connect(&mut self, deadline: Duration) -> Event {
        let Some(shared) = self.shared.upgrade() else {
            return Event::StartFailed {
                cause: "the supervisor is shut down".into(),
            };
        };
        let opening = open(&shared, &self.unit.config, deadline);
        drop(shared);
        match opening.await {
            Ok(connected) => {
                self.connected = Some(connected);
                Event::Started
            }
            Err(cause) => {
                tracing::info!(server = %self.unit.name(), %cause, "start failed");
                Event::StartFailed { cause }
            }
        }
    }

    /// Serves calls through the session just connected, and offers what it listed.
    fn use_session(&mut self) {
        let Some((session, report)) = self.connected.take() else {
            return;
        };
        self.closed = Some(Box::pin(session.closed()));
        self.notifications = Some(session.notifications());
        self.listen = listen_for_list_changes(&session);
        *self.unit.session.write() = Some(session);
        if let Some(shared) = self.shared.upgrade() {
            let incarnation = shared.sessions_started.fetch_add(1, Ordering::AcqRel) + 1;
            self.unit.generation.store(incarnation, Ordering::Release);
            shared.offer(self.unit.name(), Some(report));
        }
    }

    /// Closes the session (in use or just connected); the server's items
    /// leave the catalog.
    async fn close(&mut self) {
        self.closed = None;
        self.notifications = None;
        self.listen = None;
        self.listing = None;
        let in_use = self.unit.session.write().take();
        let connected = self.connected.take().map(|(session, _)| session);
        if in_use.is_some()
            && let Some(shared) = self.shared.upgrade()
        {
            shared.offer(self.unit.name(), None);
        }
        for session in in_use.into_iter().chain(connected) {
            let _ = session.close().await;
        }
    }

    /// Lists the server again; keeps the listing until it is offered.
    async fn relist(&mut self, deadline: Duration) -> Event {
        let Some(session) = self.session() else {
            return Event::ListRefused {
                cause: "no session".into(),
            };
        };
        match list_again(&session, deadline).await {
            Ok(listing) => {
                self.listing = Some(listing);
                Event::Listed
            }
            Err(cause) => {
                tracing::warn!(server = %self.unit.name(), %cause, "listing again after list_changed failed; the last listing stays");
                Event::ListRefused { cause }
            }
        }
    }

    /// Publishes a log message or a resource update of the server (without
    /// waiting: subscribers deliver it); other notifications are dropped.
    fn publish(&self, notification: ServerNotification) {
        let server = self.unit.name().to_owned();
        let event = match notification {
            ServerNotification::LogMessage {
                level,
                logger,
                data,
            } => SupervisorEvent::Log {
                server,
                level: LoggingLevel::from(level.as_str()),
                logger,
                data,
            },
            ServerNotification::ResourceUpdated { uri } => {
                SupervisorEvent::ResourceUpdated { server, uri }
            }
            _ => return,
        };
        if let Some(shared) = self.shared.upgrade() {
            let _ = shared.events.send(event);
        }
    }

    fn session(&self) -> Option<Session> {
        self.unit.session.read().clone()
    }

    /// Why the session in use ended.
    fn exit_cause(&self) -> String {
        self.session()
            .and_then(|session| session.gone())
            .map_or_else(
                || "the connection ended".to_owned(),
                |error| error.to_string(),
            )
    }
}

/// Pings the server of `session`, waiting up to `timeout` for the answer.
async fn ping(session: Option<Session>, timeout: Duration) -> Event {
    let Some(session) = session else {
        return Event::PingMissed;
    };
    match tokio::time::timeout(timeout, session.ping()).await {
        Ok(Ok(())) => Event::PingAnswered,
        _ => Event::PingMissed,
    }
}

/// Resolves when `closed` does; never without one.
async fn until_closed(closed: Option<&mut Closed>) {
    match closed {
        Some(closed) => closed.await,
        None => std::future::pending().await,
    }
}

/// The next notification of `notifications`; never without a receiver.
async fn next_notification(
    notifications: Option<&mut broadcast::Receiver<ServerNotification>>,
) -> Result<ServerNotification, RecvError> {
    match notifications {
        Some(receiver) => receiver.recv().await,
        None => std::future::pending().await,
    }
}

/// Resolves with `timer` when it fires; never without one.
async fn until_timer(timer: Option<(Timer, Instant)>) -> Timer {
    match timer {
        Some((timer, at)) => {
            tokio::time::sleep_until(at).await;
            timer
        }
        None => std::future::pending().await,
    }
}
