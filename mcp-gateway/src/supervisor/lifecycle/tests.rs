//! Every transition of the lifecycle, without a runtime: times are values.

use std::time::Duration;

use tokio::time::Instant;

use super::*;

const SEED: u64 = 0x5eed;

fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

/// The default health without jitter (exact delays).
fn exact() -> Health {
    Health {
        backoff_jitter: 0.0,
        ..Health::default()
    }
}

fn lifecycle(health: Health) -> Lifecycle {
    let backoff = health.restart_backoff(SEED);
    Lifecycle::new("alpha", health, secs(30), backoff)
}

fn connect() -> Action {
    Action::Connect { deadline: secs(30) }
}

fn failed(cause: &str) -> Event {
    Event::StartFailed {
        cause: cause.to_owned(),
    }
}

/// A lifecycle that is ready since `now`.
fn ready(health: Health, now: Instant) -> Lifecycle {
    let mut core = lifecycle(health);
    core.step(Event::StartRequested, now);
    core.step(Event::Started, now);
    assert_eq!(core.status(), Status::Ready);
    core
}

/// The wait a failed start asked for (the time of its backoff or cooldown timer).
fn scheduled(actions: &[Action]) -> Option<(Timer, Instant)> {
    actions.iter().rev().find_map(|action| match action {
        Action::Schedule { timer, at } => Some((*timer, *at)),
        _ => None,
    })
}

#[test]
fn a_first_use_starts_a_stopped_server_and_a_second_one_does_not() {
    let now = Instant::now();
    let mut core = lifecycle(exact());
    assert_eq!(core.status(), Status::Stopped);
    assert_eq!(
        core.step(Event::StartRequested, now),
        [Action::Publish(Status::Starting), connect()]
    );
    assert_eq!(core.step(Event::StartRequested, now), []);
    assert_eq!(
        core.step(Event::Reconnect, now),
        [],
        "it is starting already"
    );
    assert_eq!(core.status(), Status::Starting);
}

#[test]
fn a_reconnect_starts_a_stopped_server_too() {
    let now = Instant::now();
    let mut core = lifecycle(exact());
    assert_eq!(
        core.step(Event::Reconnect, now),
        [Action::Publish(Status::Starting), connect()]
    );
}

#[test]
fn a_started_server_is_ready_and_pinged_after_the_interval() {
    let now = Instant::now();
    let mut core = lifecycle(exact());
    core.step(Event::StartRequested, now);
    assert_eq!(
        core.step(Event::Started, now),
        [
            Action::RecordCause(None),
            Action::UseSession,
            Action::Publish(Status::Ready),
            Action::Schedule {
                timer: Timer::Ping,
                at: now + secs(30)
            },
        ]
    );
}

#[test]
fn the_start_deadline_and_ping_settings_are_the_lifecycle_s_own() {
    let now = Instant::now();
    let health = Health {
        ping_interval: secs(7),
        ping_timeout: secs(2),
        ..exact()
    };
    let backoff = health.restart_backoff(SEED);
    let mut core = Lifecycle::new("alpha", health, secs(9), backoff);
    assert_eq!(
        core.step(Event::StartRequested, now),
        [
            Action::Publish(Status::Starting),
            Action::Connect { deadline: secs(9) }
        ]
    );
    assert_eq!(
        scheduled(&core.step(Event::Started, now)),
        Some((Timer::Ping, now + secs(7)))
    );
    assert_eq!(
        core.step(Event::PingDue, now + secs(7)),
        [
            Action::Schedule {
                timer: Timer::Ping,
                at: now + secs(14)
            },
            Action::Ping { timeout: secs(2) },
        ]
    );
}

#[test]
fn failed_starts_back_off_doubling_and_the_fifth_makes_the_server_inactive() {
    let mut now = Instant::now();
    let mut core = lifecycle(exact());
    core.step(Event::StartRequested, now);
    for (failures, wait) in [(1, 1), (2, 2), (3, 4), (4, 8)] {
        let until = now + secs(wait);
        let backoff = Status::Backoff { failures, until };
        assert_eq!(
            core.step(failed("refused"), now),
            [
                Action::RecordCause(Some("refused".into())),
                Action::Publish(backoff),
                Action::Schedule {
                    timer: Timer::Backoff,
                    at: until
                },
            ]
        );
        now = until;
        assert_eq!(
            core.step(Event::BackoffElapsed, now),
            [Action::Publish(Status::Starting), connect()]
        );
    }
    let until = now + secs(300);
    assert_eq!(
        core.step(failed("refused"), now),
        [
            Action::RecordCause(Some("refused".into())),
            Action::Publish(Status::Inactive { until }),
            Action::Schedule {
                timer: Timer::Cooldown,
                at: until
            },
        ]
    );
}

