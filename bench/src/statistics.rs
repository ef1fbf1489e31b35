//! Medians and percentiles of measured samples.

use std::time::Duration;

/// The median and the 99th percentile of a set of latencies, in microseconds.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct LatencySummary {
    /// The median.
    pub median_us: f64,
    /// The 99th percentile (nearest rank).
    pub p99_us: f64,
    /// How many samples.
    pub samples: usize,
}

impl LatencySummary {
    /// Summarises `latencies`; `None` when there are none.
    pub fn of(latencies: &[Duration]) -> Option<Self> {
        let mut micros: Vec<f64> = latencies.iter().map(|d| d.as_secs_f64() * 1e6).collect();
        Some(Self {
            median_us: percentile(&mut micros, 50.0)?,
            p99_us: percentile(&mut micros, 99.0)?,
            samples: latencies.len(),
        })
    }
}

/// The nearest-rank percentile `p` (0 < p ≤ 100) of `values`; sorts them. `None` when empty.
pub fn percentile(values: &mut [f64], p: f64) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let rank = (p / 100.0 * values.len() as f64).ceil() as usize;
    let index = rank.clamp(1, values.len()) - 1;
    values.get(index).copied()
}

/// The median of `values` (the upper one of an even count); sorts them. `None` when empty.
pub fn median(values: &mut [f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let mut values: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&mut values, 50.0), Some(50.0));
        assert_eq!(percentile(&mut values, 99.0), Some(99.0));
        assert_eq!(percentile(&mut values, 100.0), Some(100.0));
        assert_eq!(percentile(&mut [7.0], 99.0), Some(7.0));
        assert_eq!(percentile(&mut [], 50.0), None);
    }

    #[test]
    fn median_of_unsorted_values() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), Some(3.0));
        assert_eq!(median(&mut []), None);
    }

    #[test]
    fn latency_summary_in_microseconds() {
        let latencies: Vec<Duration> = (1..=200).map(Duration::from_micros).collect();
        let summary = LatencySummary::of(&latencies).unwrap();
        assert_eq!(summary.median_us, 100.0);
        assert_eq!(summary.p99_us, 198.0);
        assert_eq!(summary.samples, 200);
        assert!(LatencySummary::of(&[]).is_none());
    }
}
