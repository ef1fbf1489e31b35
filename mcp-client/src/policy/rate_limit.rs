//! Rate limit: a token bucket per server (the generic cell rate algorithm,
//! GCRA, as `governor` and most rate limiters have it), so a host
//! never sends one server more operations than it allows. A token is one
//! operation a user asked for: a whole discovery of the server (the
//! handshake and every page of every list), one `tools/call`, one
//! `resources/read`, one `prompts/get`. An operation waits for its token;
//! none is refused. The session's first handshake request takes the
//! discovery's token when one is there and never waits for it (a legacy
//! fallback after the probe, or a renewed session, takes none), and the
//! pages of a listing take none, so a
//! server that lists in many pages is discovered as fast as with no limit.
//! The bucket runs on tokio's clock, so it can be tested on the paused clock.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use mcpdisco_protocol::RawJson;
use mcpdisco_protocol::method::RequestKind;
use mcpdisco_transport::sync::Mutex;
use tokio::time::Instant;
use tower::{Layer, Service};

use super::gcra::{Gcra, GcraDecision};
use super::service::{Inner, Policy, PolicyService};
use crate::error::SessionError;
use crate::request::{McpRequest, ResponseFuture};

/// How fast operations may go to one server. An operation is a whole
/// discovery, a `tools/call`, a `resources/read`, a `prompts/get` (any
/// request but the handshake and the pages of a listing).
///
/// Made by [`RateLimit::new`] (or [`Default`]: 10 per second, bursts of
/// 20); new fields may be added, so the struct cannot be built as a
/// literal outside this crate.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct RateLimit {
    /// The sustained rate, in operations per second (the name is the
    /// config's `requestsPerSecond`).
    pub requests_per_second: f64,
    /// How many operations may go at once after a quiet spell.
    pub burst: u32,
}

impl Default for RateLimit {
    fn default() -> Self {
        Self {
            requests_per_second: 10.0,
            burst: 20,
        }
    }
}

impl RateLimit {
    /// `requests_per_second` sustained, `burst` at once after a quiet spell.
    pub fn new(requests_per_second: f64, burst: u32) -> Self {
        Self {
            requests_per_second,
            burst,
        }
    }
}

/// The bucket: the [`Gcra`] decision over its theoretical arrival time
/// (since `origin`), on tokio's clock, so it can be tested on the paused
/// clock.
#[derive(Debug)]
struct Bucket {
    gcra: Gcra,
    /// The clock's origin for the arrival time.
    origin: Instant,
    /// The theoretical arrival time; `None` while no operation has gone.
    arrival: Mutex<Option<Duration>>,
}

impl Bucket {
    fn new(limit: RateLimit) -> Self {
        Self {
            gcra: Gcra::new(limit.requests_per_second, limit.burst),
            origin: Instant::now(),
            arrival: Mutex::new(None),
        }
    }

    /// Takes a token when there is one; else how long until there is.
    fn take(&self) -> Result<(), Duration> {
        let now = Instant::now().duration_since(self.origin);
        let mut arrival = self.arrival.lock();
        match self.gcra.decide(*arrival, now) {
            GcraDecision::Allow { arrival: next } => {
                *arrival = Some(next);
                Ok(())
            }
            GcraDecision::Deny { retry_after } => Err(retry_after),
        }
    }
}

/// Adds a [`RateLimited`] bucket around a request service. Services made
/// by one layer share its bucket.
#[derive(Clone)]
pub struct RateLimitLayer {
    bucket: Arc<Bucket>,
    waits: Arc<AtomicU64>,
    discovery_charged: Arc<AtomicBool>,
}

impl std::fmt::Debug for RateLimitLayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RateLimitLayer").finish_non_exhaustive()
    }
}

impl RateLimitLayer {
    /// A new bucket for `limit`, full.
    pub fn new(limit: RateLimit) -> Self {
        Self {
            bucket: Arc::new(Bucket::new(limit)),
            waits: Arc::new(AtomicU64::new(0)),
            discovery_charged: Arc::new(AtomicBool::new(false)),
        }
    }

    /// How many requests through this bucket have had to wait for a token.
    pub fn waits(&self) -> u64 {
        self.waits.load(Ordering::Relaxed)
    }

    /// `inner`, limited.
    pub fn wrap<S>(&self, inner: S) -> RateLimited<S> {
        self.layer(inner)
    }
}

impl<S> Layer<S> for RateLimitLayer {
    type Service = RateLimited<S>;

    fn layer(&self, inner: S) -> RateLimited<S> {
        PolicyService::new(self.clone(), inner)
    }
}

/// A request service that takes a token before each operation, waiting for
/// one; a handshake takes one only if it is there, a listing's page none.
/// Services made by one layer share its bucket. An operation waits for its
/// token after the inner service was polled ready: in a session's stack the
/// inner service is ready at once and reserves nothing, so no capacity is
/// held while it waits.
pub type RateLimited<S> = PolicyService<RateLimitLayer, S>;

