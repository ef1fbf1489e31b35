//! One client on this process's stdin and stdout.

use async_trait::async_trait;
use futures::{SinkExt, StreamExt};
use mcp_protocol::Message;
use tokio::io::{Stdin, Stdout};
use tokio_util::codec::{FramedRead, FramedWrite};

use crate::codec::ndjson::{NdjsonCodec, NdjsonFrame};
use crate::error::TransportError;
use crate::transport::Transport;

/// A server's end of a stdio connection: messages from stdin, to stdout.
/// Lines that are not JSON-RPC are skipped (and logged); a batch yields its
/// messages one by one. `receive` ends with stdin.
pub struct StdioServer {
    name: String,
    input: tokio::sync::Mutex<Input>,
    output: tokio::sync::Mutex<FramedWrite<Stdout, NdjsonCodec>>,
}

struct Input {
    frames: FramedRead<Stdin, NdjsonCodec>,
    queue: std::collections::VecDeque<Message>,
}

impl StdioServer {
    /// This process's stdin and stdout, for a server called `name` (in logs).
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            input: tokio::sync::Mutex::new(Input {
                frames: FramedRead::new(tokio::io::stdin(), NdjsonCodec::new()),
                queue: std::collections::VecDeque::new(),
            }),
            output: tokio::sync::Mutex::new(FramedWrite::new(
                tokio::io::stdout(),
                NdjsonCodec::new(),
            )),
        }
    }
}

#[async_trait]
impl Transport for StdioServer {
    async fn send(&self, message: Message) -> Result<(), TransportError> {
        let mut output = self.output.lock().await;
        output
            .send(&message)
            .await
            .map_err(|source| TransportError::Io {
                server: self.name.clone(),
                source,
            })
    }

    async fn receive(&self) -> Result<Option<Message>, TransportError> {
        let mut input = self.input.lock().await;
        loop {
            if let Some(message) = input.queue.pop_front() {
                return Ok(Some(message));
            }
            match input.frames.next().await {
                None => return Ok(None),
                Some(Ok(NdjsonFrame::Message(message))) => return Ok(Some(message)),
                Some(Ok(NdjsonFrame::Batch(items))) => {
                    for item in items {
                        match item {
                            Ok(message) => input.queue.push_back(message),
                            Err(error) => {
                                tracing::warn!(server = %self.name, %error, "skipping an invalid batch element from the client")
                            }
                        }
                    }
                }
                Some(Ok(NdjsonFrame::Skipped(line))) => {
                    tracing::warn!(server = %self.name, reason = %line.reason, "skipping a line from the client");
                }
                Some(Err(source)) => {
                    return Err(TransportError::Io {
                        server: self.name.clone(),
                        source,
                    });
                }
            }
        }
    }

    async fn close(&self) -> Result<(), TransportError> {
        let mut output = self.output.lock().await;
        let _ = SinkExt::<&Message>::flush(&mut *output).await;
        Ok(())
    }

    fn describe(&self) -> String {
        format!("stdio server: {}", self.name)
    }
}
