//! [`StdioTransport`]: a connection to a server running as a child process.

use crate::sync::Mutex;
use std::collections::VecDeque;
use std::time::Duration;

use async_trait::async_trait;
use futures::{SinkExt, StreamExt};
use mcpdisco_protocol::Message;
use tokio::process::{ChildStdin, ChildStdout};
use tokio::task::JoinHandle;
use tokio_util::codec::{FramedRead, FramedWrite};
use tokio_util::sync::CancellationToken;

use super::config::StdioConfig;
use super::masked_preview;
use super::process::Process;
use super::stderr::{self, StderrTail};
use crate::codec::ndjson::{NdjsonCodec, NdjsonFrame, SkipLog};
use crate::error::{ExitStatus, TransportError};
use crate::inbound::Inbound;
use crate::transport::{Transport, TransportInfo};

/// How long to wait for an exit after the server closed stdout.
const EXIT_WAIT: Duration = Duration::from_millis(500);
/// How long to wait for the rest of stderr after the server is gone.
const STDERR_WAIT: Duration = Duration::from_secs(1);

struct Reader {
    frames: FramedRead<ChildStdout, NdjsonCodec>,
    queue: VecDeque<Message>,
}

/// A stdio connection to a server process.
pub struct StdioTransport {
    name: String,
    command_line: String,
    shutdown_grace: Duration,
    term_grace: Duration,
    writer: tokio::sync::Mutex<Option<FramedWrite<ChildStdin, NdjsonCodec>>>,
    reader: tokio::sync::Mutex<Reader>,
    process: Process,
    stderr: StderrTail,
    stderr_task: Mutex<Option<JoinHandle<()>>>,
    skipped: Mutex<SkipLog>,
    exited: Mutex<Option<(ExitStatus, String)>>,
    gone: tokio::sync::OnceCell<()>,
    closing: CancellationToken,
}

impl StdioTransport {
    /// Starts the server process.
    pub fn spawn(config: StdioConfig) -> Result<Self, TransportError> {
        let (process, pipes) = Process::spawn(&config)?;
        let stderr = StderrTail::with_masker(config.masker.union(&config.own_masker()));
        let stderr_task = tokio::spawn(stderr::drain(
            config.name.clone(),
            pipes.stderr,
            stderr.clone(),
            config.stderr.clone(),
        ));
        tracing::debug!(server = %config.name, pid = ?process.pid(), command = %config.command, "started");
        Ok(Self {
            command_line: config.command_line(),
            shutdown_grace: config.shutdown_grace,
            term_grace: config.term_grace,
            writer: tokio::sync::Mutex::new(Some(FramedWrite::new(
                pipes.stdin,
                NdjsonCodec::new(),
            ))),
            reader: tokio::sync::Mutex::new(Reader {
                frames: FramedRead::new(
                    pipes.stdout,
                    NdjsonCodec::with_max_frame_len(config.max_frame_len),
                ),
                queue: VecDeque::new(),
            }),
            process,
            stderr,
            stderr_task: Mutex::new(Some(stderr_task)),
            skipped: Mutex::new(SkipLog::default()),
            exited: Mutex::new(None),
            gone: tokio::sync::OnceCell::new(),
            closing: CancellationToken::new(),
            name: config.name,
        })
    }

    /// The process id, which is also its process group id.
    pub fn pid(&self) -> Option<u32> {
        self.process.pid()
    }

    /// What the server wrote to stderr (the last 64 KiB).
    pub fn stderr_tail(&self) -> String {
        self.stderr.text()
    }

    /// The lines of stdout that were skipped (noise, invalid UTF-8, too long).
    pub fn skipped(&self) -> SkipLog {
        self.skipped.lock().clone()
    }

    fn exited_error(&self) -> Option<TransportError> {
        let exited = self.exited.lock();
        exited
            .as_ref()
            .map(|(status, tail)| TransportError::Exited {
                server: self.name.clone(),
                status: status.clone(),
                stderr_tail: tail.clone(),
            })
    }

    /// The server is gone (stdout closed or a write failed): find out how, once.
    /// Concurrent callers (a failed write and a closed stdout) all wait for
    /// the one inquiry, so none reports the exit before stderr is read.
    async fn server_gone(&self) -> TransportError {
        self.gone.get_or_init(|| self.inquire_exit()).await;
        self.exited_error().unwrap_or(TransportError::Closed {
            server: self.name.clone(),
        })
    }

    async fn inquire_exit(&self) {
        if self.exited_error().is_some() {
            return;
        }
        let status = match self.process.wait_for(EXIT_WAIT).await {
            Some(status) => status,
            None => {
                // Stdout closed but the process lives on: it is useless to us.
                tracing::warn!(server = %self.name, "the server closed stdout; stopping it");
                self.process.shutdown(Duration::ZERO, self.term_grace).await
            }
        };
        let task = self.stderr_task.lock().take();
        if let Some(task) = task {
            let _ = tokio::time::timeout(STDERR_WAIT, task).await;
        }
        let tail = self.stderr.for_error();
        let mut exited = self.exited.lock();
        exited.get_or_insert((status, tail));
    }

