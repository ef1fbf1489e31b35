//! The calls the bridge keeps on record: each call to a server while it
//! runs, and for [`ENDED_CALL_LINGER`] after it ends (its server's log
//! messages sent before its answer reach the gateway after it). No timer and
//! no task per call: the time is passed in, and every operation first drops
//! the records whose linger has passed.
//!
//! The running calls are few (as many as are in flight) and kept by
//! sequence number. An ended call lingers only as who waited on it, for
//! which server: one record per server and caller, its time moved on by
//! each of their calls that ends. So a client making thousands of calls a
//! second leaves one ended record, not thousands, and a call's end touches
//! only those few records.

use std::collections::BTreeMap;
use std::time::Duration;

use tokio::time::Instant;

/// How long an ended call stays on record for its server's log messages.
pub(super) const ENDED_CALL_LINGER: Duration = Duration::from_secs(1);

/// One call on record.
pub(super) struct CallRecord<C> {
    /// The server it was routed to.
    pub(super) server: String,
    /// Who waits on it.
    pub(super) caller: C,
    /// The call has ended (kept for the linger).
    pub(super) ended: bool,
}

/// The calls on record.
pub(super) struct CallRecords<C> {
    /// The running calls, by sequence number: the newest last.
    running: BTreeMap<u64, CallRecord<C>>,
    /// The last ended call of each server and caller, with when it ended,
    /// in the order they last ended (the latest last).
    ended: Vec<(Instant, CallRecord<C>)>,
}

impl<C> Default for CallRecords<C> {
    fn default() -> Self {
        Self {
            running: BTreeMap::new(),
            ended: Vec::new(),
        }
    }
}

impl<C: PartialEq> CallRecords<C> {
    /// Records call `seq` to `server`, which `caller` waits on.
    pub(super) fn enter(&mut self, seq: u64, server: &str, caller: C, now: Instant) {
        self.expire(now);
        self.running.insert(
            seq,
            CallRecord {
                server: server.to_owned(),
                caller,
                ended: false,
            },
        );
    }

    /// Call `seq` ended at `now`: its server and caller stay on record,
    /// ended, for the linger.
    pub(super) fn end(&mut self, seq: u64, now: Instant) {
        self.expire(now);
        let Some(mut call) = self.running.remove(&seq) else {
            return;
        };
        call.ended = true;
        if let Some(index) = self
            .ended
            .iter()
            .position(|(_, known)| known.server == call.server && known.caller == call.caller)
        {
            self.ended.remove(index);
        }
        self.ended.push((now, call));
    }

    /// The calls on record at `now`: the running ones, the newest first,
    /// then the ended ones, the last to end first.
    pub(super) fn newest_first(
        &mut self,
        now: Instant,
    ) -> impl Iterator<Item = &CallRecord<C>> + '_ {
        self.expire(now);
        let ended = self.ended.iter().rev().map(|(_, call)| call);
        self.running.values().rev().chain(ended)
    }

    /// How many calls are on record (ended ones included).
    #[cfg(test)]
    fn len(&self) -> usize {
        self.running.len() + self.ended.len()
    }

    /// Drops the ended records whose linger has passed by `now`.
    fn expire(&mut self, now: Instant) {
        let passed = self
            .ended
            .iter()
            .take_while(|(ended, _)| now.saturating_duration_since(*ended) >= ENDED_CALL_LINGER)
            .count();
        self.ended.drain(..passed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn servers_at(records: &mut CallRecords<&'static str>, now: Instant) -> Vec<(String, bool)> {
        records
            .newest_first(now)
            .map(|call| (format!("{}:{}", call.server, call.caller), call.ended))
            .collect()
    }

    #[test]
    fn calls_are_listed_newest_first_and_an_ended_one_lingers_its_while() {
        let start = Instant::now();
        let mut records = CallRecords::default();
        records.enter(0, "a", "one", start);
        records.enter(1, "b", "two", start);
        records.end(0, start + Duration::from_millis(10));
        assert_eq!(
            servers_at(&mut records, start + Duration::from_millis(20)),
            [("b:two".to_owned(), false), ("a:one".to_owned(), true)]
        );
        let just_before =
            start + Duration::from_millis(10) + ENDED_CALL_LINGER - Duration::from_millis(1);
        assert_eq!(servers_at(&mut records, just_before).len(), 2);
        let after = start + Duration::from_millis(10) + ENDED_CALL_LINGER;
        assert_eq!(
            servers_at(&mut records, after),
            [("b:two".to_owned(), false)]
        );
        assert_eq!(records.len(), 1, "dropped, not only hidden");
    }

    #[test]
    fn a_running_call_stays_however_long_it_runs() {
        let start = Instant::now();
        let mut records = CallRecords::default();
        records.enter(0, "a", "long", start);
        records.enter(1, "a", "short", start);
        records.end(1, start);
        let later = start + ENDED_CALL_LINGER * 10;
        assert_eq!(
            servers_at(&mut records, later),
            [("a:long".to_owned(), false)]
        );
    }

    #[test]
    fn many_calls_of_one_caller_leave_one_ended_record_per_server() {
        let start = Instant::now();
        let mut records = CallRecords::default();
        let step = Duration::from_micros(100);
        for seq in 0..30_000u64 {
            let now = start + step * u32::try_from(seq).unwrap_or(u32::MAX);
            let server = if seq % 3 == 0 { "a" } else { "b" };
            records.enter(seq, server, "c", now);
            records.end(seq, now);
        }
        let last = start + step * 29_999;
        assert_eq!(
            servers_at(&mut records, last),
            [("b:c".to_owned(), true), ("a:c".to_owned(), true)],
            "the last to end first"
        );
        assert!(records.running.is_empty());
        records.enter(30_000, "a", "d", last);
        records.end(30_000, last);
        assert_eq!(records.len(), 3, "another caller lingers on its own");
        assert_eq!(servers_at(&mut records, last + ENDED_CALL_LINGER).len(), 0);
    }
}
