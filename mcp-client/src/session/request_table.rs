//! The pure core of the request engine: the table of requests in flight.
//!
//! [`RequestTable`] hands out request ids, keeps one entry per request
//! waiting for its answer, and decides what every event means for them: an
//! answer goes to its waiter (or is ignored when nobody waits for it), a
//! progress notification is routed to its request, a cancelled request gets
//! `notifications/cancelled` only while it may still be running, a request
//! whose deadline passed times out (its deadlines are a [`DeadlineQueue`],
//! for one timer per session), and a lost connection fails every waiter and
//! every later request. It performs
//! nothing: the waiters it returns are told by the engine, which also sends
//! what it is told to send. It is generic over the waiter, so tests use
//! plain labels and run without a runtime.

use foldhash::HashMap;
use std::time::Duration;

use mcpdisco_protocol::{ErrorObject, RawJson, RequestId};
use mcpdisco_transport::ExitStatus;
use tokio::time::Instant;

use super::deadline::Deadline;
use super::deadline_queue::{DeadlineQueue, Timer};

/// Why the connection is gone, kept so every later request can say it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Lost {
    /// The server's process exited.
    Exited {
        /// How it exited.
        status: ExitStatus,
        /// The end of what it wrote to stderr.
        stderr_tail: String,
    },
    /// The server ended the stream.
    EndOfStream,
    /// The transport failed, for this reason.
    Failed(String),
    /// We closed the session.
    ClosedByUs,
}

/// What a waiter is told: how its request ended.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Reply {
    /// The server's result.
    Result(RawJson),
    /// The server's error answer.
    Error(ErrorObject),
    /// The transport knows this answer will never come; the connection lives on.
    AnswerLost {
        /// Why, as the transport says it.
        reason: String,
    },
    /// The connection is gone.
    Lost(Lost),
    /// The request's deadline passed before its answer came.
    TimedOut {
        /// How long it waited.
        after: Duration,
        /// Whether the server is to hear of it (`notifications/cancelled`).
        server: Cancelled,
    },
}

/// What to do with an answer (or word of its loss) for an id.
#[derive(Debug, PartialEq)]
pub(crate) enum Answered<W> {
    /// Tell this waiter; its entry is gone from the table.
    Deliver {
        /// Who waited for the answer.
        waiter: W,
        /// What to tell it.
        reply: Reply,
    },
    /// Nobody waits for it (an unknown id, a request cancelled, timed out or
    /// sent detached): drop it.
    Ignore,
}

/// What ending a request early asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cancelled {
    /// Tell the server with `notifications/cancelled`: the request may still run there.
    NotifyServer,
    /// Tell nobody: it was answered already, cannot be cancelled
    /// (`initialize`), or the connection is gone.
    Quietly,
}

/// One request waiting for its answer.
#[derive(Debug)]
struct Entry<W> {
    waiter: W,
    /// Whether the server may be told it was cancelled (not `initialize`).
    cancellable: bool,
}

/// The requests of one connection, and whether the connection is gone.
#[derive(Debug)]
pub(crate) struct RequestTable<W> {
    next_id: i64,
    in_flight: HashMap<RequestId, Entry<W>>,
    deadlines: DeadlineQueue,
    lost: Option<Lost>,
    closing: bool,
}

impl<W> Default for RequestTable<W> {
    fn default() -> Self {
        Self {
            next_id: 1,
            in_flight: HashMap::default(),
            deadlines: DeadlineQueue::default(),
            lost: None,
            closing: false,
        }
    }
}

impl<W> RequestTable<W> {
    /// The next request id (for a request nobody waits on, such as a
    /// subscription's `subscriptions/listen`).
    pub(crate) fn next_id(&mut self) -> RequestId {
        let id = RequestId::from(self.next_id);
        self.next_id += 1;
        id
    }

