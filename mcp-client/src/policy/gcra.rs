//! The generic cell rate algorithm (GCRA) as a pure decision: the bucket
//! is one number, the theoretical arrival time of the next operation, and
//! the caller passes the time. [`RateLimitLayer`](super::RateLimitLayer)
//! runs it on tokio's clock for one server; the gateway runs it per client
//! subject (`serve --client-rate-limit`).

use std::time::Duration;

/// A rate as GCRA keeps it: the time between two tokens, and how far ahead
/// of now the arrival time may run (`interval × (burst − 1)`), so a full
/// bucket lets `burst` operations go at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gcra {
    interval: Duration,
    tolerance: Duration,
}

/// What [`Gcra::decide`] says of one operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GcraDecision {
    /// It may go; the bucket's arrival time is now this.
    Allow {
        /// The new theoretical arrival time, on the caller's clock.
        arrival: Duration,
    },
    /// It may not go yet; a token comes after this long. The bucket is
    /// unchanged.
    Deny {
        /// How long until the next token.
        retry_after: Duration,
    },
}

impl Gcra {
    /// `requests_per_second` sustained, `burst` at once after a quiet
    /// spell. The interval is one over the rate, at most a day (the
    /// number may come from a config or a flag; a rate that is not a
    /// positive number is one per second).
    pub fn new(requests_per_second: f64, burst: u32) -> Self {
        let rate = if requests_per_second.is_finite() && requests_per_second > 0.0 {
            requests_per_second
        } else {
            1.0
        };
        let interval =
            Duration::from_secs_f64((1.0 / rate).min(86_400.0)).max(Duration::from_nanos(1));
        let tolerance = interval
            .checked_mul(burst.max(1) - 1)
            .unwrap_or(Duration::MAX);
        Self {
            interval,
            tolerance,
        }
    }

    /// The time between two tokens.
    pub fn interval(&self) -> Duration {
        self.interval
    }

    /// How far ahead of now the arrival time may be.
    pub fn tolerance(&self) -> Duration {
        self.tolerance
    }

    /// Whether an operation at `now` may go, for a bucket whose arrival
    /// time is `arrival` (`None`: no operation yet). Both are durations
    /// since one origin of the caller's choosing.
    pub fn decide(&self, arrival: Option<Duration>, now: Duration) -> GcraDecision {
        let due = arrival.unwrap_or(now).max(now);
        match due.checked_sub(self.tolerance) {
            Some(earliest) if now < earliest => GcraDecision::Deny {
                retry_after: earliest - now,
            },
            _ => GcraDecision::Allow {
                arrival: due.saturating_add(self.interval),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn a_full_bucket_lets_the_burst_go_then_says_when_the_next_token_comes() {
        let gcra = Gcra::new(2.0, 3);
        let mut arrival = None;
        for _ in 0..3 {
            match gcra.decide(arrival, ms(1_000)) {
                GcraDecision::Allow { arrival: next } => arrival = Some(next),
                GcraDecision::Deny { .. } => panic!("the burst is refused"),
            }
        }
        assert_eq!(arrival, Some(ms(2_500)));
        assert_eq!(
            gcra.decide(arrival, ms(1_000)),
            GcraDecision::Deny {
                retry_after: ms(500)
            }
        );
        assert_eq!(
            gcra.decide(arrival, ms(1_500)),
            GcraDecision::Allow { arrival: ms(3_000) }
        );
    }

    #[test]
    fn a_quiet_spell_refills_the_bucket_and_no_more() {
        let gcra = Gcra::new(10.0, 1);
        assert_eq!(
            gcra.decide(Some(ms(100)), ms(60_000)),
            GcraDecision::Allow {
                arrival: ms(60_100)
            }
        );
        assert_eq!(
            gcra.decide(Some(ms(60_100)), ms(60_000)),
            GcraDecision::Deny {
                retry_after: ms(100)
            }
        );
    }
}
