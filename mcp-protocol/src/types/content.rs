//! Content blocks: text, image, audio, resource links and embedded
//! resources (tool results, prompt messages), and the `tool_use` and
//! `tool_result` blocks of sampling messages (2025-11-25). Unknown content
//! types, and known ones in a shape this crate cannot read, are kept as
//! raw JSON.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use super::annotations::Annotations;
use super::extra::Extra;
use super::resource::ResourceLink;
use super::resource_contents::ResourceContents;

super::extra::struct_with_extra! {
    /// Text content.
    #[derive(Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct TextContent {
        /// The text.
        pub text: String,
        /// Audience and priority hints.
        #[serde(
            default,
            deserialize_with = "super::present_field::present_typed",
            skip_serializing_if = "Option::is_none"
        )]
        pub annotations: Option<Annotations>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

super::extra::struct_with_extra! {
    /// Image content, base64-encoded.
    #[derive(Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct ImageContent {
        /// The base64 data.
        pub data: String,
        /// The MIME type.
        pub mime_type: String,
        /// Audience and priority hints.
        #[serde(
            default,
            deserialize_with = "super::present_field::present_typed",
            skip_serializing_if = "Option::is_none"
        )]
        pub annotations: Option<Annotations>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

/// Audio content, base64-encoded (2025-03-26).
pub type AudioContent = ImageContent;

super::extra::struct_with_extra! {
    /// A resource embedded in a message.
    #[derive(Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct EmbeddedResource {
        /// The contents.
        pub resource: ResourceContents,
        /// Audience and priority hints.
        #[serde(
            default,
            deserialize_with = "super::present_field::present_typed",
            skip_serializing_if = "Option::is_none"
        )]
        pub annotations: Option<Annotations>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

super::extra::struct_with_extra! {
    /// A `tool_use` block: the model asks for a call of a tool the server
    /// offered in `sampling/createMessage`.
    #[derive(Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct ToolUseContent {
        /// The call's id, which its `tool_result` names.
        pub id: String,
        /// The tool.
        pub name: String,
        /// Its arguments (a JSON object, free as a tool's arguments are).
        pub input: Map<String, Value>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

super::extra::struct_with_extra! {
    /// A `tool_result` block: what a `tool_use` call returned, given back
    /// to the model in the next user message.
    #[derive(Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct ToolResultContent {
        /// The `id` of the `tool_use` this answers.
        pub tool_use_id: String,
        /// The unstructured result.
        pub content: Vec<ContentBlock>,
        /// The structured result, free JSON.
        #[serde(
            default,
            deserialize_with = "super::present_field::present",
            skip_serializing_if = "Option::is_none"
        )]
        pub structured_content: Option<Value>,
        /// Whether the call failed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub is_error: Option<bool>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

/// One block of content in a tool result, a prompt message or a sampling
/// message. Which types a message may hold depends on where it is (a
/// sampling message holds no resources, only it holds `tool_use` and
/// `tool_result`); every type is read wherever it comes, and written back.
#[derive(Debug, Clone, PartialEq)]
pub enum ContentBlock {
    /// `text`.
    Text(TextContent),
    /// `image`.
    Image(ImageContent),
    /// `audio`.
    Audio(AudioContent),
    /// `resource_link` (2025-06-18).
    ResourceLink(Box<ResourceLink>),
    /// `resource`: an embedded resource.
    Resource(EmbeddedResource),
    /// `tool_use`: the model asks for a tool call (sampling, 2025-11-25).
    ToolUse(ToolUseContent),
    /// `tool_result`: the result of a `tool_use` (sampling, 2025-11-25).
    ToolResult(ToolResultContent),
    /// A type this crate does not know, or a known type in a shape it cannot read: kept as sent.
    Unknown(Value),
}

impl ContentBlock {
    /// Text content.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text(TextContent {
            text: text.into(),
            annotations: None,
            meta: None,
            extra: Extra::new(),
        })
    }

    /// The `type` tag.
    pub fn kind(&self) -> &str {
        match self {
            ContentBlock::Text(_) => "text",
            ContentBlock::Image(_) => "image",
            ContentBlock::Audio(_) => "audio",
            ContentBlock::ResourceLink(_) => "resource_link",
            ContentBlock::Resource(_) => "resource",
            ContentBlock::ToolUse(_) => "tool_use",
            ContentBlock::ToolResult(_) => "tool_result",
            ContentBlock::Unknown(value) => value.get("type").and_then(Value::as_str).unwrap_or(""),
        }
    }

    /// The text, for text content.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            ContentBlock::Text(text) => Some(&text.text),
            _ => None,
        }
    }

    /// Reads a block of a known type straight from `value` (its `type`,
    /// which the block's own struct does not know, lands in the struct's
    /// `extra` and is taken out again); anything else is kept as it is.
    fn from_value(value: Value) -> Self {
        macro_rules! read {
            ($variant:expr, $body:ty $(, $boxed:path)?) => {
                <$body>::deserialize(&value).ok().map(|mut body| {
                    body.extra.shift_remove("type");
                    $variant($($boxed)?(body))
                })
            };
        }
        let block = match value.get("type").and_then(Value::as_str) {
            Some("text") => read!(ContentBlock::Text, TextContent),
            Some("image") => read!(ContentBlock::Image, ImageContent),
            Some("audio") => read!(ContentBlock::Audio, AudioContent),
            Some("resource_link") => read!(ContentBlock::ResourceLink, ResourceLink, Box::new),
            Some("resource") => read!(ContentBlock::Resource, EmbeddedResource),
            Some("tool_use") => read!(ContentBlock::ToolUse, ToolUseContent),
            Some("tool_result") => read!(ContentBlock::ToolResult, ToolResultContent),
            _ => None,
        };
        block.unwrap_or(ContentBlock::Unknown(value))
    }

    /// The block as JSON, `type` first.
    pub fn to_value(&self) -> Value {
        // A block's fields are strings, numbers and JSON values: it always serializes.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

impl ToolUseContent {
    /// A call `id` of tool `name` with `input`.
    pub fn new(id: impl Into<String>, name: impl Into<String>, input: Map<String, Value>) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            input,
            meta: None,
            extra: Extra::new(),
        }
    }
}

