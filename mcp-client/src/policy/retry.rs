//! Retry: sends a failed request again after an exponentially growing,
//! jittered delay, when that is both useful and safe.
//!
//! - **Useful:** the error is one that may go away
//!   ([`SessionError::is_retryable`]): a connection reset or a connect
//!   timeout, HTTP 429, 502, 503, 504, an expired session, an answer lost
//!   with a broken stream. A JSON-RPC error, a timeout, a crashed process, a
//!   refused connection, a DNS or a TLS failure is not.
//! - **Safe:** a request that may have reached the server is sent again
//!   only when its method is idempotent. A `tools/call` (or any request that
//!   is not idempotent) is retried only when it was never delivered; when it
//!   may have run, the error says so and it is not sent again.
//! - **Timely:** a `Retry-After` replaces the computed delay, and no retry
//!   starts past the deadline (the server's own deadline in discovery).
//!
//! Delays come from `backon`'s exponential backoff (initial delay times
//! factor per attempt, capped), each then scaled by a random factor in
//! `[1 - jitter, 1 + jitter]`; `jitter: 1.0` is full jitter over
//! `[0, 2 × delay]`.

use std::sync::Arc;
use std::time::Duration;

use backon::{BackoffBuilder, ExponentialBuilder};
use mcpdisco_protocol::RawJson;
use mcpdisco_transport::Delivery;
use tokio::time::Instant;
use tower::{Layer, Service};

use mcpdisco_transport::secret::Masker;
use mcpdisco_transport::sync::Mutex;

use super::service::{Inner, Policy, PolicyService};
use crate::error::{ErrorKind, SessionError};
use crate::request::{McpRequest, ResponseFuture};

/// When and how often to try again: [`RetryPolicy::default()`] (3 retries,
/// 1 s doubling up to 30 s, 10 % jitter), then a setter per field. New
/// fields may be added, so the struct cannot be built as a literal outside
/// this crate.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RetryPolicy {
    /// How many times a request is sent again at most.
    pub max_retries: usize,
    /// The delay before the first retry.
    pub initial_delay: Duration,
    /// The longest delay.
    pub max_delay: Duration,
    /// How much each delay grows.
    pub factor: f32,
    /// How far each delay is randomly moved, as a fraction of it (0 to 1).
    pub jitter: f32,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 3,
            initial_delay: Duration::from_secs(1),
            max_delay: Duration::from_secs(30),
            factor: 2.0,
            jitter: 0.1,
        }
    }
}

impl RetryPolicy {
    /// Sets [`max_retries`](Self::max_retries).
    pub fn max_retries(mut self, retries: usize) -> Self {
        self.max_retries = retries;
        self
    }

    /// Sets [`initial_delay`](Self::initial_delay).
    pub fn initial_delay(mut self, delay: Duration) -> Self {
        self.initial_delay = delay;
        self
    }

    /// Sets [`max_delay`](Self::max_delay).
    pub fn max_delay(mut self, delay: Duration) -> Self {
        self.max_delay = delay;
        self
    }

    /// Sets [`factor`](Self::factor): how much each delay grows.
    pub fn factor(mut self, factor: f32) -> Self {
        self.factor = factor;
        self
    }

    /// Sets [`jitter`](Self::jitter) (0 to 1).
    pub fn jitter(mut self, jitter: f32) -> Self {
        self.jitter = jitter;
        self
    }

    /// The delays before each retry, jittered.
    pub fn delays(&self) -> impl Iterator<Item = Duration> + Send + use<> {
        let jitter = self.jitter.clamp(0.0, 1.0);
        let mut rng = fastrand::Rng::new();
        ExponentialBuilder::default()
            .with_min_delay(self.initial_delay)
            .with_max_delay(self.max_delay)
            .with_factor(self.factor.max(1.0))
            .with_max_times(self.max_retries)
            .build()
            .map(move |delay| {
                let scale = 1.0 - jitter + 2.0 * jitter * rng.f32();
                delay.mul_f32(scale.max(0.0))
            })
    }

    /// Whether `error`, for `request`, may be sent again at all.
    pub fn allows(request: &McpRequest, error: &SessionError) -> Verdict {
        if !error.is_retryable() {
            return Verdict::Final;
        }
        if !request.idempotent && error.delivery() != Delivery::NotSent {
            return Verdict::MayHaveRun;
        }
        Verdict::Retry
    }
}

/// What the policy says about one failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Send it again after the delay.
    Retry,
    /// The error will not go away by trying again.
    Final,
    /// It might, but the request may have run and is not idempotent.
    MayHaveRun,
}

/// The longest wait a server's `Retry-After` can impose.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(300);

/// Adds [`Retry`] around a request service.
#[derive(Debug, Clone)]
pub struct RetryLayer {
    policy: Arc<RetryPolicy>,
    deadline: Deadline,
    server: Arc<str>,
    masker: Masker,
}

/// A deadline that can be moved after the layer is built (a session kept
/// after discovery loses discovery's deadline). Cheap to clone; clones share it.
#[derive(Debug, Clone, Default)]
pub struct Deadline(Arc<Mutex<Option<Instant>>>);