#[test]
fn the_backoff_grows_to_its_cap_and_stays_there() {
    let mut now = Instant::now();
    let mut core = lifecycle(Health {
        max_failed_starts: 10,
        ..exact()
    });
    core.step(Event::StartRequested, now);
    let mut waits = Vec::new();
    for _ in 0..9 {
        let Some((Timer::Backoff, until)) = scheduled(&core.step(failed("no"), now)) else {
            panic!("no backoff: {:?}", core.status());
        };
        waits.push((until - now).as_secs());
        now = until;
        core.step(Event::BackoffElapsed, now);
    }
    assert_eq!(waits, [1, 2, 4, 8, 16, 32, 60, 60, 60]);
    assert!(matches!(
        scheduled(&core.step(failed("no"), now)),
        Some((Timer::Cooldown, _))
    ));
}

#[test]
fn jittered_backoffs_stay_within_their_fraction_and_repeat_with_the_seed() {
    let run = || {
        let mut now = Instant::now();
        let start = now;
        let mut core = lifecycle(Health::default());
        core.step(Event::StartRequested, now);
        let mut waits = Vec::new();
        for _ in 0..4 {
            let (_, until) = scheduled(&core.step(failed("no"), now)).unwrap();
            waits.push((until - now).as_secs_f64());
            now = until;
            core.step(Event::BackoffElapsed, now);
        }
        (waits, now - start)
    };
    let (waits, total) = run();
    for (wait, nominal) in waits.iter().zip([1.0, 2.0, 4.0, 8.0]) {
        assert!(
            (nominal * 0.9..=nominal * 1.1).contains(wait),
            "{wait} for {nominal}"
        );
    }
    // About 1 + 2 + 4 + 8 s before the fifth failure, as the runtime test sees it.
    assert!((13.5..=16.5).contains(&total.as_secs_f64()), "{total:?}");
    assert_eq!(run().0, waits, "the same seed gives the same waits");
}

#[test]
fn an_inactive_server_ignores_start_requests_and_stale_timers() {
    let now = Instant::now();
    let mut core = lifecycle(Health {
        max_failed_starts: 1,
        ..exact()
    });
    core.step(Event::StartRequested, now);
    core.step(failed("no"), now);
    let inactive = core.status();
    assert!(matches!(inactive, Status::Inactive { .. }));
    for event in [
        Event::StartRequested,
        Event::BackoffElapsed,
        Event::PingDue,
        Event::PingMissed,
        Event::ListChanged,
        Event::Exited {
            cause: "late".into(),
        },
    ] {
        assert_eq!(core.step(event.clone(), now), [], "{event:?}");
    }
    assert_eq!(core.status(), inactive);
}

#[test]
fn after_the_cooldown_one_attempt_is_made_and_one_failure_makes_it_inactive_again() {
    let mut now = Instant::now();
    let mut core = lifecycle(exact());
    core.step(Event::StartRequested, now);
    for _ in 0..5 {
        let (_, until) = scheduled(&core.step(failed("no"), now)).unwrap();
        now = until;
        core.step(Event::BackoffElapsed, now);
    }
    assert!(matches!(core.status(), Status::Inactive { .. }));
    // The cooldown elapsed: half-open.
    assert_eq!(
        core.step(Event::CooldownElapsed, now),
        [Action::Publish(Status::Starting), connect()]
    );
    let until = now + secs(300);
    assert_eq!(
        core.step(failed("still no"), now),
        [
            Action::RecordCause(Some("still no".into())),
            Action::Publish(Status::Inactive { until }),
            Action::Schedule {
                timer: Timer::Cooldown,
                at: until
            },
        ]
    );
    // Half-open again, and this time it starts: the count starts over.
    now = until;
    core.step(Event::CooldownElapsed, now);
    core.step(Event::Started, now);
    assert_eq!(core.status(), Status::Ready);
    core.step(
        Event::Exited {
            cause: "crash".into(),
        },
        now,
    );
    assert_eq!(
        core.status(),
        Status::Backoff {
            failures: 1,
            until: now + secs(1)
        }
    );
}

