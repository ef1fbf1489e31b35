//! The pure core of the supervisor: the lifecycle of one server as a state
//! machine. [`Lifecycle::step`] takes what happened ([`Event`]) and the time
//! as a value, and answers what to do ([`Action`]); it starts nothing, waits
//! for nothing and reads no clock, so every transition of the diagram in
//! [`state`](super::state) is tested without a runtime. The runner performs
//! the actions and feeds back the events they end in.

use std::time::Duration;

use tokio::time::Instant;

use super::backoff::RestartBackoff;
use super::state::{Health, Status};

/// What happened to a server (or what was asked of it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Event {
    /// Its first use, or every server started at once.
    StartRequested,
    /// It was connected: process, handshake and lists succeeded.
    Started,
    /// Starting it failed.
    StartFailed {
        /// Why.
        cause: String,
    },
    /// Its process exited, or its connection was lost.
    Exited {
        /// Why.
        cause: String,
    },
    /// The ping timer fired.
    PingDue,
    /// A ping was answered in time.
    PingAnswered,
    /// A ping went unanswered (an error, or no answer in time).
    PingMissed,
    /// The server said one of its lists changed.
    ListChanged,
    /// Listing it again succeeded.
    Listed,
    /// Listing it again failed.
    ListRefused {
        /// Why.
        cause: String,
    },
    /// The wait after a failed start is over.
    BackoffElapsed,
    /// The wait of an inactive server is over.
    CooldownElapsed,
    /// Asked to restart now.
    Reconnect,
    /// The supervisor is going away.
    Shutdown,
}

/// The timers of one server (at most one of each is set).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Timer {
    /// The next health ping.
    Ping,
    /// The next start after a failure.
    Backoff,
    /// The next start of an inactive server.
    Cooldown,
}

impl Timer {
    /// What its firing is.
    pub(crate) fn event(self) -> Event {
        match self {
            Timer::Ping => Event::PingDue,
            Timer::Backoff => Event::BackoffElapsed,
            Timer::Cooldown => Event::CooldownElapsed,
        }
    }
}

/// What the runner is to do, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Action {
    /// Open the connection, shake hands and list, all within `deadline`;
    /// ends in [`Event::Started`] or [`Event::StartFailed`].
    Connect {
        /// The longest the whole start may take.
        deadline: Duration,
    },
    /// Serve calls through the session just connected, and offer what it listed.
    UseSession,
    /// Close the session; the server's items leave the catalog (its routes stay).
    Close,
    /// Close the session just connected, unused (the one in use stays).
    Abandon,
    /// Ping the server; ends in [`Event::PingAnswered`] or [`Event::PingMissed`].
    Ping {
        /// How long the answer may take.
        timeout: Duration,
    },
    /// List the server again; ends in [`Event::Listed`] or [`Event::ListRefused`].
    Relist {
        /// The longest the listing may take.
        deadline: Duration,
    },
    /// Offer the listing just made, in place of the last one.
    OfferListing,
    /// Set `timer` to fire at `at` (replacing where it was set).
    Schedule {
        /// Which.
        timer: Timer,
        /// When.
        at: Instant,
    },
    /// Unset a timer.
    Cancel(Timer),
    /// The server is now in this state.
    Publish(Status),
    /// Why the server last failed (`None`: it is fine now).
    RecordCause(Option<String>),
    /// Tell subscribers the server's lists changed.
    AnnounceListChanged,
    /// Stop running this server.
    Quit,
}

/// The lifecycle of one server: its state, and what it counts.
#[derive(Debug, Clone)]
pub(crate) struct Lifecycle {
    server: String,
    health: Health,
    start_deadline: Duration,
    backoff: RestartBackoff,
    status: Status,
    /// Failed starts in a row.
    failures: u32,
    /// Missed pings in a row.
    missed: u32,
}

impl Lifecycle {
    /// A stopped server named `server`, watched by `health` (its own ping
    /// settings applied), each start within `start_deadline`, restarted
    /// after the delays of `backoff`.
    pub(crate) fn new(
        server: &str,
        health: Health,
        start_deadline: Duration,
        backoff: RestartBackoff,
    ) -> Self {
        Self {
            server: server.to_owned(),
            health,
            start_deadline,
            backoff,
            status: Status::Stopped,
            failures: 0,
            missed: 0,
        }
    }

    /// Where the server is.
    #[cfg(test)]
    pub(crate) fn status(&self) -> Status {
        self.status
    }