impl Deadline {
    /// A deadline at `at` (none when `None`).
    pub fn new(at: Option<Instant>) -> Self {
        Self(Arc::new(Mutex::new(at)))
    }

    /// Moves it (or removes it, with `None`).
    pub fn set(&self, at: Option<Instant>) {
        *self.0.lock() = at;
    }

    /// Where it is.
    pub fn get(&self) -> Option<Instant> {
        *self.0.lock()
    }
}

impl RetryLayer {
    /// Retries by `policy`.
    pub fn new(policy: RetryPolicy) -> Self {
        Self {
            policy: Arc::new(policy),
            deadline: Deadline::default(),
            server: Arc::from(""),
            masker: Masker::default(),
        }
    }

    /// Starts no retry at or past `deadline`, and ends a retried attempt
    /// there (a request's own deadline wins).
    pub fn with_deadline(mut self, deadline: Deadline) -> Self {
        self.deadline = deadline;
        self
    }

    /// Masks known secrets in the errors its log lines quote.
    pub fn masked_with(mut self, masker: Masker) -> Self {
        self.masker = masker;
        self
    }

    /// Names the server in the log lines of retries.
    pub fn named(mut self, server: impl Into<String>) -> Self {
        self.server = Arc::from(server.into());
        self
    }

    /// `inner`, retried.
    pub fn wrap<S>(&self, inner: S) -> Retry<S> {
        self.layer(inner)
    }
}

impl<S> Layer<S> for RetryLayer {
    type Service = Retry<S>;

    fn layer(&self, inner: S) -> Retry<S> {
        PolicyService::new(self.clone(), inner)
    }
}

/// A request service whose failed requests are sent again by a [`RetryPolicy`].
pub type Retry<S> = PolicyService<RetryLayer, S>;

impl Policy for RetryLayer {
    fn send<S>(&self, mut inner: Inner<S>, request: McpRequest) -> ResponseFuture
    where
        S: Service<McpRequest, Response = RawJson, Error = SessionError> + Send + 'static,
        S::Future: Send,
    {
        let layer = self.clone();
        Box::pin(async move {
            // The first attempt costs nothing extra; the retry loop (its
            // backoff, its timer) lives in a box of its own, made on the
            // first failure, so every request's future stays small.
            match inner.send(request.clone()).await {
                Ok(result) => Ok(result),
                Err(error) => Box::pin(retry_after_failure(inner, layer, request, error)).await,
            }
        })
    }
}

/// Sends `request` again while the policy allows, after the first `error`.
async fn retry_after_failure<S>(
    mut inner: Inner<S>,
    layer: RetryLayer,
    request: McpRequest,
    mut error: SessionError,
) -> Result<RawJson, SessionError>
where
    S: Service<McpRequest, Response = RawJson, Error = SessionError> + Send + 'static,
    S::Future: Send,
{
    let deadline = request.options.deadline.or_else(|| layer.deadline.get());
    let mut delays = layer.policy.delays();
    let mut attempt = 0usize;
    loop {
        match RetryPolicy::allows(&request, &error) {
            Verdict::Final => return Err(error),
            Verdict::MayHaveRun => return Err(error.not_repeated()),
            Verdict::Retry => {}
        }
        let Some(backoff) = delays.next() else {
            return Err(error);
        };
        let delay = error
            .retry_after()
            .map_or(backoff, |asked| asked.min(MAX_RETRY_AFTER));
        let Some(resume) = Instant::now().checked_add(delay) else {
            return Err(error);
        };
        if deadline.is_some_and(|deadline| resume >= deadline) {
            return Err(error);
        }
        attempt += 1;
        let shown = layer.masker.mask_string(error.to_string());
        tracing::info!(
            server = %layer.server,
            method = %request.method,
            attempt,
            delay_ms = delay.as_millis() as u64,
            error = %shown,
            "retrying"
        );
        #[cfg(feature = "otel")]
        crate::telemetry::layer::add_event(
            crate::telemetry::names::EVENT_RETRY,
            vec![
                opentelemetry::KeyValue::new("retry.attempt", attempt as i64),
                opentelemetry::KeyValue::new("retry.delay_ms", delay.as_millis() as i64),
                opentelemetry::KeyValue::new(
                    crate::telemetry::names::ERROR_TYPE,
                    crate::telemetry::Failure::of(&error).error_type,
                ),
            ],
        );
        tokio::time::sleep(delay).await;
        let again = inner.send(request.clone());
        let outcome = match deadline {
            // A retried attempt ends at the deadline too.
            Some(deadline) => match tokio::time::timeout_at(deadline, again).await {
                Ok(outcome) => outcome,
                Err(_) => {
                    return Err(SessionError::new(
                        error.server().to_owned(),
                        error.operation().to_owned(),
                        ErrorKind::Timeout {
                            after: deadline.saturating_duration_since(resume),
                        },
                    )
                    .with_delivery(Delivery::TimedOut));
                }
            },
            None => again.await,
        };
        error = match outcome {
            Ok(result) => return Ok(result),
            Err(error) => error,
        };
    }
}

#[cfg(test)]
mod tests;
