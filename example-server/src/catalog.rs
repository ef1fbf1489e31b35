//! What the example server offers: tools, resources, a resource template and
//! prompts, all deterministic (no clock, no randomness, no files, no network).

use std::collections::BTreeMap;

use mcpdisco_protocol::RawJson;
use mcpdisco_protocol::types::{
    CallToolResult, ContentBlock, GetPromptResult, Prompt, PromptArgument, PromptMessage,
    ReadResourceResult, Resource, ResourceContents, ResourceTemplate, Role, Tool, ToolAnnotations,
};
use serde::Serialize;
use serde_json::{Map, Number, Value};

/// `add`'s arguments.
const ADD_SCHEMA: &str = r#"{
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
    "required": ["a", "b"]
}"#;
/// The arguments of `echo` and `word_count`: one text.
const TEXT_SCHEMA: &str = r#"{
    "type": "object",
    "properties": {"text": {"type": "string"}},
    "required": ["text"]
}"#;
/// `word_count`'s structured output.
const WORD_COUNT_OUTPUT_SCHEMA: &str = r#"{
    "type": "object",
    "properties": {"words": {"type": "integer"}},
    "required": ["words"]
}"#;
/// No arguments.
const NO_ARGUMENTS_SCHEMA: &str = r#"{"type": "object", "properties": {}}"#;

/// A schema of this file (each is checked by a test).
fn schema(text: &'static str) -> RawJson {
    RawJson::parse(text).unwrap_or_else(|_| RawJson::empty_object())
}

/// A tool of this server: it only reads, and reaches nothing outside.
fn tool(name: &str, title: &str, description: &str, input_schema: &'static str) -> Tool {
    Tool {
        title: Some(title.to_owned()),
        description: Some(description.to_owned()),
        annotations: Some(ToolAnnotations {
            read_only_hint: Some(true),
            open_world_hint: Some(false),
            ..ToolAnnotations::default()
        }),
        ..Tool::new(name, schema(input_schema))
    }
}

/// The tools, as `tools/list` shows them.
pub fn tools() -> Vec<Tool> {
    let mut add = tool("add", "Add two numbers", "Adds a and b.", ADD_SCHEMA);
    if let Some(annotations) = &mut add.annotations {
        annotations.idempotent_hint = Some(true);
    }
    let word_count = Tool {
        output_schema: Some(schema(WORD_COUNT_OUTPUT_SCHEMA)),
        ..tool(
            "word_count",
            "Count words",
            "Counts the whitespace-separated words of a text.",
            TEXT_SCHEMA,
        )
    };
    vec![
        add,
        tool("echo", "Echo", "Returns its text unchanged.", TEXT_SCHEMA),
        word_count,
        tool(
            "fail",
            "Always fail",
            "Always reports a tool error (isError), to show how clients handle one.",
            NO_ARGUMENTS_SCHEMA,
        ),
    ]
}

/// The resources.
pub fn resources() -> Vec<Resource> {
    let resource = |uri: &str, name: &str, title: &str, mime_type: &str| Resource {
        title: Some(title.to_owned()),
        mime_type: Some(mime_type.to_owned()),
        ..Resource::new(uri, name)
    };
    vec![
        resource(
            "example://readme",
            "readme",
            "About this server",
            "text/markdown",
        ),
        resource(
            "example://server-info",
            "server-info",
            "Server facts",
            "application/json",
        ),
    ]
}

/// The resource templates.
pub fn resource_templates() -> Vec<ResourceTemplate> {
    vec![ResourceTemplate {
        title: Some("A greeting for anyone".to_owned()),
        mime_type: Some("text/plain".to_owned()),
        ..ResourceTemplate::new("example://greeting/{name}", "greeting")
    }]
}

/// The prompts.
pub fn prompts() -> Vec<Prompt> {
    let argument = |name: &str, description: &str, required: bool| PromptArgument {
        description: Some(description.to_owned()),
        ..PromptArgument::new(name, required)
    };
    vec![
        Prompt {
            title: Some("Greet someone".to_owned()),
            description: Some("A friendly greeting.".to_owned()),
            arguments: Some(vec![argument("name", "Who to greet", true)]),
            ..Prompt::new("greet")
        },
        Prompt {
            title: Some("Summarize a text".to_owned()),
            description: Some("Asks the model for a summary.".to_owned()),
            arguments: Some(vec![
                argument("text", "The text", true),
                argument("style", "brief or detailed", false),
            ]),
            ..Prompt::new("summarize")
        },
    ]
}

/// Why a call could not run: the parameter at fault (JSON-RPC -32602).
pub type ParamError = String;

fn string_argument<'a>(arguments: &'a Arguments, name: &str) -> Result<&'a str, ParamError> {
    arguments
        .get(name)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("argument '{name}' must be a string"))
}

fn number_argument(arguments: &Arguments, name: &str) -> Result<Number, ParamError> {
    match arguments.get(name) {
        Some(Value::Number(number)) => Ok(number.clone()),
        _ => Err(format!("argument '{name}' must be a number")),
    }
}

/// A tool's result of one text.
fn text_result(text: impl Into<String>, is_error: bool) -> CallToolResult {
    CallToolResult {
        is_error: Some(is_error),
        ..CallToolResult::new(vec![ContentBlock::text(text)])
    }
}

