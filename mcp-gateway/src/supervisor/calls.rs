//! Calls through a server's session: the one place that sends requests to
//! the supervised servers (`tools/call`, `resources/read`, `prompts/get`),
//! each once, and once more after a restart when it was never delivered
//! because the server was down.

use std::future::Future;
use std::sync::atomic::Ordering;

use mcpdisco_client::session::{ErrorKind, ListKind, RequestOptions, Session, SessionError};
use mcpdisco_protocol::RawJson;
use mcpdisco_protocol::method::RequestMethod;
use mcpdisco_protocol::methods::{CallTool, GetPrompt, ReadResource};
use mcpdisco_protocol::types::{CallToolParams, GetPromptParams, ReadResourceParams};
use mcpdisco_transport::Delivery;
use serde_json::Value;
use tokio::time::Instant;

use super::Supervisor;
use super::error::SupervisorError;
use super::shared::Command;
use super::state::Status;

impl Supervisor {
    /// The connected session of `server`, starting it if need be and waiting
    /// (up to the options' `ready_wait`) until it is ready.
    pub async fn session(&self, server: &str) -> Result<Session, SupervisorError> {
        self.session_after(server, None).await
    }

    /// Like [`session`](Self::session), but not the session of generation
    /// `stale` (one whose server is known to be gone).
    async fn session_after(
        &self,
        server: &str,
        stale: Option<u64>,
    ) -> Result<Session, SupervisorError> {
        let unit = self.inner.unit(server)?;
        let mut status = unit.status.subscribe();
        if *status.borrow() == Status::Stopped {
            self.inner.tell(server, Command::Start);
        }
        let deadline = Instant::now() + self.inner.options.ready_wait;
        let not_ready = |status: Status| SupervisorError::NotReady {
            server: server.to_owned(),
            status,
            cause: unit.last_failure.lock().clone(),
        };
        loop {
            let current = *status.borrow_and_update();
            // The circuit is open: waiting would only run into the deadline.
            if matches!(current, Status::Inactive { .. }) {
                return Err(not_ready(current));
            }
            if current.is_connected() {
                let generation = unit.generation.load(Ordering::Acquire);
                if stale != Some(generation)
                    && let Some(session) = unit.session.read().clone()
                {
                    return Ok(session);
                }
            }
            match tokio::time::timeout_at(deadline, status.changed()).await {
                // A reload replaced the server: wait for the new one.
                Ok(Ok(())) if self.inner.replaced(server, &unit) => {
                    return Box::pin(self.session_after(server, None)).await;
                }
                Ok(Ok(())) => {}
                Ok(Err(_)) => return Err(SupervisorError::ShutDown),
                Err(_) => return Err(not_ready(current)),
            }
        }
    }

    /// Calls a tool by its namespaced name, as the catalog lists it.
    pub async fn call_tool(
        &self,
        qualified_name: &str,
        arguments: Value,
    ) -> Result<Value, SupervisorError> {
        let (server, tool) = self.resolve_tool(qualified_name).await?;
        self.call_tool_on(&server, &tool, arguments).await
    }

    /// Calls `tool` on `server`. A call that was never delivered because the
    /// server was down waits for the restart and is sent once more; one that
    /// may have run is never sent again.
    pub async fn call_tool_on(
        &self,
        server: &str,
        tool: &str,
        arguments: Value,
    ) -> Result<Value, SupervisorError> {
        self.call_tool_with(server, tool, arguments, RequestOptions::default())
            .await
    }

    /// [`call_tool_on`](Self::call_tool_on) with request options (progress, timeout).
    pub async fn call_tool_with(
        &self,
        server: &str,
        tool: &str,
        arguments: Value,
        options: RequestOptions,
    ) -> Result<Value, SupervisorError> {
        self.check_visible(server, ListKind::Tools, tool)?;
        self.deliver(server, |session| {
            let (arguments, options) = (arguments.clone(), options.clone());
            async move {
                // Never sent again once it may have run; the error says so.
                let call = CallToolParams::new(tool, Some(arguments));
                session
                    .send::<CallTool>(&call, options)
                    .await
                    .and_then(|result| readable(&session, CallTool::METHOD, &result))
                    .map_err(|error| {
                        if error.may_have_run() {
                            error.not_repeated()
                        } else {
                            error
                        }
                    })
            }
        })
        .await
    }

    /// `resources/read` on `server`.
    pub async fn read_resource(&self, server: &str, uri: &str) -> Result<Value, SupervisorError> {
        self.read_resource_with(server, uri, RequestOptions::default())
            .await
    }

    /// [`read_resource`](Self::read_resource) with request options.
    pub async fn read_resource_with(
        &self,
        server: &str,
        uri: &str,
        options: RequestOptions,
    ) -> Result<Value, SupervisorError> {
        self.check_visible(server, ListKind::Resources, uri)?;
        self.deliver(server, |session| {
            let options = options.clone();
            async move {
                let result = session
                    .send::<ReadResource>(&ReadResourceParams::new(uri), options)
                    .await?;
                readable(&session, ReadResource::METHOD, &result)
            }
        })
        .await
    }

    /// `prompts/get` on `server`.
    pub async fn get_prompt(
        &self,
        server: &str,
        name: &str,
        arguments: Value,
    ) -> Result<Value, SupervisorError> {
        self.get_prompt_with(server, name, arguments, RequestOptions::default())
            .await
    }

    /// [`get_prompt`](Self::get_prompt) with request options.
    pub async fn get_prompt_with(
        &self,
        server: &str,
        name: &str,
        arguments: Value,
        options: RequestOptions,
    ) -> Result<Value, SupervisorError> {
        self.check_visible(server, ListKind::Prompts, name)?;
        self.deliver(server, |session| {
            let (arguments, options) = (arguments.clone(), options.clone());
            async move {
                let arguments = match arguments {
                    Value::Object(arguments) => Some(arguments),
                    _ => None,
                };
                let get = GetPromptParams::new(name, arguments);
                let result = session.send::<GetPrompt>(&get, options).await?;
                readable(&session, GetPrompt::METHOD, &result)
            }
        })
        .await
    }

    /// Sends one request to `server` through `send`: once, and once more
    /// after a restart when it was never delivered because the server was down.
    pub(super) async fn deliver<T, F, Fut>(
        &self,
        server: &str,
        send: F,
    ) -> Result<T, SupervisorError>
    where
        F: Fn(Session) -> Fut,
        Fut: Future<Output = Result<T, SessionError>>,
    {
        let unit = self.inner.unit(server)?;
        let session = self.session(server).await?;
        let generation = unit.generation.load(Ordering::Acquire);
        match send(session.clone()).await {
            Err(error) if error.delivery() == Delivery::NotSent && session.gone().is_some() => {
                tracing::info!(
                    server,
                    "the server was down; sending again once it restarts"
                );
                let restarted = self.session_after(server, Some(generation)).await?;
                Ok(send(restarted).await?)
            }
            other => Ok(other?),
        }
    }
}

/// A result as the server sent it (the gateway passes it on unchanged), read as JSON.
pub(super) fn readable(
    session: &Session,
    method: &str,
    result: &RawJson,
) -> Result<Value, SessionError> {
    result.to_value().map_err(|error| {
        SessionError::new(
            session.name(),
            method,
            ErrorKind::ProtocolViolation {
                reason: format!("unreadable result: {error}"),
            },
        )
    })
}
