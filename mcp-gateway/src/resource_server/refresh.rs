//! When the key set may be fetched again for a token whose `kid` is not in
//! the cached set: at most once per interval (a minute), so a stream of
//! tokens with made-up key ids cannot turn the gateway against its
//! identity provider. (The load at start is not such a refresh.) Pure:
//! the caller passes the time.

use std::time::{Duration, Instant};

/// The shortest time between two refreshes on an unknown `kid`.
pub const REFRESH_INTERVAL: Duration = Duration::from_secs(60);

/// The refresh rule's memory: when the key set was last fetched.
#[derive(Debug, Clone)]
pub struct RefreshPolicy {
    interval: Duration,
    last_fetch: Option<Instant>,
}

impl Default for RefreshPolicy {
    fn default() -> Self {
        Self::new(REFRESH_INTERVAL)
    }
}

impl RefreshPolicy {
    /// At most one refresh per `interval`.
    pub fn new(interval: Duration) -> Self {
        Self {
            interval,
            last_fetch: None,
        }
    }

    /// Whether a fetch may start at `now`; if so, it is counted as made.
    pub fn try_fetch(&mut self, now: Instant) -> bool {
        let allowed = self
            .last_fetch
            .is_none_or(|last| now.saturating_duration_since(last) >= self.interval);
        if allowed {
            self.last_fetch = Some(now);
        }
        allowed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_refresh_is_free_and_the_next_waits_a_minute() {
        let start = Instant::now();
        let mut policy = RefreshPolicy::default();
        assert!(policy.try_fetch(start));
        assert!(!policy.try_fetch(start));
        assert!(!policy.try_fetch(start + Duration::from_secs(59)));
        assert!(policy.try_fetch(start + Duration::from_secs(60)));
        assert!(!policy.try_fetch(start + Duration::from_secs(61)));
        assert!(policy.try_fetch(start + Duration::from_secs(125)));
    }

    #[test]
    fn a_refused_refresh_does_not_push_the_next_one_back() {
        let start = Instant::now();
        let mut policy = RefreshPolicy::new(Duration::from_secs(10));
        assert!(policy.try_fetch(start));
        for second in 1..10 {
            assert!(!policy.try_fetch(start + Duration::from_secs(second)));
        }
        assert!(policy.try_fetch(start + Duration::from_secs(10)));
    }

    #[test]
    fn a_clock_that_goes_back_does_not_allow_a_refresh() {
        let start = Instant::now() + Duration::from_secs(100);
        let mut policy = RefreshPolicy::default();
        assert!(policy.try_fetch(start));
        assert!(!policy.try_fetch(start - Duration::from_secs(50)));
    }
}
