//! The fixed answers of the test catalog: tool results that need nothing of
//! the client, resource contents and prompts, exactly as the suite's
//! scenarios describe them.

use std::collections::BTreeMap;

use mcpdisco_protocol::types::{
    CallToolResult, ContentBlock, EmbeddedResource, Extra, GetPromptResult, ImageContent,
    PromptMessage, ReadResourceResult, ResourceContents, Role,
};

/// A 1×1 red PNG.
pub(crate) const RED_PIXEL_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A WAV file of no samples (8 kHz, 8-bit mono).
const EMPTY_WAV: &str = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=";

/// Base64 `data` of `mime_type`.
fn media(data: &str, mime_type: &str) -> ImageContent {
    ImageContent {
        data: data.to_owned(),
        mime_type: mime_type.to_owned(),
        annotations: None,
        meta: None,
        extra: Extra::new(),
    }
}

/// An embedded text resource.
fn embedded(uri: &str, mime_type: &str, text: &str) -> ContentBlock {
    ContentBlock::Resource(EmbeddedResource {
        resource: ResourceContents::text(uri, Some(mime_type.to_owned()), text),
        annotations: None,
        meta: None,
        extra: Extra::new(),
    })
}

/// A result of one text.
pub(crate) fn text_result(text: impl Into<String>) -> CallToolResult {
    CallToolResult::new(vec![ContentBlock::text(text)])
}

/// The result of a tool that needs nothing of the client, or `None` for
/// another tool.
pub(crate) fn fixed_tool_result(name: &str) -> Option<CallToolResult> {
    Some(match name {
        "test_simple_text" => text_result("This is a simple text response for testing."),
        "test_image_content" => {
            CallToolResult::new(vec![ContentBlock::Image(media(RED_PIXEL_PNG, "image/png"))])
        }
        "test_audio_content" => {
            CallToolResult::new(vec![ContentBlock::Audio(media(EMPTY_WAV, "audio/wav"))])
        }
        "test_embedded_resource" => CallToolResult::new(vec![embedded(
            "test://embedded-resource",
            "text/plain",
            "This is an embedded resource content.",
        )]),
        "test_multiple_content_types" => CallToolResult::new(vec![
            ContentBlock::text("Multiple content types test:"),
            ContentBlock::Image(media(RED_PIXEL_PNG, "image/png")),
            embedded(
                "test://mixed-content-resource",
                "application/json",
                r#"{"test":"data","value":123}"#,
            ),
        ]),
        "test_error_handling" => CallToolResult {
            is_error: Some(true),
            ..text_result("This tool intentionally returns an error for testing")
        },
        "json_schema_2020_12_tool" => text_result("The schema was received."),
        _ => return None,
    })
}

/// The contents of `uri`, or `None` when no resource has it.
pub(crate) fn read(uri: &str) -> Option<ReadResourceResult> {
    let contents = match uri {
        "test://static-text" => ResourceContents::text(
            uri,
            Some("text/plain".to_owned()),
            "This is the content of the static text resource.",
        ),
        "test://static-binary" => ResourceContents::Blob {
            uri: uri.to_owned(),
            mime_type: Some("image/png".to_owned()),
            blob: RED_PIXEL_PNG.to_owned(),
            extra: Extra::new(),
        },
        "test://watched-resource" => ResourceContents::text(
            uri,
            Some("text/plain".to_owned()),
            "A resource clients subscribe to.",
        ),
        _ => {
            let id = uri
                .strip_prefix("test://template/")?
                .strip_suffix("/data")
                .filter(|id| !id.is_empty() && !id.contains('/'))?;
            let data = TemplateData {
                id,
                template_test: true,
                data: format!("Data for ID: {id}"),
            };
            ResourceContents::text(
                uri,
                Some("application/json".to_owned()),
                serde_json::to_string(&data).ok()?,
            )
        }
    };
    Some(ReadResourceResult::new(vec![contents]))
}

/// What `test://template/{id}/data` holds.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct TemplateData<'a> {
    id: &'a str,
    template_test: bool,
    data: String,
}

/// A message from the user.
fn user(content: ContentBlock) -> PromptMessage {
    PromptMessage::new(Role::User, content)
}

/// The prompt `name` with `arguments`; `Err` names a missing argument,
/// `Ok(None)` is a prompt this module does not know.
pub(crate) fn prompt(
    name: &str,
    arguments: &BTreeMap<String, String>,
) -> Result<Option<GetPromptResult>, String> {
    let argument = |key: &str| {
        arguments
            .get(key)
            .map(String::as_str)
            .ok_or_else(|| format!("argument '{key}' is required"))
    };
    let messages = match name {
        "test_simple_prompt" => vec![user(ContentBlock::text(
            "This is a simple prompt for testing.",
        ))],
        "test_prompt_with_arguments" => {
            let (arg1, arg2) = (argument("arg1")?, argument("arg2")?);
            vec![user(ContentBlock::text(format!(
                "Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"
            )))]
        }
        "test_prompt_with_embedded_resource" => vec![
            user(embedded(
                argument("resourceUri")?,
                "text/plain",
                "Embedded resource content for testing.",
            )),
            user(ContentBlock::text(
                "Please process the embedded resource above.",
            )),
        ],
        "test_prompt_with_image" => vec![
            user(ContentBlock::Image(media(RED_PIXEL_PNG, "image/png"))),
            user(ContentBlock::text("Please analyze the image above.")),
        ],
        _ => return Ok(None),
    };
    Ok(Some(GetPromptResult::new(messages)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_reads_substitute_the_id() {
        let read = serde_json::to_value(read("test://template/123/data").unwrap()).unwrap();
        let text: serde_json::Value =
            serde_json::from_str(read["contents"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(text["id"], "123");
        assert_eq!(text["templateTest"], true);
        assert!(super::read("test://template//data").is_none());
        assert!(super::read("test://nonexistent").is_none());
    }

    #[test]
    fn prompts_need_their_arguments() {
        assert!(prompt("test_prompt_with_arguments", &BTreeMap::new()).is_err());
        assert!(prompt("nope", &BTreeMap::new()).unwrap().is_none());
    }
}