#[test]
fn a_reconnect_leaves_inactive_at_once_and_forgets_the_failures() {
    let now = Instant::now();
    let mut core = lifecycle(Health {
        max_failed_starts: 2,
        ..exact()
    });
    core.step(Event::StartRequested, now);
    core.step(failed("no"), now);
    core.step(Event::BackoffElapsed, now);
    core.step(failed("no"), now);
    assert!(matches!(core.status(), Status::Inactive { .. }));
    assert_eq!(
        core.step(Event::Reconnect, now),
        [
            Action::Cancel(Timer::Cooldown),
            Action::Publish(Status::Starting),
            connect()
        ]
    );
    core.step(failed("no"), now);
    assert_eq!(
        core.status(),
        Status::Backoff {
            failures: 1,
            until: now + secs(1)
        },
        "a full set of attempts again"
    );
}

#[test]
fn a_reconnect_cuts_a_backoff_short() {
    let now = Instant::now();
    let mut core = lifecycle(exact());
    core.step(Event::StartRequested, now);
    core.step(failed("no"), now);
    core.step(Event::BackoffElapsed, now);
    core.step(failed("no"), now);
    assert!(matches!(core.status(), Status::Backoff { failures: 2, .. }));
    assert_eq!(
        core.step(Event::Reconnect, now),
        [
            Action::Cancel(Timer::Backoff),
            Action::Publish(Status::Starting),
            connect()
        ]
    );
    core.step(failed("no"), now);
    assert!(matches!(core.status(), Status::Backoff { failures: 1, .. }));
}

#[test]
fn a_reconnect_restarts_a_ready_server() {
    let now = Instant::now();
    let mut core = ready(exact(), now);
    assert_eq!(
        core.step(Event::Reconnect, now),
        [
            Action::Cancel(Timer::Ping),
            Action::Close,
            Action::Publish(Status::Starting),
            connect()
        ]
    );
}

#[test]
fn missed_pings_degrade_a_server_an_answer_restores_it_and_three_restart_it() {
    let mut now = Instant::now();
    let mut core = ready(exact(), now);
    now += secs(30);
    assert_eq!(
        core.step(Event::PingDue, now),
        [
            Action::Schedule {
                timer: Timer::Ping,
                at: now + secs(30)
            },
            Action::Ping { timeout: secs(5) },
        ]
    );
    now += secs(5);
    assert_eq!(
        core.step(Event::PingMissed, now),
        [Action::Publish(Status::Degraded { missed: 1 })]
    );
    assert_eq!(
        core.step(Event::PingMissed, now),
        [Action::Publish(Status::Degraded { missed: 2 })]
    );
    // One answer brings it back, and the count starts over.
    assert_eq!(
        core.step(Event::PingAnswered, now),
        [Action::Publish(Status::Ready)]
    );
    assert_eq!(
        core.step(Event::PingAnswered, now),
        [],
        "no change, no news"
    );
    core.step(Event::PingMissed, now);
    core.step(Event::PingMissed, now);
    assert_eq!(
        core.step(Event::PingMissed, now),
        [
            Action::Cancel(Timer::Ping),
            Action::Close,
            Action::RecordCause(Some(
                "server 'alpha': 3 pings in a row went unanswered".into()
            )),
            Action::Publish(Status::Backoff {
                failures: 1,
                until: now + secs(1)
            }),
            Action::Schedule {
                timer: Timer::Backoff,
                at: now + secs(1)
            },
        ]
    );
    // A stale ping timer changes nothing now.
    assert_eq!(core.step(Event::PingDue, now), []);
}

#[test]
fn the_number_of_missed_pings_that_restart_a_server_is_configured() {
    let now = Instant::now();
    let mut core = ready(
        Health {
            missed_pings: 1,
            ..exact()
        },
        now,
    );
    let actions = core.step(Event::PingMissed, now);
    assert!(actions.contains(&Action::Close), "{actions:?}");
    assert!(matches!(core.status(), Status::Backoff { failures: 1, .. }));
}

