//! Questions for modern clients (2026-07-28 multi-round-trip requests).
//!
//! A modern client's request has no connection the gateway can ask on. When
//! a server asks something while serving such a request, the routed call
//! keeps running in its own task and the client gets an `input_required`
//! result (`inputRequests`, `requestState`). The client answers by sending
//! the request again with `inputResponses` and the same `requestState`; the
//! answers go to the waiting server and the retry then waits for the call's
//! result (or the next question). A parked call the client never comes back
//! for is dropped (and so cancelled at its server) after the gateway's
//! `input_wait`.

use std::any::Any;
use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use mcpdisco_protocol::method::RequestMethod;
use mcpdisco_protocol::types::{Answer, Extra, InputRequest, InputRequiredResult};
use mcpdisco_protocol::{ErrorCode, ErrorObject};
use mcpdisco_transport::sync::Mutex;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

/// The most calls parked at once; more are refused.
const MAX_PARKED: usize = 1024;

/// A question for a modern client, answered through its retry.
#[derive(Debug)]
pub(crate) struct InputAsk {
    /// The server's request (`sampling/createMessage`, `elicitation/create`, `roots/list`).
    pub(crate) request: InputRequest,
    /// Where the client's answer goes.
    pub(crate) reply: oneshot::Sender<Result<Value, ErrorObject>>,
}

/// Asks `M` of the client whose request drives `asks`, and reads its answer.
/// The caller bounds the wait.
pub(crate) async fn ask<M: RequestMethod>(
    asks: &mpsc::Sender<InputAsk>,
    params: &M::Params,
) -> Result<M::Result, ErrorObject> {
    let request = InputRequest::of::<M>(params).map_err(|error| {
        ErrorObject::new(
            ErrorCode::INTERNAL_ERROR,
            format!("{}: could not write the question: {error}", M::METHOD),
        )
    })?;
    let gone = || {
        ErrorObject::new(
            ErrorCode::INTERNAL_ERROR,
            format!(
                "{}: the client's request ended before it answered",
                M::METHOD
            ),
        )
    };
    let (reply, answer) = oneshot::channel();
    asks.send(InputAsk { request, reply })
        .await
        .map_err(|_| gone())?;
    let answer = answer.await.map_err(|_| gone())??;
    serde_json::from_value(answer).map_err(|error| {
        ErrorObject::new(
            ErrorCode::INTERNAL_ERROR,
            format!(
                "{}: the client's input response cannot be read: {error}",
                M::METHOD
            ),
        )
    })
}

/// A routed call running in its own task, aborted when dropped.
pub(crate) struct RunningCall<R> {
    task: JoinHandle<Result<R, ErrorObject>>,
    asks: mpsc::Receiver<InputAsk>,
}

impl<R> Drop for RunningCall<R> {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl<R: Send + 'static> RunningCall<R> {
    /// Runs `call` in its own task; `asks` receives the questions its server asks.
    pub(crate) fn spawn(
        call: impl Future<Output = Result<R, ErrorObject>> + Send + 'static,
        asks: mpsc::Receiver<InputAsk>,
    ) -> Self {
        // The call's requests stay children of the request's span.
        #[cfg(feature = "otel")]
        let call = mcpdisco_client::opentelemetry::trace::FutureExt::with_current_context(call);
        Self {
            task: tokio::spawn(call),
            asks,
        }
    }
}

struct Parked {
    method: &'static str,
    /// The `RunningCall` of the method's result type.
    call: Box<dyn Any + Send>,
    replies: HashMap<String, oneshot::Sender<Result<Value, ErrorObject>>>,
}

/// Calls waiting for their clients' answers.
pub(crate) struct Inputs {
    parked: Mutex<HashMap<String, Parked>>,
    keys: RandomState,
    counter: AtomicU64,
    wait: Duration,
}

impl Inputs {
    /// Parked calls wait `wait` for their clients.
    pub(crate) fn new(wait: Duration) -> Self {
        Self {
            parked: Mutex::new(HashMap::new()),
            keys: RandomState::new(),
            counter: AtomicU64::new(0),
            wait,
        }
    }

