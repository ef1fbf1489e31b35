//! The test catalog's task tools (extension `io.modelcontextprotocol/tasks`,
//! SEP-2663), as the suite's `tasks-*` scenarios name them: what each is in
//! `tools/list`, the questions it asks, and how it ends. Pure: no clock,
//! no store; [`tasks`](super::tasks) runs them.

use std::collections::BTreeMap;
use std::time::Duration;

use mcpdisco_protocol::types::{
    CallToolResult, ElicitAction, ElicitResult, Extra, InputRequest, TaskSupport, Tool,
    ToolExecution,
};
use mcpdisco_protocol::{ErrorCode, ErrorObject, RawJson};
use serde_json::{Map, Value};

use super::{content, input, schemas};
use crate::task_state::TaskEvent;

/// The longest a `slow_compute` runs, however many seconds it is asked for.
const LONGEST: Duration = Duration::from_secs(600);
/// How long `failing_job` works before it reports its error.
const FAILING_AFTER: Duration = Duration::from_secs(1);
/// How long the other task tools work.
const SHORT: Duration = Duration::from_millis(100);

/// `greet`'s input.
const NAME_ARGUMENT: &str = r#"{"type": "object", "properties": {"name": {"type": "string"}}}"#;
/// `slow_compute`'s input.
const COMPUTE_ARGUMENTS: &str = r#"{
    "type": "object",
    "properties": {"seconds": {"type": "number", "minimum": 0}, "label": {"type": "string"}}
}"#;
/// `confirm_delete`'s input.
const FILENAME_ARGUMENT: &str =
    r#"{"type": "object", "properties": {"filename": {"type": "string"}}}"#;
/// No arguments.
const NO_ARGUMENTS: &str = r#"{"type": "object", "properties": {}}"#;

/// The task tools: name, description, input schema, task support (`None`: never a task).
const TOOLS: &[(&str, &str, &str, Option<TaskSupport>)] = &[
    ("greet", "Greets by name, at once.", NAME_ARGUMENT, None),
    (
        "slow_compute",
        "Works for the given seconds; a task when the client can follow one.",
        COMPUTE_ARGUMENTS,
        Some(TaskSupport::Optional),
    ),
    (
        "failing_job",
        "Reports a tool error after a second; only as a task.",
        NO_ARGUMENTS,
        Some(TaskSupport::Required),
    ),
    (
        "protocol_error_job",
        "Fails with a protocol error.",
        NO_ARGUMENTS,
        Some(TaskSupport::Optional),
    ),
    (
        "confirm_delete",
        "Asks the user to confirm deleting a file.",
        FILENAME_ARGUMENT,
        Some(TaskSupport::Optional),
    ),
    (
        "multi_input",
        "Asks the user two questions at once.",
        NO_ARGUMENTS,
        Some(TaskSupport::Optional),
    ),
    (
        "test_tool_with_task",
        "Asks the user's name, then works on as a task; only as a task.",
        NO_ARGUMENTS,
        Some(TaskSupport::Required),
    ),
];

/// The task tools as `tools/list` shows them.
pub(crate) fn tools() -> Vec<Tool> {
    TOOLS
        .iter()
        .map(|(name, description, input, support)| Tool {
            description: Some((*description).to_owned()),
            execution: support.clone().map(|support| ToolExecution {
                task_support: Some(support),
                ..ToolExecution::default()
            }),
            ..Tool::new(
                *name,
                RawJson::parse(*input).unwrap_or_else(|_| RawJson::empty_object()),
            )
        })
        .collect()
}

/// How `tool` may run: `None` when it is not a task tool.
pub(crate) fn support(tool: &str) -> Option<Option<TaskSupport>> {
    TOOLS
        .iter()
        .find(|(name, ..)| *name == tool)
        .map(|(.., support)| support.clone())
}

/// How a task tool's work ends.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Outcome {
    /// With this result (maybe `isError`).
    Done(Box<CallToolResult>),
    /// With this protocol error.
    Fail(ErrorObject),
}

impl Outcome {
    /// The task event it is.
    pub(crate) fn event(self) -> TaskEvent {
        match self {
            Outcome::Done(result) => TaskEvent::Finish(*result),
            Outcome::Fail(error) => TaskEvent::Fail(error),
        }
    }
}

/// What a task tool does first.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Work {
    /// Works this long, then ends so.
    After(Duration, Outcome),
    /// Asks these questions, then ends as [`finish`] says.
    Ask(BTreeMap<String, InputRequest>),
}