    async fn read_next(&self) -> Result<Option<Message>, TransportError> {
        let mut reader = self.reader.lock().await;
        loop {
            if let Some(message) = reader.queue.pop_front() {
                return Ok(Some(message));
            }
            if let Some(error) = self.exited_error() {
                return Err(error);
            }
            match reader.frames.next().await {
                Some(Ok(NdjsonFrame::Message(message))) => return Ok(Some(message)),
                Some(Ok(NdjsonFrame::Batch(items))) => {
                    for item in items {
                        match item {
                            Ok(message) => reader.queue.push_back(message),
                            Err(error) => {
                                let error = self.stderr.masker().mask_string(error.to_string());
                                tracing::warn!(server = %self.name, %error, "skipping an invalid batch element")
                            }
                        }
                    }
                }
                Some(Ok(NdjsonFrame::Skipped(line))) => {
                    let shown = masked_preview(self.stderr.masker(), &line);
                    tracing::warn!(server = %self.name, reason = %line.reason, line = %shown, "skipping a line on stdout");
                    self.skipped.lock().record(&line);
                }
                Some(Err(error)) => {
                    tracing::debug!(server = %self.name, %error, "reading stdout failed");
                    drop(reader);
                    return Err(self.server_gone().await);
                }
                None => {
                    drop(reader);
                    return Err(self.server_gone().await);
                }
            }
        }
    }
}

#[async_trait]
impl Transport for StdioTransport {
    async fn send(&self, message: Message) -> Result<(), TransportError> {
        if let Some(error) = self.exited_error() {
            return Err(error);
        }
        let mut writer = self.writer.lock().await;
        let Some(frames) = writer.as_mut() else {
            return Err(TransportError::Closed {
                server: self.name.clone(),
            });
        };
        if let Err(error) = frames.send(message).await {
            tracing::debug!(server = %self.name, %error, "writing to stdin failed");
            writer.take();
            drop(writer);
            return Err(self.server_gone().await);
        }
        Ok(())
    }

    async fn receive(&self) -> Result<Option<Inbound>, TransportError> {
        tokio::select! {
            biased;
            () = self.closing.cancelled() => Ok(None),
            next = self.read_next() => next.map(|message| message.map(Inbound::Message)),
        }
    }

    async fn close(&self) -> Result<(), TransportError> {
        if self.closing.is_cancelled() {
            return Ok(());
        }
        self.closing.cancel();
        // Dropping the writer closes the child's stdin.
        self.writer.lock().await.take();
        let status = self
            .process
            .shutdown(self.shutdown_grace, self.term_grace)
            .await;
        tracing::debug!(server = %self.name, %status, "stopped");
        let task = self.stderr_task.lock().take();
        if let Some(task) = task
            && tokio::time::timeout(STDERR_WAIT, &mut Box::pin(task))
                .await
                .is_err()
        {
            tracing::debug!(server = %self.name, "stderr stayed open after exit");
        }
        Ok(())
    }

    fn describe(&self) -> String {
        format!("stdio: {}", self.command_line)
    }

    fn info(&self) -> &dyn TransportInfo {
        self
    }
}

impl TransportInfo for StdioTransport {
    fn peer(&self) -> crate::transport::Peer {
        crate::transport::Peer::Pipe
    }
}

impl Drop for StdioTransport {
    fn drop(&mut self) {
        if let Some(task) = self.stderr_task.lock().take() {
            task.abort();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    /// A server that writes nothing and outlives both the end of its
    /// stdin and SIGTERM: only SIGKILL, after both graces, ends it.
    fn stubborn() -> StdioConfig {
        let mut config =
            StdioConfig::new("stubborn", "sh").args(["-c", "trap '' TERM; exec sleep 30"]);
        config.shutdown_grace = Duration::from_secs(1);
        config.term_grace = Duration::from_secs(1);
        config
    }

    #[tokio::test]
    async fn a_waiting_receive_ends_when_closing_begins_not_when_the_server_is_gone() {
        let transport = Arc::new(StdioTransport::spawn(stubborn()).unwrap());
        let receiving = tokio::spawn({
            let transport = Arc::clone(&transport);
            async move { transport.receive().await }
        });
        // Let it wait on the pipe.
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!receiving.is_finished());
        let closing = tokio::spawn({
            let transport = Arc::clone(&transport);
            async move { transport.close().await }
        });
        let received = tokio::time::timeout(Duration::from_millis(500), receiving)
            .await
            .expect("the receive outlived the start of close()")
            .unwrap();
        assert!(matches!(received, Ok(None)), "{received:?}");
        // The server still runs its graces out.
        assert!(!closing.is_finished());
        closing.await.unwrap().unwrap();
        // Every later receive ends at once too.
        assert!(matches!(transport.receive().await, Ok(None)));
    }
}
