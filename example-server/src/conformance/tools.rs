//! `tools/call` of the test catalog: the fixed results, and the tools that
//! talk to the client while they run (logging, progress, sampling,
//! elicitation) or ask it first (`input_required`, 2026-07-28).

use std::time::Duration;

use mcpdisco_protocol::methods::{CreateMessage, Elicit};
use mcpdisco_protocol::modern_request::missing_capability;
use mcpdisco_protocol::types::{
    Answer, CallToolParams, CallToolResult, ElicitParams, ElicitResult, Extra, InputRequest,
    InputRequiredResult, LoggingLevel,
};
use mcpdisco_protocol::version::Era;
use mcpdisco_protocol::{ErrorCode, ErrorObject};
use serde_json::{Map, Value};

use super::{TOOL_TRIGGER, content, input, mrtr, schemas, tasks};
use crate::context::Context;
use crate::shared::ListChange;

/// The pause between the steps of the tools that log or report progress.
const STEP: Duration = Duration::from_millis(50);

/// Answers `tools/call` for the test catalog.
pub(crate) async fn call_tool(
    params: CallToolParams,
    context: Context,
) -> Result<Answer<CallToolResult>, ErrorObject> {
    if let Some(result) = content::fixed_tool_result(&params.name) {
        return Ok(result.into());
    }
    if let Some(answer) = tasks::call(&params, &context).await {
        return answer;
    }
    if params.name.starts_with("test_input_required_result_") {
        return mrtr::call(&params, &context).await;
    }
    let arguments = params.arguments.clone().unwrap_or_default();
    let result = match params.name.as_str() {
        "test_tool_with_logging" | "test_logging_tool" => {
            for (step, text) in [
                "Tool execution started",
                "Tool processing data",
                "Tool execution completed",
            ]
            .into_iter()
            .enumerate()
            {
                if step > 0 {
                    tokio::time::sleep(STEP).await;
                }
                context.log(LoggingLevel::Info, text).await?;
            }
            content::text_result("Logged three messages.")
        }
        "test_tool_with_progress" => {
            for (step, progress) in [0.0, 50.0, 100.0].into_iter().enumerate() {
                if step > 0 {
                    tokio::time::sleep(STEP).await;
                }
                context.progress(progress, 100.0).await?;
            }
            content::text_result("Progress reported: 0, 50 and 100 of 100.")
        }
        "test_reconnection" => {
            tokio::time::sleep(STEP).await;
            content::text_result("Reconnection test completed.")
        }
        "test_sampling" => {
            let prompt = text_argument(&arguments, "prompt")?;
            return sampling(&context, prompt).await.map(Into::into);
        }
        "test_elicitation" => {
            let message = text_argument(&arguments, "message")?;
            let answer = elicitation(&context, message, schemas::USER_INFO).await?;
            content::text_result(format!("User response: {}", describe(&answer)))
        }
        "test_elicitation_sep1034_defaults" | "test_elicitation_sep1330_enums" => {
            let schema = if params.name.ends_with("defaults") {
                schemas::DEFAULTS
            } else {
                schemas::ENUMS
            };
            let answer = elicitation(&context, "Please review and submit.", schema).await?;
            content::text_result(format!("Elicitation completed: {}", describe(&answer)))
        }
        "test_missing_capability" => {
            if !context.client_can("sampling") {
                return Err(missing_capability(
                    "test_missing_capability needs the client's sampling capability",
                    capability("sampling"),
                ));
            }
            content::text_result("The client can sample.")
        }
        "test_streaming_elicitation" => {
            if context.request.era == Era::Modern {
                if !context.client_can("elicitation") {
                    return Err(missing_capability(
                        "test_streaming_elicitation needs the client's elicitation capability",
                        capability("elicitation"),
                    ));
                }
                return streaming_elicitation(&params, &context).await;
            }
            let answer = elicitation(&context, "What is your name?", schemas::NAME).await?;
            content::text_result(format!("User response: {}", describe(&answer)))
        }
        TOOL_TRIGGER => {
            context.shared.changed(ListChange::Tools);
            content::text_result("The tool list changed.")
        }
        "test_trigger_prompt_change" => {
            context.shared.changed(ListChange::Prompts);
            content::text_result("The prompt list changed.")
        }
        "test_header_param" => {
            let region = text_argument(&arguments, "region")?;
            content::text_result(format!("Region: {region}"))
        }
        name => {
            return Err(ErrorObject::new(
                ErrorCode::INVALID_PARAMS,
                format!("unknown tool {name:?}"),
            ));
        }
    };
    Ok(result.into())
}

/// A `ClientCapabilities` object naming one capability.
fn capability(name: &str) -> Value {
    let mut capabilities = Map::new();
    capabilities.insert(name.to_owned(), Value::Object(Map::new()));
    Value::Object(capabilities)
}

/// The text argument `name`, or -32602.
fn text_argument<'a>(
    arguments: &'a Map<String, Value>,
    name: &str,
) -> Result<&'a str, ErrorObject> {
    arguments.get(name).and_then(Value::as_str).ok_or_else(|| {
        ErrorObject::new(
            ErrorCode::INVALID_PARAMS,
            format!("argument '{name}' must be a string"),
        )
    })
}

/// An elicitation answer in a line: its action and content.
fn describe(answer: &ElicitResult) -> String {
    let content = answer
        .content
        .as_ref()
        .and_then(|content| serde_json::to_string(content).ok())
        .unwrap_or_else(|| "{}".to_owned());
    format!("action={}, content={content}", answer.action)
}

/// Asks the client's LLM (legacy: a request on the connection).
async fn sampling(context: &Context, prompt: &str) -> Result<CallToolResult, ErrorObject> {
    let params = input::sampling_params(prompt, 100);
    let answer = context.peer()?.request::<CreateMessage>(&params).await?;
    let text = answer.content.text().unwrap_or_default();
    Ok(content::text_result(format!("LLM response: {text}")))
}

/// Asks the user (legacy: a request on the connection).
async fn elicitation(
    context: &Context,
    message: &str,
    schema: &str,
) -> Result<ElicitResult, ErrorObject> {
    let params = ElicitParams {
        mode: None,
        message: message.to_owned(),
        requested_schema: Some(schemas::value(schema)),
        url: None,
        elicitation_id: None,
        meta: None,
        extra: Extra::new(),
    };
    context.peer()?.request::<Elicit>(&params).await
}

/// The modern form of `test_streaming_elicitation`: a progress report on
/// the request's stream when it asked for progress, then the question as
/// an `input_required` result (never a request of its own on the stream).
async fn streaming_elicitation(
    params: &CallToolParams,
    context: &Context,
) -> Result<Answer<CallToolResult>, ErrorObject> {
    context.progress(0.0, 1.0).await?;
    let responses = params.input_responses.as_ref();
    if let Some(answer) = input::answer::<ElicitResult>(responses, "user_name")? {
        return Ok(content::text_result(format!("User response: {}", describe(&answer))).into());
    }
    let request: (String, InputRequest) = (
        "user_name".into(),
        input::elicit("What is your name?", schemas::NAME)?,
    );
    let mut result = InputRequiredResult::new([request], "");
    result.request_state = None;
    Ok(Answer::input_required(result))
}