/// A tool's arguments: a JSON object's members.
pub type Arguments = Map<String, Value>;

/// Runs a tool: the `tools/call` result, or the parameter error.
pub fn call_tool(name: &str, arguments: &Arguments) -> Result<CallToolResult, ParamError> {
    match name {
        "add" => {
            let (a, b) = (
                number_argument(arguments, "a")?,
                number_argument(arguments, "b")?,
            );
            let sum = match (a.as_i64(), b.as_i64()) {
                (Some(a), Some(b)) => a
                    .checked_add(b)
                    .map_or_else(|| Value::from(a as f64 + b as f64), Value::from),
                _ => Value::from(a.as_f64().unwrap_or(f64::NAN) + b.as_f64().unwrap_or(f64::NAN)),
            };
            Ok(text_result(sum.to_string(), false))
        }
        "echo" => Ok(text_result(string_argument(arguments, "text")?, false)),
        "word_count" => {
            let words = string_argument(arguments, "text")?
                .split_whitespace()
                .count();
            let mut structured = Map::new();
            structured.insert("words".into(), Value::from(words));
            Ok(CallToolResult {
                structured_content: Some(Value::Object(structured)),
                ..text_result(format!("{words} words"), false)
            })
        }
        "fail" => Ok(text_result("this tool always fails", true)),
        other => Err(format!("unknown tool '{other}'")),
    }
}

/// What `example://server-info` says.
#[derive(Serialize)]
struct ServerFacts<'a> {
    name: &'a str,
    version: &'a str,
    transports: [&'a str; 2],
}

/// Reads a resource: the `resources/read` result, or `None` for an unknown URI.
pub fn read_resource(uri: &str, server_name: &str, version: &str) -> Option<ReadResourceResult> {
    let text = |mime_type: &str, text: String| {
        ResourceContents::text(uri, Some(mime_type.to_owned()), text)
    };
    let contents = match uri {
        "example://readme" => text(
            "text/markdown",
            "# mcp-example-server\n\nA small MCP server written with the mcp-discovery workspace's own crates. \
             It speaks both protocol eras over stdio and Streamable HTTP.\n"
                .to_owned(),
        ),
        "example://server-info" => {
            let facts = ServerFacts {
                name: server_name,
                version,
                transports: ["stdio", "streamable-http"],
            };
            text("application/json", serde_json::to_string(&facts).ok()?)
        }
        _ => {
            let name = uri.strip_prefix("example://greeting/")?;
            if name.is_empty() || name.contains('/') {
                return None;
            }
            text("text/plain", format!("Hello, {name}!"))
        }
    };
    Some(ReadResourceResult::new(vec![contents]))
}

/// A prompt of one message from the user.
fn user_prompt(description: &str, text: String) -> GetPromptResult {
    GetPromptResult {
        description: Some(description.to_owned()),
        ..GetPromptResult::new(vec![PromptMessage::new(
            Role::User,
            ContentBlock::text(text),
        )])
    }
}

/// Renders a prompt: the `prompts/get` result, or the parameter error.
pub fn get_prompt(
    name: &str,
    arguments: &BTreeMap<String, String>,
) -> Result<GetPromptResult, ParamError> {
    let string = |name: &str| {
        arguments
            .get(name)
            .map(String::as_str)
            .ok_or_else(|| format!("argument '{name}' must be a string"))
    };
    match name {
        "greet" => {
            let who = string("name")?;
            Ok(user_prompt(
                "A friendly greeting.",
                format!("Say hello to {who}, warmly and briefly."),
            ))
        }
        "summarize" => {
            let body = string("text")?;
            let style = string("style").unwrap_or("brief");
            Ok(user_prompt(
                "Asks the model for a summary.",
                format!("Summarize this text ({style}):\n\n{body}"),
            ))
        }
        other => Err(format!("unknown prompt '{other}'")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_schema_is_a_json_object() {
        for text in [
            ADD_SCHEMA,
            TEXT_SCHEMA,
            WORD_COUNT_OUTPUT_SCHEMA,
            NO_ARGUMENTS_SCHEMA,
        ] {
            let schema = RawJson::parse(text).unwrap().to_value().unwrap();
            assert_eq!(schema["type"], "object", "{text}");
        }
    }

    #[test]
    fn items_are_written_as_before() {
        let tools = serde_json::to_value(tools()).unwrap();
        assert_eq!(
            tools[0],
            serde_json::json!({
                "name": "add",
                "title": "Add two numbers",
                "description": "Adds a and b.",
                "inputSchema": {
                    "$schema": "https://json-schema.org/draft/2020-12/schema",
                    "type": "object",
                    "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                    "required": ["a", "b"]
                },
                "annotations": {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}
            })
        );
        assert_eq!(tools[2]["outputSchema"]["required"][0], "words");
        let prompts = serde_json::to_value(prompts()).unwrap();
        assert_eq!(
            prompts[1]["arguments"][1],
            serde_json::json!({"name": "style", "description": "brief or detailed", "required": false})
        );
        let facts = read_resource("example://server-info", "n", "1").unwrap();
        let facts = serde_json::to_value(facts).unwrap();
        assert_eq!(
            facts["contents"][0]["text"],
            r#"{"name":"n","version":"1","transports":["stdio","streamable-http"]}"#
        );
    }
}