impl Policy for RateLimitLayer {
    fn send<S>(&self, mut inner: Inner<S>, request: McpRequest) -> ResponseFuture
    where
        S: Service<McpRequest, Response = RawJson, Error = SessionError> + Send + 'static,
        S::Future: Send,
    {
        match request.kind {
            RequestKind::Listing => return Box::pin(async move { inner.send(request).await }),
            RequestKind::Handshake => {
                // The discovery's token, at the first handshake request:
                // counted when there, never waited for.
                if !self.discovery_charged.swap(true, Ordering::Relaxed) {
                    let _ = self.bucket.take();
                }
                return Box::pin(async move { inner.send(request).await });
            }
            RequestKind::Operation => {}
        }
        let bucket = Arc::clone(&self.bucket);
        let waits = Arc::clone(&self.waits);
        Box::pin(async move {
            let mut waited = false;
            #[cfg(feature = "otel")]
            let started = Instant::now();
            while let Err(wait) = bucket.take() {
                if !waited {
                    waited = true;
                    waits.fetch_add(1, Ordering::Relaxed);
                }
                tokio::time::sleep(wait).await;
            }
            #[cfg(feature = "otel")]
            if waited {
                let waited_ms = started.elapsed().as_millis();
                crate::telemetry::layer::add_event(
                    crate::telemetry::names::EVENT_RATE_LIMIT_WAIT,
                    vec![opentelemetry::KeyValue::new(
                        "rate_limit.wait_ms",
                        i64::try_from(waited_ms).unwrap_or(i64::MAX),
                    )],
                );
            }
            inner.send(request).await
        })
    }
}

#[cfg(test)]
mod tests {
    use std::task::{Context, Poll};

    use tower::ServiceExt;

    use super::*;
    use crate::request::RequestOptions;
    use tokio::time::Instant;

    /// Answers every request at once, counting them.
    #[derive(Clone, Default)]
    struct Instant200 {
        count: Arc<std::sync::atomic::AtomicUsize>,
    }

    impl Service<McpRequest> for Instant200 {
        type Response = RawJson;
        type Error = SessionError;
        type Future = ResponseFuture;

        fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), SessionError>> {
            Poll::Ready(Ok(()))
        }

        fn call(&mut self, _: McpRequest) -> Self::Future {
            self.count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Box::pin(async { Ok(RawJson::empty_object()) })
        }
    }

    fn ping() -> McpRequest {
        McpRequest::untyped("ping", None, RequestOptions::default())
    }

    fn page() -> McpRequest {
        McpRequest::untyped("tools/list", None, RequestOptions::default())
    }

    fn handshake() -> McpRequest {
        McpRequest::untyped("initialize", None, RequestOptions::default())
    }

    #[tokio::test(start_paused = true)]
    async fn pages_and_the_handshake_never_wait_even_with_the_bucket_empty() {
        let inner = Instant200::default();
        let layer = RateLimitLayer::new(RateLimit::default());
        let service = layer.wrap(inner.clone());
        let started = Instant::now();
        service.clone().oneshot(handshake()).await.unwrap();
        for _ in 0..100 {
            service.clone().oneshot(page()).await.unwrap();
        }
        // A second handshake request (a legacy fallback) takes no token.
        service.clone().oneshot(handshake()).await.unwrap();
        // Operations drain the bucket; pages and a renewed handshake still go at once.
        for _ in 0..19 {
            service.clone().oneshot(ping()).await.unwrap();
        }
        service.clone().oneshot(handshake()).await.unwrap();
        for _ in 0..100 {
            service.clone().oneshot(page()).await.unwrap();
        }
        assert_eq!(started.elapsed(), Duration::ZERO);
        assert_eq!(layer.waits(), 0);
        assert_eq!(inner.count.load(std::sync::atomic::Ordering::SeqCst), 222);
        // The handshake took the discovery's token: the burst is spent.
        service.clone().oneshot(ping()).await.unwrap();
        assert_eq!(layer.waits(), 1);
        assert_eq!(started.elapsed(), Duration::from_millis(100));
    }

    #[tokio::test(start_paused = true)]
    async fn a_hundred_requests_at_ten_per_second_with_a_burst_of_twenty_take_eight_seconds() {
        let inner = Instant200::default();
        let layer = RateLimitLayer::new(RateLimit::default());
        let service = layer.wrap(inner.clone());
        let started = Instant::now();
        let calls = (0..100).map(|_| service.clone().oneshot(ping()));
        for result in futures::future::join_all(calls).await {
            result.unwrap();
        }
        let took = started.elapsed();
        assert_eq!(inner.count.load(std::sync::atomic::Ordering::SeqCst), 100);
        assert_eq!(layer.waits(), 80);
        // 20 at once, then 80 more at 10 per second: the last leaves at 8 s.
        assert!(
            took >= Duration::from_millis(7_900) && took <= Duration::from_millis(8_100),
            "{took:?}"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_burst_goes_at_once_and_the_bucket_refills() {
        let service = RateLimitLayer::new(RateLimit {
            requests_per_second: 2.0,
            burst: 3,
        })
        .wrap(Instant200::default());
        let started = Instant::now();
        for _ in 0..3 {
            service.clone().oneshot(ping()).await.unwrap();
        }
        assert_eq!(
            started.elapsed(),
            Duration::ZERO,
            "the burst waits for nothing"
        );
        service.clone().oneshot(ping()).await.unwrap();
        assert_eq!(started.elapsed(), Duration::from_millis(500));
        tokio::time::sleep(Duration::from_secs(10)).await;
        let refilled = Instant::now();
        for _ in 0..3 {
            service.clone().oneshot(ping()).await.unwrap();
        }
        assert_eq!(refilled.elapsed(), Duration::ZERO, "the bucket refilled");
    }
}
