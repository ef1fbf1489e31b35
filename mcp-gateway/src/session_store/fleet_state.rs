//! The pure core of the session store: what this replica knows of the
//! fleet's sessions (the deleted ones, the log levels set), whether the
//! store answers, and what to write once it does. `step(event, now)`
//! answers the actions a runner performs; no I/O, no clock of its own.

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use super::fleet_event::FleetEvent;

/// Deleted sessions remembered at most (the oldest forgotten first; a
/// forgotten one is asked of the store when next resumed here).
pub const MAX_DELETED: usize = 16 * 1024;
/// Sessions whose log level is remembered at most.
pub const MAX_LEVELS: usize = 16 * 1024;
/// Writes kept while the store is down (the oldest dropped first).
pub const MAX_OUTBOX: usize = 1024;
/// The first wait before connecting again.
pub const FIRST_BACKOFF: Duration = Duration::from_millis(100);
/// The longest wait before connecting again.
pub const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// What happens to the replica's view of the fleet.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A `DELETE` here ended `session`, whose id expires at `expires_at`
    /// (seconds since the Unix epoch).
    DeletedHere {
        /// The session's key.
        session: String,
        /// When its id expires anyway.
        expires_at: u64,
    },
    /// A client of `session` set its log level here.
    LevelSetHere {
        /// The session's key.
        session: String,
        /// The level's name.
        level: String,
    },
    /// A client of `session` unsubscribed here from the served `uri`
    /// (the replica that holds the subscription drops it).
    UnsubscribedHere {
        /// The session's key.
        session: String,
        /// The URI it subscribed with.
        uri: String,
    },
    /// A message for `session` found no GET stream here.
    Forward {
        /// The session's key.
        session: String,
        /// The message's JSON text.
        message: String,
    },
    /// Another replica told the fleet something.
    Heard(FleetEvent),
    /// The store answers (again): connected and subscribed.
    Connected,
    /// The store failed.
    Failed,
}

/// What the runner does.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Publishes `event` to the fleet.
    Publish(FleetEvent),
    /// Records in the store that `session` is deleted, for `ttl` (until
    /// its id would expire anyway).
    RecordDeleted {
        /// The session's key.
        session: String,
        /// How long the record lives.
        ttl: Duration,
    },
    /// Records in the store the log level of `session`.
    RecordLevel {
        /// The session's key.
        session: String,
        /// The level's name.
        level: String,
    },
    /// Ends `session`'s connections here.
    EndHere(String),
    /// Delivers `message` on `session`'s GET stream, if it is open here.
    DeliverHere {
        /// The session's key.
        session: String,
        /// The message's JSON text.
        message: String,
    },
    /// Drops the subscriptions of `session`'s connections here to the served `uri`.
    UnsubscribeHere {
        /// The session's key.
        session: String,
        /// The URI it subscribed with.
        uri: String,
    },
    /// Gives the connections of `session` here the log `level`.
    ApplyLevel {
        /// The session's key.
        session: String,
        /// The level's name.
        level: String,
    },
    /// Connects again after `after`.
    Reconnect {
        /// How long to wait first.
        after: Duration,
    },
}

/// A map of at most `capacity` entries, the oldest forgotten first.
#[derive(Debug)]
struct Bounded<V> {
    capacity: usize,
    entries: HashMap<String, V>,
    order: VecDeque<String>,
}

impl<V> Bounded<V> {
    fn new(capacity: usize) -> Self {
        Self {
            capacity,
            entries: HashMap::new(),
            order: VecDeque::new(),
        }
    }

    fn insert(&mut self, key: String, value: V) {
        if self.entries.insert(key.clone(), value).is_some() {
            return;
        }
        self.order.push_back(key);
        while self.order.len() > self.capacity {
            if let Some(oldest) = self.order.pop_front() {
                self.entries.remove(&oldest);
            }
        }
    }

    fn get(&self, key: &str) -> Option<&V> {
        self.entries.get(key)
    }
}

/// This replica's view of the fleet's sessions.
#[derive(Debug)]
pub struct FleetState {
    /// Deleted sessions, to when their ids expire (Unix seconds).
    deleted: Bounded<u64>,
    /// The log level each session set.
    levels: Bounded<String>,
    /// Whether the store answers.
    connected: bool,
    /// Failures in a row.
    failures: u32,
    /// What to write once the store answers again.
    outbox: VecDeque<Action>,
    /// Messages dropped because the store was down.
    dropped: u64,
}

impl Default for FleetState {
    fn default() -> Self {
        Self {
            deleted: Bounded::new(MAX_DELETED),
            levels: Bounded::new(MAX_LEVELS),
            connected: false,
            failures: 0,
            outbox: VecDeque::new(),
            dropped: 0,
        }
    }
}

