//! The stack's order against a core that fails twice, on tokio's paused clock.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};

use mcpdisco_transport::{ConnectCause, TransportError};
use tower::ServiceExt;

use super::*;
use crate::policy::trace::SPAN_NAME;
use crate::request::{RequestOptions, ResponseFuture};

/// Fails its first `failures` calls with a reset connection (which retry
/// sends again), then answers; counts its calls.
#[derive(Clone)]
struct FailingCore {
    failures: usize,
    calls: Arc<AtomicUsize>,
}

impl FailingCore {
    fn failing(failures: usize) -> Self {
        Self {
            failures,
            calls: Arc::default(),
        }
    }
}

impl Service<McpRequest> for FailingCore {
    type Response = RawJson;
    type Error = SessionError;
    type Future = ResponseFuture;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), SessionError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _: McpRequest) -> ResponseFuture {
        let call = self.calls.fetch_add(1, Ordering::SeqCst);
        let fails = call < self.failures;
        Box::pin(async move {
            if fails {
                Err(SessionError::from_send(
                    "s",
                    "tools/list",
                    TransportError::Connect {
                        server: "s".into(),
                        url: "http://127.0.0.1:9/mcp".into(),
                        cause: ConnectCause::Reset,
                        reason: "connection reset by peer".into(),
                    },
                ))
            } else {
                Ok(RawJson::empty_object())
            }
        })
    }
}

/// A layer of the user's: counts the requests that pass it.
#[derive(Clone, Default)]
struct Counting {
    seen: Arc<AtomicUsize>,
}

impl Counting {
    fn seen(&self) -> usize {
        self.seen.load(Ordering::SeqCst)
    }
}

impl<S> Layer<S> for Counting {
    type Service = Counted<S>;

    fn layer(&self, inner: S) -> Counted<S> {
        Counted {
            inner,
            seen: Arc::clone(&self.seen),
        }
    }
}

#[derive(Clone)]
struct Counted<S> {
    inner: S,
    seen: Arc<AtomicUsize>,
}

impl<S: Service<McpRequest>> Service<McpRequest> for Counted<S> {
    type Response = S::Response;
    type Error = S::Error;
    type Future = S::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: McpRequest) -> S::Future {
        self.seen.fetch_add(1, Ordering::SeqCst);
        self.inner.call(request)
    }
}

fn list() -> McpRequest {
    McpRequest::typed::<mcpdisco_protocol::methods::ListTools>(
        &Default::default(),
        RequestOptions::default(),
    )
    .unwrap()
}

fn quick_retry() -> RetryPolicy {
    RetryPolicy {
        jitter: 0.0,
        ..RetryPolicy::default()
    }
}

