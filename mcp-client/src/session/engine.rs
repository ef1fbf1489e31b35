//! The request engine: the pump between the transport and the session. It
//! reads what the transport yields, feeds it to the [`RequestTable`] (ids,
//! requests in flight, progress routing, cancellation, a lost connection),
//! and performs what the table decides: a waiter told its answer, a
//! `notifications/cancelled` sent. It also answers the server's requests and
//! fans out its notifications. It knows JSON-RPC and the transport, not MCP
//! methods.
//!
//! One lock holds the table, the subscriptions and the server's requests
//! being answered. It is never held while a reply wakes its requester.
//!
//! Timeouts take one timer per session, not one per request: the
//! [`deadline_timer`](Engine::deadline_timer) task sleeps until the earliest
//! deadline the table keeps, is woken to set it again only when a new request
//! comes due before it, and tells each expired request's waiter through its
//! reply channel. A request answered first never touches the runtime's timer.
//! An answer and a timeout race for the same table entry: the one that takes
//! it first is the outcome, so an answer the table has is an answer.

use foldhash::HashMap;
use std::sync::Arc;
use std::time::Duration;

use mcpdisco_protocol::meta::{PROGRESS_TOKEN_KEY, SUBSCRIPTION_ID_KEY};
use mcpdisco_protocol::method::{NotificationMethod, RequestMethod};
use mcpdisco_protocol::methods::{Cancelled, Initialize, Ping};
use mcpdisco_protocol::types::{CancelledParams, ClientCapabilities, EmptyResult};
use mcpdisco_protocol::{
    ErrorCode, ErrorObject, ErrorResponse, Message, Notification, RawJson, Request, RequestId,
    Response,
};
use mcpdisco_transport::secret::Masker;
use mcpdisco_transport::sync::Mutex;
use mcpdisco_transport::{Delivery, Inbound, Transport, TransportError};
use serde_json::{Map, Value};
use tokio::sync::{Notify, broadcast, mpsc, oneshot, watch};
use tokio::time::Instant;

use super::deadline::Deadline;
use super::deadline_queue::Timer;
use super::handler::{self, ClientHandler};
use super::request_table::{self, Answered, Lost, Reply, RequestTable};
use crate::error::{ErrorKind, SessionError};
use crate::notification::{Progress, ServerNotification};
use crate::request::RequestOptions;

/// How long sending `notifications/cancelled` may take before we give up on it.
const CANCEL_SEND_TIMEOUT: Duration = Duration::from_secs(2);
/// How many notifications a slow subscriber may lag behind before it loses some.
const NOTIFICATION_BUFFER: usize = 256;

/// Who waits for one request's answer, and for its progress.
struct Waiter {
    reply: oneshot::Sender<Reply>,
    progress: Option<mpsc::UnboundedSender<Progress>>,
}

/// Everything of the connection that changes, under one lock.
#[derive(Default)]
struct State {
    requests: RequestTable<Waiter>,
    /// Channels of notifications tagged with a modern subscription id.
    subscriptions: HashMap<RequestId, mpsc::UnboundedSender<ServerNotification>>,
    /// The server's requests being answered: `notifications/cancelled` aborts one.
    answering: HashMap<RequestId, tokio::task::AbortHandle>,
}

/// How waiting for an answer ended.
enum Waited {
    Reply(Result<Reply, oneshot::error::RecvError>),
    SendFailed(TransportError),
}

/// The shared state of one connection.
pub(crate) struct Engine {
    server: String,
    transport: Arc<dyn Transport>,
    state: Mutex<State>,
    notifications: broadcast::Sender<ServerNotification>,
    handler: Arc<dyn ClientHandler>,
    capabilities: ClientCapabilities,
    /// Masks known secrets in the notifications the server sends.
    masker: Masker,
    /// Becomes true when the connection is gone (the server exited, the stream ended).
    gone: watch::Sender<bool>,
    /// Wakes the deadline timer to be set again: a deadline came before it.
    timer_moved: Arc<Notify>,
}