impl ToolResultContent {
    /// The result `content` of the `tool_use` `tool_use_id`.
    pub fn new(tool_use_id: impl Into<String>, content: Vec<ContentBlock>) -> Self {
        Self {
            tool_use_id: tool_use_id.into(),
            content,
            structured_content: None,
            is_error: None,
            meta: None,
            extra: Extra::new(),
        }
    }
}

/// A known block as it is written: its `type`, then its own fields.
#[derive(Serialize)]
struct Tagged<'a, T> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(flatten)]
    body: &'a T,
}

impl Serialize for ContentBlock {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        fn tagged<S: Serializer, T: Serialize>(
            serializer: S,
            kind: &'static str,
            body: &T,
        ) -> Result<S::Ok, S::Error> {
            Tagged { kind, body }.serialize(serializer)
        }
        match self {
            ContentBlock::Text(body) => tagged(serializer, "text", body),
            ContentBlock::Image(body) => tagged(serializer, "image", body),
            ContentBlock::Audio(body) => tagged(serializer, "audio", body),
            ContentBlock::ResourceLink(body) => tagged(serializer, "resource_link", body),
            ContentBlock::Resource(body) => tagged(serializer, "resource", body),
            ContentBlock::ToolUse(body) => tagged(serializer, "tool_use", body),
            ContentBlock::ToolResult(body) => tagged(serializer, "tool_result", body),
            ContentBlock::Unknown(value) => value.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for ContentBlock {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(ContentBlock::from_value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    use crate::types::Resource;

    #[test]
    fn known_and_unknown_blocks_round_trip() {
        for value in [
            json!({"type": "text", "text": "hi", "annotations": {"audience": ["user"]}}),
            json!({"type": "image", "data": "AAA=", "mimeType": "image/png"}),
            json!({"type": "audio", "data": "AAA=", "mimeType": "audio/wav"}),
            json!({"type": "resource_link", "uri": "file:///a", "name": "a"}),
            json!({"type": "resource", "resource": {"uri": "file:///a", "mimeType": "text/plain", "text": "x"}}),
            json!({"type": "tool_use", "id": "u1", "name": "weather", "input": {"city": "Paris"}}),
            json!({"type": "tool_result", "toolUseId": "u1", "content": [{"type": "text", "text": "18C"}],
                   "structuredContent": {"c": 18}, "isError": false, "_meta": {"m": 1}}),
            json!({"type": "text", "x-vendor": 1, "text": "an unknown member kept"}),
            json!({"type": "hologram", "frames": 3}),
            json!({"type": "tool_use", "id": "u1"}),
            json!({"type": "text"}),
        ] {
            let block: ContentBlock = serde_json::from_value(value.clone()).unwrap();
            assert_eq!(serde_json::to_value(&block).unwrap(), value);
        }
        let text: ContentBlock =
            serde_json::from_str(r#"{"text":"hi","type":"text","x":1}"#).unwrap();
        assert_eq!(
            serde_json::to_string(&text).unwrap(),
            r#"{"type":"text","text":"hi","x":1}"#,
            "written once, type first"
        );
        let unknown: ContentBlock = serde_json::from_value(json!({"type": "hologram"})).unwrap();
        assert_eq!(unknown.kind(), "hologram");
        assert!(matches!(
            serde_json::from_value::<ContentBlock>(json!({"type": "text"})).unwrap(),
            ContentBlock::Unknown(_)
        ));
    }

    #[test]
    fn a_null_or_malformed_annotation_keeps_its_holder_as_sent() {
        for value in [
            json!({"type": "text", "text": "t", "annotations": null}),
            json!({"type": "text", "text": "t", "annotations": {"priority": "high"}}),
        ] {
            let block: ContentBlock = serde_json::from_value(value.clone()).unwrap();
            assert!(matches!(block, ContentBlock::Unknown(_)), "{block:?}");
            assert_eq!(serde_json::to_value(&block).unwrap(), value);
        }
        assert!(
            serde_json::from_value::<Resource>(
                json!({"uri": "a:b", "name": "b", "annotations": null})
            )
            .is_err()
        );
    }
}
