//! An in-memory duplex transport, for tests and for embedding a server in-process.
//!
//! [`MemoryTransport::pair`] returns two connected ends; what one sends, the
//! other receives. Both implement [`Transport`].
//!
//! ```
//! # tokio_test_block_on(async {
//! use mcpdisco_protocol::{Message, Notification};
//! use mcpdisco_transport::{Inbound, MemoryTransport, Transport};
//! let (client, server) = MemoryTransport::pair();
//! client.send(Message::Notification(Notification { method: "x".into(), params: None })).await.unwrap();
//! assert_eq!(server.receive().await.unwrap().and_then(Inbound::into_message).unwrap().method(), Some("x"));
//! # });
//! # fn tokio_test_block_on<F: std::future::Future>(f: F) -> F::Output {
//! #     tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(f)
//! # }
//! ```

use crate::sync::Mutex;

use async_trait::async_trait;
use mcpdisco_protocol::Message;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::error::TransportError;
use crate::inbound::Inbound;
use crate::transport::Transport;

/// How many messages may wait in each direction by default.
pub const DEFAULT_CAPACITY: usize = 1024;

/// One end of an in-memory connection.
#[derive(Debug)]
pub struct MemoryTransport {
    name: String,
    outgoing: Mutex<Option<mpsc::Sender<Message>>>,
    incoming: tokio::sync::Mutex<mpsc::Receiver<Message>>,
    closed: CancellationToken,
}

impl MemoryTransport {
    /// Two connected ends, each buffering up to [`DEFAULT_CAPACITY`] messages.
    pub fn pair() -> (Self, Self) {
        Self::pair_with_capacity(DEFAULT_CAPACITY)
    }

    /// Two connected ends, each buffering up to `capacity` messages (at least one).
    pub fn pair_with_capacity(capacity: usize) -> (Self, Self) {
        let capacity = capacity.max(1);
        let (a_tx, a_rx) = mpsc::channel(capacity);
        let (b_tx, b_rx) = mpsc::channel(capacity);
        (
            Self::end("memory-client", a_tx, b_rx),
            Self::end("memory-server", b_tx, a_rx),
        )
    }

    fn end(name: &str, outgoing: mpsc::Sender<Message>, incoming: mpsc::Receiver<Message>) -> Self {
        Self {
            name: name.to_owned(),
            outgoing: Mutex::new(Some(outgoing)),
            incoming: tokio::sync::Mutex::new(incoming),
            closed: CancellationToken::new(),
        }
    }

    /// Gives this end a name for errors and logs.
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    fn sender(&self) -> Option<mpsc::Sender<Message>> {
        self.outgoing.lock().clone()
    }

    fn closed(&self) -> TransportError {
        TransportError::Closed {
            server: self.name.clone(),
        }
    }
}

#[async_trait]
impl Transport for MemoryTransport {
    async fn send(&self, message: Message) -> Result<(), TransportError> {
        let sender = self.sender().ok_or_else(|| self.closed())?;
        sender.send(message).await.map_err(|_| self.closed())
    }

    async fn receive(&self) -> Result<Option<Inbound>, TransportError> {
        // `recv` is cancel-safe, and so is waiting for the lock.
        tokio::select! {
            biased;
            () = self.closed.cancelled() => {
                self.incoming.lock().await.close();
                Ok(None)
            }
            message = async { self.incoming.lock().await.recv().await } => Ok(message.map(Inbound::Message)),
        }
    }

    async fn close(&self) -> Result<(), TransportError> {
        self.outgoing.lock().take();
        if let Ok(mut incoming) = self.incoming.try_lock() {
            incoming.close();
        }
        self.closed.cancel();
        Ok(())
    }

    fn describe(&self) -> String {
        format!("memory: {}", self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpdisco_protocol::{Notification, Request, RequestId};

    /// The next message `end` receives; `None` once the other end is gone.
    async fn next(end: &MemoryTransport) -> Option<Message> {
        end.receive()
            .await
            .expect("a memory transport never fails to receive")
            .and_then(Inbound::into_message)
    }

    fn ping(id: i64) -> Message {
        Message::Request(Request {
            id: RequestId::from(id),
            method: "ping".into(),
            params: None,
        })
    }

    #[tokio::test]
    async fn messages_cross_in_order_both_ways() {
        let (client, server) = MemoryTransport::pair();
        client.send(ping(1)).await.unwrap();
        client.send(ping(2)).await.unwrap();
        server
            .send(Message::Notification(Notification {
                method: "n".into(),
                params: None,
            }))
            .await
            .unwrap();
        assert_eq!(next(&server).await, Some(ping(1)));
        assert_eq!(next(&server).await, Some(ping(2)));
        assert_eq!(next(&client).await.unwrap().method(), Some("n"));
    }

    #[tokio::test]
    async fn closing_one_end_ends_the_other() {
        let (client, server) = MemoryTransport::pair();
        client.send(ping(1)).await.unwrap();
        client.close().await.unwrap();
        client.close().await.unwrap();
        assert_eq!(next(&server).await, Some(ping(1)));
        assert_eq!(next(&server).await, None);
        assert!(matches!(
            client.send(ping(2)).await,
            Err(TransportError::Closed { .. })
        ));
        assert!(matches!(
            server.send(ping(3)).await,
            Err(TransportError::Closed { .. })
        ));
    }

    #[tokio::test]
    async fn dropping_one_end_ends_the_other() {
        let (client, server) = MemoryTransport::pair();
        drop(server);
        assert_eq!(next(&client).await, None);
        assert!(client.send(ping(1)).await.is_err());
    }
}
