//! A client connection's requests in progress, polled by the connection's
//! own task beside its reading (no task is spawned per request).
//!
//! The set is a [`FuturesUnordered`] with one member that never finishes
//! and is never woken. futures-util's set wakes its task again whenever one
//! call polled every member (so as not to starve others): with one call in
//! flight that is every call, and on a multi-threaded runtime each such
//! wake hands the connection to another worker (a futex wake and wait per
//! call). The idle member means no call ever polls them all.

use std::future::{Future, pending};
use std::pin::Pin;
use std::task::{Context, Poll};

use futures::stream::{FuturesUnordered, Stream};

use super::client::{Finished, Running};

/// The requests in progress on one client connection.
pub(crate) struct InFlight {
    running: FuturesUnordered<Running>,
}

impl InFlight {
    /// An empty set (but for its idle member).
    pub(crate) fn new() -> Self {
        let running = FuturesUnordered::new();
        running.push(Box::pin(pending::<Option<Finished>>()) as Running);
        let mut set = Self { running };
        // Polled once now, so that no later call polls it (it is never woken).
        let _ = set.finished_now();
        set
    }

    /// Adds a request in progress.
    pub(crate) fn push(&mut self, request: Running) {
        self.running.push(request);
    }

    /// Whether no request is in progress.
    pub(crate) fn is_empty(&self) -> bool {
        self.running.len() <= 1
    }

    /// The next request that finishes: its answer, or `None` when it was
    /// stopped. Never ends (the idle member stays).
    pub(crate) fn next_finished(&mut self) -> NextFinished<'_> {
        NextFinished { set: self }
    }

    /// What is finished already, without waiting. Polled with a waker that
    /// does nothing: the caller must wait on [`next_finished`](Self::next_finished)
    /// again before it sleeps, which registers its own.
    pub(crate) fn finished_now(&mut self) -> Vec<Option<Finished>> {
        let mut finished = Vec::new();
        let mut context = Context::from_waker(futures::task::noop_waker_ref());
        while let Poll::Ready(Some(done)) = Pin::new(&mut self.running).poll_next(&mut context) {
            finished.push(done);
        }
        finished
    }
}

/// The future of [`InFlight::next_finished`].
pub(crate) struct NextFinished<'a> {
    set: &'a mut InFlight,
}

impl Future for NextFinished<'_> {
    type Output = Option<Finished>;

    fn poll(mut self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<Self::Output> {
        match Pin::new(&mut self.set.running).poll_next(context) {
            Poll::Ready(Some(done)) => Poll::Ready(done),
            // Only with the idle member gone, which never happens.
            Poll::Ready(None) | Poll::Pending => Poll::Pending,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::Wake;

    use futures::FutureExt;
    use mcpdisco_protocol::{RawJson, RequestId};

    use super::*;
    use crate::serve::operation::Operation;

    /// Counts how often it is woken.
    #[derive(Default)]
    struct CountingWaker(AtomicUsize);

    impl Wake for CountingWaker {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn answered(id: i64) -> Running {
        let id = RequestId::from(id);
        async move { Some(finished(id)) }.boxed()
    }

    fn finished(id: RequestId) -> Finished {
        Finished {
            id,
            answer: Ok(RawJson::from(serde_json::Value::Null)),
            operation: Operation::none(),
        }
    }

    #[test]
    fn a_request_waiting_alone_does_not_wake_its_connection_again() {
        let mut set = InFlight::new();
        assert!(set.is_empty());
        let (sender, receiver) = futures::channel::oneshot::channel::<()>();
        set.push(
            async move {
                let _ = receiver.await;
                Some(finished(RequestId::from(1)))
            }
            .boxed(),
        );
        assert!(!set.is_empty());
        let waker = Arc::new(CountingWaker::default());
        let as_waker = std::task::Waker::from(Arc::clone(&waker));
        let mut context = Context::from_waker(&as_waker);
        let mut next = set.next_finished();
        assert!(Pin::new(&mut next).poll(&mut context).is_pending());
        assert_eq!(waker.0.load(Ordering::SeqCst), 0, "woken with nothing done");
        let _ = sender.send(());
        assert_eq!(waker.0.load(Ordering::SeqCst), 1);
        let done = Pin::new(&mut next).poll(&mut context);
        assert!(matches!(done, Poll::Ready(Some(Finished { id, .. })) if id == RequestId::from(1)));
        assert!(set.is_empty());
    }

    #[test]
    fn what_finished_together_is_taken_at_once() {
        let mut set = InFlight::new();
        for id in 1..=3 {
            set.push(answered(id));
        }
        set.push(async { None }.boxed());
        let finished = set.finished_now();
        assert_eq!(finished.len(), 4);
        assert_eq!(finished.iter().flatten().count(), 3);
        assert!(set.is_empty());
    }
}
