//! The items of the conformance suite's test catalog, as the lists show
//! them: the tools, resources, template and prompts its server scenarios
//! call by name.

use mcpdisco_protocol::RawJson;
use mcpdisco_protocol::types::{Prompt, PromptArgument, Resource, ResourceTemplate, Tool};

/// No arguments.
const NO_ARGUMENTS: &str = r#"{"type": "object", "properties": {}}"#;
/// `test_sampling`'s argument.
const PROMPT_ARGUMENT: &str = r#"{
    "type": "object",
    "properties": {"prompt": {"type": "string", "description": "The prompt to send to the LLM"}},
    "required": ["prompt"]
}"#;
/// `test_elicitation`'s argument.
const MESSAGE_ARGUMENT: &str = r#"{
    "type": "object",
    "properties": {"message": {"type": "string", "description": "The message to show the user"}},
    "required": ["message"]
}"#;
/// `json_schema_2020_12_tool`'s input: the 2020-12 keywords the suite checks are kept.
const SCHEMA_2020_12: &str = r##"{
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "$anchor": "addressDef",
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
        }
    },
    "properties": {
        "name": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
        "contactMethod": {"type": "string", "enum": ["phone", "email"]},
        "phone": {"type": "string"},
        "email": {"type": "string"}
    },
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": false
}"##;
/// `test_header_param`'s input: a string sent again as `Mcp-Param-Region` (SEP-2243).
const HEADER_PARAM: &str = r#"{
    "type": "object",
    "properties": {"region": {"type": "string", "x-mcp-header": "Region"}},
    "required": ["region"]
}"#;

/// A schema of this file (each is checked by a test).
fn schema(text: &'static str) -> RawJson {
    RawJson::parse(text).unwrap_or_else(|_| RawJson::empty_object())
}

/// The tools: name, description, input schema.
const TOOLS: &[(&str, &str, &str)] = &[
    ("test_simple_text", "Returns a simple text.", NO_ARGUMENTS),
    ("test_image_content", "Returns an image.", NO_ARGUMENTS),
    ("test_audio_content", "Returns an audio clip.", NO_ARGUMENTS),
    (
        "test_embedded_resource",
        "Returns an embedded resource.",
        NO_ARGUMENTS,
    ),
    (
        "test_multiple_content_types",
        "Returns text, an image and a resource.",
        NO_ARGUMENTS,
    ),
    (
        "test_tool_with_logging",
        "Logs three messages while it runs.",
        NO_ARGUMENTS,
    ),
    (
        "test_logging_tool",
        "Logs three messages, at the level the request asks for.",
        NO_ARGUMENTS,
    ),
    (
        "test_error_handling",
        "Always fails (isError).",
        NO_ARGUMENTS,
    ),
    (
        "test_tool_with_progress",
        "Reports progress 0, 50 and 100 of 100.",
        NO_ARGUMENTS,
    ),
    ("test_sampling", "Asks the client's LLM.", PROMPT_ARGUMENT),
    (
        "test_elicitation",
        "Asks the user for a username and an email.",
        MESSAGE_ARGUMENT,
    ),
    (
        "test_elicitation_sep1034_defaults",
        "Asks the user, with defaults of every primitive type.",
        NO_ARGUMENTS,
    ),
    (
        "test_elicitation_sep1330_enums",
        "Asks the user, with the five kinds of enum.",
        NO_ARGUMENTS,
    ),
    ("test_reconnection", "Answers after a pause.", NO_ARGUMENTS),
    (
        "json_schema_2020_12_tool",
        "Has an input schema of JSON Schema 2020-12.",
        SCHEMA_2020_12,
    ),
    (
        "test_header_param",
        "Echoes its region, which also travels in a header.",
        HEADER_PARAM,
    ),
    (
        "test_missing_capability",
        "Needs the client's sampling capability.",
        NO_ARGUMENTS,
    ),
    (
        "test_streaming_elicitation",
        "Asks the user before it answers.",
        NO_ARGUMENTS,
    ),
    (
        "test_trigger_tool_change",
        "Changes the tool list.",
        NO_ARGUMENTS,
    ),
    (
        "test_trigger_prompt_change",
        "Changes the prompt list.",
        NO_ARGUMENTS,
    ),
    (
        "test_input_required_result_elicitation",
        "Asks the user's name (input_required).",
        NO_ARGUMENTS,
    ),
    (
        "test_input_required_result_sampling",
        "Asks the client's LLM (input_required).",
        NO_ARGUMENTS,
    ),
    (
        "test_input_required_result_list_roots",
        "Asks the client's roots (input_required).",
        NO_ARGUMENTS,
    ),
    (
        "test_input_required_result_request_state",
        "Checks the state it gave (input_required).",
        NO_ARGUMENTS,
    ),
    (
        "test_input_required_result_multiple_inputs",
        "Asks three things at once (input_required).",
        NO_ARGUMENTS,
    ),
    (
        "test_input_required_result_multi_round",
        "Asks twice (input_required).",
        NO_ARGUMENTS,
    ),
    (
        "test_input_required_result_tampered_state",
        "Refuses a changed state (input_required).",
        NO_ARGUMENTS,
    ),
    (
        "test_input_required_result_capabilities",
        "Asks only what the client can answer (input_required).",
        NO_ARGUMENTS,
    ),
];

