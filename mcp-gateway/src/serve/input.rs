//! Questions for modern clients (2026-07-28 multi-round-trip requests).
//!
//! A modern client's request has no connection the gateway can ask on. When
//! a server asks something while serving such a request, the routed call
//! keeps running in its own task and the client gets
//! `{resultType: "input_required", inputRequests, requestState}`. The
//! client answers by sending the request again with `inputResponses` and
//! the same `requestState`; the answers go to the waiting server and the
//! retry then waits for the call's result (or the next question). A
//! parked call the client never comes back for is dropped (and so
//! cancelled at its server) after the gateway's `input_wait`.

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use mcpdisco_protocol::{ErrorCode, ErrorObject};
use mcpdisco_transport::sync::Mutex;
use serde_json::{Map, Value, json};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use super::bridge::InputAsk;

/// The most calls parked at once; more are refused.
const MAX_PARKED: usize = 1024;

/// A routed call running in its own task, aborted when dropped.
pub(crate) struct RunningCall {
    task: JoinHandle<Result<Value, ErrorObject>>,
    asks: mpsc::Receiver<InputAsk>,
}

impl Drop for RunningCall {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl RunningCall {
    /// Runs `call` in its own task; `asks` receives the questions its server asks.
    pub(crate) fn spawn(
        call: impl Future<Output = Result<Value, ErrorObject>> + Send + 'static,
        asks: mpsc::Receiver<InputAsk>,
    ) -> Self {
        Self {
            task: tokio::spawn(call),
            asks,
        }
    }
}

struct Parked {
    method: &'static str,
    call: RunningCall,
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
    /// the call and returns the `input_required` result that asks them.
    pub(crate) async fn drive(
        self: &Arc<Self>,
        method: &'static str,
        mut call: RunningCall,
    ) -> Result<Value, ErrorObject> {
        let first = tokio::select! {
            biased;
            result = &mut call.task => {
                return result.unwrap_or_else(|error| {
                    Err(ErrorObject::new(
                        ErrorCode::INTERNAL_ERROR,
                        format!("{method}: the call's task ended: {error}"),
                    ))
                });
            }
            Some(ask) = call.asks.recv() => ask,
        };
        let mut asks = vec![first];
        while let Ok(more) = call.asks.try_recv() {
            asks.push(more);
        }
        let mut requests = Map::new();
        let mut replies = HashMap::new();
        for (n, ask) in asks.into_iter().enumerate() {
            let key = format!("input-{n}");
            requests.insert(
                key.clone(),
                json!({"method": ask.method, "params": ask.params}),
            );
            replies.insert(key, ask.reply);
        }
        let state = self.park(Parked {
            method,
            call,
            replies,
        })?;
        Ok(json!({
            "resultType": "input_required",
            "inputRequests": requests,
            "requestState": state,
        }))
    }

    /// Answers a parked call's questions with `responses` and takes the
    /// call back, to be driven on by the retry.
    pub(crate) fn resume(
        &self,
        method: &'static str,
        state: &str,
        responses: Option<&Map<String, Value>>,
    ) -> Result<RunningCall, ErrorObject> {
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
        Ok(parked.call)
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
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_question_parks_the_call_and_the_retry_answers_it() {
        let inputs = Arc::new(Inputs::new(Duration::from_secs(60)));
        let (ask, asks) = mpsc::channel(4);
        let call = RunningCall::spawn(
            async move {
                let (reply, answer) = oneshot::channel();
                let question = InputAsk {
                    method: "sampling/createMessage",
                    params: json!({"maxTokens": 5}),
                    reply,
                };
                ask.send(question).await.ok();
                let answer = answer
                    .await
                    .map_err(|_| ErrorObject::new(ErrorCode::INTERNAL_ERROR, "no answer"))??;
                Ok(json!({"content": [{"type": "text", "text": answer["content"]["text"]}]}))
            },
            asks,
        );
        let first = inputs.drive("tools/call", call).await.unwrap();
        assert_eq!(first["resultType"], "input_required");
        assert_eq!(
            first["inputRequests"]["input-0"]["method"],
            "sampling/createMessage"
        );
        let state = first["requestState"].as_str().unwrap().to_owned();
        assert!(
            inputs.resume("prompts/get", &state, None).is_err(),
            "another method's retry cannot take the call"
        );
        let mut responses = Map::new();
        responses.insert(
            "input-0".into(),
            json!({"role": "assistant", "content": {"type": "text", "text": "hi"}}),
        );
        let call = inputs
            .resume("tools/call", &state, Some(&responses))
            .unwrap();
        let done = inputs.drive("tools/call", call).await.unwrap();
        assert_eq!(done["content"][0]["text"], "hi");
        assert!(
            inputs.resume("tools/call", &state, None).is_err(),
            "a state is used once"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_parked_call_the_client_abandons_is_dropped() {
        let inputs = Arc::new(Inputs::new(Duration::from_secs(60)));
        let (ask, asks) = mpsc::channel(4);
        let (dropped_tx, dropped) = oneshot::channel::<()>();
        let call = RunningCall::spawn(
            async move {
                let _dropped = dropped_tx;
                let (reply, answer) = oneshot::channel();
                ask.send(InputAsk {
                    method: "elicitation/create",
                    params: json!({}),
                    reply,
                })
                .await
                .ok();
                let _ = answer.await;
                Ok(json!({}))
            },
            asks,
        );
        let first = inputs.drive("tools/call", call).await.unwrap();
        let state = first["requestState"].as_str().unwrap().to_owned();
        tokio::time::sleep(Duration::from_secs(61)).await;
        assert!(dropped.await.is_err(), "the call's task was aborted");
        assert!(inputs.resume("tools/call", &state, None).is_err());
    }
}