/// The first work of `tool` with `arguments`; `answers` are the
/// `inputResponses` of the call (`test_tool_with_task` asks before its task).
pub(crate) fn work(
    tool: &str,
    arguments: &Map<String, Value>,
    answers: Option<&Extra>,
) -> Result<Work, ErrorObject> {
    Ok(match tool {
        "slow_compute" => {
            let (seconds, label) = compute_arguments(arguments);
            Work::After(
                Duration::from_secs_f64(seconds).min(LONGEST),
                Outcome::Done(Box::new(computed(seconds, label))),
            )
        }
        "failing_job" => Work::After(FAILING_AFTER, Outcome::Done(Box::new(failed_job()))),
        "protocol_error_job" => Work::After(SHORT, Outcome::Fail(protocol_error())),
        "test_tool_with_task" => {
            let name = user_name(answers)?.unwrap_or_default();
            Work::After(
                SHORT,
                Outcome::Done(Box::new(content::text_result(format!("Hello, {name}!")))),
            )
        }
        _ => Work::Ask(questions(tool, arguments)?),
    })
}

/// The questions `tool` asks, by key (none for a tool that asks nothing).
pub(crate) fn questions(
    tool: &str,
    arguments: &Map<String, Value>,
) -> Result<BTreeMap<String, InputRequest>, ErrorObject> {
    let mut questions = BTreeMap::new();
    match tool {
        "confirm_delete" => {
            let message = format!("Delete {}?", filename(arguments));
            questions.insert(
                "confirm".to_owned(),
                input::elicit(&message, schemas::DELETE_CONFIRM)?,
            );
        }
        "multi_input" => {
            questions.insert(
                "name".to_owned(),
                input::elicit("What is your name?", schemas::NAME)?,
            );
            questions.insert(
                "confirm".to_owned(),
                input::elicit("Go on?", schemas::DELETE_CONFIRM)?,
            );
        }
        "test_tool_with_task" => {
            questions.insert(
                "user_name".to_owned(),
                input::elicit("What is your name?", schemas::NAME)?,
            );
        }
        _ => {}
    }
    Ok(questions)
}

/// How `tool` ends once every question is answered with `answers`.
pub(crate) fn finish(
    tool: &str,
    arguments: &Map<String, Value>,
    answers: &Extra,
) -> Result<Outcome, ErrorObject> {
    let answer = |key: &str| input::answer::<ElicitResult>(Some(answers), key);
    let text = match tool {
        "confirm_delete" => {
            let file = filename(arguments);
            match answer("confirm")? {
                Some(answer) if confirmed(&answer) => format!("Deleted {file}."),
                _ => format!("Kept {file}."),
            }
        }
        "multi_input" => {
            let name = answer("name")?
                .map(|answer| field(&answer, "name"))
                .unwrap_or_default();
            let go_on = answer("confirm")?.is_some_and(|answer| confirmed(&answer));
            format!("Name: {name}; confirmed: {go_on}.")
        }
        other => format!("{other} has nothing to ask."),
    };
    Ok(Outcome::Done(Box::new(content::text_result(text))))
}

/// The name `test_tool_with_task`'s question was answered with, if it was.
pub(crate) fn user_name(answers: Option<&Extra>) -> Result<Option<String>, ErrorObject> {
    Ok(input::answer::<ElicitResult>(answers, "user_name")?.map(|answer| field(&answer, "name")))
}

/// `slow_compute`'s result at once (a client that follows no task).
pub(crate) fn compute_now(arguments: &Map<String, Value>) -> (Duration, CallToolResult) {
    let (seconds, label) = compute_arguments(arguments);
    (
        Duration::from_secs_f64(seconds).min(LONGEST),
        computed(seconds, label),
    )
}

/// The protocol error of `protocol_error_job`.
pub(crate) fn protocol_error() -> ErrorObject {
    ErrorObject::new(
        ErrorCode::INTERNAL_ERROR,
        "protocol_error_job: the job crashed",
    )
}

fn compute_arguments(arguments: &Map<String, Value>) -> (f64, &str) {
    let seconds = arguments
        .get("seconds")
        .and_then(Value::as_f64)
        .filter(|seconds| seconds.is_finite() && *seconds >= 0.0)
        .unwrap_or(0.0);
    let label = arguments
        .get("label")
        .and_then(Value::as_str)
        .unwrap_or("compute");
    (seconds, label)
}

fn computed(seconds: f64, label: &str) -> CallToolResult {
    content::text_result(format!("{label}: computed in {seconds}s."))
}

