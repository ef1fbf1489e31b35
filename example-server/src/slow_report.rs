//! `slow_report` (with `--tasks`): a tool that runs `seconds` long (at
//! most ten minutes), as a task for a client that declares the extension
//! `io.modelcontextprotocol/tasks`, at once for any other. A task's work
//! stops when it is cancelled; the task methods are the catalog's
//! ([`conformance::tasks`](crate::conformance)), over the same bounded store.

use std::time::Duration;

use mcpdisco_protocol::ErrorObject;
use mcpdisco_protocol::RawJson;
use mcpdisco_protocol::types::{
    Answer, CallToolParams, CallToolResult, ContentBlock, TaskSupport, Tool, ToolExecution,
};
use serde_json::{Map, Value};

use crate::conformance::{task_tools, tasks};
use crate::context::Context;

/// The tool's name.
pub(crate) const NAME: &str = "slow_report";
/// The longest report.
const LONGEST: Duration = Duration::from_secs(600);
const SCHEMA: &str = r#"{
    "type": "object",
    "properties": {"seconds": {"type": "number", "minimum": 0, "maximum": 600}},
    "required": ["seconds"]
}"#;

/// The tool as `tools/list` shows it: it may run as a task.
pub(crate) fn tool() -> Tool {
    Tool {
        description: Some(
            "Writes a report after `seconds` (at most 600); runs as a task where the client follows tasks."
                .to_owned(),
        ),
        execution: Some(ToolExecution {
            task_support: Some(TaskSupport::Optional),
            ..ToolExecution::default()
        }),
        ..Tool::new(
            NAME,
            RawJson::parse(SCHEMA).unwrap_or_else(|_| RawJson::empty_object()),
        )
    }
}

/// Answers `tools/call` of `slow_report`.
pub(crate) async fn call(
    params: &CallToolParams,
    context: &Context,
) -> Result<Answer<CallToolResult>, ErrorObject> {
    let arguments = params.arguments.clone().unwrap_or_default();
    let delay = duration(&arguments);
    let result = report(delay);
    if !tasks::negotiated(context) {
        tokio::time::sleep(delay).await;
        return Ok(result.into());
    }
    let work = task_tools::Work::After(delay, task_tools::Outcome::Done(Box::new(result)));
    tasks::start(&context.shared, NAME, arguments, work).map(|task| Answer::Task(Box::new(task)))
}

/// How long the report takes: `seconds`, held between 0 and ten minutes.
fn duration(arguments: &Map<String, Value>) -> Duration {
    arguments
        .get("seconds")
        .and_then(Value::as_f64)
        .filter(|seconds| seconds.is_finite() && *seconds >= 0.0)
        .map_or(Duration::ZERO, |seconds| {
            Duration::from_secs_f64(seconds.min(LONGEST.as_secs_f64()))
        })
}

fn report(delay: Duration) -> CallToolResult {
    CallToolResult::new(vec![ContentBlock::text(format!(
        "report ready after {}s",
        delay.as_secs_f64()
    ))])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn seconds_are_held_between_zero_and_ten_minutes() {
        let of = |value: Value| {
            let Value::Object(arguments) = json!({ "seconds": value }) else {
                unreachable!()
            };
            duration(&arguments)
        };
        assert_eq!(of(json!(2.5)), Duration::from_millis(2500));
        assert_eq!(of(json!(-1)), Duration::ZERO);
        assert_eq!(of(json!("x")), Duration::ZERO);
        assert_eq!(of(json!(1e9)), LONGEST);
        assert_eq!(
            tool().execution.and_then(|e| e.task_support),
            Some(TaskSupport::Optional)
        );
    }
}
