//! The request engine: ids, the table of requests in flight, timeouts,
//! cancellation, progress, and the reader task that dispatches everything the
//! server sends. It knows JSON-RPC and the transport, not MCP methods.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};

use mcpdisco_transport::sync::Mutex;
use std::time::Duration;

use mcpdisco_protocol::meta::SUBSCRIPTION_ID_KEY;
use mcpdisco_protocol::method::{NotificationMethod, RequestMethod};
use mcpdisco_protocol::methods::{Cancelled, Ping};
use mcpdisco_protocol::types::{CancelledParams, ClientCapabilities, EmptyResult};
use mcpdisco_protocol::{
    ErrorCode, ErrorObject, ErrorResponse, Message, Notification, RawJson, Request, RequestId,
    Response,
};
use mcpdisco_transport::secret::Masker;
use mcpdisco_transport::{Delivery, Transport, TransportError, is_lost_answer};
use serde_json::{Map, Value};
use tokio::sync::{broadcast, mpsc, oneshot};
use tokio::time::Instant;

use super::handler::{self, ClientHandler};
use crate::error::{ErrorKind, SessionError};
use crate::notification::{Progress, ServerNotification};
use crate::request::RequestOptions;

/// How long sending `notifications/cancelled` may take before we give up on it.
const CANCEL_SEND_TIMEOUT: Duration = Duration::from_secs(2);
/// How many notifications a slow subscriber may lag behind before it loses some.
const NOTIFICATION_BUFFER: usize = 256;

/// Why the connection is gone, kept so every later call can say it.
#[derive(Debug, Clone)]
enum Lost {
    Exited {
        status: mcpdisco_transport::ExitStatus,
        stderr_tail: String,
    },
    EndOfStream,
    Failed(String),
    ClosedByUs,
}

enum Reply {
    Result(RawJson),
    Error(ErrorObject),
    Lost(Lost),
}

struct InFlight {
    reply: oneshot::Sender<Reply>,
    progress: Option<mpsc::UnboundedSender<Progress>>,
    progress_seen: Option<mpsc::UnboundedSender<()>>,
}

/// The shared state of one connection.
pub(crate) struct Engine {
    server: String,
    transport: Arc<dyn Transport>,
    next_id: AtomicI64,
    in_flight: Mutex<HashMap<RequestId, InFlight>>,
    subscriptions: Mutex<HashMap<RequestId, mpsc::UnboundedSender<ServerNotification>>>,
    notifications: broadcast::Sender<ServerNotification>,
    handler: Arc<dyn ClientHandler>,
    capabilities: ClientCapabilities,
    /// The server's requests being answered: `notifications/cancelled` aborts one.
    answering: Mutex<HashMap<RequestId, tokio::task::AbortHandle>>,
    /// Masks known secrets in the notifications the server sends.
    masker: Masker,
    lost: Mutex<Option<Lost>>,
    /// Becomes true when the connection is gone (the server exited, the stream ended).
    gone: tokio::sync::watch::Sender<bool>,
    closing: AtomicBool,
}

impl Engine {
    /// Creates the engine and starts its reader task.
    pub(crate) fn start(
        server: &str,
        transport: Arc<dyn Transport>,
        handler: Arc<dyn ClientHandler>,
        capabilities: ClientCapabilities,
        masker: Masker,
    ) -> (Arc<Self>, tokio::task::JoinHandle<()>) {
        let (notifications, _) = broadcast::channel(NOTIFICATION_BUFFER);
        let engine = Arc::new(Self {
            server: server.to_owned(),
            transport,
            next_id: AtomicI64::new(1),
            in_flight: Mutex::new(HashMap::new()),
            subscriptions: Mutex::new(HashMap::new()),
            notifications,
            handler,
            capabilities,
            answering: Mutex::new(HashMap::new()),
            masker,
            lost: Mutex::new(None),
            gone: tokio::sync::watch::Sender::new(false),
            closing: AtomicBool::new(false),
        });
        let reader = tokio::spawn(Self::read_loop(Arc::clone(&engine)));
        (engine, reader)
    }