fn failed_job() -> CallToolResult {
    CallToolResult {
        is_error: Some(true),
        ..content::text_result("failing_job: the job failed.")
    }
}

fn filename(arguments: &Map<String, Value>) -> &str {
    arguments
        .get("filename")
        .and_then(Value::as_str)
        .unwrap_or("the file")
}

fn confirmed(answer: &ElicitResult) -> bool {
    answer.action == ElicitAction::Accept
        && answer
            .content
            .as_ref()
            .and_then(|content| content.get("confirm"))
            .and_then(Value::as_bool)
            == Some(true)
}

fn field(answer: &ElicitResult, name: &str) -> String {
    answer
        .content
        .as_ref()
        .and_then(|content| content.get(name))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    #[test]
    fn the_catalog_declares_how_each_tool_may_run() {
        let listed = tools();
        let support_of = |name: &str| {
            listed
                .iter()
                .find(|tool| tool.name == name)
                .and_then(|tool| tool.execution.as_ref())
                .and_then(|execution| execution.task_support.clone())
        };
        assert_eq!(support_of("greet"), None);
        assert_eq!(support_of("failing_job"), Some(TaskSupport::Required));
        assert_eq!(
            support_of("test_tool_with_task"),
            Some(TaskSupport::Required)
        );
        assert_eq!(support_of("slow_compute"), Some(TaskSupport::Optional));
        assert_eq!(support("greet"), Some(None));
        assert_eq!(support("test_simple_text"), None);
        for tool in &listed {
            let schema: Value = serde_json::from_str(tool.input_schema.as_str()).unwrap();
            assert_eq!(schema["type"], "object", "{}", tool.name);
        }
    }

    #[test]
    fn questions_are_asked_and_their_answers_end_the_tool() {
        let arguments = object(json!({"filename": "a.txt"}));
        let asked = questions("confirm_delete", &arguments).unwrap();
        assert_eq!(asked.keys().collect::<Vec<_>>(), ["confirm"]);
        let yes = object(json!({"confirm": {"action": "accept", "content": {"confirm": true}}}));
        let no = object(json!({"confirm": {"action": "decline"}}));
        let text = |outcome| match outcome {
            Ok(Outcome::Done(result)) => content_text(&result),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            text(finish("confirm_delete", &arguments, &yes)),
            "Deleted a.txt."
        );
        assert_eq!(
            text(finish("confirm_delete", &arguments, &no)),
            "Kept a.txt."
        );
        assert_eq!(questions("multi_input", &Map::new()).unwrap().len(), 2);
        let both = object(json!({
            "name": {"action": "accept", "content": {"name": "Ada", "confirm": true}},
            "confirm": {"action": "accept", "content": {"name": "Ada", "confirm": true}}
        }));
        assert_eq!(
            text(finish("multi_input", &Map::new(), &both)),
            "Name: Ada; confirmed: true."
        );
        let wrong = object(json!({"confirm": 3}));
        assert!(finish("confirm_delete", &arguments, &wrong).is_err());
    }

    #[test]
    fn work_is_bounded_and_ends_as_each_tool_says() {
        let huge = object(json!({"seconds": 1e9, "label": "x"}));
        match work("slow_compute", &huge, None).unwrap() {
            Work::After(delay, Outcome::Done(result)) => {
                assert_eq!(delay, LONGEST);
                assert!(content_text(&result).starts_with("x: "));
            }
            other => panic!("{other:?}"),
        }
        match work("failing_job", &Map::new(), None).unwrap() {
            Work::After(_, Outcome::Done(result)) => assert_eq!(result.is_error, Some(true)),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            work("protocol_error_job", &Map::new(), None).unwrap(),
            Work::After(_, Outcome::Fail(_))
        ));
        let named =
            object(json!({"user_name": {"action": "accept", "content": {"name": "Alice"}}}));
        match work("test_tool_with_task", &Map::new(), Some(&named)).unwrap() {
            Work::After(_, Outcome::Done(result)) => {
                assert_eq!(content_text(&result), "Hello, Alice!")
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            work("confirm_delete", &Map::new(), None).unwrap(),
            Work::Ask(_)
        ));
        assert_eq!(
            compute_now(&object(json!({"seconds": -1}))).0,
            Duration::ZERO
        );
    }

    fn content_text(result: &CallToolResult) -> String {
        result
            .content
            .first()
            .and_then(|block| block.as_text())
            .unwrap_or_default()
            .to_owned()
    }
}
