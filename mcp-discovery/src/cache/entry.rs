//! [`CacheEntry`]: one cached discovery result, when it was fetched and how
//! long it stays fresh ([`ttl_for`]).

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::fingerprint::Fingerprint;
use crate::clock::{millis, now_ms};
use crate::report::{ServerReport, ServerStatus};

/// How long an entry stays fresh when the server says nothing else.
pub const DEFAULT_TTL: Duration = Duration::from_secs(24 * 60 * 60);

/// One cached discovery result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CacheEntry {
    /// The key.
    pub fingerprint: String,
    /// When the server was asked, in milliseconds since the Unix epoch.
    pub fetched_at_ms: u64,
    /// How long the entry stays fresh, in milliseconds.
    pub ttl_ms: u64,
    /// What discovery found. A failed report is kept only as the "last known status".
    pub report: ServerReport,
}

impl CacheEntry {
    /// The entry recording `report` under `key`, with the report's TTL.
    pub fn of(key: &Fingerprint, report: &ServerReport) -> Self {
        Self {
            fingerprint: key.to_string(),
            fetched_at_ms: report.fetched_at_ms.unwrap_or_else(now_ms),
            ttl_ms: millis(ttl_for(report)),
            report: report.clone(),
        }
    }

    /// Whether the entry can stand in for asking the server at `now_ms`.
    pub fn is_fresh(&self, now_ms: u64) -> bool {
        self.report.status == ServerStatus::Ready
            && now_ms >= self.fetched_at_ms
            && now_ms - self.fetched_at_ms < self.ttl_ms
    }

    /// Whether the entry holds a good catalog fetched less than `max_age`
    /// before `now_ms`, so it may still be served stale.
    pub fn is_servable_stale(&self, now_ms: u64, max_age: Duration) -> bool {
        self.report.status == ServerStatus::Ready
            && now_ms.saturating_sub(self.fetched_at_ms) < millis(max_age)
    }
}

/// The TTL of a fresh result: the server's positive `ttlMs`, else [`DEFAULT_TTL`].
///
/// Every modern server seen so far sends `ttlMs: 0` on every result (the SDK
/// default, meaning "no hint"); taking that literally would never cache a
/// modern server, so zero falls back to the default too.
pub fn ttl_for(report: &ServerReport) -> Duration {
    match report.ttl_ms {
        Some(ttl) if ttl > 0 => Duration::from_millis(ttl).min(DEFAULT_TTL),
        _ => DEFAULT_TTL,
    }
}