    /// Waits for the call's result, or for its first questions: then parks
    /// the call and answers with the `input_required` result that asks them.
    pub(crate) async fn drive<M: RequestMethod>(
        self: &Arc<Self>,
        mut call: RunningCall<Answer<M::Result>>,
    ) -> Result<Answer<M::Result>, ErrorObject> {
        let first = tokio::select! {
            biased;
            result = &mut call.task => {
                return match result {
                    Ok(result) => result,
                    Err(error) => Err(ErrorObject::new(
                        ErrorCode::INTERNAL_ERROR,
                        format!("{}: the call's task ended: {error}", M::METHOD),
                    )),
                };
            }
            Some(ask) = call.asks.recv() => ask,
        };
        let mut asks = vec![first];
        while let Ok(more) = call.asks.try_recv() {
            asks.push(more);
        }
        let mut requests = Vec::with_capacity(asks.len());
        let mut replies = HashMap::with_capacity(asks.len());
        for (n, ask) in asks.into_iter().enumerate() {
            let key = format!("input-{n}");
            requests.push((key.clone(), ask.request));
            replies.insert(key, ask.reply);
        }
        let state = self.park(Parked {
            method: M::METHOD,
            call: Box::new(call),
            replies,
        })?;
        Ok(Answer::input_required(InputRequiredResult::new(
            requests, state,
        )))
    }

    /// Answers a parked call's questions with `responses` and takes the
    /// call back, to be driven on by the retry.
    pub(crate) fn resume<M: RequestMethod>(
        &self,
        state: &str,
        responses: Option<&Extra>,
    ) -> Result<RunningCall<Answer<M::Result>>, ErrorObject> {
        let method = M::METHOD;
        let parked = {
            let mut table = self.parked.lock();
            match table.get(state) {
                None => None,
                Some(parked) if parked.method != method => {
                    return Err(ErrorObject::new(
                        ErrorCode::INVALID_PARAMS,
                        format!(
                            "{method}: this requestState belongs to a {} request",
                            parked.method
                        ),
                    ));
                }
                Some(_) => table.remove(state),
            }
        };
        let parked = parked.ok_or_else(|| {
            ErrorObject::new(
                ErrorCode::INVALID_PARAMS,
                format!("{method}: unknown or expired requestState"),
            )
        })?;
        let call = parked
            .call
            .downcast::<RunningCall<Answer<M::Result>>>()
            .map_err(|_| {
                ErrorObject::new(
                    ErrorCode::INVALID_PARAMS,
                    format!("{method}: this requestState belongs to another request"),
                )
            })?;
        for (key, reply) in parked.replies {
            let answer = match responses.and_then(|r| r.get(&key)) {
                Some(response) => as_answer(response),
                None => Err(ErrorObject::new(
                    ErrorCode::INVALID_PARAMS,
                    format!("the client sent no input response for '{key}'"),
                )),
            };
            let _ = reply.send(answer);
        }
        Ok(*call)
    }

    fn park(self: &Arc<Self>, parked: Parked) -> Result<String, ErrorObject> {
        let n = self.counter.fetch_add(1, Ordering::Relaxed);
        // Unguessable: a request state is what lets a retry take over a call.
        let state = format!(
            "{:016x}{:016x}",
            self.keys.hash_one(n),
            self.keys.hash_one(!n)
        );
        {
            let mut table = self.parked.lock();
            if table.len() >= MAX_PARKED {
                return Err(ErrorObject::new(
                    ErrorCode::INTERNAL_ERROR,
                    "too many requests are waiting for their clients' input",
                ));
            }
            table.insert(state.clone(), parked);
        }
        let inputs = Arc::downgrade(self);
        let expired = state.clone();
        let wait = self.wait;
        tokio::spawn(async move {
            tokio::time::sleep(wait).await;
            if let Some(inputs) = inputs.upgrade() {
                // Dropping the call cancels it at its server.
                let parked = inputs.parked.lock().remove(&expired);
                drop(parked);
            }
        });
        Ok(state)
    }

    /// Drops every parked call.
    pub(crate) fn clear(&self) {
        let parked: Vec<Parked> = self.parked.lock().drain().map(|(_, p)| p).collect();
        drop(parked);
    }
}

/// A client's input response: a result, or an error object (`code` and `message`).
fn as_answer(response: &Value) -> Result<Value, ErrorObject> {
    if response.get("code").is_some_and(Value::is_i64)
        && response.get("message").is_some_and(Value::is_string)
        && let Ok(error) = ErrorObject::from_value(response.clone())
    {
        return Err(error);
    }
    Ok(response.clone())
}

#[cfg(test)]
mod tests;
