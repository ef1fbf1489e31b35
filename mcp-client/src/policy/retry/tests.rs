//! The retry layer against scripted failures, on tokio's paused clock.

use std::collections::VecDeque;
use std::sync::Arc;
use std::task::{Context, Poll};

use mcpdisco_protocol::{ErrorCode, ErrorObject};
use mcpdisco_transport::sync::Mutex;
use mcpdisco_transport::{ConnectCause, TransportError};
use tokio::time::Instant;
use tower::ServiceExt;

use super::*;
use crate::error::ErrorKind;
use crate::request::RequestOptions;

/// Fails with the scripted errors in turn, then answers; counts the calls.
#[derive(Clone, Default)]
struct Scripted {
    failures: Arc<Mutex<VecDeque<SessionError>>>,
    calls: Arc<Mutex<Vec<Instant>>>,
}

impl Scripted {
    fn failing(errors: Vec<SessionError>) -> Self {
        Self {
            failures: Arc::new(Mutex::new(errors.into())),
            calls: Arc::default(),
        }
    }

    fn calls(&self) -> usize {
        self.calls.lock().len()
    }
}

impl Service<McpRequest> for Scripted {
    type Response = RawJson;
    type Error = SessionError;
    type Future = ResponseFuture;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), SessionError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _: McpRequest) -> Self::Future {
        self.calls.lock().push(Instant::now());
        let next = self.failures.lock().pop_front();
        Box::pin(async move {
            match next {
                Some(error) => Err(error),
                None => Ok(RawJson::empty_object()),
            }
        })
    }
}

fn connect_failure(cause: ConnectCause, reason: &str) -> SessionError {
    SessionError::from_send(
        "s",
        "tools/list",
        TransportError::Connect {
            server: "s".into(),
            url: "http://127.0.0.1:9/mcp".into(),
            cause,
            reason: reason.into(),
        },
    )
}

/// A connection reset while it was being made: it may pass.
fn reset() -> SessionError {
    connect_failure(ConnectCause::Reset, "connection reset by peer")
}

fn rate_limited(after: u64) -> SessionError {
    SessionError::from_send(
        "s",
        "tools/list",
        TransportError::RateLimited {
            server: "s".into(),
            retry_after: Some(Duration::from_secs(after)),
        },
    )
}

fn lost() -> SessionError {
    SessionError::new(
        "s",
        "tools/call",
        ErrorKind::ConnectionLost {
            reason: "the server closed the connection".into(),
        },
    )
    .with_delivery(Delivery::Lost)
}

fn list() -> McpRequest {
    McpRequest::untyped("tools/list", None, RequestOptions::default())
}

fn call() -> McpRequest {
    McpRequest::untyped("tools/call", None, RequestOptions::default())
}

fn no_jitter() -> RetryPolicy {
    RetryPolicy {
        jitter: 0.0,
        ..RetryPolicy::default()
    }
}

#[tokio::test(start_paused = true)]
async fn reset_connections_back_off_exponentially_then_succeed() {
    let inner = Scripted::failing(vec![reset(), reset()]);
    let started = Instant::now();
    RetryLayer::new(no_jitter())
        .wrap(inner.clone())
        .oneshot(list())
        .await
        .unwrap();
    assert_eq!(inner.calls(), 3);
    let calls = inner.calls.lock().clone();
    assert_eq!(calls[1] - calls[0], Duration::from_secs(1));
    assert_eq!(calls[2] - calls[1], Duration::from_secs(2));
    assert_eq!(started.elapsed(), Duration::from_secs(3));
}

#[tokio::test(start_paused = true)]
async fn retry_after_replaces_the_backoff() {
    let inner = Scripted::failing(vec![rate_limited(1), rate_limited(1)]);
    let started = Instant::now();
    RetryLayer::new(RetryPolicy::default())
        .wrap(inner.clone())
        .oneshot(list())
        .await
        .unwrap();
    assert_eq!(inner.calls(), 3);
    assert_eq!(started.elapsed(), Duration::from_secs(2));
}

