//! The runner of a client's listen for task status changes (its pure part
//! is `tasks_listen`): one `subscriptions/listen` per server incarnation,
//! through the supervisor's session, and each `notifications/tasks` it
//! brings passed on to the client under the client's ids.
//!
//! What a server sends was masked by its session before it reaches here.
//! The backend listens live inside the client's listen: when it ends (the
//! client cancels it, or its connection is gone) they are dropped, which
//! cancels them at their servers. A server that is restarted meanwhile
//! ends its listen, and no more changes of its tasks come; the client is
//! not left waiting on a promise, as its `tasks/get` of such a task is
//! answered at once with an error that says the server was restarted.

use std::sync::Arc;
use std::time::Duration;

use futures::future::join_all;
use mcpdisco_client::notification::ServerNotification;
use mcpdisco_client::session::{RequestOptions, Subscription};
use mcpdisco_protocol::RequestId;
use mcpdisco_protocol::method::NotificationMethod;
use mcpdisco_protocol::methods::TaskStatusChanged;
use mcpdisco_protocol::types::DetailedTask;
use serde::Deserialize as _;

use super::client::ClientLink;
use super::tasks_listen::BackendTasks;
use crate::supervisor::Supervisor;

/// The longest the gateway takes to send one server its listen.
const OPEN_TIMEOUT: Duration = Duration::from_secs(10);

/// The backend listens of a client's listen, open.
pub(crate) struct OpenBackendListens(Vec<(BackendTasks, Subscription)>);

/// Opens a listen on each server of `backends` that is connected now and
/// declared the tasks extension (`options` declare the client's
/// capabilities); the others are left out, their tasks polled by the
/// client as ever.
pub(crate) async fn open(
    supervisor: &Supervisor,
    backends: Vec<BackendTasks>,
    options: &RequestOptions,
) -> OpenBackendListens {
    let mut open = Vec::with_capacity(backends.len());
    for backend in backends {
        let listen = supervisor.listen_to_tasks(
            &backend.server,
            backend.incarnation,
            backend.own_ids(),
            options.clone(),
        );
        match tokio::time::timeout(OPEN_TIMEOUT, listen).await {
            Ok(Ok(Some(subscription))) => open.push((backend, subscription)),
            Ok(Ok(None)) => {}
            Ok(Err(error)) => {
                tracing::debug!(server = %backend.server, %error, "no listen for the server's task status changes");
            }
            Err(_) => {
                tracing::debug!(server = %backend.server, "the listen for the server's task status changes was not sent in time");
            }
        }
    }
    OpenBackendListens(open)
}

impl OpenBackendListens {
    /// Passes each status change on to `link`, on its subscription
    /// `subscription`, until every backend listen has ended.
    pub(crate) async fn forward(self, link: Arc<ClientLink>, subscription: RequestId) {
        let forwards = self.0.into_iter().map(|(backend, listen)| {
            forward_one(backend, listen, Arc::clone(&link), subscription.clone())
        });
        join_all(forwards).await;
    }
}

/// Passes on the status changes one backend listen brings.
async fn forward_one(
    backend: BackendTasks,
    mut listen: Subscription,
    link: Arc<ClientLink>,
    subscription: RequestId,
) {
    while let Some(notification) = listen.next().await {
        let ServerNotification::Other {
            method,
            params: Some(params),
        } = notification
        else {
            continue;
        };
        if method != TaskStatusChanged::METHOD {
            continue;
        }
        let Ok(task) = DetailedTask::deserialize(&params) else {
            tracing::debug!(server = %backend.server, "skipped a malformed task status change");
            continue;
        };
        if let Some(task) = backend.to_client(task, &subscription) {
            link.notify::<TaskStatusChanged>(&task).await;
        }
    }
}
