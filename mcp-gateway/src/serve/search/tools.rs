//! The two tools the gateway lists in tool-search mode: their definitions,
//! the answer of `search_tools`, and the arguments of `call_tool`.
//!
//! Arguments that do not fit a tool's schema (a missing `query`, a `limit`
//! outside 1..=[`MAX_LIMIT`], a query without a single word, a `call_tool`
//! without `name`) are the JSON-RPC error -32602 (invalid params), as the
//! gateway answers a direct call of a tool it does not know.

use mcpdisco_protocol::types::{CallToolResult, ContentBlock, Tool, ToolAnnotations};
use mcpdisco_protocol::{ErrorCode, ErrorObject, RawJson};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::ToolIndex;
use crate::supervisor::object_text;

/// The search tool's name.
pub(crate) const SEARCH_TOOLS: &str = "search_tools";
/// The call tool's name.
pub(crate) const CALL_TOOL: &str = "call_tool";
/// How many tools a search answers when it does not say.
pub(crate) const DEFAULT_LIMIT: u64 = 10;
/// The most tools one search answers.
pub(crate) const MAX_LIMIT: u64 = 100;

/// `search_tools`'s arguments.
const SEARCH_SCHEMA: &str = r#"{
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "Words of what the tool should do, or of its name or parameters."},
        "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10, "description": "How many tools to answer at most."}
    },
    "required": ["query"]
}"#;
/// `search_tools`'s structured result.
const SEARCH_OUTPUT_SCHEMA: &str = r#"{
    "type": "object",
    "properties": {
        "tools": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "description": {"type": "string"},
                    "inputSchema": {"type": "object"}
                },
                "required": ["name", "inputSchema"]
            }
        }
    },
    "required": ["tools"]
}"#;
/// `call_tool`'s arguments.
const CALL_SCHEMA: &str = r#"{
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "The tool's name, as search_tools answered it."},
        "arguments": {"type": "object", "description": "The tool's arguments, as its inputSchema describes them."}
    },
    "required": ["name"]
}"#;

/// A schema of this file (each is checked by a test).
fn schema(text: &'static str) -> RawJson {
    RawJson::parse(text).unwrap_or_else(|_| RawJson::empty_object())
}

/// The two tools, as `tools/list` shows them in tool-search mode.
pub(crate) fn definitions() -> Vec<Tool> {
    let search = Tool {
        title: Some("Search tools".to_owned()),
        description: Some(
            "Finds the tools of every server behind this gateway whose name, description or \
             parameters match the query, best first. Call one with call_tool."
                .to_owned(),
        ),
        output_schema: Some(schema(SEARCH_OUTPUT_SCHEMA)),
        annotations: Some(ToolAnnotations {
            read_only_hint: Some(true),
            open_world_hint: Some(false),
            ..ToolAnnotations::default()
        }),
        ..Tool::new(SEARCH_TOOLS, schema(SEARCH_SCHEMA))
    };
    let call = Tool {
        title: Some("Call a tool".to_owned()),
        description: Some(
            "Calls a tool that search_tools found, by its name, with its arguments.".to_owned(),
        ),
        ..Tool::new(CALL_TOOL, schema(CALL_SCHEMA))
    };
    vec![search, call]
}

/// `search_tools`'s arguments.
#[derive(Debug, Deserialize)]
struct SearchArguments {
    query: String,
    #[serde(default)]
    limit: Option<u64>,
}

/// `call_tool`'s arguments: the served name of a tool and its arguments.
#[derive(Debug, Deserialize)]
pub(crate) struct CallArguments {
    /// The tool's served (namespaced) name.
    pub(crate) name: String,
    /// Its arguments, as sent.
    #[serde(default, deserialize_with = "object_text")]
    pub(crate) arguments: Option<RawJson>,
}

/// What `search_tools` answers, structured and as its text.
#[derive(Debug, Serialize)]
struct FoundTools<'a> {
    tools: Vec<FoundTool<'a>>,
}

/// One tool found.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct FoundTool<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    input_schema: &'a RawJson,
}

