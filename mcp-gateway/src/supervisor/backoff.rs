//! The waits between restarts of a server that failed to start: `backon`'s
//! exponential backoff (the initial delay doubled per failed start in a
//! row, capped), each scaled by a random factor in `[1 - jitter, 1 + jitter]`
//! drawn from a seeded generator, so that the pure core stays a function of
//! its inputs (the same seed, the same delays).

use std::time::Duration;

use backon::{BackoffBuilder, ExponentialBuilder};

/// How much each delay grows per failed start.
const FACTOR: f32 = 2.0;

/// Steps past which the delay cannot grow any more (it reached its cap
/// long before: 2^64 times the smallest delay exceeds any duration).
const MAX_STEPS: u32 = 64;

/// The restart delays of one server.
#[derive(Debug, Clone)]
pub(crate) struct RestartBackoff {
    delays: ExponentialBuilder,
    max: Duration,
    jitter: f64,
    random: fastrand::Rng,
}

impl RestartBackoff {
    /// Delays from `initial` doubling up to `max`, each moved by up to
    /// `jitter` (a fraction of it, clamped to 0..=1), drawn from a generator
    /// seeded with `seed`.
    pub(crate) fn new(initial: Duration, max: Duration, jitter: f64, seed: u64) -> Self {
        let delays = ExponentialBuilder::new()
            .with_min_delay(initial)
            .with_max_delay(max)
            .with_factor(FACTOR)
            .without_max_times();
        Self {
            delays,
            max,
            jitter: if jitter.is_nan() {
                0.0
            } else {
                jitter.clamp(0.0, 1.0)
            },
            random: fastrand::Rng::with_seed(seed),
        }
    }

    /// The wait after the `failures`-th failed start in a row (the first
    /// delay for 0 or 1).
    pub(crate) fn delay(&mut self, failures: u32) -> Duration {
        let step = failures.saturating_sub(1).min(MAX_STEPS);
        let nominal = self
            .delays
            .build()
            .nth(step as usize)
            .unwrap_or(self.max)
            .min(self.max);
        let scale = 1.0 - self.jitter + 2.0 * self.jitter * self.random.f64();
        nominal.mul_f64(scale.max(0.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seconds(backoff: &mut RestartBackoff, failures: std::ops::RangeInclusive<u32>) -> Vec<f64> {
        failures.map(|n| backoff.delay(n).as_secs_f64()).collect()
    }

    #[test]
    fn without_jitter_the_delay_doubles_per_failure_up_to_the_cap() {
        let mut backoff =
            RestartBackoff::new(Duration::from_secs(1), Duration::from_secs(60), 0.0, 7);
        assert_eq!(
            seconds(&mut backoff, 1..=8),
            [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 60.0, 60.0]
        );
        // No failure yet counts as the first; a long run stays at the cap.
        assert_eq!(backoff.delay(0), Duration::from_secs(1));
        assert_eq!(backoff.delay(u32::MAX), Duration::from_secs(60));
    }

    #[test]
    fn an_initial_delay_above_the_cap_is_capped() {
        let mut backoff =
            RestartBackoff::new(Duration::from_secs(90), Duration::from_secs(60), 0.0, 7);
        assert_eq!(backoff.delay(1), Duration::from_secs(60));
    }

    #[test]
    fn jitter_stays_within_its_fraction_of_each_delay_and_varies() {
        let mut backoff =
            RestartBackoff::new(Duration::from_secs(1), Duration::from_secs(60), 0.1, 1);
        let mut seen = std::collections::HashSet::new();
        for _ in 0..200 {
            for (failures, nominal) in [(1, 1.0), (3, 4.0), (9, 60.0)] {
                let delay = backoff.delay(failures).as_secs_f64();
                assert!(
                    (nominal * 0.9..=nominal * 1.1).contains(&delay),
                    "{failures} failures: {delay}"
                );
                seen.insert(delay.to_bits());
            }
        }
        assert!(seen.len() > 100, "the jitter does not vary: {}", seen.len());
    }

    #[test]
    fn the_same_seed_gives_the_same_delays() {
        let make = || RestartBackoff::new(Duration::from_secs(1), Duration::from_secs(60), 0.5, 42);
        let (mut a, mut b) = (make(), make());
        assert_eq!(seconds(&mut a, 1..=10), seconds(&mut b, 1..=10));
    }

    #[test]
    fn full_jitter_spans_zero_to_twice_the_delay_and_nonsense_is_clamped() {
        let mut full = RestartBackoff::new(Duration::from_secs(4), Duration::from_secs(60), 5.0, 3);
        for _ in 0..100 {
            assert!(full.delay(1) <= Duration::from_secs(8));
        }
        let mut none =
            RestartBackoff::new(Duration::from_secs(4), Duration::from_secs(60), f64::NAN, 3);
        assert_eq!(none.delay(1), Duration::from_secs(4));
    }
}
