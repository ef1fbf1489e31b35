//! [`DeadlineQueue`]: the deadlines of a session's requests in flight, kept
//! for one timer per session.
//!
//! The queue knows when each request stops waiting, which deadlines move on
//! with progress, and when the session's one timer is set to fire. A new
//! request asks for the timer to be set again only when its deadline comes
//! before the timer's; an answered request leaves the timer alone (it fires
//! early, finds nothing due and is set for the next deadline). So a request
//! answered before its deadline never touches the runtime's timer. Pure: the
//! time is passed in.

use std::collections::BTreeSet;

use foldhash::HashMap;
use std::time::Duration;

use mcpdisco_protocol::RequestId;
use tokio::time::Instant;

use super::deadline::Deadline;

/// Whether the session's timer must be set again after a new deadline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Timer {
    /// The timer fires at or before the new deadline (or is being set).
    Keep,
    /// The new deadline comes first (or no timer is set): set it again.
    Rearm,
}

/// One request's deadline.
#[derive(Debug)]
struct Tracked {
    deadline: Deadline,
    /// Whether progress notifications move the deadline on.
    extends_on_progress: bool,
}

/// The deadlines of the requests in flight, earliest first.
#[derive(Debug, Default)]
pub(crate) struct DeadlineQueue {
    by_time: BTreeSet<(Instant, RequestId)>,
    by_id: HashMap<RequestId, Tracked>,
    /// When the session's timer fires; `None` while it is not set.
    armed: Option<Instant>,
}

impl DeadlineQueue {
    /// Starts tracking `id`'s deadline; says whether the timer must be set again.
    pub(crate) fn insert(
        &mut self,
        id: RequestId,
        deadline: Deadline,
        extends_on_progress: bool,
    ) -> Timer {
        self.remove(&id);
        self.by_time.insert((deadline.at(), id.clone()));
        self.by_id.insert(
            id,
            Tracked {
                deadline,
                extends_on_progress,
            },
        );
        match self.armed {
            Some(armed) if armed <= deadline.at() => Timer::Keep,
            _ => Timer::Rearm,
        }
    }

    /// Stops tracking `id` (answered, cancelled or finished); the timer stays.
    pub(crate) fn remove(&mut self, id: &RequestId) {
        if let Some(tracked) = self.by_id.remove(id) {
            self.by_time.remove(&(tracked.deadline.at(), id.clone()));
        }
    }

    /// Progress for `id` came at `now`: its deadline moves on, if it asked
    /// for that. A deadline only moves later, so the timer stays.
    pub(crate) fn progress(&mut self, id: &RequestId, now: Instant) {
        let Some(tracked) = self.by_id.get_mut(id) else {
            return;
        };
        if !tracked.extends_on_progress {
            return;
        }
        self.by_time.remove(&(tracked.deadline.at(), id.clone()));
        tracked.deadline.progress(now);
        self.by_time.insert((tracked.deadline.at(), id.clone()));
    }

    /// The requests whose deadline has passed at `now`, each with how long it
    /// waited; they are no longer tracked.
    pub(crate) fn expire(&mut self, now: Instant) -> Vec<(RequestId, Duration)> {
        let mut expired = Vec::new();
        while let Some((at, _)) = self.by_time.first()
            && *at <= now
        {
            let Some((_, id)) = self.by_time.pop_first() else {
                break;
            };
            if let Some(tracked) = self.by_id.remove(&id) {
                expired.push((id, tracked.deadline.waited()));
            }
        }
        expired
    }

    /// The timer is being set: when it is to fire (the earliest deadline),
    /// or `None` for no timer while nothing waits.
    pub(crate) fn arm(&mut self) -> Option<Instant> {
        self.armed = self.by_time.first().map(|(at, _)| *at);
        self.armed
    }

    /// Forgets every deadline (the connection is gone).
    pub(crate) fn clear(&mut self) {
        self.by_time.clear();
        self.by_id.clear();
    }