#[tokio::test(start_paused = true)]
async fn gives_up_after_the_last_retry_with_the_last_error() {
    let inner = Scripted::failing(vec![reset(), reset(), reset(), reset(), reset()]);
    let error = RetryLayer::new(no_jitter())
        .wrap(inner.clone())
        .oneshot(list())
        .await
        .unwrap_err();
    assert_eq!(inner.calls(), 4, "one try and three retries");
    assert!(error.to_string().contains("connection reset"), "{error}");
}

#[tokio::test(start_paused = true)]
async fn a_call_that_may_have_run_is_never_sent_again_and_says_so() {
    let inner = Scripted::failing(vec![lost()]);
    let error = RetryLayer::new(RetryPolicy::default())
        .wrap(inner.clone())
        .oneshot(call())
        .await
        .unwrap_err();
    assert_eq!(inner.calls(), 1);
    assert!(error.may_have_run());
    assert!(
        error.to_string().contains("may have run on the server"),
        "{error}"
    );
    // The same failure of an idempotent request is sent again.
    let inner = Scripted::failing(vec![lost()]);
    RetryLayer::new(RetryPolicy::default())
        .wrap(inner.clone())
        .oneshot(list())
        .await
        .unwrap();
    assert_eq!(inner.calls(), 2);
}

#[tokio::test(start_paused = true)]
async fn a_call_that_never_left_is_sent_again() {
    let inner = Scripted::failing(vec![reset()]);
    RetryLayer::new(RetryPolicy::default())
        .wrap(inner.clone())
        .oneshot(call())
        .await
        .unwrap();
    assert_eq!(inner.calls(), 2);
}

#[tokio::test(start_paused = true)]
async fn an_answered_error_of_a_call_is_not_sent_again() {
    // HTTP 503 is an answer: the server may have started the tool.
    let unavailable = SessionError::from_send(
        "s",
        "tools/call",
        TransportError::Http {
            server: "s".into(),
            status: 503,
            rpc_error: None,
            body: String::new(),
        },
    );
    let inner = Scripted::failing(vec![unavailable]);
    let error = RetryLayer::new(RetryPolicy::default())
        .wrap(inner.clone())
        .oneshot(call())
        .await
        .unwrap_err();
    assert_eq!(inner.calls(), 1);
    assert!(error.to_string().contains("HTTP 503"), "{error}");
}

#[tokio::test(start_paused = true)]
async fn errors_that_do_not_go_away_are_returned_at_once() {
    let server_error = SessionError::from_rpc(
        "s",
        "tools/list",
        ErrorObject::new(ErrorCode::INTERNAL_ERROR, "boom"),
    );
    let inner = Scripted::failing(vec![server_error]);
    let started = Instant::now();
    let error = RetryLayer::new(RetryPolicy::default())
        .wrap(inner.clone())
        .oneshot(list())
        .await
        .unwrap_err();
    assert_eq!(inner.calls(), 1);
    assert_eq!(started.elapsed(), Duration::ZERO);
    assert!(error.to_string().contains("boom"));
}

#[tokio::test(start_paused = true)]
async fn no_retry_starts_past_the_deadline() {
    let inner = Scripted::failing(vec![reset(), reset(), reset()]);
    let started = Instant::now();
    let error = RetryLayer::new(no_jitter())
        .with_deadline(Deadline::new(Some(started + Duration::from_millis(2500))))
        .wrap(inner.clone())
        .oneshot(list())
        .await
        .unwrap_err();
    // Tried at 0 s and 1 s; the next retry (at 3 s) would pass the deadline.
    assert_eq!(inner.calls(), 2);
    assert_eq!(started.elapsed(), Duration::from_secs(1));
    assert!(error.to_string().contains("connection reset"));
}

