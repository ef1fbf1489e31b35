//! One client of the gateway: its connection, what it declared, its
//! requests in progress (so `notifications/cancelled` can stop them), the
//! gateway's own requests to it, and the list changes it is told about.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use mcpdisco_protocol::meta::SUBSCRIPTION_ID_KEY;
use mcpdisco_protocol::method::NotificationMethod;
use mcpdisco_protocol::methods::{
    Cancelled, Initialized, PromptListChanged, ResourceListChanged, SubscriptionsAcknowledged,
    ToolListChanged,
};
use mcpdisco_protocol::types::{
    CancelledParams, ClientCapabilities, MetaParams, SubscriptionFilter,
};
use mcpdisco_protocol::{
    ErrorCode, ErrorObject, ErrorResponse, Message, Notification, RawJson, Request, RequestId,
    Response,
};
use mcpdisco_transport::Transport;
use mcpdisco_transport::sync::Mutex;
use serde::Serialize;
use serde_json::{Map, Value, json};
use tokio::sync::{broadcast, oneshot};
use tokio::task::AbortHandle;

use super::Shared;
use super::requests;
use crate::supervisor::SupervisorEvent;
use mcpdisco::catalog::Catalog;
use mcpdisco_client::session::ListKind;

/// The most requests one client may have in progress; more are refused.
const MAX_RUNNING: usize = 512;

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

/// One client connection.
pub(crate) struct ClientLink {
    transport: Arc<dyn Transport>,
    declared: Mutex<Declared>,
    next_id: AtomicI64,
    /// The gateway's requests to the client, waiting for answers.
    waiting: Mutex<HashMap<RequestId, oneshot::Sender<Result<Value, ErrorObject>>>>,
    /// The client's requests in progress.
    running: Mutex<HashMap<RequestId, AbortHandle>>,
    listens: Mutex<Vec<Listen>>,
}