    /// How many deadlines are tracked.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.by_id.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: Duration = Duration::from_secs(1);

    fn id(n: i64) -> RequestId {
        RequestId::from(n)
    }

    /// A deadline `timeout` seconds after `start`, extensible to 100 s.
    fn deadline(start: Instant, timeout: u32) -> Deadline {
        Deadline::new(start, timeout * SECOND, 100 * SECOND)
    }

    #[test]
    fn the_timer_is_set_again_only_for_a_deadline_before_it() {
        let start = Instant::now();
        let mut queue = DeadlineQueue::default();
        // No timer yet: the first deadline sets it.
        assert_eq!(
            queue.insert(id(1), deadline(start, 10), false),
            Timer::Rearm
        );
        assert_eq!(queue.arm(), Some(start + 10 * SECOND));
        // (request, timeout in s, what the timer needs)
        let cases = [
            (2, 20, Timer::Keep),
            (3, 10, Timer::Keep),
            (4, 5, Timer::Rearm),
        ];
        for (request, timeout, expected) in cases {
            assert_eq!(
                queue.insert(id(request), deadline(start, timeout), false),
                expected,
                "request {request}, timeout {timeout}s"
            );
        }
        assert_eq!(queue.arm(), Some(start + 5 * SECOND));
    }

    #[test]
    fn an_answered_request_leaves_the_timer_alone_and_never_expires() {
        let start = Instant::now();
        let mut queue = DeadlineQueue::default();
        queue.insert(id(1), deadline(start, 10), false);
        assert_eq!(queue.arm(), Some(start + 10 * SECOND));
        queue.remove(&id(1));
        // A later request needs no new timer: the set one fires first.
        assert_eq!(
            queue.insert(id(2), deadline(start + SECOND, 10), false),
            Timer::Keep
        );
        // The timer fires early and finds nothing due; it is set for the next one.
        assert_eq!(queue.expire(start + 10 * SECOND), vec![]);
        assert_eq!(queue.arm(), Some(start + 11 * SECOND));
        queue.remove(&id(2));
        assert_eq!(queue.arm(), None);
        assert_eq!(queue.len(), 0);
    }

    #[test]
    fn expiry_takes_every_passed_deadline_earliest_first() {
        let start = Instant::now();
        let mut queue = DeadlineQueue::default();
        for (request, timeout) in [(1, 30), (2, 10), (3, 20)] {
            queue.insert(id(request), deadline(start, timeout), false);
        }
        assert_eq!(queue.expire(start + 9 * SECOND), vec![]);
        assert_eq!(
            queue.expire(start + 20 * SECOND),
            vec![(id(2), 10 * SECOND), (id(3), 20 * SECOND)]
        );
        assert_eq!(queue.len(), 1);
        assert_eq!(queue.arm(), Some(start + 30 * SECOND));
    }

    #[test]
    fn progress_moves_only_the_deadlines_that_asked_for_it() {
        let start = Instant::now();
        let mut queue = DeadlineQueue::default();
        queue.insert(id(1), deadline(start, 10), true);
        queue.insert(id(2), deadline(start, 10), false);
        queue.progress(&id(1), start + 8 * SECOND);
        queue.progress(&id(2), start + 8 * SECOND);
        // Progress for a request no longer tracked does nothing.
        queue.progress(&id(3), start + 8 * SECOND);
        assert_eq!(
            queue.expire(start + 10 * SECOND),
            vec![(id(2), 10 * SECOND)]
        );
        assert_eq!(queue.arm(), Some(start + 18 * SECOND));
        assert_eq!(
            queue.expire(start + 18 * SECOND),
            vec![(id(1), 18 * SECOND)]
        );
    }

    #[test]
    fn clearing_forgets_every_deadline() {
        let start = Instant::now();
        let mut queue = DeadlineQueue::default();
        queue.insert(id(1), deadline(start, 10), true);
        queue.clear();
        assert_eq!(queue.expire(start + 60 * SECOND), vec![]);
        assert_eq!(queue.arm(), None);
    }
}
