//! [`Deadline`]: when a request stops waiting, as a value.

use std::time::Duration;

use tokio::time::Instant;

/// The deadline of one request: its timeout from the start, moved on by
/// each progress notification when the request asks for it, but never past
/// the hard limit. Pure: the time is passed in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Deadline {
    start: Instant,
    timeout: Duration,
    hard: Instant,
    at: Instant,
}

impl Deadline {
    /// A deadline `timeout` after `start`, extensible up to `max_timeout`
    /// after it (or `timeout`, if that is longer).
    pub(crate) fn new(start: Instant, timeout: Duration, max_timeout: Duration) -> Self {
        Self {
            start,
            timeout,
            hard: start + max_timeout.max(timeout),
            at: start + timeout,
        }
    }

    /// Progress came at `now`: the timeout starts again from there.
    pub(crate) fn progress(&mut self, now: Instant) {
        self.at = (now + self.timeout).min(self.hard);
    }

    /// When the request stops waiting.
    pub(crate) fn at(&self) -> Instant {
        self.at
    }

    /// How long the request waited when the deadline passed.
    pub(crate) fn waited(&self) -> Duration {
        self.at - self.start
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: Duration = Duration::from_secs(1);

    #[test]
    fn progress_restarts_the_timeout_up_to_the_hard_limit() {
        let start = Instant::now();
        let mut deadline = Deadline::new(start, 10 * SECOND, 30 * SECOND);
        assert_eq!(deadline.at(), start + 10 * SECOND);
        // (progress after, deadline after it)
        let cases = [(5, 15), (12, 22), (25, 30), (29, 30)];
        for (after, expected) in cases {
            deadline.progress(start + after * SECOND);
            assert_eq!(
                deadline.at(),
                start + expected * SECOND,
                "progress at {after}s"
            );
        }
        assert_eq!(deadline.waited(), 30 * SECOND);
    }

    #[test]
    fn a_timeout_longer_than_the_limit_is_the_limit() {
        let start = Instant::now();
        let mut deadline = Deadline::new(start, 60 * SECOND, 30 * SECOND);
        deadline.progress(start + 50 * SECOND);
        assert_eq!(deadline.at(), start + 60 * SECOND);
    }
}