    /// What to do about `event`, which happened at `now`. An event that
    /// means nothing in the current state (a stale timer, a second start
    /// request) changes nothing and asks for nothing.
    pub(crate) fn step(&mut self, event: Event, now: Instant) -> Vec<Action> {
        let connected = self.status.is_connected();
        match (self.status, event) {
            (_, Event::Shutdown) => self.shut_down(),
            (Status::Stopped, Event::StartRequested | Event::Reconnect) => self.start(Vec::new()),
            (Status::Starting, Event::Started) => self.started(now),
            (Status::Starting, Event::StartFailed { cause }) => self.failed(cause, now, Vec::new()),
            // A session nobody waits for any more.
            (_, Event::Started) => vec![Action::Abandon],
            (_, Event::Exited { cause }) if connected => self.lost(cause, now),
            (_, Event::PingDue) if connected => vec![
                Action::Schedule {
                    timer: Timer::Ping,
                    at: now + self.health.ping_interval,
                },
                Action::Ping {
                    timeout: self.health.ping_timeout,
                },
            ],
            (_, Event::PingAnswered) if connected => {
                self.missed = 0;
                self.publish(Status::Ready)
            }
            (_, Event::PingMissed) if connected => self.ping_missed(now),
            (_, Event::ListChanged) if connected => vec![
                Action::AnnounceListChanged,
                Action::Relist {
                    deadline: self.start_deadline,
                },
            ],
            (_, Event::Listed) if connected => vec![Action::OfferListing],
            // The last good listing stays offered; the server stays as it is.
            (_, Event::ListRefused { .. }) => Vec::new(),
            (_, Event::Reconnect) if connected => {
                self.failures = 0;
                self.start(vec![Action::Cancel(Timer::Ping), Action::Close])
            }
            (Status::Backoff { .. }, Event::BackoffElapsed) => self.start(Vec::new()),
            (Status::Inactive { .. }, Event::CooldownElapsed) => {
                // Half-open: one more failure and it is inactive again.
                self.failures = self.failures.saturating_sub(1);
                self.start(Vec::new())
            }
            (Status::Backoff { .. }, Event::Reconnect) => {
                self.failures = 0;
                self.start(vec![Action::Cancel(Timer::Backoff)])
            }
            (Status::Inactive { .. }, Event::Reconnect) => {
                self.failures = 0;
                self.start(vec![Action::Cancel(Timer::Cooldown)])
            }
            _ => Vec::new(),
        }
    }

    /// Enters `status`: publishes it when it changed.
    fn publish(&mut self, status: Status) -> Vec<Action> {
        if self.status == status {
            return Vec::new();
        }
        self.status = status;
        vec![Action::Publish(status)]
    }

    /// `before`, then a start.
    fn start(&mut self, mut actions: Vec<Action>) -> Vec<Action> {
        actions.extend(self.publish(Status::Starting));
        actions.push(Action::Connect {
            deadline: self.start_deadline,
        });
        actions
    }

    fn started(&mut self, now: Instant) -> Vec<Action> {
        self.failures = 0;
        self.missed = 0;
        let mut actions = vec![Action::RecordCause(None), Action::UseSession];
        actions.extend(self.publish(Status::Ready));
        actions.push(Action::Schedule {
            timer: Timer::Ping,
            at: now + self.health.ping_interval,
        });
        actions
    }

    /// A failed start (after `before`): a backoff, or inactive after too many.
    fn failed(&mut self, cause: String, now: Instant, mut actions: Vec<Action>) -> Vec<Action> {
        self.failures = self.failures.saturating_add(1);
        actions.push(Action::RecordCause(Some(cause)));
        let (status, timer, until) = if self.failures >= self.health.max_failed_starts {
            let until = now + self.health.inactive_cooldown;
            (Status::Inactive { until }, Timer::Cooldown, until)
        } else {
            let until = now + self.backoff.delay(self.failures);
            let failures = self.failures;
            (Status::Backoff { failures, until }, Timer::Backoff, until)
        };
        actions.extend(self.publish(status));
        actions.push(Action::Schedule { timer, at: until });
        actions
    }

    /// A server that ran and then died: closed, and it gets the first backoff.
    fn lost(&mut self, cause: String, now: Instant) -> Vec<Action> {
        self.failures = 0;
        self.missed = 0;
        self.failed(cause, now, vec![Action::Cancel(Timer::Ping), Action::Close])
    }

    fn ping_missed(&mut self, now: Instant) -> Vec<Action> {
        self.missed = self.missed.saturating_add(1);
        let missed = self.missed;
        if missed >= self.health.missed_pings {
            let cause = format!(
                "server '{}': {missed} pings in a row went unanswered",
                self.server
            );
            return self.lost(cause, now);
        }
        self.publish(Status::Degraded { missed })
    }

    fn shut_down(&mut self) -> Vec<Action> {
        let mut actions = vec![
            Action::Cancel(Timer::Ping),
            Action::Cancel(Timer::Backoff),
            Action::Cancel(Timer::Cooldown),
            Action::Close,
        ];
        actions.extend(self.publish(Status::Stopped));
        actions.push(Action::Quit);
        actions
    }
}

#[cfg(test)]
mod tests;