    /// The transport the messages go over.
    #[cfg(feature = "otel")]
    pub(crate) fn transport(&self) -> &Arc<dyn Transport> {
        &self.transport
    }

    /// The server's name.
    pub(crate) fn server(&self) -> &str {
        &self.server
    }

    /// A new receiver of the server's notifications.
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<ServerNotification> {
        self.notifications.subscribe()
    }

    /// The next request id.
    pub(crate) fn next_id(&self) -> RequestId {
        RequestId::from(self.next_id.fetch_add(1, Ordering::Relaxed))
    }

    async fn read_loop(engine: Arc<Self>) {
        loop {
            match engine.transport.receive().await {
                Ok(Some(message)) => engine.dispatch(message),
                Ok(None) => {
                    engine.connection_lost(Lost::EndOfStream);
                    return;
                }
                Err(error) => {
                    let lost = match error {
                        TransportError::Exited {
                            status,
                            stderr_tail,
                            ..
                        } => Lost::Exited {
                            status,
                            stderr_tail,
                        },
                        other => Lost::Failed(other.to_string()),
                    };
                    engine.connection_lost(lost);
                    return;
                }
            }
        }
    }

    fn connection_lost(&self, lost: Lost) {
        let lost = if self.closing.load(Ordering::Acquire) {
            Lost::ClosedByUs
        } else {
            lost
        };
        tracing::debug!(server = %self.server, reason = ?lost, "connection ended");
        self.lost.lock().get_or_insert(lost.clone());
        self.gone.send_replace(true);
        let drained: Vec<InFlight> = self.in_flight.lock().drain().map(|(_, v)| v).collect();
        for request in drained {
            let _ = request.reply.send(Reply::Lost(lost.clone()));
        }
        self.subscriptions.lock().clear();
        for (_, task) in self.answering.lock().drain() {
            task.abort();
        }
    }

    fn dispatch(self: &Arc<Self>, message: Message) {
        match message {
            Message::Response(Response { id, result }) => self.complete(&id, Reply::Result(result)),
            Message::Error(ErrorResponse {
                id: Some(id),
                error,
            }) => self.complete(&id, Reply::Error(error)),
            Message::Error(ErrorResponse { id: None, error }) => {
                let error = self.masker.mask_string(error.to_string());
                tracing::warn!(server = %self.server, %error, "server sent an error without a request id");
            }
            Message::Request(request) => {
                let engine = Arc::clone(self);
                let id = request.id.clone();
                // Locked across the spawn: the task's own removal waits for the insert.
                let mut answering = self.answering.lock();
                let task = tokio::spawn(async move {
                    let id = request.id.clone();
                    engine.answer(request).await;
                    engine.answering.lock().remove(&id);
                });
                answering.insert(id, task.abort_handle());
            }
            Message::Notification(notification) => self.notify(notification),
        }
    }

    fn complete(&self, id: &RequestId, reply: Reply) {
        // The lock is released before the reply wakes the requester, which
        // takes it again at once (to drop its entry): held across the wake-up,
        // the two threads would meet on it and each response cost two more
        // context switches.
        let request = self.in_flight.lock().remove(id);
        match request {
            Some(request) => {
                let _ = request.reply.send(reply);
            }
            None => {
                tracing::debug!(server = %self.server, %id, "ignoring a response for an unknown or cancelled request");
            }
        }
    }

