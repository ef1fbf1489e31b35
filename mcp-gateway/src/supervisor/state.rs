//! The states of one supervised server, and how long it waits in each.
//!
//! ```text
//!            start / first use
//! Stopped ─────────────────────► Starting ──ok──► Ready ◄──pong── Degraded
//!                                   │  ▲            │  ping missed ──┘ │
//!                          failed   │  │ backoff    │ exit, or lost     │ missed 3 pings
//!                    (< 5 in a row) ▼  │ elapsed    │ connection        ▼
//!                                 Backoff ◄─────────┴──────────────── (restart)
//!                                   │ 5 failed starts in a row
//!                                   ▼
//!                                Inactive ── cooldown elapsed ──► Starting (half-open:
//!                                           or reconnect()        one failure → Inactive)
//! ```
//!
//! A `list_changed` lists a connected server again; a listing it refuses
//! keeps its last good one (and its state). [`reconnect`] restarts a server
//! from any state. The transitions themselves are the supervisor's pure core
//! (`lifecycle`); this module holds what they are made of.
//!
//! [`reconnect`]: super::Supervisor::reconnect

use std::time::Duration;

use mcpdisco::config::PingSettings;
use serde::Serialize;
use tokio::time::Instant;

use super::backoff::RestartBackoff;

/// Where a supervised server is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Not started (nothing asked for it yet, or stopped).
    Stopped,
    /// Being started: process, handshake, lists.
    Starting,
    /// Connected and answering.
    Ready,
    /// Connected, but `missed` pings in a row went unanswered.
    Degraded {
        /// How many.
        missed: u32,
    },
    /// Waiting to start again after a failure.
    Backoff {
        /// Failed starts in a row so far.
        failures: u32,
        /// When it starts again.
        until: Instant,
    },
    /// Failed to start too often: left alone until the cooldown ends (then
    /// one attempt, half-open) or `reconnect`.
    Inactive {
        /// When it is tried again.
        until: Instant,
    },
}

impl Status {
    /// Every state's [`name`](Self::name), in lifecycle order.
    pub const NAMES: [&'static str; 6] = [
        "stopped", "starting", "ready", "degraded", "backoff", "inactive",
    ];

    /// `stopped`, `starting`, `ready`, `degraded`, `backoff` or `inactive`.
    pub fn name(&self) -> &'static str {
        match self {
            Status::Stopped => "stopped",
            Status::Starting => "starting",
            Status::Ready => "ready",
            Status::Degraded { .. } => "degraded",
            Status::Backoff { .. } => "backoff",
            Status::Inactive { .. } => "inactive",
        }
    }

    /// Whether requests can be sent (ready, or degraded but connected).
    pub fn is_connected(&self) -> bool {
        matches!(self, Status::Ready | Status::Degraded { .. })
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Status::Degraded { missed } => write!(f, "degraded ({missed} ping(s) missed)"),
            Status::Backoff { failures, .. } => write!(f, "backoff ({failures} failed start(s))"),
            other => f.write_str(other.name()),
        }
    }
}

impl Serialize for Status {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// How a supervisor watches and restarts servers: the defaults, changed
/// with the builder methods (one per field).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Health {
    /// Between pings of a connected server.
    pub ping_interval: Duration,
    /// How long a ping may take.
    pub ping_timeout: Duration,
    /// Missed pings in a row that restart the server.
    pub missed_pings: u32,
    /// The first restart delay; it doubles with every failed start in a row.
    pub backoff_initial: Duration,
    /// The longest restart delay.
    pub backoff_max: Duration,
    /// How far each delay is randomly moved, as a fraction of it.
    pub backoff_jitter: f64,
    /// Failed starts in a row that make a server inactive.
    pub max_failed_starts: u32,
    /// How long an inactive server is left alone.
    pub inactive_cooldown: Duration,
}

impl Default for Health {
    fn default() -> Self {
        Self {
            ping_interval: Duration::from_secs(30),
            ping_timeout: Duration::from_secs(5),
            missed_pings: 3,
            backoff_initial: Duration::from_secs(1),
            backoff_max: Duration::from_secs(60),
            backoff_jitter: 0.1,
            max_failed_starts: 5,
            inactive_cooldown: Duration::from_secs(300),
        }
    }
}

