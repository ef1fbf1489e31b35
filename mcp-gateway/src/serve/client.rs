//! One client of the gateway: its connection, what it declared, its
//! requests in progress (so `notifications/cancelled` can stop them), the
//! gateway's own requests to it, its modern subscriptions, and the log
//! level it set (legacy `logging/setLevel`).

use foldhash::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use futures::future::{AbortHandle, Abortable, BoxFuture};
use mcpdisco_protocol::method::{NotificationMethod, RequestMethod};
use mcpdisco_protocol::methods::Cancelled;
use mcpdisco_protocol::types::{
    CancelledParams, ClientCapabilities, LoggingLevel, SubscriptionFilter,
};
use mcpdisco_protocol::{
    ErrorCode, ErrorObject, ErrorResponse, Message, Notification, RawJson, Request, RequestId,
    Response,
};
use mcpdisco_transport::sync::Mutex;
use mcpdisco_transport::{Inbound, Transport, TransportError};
use serde_json::Map;
use tokio::sync::{oneshot, watch};

use super::operation::Operation;

/// The most requests one client may have in progress; more are refused.
const MAX_RUNNING: usize = 512;

/// A client's request in progress, as its connection polls it: its
/// answer, once worked out (`None` when it was stopped: no answer goes out).
pub(crate) type Running = BoxFuture<'static, Option<Finished>>;

/// A request of the client and its answer, ready to go out.
pub(crate) struct Finished {
    /// The client's id of the request.
    pub(crate) id: RequestId,
    /// Its answer.
    pub(crate) answer: Result<RawJson, ErrorObject>,
    /// Its operation, recorded once the answer is out.
    pub(crate) operation: Operation,
}

/// What a legacy client settled in `initialize`.
#[derive(Default)]
struct Declared {
    /// It ran `initialize` (it speaks the legacy era on this connection).
    legacy: bool,
    /// It sent `notifications/initialized`.
    initialized: bool,
    capabilities: Arc<ClientCapabilities>,
}

/// A modern `subscriptions/listen` of this connection.
struct Listen {
    id: RequestId,
    filter: SubscriptionFilter,
}

/// The log level a legacy client set, and the profile it set it in.
#[derive(Clone)]
pub(crate) struct LogWish {
    /// The least severe level it wants.
    pub(crate) level: LoggingLevel,
    /// The profile whose servers it sees (every server when `None`).
    pub(crate) profile: Option<Arc<str>>,
}

/// One client connection.
pub(crate) struct ClientLink {
    transport: Arc<dyn Transport>,
    declared: Mutex<Declared>,
    next_id: AtomicI64,
    /// The gateway's requests to the client, waiting for answers.
    waiting: Mutex<HashMap<RequestId, oneshot::Sender<Result<RawJson, ErrorObject>>>>,
    /// The client's requests in progress.
    running: Mutex<HashMap<RequestId, AbortHandle>>,
    listens: Mutex<Vec<Listen>>,
    /// The log level it set with `logging/setLevel`, if it did.
    log_wish: Mutex<Option<LogWish>>,
    /// The profile whose view it is served (every server when `None`).
    profile: Mutex<Option<Arc<str>>>,
    /// Becomes true when its serving ends.
    stopped: watch::Sender<bool>,
}

impl ClientLink {
    /// A client on `transport`, which has declared nothing yet.
    pub(crate) fn new(transport: Arc<dyn Transport>) -> Self {
        Self {
            transport,
            declared: Mutex::new(Declared::default()),
            next_id: AtomicI64::new(1),
            waiting: Mutex::new(HashMap::default()),
            running: Mutex::new(HashMap::default()),
            listens: Mutex::new(Vec::new()),
            log_wish: Mutex::new(None),
            profile: Mutex::new(None),
            stopped: watch::Sender::new(false),
        }
    }

    /// Records the client's `logging/setLevel`.
    pub(crate) fn set_log_wish(&self, wish: LogWish) {
        *self.log_wish.lock() = Some(wish);
    }

    /// Records the profile whose view the client is served.
    pub(crate) fn set_profile(&self, profile: Option<Arc<str>>) {
        *self.profile.lock() = profile;
    }

    /// The profile whose view the client is served.
    #[cfg(feature = "redis")]
    pub(crate) fn profile(&self) -> Option<Arc<str>> {
        self.profile.lock().clone()
    }

    /// Its session's key (a digest of its id) when a fleet shares it.
    pub(crate) fn session_key(&self) -> Option<String> {
        self.transport.session_key()
    }

    /// The log level the client set, if it did.
    pub(crate) fn log_wish(&self) -> Option<LogWish> {
        self.log_wish.lock().clone()
    }