#[test]
fn an_exit_closes_the_session_and_gets_the_first_backoff() {
    let now = Instant::now();
    let mut core = ready(exact(), now);
    core.step(Event::PingMissed, now);
    assert_eq!(
        core.step(
            Event::Exited {
                cause: "the process exited".into()
            },
            now
        ),
        [
            Action::Cancel(Timer::Ping),
            Action::Close,
            Action::RecordCause(Some("the process exited".into())),
            Action::Publish(Status::Backoff {
                failures: 1,
                until: now + secs(1)
            }),
            Action::Schedule {
                timer: Timer::Backoff,
                at: now + secs(1)
            },
        ]
    );
    // A second notice of the same exit changes nothing.
    assert_eq!(
        core.step(
            Event::Exited {
                cause: "again".into()
            },
            now
        ),
        []
    );
    assert_eq!(
        core.step(Event::BackoffElapsed, now + secs(1)),
        [Action::Publish(Status::Starting), connect()]
    );
}

#[test]
fn a_server_that_ran_starts_its_count_over() {
    let mut now = Instant::now();
    let mut core = lifecycle(exact());
    core.step(Event::StartRequested, now);
    for _ in 0..3 {
        let (_, until) = scheduled(&core.step(failed("no"), now)).unwrap();
        now = until;
        core.step(Event::BackoffElapsed, now);
    }
    core.step(Event::Started, now);
    core.step(
        Event::Exited {
            cause: "crash".into(),
        },
        now,
    );
    assert_eq!(
        core.status(),
        Status::Backoff {
            failures: 1,
            until: now + secs(1)
        }
    );
}

#[test]
fn a_list_change_is_announced_and_listed_again() {
    let now = Instant::now();
    let mut core = ready(exact(), now);
    assert_eq!(
        core.step(Event::ListChanged, now),
        [
            Action::AnnounceListChanged,
            Action::Relist { deadline: secs(30) }
        ]
    );
    assert_eq!(core.step(Event::Listed, now), [Action::OfferListing]);
    assert_eq!(core.status(), Status::Ready);
}

#[test]
fn a_refused_listing_keeps_the_last_good_one_and_the_server() {
    let now = Instant::now();
    let mut core = ready(exact(), now);
    core.step(Event::ListChanged, now);
    assert_eq!(
        core.step(
            Event::ListRefused {
                cause: "internal error".into()
            },
            now
        ),
        [],
        "no new listing offered, nothing closed, no restart"
    );
    assert_eq!(core.status(), Status::Ready);
    // A degraded server too.
    core.step(Event::PingMissed, now);
    core.step(Event::ListChanged, now);
    assert_eq!(
        core.step(
            Event::ListRefused {
                cause: "timed out".into()
            },
            now
        ),
        []
    );
    assert_eq!(core.status(), Status::Degraded { missed: 1 });
}

#[test]
fn a_server_that_is_down_is_not_listed_again() {
    let now = Instant::now();
    let mut core = lifecycle(exact());
    core.step(Event::StartRequested, now);
    core.step(failed("no"), now);
    assert_eq!(core.step(Event::ListChanged, now), []);
    assert_eq!(core.step(Event::Listed, now), []);
}

#[test]
fn a_session_that_arrives_when_nobody_waits_is_closed() {
    let now = Instant::now();
    let mut core = ready(exact(), now);
    assert_eq!(core.step(Event::Started, now), [Action::Abandon]);
    assert_eq!(core.status(), Status::Ready);
}

#[test]
fn a_shutdown_closes_unsets_every_timer_and_quits() {
    let now = Instant::now();
    let mut core = ready(exact(), now);
    assert_eq!(
        core.step(Event::Shutdown, now),
        [
            Action::Cancel(Timer::Ping),
            Action::Cancel(Timer::Backoff),
            Action::Cancel(Timer::Cooldown),
            Action::Close,
            Action::Publish(Status::Stopped),
            Action::Quit,
        ]
    );
    assert_eq!(core.status(), Status::Stopped);
    // A server that never started has no state to publish.
    let mut idle = lifecycle(exact());
    assert_eq!(idle.step(Event::Shutdown, now).last(), Some(&Action::Quit));
    assert!(
        !idle
            .step(Event::Shutdown, now)
            .contains(&Action::Publish(Status::Stopped))
    );
}

#[test]
fn each_timer_fires_as_its_own_event() {
    assert_eq!(Timer::Ping.event(), Event::PingDue);
    assert_eq!(Timer::Backoff.event(), Event::BackoffElapsed);
    assert_eq!(Timer::Cooldown.event(), Event::CooldownElapsed);
}