#[test]
fn delays_grow_by_the_factor_up_to_the_cap_with_bounded_jitter() {
    let policy = RetryPolicy {
        max_retries: 8,
        ..RetryPolicy::default()
    };
    let delays: Vec<Duration> = policy.delays().collect();
    assert_eq!(delays.len(), 8);
    let nominal = [1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0, 30.0];
    for (delay, nominal) in delays.iter().zip(nominal) {
        let seconds = delay.as_secs_f64();
        assert!(
            seconds >= nominal * 0.9 - 1e-6 && seconds <= nominal * 1.1 + 1e-6,
            "{seconds} vs {nominal}"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn a_huge_retry_after_neither_panics_nor_waits_forever() {
    let huge = SessionError::from_send(
        "s",
        "tools/list",
        TransportError::RateLimited {
            server: "s".into(),
            retry_after: Some(Duration::MAX),
        },
    );
    let inner = Scripted::failing(vec![huge]);
    let started = Instant::now();
    // With a deadline: the capped wait still passes it, so the error comes back at once.
    let error = RetryLayer::new(RetryPolicy::default())
        .with_deadline(Deadline::new(Some(started + Duration::from_secs(60))))
        .wrap(inner.clone())
        .oneshot(list())
        .await
        .unwrap_err();
    assert_eq!(inner.calls(), 1);
    assert_eq!(started.elapsed(), Duration::ZERO);
    assert!(error.to_string().contains("429"), "{error}");
    // Without one: it waits five minutes at most.
    let inner = Scripted::failing(vec![rate_limited(u64::MAX / 4)]);
    RetryLayer::new(RetryPolicy::default())
        .wrap(inner.clone())
        .oneshot(list())
        .await
        .unwrap();
    assert_eq!(started.elapsed(), Duration::from_secs(300));
}

#[tokio::test(start_paused = true)]
async fn a_retried_attempt_ends_at_the_deadline() {
    /// Fails once at once, then never answers.
    #[derive(Clone, Default)]
    struct ThenSilent(Arc<Mutex<usize>>);
    impl Service<McpRequest> for ThenSilent {
        type Response = RawJson;
        type Error = SessionError;
        type Future = ResponseFuture;
        fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), SessionError>> {
            Poll::Ready(Ok(()))
        }
        fn call(&mut self, _: McpRequest) -> Self::Future {
            let first = {
                let mut calls = self.0.lock();
                *calls += 1;
                *calls == 1
            };
            Box::pin(async move {
                if first {
                    Err(reset())
                } else {
                    std::future::pending().await
                }
            })
        }
    }
    let started = Instant::now();
    let error = RetryLayer::new(no_jitter())
        .with_deadline(Deadline::new(Some(started + Duration::from_secs(5))))
        .wrap(ThenSilent::default())
        .oneshot(list())
        .await
        .unwrap_err();
    assert_eq!(started.elapsed(), Duration::from_secs(5));
    assert!(error.is_timeout(), "{error}");
}

#[tokio::test(start_paused = true)]
async fn a_refused_connection_a_dns_failure_and_a_tls_failure_fail_at_once() {
    for (cause, reason) in [
        (
            ConnectCause::Refused,
            "tcp connect error: Connection refused (os error 111)",
        ),
        (
            ConnectCause::Dns,
            "dns error: failed to lookup address information",
        ),
        (ConnectCause::Tls, "invalid peer certificate: UnknownIssuer"),
    ] {
        let inner = Scripted::failing(vec![connect_failure(cause, reason)]);
        let started = Instant::now();
        let error = RetryLayer::new(RetryPolicy::default())
            .wrap(inner.clone())
            .oneshot(list())
            .await
            .unwrap_err();
        assert_eq!(inner.calls(), 1, "{cause:?} was tried again");
        assert_eq!(started.elapsed(), Duration::ZERO);
        assert!(error.to_string().contains(reason), "{error}");
        assert!(error.to_string().contains(&cause.to_string()), "{error}");
    }
}

#[tokio::test(start_paused = true)]
async fn a_connect_timeout_is_tried_again() {
    let inner = Scripted::failing(vec![connect_failure(ConnectCause::TimedOut, "timed out")]);
    RetryLayer::new(no_jitter())
        .wrap(inner.clone())
        .oneshot(list())
        .await
        .unwrap();
    assert_eq!(inner.calls(), 2);
}