    async fn answer(&self, request: Request) {
        let params = request.params.unwrap_or_else(|| Value::Object(Map::new()));
        let outcome = match request.method.as_str() {
            Ping::METHOD => serde_json::to_value(EmptyResult::default())
                .map_err(|error| ErrorObject::new(ErrorCode::INTERNAL_ERROR, error.to_string())),
            method => {
                handler::answer(self.handler.as_ref(), &self.capabilities, method, params).await
            }
        };
        let reply = match outcome {
            Ok(result) => Message::Response(Response {
                id: request.id,
                result: RawJson::from_value(&result),
            }),
            Err(error) => Message::Error(ErrorResponse {
                id: Some(request.id),
                error,
            }),
        };
        if let Err(error) = self.transport.send(reply).await {
            tracing::debug!(server = %self.server, %error, "could not answer a server request");
        }
    }

    fn notify(&self, mut notification: Notification) {
        // Everything the server says is masked before anyone sees it.
        if let Some(params) = &mut notification.params {
            self.masker.mask_value(params);
        }
        if notification.method == mcpdisco_protocol::methods::Progress::METHOD
            && let Some(params) = &notification.params
            && let Some(token) = params.get("progressToken")
            && let Ok(id) = RequestId::from_value(token)
        {
            let in_flight = self.in_flight.lock();
            if let Some(request) = in_flight.get(&id) {
                if let (Some(sender), Some(progress)) =
                    (&request.progress, Progress::from_params(params))
                {
                    let _ = sender.send(progress);
                }
                if let Some(seen) = &request.progress_seen {
                    let _ = seen.send(());
                }
                return;
            }
        }
        if notification.method == Cancelled::METHOD {
            let id = notification
                .params
                .as_ref()
                .and_then(|p| p.get("requestId"))
                .and_then(|id| RequestId::from_value(id).ok());
            if let Some(task) = id.and_then(|id| self.answering.lock().remove(&id)) {
                // No answer goes out for a cancelled request.
                task.abort();
                tracing::debug!(server = %self.server, "the server cancelled one of its requests");
            }
        }
        let subscription = notification
            .params
            .as_ref()
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get(SUBSCRIPTION_ID_KEY))
            .and_then(|id| RequestId::from_value(id).ok());
        let event = ServerNotification::from_parts(&notification.method, notification.params);
        if let Some(id) = subscription
            && let Some(sender) = self.subscriptions.lock().get(&id)
        {
            let _ = sender.send(event.clone());
        }
        // Nobody listening is fine.
        let _ = self.notifications.send(event);
    }

    fn lost_error(&self, operation: &str, lost: Lost) -> SessionError {
        let kind = match lost {
            Lost::Exited {
                status,
                stderr_tail,
            } => ErrorKind::Exited {
                status,
                stderr_tail,
            },
            Lost::EndOfStream => ErrorKind::ConnectionLost {
                reason: "the server closed the connection".into(),
            },
            Lost::Failed(reason) => ErrorKind::ConnectionLost { reason },
            Lost::ClosedByUs => ErrorKind::Closed,
        };
        SessionError::new(&self.server, operation, kind)
    }

    /// Resolves once the connection is gone (at once if it already is).
    pub(crate) fn closed(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        let mut gone = self.gone.subscribe();
        async move {
            let _ = gone.wait_for(|gone| *gone).await;
        }
    }

    /// Why the connection is gone, as the error a request would get; `None` while it lives.
    pub(crate) fn gone_error(&self, operation: &str) -> Option<SessionError> {
        self.check_alive(operation).err()
    }

    /// The error for a connection that is already gone, if it is.
    pub(crate) fn check_alive(&self, operation: &str) -> Result<(), SessionError> {
        match self.lost.lock().clone() {
            Some(lost) => Err(self.lost_error(operation, lost)),
            None => Ok(()),
        }
    }

    /// Sends a typed notification (an empty params object is left out).
    pub(crate) async fn send_notification<N: NotificationMethod>(
        &self,
        params: &N::Params,
    ) -> Result<(), SessionError> {
        self.check_alive(N::METHOD)?;
        let params = serde_json::to_value(params).map_err(|error| {
            SessionError::new(
                &self.server,
                N::METHOD,
                ErrorKind::ProtocolViolation {
                    reason: format!("cannot encode params: {error}"),
                },
            )
        })?;
        let params = match params {
            Value::Object(object) if object.is_empty() => None,
            Value::Null => None,
            other => Some(other),
        };
        self.transport
            .send(Message::Notification(Notification {
                method: N::METHOD.to_owned(),
                params,
            }))
            .await
            .map_err(|e| SessionError::from_send(&self.server, N::METHOD, e))
    }

    /// Sends a request and waits for its answer, under the timeout in `options`
    /// (or `default_timeout`), never longer than `max_timeout`.
    pub(crate) async fn request(
        self: &Arc<Self>,
        method: &str,
        params: Option<&Value>,
        options: &RequestOptions,
        default_timeout: Duration,
        max_timeout: Duration,
    ) -> Result<RawJson, SessionError> {
        self.check_alive(method)?;
        let mut params = params.cloned();
        let id = self.next_id();
        if let Some(sent) = &options.sent_id {
            sent.set(id.clone());
        }
        let (reply_tx, mut reply_rx) = oneshot::channel();
        // A channel only when progress may extend the timeout (most requests have none).
        let (seen_tx, mut seen_rx) = if options.progress_extends_timeout {
            let (tx, rx) = mpsc::unbounded_channel();
            (Some(tx), Some(rx))
        } else {
            (None, None)
        };
        if options.progress.is_some() {
            let object = params.get_or_insert_with(|| Value::Object(Map::new()));
            if let Some(object) = object.as_object_mut() {
                let meta = object
                    .entry("_meta")
                    .or_insert_with(|| Value::Object(Map::new()));
                if let Some(meta) = meta.as_object_mut() {
                    meta.insert("progressToken".into(), id.to_value());
                }
            }
        }
        self.in_flight.lock().insert(
            id.clone(),
            InFlight {
                reply: reply_tx,
                progress: options.progress.clone(),
                progress_seen: seen_tx,
            },
        );
        let mut guard = CancelOnDrop {
            engine: Arc::clone(self),
            id: id.clone(),
            armed: method != mcpdisco_protocol::methods::Initialize::METHOD,
        };
        let timeout = options.timeout.unwrap_or(default_timeout);
        let start = Instant::now();
        let hard_deadline = start + max_timeout.max(timeout);
        let mut deadline = start + timeout;
        // The send runs under the request's timeout too: a transport may read
        // the answer while sending (an HTTP POST's body or event stream), and
        // progress the server streams meanwhile extends the deadline as usual.
        let mut send = self.transport.send_request(Message::Request(Request {
            id: id.clone(),
            method: method.to_owned(),
            params,
        }));
        let mut sending = true;
        let reply = loop {
            tokio::select! {
                // The reply first: an answer that came with the send is taken
                // before the timer is ever registered with the runtime.
                biased;
                reply = &mut reply_rx => break reply,
                sent = &mut send, if sending => {
                    sending = false;
                    match sent {
                        Err(error) => {
                            guard.forget();
                            return Err(SessionError::from_send(&self.server, method, error));
                        }
                        // The answer came with the send: it takes the reader's
                        // path from here, without a hand-off to the reader task.
                        Ok(Some(answer)) => self.dispatch(answer),
                        Ok(None) => {}
                    }
                }
                Some(()) = async {
                    match &mut seen_rx {
                        Some(rx) => rx.recv().await,
                        None => std::future::pending().await,
                    }
                } => {
                    deadline = (Instant::now() + timeout).min(hard_deadline);
                }
                () = tokio::time::sleep_until(deadline) => {
                    // A send still under way lets go of the transport first
                    // (a stdio writer's lock), so the cancellation can go out.
                    drop(send);
                    // Boxed: the cancel path (a timed send) would double every request's future.
                    Box::pin(guard.cancel("timeout")).await;
                    return Err(SessionError::new(&self.server, method, ErrorKind::Timeout { after: deadline - start })
                        .with_delivery(Delivery::TimedOut));
                }
            }
        };
        guard.forget();
        match reply {
            Ok(Reply::Result(result)) => Ok(result),
            // The transport knows the answer will never come (a broken stream).
            Ok(Reply::Error(error)) if is_lost_answer(&error) => Err(SessionError::new(
                &self.server,
                method,
                ErrorKind::ConnectionLost {
                    reason: error.message,
                },
            )
            .with_delivery(Delivery::Lost)),
            Ok(Reply::Error(error)) => Err(SessionError::from_rpc(&self.server, method, error)),
            Ok(Reply::Lost(lost)) => {
                Err(self.lost_error(method, lost).with_delivery(Delivery::Lost))
            }
            // The sender is only dropped when the table is drained, which sends `Lost` first.
            Err(_) => Err(self
                .lost_error(method, Lost::ClosedByUs)
                .with_delivery(Delivery::Lost)),
        }
    }

    /// Registers a channel for notifications tagged with this modern subscription id.
    pub(crate) fn add_subscription(
        &self,
        id: RequestId,
    ) -> mpsc::UnboundedReceiver<ServerNotification> {
        let (tx, rx) = mpsc::unbounded_channel();
        self.subscriptions.lock().insert(id, tx);
        rx
    }

    /// Forgets a subscription.
    pub(crate) fn remove_subscription(&self, id: &RequestId) {
        self.subscriptions.lock().remove(id);
    }

    /// Sends a request without waiting for its answer (for long-lived requests such as
    /// `subscriptions/listen`); the answer, if any, is ignored.
    pub(crate) async fn send_detached(
        &self,
        id: RequestId,
        method: &str,
        params: Option<Value>,
    ) -> Result<(), SessionError> {
        self.check_alive(method)?;
        self.transport
            .send(Message::Request(Request {
                id,
                method: method.to_owned(),
                params,
            }))
            .await
            .map_err(|e| SessionError::from_send(&self.server, method, e))
    }

    /// Sends `notifications/cancelled` for a request, bounded in time.
    pub(crate) async fn send_cancel(&self, id: &RequestId, reason: &str) {
        let params = CancelledParams::new(id.clone(), reason);
        let sent = tokio::time::timeout(
            CANCEL_SEND_TIMEOUT,
            self.send_notification::<Cancelled>(&params),
        )
        .await;
        if !matches!(sent, Ok(Ok(()))) {
            tracing::debug!(server = %self.server, %id, method = Cancelled::METHOD, "could not send the cancellation");
        }
    }

    /// Closes the transport; every request in flight fails with "closed".
    pub(crate) async fn close(&self) -> Result<(), SessionError> {
        self.closing.store(true, Ordering::Release);
        let result = self.transport.close().await;
        self.connection_lost(Lost::ClosedByUs);
        result.map_err(|e| SessionError::from_transport(&self.server, "close", e))
    }
}

/// Removes a request from the table when its future is dropped, and tells the
/// server with `notifications/cancelled`.
struct CancelOnDrop {
    engine: Arc<Engine>,
    id: RequestId,
    armed: bool,
}

impl CancelOnDrop {
    fn forget(&mut self) {
        self.engine.in_flight.lock().remove(&self.id);
        self.armed = false;
    }

    async fn cancel(&mut self, reason: &str) {
        let was_armed = self.armed;
        self.forget();
        if was_armed {
            self.engine.send_cancel(&self.id, reason).await;
        }
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        self.engine.in_flight.lock().remove(&self.id);
        if self.engine.check_alive("cancel").is_err() {
            return;
        }
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let engine = Arc::clone(&self.engine);
            let id = self.id.clone();
            runtime.spawn(async move {
                engine
                    .send_cancel(&id, "request dropped by the caller")
                    .await
            });
        }
    }
}
