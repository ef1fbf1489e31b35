//! The test catalog's `input_required` tools and prompt (2026-07-28,
//! SEP-2322): each asks its questions until a retry answers them, then
//! completes. A question already answered is not asked again, an answer of
//! the wrong shape is -32602, and a `requestState` must come back as it
//! was handed out.

use mcpdisco_protocol::modern_request::missing_capability;
use mcpdisco_protocol::types::{
    Answer, CallToolParams, CallToolResult, ContentBlock, CreateMessageResult, ElicitResult, Extra,
    GetPromptParams, GetPromptResult, InputRequest, InputRequiredResult, ListRootsResult,
    PromptMessage, Role,
};
use mcpdisco_protocol::version::Era;
use mcpdisco_protocol::{ErrorCode, ErrorObject};
use serde_json::{Map, Value};

use super::{content, input, schemas};
use crate::context::Context;

/// The questions of one round, by key.
type Questions = Vec<(String, InputRequest)>;

/// Asks `questions`, with `state` (signed) when there is one.
fn ask<R>(
    context: &Context,
    questions: Questions,
    state: Option<&str>,
) -> Result<Answer<R>, ErrorObject> {
    let mut result = InputRequiredResult::new(questions, "");
    result.request_state = state.map(|state| input::sign(context.shared.key(), state));
    Ok(Answer::input_required(result))
}

/// The payload of the retry's signed `requestState`, if it sent one.
fn state<'a>(context: &Context, given: Option<&'a str>) -> Result<Option<&'a str>, ErrorObject> {
    given
        .map(|state| input::verify(context.shared.key(), state))
        .transpose()
}

