//! A worked example of a third-party transport: newline-delimited JSON over TCP.
//!
//! It implements [`Transport`] on top of a `tokio` `TcpStream` and this
//! crate's [`NdjsonCodec`], then talks to a tiny in-process "server" on
//! 127.0.0.1. Run it with `cargo run -p mcpdisco-transport --example tcp_transport`.
//! Nothing else in the workspace had to change for this transport to exist:
//! the session in `mcp-client` accepts any `Transport`.

use std::collections::VecDeque;

use async_trait::async_trait;
use futures::{SinkExt, StreamExt};
use mcpdisco_protocol::{Message, RawJson, Request, RequestId, Response};
use mcpdisco_transport::codec::ndjson::{NdjsonCodec, NdjsonFrame};
use mcpdisco_transport::{ConnectCause, Inbound, Transport, TransportError};
use tokio::net::TcpStream;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::Mutex;
use tokio_util::codec::{FramedRead, FramedWrite};

/// Newline JSON over one TCP connection.
struct TcpTransport {
    peer: String,
    // Two locks, so that `send` (many callers) and `receive` (one reader) never wait on each other.
    writer: Mutex<Option<FramedWrite<OwnedWriteHalf, NdjsonCodec>>>,
    reader: Mutex<(FramedRead<OwnedReadHalf, NdjsonCodec>, VecDeque<Message>)>,
}

impl TcpTransport {
    async fn connect(address: &str) -> Result<Self, TransportError> {
        let stream = TcpStream::connect(address)
            .await
            .map_err(|e| TransportError::Connect {
                server: address.to_owned(),
                url: address.to_owned(),
                cause: match e.kind() {
                    std::io::ErrorKind::ConnectionRefused => ConnectCause::Refused,
                    std::io::ErrorKind::TimedOut => ConnectCause::TimedOut,
                    std::io::ErrorKind::ConnectionReset => ConnectCause::Reset,
                    _ => ConnectCause::Other,
                },
                reason: e.to_string(),
            })?;
        let (read, write) = stream.into_split();
        Ok(Self {
            peer: address.to_owned(),
            writer: Mutex::new(Some(FramedWrite::new(write, NdjsonCodec::new()))),
            reader: Mutex::new((FramedRead::new(read, NdjsonCodec::new()), VecDeque::new())),
        })
    }

    fn io_error(&self, source: std::io::Error) -> TransportError {
        TransportError::Io {
            server: self.peer.clone(),
            source,
        }
    }
}

#[async_trait]
impl Transport for TcpTransport {
    async fn send(&self, message: Message) -> Result<(), TransportError> {
        let mut writer = self.writer.lock().await;
        let frames = writer.as_mut().ok_or_else(|| TransportError::Closed {
            server: self.peer.clone(),
        })?;
        frames.send(message).await.map_err(|e| self.io_error(e))
    }

    async fn receive(&self) -> Result<Option<Inbound>, TransportError> {
        let mut guard = self.reader.lock().await;
        let (frames, queue) = &mut *guard;
        loop {
            if let Some(message) = queue.pop_front() {
                return Ok(Some(Inbound::Message(message)));
            }
            match frames.next().await {
                None => return Ok(None),
                Some(Err(error)) => return Err(self.io_error(error)),
                Some(Ok(NdjsonFrame::Message(message))) => {
                    return Ok(Some(Inbound::Message(message)));
                }
                Some(Ok(NdjsonFrame::Batch(items))) => queue.extend(items.into_iter().flatten()),
                Some(Ok(NdjsonFrame::Skipped(line))) => {
                    eprintln!("skipped a line: {}", line.reason)
                }
            }
        }
    }

    async fn close(&self) -> Result<(), TransportError> {
        if let Some(mut writer) = self.writer.lock().await.take() {
            let _ = SinkExt::<Message>::close(&mut writer).await;
        }
        Ok(())
    }

    fn describe(&self) -> String {
        format!("tcp: {}", self.peer)
    }
}

/// A server that answers every request with `{}` (enough for `ping`).
async fn serve_one(listener: tokio::net::TcpListener) -> std::io::Result<()> {
    let (stream, _) = listener.accept().await?;
    let (read, write) = stream.into_split();
    let mut frames = FramedRead::new(read, NdjsonCodec::new());
    let mut out = FramedWrite::new(write, NdjsonCodec::new());
    while let Some(frame) = frames.next().await {
        if let NdjsonFrame::Message(Message::Request(request)) = frame? {
            out.send(Message::Response(Response {
                id: request.id,
                result: RawJson::empty_object(),
            }))
            .await?;
        }
    }
    Ok(())
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let address = listener.local_addr()?.to_string();
    let server = tokio::spawn(serve_one(listener));

    let transport = TcpTransport::connect(&address).await?;
    transport
        .send(Message::Request(Request {
            id: RequestId::from(1),
            method: "ping".into(),
            params: None,
        }))
        .await?;
    let answer = transport.receive().await?;
    println!("{} answered: {answer:?}", transport.describe());
    transport.close().await?;
    server.await??;
    Ok(())
}