    /// Opens a request: its id, with `waiter` waiting for its answer; or, once
    /// the connection is gone, why (and no entry).
    pub(crate) fn open(&mut self, waiter: W, cancellable: bool) -> Result<RequestId, Lost> {
        if let Some(lost) = &self.lost {
            return Err(lost.clone());
        }
        let id = self.next_id();
        self.in_flight.insert(
            id.clone(),
            Entry {
                waiter,
                cancellable,
            },
        );
        Ok(id)
    }

    /// Gives the request `id` (in flight) its deadline, moved on by progress
    /// when `extends_on_progress`; says whether the session's timer must be
    /// set again.
    pub(crate) fn set_deadline(
        &mut self,
        id: &RequestId,
        deadline: Deadline,
        extends_on_progress: bool,
    ) -> Timer {
        if !self.in_flight.contains_key(id) {
            return Timer::Keep;
        }
        self.deadlines
            .insert(id.clone(), deadline, extends_on_progress)
    }

    /// The server answered `id` (a result or an error).
    pub(crate) fn answer(&mut self, id: &RequestId, reply: Reply) -> Answered<W> {
        self.deadlines.remove(id);
        match self.in_flight.remove(id) {
            Some(entry) => Answered::Deliver {
                waiter: entry.waiter,
                reply,
            },
            None => Answered::Ignore,
        }
    }

    /// The transport says `id`'s answer will never come.
    pub(crate) fn answer_lost(&mut self, id: &RequestId, reason: String) -> Answered<W> {
        self.answer(id, Reply::AnswerLost { reason })
    }

    /// Progress for the request a token names came at `now`: its deadline
    /// moves on if it asked for that. Returns its waiter, while it is in
    /// flight; `None` sends the notification to everyone instead.
    pub(crate) fn progress(&mut self, token: &RequestId, now: Instant) -> Option<&W> {
        let entry = self.in_flight.get(token)?;
        self.deadlines.progress(token, now);
        Some(&entry.waiter)
    }

    /// The session's timer fired at `now`: every request whose deadline
    /// passed times out, and its waiter is told so.
    pub(crate) fn expire(&mut self, now: Instant) -> Vec<(W, Reply)> {
        let mut told = Vec::new();
        for (id, after) in self.deadlines.expire(now) {
            if let Some(entry) = self.in_flight.remove(&id) {
                let server = if entry.cancellable {
                    Cancelled::NotifyServer
                } else {
                    Cancelled::Quietly
                };
                told.push((entry.waiter, Reply::TimedOut { after, server }));
            }
        }
        told
    }

    /// The session's timer is being set: when it is to fire, or `None` for
    /// no timer while no deadline is pending.
    pub(crate) fn arm_timer(&mut self) -> Option<Instant> {
        self.deadlines.arm()
    }

    /// The requester took its answer (or gave up after a failed send): the
    /// entry, if still there, goes without telling the server.
    pub(crate) fn finish(&mut self, id: &RequestId) {
        self.deadlines.remove(id);
        self.in_flight.remove(id);
    }

    /// The requester stops waiting (timed out, or dropped): the entry goes,
    /// and the answer says whether the server is to hear of it.
    pub(crate) fn cancel(&mut self, id: &RequestId) -> Cancelled {
        self.deadlines.remove(id);
        match self.in_flight.remove(id) {
            // A lost connection drained the table: nothing of it is told.
            Some(entry) if entry.cancellable => Cancelled::NotifyServer,
            _ => Cancelled::Quietly,
        }
    }

    /// We are closing the connection: the loss that follows is ours.
    pub(crate) fn begin_close(&mut self) {
        self.closing = true;
    }

    /// The connection is gone: every waiter is told why, and every later
    /// request is refused with the same reason (the first loss is kept).
    pub(crate) fn connection_lost(&mut self, lost: Lost) -> Vec<(W, Reply)> {
        let lost = if self.closing { Lost::ClosedByUs } else { lost };
        let lost = self.lost.get_or_insert(lost).clone();
        self.deadlines.clear();
        self.in_flight
            .drain()
            .map(|(_, entry)| (entry.waiter, Reply::Lost(lost.clone())))
            .collect()
    }

