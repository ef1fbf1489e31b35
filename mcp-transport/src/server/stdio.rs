//! One client on this process's stdin and stdout.

use std::pin::Pin;

use async_trait::async_trait;
use futures::{SinkExt, StreamExt};
use mcpdisco_protocol::Message;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_util::codec::{FramedRead, FramedWrite};

use crate::codec::ndjson::{NdjsonCodec, NdjsonFrame};
use crate::error::TransportError;
use crate::inbound::Inbound;
use crate::transport::Transport;

type Reader = Pin<Box<dyn AsyncRead + Send>>;
type Writer = Pin<Box<dyn AsyncWrite + Send>>;

/// A server's end of a stdio connection: messages from stdin, to stdout.
/// Lines that are not JSON-RPC are skipped (and logged); a batch yields its
/// messages one by one. `receive` ends with stdin.
///
/// When stdin and stdout are pipes (as an MCP host starts a server), they
/// are read and written without blocking threads (on Unix); anything else
/// (a terminal, a file) goes through tokio's blocking stdin and stdout.
pub struct StdioServer {
    name: String,
    input: tokio::sync::Mutex<Input>,
    output: tokio::sync::Mutex<FramedWrite<Writer, NdjsonCodec>>,
}

struct Input {
    frames: FramedRead<Reader, NdjsonCodec>,
    queue: std::collections::VecDeque<Message>,
}

impl StdioServer {
    /// This process's stdin and stdout, for a server called `name` (in logs).
    /// Call it inside a tokio runtime.
    pub fn new(name: impl Into<String>) -> Self {
        let (reader, writer) = standard_streams();
        Self::over(name, reader, writer)
    }

    /// Any reader and writer (a socket, an in-memory pipe), for a server called `name`.
    pub fn over(
        name: impl Into<String>,
        reader: impl AsyncRead + Send + 'static,
        writer: impl AsyncWrite + Send + 'static,
    ) -> Self {
        let reader: Reader = Box::pin(reader);
        let writer: Writer = Box::pin(writer);
        Self {
            name: name.into(),
            input: tokio::sync::Mutex::new(Input {
                frames: FramedRead::new(reader, NdjsonCodec::new()),
                queue: std::collections::VecDeque::new(),
            }),
            output: tokio::sync::Mutex::new(FramedWrite::new(writer, NdjsonCodec::new())),
        }
    }
}

/// Stdin and stdout: as non-blocking pipes when they are pipes, else tokio's.
fn standard_streams() -> (Reader, Writer) {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        use tokio::net::unix::pipe;
        let pipes = std::io::stdin()
            .as_fd()
            .try_clone_to_owned()
            .and_then(|fd| pipe::Receiver::from_file(std::fs::File::from(fd)))
            .and_then(|reader| {
                let fd = std::io::stdout().as_fd().try_clone_to_owned()?;
                let writer = pipe::Sender::from_file(std::fs::File::from(fd))?;
                Ok((reader, writer))
            });
        if let Ok((reader, writer)) = pipes {
            return (Box::pin(reader), Box::pin(writer));
        }
    }
    (Box::pin(tokio::io::stdin()), Box::pin(tokio::io::stdout()))
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

    async fn send_all(&self, messages: Vec<Message>) -> Result<(), TransportError> {
        let io_error = |source| TransportError::Io {
            server: self.name.clone(),
            source,
        };
        let mut output = self.output.lock().await;
        // Buffered together (written early only past the codec's bound), then one flush.
        for message in &messages {
            output.feed(message).await.map_err(io_error)?;
        }
        SinkExt::<&Message>::flush(&mut *output)
            .await
            .map_err(io_error)
    }

    async fn receive(&self) -> Result<Option<Inbound>, TransportError> {
        let mut input = self.input.lock().await;
        loop {
            if let Some(message) = input.queue.pop_front() {
                return Ok(Some(Inbound::Message(message)));
            }
            match input.frames.next().await {
                None => return Ok(None),
                Some(Ok(NdjsonFrame::Message(message))) => {
                    return Ok(Some(Inbound::Message(message)));
                }
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::{Context, Poll};

    use mcpdisco_protocol::{RawJson, RequestId, Response};

    use super::*;

    /// Keeps what it is given and counts the writes it took.
    #[derive(Clone, Default)]
    struct CountingWriter {
        writes: Arc<AtomicUsize>,
        bytes: Arc<std::sync::Mutex<Vec<u8>>>,
    }

    impl AsyncWrite for CountingWriter {
        fn poll_write(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
            buf: &[u8],
        ) -> Poll<std::io::Result<usize>> {
            self.writes.fetch_add(1, Ordering::SeqCst);
            self.bytes.lock().unwrap().extend_from_slice(buf);
            Poll::Ready(Ok(buf.len()))
        }

        fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
            Poll::Ready(Ok(()))
        }

        fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
            Poll::Ready(Ok(()))
        }
    }

    fn answer(id: i64) -> Message {
        Message::Response(Response {
            id: RequestId::from(id),
            result: RawJson::from(serde_json::Value::from(id)),
        })
    }

    #[tokio::test]
    async fn answers_sent_together_are_one_write_of_their_lines_in_order() {
        let writer = CountingWriter::default();
        let server = StdioServer::over("test", tokio::io::empty(), writer.clone());
        server
            .send_all((1..=3).map(answer).collect())
            .await
            .unwrap();
        assert_eq!(writer.writes.load(Ordering::SeqCst), 1);
        let bytes = writer.bytes.lock().unwrap().clone();
        let lines: Vec<Message> = bytes
            .split(|byte| *byte == b'\n')
            .filter(|line| !line.is_empty())
            .map(|line| serde_json::from_slice(line).unwrap())
            .collect();
        assert_eq!(lines, (1..=3).map(answer).collect::<Vec<_>>());
        // One by one, each is a write of its own.
        server.send(answer(4)).await.unwrap();
        assert_eq!(writer.writes.load(Ordering::SeqCst), 2);
    }
}