impl ClientLink {
    fn new(transport: Arc<dyn Transport>) -> Self {
        Self {
            transport,
            declared: Mutex::new(Declared::default()),
            next_id: AtomicI64::new(1),
            waiting: Mutex::new(HashMap::new()),
            running: Mutex::new(HashMap::new()),
            listens: Mutex::new(Vec::new()),
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

    /// Records a legacy client's `initialize`.
    pub(crate) fn initialize(&self, capabilities: ClientCapabilities) {
        let mut declared = self.declared.lock();
        declared.legacy = true;
        declared.capabilities = Arc::new(capabilities);
    }

    /// Sends a request to the client and waits for its answer (the caller
    /// bounds the wait); if the wait is dropped, the client is told with
    /// `notifications/cancelled`.
    pub(crate) async fn request(
        self: &Arc<Self>,
        method: &str,
        params: Value,
    ) -> Result<Value, ErrorObject> {
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
        answer.unwrap_or_else(|_| {
            Err(ErrorObject::new(
                ErrorCode::INTERNAL_ERROR,
                format!("{method}: the gateway's client disconnected"),
            ))
        })
    }

    /// Sends a typed notification.
    pub(crate) async fn notify<N: NotificationMethod>(&self, params: &N::Params) {
        self.notify_raw(N::METHOD, params).await;
    }

    async fn notify_raw(&self, method: &str, params: &impl Serialize) {
        let params = serde_json::to_value(params)
            .ok()
            .filter(|p| !p.as_object().is_some_and(Map::is_empty));
        let message = Message::Notification(Notification {
            method: method.to_owned(),
            params,
        });
        if let Err(error) = self.transport.send(message).await {
            tracing::debug!(%error, method, "could not notify the gateway's client");
        }
    }

    /// Sends one answer.
    async fn answer(&self, id: RequestId, outcome: Result<Value, ErrorObject>) {
        let message = match outcome {
            Ok(result) => Message::Response(Response {
                id,
                result: RawJson::from_value(&result),
            }),
            Err(error) => Message::Error(ErrorResponse {
                id: Some(id),
                error,
            }),
        };
        if let Err(error) = self.transport.send(message).await {
            tracing::debug!(%error, "could not answer the gateway's client");
        }
    }

    /// A modern `subscriptions/listen`: acknowledged at once, then held open
    /// (list changes go out tagged with its id) until the client cancels it
    /// or goes away.
    pub(crate) async fn listen(&self, id: RequestId, asked: SubscriptionFilter) -> Value {
        // Resource subscriptions are not offered; list changes are.
        let honored = SubscriptionFilter {
            tools_list_changed: asked.tools_list_changed.filter(|on| *on),
            prompts_list_changed: asked.prompts_list_changed.filter(|on| *on),
            resources_list_changed: asked.resources_list_changed.filter(|on| *on),
            resource_subscriptions: None,
            extra: Map::new(),
        };
        let mut meta = Map::new();
        meta.insert(SUBSCRIPTION_ID_KEY.into(), id.to_value());
        let mut ack = mcpdisco_protocol::types::SubscriptionsListenParams::new(honored.clone());
        ack.meta = Some(meta);
        self.listens.lock().push(Listen {
            id: id.clone(),
            filter: honored,
        });
        self.notify::<SubscriptionsAcknowledged>(&ack).await;
        std::future::pending::<()>().await;
        json!({})
    }

    /// Tells the client which lists changed: legacy clients after
    /// `notifications/initialized`, modern ones on their subscriptions.
    async fn announce(&self, old: &Catalog, new: &Catalog) {
        let changed = |kind: ListKind| old.entries(kind) != new.entries(kind);
        let tools = changed(ListKind::Tools);
        let prompts = changed(ListKind::Prompts);
        let resources = changed(ListKind::Resources) || changed(ListKind::ResourceTemplates);
        let legacy = {
            let declared = self.declared.lock();
            declared.legacy && declared.initialized
        };
        let kinds = [
            (tools, ToolListChanged::METHOD),
            (prompts, PromptListChanged::METHOD),
            (resources, ResourceListChanged::METHOD),
        ];
        for (changed, method) in kinds {
            if !changed {
                continue;
            }
            if legacy {
                self.notify_raw(method, &MetaParams::default()).await;
            }
            let subscribers: Vec<RequestId> = self
                .listens
                .lock()
                .iter()
                .filter(|listen| {
                    let wanted = match method {
                        ToolListChanged::METHOD => listen.filter.tools_list_changed,
                        PromptListChanged::METHOD => listen.filter.prompts_list_changed,
                        _ => listen.filter.resources_list_changed,
                    };
                    wanted == Some(true)
                })
                .map(|listen| listen.id.clone())
                .collect();
            for id in subscribers {
                let mut meta = Map::new();
                meta.insert(SUBSCRIPTION_ID_KEY.into(), id.to_value());
                let params = MetaParams {
                    meta: Some(meta),
                    ..MetaParams::default()
                };
                self.notify_raw(method, &params).await;
            }
        }
    }

    /// Stops the requests in progress; waits for answers fail.
    fn stop(&self) {
        for (_, task) in self.running.lock().drain() {
            task.abort();
        }
        self.waiting.lock().clear();
        self.listens.lock().clear();
    }

    /// Ends the connection.
    async fn end(&self) {
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

/// Serves one client until its connection ends; then everything it
/// started is stopped.
pub(crate) async fn serve(shared: Arc<Shared>, transport: Arc<dyn Transport>) {
    let link = Arc::new(ClientLink::new(transport));
    shared.bridge.add_client(&link);
    let announcer = tokio::spawn(announce_changes(
        Arc::clone(&link),
        shared.supervisor.subscribe(),
        shared.supervisor.catalog(),
    ));
    // Also when this future is dropped (the server shutting down).
    let _stop = StopOnDrop {
        link: Arc::clone(&link),
        announcer: announcer.abort_handle(),
    };
    loop {
        match link.transport.receive().await {
            Ok(Some(message)) => on_message(&shared, &link, message).await,
            Ok(None) => break,
            Err(error) => {
                tracing::debug!(%error, "the gateway's client connection failed");
                break;
            }
        }
    }
    link.end().await;
}

/// Stops what a client connection started when its serving ends.
struct StopOnDrop {
    link: Arc<ClientLink>,
    announcer: AbortHandle,
}

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.announcer.abort();
        self.link.stop();
    }
}

/// Sends list changes as the catalog changes.
async fn announce_changes(
    link: Arc<ClientLink>,
    mut events: broadcast::Receiver<SupervisorEvent>,
    mut announced: Arc<Catalog>,
) {
    loop {
        let catalog = match events.recv().await {
            Ok(SupervisorEvent::Catalog(catalog)) => catalog,
            Ok(_) => continue,
            // Missed some: compare with what we last announced.
            Err(broadcast::error::RecvError::Lagged(_)) => {
                let mut latest = None;
                while let Ok(event) = events.try_recv() {
                    if let SupervisorEvent::Catalog(catalog) = event {
                        latest = Some(catalog);
                    }
                }
                match latest {
                    Some(catalog) => catalog,
                    None => continue,
                }
            }
            Err(broadcast::error::RecvError::Closed) => return,
        };
        link.announce(&announced, &catalog).await;
        announced = catalog;
    }
}

async fn on_message(shared: &Arc<Shared>, link: &Arc<ClientLink>, message: Message) {
    match message {
        Message::Request(request) => {
            if requests::is_immediate(&request.method) {
                // The handshake and ping are answered in order, at once.
                let outcome = requests::answer(shared, link, &request).await;
                link.answer(request.id, outcome).await;
                return;
            }
            let id = request.id.clone();
            if link.running.lock().len() >= MAX_RUNNING {
                let refused = ErrorObject::new(
                    ErrorCode::INTERNAL_ERROR,
                    format!(
                        "{}: more than {MAX_RUNNING} requests of this client are in progress",
                        request.method
                    ),
                );
                link.answer(id, Err(refused)).await;
                return;
            }
            let (shared, task_link) = (Arc::clone(shared), Arc::clone(link));
            // Locked across the spawn: the task's own removal waits for the insert.
            let mut running = link.running.lock();
            let task = tokio::spawn(async move {
                let outcome = requests::answer(&shared, &task_link, &request).await;
                // Out of the table first: a cancel that comes now finds nothing to stop.
                task_link.running.lock().remove(&request.id);
                task_link.answer(request.id, outcome).await;
            });
            running.insert(id, task.abort_handle());
        }
        Message::Notification(notification) => match notification.method.as_str() {
            Initialized::METHOD => link.declared.lock().initialized = true,
            Cancelled::METHOD => {
                let cancelled = notification
                    .params
                    .and_then(|params| serde_json::from_value::<CancelledParams>(params).ok())
                    .and_then(|params| params.request_id);
                if let Some(id) = cancelled {
                    if let Some(task) = link.running.lock().remove(&id) {
                        // Dropping the routed call cancels it at its server; no answer goes out.
                        task.abort();
                    }
                    link.listens.lock().retain(|listen| listen.id != id);
                }
            }
            other => tracing::debug!(method = other, "ignoring a notification from the client"),
        },
        Message::Response(Response { id, result }) => {
            let answer = result.to_value().map_err(|error| {
                ErrorObject::new(
                    ErrorCode::PARSE_ERROR,
                    format!("unreadable answer: {error}"),
                )
            });
            if let Some(waiting) = link.waiting.lock().remove(&id) {
                let _ = waiting.send(answer);
            }
        }
        Message::Error(ErrorResponse {
            id: Some(id),
            error,
        }) => {
            if let Some(waiting) = link.waiting.lock().remove(&id) {
                let _ = waiting.send(Err(error));
            }
        }
        Message::Error(ErrorResponse { id: None, error }) => {
            tracing::debug!(%error, "the client sent an error without an id");
        }
    }
}