impl FleetState {
    /// Takes `event` at `now` (seconds since the Unix epoch); the actions
    /// to perform, in order.
    pub fn step(&mut self, event: Event, now: u64) -> Vec<Action> {
        match event {
            Event::DeletedHere {
                session,
                expires_at,
            } => {
                self.deleted.insert(session.clone(), expires_at);
                let ttl = Duration::from_secs(expires_at.saturating_sub(now).max(1));
                self.write(vec![
                    Action::RecordDeleted {
                        session: session.clone(),
                        ttl,
                    },
                    Action::Publish(FleetEvent::Deleted {
                        session,
                        expires_at,
                    }),
                ])
            }
            Event::LevelSetHere { session, level } => {
                self.levels.insert(session.clone(), level.clone());
                self.write(vec![
                    Action::RecordLevel {
                        session: session.clone(),
                        level: level.clone(),
                    },
                    Action::Publish(FleetEvent::Level { session, level }),
                ])
            }
            Event::UnsubscribedHere { session, uri } => {
                self.write(vec![Action::Publish(FleetEvent::Unsubscribe {
                    session,
                    uri,
                })])
            }
            Event::Forward { session, message } => {
                if self.connected {
                    vec![Action::Publish(FleetEvent::Message { session, message })]
                } else {
                    // A message is news: not kept for a store that may come back late.
                    self.dropped += 1;
                    Vec::new()
                }
            }
            Event::Heard(FleetEvent::Deleted {
                session,
                expires_at,
            }) => {
                self.deleted.insert(session.clone(), expires_at);
                vec![Action::EndHere(session)]
            }
            Event::Heard(FleetEvent::Level { session, level }) => {
                self.levels.insert(session.clone(), level.clone());
                vec![Action::ApplyLevel { session, level }]
            }
            Event::Heard(FleetEvent::Unsubscribe { session, uri }) => {
                vec![Action::UnsubscribeHere { session, uri }]
            }
            Event::Heard(FleetEvent::Message { session, message }) => {
                vec![Action::DeliverHere { session, message }]
            }
            Event::Connected => {
                self.connected = true;
                self.failures = 0;
                self.outbox.drain(..).collect()
            }
            Event::Failed => {
                self.connected = false;
                self.failures = self.failures.saturating_add(1);
                vec![Action::Reconnect {
                    after: backoff(self.failures),
                }]
            }
        }
    }

    /// Whether `session` is known here to be deleted at `now` (Unix seconds).
    pub fn is_deleted(&self, session: &str, now: u64) -> bool {
        self.deleted
            .get(session)
            .is_some_and(|expires_at| now < *expires_at)
    }

    /// The log level `session` set, if known here.
    pub fn level(&self, session: &str) -> Option<&str> {
        self.levels.get(session).map(String::as_str)
    }

    /// Remembers what the store said of `session`: deleted (until
    /// `expires_at`), or its log level.
    pub fn learned_deleted(&mut self, session: &str, expires_at: u64) {
        self.deleted.insert(session.to_owned(), expires_at);
    }

    /// Remembers the log level the store holds for `session`.
    pub fn learned_level(&mut self, session: &str, level: &str) {
        self.levels.insert(session.to_owned(), level.to_owned());
    }

    /// Whether the store answers (else the features that need it are degraded).
    pub fn is_connected(&self) -> bool {
        self.connected
    }

    /// Messages dropped because the store was down.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// `writes` now when the store answers, else kept (bounded) for when it does.
    fn write(&mut self, writes: Vec<Action>) -> Vec<Action> {
        if self.connected {
            return writes;
        }
        for write in writes {
            if self.outbox.len() >= MAX_OUTBOX {
                self.outbox.pop_front();
            }
            self.outbox.push_back(write);
        }
        Vec::new()
    }
}