/// The tools, as `tools/list` shows them.
pub(crate) fn tools() -> Vec<Tool> {
    TOOLS
        .iter()
        .map(|(name, description, input)| Tool {
            description: Some((*description).to_owned()),
            ..Tool::new(*name, schema(input))
        })
        .collect()
}

/// The direct resources.
pub(crate) fn resources() -> Vec<Resource> {
    let resource = |uri: &str, name: &str, description: &str, mime_type: &str| Resource {
        description: Some(description.to_owned()),
        mime_type: Some(mime_type.to_owned()),
        ..Resource::new(uri, name)
    };
    vec![
        resource(
            "test://static-text",
            "static-text",
            "A static text.",
            "text/plain",
        ),
        resource(
            "test://static-binary",
            "static-binary",
            "A static image.",
            "image/png",
        ),
        resource(
            "test://watched-resource",
            "watched-resource",
            "A resource to subscribe to.",
            "text/plain",
        ),
    ]
}

/// The resource templates.
pub(crate) fn resource_templates() -> Vec<ResourceTemplate> {
    vec![ResourceTemplate {
        description: Some("Data for an id.".to_owned()),
        mime_type: Some("application/json".to_owned()),
        ..ResourceTemplate::new("test://template/{id}/data", "template-data")
    }]
}

/// The prompts.
pub(crate) fn prompts() -> Vec<Prompt> {
    let argument = |name: &str, description: &str| PromptArgument {
        description: Some(description.to_owned()),
        ..PromptArgument::new(name, true)
    };
    let prompt = |name: &str, description: &str, arguments: Option<Vec<PromptArgument>>| Prompt {
        description: Some(description.to_owned()),
        arguments,
        ..Prompt::new(name)
    };
    vec![
        prompt("test_simple_prompt", "A prompt without arguments.", None),
        prompt(
            "test_prompt_with_arguments",
            "A prompt with two arguments.",
            Some(vec![
                argument("arg1", "First test argument"),
                argument("arg2", "Second test argument"),
            ]),
        ),
        prompt(
            "test_prompt_with_embedded_resource",
            "A prompt with an embedded resource.",
            Some(vec![argument(
                "resourceUri",
                "URI of the resource to embed",
            )]),
        ),
        prompt("test_prompt_with_image", "A prompt with an image.", None),
        prompt(
            "test_input_required_result_prompt",
            "A prompt that asks the user first (input_required).",
            None,
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_schema_is_a_json_object() {
        for (name, _, text) in TOOLS {
            let parsed: serde_json::Value = serde_json::from_str(text).unwrap();
            assert!(parsed.is_object(), "{name}");
        }
        assert_eq!(tools().len(), TOOLS.len());
    }
}
