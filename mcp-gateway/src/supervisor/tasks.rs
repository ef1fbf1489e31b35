//! Requests about a server's tasks (extension `io.modelcontextprotocol/tasks`):
//! `tasks/get`, `tasks/update` and `tasks/cancel`, sent to the server that
//! created the task with its own id, and only to the incarnation that
//! created it.
//!
//! A server the supervisor runs as a child process loses its tasks when it
//! is restarted: a request about a task of an earlier incarnation is
//! [`SupervisorError::Restarted`] at once, never a wait. A server reached
//! over HTTP keeps its tasks across the gateway's reconnections, so its
//! incarnation is not checked. A listen for tasks' status changes
//! ([`Supervisor::listen_to_tasks`]) goes to the same session, under the
//! same check.

use std::sync::atomic::Ordering;

use mcpdisco::config::Launch;
use mcpdisco_client::session::{RequestOptions, Subscription};
use mcpdisco_protocol::RawJson;
use mcpdisco_protocol::method::RequestMethod;
use mcpdisco_protocol::methods::{CancelTask, GetTask, UpdateTask};
use mcpdisco_protocol::types::{DetailedTask, SubscriptionFilter, TaskIdParams, UpdateTaskParams};

use super::Supervisor;
use super::error::{SupervisorError, malformed_answer};

impl Supervisor {
    /// The incarnation of `server`: which session with it is current, a
    /// number the supervisor never gives twice (each start or restart, and a
    /// server replaced by a reload, gets a new one; 0 before the first).
    pub fn incarnation(&self, server: &str) -> Result<u64, SupervisorError> {
        Ok(self.inner.unit(server)?.generation.load(Ordering::Acquire))
    }

    /// `tasks/get` of the task `task_id` (the server's own id), created by
    /// `server` in its incarnation `incarnation`; the task as the server
    /// shows it (masked).
    pub async fn get_task(
        &self,
        server: &str,
        incarnation: u64,
        task_id: &str,
        options: RequestOptions,
    ) -> Result<DetailedTask, SupervisorError> {
        let params = TaskIdParams::new(task_id);
        let text = self
            .task_request::<GetTask>(server, incarnation, &params, options)
            .await?;
        text.decode().map_err(|error| {
            malformed_answer(server, GetTask::METHOD, format!("malformed task: {error}")).into()
        })
    }

    /// `tasks/update`: the client's answers (`params`, the server's own task
    /// id) to the open questions of a task, as [`get_task`](Self::get_task).
    pub async fn update_task(
        &self,
        server: &str,
        incarnation: u64,
        params: &UpdateTaskParams,
        options: RequestOptions,
    ) -> Result<(), SupervisorError> {
        self.task_request::<UpdateTask>(server, incarnation, params, options)
            .await
            .map(drop)
    }

    /// `tasks/cancel` of a task, as [`get_task`](Self::get_task).
    pub async fn cancel_task(
        &self,
        server: &str,
        incarnation: u64,
        task_id: &str,
        options: RequestOptions,
    ) -> Result<(), SupervisorError> {
        let params = TaskIdParams::new(task_id);
        self.task_request::<CancelTask>(server, incarnation, &params, options)
            .await
            .map(drop)
    }

    /// A `subscriptions/listen` on `server`'s session for the status
    /// changes (`notifications/tasks`) of its tasks `task_ids` (its own
    /// ids), created in its incarnation `incarnation`; `options`' `meta`
    /// declares the client's capabilities. `Ok(None)` when the server is
    /// not connected now (no wait) or did not declare the tasks extension.
    /// The subscription ends when the session does (a restart); dropping it
    /// cancels the listen at the server.
    pub async fn listen_to_tasks(
        &self,
        server: &str,
        incarnation: u64,
        task_ids: Vec<String>,
        options: RequestOptions,
    ) -> Result<Option<Subscription>, SupervisorError> {
        let unit = self.inner.unit(server)?;
        let checked = !matches!(unit.config.launch, Launch::Http { .. });
        let session = self.connected_session(server);
        // Read after the session: a session opened since counts.
        if checked && unit.generation.load(Ordering::Acquire) != incarnation {
            return Err(SupervisorError::Restarted {
                server: server.to_owned(),
                created: incarnation,
            });
        }
        let Some(session) = session else {
            return Ok(None);
        };
        if !session.offers_tasks() {
            return Ok(None);
        }
        let filter = SubscriptionFilter::default().with_task_ids(task_ids);
        Ok(Some(session.listen(filter, options).await?))
    }

    /// Sends `M` about a task of `server`'s incarnation `incarnation`, once
    /// it is ready; [`SupervisorError::Restarted`] when the server that
    /// would answer is not the process that created the task, or that
    /// process is gone (before or while it answers).
    async fn task_request<M: RequestMethod>(
        &self,
        server: &str,
        incarnation: u64,
        params: &M::Params,
        options: RequestOptions,
    ) -> Result<RawJson, SupervisorError> {
        let unit = self.inner.unit(server)?;
        let checked = !matches!(unit.config.launch, Launch::Http { .. });
        let lost = || SupervisorError::Restarted {
            server: server.to_owned(),
            created: incarnation,
        };
        let same = || !checked || unit.generation.load(Ordering::Acquire) == incarnation;
        if !same() {
            return Err(lost());
        }
        let session = self.session(server).await?;
        // It may have been restarted while this waited for it.
        if !same() || (checked && session.gone().is_some()) {
            return Err(lost());
        }
        match session.send::<M>(params, options).await {
            Err(_) if checked && session.gone().is_some() => Err(lost()),
            other => Ok(other?),
        }
    }
}