/// The wait before connecting again after `failures` failures in a row:
/// doubling from [`FIRST_BACKOFF`] up to [`MAX_BACKOFF`].
pub fn backoff(failures: u32) -> Duration {
    let doublings = failures.saturating_sub(1).min(16);
    FIRST_BACKOFF
        .saturating_mul(1 << doublings)
        .min(MAX_BACKOFF)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: u64 = 1_000_000;

    fn connected() -> FleetState {
        let mut state = FleetState::default();
        assert!(state.step(Event::Connected, NOW).is_empty());
        state
    }

    #[test]
    fn a_delete_here_is_recorded_until_the_id_expires_and_told_to_the_fleet() {
        let mut state = connected();
        let actions = state.step(
            Event::DeletedHere {
                session: "s".into(),
                expires_at: NOW + 60,
            },
            NOW,
        );
        assert_eq!(
            actions,
            [
                Action::RecordDeleted {
                    session: "s".into(),
                    ttl: Duration::from_secs(60)
                },
                Action::Publish(FleetEvent::Deleted {
                    session: "s".into(),
                    expires_at: NOW + 60,
                }),
            ]
        );
        assert!(state.is_deleted("s", NOW + 59));
        assert!(!state.is_deleted("s", NOW + 60), "expired anyway");
        assert!(!state.is_deleted("t", NOW));
    }

    #[test]
    fn a_delete_heard_from_the_fleet_ends_the_session_here_and_denies_it() {
        let mut state = connected();
        let actions = state.step(
            Event::Heard(FleetEvent::Deleted {
                session: "s".into(),
                expires_at: NOW + 60,
            }),
            NOW,
        );
        assert_eq!(actions, [Action::EndHere("s".into())]);
        assert!(state.is_deleted("s", NOW));
    }

    #[test]
    fn writes_wait_for_the_store_bounded_and_messages_do_not() {
        let mut state = FleetState::default();
        assert_eq!(
            state.step(Event::Failed, NOW),
            [Action::Reconnect {
                after: FIRST_BACKOFF
            }]
        );
        let forward = Event::Forward {
            session: "s".into(),
            message: "{}".into(),
        };
        assert!(state.step(forward.clone(), NOW).is_empty());
        assert_eq!(state.dropped(), 1);
        let level = Event::LevelSetHere {
            session: "s".into(),
            level: "info".into(),
        };
        assert!(state.step(level, NOW).is_empty());
        assert_eq!(state.level("s"), Some("info"), "known here at once");
        for n in 0..MAX_OUTBOX {
            let delete = Event::DeletedHere {
                session: format!("d{n}"),
                expires_at: NOW + 10,
            };
            assert!(state.step(delete, NOW).is_empty());
        }
        let flushed = state.step(Event::Connected, NOW);
        assert_eq!(flushed.len(), MAX_OUTBOX, "bounded, oldest dropped");
        assert!(!flushed.iter().any(|action| matches!(
            action,
            Action::RecordLevel { .. } | Action::Publish(FleetEvent::Level { .. })
        )));
        assert_eq!(
            state.step(forward, NOW),
            [Action::Publish(FleetEvent::Message {
                session: "s".into(),
                message: "{}".into()
            })]
        );
    }

    #[test]
    fn heard_messages_and_levels_go_to_this_replica_s_connections() {
        let mut state = connected();
        let message = FleetEvent::Message {
            session: "s".into(),
            message: "{}".into(),
        };
        assert_eq!(
            state.step(Event::Heard(message), NOW),
            [Action::DeliverHere {
                session: "s".into(),
                message: "{}".into()
            }]
        );
        let level = FleetEvent::Level {
            session: "s".into(),
            level: "error".into(),
        };
        assert_eq!(
            state.step(Event::Heard(level), NOW),
            [Action::ApplyLevel {
                session: "s".into(),
                level: "error".into()
            }]
        );
        assert_eq!(state.level("s"), Some("error"));
        let unsubscribe = FleetEvent::Unsubscribe {
            session: "s".into(),
            uri: "test://r".into(),
        };
        assert_eq!(
            state.step(Event::Heard(unsubscribe.clone()), NOW),
            [Action::UnsubscribeHere {
                session: "s".into(),
                uri: "test://r".into()
            }]
        );
        let here = Event::UnsubscribedHere {
            session: "s".into(),
            uri: "test://r".into(),
        };
        assert_eq!(state.step(here, NOW), [Action::Publish(unsubscribe)]);
    }

    #[test]
    fn reconnecting_backs_off_doubling_up_to_a_bound_and_resets_once_connected() {
        let mut state = FleetState::default();
        let waits: Vec<Duration> = (0..8)
            .flat_map(|_| state.step(Event::Failed, NOW))
            .map(|action| match action {
                Action::Reconnect { after } => after,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(waits[0], Duration::from_millis(100));
        assert_eq!(waits[1], Duration::from_millis(200));
        assert_eq!(waits[7], MAX_BACKOFF);
        assert!(!state.is_connected());
        state.step(Event::Connected, NOW);
        assert!(state.is_connected());
        assert_eq!(
            state.step(Event::Failed, NOW),
            [Action::Reconnect {
                after: FIRST_BACKOFF
            }]
        );
    }

    #[test]
    fn what_is_remembered_is_bounded() {
        let mut state = connected();
        for n in 0..=MAX_DELETED {
            state.learned_deleted(&format!("s{n}"), u64::MAX);
        }
        assert!(!state.is_deleted("s0", NOW), "the oldest is forgotten");
        assert!(state.is_deleted(&format!("s{MAX_DELETED}"), NOW));
    }
}
