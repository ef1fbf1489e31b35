//! Calls through a server's session: the one place that sends requests to
//! the supervised servers (`tools/call`, `resources/read`, `prompts/get`),
//! each once, and once more after a restart when it was never delivered
//! because the server was down. Their results are the protocol's types,
//! read straight from the text the server sent, every member kept.

use std::future::Future;
use std::sync::atomic::Ordering;

use std::collections::BTreeMap;

use mcpdisco_client::session::{ListKind, RequestOptions, Session, SessionError};
use mcpdisco_protocol::RawJson;
use mcpdisco_protocol::meta::ResultType;
use mcpdisco_protocol::method::RequestMethod;
use mcpdisco_protocol::methods::{CallTool, GetPrompt, ReadResource};
use mcpdisco_protocol::types::{
    Answer, CallToolParams, CallToolResult, GetPromptParams, GetPromptResult, ReadResourceParams,
    ReadResourceResult, TaskResultType,
};
use mcpdisco_protocol::version::Era;
use mcpdisco_transport::Delivery;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use tokio::time::Instant;

use super::Supervisor;
use super::error::{SupervisorError, malformed_answer, unencodable};
use super::relayed_call::{RelayCallTool, RelayedCall};
use super::shared::Command;
use super::state::Status;

impl Supervisor {
    /// The connected session of `server`, starting it if need be and waiting
    /// (up to the options' `ready_wait`) until it is ready.
    pub async fn session(&self, server: &str) -> Result<Session, SupervisorError> {
        self.session_after(server, None).await
    }

