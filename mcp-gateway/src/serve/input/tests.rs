use super::*;
use mcpdisco_protocol::methods::{CallTool, CreateMessage, Elicit, GetPrompt};
use mcpdisco_protocol::types::{CallToolResult, ContentBlock, CreateMessageParams, ElicitParams};
use serde_json::json;

fn sampling() -> CreateMessageParams {
    CreateMessageParams::new(Vec::new(), 5)
}

fn state_of<R>(answer: Answer<R>) -> (String, InputRequiredResult) {
    match answer {
        Answer::InputRequired(input) => (input.request_state.clone().unwrap(), *input),
        Answer::Complete(_) => panic!("the call asked nothing"),
        Answer::Task(task) => panic!("the call became a task: {task:?}"),
    }
}

#[tokio::test(start_paused = true)]
async fn a_question_parks_the_call_and_the_retry_answers_it() {
    let inputs = Arc::new(Inputs::new(Duration::from_secs(60)));
    let (asker, asks) = mpsc::channel(4);
    let call = RunningCall::spawn(
        async move {
            let sampled = ask::<CreateMessage>(&asker, &sampling()).await?;
            let text = sampled.content.text().unwrap_or_default();
            Ok(Answer::Complete(CallToolResult::new(vec![
                ContentBlock::text(text),
            ])))
        },
        asks,
    );
    let (state, first) = state_of(inputs.drive::<CallTool>(call).await.unwrap());
    let question = &first.input_requests.as_ref().unwrap()["input-0"];
    assert_eq!(question.method, "sampling/createMessage");
    assert_eq!(question.params.as_ref().unwrap()["maxTokens"], 5);
    assert!(
        inputs.resume::<GetPrompt>(&state, None).is_err(),
        "another method's retry cannot take the call"
    );
    let mut responses = Extra::new();
    responses.insert(
        "input-0".into(),
        json!({"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"}),
    );
    let call = inputs.resume::<CallTool>(&state, Some(&responses)).unwrap();
    match inputs.drive::<CallTool>(call).await.unwrap() {
        Answer::Complete(done) => assert_eq!(done.content[0].as_text(), Some("hi")),
        Answer::InputRequired(input) => panic!("asked again: {input:?}"),
        Answer::Task(task) => panic!("became a task: {task:?}"),
    }
    assert!(
        inputs.resume::<CallTool>(&state, None).is_err(),
        "a state is used once"
    );
}

#[tokio::test(start_paused = true)]
async fn an_error_or_an_unreadable_response_reaches_the_server_as_an_error() {
    let inputs = Arc::new(Inputs::new(Duration::from_secs(60)));
    for (response, code) in [
        (json!({"code": -1, "message": "no"}), ErrorCode(-1)),
        (json!({"role": "assistant"}), ErrorCode::INTERNAL_ERROR),
    ] {
        let (asker, asks) = mpsc::channel(4);
        let (heard, hear) = oneshot::channel();
        let call = RunningCall::spawn(
            async move {
                let answer = ask::<CreateMessage>(&asker, &sampling()).await;
                let _ = heard.send(answer.map(|_| ()));
                Ok(Answer::Complete(CallToolResult::default()))
            },
            asks,
        );
        let (state, _) = state_of(inputs.drive::<CallTool>(call).await.unwrap());
        let mut responses = Extra::new();
        responses.insert("input-0".into(), response);
        let call = inputs.resume::<CallTool>(&state, Some(&responses)).unwrap();
        inputs.drive::<CallTool>(call).await.unwrap();
        assert_eq!(hear.await.unwrap().unwrap_err().code, code);
    }
}

#[tokio::test(start_paused = true)]
async fn a_parked_call_the_client_abandons_is_dropped() {
    let inputs = Arc::new(Inputs::new(Duration::from_secs(60)));
    let (asker, asks) = mpsc::channel(4);
    let (dropped_tx, dropped) = oneshot::channel::<()>();
    let call = RunningCall::spawn(
        async move {
            let _dropped = dropped_tx;
            let params = ElicitParams {
                mode: None,
                message: "?".into(),
                requested_schema: None,
                url: None,
                elicitation_id: None,
                meta: None,
                extra: Extra::new(),
            };
            let _ = ask::<Elicit>(&asker, &params).await;
            Ok(Answer::Complete(CallToolResult::default()))
        },
        asks,
    );
    let (state, _) = state_of(inputs.drive::<CallTool>(call).await.unwrap());
    tokio::time::sleep(Duration::from_secs(61)).await;
    assert!(dropped.await.is_err(), "the call's task was aborted");
    assert!(inputs.resume::<CallTool>(&state, None).is_err());
}
