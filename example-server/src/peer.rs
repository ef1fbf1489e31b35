//! The client at the other end of one connection, as a handler sees it:
//! notifications to it, requests to it (each answer awaited, with a
//! timeout), and what the client asked of this connection (its log level,
//! its resource subscriptions).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use mcpdisco_protocol::method::{NotificationMethod, RequestMethod};
use mcpdisco_protocol::types::LoggingLevel;
use mcpdisco_protocol::{ErrorCode, ErrorObject, Message, Notification, Request, RequestId};
use mcpdisco_transport::Transport;
use serde::Serialize;
use tokio::sync::{oneshot, watch};

/// The longest the server waits for the client to answer one of its requests.
const ANSWER_WAIT: Duration = Duration::from_secs(60);
/// Requests to the client open at once on one connection.
const MAX_OPEN_REQUESTS: usize = 64;
/// Resource subscriptions kept per connection.
const MAX_SUBSCRIPTIONS: usize = 1024;

/// A shared handle on one client connection.
pub(crate) type SharedPeer = Arc<Peer>;

/// The client of one connection.
pub(crate) struct Peer {
    transport: Arc<dyn Transport>,
    open: std::sync::Mutex<HashMap<RequestId, oneshot::Sender<Message>>>,
    next_id: AtomicI64,
    log_level: std::sync::Mutex<Option<LoggingLevel>>,
    subscriptions: std::sync::Mutex<HashSet<String>>,
    closed: watch::Sender<bool>,
}

impl std::fmt::Debug for Peer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Peer")
            .field("transport", &self.transport.describe())
            .finish_non_exhaustive()
    }
}

/// Locks `mutex`, recovering the data of a panicked holder (nothing here is left half-written).
fn lock<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Peer {
    /// The client behind `transport`.
    pub(crate) fn new(transport: Arc<dyn Transport>) -> Self {
        Self {
            transport,
            open: std::sync::Mutex::new(HashMap::new()),
            next_id: AtomicI64::new(1),
            log_level: std::sync::Mutex::new(None),
            subscriptions: std::sync::Mutex::new(HashSet::new()),
            closed: watch::channel(false).0,
        }
    }

    /// Sends `message` as it is.
    pub(crate) async fn send(&self, message: Message) -> Result<(), ErrorObject> {
        self.transport
            .send(message)
            .await
            .map_err(|error| ErrorObject::new(ErrorCode::INTERNAL_ERROR, error.to_string()))
    }

    /// Sends the notification `N`.
    pub(crate) async fn notify<N: NotificationMethod>(
        &self,
        params: &N::Params,
    ) -> Result<(), ErrorObject> {
        let params = encode(N::METHOD, params)?;
        self.send(Message::Notification(Notification {
            method: N::METHOD.to_owned(),
            params: Some(params),
        }))
        .await
    }

    /// Sends the request `M` to the client and waits (bounded) for its result.
    pub(crate) async fn request<M: RequestMethod>(
        &self,
        params: &M::Params,
    ) -> Result<M::Result, ErrorObject> {
        let params = encode(M::METHOD, params)?;
        let id = RequestId::from(self.next_id.fetch_add(1, Ordering::Relaxed));
        let (sender, receiver) = oneshot::channel();
        {
            let mut open = lock(&self.open);
            if open.len() >= MAX_OPEN_REQUESTS {
                return Err(ErrorObject::new(
                    ErrorCode::INTERNAL_ERROR,
                    "too many requests to the client are open",
                ));
            }
            open.insert(id.clone(), sender);
        }
        let sent = self
            .send(Message::Request(Request {
                id: id.clone(),
                method: M::METHOD.to_owned(),
                params: Some(params.into()),
            }))
            .await;
        if let Err(error) = sent {
            lock(&self.open).remove(&id);
            return Err(error);
        }
        let answer = tokio::time::timeout(ANSWER_WAIT, receiver).await;
        lock(&self.open).remove(&id);
        match answer {
            Ok(Ok(Message::Response(response))) => response.result.decode().map_err(|error| {
                ErrorObject::new(
                    ErrorCode::INVALID_PARAMS,
                    format!("{}: the client's result is not valid: {error}", M::METHOD),
                )
            }),
            Ok(Ok(Message::Error(error))) => Err(error.error),
            Ok(_) => Err(ErrorObject::new(
                ErrorCode::INTERNAL_ERROR,
                format!(
                    "{}: the connection ended before the client answered",
                    M::METHOD
                ),
            )),
            Err(_) => Err(ErrorObject::new(
                ErrorCode::INTERNAL_ERROR,
                format!("{}: the client did not answer in time", M::METHOD),
            )),
        }
    }

    /// Hands the client's answer to the request waiting for it; `false` when none is.
    pub(crate) fn answer(&self, message: Message) -> bool {
        let Some(id) = message.response_id() else {
            return false;
        };
        match lock(&self.open).remove(id) {
            Some(waiting) => waiting.send(message).is_ok(),
            None => false,
        }
    }

    /// The level the client set with `logging/setLevel`, if it did.
    pub(crate) fn log_level(&self) -> Option<LoggingLevel> {
        lock(&self.log_level).clone()
    }

    /// Sets the connection's log level.
    pub(crate) fn set_log_level(&self, level: LoggingLevel) {
        *lock(&self.log_level) = Some(level);
    }

    /// Subscribes the connection to updates of `uri`; `false` when it holds too many.
    pub(crate) fn subscribe(&self, uri: String) -> bool {
        let mut subscriptions = lock(&self.subscriptions);
        if subscriptions.len() >= MAX_SUBSCRIPTIONS && !subscriptions.contains(&uri) {
            return false;
        }
        subscriptions.insert(uri);
        true
    }

    /// Ends the connection's subscription to `uri`.
    pub(crate) fn unsubscribe(&self, uri: &str) {
        lock(&self.subscriptions).remove(uri);
    }

    /// Marks the connection ended: every wait on [`Peer::closed`] returns.
    pub(crate) fn close(&self) {
        self.closed.send_replace(true);
        lock(&self.open).clear();
    }

    /// Completes once the connection has ended.
    pub(crate) async fn closed(&self) {
        let mut closed = self.closed.subscribe();
        let _ = closed.wait_for(|closed| *closed).await;
    }
}

/// `params` as JSON, or -32603 naming the method.
fn encode(method: &str, params: &impl Serialize) -> Result<serde_json::Value, ErrorObject> {
    serde_json::to_value(params).map_err(|error| {
        ErrorObject::new(
            ErrorCode::INTERNAL_ERROR,
            format!("{method}: could not write the params: {error}"),
        )
    })
}