async fn send_through(stack: &LayerStack, core: &FailingCore) {
    stack
        .service(RequestService::from_ready(core.clone()))
        .oneshot(list())
        .await
        .unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_layer_outside_retry_sees_one_call_and_inside_every_attempt() {
    let outside = Counting::default();
    let inside = Counting::default();
    let stack = LayerStack::empty()
        .layer(outside.clone())
        .retry(quick_retry())
        .rate_limit(RateLimit::default())
        .layer(inside.clone());
    let core = FailingCore::failing(2);
    send_through(&stack, &core).await;
    assert_eq!(core.calls.load(Ordering::SeqCst), 3, "retried twice");
    assert_eq!(outside.seen(), 1, "outside retry: the call, once");
    assert_eq!(inside.seen(), 3, "inside retry: every attempt");
}

#[tokio::test(start_paused = true)]
async fn the_default_stack_puts_added_layers_inside_retry() {
    let added = Counting::default();
    let stack = LayerStack::default().layer(added.clone());
    assert_eq!(stack.names()[..2], ["retry", "rate limit"]);
    let core = FailingCore::failing(2);
    send_through(&stack, &core).await;
    assert_eq!(added.seen(), 3);
}

#[tokio::test(start_paused = true)]
async fn an_empty_stack_sends_once() {
    let core = FailingCore::failing(1);
    let error = LayerStack::empty()
        .service(RequestService::from_ready(core.clone()))
        .oneshot(list())
        .await
        .unwrap_err();
    assert!(error.to_string().contains("connection reset"), "{error}");
    assert_eq!(core.calls.load(Ordering::SeqCst), 1);
}

#[test]
fn appended_layers_go_innermost_in_order() {
    let connection = LayerStack::empty().layer(Counting::default());
    let stack = LayerStack::default().trace().append(connection);
    let names = stack.names();
    assert_eq!(names[..3], ["retry", "rate limit", "trace"]);
    assert!(names[3].ends_with("Counting"), "{names:?}");
}

#[test]
fn policies_are_set_where_they_stand_or_where_the_default_has_them() {
    let mut stack = LayerStack::empty()
        .layer(Counting::default())
        .retry(RetryPolicy::default());
    stack.set_rate_limit(Some(RateLimit {
        requests_per_second: 2.0,
        burst: 1,
    }));
    assert_eq!(stack.names()[1..], ["retry", "rate limit"]);
    assert_eq!(stack.rate_limit_policy().map(|l| l.burst), Some(1));
    stack.set_retry(Some(RetryPolicy {
        max_retries: 7,
        ..RetryPolicy::default()
    }));
    assert_eq!(stack.names()[1..], ["retry", "rate limit"], "kept in place");
    assert_eq!(stack.retry_policy().map(|p| p.max_retries), Some(7));
    stack.set_retry(None);
    stack.set_rate_limit(None);
    assert_eq!(stack.names().len(), 1);
    assert!(stack.retry_policy().is_none() && stack.rate_limit_policy().is_none());
    let mut bare = LayerStack::empty();
    bare.set_rate_limit(Some(RateLimit::default()));
    bare.set_retry(Some(RetryPolicy::default()));
    assert_eq!(bare.names(), ["retry", "rate limit"]);
}

#[test]
fn a_session_gets_a_bucket_of_its_own_for_each_rate_limit() {
    let stack = LayerStack::default();
    let binding = || SessionBinding {
        server: "s".into(),
        masker: Masker::default(),
        deadline: Deadline::default(),
        #[cfg(feature = "otel")]
        facts: None,
    };
    let core = || RequestService::from_ready(FailingCore::failing(0));
    assert_eq!(stack.build(core(), &binding()).rate_limits.len(), 1);
    assert!(
        LayerStack::empty()
            .build(core(), &binding())
            .rate_limits
            .is_empty()
    );
}

/// Counts the request spans opened while it is the default subscriber.
struct SpanCounter {
    spans: Arc<AtomicUsize>,
    ids: AtomicUsize,
}

impl tracing::Subscriber for SpanCounter {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }

    fn new_span(&self, span: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        if span.metadata().name() == SPAN_NAME {
            self.spans.fetch_add(1, Ordering::SeqCst);
        }
        let id = self.ids.fetch_add(1, Ordering::SeqCst) as u64 + 1;
        tracing::span::Id::from_u64(id)
    }

    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}

    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}

    fn event(&self, _: &tracing::Event<'_>) {}

    fn enter(&self, _: &tracing::span::Id) {}

    fn exit(&self, _: &tracing::span::Id) {}
}

/// How many request spans a call retried twice opens through `stack`.
async fn spans_through(stack: LayerStack) -> usize {
    let spans = Arc::new(AtomicUsize::new(0));
    let _default = tracing::subscriber::set_default(SpanCounter {
        spans: Arc::clone(&spans),
        ids: AtomicUsize::new(0),
    });
    send_through(&stack, &FailingCore::failing(2)).await;
    spans.load(Ordering::SeqCst)
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn a_trace_outside_retry_opens_one_span_per_call_and_inside_one_per_attempt() {
    let outside = LayerStack::empty().trace().retry(quick_retry());
    assert_eq!(spans_through(outside).await, 1);
    let inside = LayerStack::empty().retry(quick_retry()).trace();
    assert_eq!(spans_through(inside).await, 3);
}
