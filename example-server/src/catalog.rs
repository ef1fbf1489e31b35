//! What the example server offers: tools, resources, a resource template and
//! prompts, all deterministic (no clock, no randomness, no files, no network).

use serde_json::{Value, json};

/// The tools, as `tools/list` shows them.
pub fn tools() -> Vec<Value> {
    vec![
        json!({
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
        }),
        json!({
            "name": "echo",
            "title": "Echo",
            "description": "Returns its text unchanged.",
            "inputSchema": {
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"]
            },
            "annotations": {"readOnlyHint": true, "openWorldHint": false}
        }),
        json!({
            "name": "word_count",
            "title": "Count words",
            "description": "Counts the whitespace-separated words of a text.",
            "inputSchema": {
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"]
            },
            "outputSchema": {
                "type": "object",
                "properties": {"words": {"type": "integer"}},
                "required": ["words"]
            },
            "annotations": {"readOnlyHint": true, "openWorldHint": false}
        }),
        json!({
            "name": "fail",
            "title": "Always fail",
            "description": "Always reports a tool error (isError), to show how clients handle one.",
            "inputSchema": {"type": "object", "properties": {}},
            "annotations": {"readOnlyHint": true, "openWorldHint": false}
        }),
    ]
}

/// The resources.
pub fn resources() -> Vec<Value> {
    vec![
        json!({"uri": "example://readme", "name": "readme", "title": "About this server", "mimeType": "text/markdown"}),
        json!({"uri": "example://server-info", "name": "server-info", "title": "Server facts", "mimeType": "application/json"}),
    ]
}

/// The resource templates.
pub fn resource_templates() -> Vec<Value> {
    vec![json!({
        "uriTemplate": "example://greeting/{name}",
        "name": "greeting",
        "title": "A greeting for anyone",
        "mimeType": "text/plain"
    })]
}

/// The prompts.
pub fn prompts() -> Vec<Value> {
    vec![
        json!({
            "name": "greet",
            "title": "Greet someone",
            "description": "A friendly greeting.",
            "arguments": [{"name": "name", "description": "Who to greet", "required": true}]
        }),
        json!({
            "name": "summarize",
            "title": "Summarize a text",
            "description": "Asks the model for a summary.",
            "arguments": [
                {"name": "text", "description": "The text", "required": true},
                {"name": "style", "description": "brief or detailed", "required": false}
            ]
        }),
    ]
}

/// Why a call could not run: the parameter at fault (JSON-RPC -32602).
pub type ParamError = String;

fn string_argument<'a>(arguments: &'a Value, name: &str) -> Result<&'a str, ParamError> {
    arguments
        .get(name)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("argument '{name}' must be a string"))
}

fn number_argument(arguments: &Value, name: &str) -> Result<serde_json::Number, ParamError> {
    match arguments.get(name) {
        Some(Value::Number(number)) => Ok(number.clone()),
        _ => Err(format!("argument '{name}' must be a number")),
    }
}

fn text(text: impl Into<String>) -> Value {
    json!({"type": "text", "text": text.into()})
}

/// Runs a tool: the `tools/call` result, or the parameter error.
pub fn call_tool(name: &str, arguments: &Value) -> Result<Value, ParamError> {
    match name {
        "add" => {
            let (a, b) = (
                number_argument(arguments, "a")?,
                number_argument(arguments, "b")?,
            );
            let sum = match (a.as_i64(), b.as_i64()) {
                (Some(a), Some(b)) => a
                    .checked_add(b)
                    .map_or_else(|| json!(a as f64 + b as f64), |sum| json!(sum)),
                _ => json!(a.as_f64().unwrap_or(f64::NAN) + b.as_f64().unwrap_or(f64::NAN)),
            };
            Ok(json!({"content": [text(sum.to_string())], "isError": false}))
        }
        "echo" => {
            Ok(json!({"content": [text(string_argument(arguments, "text")?)], "isError": false}))
        }
        "word_count" => {
            let words = string_argument(arguments, "text")?
                .split_whitespace()
                .count();
            Ok(json!({
                "content": [text(format!("{words} words"))],
                "structuredContent": {"words": words},
                "isError": false
            }))
        }
        "fail" => Ok(json!({"content": [text("this tool always fails")], "isError": true})),
        other => Err(format!("unknown tool '{other}'")),
    }
}

/// Reads a resource: the `resources/read` result, or `None` for an unknown URI.
pub fn read_resource(uri: &str, server_name: &str, version: &str) -> Option<Value> {
    let contents = match uri {
        "example://readme" => json!({
            "uri": uri,
            "mimeType": "text/markdown",
            "text": "# mcp-example-server\n\nA small MCP server written with the mcp-discovery workspace's own crates. \
                     It speaks both protocol eras over stdio and Streamable HTTP.\n"
        }),
        "example://server-info" => json!({
            "uri": uri,
            "mimeType": "application/json",
            "text": json!({"name": server_name, "version": version, "transports": ["stdio", "streamable-http"]}).to_string()
        }),
        _ => {
            let name = uri.strip_prefix("example://greeting/")?;
            if name.is_empty() || name.contains('/') {
                return None;
            }
            json!({"uri": uri, "mimeType": "text/plain", "text": format!("Hello, {name}!")})
        }
    };
    Some(json!({"contents": [contents]}))
}

/// Renders a prompt: the `prompts/get` result, or the parameter error.
pub fn get_prompt(name: &str, arguments: &Value) -> Result<Value, ParamError> {
    match name {
        "greet" => {
            let who = string_argument(arguments, "name")?;
            Ok(json!({
                "description": "A friendly greeting.",
                "messages": [{"role": "user", "content": text(format!("Say hello to {who}, warmly and briefly."))}]
            }))
        }
        "summarize" => {
            let body = string_argument(arguments, "text")?;
            let style = arguments
                .get("style")
                .and_then(Value::as_str)
                .unwrap_or("brief");
            Ok(json!({
                "description": "Asks the model for a summary.",
                "messages": [{"role": "user", "content": text(format!("Summarize this text ({style}):\n\n{body}"))}]
            }))
        }
        other => Err(format!("unknown prompt '{other}'")),
    }
}