impl Engine {
    /// Creates the engine; [`pump`](Self::pump) must run for anything to arrive.
    pub(crate) fn new(
        server: &str,
        transport: Arc<dyn Transport>,
        handler: Arc<dyn ClientHandler>,
        capabilities: ClientCapabilities,
        masker: Masker,
    ) -> Arc<Self> {
        let (notifications, _) = broadcast::channel(NOTIFICATION_BUFFER);
        Arc::new(Self {
            server: server.to_owned(),
            transport,
            state: Mutex::new(State::default()),
            notifications,
            handler,
            capabilities,
            masker,
            gone: watch::Sender::new(false),
            timer_moved: Arc::new(Notify::new()),
        })
    }

    /// What telemetry reads about the transport, and its session id.
    pub(crate) fn transport_info(&self) -> &dyn mcpdisco_transport::TransportInfo {
        self.transport.info()
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
        self.state.lock().requests.next_id()
    }

    /// Reads everything the transport yields and dispatches it, until the
    /// connection is gone; then fails what still waits.
    pub(crate) async fn pump(self: Arc<Self>) {
        let lost = loop {
            match self.transport.receive().await {
                Ok(Some(Inbound::Message(message))) => self.dispatch(message),
                Ok(Some(Inbound::AnswerLost { id, reason })) => {
                    let answered = self.state.lock().requests.answer_lost(&id, reason);
                    self.deliver(&id, answered);
                }
                Ok(None) => break Lost::EndOfStream,
                Err(TransportError::Exited {
                    status,
                    stderr_tail,
                    ..
                }) => {
                    break Lost::Exited {
                        status,
                        stderr_tail,
                    };
                }
                Err(other) => break Lost::Failed(other.to_string()),
            }
        };
        self.connection_lost(lost);
    }

