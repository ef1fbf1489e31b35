//! Multi-round-trip results (2026-07-28): a modern server that needs the
//! client's input before it can answer says so with an `input_required`
//! result, and the client sends the request again with its answers.

use std::collections::BTreeMap;

use serde::{Serialize, Serializer};
use serde_json::Value;

use super::extra::Extra;
use super::task::CreateTaskResult;
use crate::meta::ResultType;
use crate::method::RequestMethod;

super::extra::struct_with_extra! {
    /// One question of an `input_required` result: a request from the
    /// server to the client (`sampling/createMessage`, `elicitation/create`,
    /// `roots/list`), answered in the retry's `inputResponses`.
    #[derive(Debug, Clone, PartialEq)]
    pub struct InputRequest {
        /// The request's method.
        pub method: String,
        /// Its params.
        #[serde(
            default,
            deserialize_with = "super::present_field::present",
            skip_serializing_if = "Option::is_none"
        )]
        pub params: Option<Value>,
    }
}

impl InputRequest {
    /// The request `M` with `params`.
    pub fn of<M: RequestMethod>(params: &M::Params) -> Result<Self, serde_json::Error> {
        Ok(Self {
            method: M::METHOD.to_owned(),
            params: Some(serde_json::to_value(params)?),
            extra: Extra::new(),
        })
    }
}

super::extra::struct_with_extra! {
    /// The `input_required` result: the questions, under keys the retry's
    /// `inputResponses` answers, and the state the retry echoes.
    #[derive(Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct InputRequiredResult {
        /// Always [`ResultType::InputRequired`].
        pub result_type: ResultType,
        /// The questions, by key.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub input_requests: Option<BTreeMap<String, InputRequest>>,
        /// The server's state, which the retry sends back unchanged.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub request_state: Option<String>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

impl InputRequiredResult {
    /// Asks `requests` (by key), to be answered by a retry carrying `request_state`.
    pub fn new(
        requests: impl IntoIterator<Item = (String, InputRequest)>,
        request_state: impl Into<String>,
    ) -> Self {
        Self {
            result_type: ResultType::InputRequired,
            input_requests: Some(requests.into_iter().collect()),
            request_state: Some(request_state.into()),
            meta: None,
            extra: Extra::new(),
        }
    }
}

/// What a server answers a request with: its result, or (2026-07-28) a
/// request for the client's input first, or (extension
/// `io.modelcontextprotocol/tasks`) a task that will produce the result.
/// Written as the one or the other.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer<R> {
    /// The method's result.
    Complete(R),
    /// The client's input is needed first.
    InputRequired(Box<InputRequiredResult>),
    /// The result will come from a task, followed with `tasks/get`.
    Task(Box<CreateTaskResult>),
}

impl<R> Answer<R> {
    /// The client's input is needed first.
    pub fn input_required(input: InputRequiredResult) -> Self {
        Answer::InputRequired(Box::new(input))
    }
}

impl<R> From<R> for Answer<R> {
    fn from(result: R) -> Self {
        Answer::Complete(result)
    }
}

impl<R: Serialize> Serialize for Answer<R> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Answer::Complete(result) => result.serialize(serializer),
            Answer::InputRequired(input) => input.serialize(serializer),
            Answer::Task(task) => task.serialize(serializer),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::methods::CreateMessage;
    use crate::types::{CreateMessageParams, EmptyResult};
    use serde_json::json;

    #[test]
    fn an_input_required_result_reads_back_and_an_answer_writes_either() {
        let params = CreateMessageParams::new(Vec::new(), 5);
        let question = InputRequest::of::<CreateMessage>(&params).unwrap();
        let input = InputRequiredResult::new([("input-0".to_owned(), question)], "state-1");
        let written = serde_json::to_value(Answer::<EmptyResult>::input_required(input)).unwrap();
        assert_eq!(
            written,
            json!({"resultType": "input_required",
                   "inputRequests": {"input-0": {"method": "sampling/createMessage",
                                                 "params": {"messages": [], "maxTokens": 5}}},
                   "requestState": "state-1"})
        );
        let read: InputRequiredResult = serde_json::from_value(written).unwrap();
        assert_eq!(read.request_state.as_deref(), Some("state-1"));
        assert!(
            serde_json::from_value::<InputRequiredResult>(json!({"resultType": "done"})).is_err()
        );
        let complete = Answer::from(EmptyResult::default());
        assert_eq!(serde_json::to_value(complete).unwrap(), json!({}));
        let task = crate::types::Task::new("t-1", crate::types::TaskStatus::Working, "now");
        let created = Answer::<EmptyResult>::Task(Box::new(CreateTaskResult::new(task)));
        let written = serde_json::to_value(created).unwrap();
        assert_eq!(
            (&written["resultType"], &written["taskId"]),
            (&json!("task"), &json!("t-1"))
        );
    }
}
