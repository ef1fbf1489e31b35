//! One GCRA bucket per client subject, in this replica's memory: what
//! `--client-rate-limit` counts without a store, and while the store is
//! down. Pure: the caller passes the time. The map is bounded: when full,
//! buckets that have refilled (the same as none) go first, then the one
//! nearest to full.

use std::collections::HashMap;
use std::time::Duration;

use mcpdisco_client::policy::{Gcra, GcraDecision};

use super::client_rate::Subject;

/// The most subjects whose buckets are kept.
pub const MAX_SUBJECTS: usize = 65_536;

/// Each subject's theoretical arrival time.
#[derive(Debug)]
pub struct SubjectBuckets {
    gcra: Gcra,
    arrivals: HashMap<Subject, Duration>,
    capacity: usize,
}

impl SubjectBuckets {
    /// Empty buckets for `gcra`, at most `capacity` of them (at least 1).
    pub fn new(gcra: Gcra, capacity: usize) -> Self {
        Self {
            gcra,
            arrivals: HashMap::new(),
            capacity: capacity.max(1),
        }
    }

    /// Whether `subject` may send a request at `now` (a duration since
    /// the caller's origin); an allowed request takes its token.
    pub fn check(&mut self, subject: &Subject, now: Duration) -> GcraDecision {
        let arrival = self.arrivals.get(subject).copied();
        let decision = self.gcra.decide(arrival, now);
        if let GcraDecision::Allow { arrival: next } = decision {
            if arrival.is_none() && self.arrivals.len() >= self.capacity {
                self.make_room(now);
            }
            self.arrivals.insert(*subject, next);
        }
        decision
    }

    /// How many subjects have a bucket.
    pub fn len(&self) -> usize {
        self.arrivals.len()
    }

    /// Whether no subject has a bucket.
    pub fn is_empty(&self) -> bool {
        self.arrivals.is_empty()
    }

    /// Forgets the refilled buckets; if none had, the fullest one.
    fn make_room(&mut self, now: Duration) {
        self.arrivals.retain(|_, arrival| *arrival > now);
        if self.arrivals.len() >= self.capacity
            && let Some(nearest) = self
                .arrivals
                .iter()
                .min_by_key(|(_, arrival)| **arrival)
                .map(|(subject, _)| *subject)
        {
            self.arrivals.remove(&nearest);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn allowed(decision: GcraDecision) -> bool {
        matches!(decision, GcraDecision::Allow { .. })
    }

    #[test]
    fn each_subject_has_its_own_bucket() {
        let mut buckets = SubjectBuckets::new(Gcra::new(1.0, 2), 16);
        let alice = Subject::jwt(Some("alice"));
        let bob = Subject::jwt(Some("bob"));
        assert!(allowed(buckets.check(&alice, ms(0))));
        assert!(allowed(buckets.check(&alice, ms(0))));
        assert_eq!(
            buckets.check(&alice, ms(0)),
            GcraDecision::Deny {
                retry_after: ms(1_000)
            }
        );
        assert!(allowed(buckets.check(&bob, ms(0))), "bob's bucket is full");
        assert!(allowed(buckets.check(&alice, ms(1_000))));
    }

    #[test]
    fn a_full_map_forgets_refilled_buckets_first_then_the_fullest() {
        let mut buckets = SubjectBuckets::new(Gcra::new(1.0, 1), 3);
        let [a, b, c, d, e, spent] =
            ["a", "b", "c", "d", "e", "spent"].map(|s| Subject::jwt(Some(s)));
        buckets.check(&a, ms(0));
        buckets.check(&b, ms(500));
        buckets.check(&spent, ms(5_000));
        // At 2 s, a and b have refilled: both go, the spent one stays.
        buckets.check(&c, ms(2_000));
        assert_eq!(buckets.len(), 2);
        assert!(!allowed(buckets.check(&spent, ms(2_000))), "still spent");
        buckets.check(&d, ms(2_500));
        assert_eq!(buckets.len(), 3);
        // Full, nothing refilled at 2.6 s: c (nearest to full) goes.
        buckets.check(&e, ms(2_600));
        assert_eq!(buckets.len(), 3);
        assert!(!allowed(buckets.check(&spent, ms(2_600))));
        assert!(!allowed(buckets.check(&d, ms(2_600))));
        assert!(allowed(buckets.check(&c, ms(2_600))), "c was forgotten");
    }

    #[test]
    fn a_refused_request_takes_no_room() {
        let mut buckets = SubjectBuckets::new(Gcra::new(1.0, 1), 1);
        let a = Subject::anonymous();
        buckets.check(&a, ms(0));
        buckets.check(&a, ms(10));
        assert_eq!(buckets.len(), 1);
    }
}