/// `search_tools` over `index`: the found tools as structured content,
/// and the same as JSON text.
pub(crate) fn search(
    index: &ToolIndex,
    arguments: Option<RawJson>,
) -> Result<CallToolResult, ErrorObject> {
    let arguments: SearchArguments = read_arguments(SEARCH_TOOLS, arguments)?;
    let limit = arguments.limit.unwrap_or(DEFAULT_LIMIT);
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(invalid(
            SEARCH_TOOLS,
            format!("limit must be from 1 to {MAX_LIMIT}, not {limit}"),
        ));
    }
    if !ToolIndex::is_searchable(&arguments.query) {
        return Err(invalid(SEARCH_TOOLS, "the query has no word to search for"));
    }
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    let found = FoundTools {
        tools: index
            .search(&arguments.query, limit)
            .into_iter()
            .map(|tool| FoundTool {
                name: &tool.name,
                description: tool.description.as_deref(),
                input_schema: &tool.input_schema,
            })
            .collect(),
    };
    let encode = |error: serde_json::Error| {
        ErrorObject::new(
            ErrorCode::INTERNAL_ERROR,
            format!("{SEARCH_TOOLS}: the result cannot be written: {error}"),
        )
    };
    let structured = serde_json::to_value(&found).map_err(encode)?;
    let text = serde_json::to_string(&found).map_err(encode)?;
    Ok(CallToolResult {
        structured_content: Some(structured),
        ..CallToolResult::new(vec![ContentBlock::text(text)])
    })
}

/// `call_tool`'s arguments.
pub(crate) fn call_arguments(arguments: Option<RawJson>) -> Result<CallArguments, ErrorObject> {
    read_arguments(CALL_TOOL, arguments)
}

/// A tool's arguments as `T` (absent arguments are `{}`).
fn read_arguments<T: DeserializeOwned>(
    tool: &str,
    arguments: Option<RawJson>,
) -> Result<T, ErrorObject> {
    let arguments = arguments.unwrap_or_else(RawJson::empty_object);
    arguments
        .decode()
        .map_err(|error| invalid(tool, error.to_string()))
}

fn invalid(tool: &str, message: impl std::fmt::Display) -> ErrorObject {
    ErrorObject::new(
        ErrorCode::INVALID_PARAMS,
        format!("{tool}: invalid arguments: {message}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    /// A JSON object as a call carries it (its text), or none.
    fn arguments(object: Value) -> Option<RawJson> {
        object.is_object().then(|| object.into())
    }

    fn index() -> ToolIndex {
        let tool = |name: &str, description: &str| Tool {
            description: Some(description.to_owned()),
            ..Tool::new(name, RawJson::from_value(&json!({"type": "object"})))
        };
        ToolIndex::build(vec![
            tool("a__echo", "Echoes its text."),
            tool("b__add", "Adds two numbers."),
        ])
    }

    #[test]
    fn the_schemas_of_this_file_are_json() {
        for text in [SEARCH_SCHEMA, SEARCH_OUTPUT_SCHEMA, CALL_SCHEMA] {
            RawJson::parse(text).unwrap();
        }
        let names: Vec<String> = definitions().into_iter().map(|t| t.name).collect();
        assert_eq!(names, [SEARCH_TOOLS, CALL_TOOL]);
    }

    #[test]
    fn a_search_answers_structured_content_and_the_same_as_text() {
        let result = search(&index(), arguments(json!({"query": "echo text"}))).unwrap();
        let expected = json!({"tools": [
            {"name": "a__echo", "description": "Echoes its text.", "inputSchema": {"type": "object"}}
        ]});
        assert_eq!(result.structured_content, Some(expected.clone()));
        let text: Value = serde_json::from_str(result.content[0].as_text().unwrap()).unwrap();
        assert_eq!(text, expected);
        assert!(!result.is_error());
    }

    #[test]
    fn bad_arguments_are_invalid_params() {
        for arguments in [
            None,
            arguments(json!({"query": 3})),
            arguments(json!({"query": "echo", "limit": 0})),
            arguments(json!({"query": "echo", "limit": 101})),
            arguments(json!({"query": "echo", "limit": -1})),
            arguments(json!({"query": "  "})),
        ] {
            let error = search(&index(), arguments.clone()).unwrap_err();
            assert_eq!(error.code, ErrorCode::INVALID_PARAMS, "{arguments:?}");
        }
        let error = call_arguments(arguments(json!({"arguments": {}}))).unwrap_err();
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
        let error =
            call_arguments(arguments(json!({"name": "a__echo", "arguments": 3}))).unwrap_err();
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
        let call = call_arguments(arguments(json!({"name": "a__echo"}))).unwrap();
        assert_eq!((call.name.as_str(), call.arguments), ("a__echo", None));
    }

    #[test]
    fn a_search_without_matches_answers_no_tools() {
        let result = search(&index(), arguments(json!({"query": "weather"}))).unwrap();
        assert_eq!(result.structured_content, Some(json!({"tools": []})));
    }
}