    /// Why the connection is gone; `None` while it lives.
    pub(crate) fn lost(&self) -> Option<&Lost> {
        self.lost.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Table = RequestTable<&'static str>;
    /// What happens to a request before its late answer comes.
    type Before = fn(&mut Table, &RequestId);

    fn result() -> Reply {
        Reply::Result(RawJson::from_value(&serde_json::Value::Bool(true)))
    }

    #[test]
    fn ids_count_up_from_one_across_open_and_detached_requests() {
        let mut table = Table::default();
        assert_eq!(table.open("a", true), Ok(RequestId::from(1)));
        assert_eq!(table.next_id(), RequestId::from(2));
        assert_eq!(table.open("b", true), Ok(RequestId::from(3)));
    }

    #[test]
    fn an_answer_goes_to_its_waiter_once() {
        let mut table = Table::default();
        let a = table.open("a", true).unwrap();
        let b = table.open("b", true).unwrap();
        assert_eq!(
            table.answer(&b, result()),
            Answered::Deliver {
                waiter: "b",
                reply: result()
            }
        );
        // A second answer for the same id finds nobody.
        assert_eq!(table.answer(&b, result()), Answered::Ignore);
        assert_eq!(table.progress(&a, Instant::now()), Some(&"a"));
    }

    #[test]
    fn answers_nobody_waits_for_are_ignored() {
        // (what happened to the request before, what its late answer does)
        let cases: [(&str, Before); 4] = [
            ("never opened", |_, _| {}),
            ("cancelled", |table, id| {
                table.cancel(id);
            }),
            ("finished", |table, id| table.finish(id)),
            ("lost with the connection", |table, _| {
                table.connection_lost(Lost::EndOfStream);
            }),
        ];
        for (name, before) in cases {
            let mut table = Table::default();
            let id = if name == "never opened" {
                RequestId::from(99)
            } else {
                table.open("a", true).unwrap()
            };
            before(&mut table, &id);
            assert_eq!(table.answer(&id, result()), Answered::Ignore, "{name}");
            assert_eq!(
                table.answer_lost(&id, "broke".into()),
                Answered::Ignore,
                "{name}"
            );
            assert_eq!(table.progress(&id, Instant::now()), None, "{name}");
        }
    }

    #[test]
    fn a_lost_answer_fails_only_its_request() {
        let mut table = Table::default();
        let a = table.open("a", true).unwrap();
        let b = table.open("b", true).unwrap();
        assert_eq!(
            table.answer_lost(&a, "the stream broke".into()),
            Answered::Deliver {
                waiter: "a",
                reply: Reply::AnswerLost {
                    reason: "the stream broke".into()
                }
            }
        );
        assert_eq!(table.lost(), None);
        assert_eq!(table.progress(&b, Instant::now()), Some(&"b"));
        assert!(table.open("c", true).is_ok());
    }

    #[test]
    fn cancelling_tells_the_server_only_while_it_may_still_run() {
        // (cancellable, answered first, connection lost first, decision)
        let cases = [
            (true, false, false, Cancelled::NotifyServer),
            (false, false, false, Cancelled::Quietly),
            (true, true, false, Cancelled::Quietly),
            (true, false, true, Cancelled::Quietly),
        ];
        for (cancellable, answered, lost, expected) in cases {
            let mut table = Table::default();
            let id = table.open("a", cancellable).unwrap();
            if answered {
                table.answer(&id, result());
            }
            if lost {
                table.connection_lost(Lost::EndOfStream);
            }
            assert_eq!(
                table.cancel(&id),
                expected,
                "cancellable {cancellable}, answered {answered}, lost {lost}"
            );
            // Cancelling twice never notifies twice.
            assert_eq!(table.cancel(&id), Cancelled::Quietly);
        }
    }

    #[test]
    fn a_request_past_its_deadline_times_out_once_and_its_late_answer_is_ignored() {
        let start = Instant::now();
        let second = Duration::from_secs(1);
        let mut table = Table::default();
        let call = table.open("call", true).unwrap();
        let init = table.open("initialize", false).unwrap();
        let answered = table.open("answered", true).unwrap();
        for (id, timeout) in [(&call, 10), (&init, 10), (&answered, 5)] {
            let deadline = Deadline::new(start, timeout * second, 60 * second);
            table.set_deadline(id, deadline, false);
        }
        table.answer(&answered, result());
        // The answered request's deadline is gone: the timer is for the next.
        assert_eq!(table.arm_timer(), Some(start + 10 * second));
        assert!(table.expire(start + 9 * second).is_empty());
        let mut told = table.expire(start + 10 * second);
        told.sort_by_key(|(waiter, _)| *waiter);
        let timed_out = |server| Reply::TimedOut {
            after: 10 * second,
            server,
        };
        // `initialize` is never cancelled on the server.
        assert_eq!(
            told,
            vec![
                ("call", timed_out(Cancelled::NotifyServer)),
                ("initialize", timed_out(Cancelled::Quietly)),
            ]
        );
        assert!(table.expire(start + 20 * second).is_empty());
        assert_eq!(table.answer(&call, result()), Answered::Ignore);
        assert_eq!(table.cancel(&call), Cancelled::Quietly);
        assert_eq!(table.arm_timer(), None);
    }

    #[test]
    fn progress_moves_the_deadline_of_a_request_that_asked_for_it() {
        let start = Instant::now();
        let second = Duration::from_secs(1);
        let mut table = Table::default();
        let id = table.open("a", true).unwrap();
        let deadline = Deadline::new(start, 10 * second, 60 * second);
        table.set_deadline(&id, deadline, true);
        assert_eq!(table.progress(&id, start + 8 * second), Some(&"a"));
        assert!(table.expire(start + 10 * second).is_empty());
        assert_eq!(table.arm_timer(), Some(start + 18 * second));
        assert_eq!(table.expire(start + 18 * second).len(), 1);
    }

    #[test]
    fn a_lost_connection_drops_every_deadline() {
        let start = Instant::now();
        let mut table = Table::default();
        let id = table.open("a", true).unwrap();
        let deadline = Deadline::new(start, Duration::from_secs(1), Duration::from_secs(1));
        table.set_deadline(&id, deadline, false);
        table.connection_lost(Lost::EndOfStream);
        assert!(table.expire(start + Duration::from_secs(5)).is_empty());
        assert_eq!(table.arm_timer(), None);
    }

    #[test]
    fn a_lost_connection_fails_every_waiter_and_every_later_request() {
        let mut table = Table::default();
        table.open("a", true).unwrap();
        table.open("b", false).unwrap();
        let mut told = table.connection_lost(Lost::Failed("reset".into()));
        told.sort_by_key(|(waiter, _)| *waiter);
        let failed = Reply::Lost(Lost::Failed("reset".into()));
        assert_eq!(told, vec![("a", failed.clone()), ("b", failed)]);
        assert_eq!(table.open("c", true), Err(Lost::Failed("reset".into())));
        // The first reason stays.
        assert!(table.connection_lost(Lost::EndOfStream).is_empty());
        assert_eq!(table.lost(), Some(&Lost::Failed("reset".into())));
    }

    #[test]
    fn a_loss_after_we_began_closing_is_ours() {
        let mut table = Table::default();
        table.open("a", true).unwrap();
        table.begin_close();
        assert_eq!(
            table.connection_lost(Lost::EndOfStream),
            vec![("a", Reply::Lost(Lost::ClosedByUs))]
        );
        assert_eq!(table.lost(), Some(&Lost::ClosedByUs));
    }
}