    /// Resolves once the client's serving has ended.
    pub(crate) fn until_stopped(&self) -> impl Future<Output = ()> + Send + 'static {
        let mut stopped = self.stopped.subscribe();
        async move {
            // A dropped link has stopped too.
            let _ = stopped.wait_for(|stopped| *stopped).await;
        }
    }

    /// The client's next message. A client's connection has no answers of
    /// ours to lose: word of one is skipped.
    pub(crate) async fn receive(&self) -> Result<Option<Message>, TransportError> {
        loop {
            match self.transport.receive().await? {
                Some(Inbound::Message(message)) => return Ok(Some(message)),
                Some(Inbound::AnswerLost { .. }) => {}
                None => return Ok(None),
            }
        }
    }

    /// What the client declared in `initialize` (nothing before it).
    pub(crate) fn capabilities(&self) -> Arc<ClientCapabilities> {
        Arc::clone(&self.declared.lock().capabilities)
    }

    /// Whether the client ran `initialize` on this connection.
    pub(crate) fn is_legacy(&self) -> bool {
        self.declared.lock().legacy
    }

    /// Whether the client is told of list changes as a legacy client: it
    /// ran `initialize` and sent `notifications/initialized`.
    pub(crate) fn hears_list_changes(&self) -> bool {
        let declared = self.declared.lock();
        declared.legacy && declared.initialized
    }

    /// Records a legacy client's `initialize`.
    pub(crate) fn initialize(&self, capabilities: ClientCapabilities) {
        let mut declared = self.declared.lock();
        declared.legacy = true;
        declared.capabilities = Arc::new(capabilities);
    }

    /// Records its `notifications/initialized`.
    pub(crate) fn initialized(&self) {
        self.declared.lock().initialized = true;
    }

    /// Sends the request `M` to the client and reads its answer (the caller
    /// bounds the wait); if the wait is dropped, the client is told with
    /// `notifications/cancelled`.
    pub(crate) async fn request<M: RequestMethod>(
        self: &Arc<Self>,
        params: &M::Params,
    ) -> Result<M::Result, ErrorObject> {
        let method = M::METHOD;
        let params = RawJson::encode(params).map_err(|error| {
            ErrorObject::new(
                ErrorCode::INTERNAL_ERROR,
                format!("{method}: could not write the request: {error}"),
            )
        })?;
        let id = RequestId::from(self.next_id.fetch_add(1, Ordering::Relaxed));
        let (reply, answer) = oneshot::channel();
        self.waiting.lock().insert(id.clone(), reply);
        let mut guard = CancelOnDrop {
            link: Arc::clone(self),
            id: Some(id.clone()),
        };
        let sent = self
            .transport
            .send(Message::Request(Request {
                id,
                method: method.to_owned(),
                params: Some(params),
            }))
            .await;
        if let Err(error) = sent {
            guard.disarm();
            return Err(ErrorObject::new(
                ErrorCode::INTERNAL_ERROR,
                format!("{method}: could not reach the gateway's client: {error}"),
            ));
        }
        let answer = answer.await;
        guard.disarm();
        let answer = answer.unwrap_or_else(|_| {
            Err(ErrorObject::new(
                ErrorCode::INTERNAL_ERROR,
                format!("{method}: the gateway's client disconnected"),
            ))
        })?;
        answer.decode().map_err(|error| {
            ErrorObject::new(
                ErrorCode::INTERNAL_ERROR,
                format!(
                    "{method}: the gateway's client answered with an unreadable result: {error}"
                ),
            )
        })
    }

    /// Hands the client's answer to the gateway's request `id` to its waiter.
    pub(crate) fn settle(&self, id: &RequestId, answer: Result<RawJson, ErrorObject>) {
        if let Some(waiting) = self.waiting.lock().remove(id) {
            let _ = waiting.send(answer);
        }
    }

    /// Sends the notification `N` (params that are an empty object are left out).
    pub(crate) async fn notify<N: NotificationMethod>(&self, params: &N::Params) {
        let params = serde_json::to_value(params)
            .ok()
            .filter(|p| !p.as_object().is_some_and(Map::is_empty));
        let message = Message::Notification(Notification {
            method: N::METHOD.to_owned(),
            params,
        });
        if let Err(error) = self.transport.send(message).await {
            tracing::debug!(%error, method = N::METHOD, "could not notify the gateway's client");
        }
    }

    /// Sends one answer (the result as the JSON text to send).
    pub(crate) async fn answer(&self, id: RequestId, outcome: Result<RawJson, ErrorObject>) {
        let message = match outcome {
            Ok(result) => Message::Response(Response { id, result }),
            Err(error) => Message::Error(ErrorResponse {
                id: Some(id),
                error,
            }),
        };
        if let Err(error) = self.transport.send(message).await {
            tracing::debug!(%error, "could not answer the gateway's client");
        }
    }

    /// Answers requests that finished together, in one write where the
    /// transport can (stdio); their operations, for the caller to record
    /// now that the answers are out.
    pub(crate) async fn answer_all(&self, answers: Vec<Finished>) -> Vec<Operation> {
        let mut operations = Vec::with_capacity(answers.len());
        let messages = answers
            .into_iter()
            .map(|finished| {
                operations.push(finished.operation);
                match finished.answer {
                    Ok(result) => Message::Response(Response {
                        id: finished.id,
                        result,
                    }),
                    Err(error) => Message::Error(ErrorResponse {
                        id: Some(finished.id),
                        error,
                    }),
                }
            })
            .collect();
        if let Err(error) = self.transport.send_all(messages).await {
            tracing::debug!(%error, "could not answer the gateway's client");
        }
        operations
    }

    /// Starts request `id`, answered with what `work` yields: returns the
    /// future that works on it and yields its answer, for the connection's
    /// own task to poll beside its others and send ([`answer_all`](Self::answer_all));
    /// no task is spawned per request. A `notifications/cancelled` for `id`
    /// stops it (then no answer goes out). More than [`MAX_RUNNING`] at
    /// once are refused (answered here, and `None`).
    pub(crate) async fn run(
        self: &Arc<Self>,
        id: RequestId,
        method: &str,
        work: impl Future<Output = (Result<RawJson, ErrorObject>, Operation)> + Send + 'static,
    ) -> Option<Running> {
        let registration = {
            let mut running = self.running.lock();
            if running.len() >= MAX_RUNNING {
                None
            } else {
                let (handle, registration) = AbortHandle::new_pair();
                running.insert(id.clone(), handle);
                Some(registration)
            }
        };
        let Some(registration) = registration else {
            let refusal = ErrorObject::new(
                ErrorCode::INTERNAL_ERROR,
                format!(
                    "{method}: more than {MAX_RUNNING} requests of this client are in progress"
                ),
            );
            self.answer(id, Err(refusal)).await;
            return None;
        };
        let link = Arc::clone(self);
        Some(Box::pin(async move {
            // Aborted: the client cancelled it, or its connection ended.
            let (answer, operation) = Abortable::new(work, registration).await.ok()?;
            // Out of the table first: a cancel that comes now finds nothing to stop.
            link.running.lock().remove(&id);
            Some(Finished {
                id,
                answer,
                operation,
            })
        }))
    }

    /// The client cancelled its request `id`: its work stops (a routed call
    /// is cancelled at its server) and no answer goes out.
    pub(crate) fn cancel(&self, id: &RequestId) {
        if let Some(task) = self.running.lock().remove(id) {
            task.abort();
        }
        self.listens.lock().retain(|listen| &listen.id != id);
    }

    /// Records the modern subscription `id`, which hears of what `filter` asks for.
    pub(crate) fn add_listen(&self, id: RequestId, filter: SubscriptionFilter) {
        self.listens.lock().push(Listen { id, filter });
    }

    /// The subscriptions whose filter `wants`.
    pub(crate) fn listeners(&self, wants: impl Fn(&SubscriptionFilter) -> bool) -> Vec<RequestId> {
        self.listens
            .lock()
            .iter()
            .filter(|listen| wants(&listen.filter))
            .map(|listen| listen.id.clone())
            .collect()
    }

    /// Stops the requests in progress; waits for answers fail.
    pub(crate) fn stop(&self) {
        for (_, task) in self.running.lock().drain() {
            task.abort();
        }
        self.waiting.lock().clear();
        self.listens.lock().clear();
        self.stopped.send_replace(true);
    }

    /// Ends the connection.
    pub(crate) async fn end(&self) {
        self.stop();
        let _ = self.transport.close().await;
    }
}

/// Cancels a request to the client whose wait was dropped.
struct CancelOnDrop {
    link: Arc<ClientLink>,
    id: Option<RequestId>,
}

impl CancelOnDrop {
    fn disarm(&mut self) {
        if let Some(id) = self.id.take() {
            self.link.waiting.lock().remove(&id);
        }
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else {
            return;
        };
        self.link.waiting.lock().remove(&id);
        let link = Arc::clone(&self.link);
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let params = CancelledParams::new(id, "the server that asked cancelled it");
                link.notify::<Cancelled>(&params).await;
            });
        }
    }
}
