//! Content blocks (text, image, audio, resource links, embedded resources).
//! Unknown content types are kept as raw JSON.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

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
        /// Audience and priority hints, as sent.
        #[serde(
            default,
            deserialize_with = "super::present_field::present",
            skip_serializing_if = "Option::is_none"
        )]
        pub annotations: Option<Value>,
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
        /// Hints, as sent.
        #[serde(
            default,
            deserialize_with = "super::present_field::present",
            skip_serializing_if = "Option::is_none"
        )]
        pub annotations: Option<Value>,
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
        /// Hints, as sent.
        #[serde(
            default,
            deserialize_with = "super::present_field::present",
            skip_serializing_if = "Option::is_none"
        )]
        pub annotations: Option<Value>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

/// One block of content in a tool result, a prompt message or a sampling message.
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

    fn from_value(value: Value) -> Self {
        fn read<T: serde::de::DeserializeOwned>(value: &Value) -> Option<T> {
            T::deserialize(value).ok()
        }
        let Some(mut object) = value.as_object().cloned() else {
            return ContentBlock::Unknown(value);
        };
        let kind = object.remove("type");
        let body = Value::Object(object);
        let block = match kind.as_ref().and_then(Value::as_str) {
            Some("text") => read(&body).map(ContentBlock::Text),
            Some("image") => read(&body).map(ContentBlock::Image),
            Some("audio") => read(&body).map(ContentBlock::Audio),
            Some("resource_link") => read(&body).map(|l| ContentBlock::ResourceLink(Box::new(l))),
            Some("resource") => read(&body).map(ContentBlock::Resource),
            _ => None,
        };
        block.unwrap_or(ContentBlock::Unknown(value))
    }

    /// The block as JSON, `type` first.
    pub fn to_value(&self) -> Value {
        let (kind, body) = match self {
            ContentBlock::Unknown(value) => return value.clone(),
            ContentBlock::Text(t) => ("text", serde_json::to_value(t)),
            ContentBlock::Image(i) => ("image", serde_json::to_value(i)),
            ContentBlock::Audio(a) => ("audio", serde_json::to_value(a)),
            ContentBlock::ResourceLink(l) => ("resource_link", serde_json::to_value(l)),
            ContentBlock::Resource(r) => ("resource", serde_json::to_value(r)),
        };
        let mut object = Map::new();
        object.insert("type".into(), Value::from(kind));
        if let Ok(Value::Object(fields)) = body {
            object.extend(fields);
        }
        Value::Object(object)
    }
}

impl Serialize for ContentBlock {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(serializer)
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

    #[test]
    fn known_and_unknown_blocks_round_trip() {
        for value in [
            json!({"type": "text", "text": "hi", "annotations": {"audience": ["user"]}}),
            json!({"type": "image", "data": "AAA=", "mimeType": "image/png"}),
            json!({"type": "audio", "data": "AAA=", "mimeType": "audio/wav"}),
            json!({"type": "resource_link", "uri": "file:///a", "name": "a"}),
            json!({"type": "resource", "resource": {"uri": "file:///a", "mimeType": "text/plain", "text": "x"}}),
            json!({"type": "hologram", "frames": 3}),
            json!({"type": "text"}),
        ] {
            let block: ContentBlock = serde_json::from_value(value.clone()).unwrap();
            assert_eq!(serde_json::to_value(&block).unwrap(), value);
        }
        let unknown: ContentBlock = serde_json::from_value(json!({"type": "hologram"})).unwrap();
        assert_eq!(unknown.kind(), "hologram");
        assert!(matches!(
            serde_json::from_value::<ContentBlock>(json!({"type": "text"})).unwrap(),
            ContentBlock::Unknown(_)
        ));
    }
}