/// The text an elicitation answer gave for `field`.
fn field(answer: &ElicitResult, field: &str) -> String {
    match answer
        .content
        .as_ref()
        .and_then(|content| content.get(field))
    {
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

/// The text of a sampling answer.
fn sampled(answer: &CreateMessageResult) -> String {
    answer.content.text().unwrap_or_default()
}

/// A capabilities object naming one capability.
fn capability(name: &str) -> Value {
    let mut capabilities = Map::new();
    capabilities.insert(name.to_owned(), Value::Object(Map::new()));
    Value::Object(capabilities)
}

/// Answers one of the `test_input_required_result_*` tools.
pub(crate) async fn call(
    params: &CallToolParams,
    context: &Context,
) -> Result<Answer<CallToolResult>, ErrorObject> {
    if context.request.era != Era::Modern {
        return Ok(CallToolResult {
            is_error: Some(true),
            ..content::text_result("This tool needs the 2026-07-28 protocol (input_required).")
        }
        .into());
    }
    let responses = params.input_responses.as_ref();
    let payload = state(context, params.request_state.as_deref())?;
    let done = |text: String| Ok(Answer::Complete(content::text_result(text)));
    let name = params.name.as_str();
    match name {
        "test_input_required_result_elicitation" => {
            match input::answer::<ElicitResult>(responses, "user_name")? {
                Some(answer) => done(format!("Hello, {}!", field(&answer, "name"))),
                None => ask(context, vec![user_name()?], None),
            }
        }
        "test_input_required_result_sampling" => {
            match input::answer::<CreateMessageResult>(responses, "capital_question")? {
                Some(answer) => done(format!("LLM response: {}", sampled(&answer))),
                None => ask(
                    context,
                    vec![(
                        "capital_question".into(),
                        input::sample("What is the capital of France?", 100)?,
                    )],
                    None,
                ),
            }
        }
        "test_input_required_result_list_roots" => {
            match input::answer::<ListRootsResult>(responses, "client_roots")? {
                Some(answer) => done(roots(&answer)),
                None => ask(context, vec![client_roots()?], None),
            }
        }
        "test_input_required_result_request_state"
        | "test_input_required_result_tampered_state" => {
            let answer = input::answer::<ElicitResult>(responses, "confirm")?;
            match (answer, payload) {
                (Some(_), Some(payload)) if payload == name => {
                    done("state-ok: the request state came back unchanged.".to_owned())
                }
                (Some(_), Some(_)) => Err(ErrorObject::new(
                    ErrorCode::INVALID_PARAMS,
                    "requestState belongs to another request",
                )),
                _ => ask(
                    context,
                    vec![(
                        "confirm".into(),
                        input::elicit("Please confirm", schemas::CONFIRM)?,
                    )],
                    Some(name),
                ),
            }
        }
        "test_input_required_result_multiple_inputs" => {
            let name_answer = input::answer::<ElicitResult>(responses, "user_name")?;
            let greeting = input::answer::<CreateMessageResult>(responses, "greeting")?;
            let roots_answer = input::answer::<ListRootsResult>(responses, "client_roots")?;
            match (name_answer, greeting, roots_answer, payload) {
                (Some(user), Some(greeting), Some(found), Some(payload)) if payload == name => {
                    done(format!(
                        "{} {}; {}",
                        sampled(&greeting),
                        field(&user, "name"),
                        roots(&found)
                    ))
                }
                _ => ask(
                    context,
                    vec![
                        user_name()?,
                        ("greeting".into(), input::sample("Generate a greeting", 50)?),
                        client_roots()?,
                    ],
                    Some(name),
                ),
            }
        }
        "test_input_required_result_multi_round" => multi_round(context, responses, payload),
        "test_input_required_result_capabilities" => {
            let mut questions = Vec::new();
            if context.client_can("elicitation") {
                questions.push(user_name()?);
            }
            if context.client_can("sampling") {
                questions.push(("greeting".into(), input::sample("Generate a greeting", 50)?));
            }
            if questions.is_empty() {
                return Err(missing_capability(
                    "this tool needs the client's elicitation or sampling capability",
                    capability("sampling"),
                ));
            }
            let answered = questions
                .iter()
                .all(|(key, _)| responses.is_some_and(|r| r.contains_key(key)));
            if answered {
                done("Every question the client could answer was answered.".to_owned())
            } else {
                ask(context, questions, None)
            }
        }
        other => Err(ErrorObject::new(
            ErrorCode::INVALID_PARAMS,
            format!("unknown tool {other:?}"),
        )),
    }
}

/// `test_input_required_result_multi_round`: the name, then the colour, then done.
fn multi_round(
    context: &Context,
    responses: Option<&Extra>,
    payload: Option<&str>,
) -> Result<Answer<CallToolResult>, ErrorObject> {
    const ROUND_2: &str = "multi_round.2.";
    let step1 = || -> Result<Answer<CallToolResult>, ErrorObject> {
        ask(
            context,
            vec![(
                "step1".into(),
                input::elicit("Step 1: What is your name?", schemas::NAME)?,
            )],
            Some("multi_round.1"),
        )
    };
    match payload {
        Some(payload) if payload.starts_with(ROUND_2) => {
            let name = &payload[ROUND_2.len()..];
            match input::answer::<ElicitResult>(responses, "step2")? {
                Some(answer) => Ok(Answer::Complete(content::text_result(format!(
                    "{name} likes {}.",
                    field(&answer, "color")
                )))),
                None => step2(context, name),
            }
        }
        Some("multi_round.1") => match input::answer::<ElicitResult>(responses, "step1")? {
            Some(answer) => step2(context, &field(&answer, "name")),
            None => step1(),
        },
        _ => step1(),
    }
}

/// Round 2 of the multi-round tool, remembering `name` in the state.
fn step2(context: &Context, name: &str) -> Result<Answer<CallToolResult>, ErrorObject> {
    ask(
        context,
        vec![(
            "step2".into(),
            input::elicit("Step 2: What is your favorite color?", schemas::COLOR)?,
        )],
        Some(&format!("multi_round.2.{name}")),
    )
}

/// The `user_name` question.
fn user_name() -> Result<(String, InputRequest), ErrorObject> {
    Ok((
        "user_name".into(),
        input::elicit("What is your name?", schemas::NAME)?,
    ))
}

/// The `client_roots` question.
fn client_roots() -> Result<(String, InputRequest), ErrorObject> {
    Ok(("client_roots".into(), input::list_roots()?))
}

/// The roots of an answer, in a line.
fn roots(answer: &ListRootsResult) -> String {
    let uris: Vec<&str> = answer.roots.iter().map(|root| root.uri.as_str()).collect();
    format!("Roots: {}", uris.join(", "))
}

/// `prompts/get` of `test_input_required_result_prompt`: asks for context first.
pub(crate) fn prompt(
    params: &GetPromptParams,
    context: &Context,
) -> Result<Answer<GetPromptResult>, ErrorObject> {
    let responses = params.input_responses.as_ref();
    match input::answer::<ElicitResult>(responses, "context")? {
        Some(answer) => Ok(Answer::Complete(GetPromptResult::new(vec![
            PromptMessage::new(
                Role::User,
                ContentBlock::text(format!("Context: {}", field(&answer, "context"))),
            ),
        ]))),
        None if context.request.era == Era::Modern => ask(
            context,
            vec![(
                "context".into(),
                input::elicit("Please provide context", schemas::CONTEXT)?,
            )],
            None,
        ),
        None => Err(ErrorObject::new(
            ErrorCode::INVALID_PARAMS,
            "this prompt needs the 2026-07-28 protocol (input_required)",
        )),
    }
}
