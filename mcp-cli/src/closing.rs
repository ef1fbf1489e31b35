//! The servers a run still has to stop: discovery hands their sessions over
//! closing, and the run waits for them once everything is printed.

use mcpdisco::discovery::Closing;
use mcpdisco_client::transport::sync::Mutex;

/// Sessions still closing after the discoveries of a run.
#[derive(Debug, Default)]
pub struct PendingCloses(Mutex<Vec<Closing>>);

impl PendingCloses {
    /// Keeps `closing` until [`finish`](Self::finish).
    pub fn push(&self, closing: Closing) {
        self.0.lock().push(closing);
    }

    /// Waits until every server handed over is stopped and reaped.
    pub async fn finish(&self) {
        let pending: Vec<Closing> = std::mem::take(&mut *self.0.lock());
        for closing in pending {
            for (server, took) in closing.finish().await {
                tracing::debug!(%server, close_ms = took.as_millis() as u64, "stopped");
            }
        }
    }
}