    /// The era `server`'s current session speaks; `None` while it has none.
    pub fn era(&self, server: &str) -> Option<Era> {
        let unit = self.inner.unit(server).ok()?;
        unit.session.read().as_ref().map(Session::era)
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

    /// Calls a tool by its namespaced name, as the catalog lists it; like
    /// [`call_tool_on`](Self::call_tool_on) otherwise.
    pub async fn call_tool(
        &self,
        qualified_name: &str,
        arguments: Option<Map<String, Value>>,
        options: RequestOptions,
    ) -> Result<CallToolResult, SupervisorError> {
        let (server, tool) = self.resolve_tool(qualified_name).await?;
        self.call_tool_on(&server, &tool, arguments, options).await
    }

    /// Calls `tool` on `server` with `arguments` (a JSON object) and
    /// `options` (progress, timeout, `_meta`). A call that was never
    /// delivered because the server was down waits for the restart and is
    /// sent once more; one that may have run is never sent again. The
    /// result is the server's, as it sent it; a tool's failure is a result
    /// with `isError`, not an error.
    pub async fn call_tool_on(
        &self,
        server: &str,
        tool: &str,
        arguments: Option<Map<String, Value>>,
        options: RequestOptions,
    ) -> Result<CallToolResult, SupervisorError> {
        self.check_visible(server, ListKind::Tools, tool)?;
        let call = CallToolParams::new(tool, arguments);
        self.request::<CallTool>(server, &call, options).await
    }

    /// Like [`call_tool_on`](Self::call_tool_on), but the result is the
    /// server's text as it sent it (known secrets masked), not decoded: for
    /// a gateway that passes it on as it came. An `input_required` result
    /// is [`SupervisorError::InputRequired`], as there.
    pub async fn call_tool_text_on(
        &self,
        server: &str,
        tool: &str,
        arguments: Option<Map<String, Value>>,
        options: RequestOptions,
    ) -> Result<RawJson, SupervisorError> {
        self.check_visible(server, ListKind::Tools, tool)?;
        let call = encode_params::<CallTool>(server, &CallToolParams::new(tool, arguments))?;
        self.request_text::<CallTool>(server, call, options).await
    }

    /// [`call_tool_on`](Self::call_tool_on) with the arguments as the
    /// client sent them (a gateway relaying a call).
    pub(crate) async fn relay_tool_call(
        &self,
        server: &str,
        tool: &str,
        arguments: Option<RawJson>,
        options: RequestOptions,
    ) -> Result<CallToolResult, SupervisorError> {
        self.check_visible(server, ListKind::Tools, tool)?;
        let call = RelayedCall::new(tool, arguments).to_json(server)?;
        let text = self
            .request_text::<RelayCallTool>(server, call, options)
            .await?;
        decode_result::<RelayCallTool>(server, &text)
    }

    /// [`call_tool_text_on`](Self::call_tool_text_on) with the arguments
    /// as the client sent them (a gateway relaying a call).
    pub(crate) async fn relay_tool_call_text(
        &self,
        server: &str,
        tool: &str,
        arguments: Option<RawJson>,
        options: RequestOptions,
    ) -> Result<RawJson, SupervisorError> {
        self.check_visible(server, ListKind::Tools, tool)?;
        let call = RelayedCall::new(tool, arguments).to_json(server)?;
        self.request_text::<RelayCallTool>(server, call, options)
            .await
    }

    /// `resources/read` of `uri` (the server's own) on `server`.
    pub async fn read_resource(
        &self,
        server: &str,
        uri: &str,
        options: RequestOptions,
    ) -> Result<ReadResourceResult, SupervisorError> {
        self.check_visible(server, ListKind::Resources, uri)?;
        let read = ReadResourceParams::new(uri);
        self.request::<ReadResource>(server, &read, options).await
    }

    /// `prompts/get` of the prompt `name` (the server's own) on `server`,
    /// with its `arguments` (values by name).
    pub async fn get_prompt(
        &self,
        server: &str,
        name: &str,
        arguments: Option<BTreeMap<String, String>>,
        options: RequestOptions,
    ) -> Result<GetPromptResult, SupervisorError> {
        self.check_visible(server, ListKind::Prompts, name)?;
        let get = GetPromptParams::new(name, arguments);
        self.request::<GetPrompt>(server, &get, options).await
    }

    /// Sends `M` to `server` (see [`request_text`](Self::request_text)) and
    /// reads its result as `M`'s, straight from the text the server sent.
    pub(super) async fn request<M>(
        &self,
        server: &str,
        params: &M::Params,
        options: RequestOptions,
    ) -> Result<M::Result, SupervisorError>
    where
        M: RequestMethod,
        M::Result: DeserializeOwned,
    {
        let params = encode_params::<M>(server, params)?;
        let text = self.request_text::<M>(server, params, options).await?;
        decode_result::<M>(server, &text)
    }

    /// Sends `M` to `server` (see [`deliver`](Self::deliver)); its result
    /// is the text the server sent (masked). A request that may have run is
    /// never sent again (its error says so); an `input_required` result is
    /// [`SupervisorError::InputRequired`].
    pub(super) async fn request_text<M: RequestMethod>(
        &self,
        server: &str,
        params: RawJson,
        options: RequestOptions,
    ) -> Result<RawJson, SupervisorError> {
        let answer = self
            .deliver(server, |session| {
                let (params, options) = (params.clone(), options.clone());
                async move {
                    let sent = session.send_encoded::<M>(params, options).await;
                    let result = sent.map_err(|error| {
                        if error.may_have_run() && !M::IDEMPOTENT {
                            error.not_repeated()
                        } else {
                            error
                        }
                    })?;
                    read_answer::<M>(&session, result)
                }
            })
            .await?;
        match answer {
            Answer::Complete(result) => Ok(result),
            Answer::InputRequired(input) => Err(SupervisorError::InputRequired {
                server: server.to_owned(),
                input,
            }),
            Answer::Task(task) => Err(SupervisorError::RunsAsTask {
                server: server.to_owned(),
                incarnation: self.incarnation(server)?,
                task,
            }),
        }
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

/// `params` of `M` to `server`, written as JSON.
fn encode_params<M: RequestMethod>(
    server: &str,
    params: &M::Params,
) -> Result<RawJson, SupervisorError> {
    RawJson::encode(params).map_err(|error| unencodable(server, M::METHOD, &error).into())
}

/// `M`'s result read from the `text` `server` answered with.
fn decode_result<M: RequestMethod>(
    server: &str,
    text: &RawJson,
) -> Result<M::Result, SupervisorError>
where
    M::Result: DeserializeOwned,
{
    text.decode().map_err(|error| {
        malformed_answer(server, M::METHOD, format!("malformed result: {error}")).into()
    })
}

/// A server's answer to `M`: its result's text, the `input_required`
/// result (decoded) of a modern server that needs its client's input
/// first, or (a `tools/call`) the task it runs the call as.
fn read_answer<M: RequestMethod>(
    session: &Session,
    result: RawJson,
) -> Result<Answer<RawJson>, SessionError> {
    let unreadable = |reason: String| malformed_answer(session.name(), M::METHOD, reason);
    // One read of `resultType` for both questions: the result is scanned once.
    let result_type = result.member::<Value>("resultType");
    if M::METHOD == CallTool::METHOD && is_task(&result_type) {
        return result
            .decode()
            .map(|task| Answer::Task(Box::new(task)))
            .map_err(|error| unreadable(format!("malformed task: {error}")));
    }
    match ResultType::from_member(&result_type).map_err(|error| unreadable(error.to_string()))? {
        ResultType::Complete => Ok(Answer::Complete(result)),
        ResultType::InputRequired => result
            .decode()
            .map(Answer::input_required)
            .map_err(|error| unreadable(format!("malformed result: {error}"))),
    }
}

/// Whether a result whose `resultType` member reads as `result_type` is a
/// task (`resultType: "task"`).
fn is_task(result_type: &Result<Option<Value>, serde_json::Error>) -> bool {
    matches!(
        result_type,
        Ok(Some(Value::String(kind))) if kind == TaskResultType::TASK
    )
}