    fn connection_lost(&self, lost: Lost) {
        let (told, answering) = {
            let mut state = self.state.lock();
            let told = state.requests.connection_lost(lost);
            tracing::debug!(server = %self.server, reason = ?state.requests.lost(), "connection ended");
            state.subscriptions.clear();
            (told, std::mem::take(&mut state.answering))
        };
        self.gone.send_replace(true);
        self.tell(told);
        for task in answering.into_values() {
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
                let mut state = self.state.lock();
                let task = tokio::spawn(async move {
                    let id = request.id.clone();
                    engine.answer(request).await;
                    engine.state.lock().answering.remove(&id);
                });
                state.answering.insert(id, task.abort_handle());
            }
            Message::Notification(notification) => self.notify(notification),
        }
    }

    fn complete(&self, id: &RequestId, reply: Reply) {
        // The lock is released before the reply wakes the requester, which
        // takes it again at once (to drop its entry): held across the wake-up,
        // the two threads would meet on it and each response cost two more
        // context switches.
        let answered = self.state.lock().requests.answer(id, reply);
        self.deliver(id, answered);
    }

    /// Performs what the table decided about an answer.
    fn deliver(&self, id: &RequestId, answered: Answered<Waiter>) {
        match answered {
            Answered::Deliver { waiter, reply } => {
                let _ = waiter.reply.send(reply);
            }
            Answered::Ignore => {
                tracing::debug!(server = %self.server, %id, "ignoring a response for an unknown or cancelled request");
            }
        }
    }

    /// Tells each waiter its reply (with the lock released).
    fn tell(&self, told: Vec<(Waiter, Reply)>) {
        for (waiter, reply) in told {
            let _ = waiter.reply.send(reply);
        }
    }

    /// The session's one timer for request timeouts, to run as a task: it
    /// sleeps until the earliest deadline, times out what is due, and is
    /// woken to be set earlier when a new deadline comes first. It ends when
    /// the connection is gone or the engine dropped.
    pub(crate) fn deadline_timer(self: &Arc<Self>) -> impl Future<Output = ()> + Send + 'static {
        let engine = Arc::downgrade(self);
        let moved = Arc::clone(&self.timer_moved);
        let mut gone = self.gone.subscribe();
        async move {
            let sleep = tokio::time::sleep_until(Instant::now());
            tokio::pin!(sleep);
            let mut set = false;
            loop {
                let Some(this) = engine.upgrade() else { return };
                let wake = this.state.lock().requests.arm_timer();
                drop(this);
                // The runtime's timer is touched only when the wake-up moves.
                if let Some(at) = wake
                    && (!set || sleep.deadline() != at)
                {
                    sleep.as_mut().reset(at);
                }
                set = wake.is_some();
                tokio::select! {
                    () = moved.notified() => {}
                    _ = gone.wait_for(|gone| *gone) => return,
                    () = &mut sleep, if set => {
                        let Some(this) = engine.upgrade() else { return };
                        let told = this.state.lock().requests.expire(Instant::now());
                        this.tell(told);
                    }
                }
            }
        }
    }

    async fn answer(&self, request: Request) {
        let params = request
            .params
            .as_ref()
            .map_or(Ok(Value::Object(Map::new())), RawJson::to_value);
        let outcome = match (request.method.as_str(), params) {
            (Ping::METHOD, _) => serde_json::to_value(EmptyResult::default())
                .map_err(|error| ErrorObject::new(ErrorCode::INTERNAL_ERROR, error.to_string())),
            (method, Err(error)) => Err(ErrorObject::new(
                ErrorCode::INVALID_PARAMS,
                format!("{method}: invalid params: {error}"),
            )),
            (method, Ok(params)) => {
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
            let mut state = self.state.lock();
            if let Some(waiter) = state.requests.progress(&id, Instant::now()) {
                if let (Some(sender), Some(progress)) =
                    (&waiter.progress, Progress::from_params(params))
                {
                    let _ = sender.send(progress);
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
            let task = id.and_then(|id| self.state.lock().answering.remove(&id));
            if let Some(task) = task {
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
            && let Some(sender) = self.state.lock().subscriptions.get(&id)
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
        let lost = self.state.lock().requests.lost().cloned();
        match lost {
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
        mut params: Option<RawJson>,
        options: &RequestOptions,
        default_timeout: Duration,
        max_timeout: Duration,
    ) -> Result<RawJson, SessionError> {
        let (reply_tx, reply_rx) = oneshot::channel();
        let waiter = Waiter {
            reply: reply_tx,
            progress: options.progress.clone(),
        };
        let timeout = options.timeout.unwrap_or(default_timeout);
        let deadline = Deadline::new(Instant::now(), timeout, max_timeout);
        let opened = {
            let mut state = self.state.lock();
            // `initialize` is never cancelled (the specification forbids it).
            state
                .requests
                .open(waiter, method != Initialize::METHOD)
                .map(|id| {
                    let timer = state.requests.set_deadline(
                        &id,
                        deadline,
                        options.progress_extends_timeout,
                    );
                    (id, timer)
                })
        };
        let (id, timer) = opened.map_err(|lost| self.lost_error(method, lost))?;
        if timer == Timer::Rearm {
            self.timer_moved.notify_one();
        }
        if let Some(sent) = &options.sent_id {
            sent.set(id.clone());
        }
        if options.progress.is_some() {
            insert_progress_token(&mut params, &id);
        }
        let mut guard = CancelOnDrop {
            engine: Arc::clone(self),
            id: id.clone(),
            armed: true,
        };
        let request = Message::Request(Request {
            id,
            method: method.to_owned(),
            params,
        });
        match self.wait(request, reply_rx).await {
            Waited::Reply(reply) => {
                guard.finish();
                if let Ok(Reply::TimedOut {
                    server: request_table::Cancelled::NotifyServer,
                    ..
                }) = &reply
                {
                    // Boxed: the cancel path (a timed send) would double every request's future.
                    Box::pin(self.send_cancel(&guard.id, "timeout")).await;
                }
                self.reply_result(method, reply)
            }
            Waited::SendFailed(error) => {
                guard.finish();
                Err(SessionError::from_send(&self.server, method, error))
            }
        }
    }

    /// Sends `request` and waits for its reply (a timeout comes as one).
    async fn wait(
        self: &Arc<Self>,
        request: Message,
        mut reply: oneshot::Receiver<Reply>,
    ) -> Waited {
        // The send runs under the request's timeout too: a transport may read
        // the answer while sending (an HTTP POST's body or event stream), and
        // progress the server streams meanwhile extends the deadline as usual.
        // On return a send still under way lets go of the transport (a stdio
        // writer's lock), so a cancellation can go out.
        let mut send = self.transport.send_request(request);
        let mut sending = true;
        loop {
            tokio::select! {
                // The reply first: an answer that came with the send is taken
                // before the send's result is looked at.
                biased;
                replied = &mut reply => return Waited::Reply(replied),
                sent = &mut send, if sending => {
                    sending = false;
                    match sent {
                        Err(error) => return Waited::SendFailed(error),
                        // The answer came with the send: it takes the reader's
                        // path from here, without a hand-off to the pump.
                        Ok(Some(answer)) => self.dispatch(answer),
                        Ok(None) => {}
                    }
                }
            }
        }
    }

    /// The caller's outcome of a reply.
    fn reply_result(
        &self,
        method: &str,
        reply: Result<Reply, oneshot::error::RecvError>,
    ) -> Result<RawJson, SessionError> {
        match reply {
            Ok(Reply::Result(result)) => Ok(result),
            Ok(Reply::Error(error)) => Err(SessionError::from_rpc(&self.server, method, error)),
            // The transport knows the answer will never come (a broken stream).
            Ok(Reply::AnswerLost { reason }) => {
                Err(
                    SessionError::new(&self.server, method, ErrorKind::ConnectionLost { reason })
                        .with_delivery(Delivery::Lost),
                )
            }
            Ok(Reply::Lost(lost)) => {
                Err(self.lost_error(method, lost).with_delivery(Delivery::Lost))
            }
            // The session's timer found the deadline passed.
            Ok(Reply::TimedOut { after, .. }) => {
                Err(
                    SessionError::new(&self.server, method, ErrorKind::Timeout { after })
                        .with_delivery(Delivery::TimedOut),
                )
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
        self.state.lock().subscriptions.insert(id, tx);
        rx
    }

    /// Forgets a subscription.
    pub(crate) fn remove_subscription(&self, id: &RequestId) {
        self.state.lock().subscriptions.remove(id);
    }

    /// Sends a request without waiting for its answer (for long-lived requests such as
    /// `subscriptions/listen`); the answer, if any, is ignored.
    pub(crate) async fn send_detached(
        &self,
        id: RequestId,
        method: &str,
        params: Option<RawJson>,
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
        self.state.lock().requests.begin_close();
        let result = self.transport.close().await;
        self.connection_lost(Lost::ClosedByUs);
        result.map_err(|e| SessionError::from_transport(&self.server, "close", e))
    }
}

/// Puts `_meta.progressToken` (the request's id) into a request's params.
fn insert_progress_token(params: &mut Option<RawJson>, id: &RequestId) {
    *params = mcpdisco_protocol::meta::edit_meta(params.take(), |meta| {
        meta.insert(PROGRESS_TOKEN_KEY.into(), id.to_value());
    });
}

/// Ends a request in the table when its future is dropped, and tells the
/// server with `notifications/cancelled` when the table says so.
struct CancelOnDrop {
    engine: Arc<Engine>,
    id: RequestId,
    armed: bool,
}

impl CancelOnDrop {
    /// The request ended without cancelling: its entry goes quietly.
    fn finish(&mut self) {
        self.engine.state.lock().requests.finish(&self.id);
        self.armed = false;
    }

    /// Asks the table whether the server is to hear of a cancellation.
    fn decide(&mut self) -> request_table::Cancelled {
        self.armed = false;
        self.engine.state.lock().requests.cancel(&self.id)
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if !self.armed || self.decide() == request_table::Cancelled::Quietly {
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
