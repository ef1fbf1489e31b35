//! Whether the shared store is worth asking: after a failure it is left
//! alone for a while (each request would otherwise wait for a timeout),
//! and the limits fall back to this replica's own. Pure: the caller
//! passes the time.

use std::time::Duration;

/// The state of the shared store, as `/readyz` and `/metrics` say it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreState {
    /// It answers: limits hold across replicas.
    Up,
    /// It failed: limits are this replica's own until it answers again.
    Degraded,
}

impl StoreState {
    /// `up` or `degraded`.
    pub fn name(self) -> &'static str {
        match self {
            StoreState::Up => "up",
            StoreState::Degraded => "degraded",
        }
    }
}

/// How long the store is left alone after a failure.
pub const RETRY_AFTER_FAILURE: Duration = Duration::from_secs(5);

/// The store's health as this replica last saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StoreHealth {
    /// Until when (a duration since the caller's origin) it is left
    /// alone; `None` while it answers.
    down_until: Option<Duration>,
}

impl StoreHealth {
    /// Whether to ask the store at `now`.
    pub fn should_ask(&self, now: Duration) -> bool {
        self.down_until.is_none_or(|until| now >= until)
    }

    /// Whether the last answer was a failure (the limits are then this
    /// replica's own: degraded).
    pub fn is_degraded(&self) -> bool {
        self.down_until.is_some()
    }

    /// The store answered.
    pub fn answered(&mut self) {
        self.down_until = None;
    }

    /// The store failed at `now`.
    pub fn failed(&mut self, now: Duration) {
        self.down_until = Some(now.saturating_add(RETRY_AFTER_FAILURE));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_store_is_left_alone_for_a_while_and_degraded_until_it_answers() {
        let mut health = StoreHealth::default();
        assert!(health.should_ask(Duration::ZERO));
        assert!(!health.is_degraded());
        health.failed(Duration::from_secs(10));
        assert!(health.is_degraded());
        assert!(!health.should_ask(Duration::from_secs(14)));
        assert!(health.should_ask(Duration::from_secs(15)));
        assert!(health.is_degraded(), "degraded until it answers");
        health.answered();
        assert!(!health.is_degraded());
        assert!(health.should_ask(Duration::from_secs(15)));
    }
}
