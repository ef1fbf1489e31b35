//! The runner of `--client-rate-limit`: asks the shared store when there
//! is one (and it answers), else this replica's [`SubjectBuckets`]. A store
//! that fails is left alone for a while ([`StoreHealth`]) and said to be
//! degraded; calls go on, limited per replica.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use mcpdisco_client::policy::GcraDecision;
use mcpdisco_transport::sync::Mutex;
use tokio::time::Instant;

use super::client_rate::{ClientRateLimit, Subject};
#[cfg(feature = "redis")]
use super::store_health::StoreHealth;
use super::store_health::StoreState;
use super::subject_buckets::{MAX_SUBJECTS, SubjectBuckets};

/// Requests per second per client subject, for the whole fleet when a
/// store is shared.
pub struct ClientRateLimiter {
    local: Mutex<SubjectBuckets>,
    origin: Instant,
    #[cfg(feature = "redis")]
    shared: Option<super::redis_buckets::RedisBuckets>,
    #[cfg(feature = "redis")]
    health: Mutex<StoreHealth>,
    refused: AtomicU64,
}

impl std::fmt::Debug for ClientRateLimiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut debug = f.debug_struct("ClientRateLimiter");
        debug.field("subjects", &self.local.lock().len());
        #[cfg(feature = "redis")]
        debug.field("shared", &self.shared);
        debug.finish_non_exhaustive()
    }
}

impl ClientRateLimiter {
    /// `limit`, counted by this replica alone.
    pub fn new(limit: ClientRateLimit) -> Self {
        Self {
            local: Mutex::new(SubjectBuckets::new(limit.gcra(), MAX_SUBJECTS)),
            origin: Instant::now(),
            #[cfg(feature = "redis")]
            shared: None,
            #[cfg(feature = "redis")]
            health: Mutex::new(StoreHealth::default()),
            refused: AtomicU64::new(0),
        }
    }

    /// `limit`, counted in `store` by every replica that shares it.
    #[cfg(feature = "redis")]
    pub fn shared(limit: ClientRateLimit, store: super::redis_buckets::RedisBuckets) -> Self {
        Self {
            shared: Some(store),
            ..Self::new(limit)
        }
    }

    /// Whether a request of `subject` may go now (its token taken), or
    /// how long until it may.
    pub async fn check(&self, subject: &Subject) -> Result<(), Duration> {
        #[cfg(feature = "redis")]
        if let Some(store) = &self.shared
            && self.health.lock().should_ask(self.now())
        {
            match store.check(subject).await {
                Ok(verdict) => {
                    let was_degraded = {
                        let mut health = self.health.lock();
                        let was = health.is_degraded();
                        health.answered();
                        was
                    };
                    if was_degraded {
                        tracing::warn!(
                            store = store.describe(),
                            "the session store answers again; rate limits are shared"
                        );
                    }
                    return self.count(verdict.map_or(Ok(()), Err));
                }
                Err(error) => {
                    let was_degraded = {
                        let mut health = self.health.lock();
                        let was = health.is_degraded();
                        health.failed(self.now());
                        was
                    };
                    if !was_degraded {
                        tracing::warn!(%error, "the session store failed; rate limits are per replica until it answers");
                    }
                }
            }
        }
        let decision = self.local.lock().check(subject, self.now());
        self.count(match decision {
            GcraDecision::Allow { .. } => Ok(()),
            GcraDecision::Deny { retry_after } => Err(retry_after),
        })
    }

    /// The shared store's state; `None` without one.
    pub fn store_state(&self) -> Option<StoreState> {
        #[cfg(feature = "redis")]
        if self.shared.is_some() {
            return Some(if self.health.lock().is_degraded() {
                StoreState::Degraded
            } else {
                StoreState::Up
            });
        }
        None
    }

    /// How many requests were refused so far.
    pub fn refused(&self) -> u64 {
        self.refused.load(Ordering::Relaxed)
    }

    fn count(&self, verdict: Result<(), Duration>) -> Result<(), Duration> {
        if verdict.is_err() {
            self.refused.fetch_add(1, Ordering::Relaxed);
        }
        verdict
    }

    fn now(&self) -> Duration {
        Instant::now().duration_since(self.origin)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_subject_over_its_rate_waits_and_another_does_not() {
        let limiter = ClientRateLimiter::new("2/2".parse().unwrap());
        let alice = Subject::token("alice");
        assert!(limiter.check(&alice).await.is_ok());
        assert!(limiter.check(&alice).await.is_ok());
        assert_eq!(limiter.check(&alice).await, Err(Duration::from_millis(500)));
        assert!(limiter.check(&Subject::anonymous()).await.is_ok());
        assert_eq!(limiter.refused(), 1);
        assert_eq!(limiter.store_state(), None);
        tokio::time::advance(Duration::from_millis(500)).await;
        assert!(limiter.check(&alice).await.is_ok());
    }

    #[cfg(feature = "redis")]
    #[tokio::test]
    async fn a_store_that_does_not_answer_degrades_to_the_replica_s_own_limit() {
        // A port nothing listens on: the connection is refused at once.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        let limit: ClientRateLimit = "1/1".parse().unwrap();
        let store = super::super::redis_buckets::RedisBuckets::open(
            &format!("redis://127.0.0.1:{port}/0"),
            limit.gcra(),
        )
        .unwrap();
        let limiter = ClientRateLimiter::shared(limit, store);
        assert_eq!(limiter.store_state(), Some(StoreState::Up));
        let subject = Subject::anonymous();
        assert!(limiter.check(&subject).await.is_ok(), "calls go on");
        assert_eq!(limiter.store_state(), Some(StoreState::Degraded));
        assert!(
            limiter.check(&subject).await.is_err(),
            "limited per replica"
        );
    }
}
