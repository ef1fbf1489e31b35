//! Readiness through the adapter, against a core with one permit as tower's
//! `ConcurrencyLimit(1)` keeps it, on tokio's paused clock: a layer that
//! called a clone instead of the polled instance would wait forever.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use mcpdisco_transport::{ConnectCause, TransportError};
use tower::ServiceExt;

use super::*;
use crate::error::ErrorKind;
use crate::policy::{RateLimit, RateLimitLayer, RetryLayer, RetryPolicy, TraceLayer};
use crate::request::RequestOptions;

/// What the clones of a [`OnePermit`] share.
#[derive(Debug)]
struct Shared {
    free: AtomicBool,
    calls: AtomicUsize,
    failures: AtomicUsize,
}

/// A core with one permit shared by its clones: `poll_ready` takes it for
/// the instance polled (or stays pending), `call` moves it into the answer,
/// which gives it back when done, and an instance holding none is refused.
/// The first `failures` calls fail with a connection reset.
#[derive(Debug)]
pub(crate) struct OnePermit {
    shared: Arc<Shared>,
    held: bool,
}

impl OnePermit {
    /// A core whose first `failures` calls fail.
    pub(crate) fn failing(failures: usize) -> Self {
        Self {
            shared: Arc::new(Shared {
                free: AtomicBool::new(true),
                calls: AtomicUsize::new(0),
                failures: AtomicUsize::new(failures),
            }),
            held: false,
        }
    }

    /// How many calls it took.
    pub(crate) fn calls(&self) -> usize {
        self.shared.calls.load(Ordering::SeqCst)
    }
}

impl Clone for OnePermit {
    /// A clone holds no permit.
    fn clone(&self) -> Self {
        Self {
            shared: Arc::clone(&self.shared),
            held: false,
        }
    }
}

impl Drop for OnePermit {
    fn drop(&mut self) {
        if self.held {
            self.shared.free.store(true, Ordering::SeqCst);
        }
    }
}

/// The permit an answer holds until it is done.
struct Permit(Arc<Shared>);

impl Drop for Permit {
    fn drop(&mut self) {
        self.0.free.store(true, Ordering::SeqCst);
    }
}

impl Service<McpRequest> for OnePermit {
    type Response = RawJson;
    type Error = SessionError;
    type Future = ResponseFuture;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), SessionError>> {
        if self.held || self.shared.free.swap(false, Ordering::SeqCst) {
            self.held = true;
            Poll::Ready(Ok(()))
        } else {
            // Another instance holds the permit; the test's timeout ends the wait.
            Poll::Pending
        }
    }

    fn call(&mut self, _: McpRequest) -> ResponseFuture {
        if !std::mem::take(&mut self.held) {
            let refused = SessionError::new(
                "s",
                "tools/list",
                ErrorKind::ProtocolViolation {
                    reason: "called without a permit".into(),
                },
            );
            return Box::pin(async move { Err(refused) });
        }
        self.shared.calls.fetch_add(1, Ordering::SeqCst);
        let permit = Permit(Arc::clone(&self.shared));
        let failed = self
            .shared
            .failures
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok();
        Box::pin(async move {
            let _permit = permit;
            if failed {
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

fn list() -> McpRequest {
    McpRequest::untyped("tools/list", None, RequestOptions::default())
}

/// Sends each request on once.
#[derive(Clone)]
struct PassOn;

impl Policy for PassOn {
    fn send<S>(&self, mut inner: Inner<S>, request: McpRequest) -> ResponseFuture
    where
        S: Service<McpRequest, Response = RawJson, Error = SessionError> + Send + 'static,
        S::Future: Send,
    {
        Box::pin(async move { inner.send(request).await })
    }
}

/// Two requests through `service`, kept between them as a caller keeps a
/// service: polled ready, then called; each must be answered within 5 s.
async fn twice_through<S>(mut service: S) -> Result<(), SessionError>
where
    S: Service<McpRequest, Response = RawJson, Error = SessionError>,
{
    for _ in 0..2 {
        let answered = tokio::time::timeout(Duration::from_secs(5), async {
            service.ready().await?.call(list()).await
        })
        .await
        .unwrap_or_else(|_| panic!("no answer: the polled instance's permit was never used"));
        answered?;
    }
    Ok(())
}

#[tokio::test(start_paused = true)]
async fn the_instance_polled_ready_is_the_one_called() {
    let core = OnePermit::failing(0);
    twice_through(PolicyService::new(PassOn, core.clone()))
        .await
        .unwrap();
    assert_eq!(core.calls(), 2);
}

#[tokio::test(start_paused = true)]
async fn each_policy_calls_the_polled_instance_and_polls_again_before_a_retry() {
    let core = OnePermit::failing(0);
    twice_through(TraceLayer::new("s").wrap(core.clone()))
        .await
        .unwrap();
    twice_through(RateLimitLayer::new(RateLimit::default()).wrap(core.clone()))
        .await
        .unwrap();
    assert_eq!(core.calls(), 4);

    // Two failures, then answers: three sends of the first request, each
    // after the permit came back.
    let core = OnePermit::failing(2);
    let retry = RetryLayer::new(RetryPolicy::default().jitter(0.0)).wrap(core.clone());
    twice_through(retry).await.unwrap();
    assert_eq!(core.calls(), 4);
}