impl Health {
    /// Between pings of a connected server.
    pub fn ping_interval(mut self, interval: Duration) -> Self {
        self.ping_interval = interval;
        self
    }

    /// How long a ping may take.
    pub fn ping_timeout(mut self, timeout: Duration) -> Self {
        self.ping_timeout = timeout;
        self
    }

    /// Missed pings in a row that restart the server.
    pub fn missed_pings(mut self, missed: u32) -> Self {
        self.missed_pings = missed;
        self
    }

    /// The first restart delay (it doubles with every failed start in a row).
    pub fn backoff_initial(mut self, delay: Duration) -> Self {
        self.backoff_initial = delay;
        self
    }

    /// The longest restart delay.
    pub fn backoff_max(mut self, delay: Duration) -> Self {
        self.backoff_max = delay;
        self
    }

    /// How far each delay is randomly moved, as a fraction of it.
    pub fn backoff_jitter(mut self, jitter: f64) -> Self {
        self.backoff_jitter = jitter;
        self
    }

    /// Failed starts in a row that make a server inactive.
    pub fn max_failed_starts(mut self, failures: u32) -> Self {
        self.max_failed_starts = failures;
        self
    }

    /// How long an inactive server is left alone.
    pub fn inactive_cooldown(mut self, cooldown: Duration) -> Self {
        self.inactive_cooldown = cooldown;
        self
    }
}

impl Health {
    /// These settings with a server's own ping interval and timeout, where
    /// its config sets them.
    pub fn for_server(&self, ping: &PingSettings) -> Health {
        Health {
            ping_interval: ping.interval.unwrap_or(self.ping_interval),
            ping_timeout: ping.timeout.unwrap_or(self.ping_timeout),
            ..self.clone()
        }
    }

    /// The restart delays of these settings, jittered by a generator seeded
    /// with `seed` (the same seed, the same delays).
    pub(crate) fn restart_backoff(&self, seed: u64) -> RestartBackoff {
        RestartBackoff::new(
            self.backoff_initial,
            self.backoff_max,
            self.backoff_jitter,
            seed,
        )
    }

    /// The wait before start attempt number `failures + 1`: the initial
    /// delay doubled per failure, capped, jittered.
    pub fn backoff(&self, failures: u32) -> Duration {
        self.restart_backoff(fastrand::u64(..)).delay(failures)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_s_own_ping_settings_replace_the_supervisor_s() {
        let health = Health::default();
        let own = PingSettings {
            interval: Some(Duration::from_secs(7)),
            timeout: None,
        };
        let merged = health.for_server(&own);
        assert_eq!(merged.ping_interval, Duration::from_secs(7));
        assert_eq!(merged.ping_timeout, health.ping_timeout);
        assert_eq!(merged.missed_pings, health.missed_pings);
        assert_eq!(health.for_server(&PingSettings::default()), health);
    }

    #[test]
    fn every_state_s_name_is_among_the_names() {
        let now = Instant::now();
        let all = [
            Status::Stopped,
            Status::Starting,
            Status::Ready,
            Status::Degraded { missed: 1 },
            Status::Backoff {
                failures: 1,
                until: now,
            },
            Status::Inactive { until: now },
        ];
        let names: Vec<&str> = all.iter().map(Status::name).collect();
        assert_eq!(names, Status::NAMES);
    }

    #[test]
    fn the_backoff_doubles_up_to_the_cap_and_stays_within_its_jitter() {
        let exact = Health {
            backoff_jitter: 0.0,
            ..Health::default()
        };
        let delays: Vec<u64> = (1..=8).map(|n| exact.backoff(n).as_secs()).collect();
        assert_eq!(delays, [1, 2, 4, 8, 16, 32, 60, 60]);
        let jittered = Health::default().backoff(3).as_secs_f64();
        assert!((3.6..=4.4).contains(&jittered), "{jittered}");
    }
}
