//! [`PollAgain`]: a future polled again at once when it wakes itself while
//! it is being polled, instead of handing that wake to the runtime.
//!
//! hyper's HTTP/1 connection wakes its own task on every request with a
//! body: the handler takes the body from hyper's channel, and taking it
//! wakes the channel's sender, the connection itself. A task that wakes
//! itself is rescheduled as a yield, and tokio's multi-thread scheduler then
//! puts it at the back of the run queue and wakes an idle worker to steal
//! it: a futex wake, and that worker's wake-up and sleep again, per request.
//! Polling again in place costs none of that.
//!
//! After [`MAX_POLLS`] polls in a row, or once the task's cooperative budget
//! is spent, the wake goes to the runtime as before, so a future that keeps
//! waking itself still lets others run.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::task::{Context, Poll, Wake, Waker};

use futures::task::AtomicWaker;

/// The most polls of one [`PollAgain::poll`] (hyper's own loop stops at 16).
const MAX_POLLS: usize = 16;

/// Not being polled: a wake goes to the task.
const IDLE: u8 = 0;
/// Being polled, not woken yet.
const POLLING: u8 = 1;
/// Woken while being polled: polled again before the poll returns.
const WOKEN: u8 = 2;

/// A future polled again at once when it wakes itself during its poll.
pub(crate) struct PollAgain<F> {
    future: Pin<Box<F>>,
    wakes: Arc<Wakes>,
    /// The waker the inner future sees, made once.
    waker: Waker,
}

/// Where the inner future's wakes go.
struct Wakes {
    state: AtomicU8,
    /// The waker of the task that polls us, as of its last poll.
    task: AtomicWaker,
}

impl<F: Future> PollAgain<F> {
    /// Wraps `future`.
    pub(crate) fn new(future: F) -> Self {
        let wakes = Arc::new(Wakes {
            state: AtomicU8::new(IDLE),
            task: AtomicWaker::new(),
        });
        let waker = Waker::from(Arc::clone(&wakes));
        Self {
            future: Box::pin(future),
            wakes,
            waker,
        }
    }
}

impl<F: Future> Future for PollAgain<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        this.wakes.task.register(cx.waker());
        let mut inner = Context::from_waker(&this.waker);
        for _ in 0..MAX_POLLS {
            this.wakes.state.store(POLLING, Ordering::Release);
            if let Poll::Ready(output) = this.future.as_mut().poll(&mut inner) {
                this.wakes.state.store(IDLE, Ordering::Release);
                return Poll::Ready(output);
            }
            let woken = this
                .wakes
                .state
                .compare_exchange(POLLING, IDLE, Ordering::AcqRel, Ordering::Acquire)
                .is_err();
            if !woken {
                // A later wake goes to the task.
                return Poll::Pending;
            }
            if !tokio::task::coop::has_budget_remaining() {
                break;
            }
        }
        // Woken each time: the task yields, as it would have without us.
        this.wakes.state.store(IDLE, Ordering::Release);
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

impl Wake for Wakes {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        // Noted if the future is being polled (it is polled again), else
        // passed to the task.
        let noted =
            self.state
                .compare_exchange(POLLING, WOKEN, Ordering::AcqRel, Ordering::Acquire);
        match noted {
            Ok(_) | Err(WOKEN) => {}
            Err(_) => self.task.wake(),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;

    use super::*;

    /// Counts its wakes.
    #[derive(Default)]
    struct CountingWaker(AtomicUsize);

    impl Wake for CountingWaker {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    impl CountingWaker {
        fn count(&self) -> usize {
            self.0.load(Ordering::SeqCst)
        }
    }

    /// Wakes itself on each of its first `wakes` polls, then is ready; counts its polls.
    struct WakesItself {
        wakes: usize,
        polls: Arc<AtomicUsize>,
    }

    impl Future for WakesItself {
        type Output = ();

        fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
            self.polls.fetch_add(1, Ordering::SeqCst);
            if self.wakes == 0 {
                return Poll::Ready(());
            }
            self.wakes -= 1;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }

    fn poll_once<F: Future>(
        future: &mut PollAgain<F>,
        waker: &Arc<CountingWaker>,
    ) -> Poll<F::Output> {
        let waker = Waker::from(Arc::clone(waker));
        Pin::new(future).poll(&mut Context::from_waker(&waker))
    }

    #[test]
    fn a_future_that_wakes_itself_is_polled_again_without_waking_its_task() {
        let polls = Arc::new(AtomicUsize::new(0));
        let mut future = PollAgain::new(WakesItself {
            wakes: 3,
            polls: Arc::clone(&polls),
        });
        let task = Arc::new(CountingWaker::default());
        assert!(poll_once(&mut future, &task).is_ready());
        assert_eq!(polls.load(Ordering::SeqCst), 4);
        assert_eq!(task.count(), 0, "the task was woken: it would have yielded");
    }

    #[test]
    fn a_future_that_keeps_waking_itself_yields_after_a_bounded_number_of_polls() {
        let polls = Arc::new(AtomicUsize::new(0));
        let mut future = PollAgain::new(WakesItself {
            wakes: usize::MAX,
            polls: Arc::clone(&polls),
        });
        let task = Arc::new(CountingWaker::default());
        assert!(poll_once(&mut future, &task).is_pending());
        assert_eq!(polls.load(Ordering::SeqCst), MAX_POLLS);
        assert_eq!(task.count(), 1, "the task must be polled again later");
    }

    #[test]
    fn a_wake_after_the_poll_goes_to_the_task_that_polled_last() {
        let (sender, receiver) = futures::channel::oneshot::channel::<u8>();
        let mut future = PollAgain::new(receiver);
        let first = Arc::new(CountingWaker::default());
        let last = Arc::new(CountingWaker::default());
        assert!(poll_once(&mut future, &first).is_pending());
        assert!(poll_once(&mut future, &last).is_pending());
        assert_eq!((first.count(), last.count()), (0, 0));
        sender.send(7).ok();
        assert_eq!((first.count(), last.count()), (0, 1));
        assert!(matches!(poll_once(&mut future, &last), Poll::Ready(Ok(7))));
    }
}
