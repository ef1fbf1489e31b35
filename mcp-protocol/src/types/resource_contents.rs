//! [`ResourceContents`]: the text or base64 blob of one resource, as
//! `resources/read` returns it and as an embedded resource carries it.
//! Unknown shapes are kept as raw JSON.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use super::extra::Extra;

/// The contents of a resource: text, or base64 blob.
#[derive(Debug, Clone, PartialEq)]
pub enum ResourceContents {
    /// Text contents: `{uri, mimeType?, text}`.
    Text {
        /// The resource.
        uri: String,
        /// Its MIME type.
        mime_type: Option<String>,
        /// The text.
        text: String,
        /// Every other field, as sent.
        extra: Extra,
    },
    /// Binary contents: `{uri, mimeType?, blob}`.
    Blob {
        /// The resource.
        uri: String,
        /// Its MIME type.
        mime_type: Option<String>,
        /// The base64 data.
        blob: String,
        /// Every other field, as sent.
        extra: Extra,
    },
    /// Anything else, kept as sent.
    Unknown(Value),
}

impl ResourceContents {
    /// Text contents of `uri`.
    pub fn text(
        uri: impl Into<String>,
        mime_type: Option<String>,
        text: impl Into<String>,
    ) -> Self {
        ResourceContents::Text {
            uri: uri.into(),
            mime_type,
            text: text.into(),
            extra: Extra::new(),
        }
    }

    fn from_value(value: Value) -> Self {
        let Value::Object(mut object) = value else {
            return ResourceContents::Unknown(value);
        };
        let string =
            |object: &Extra, key: &str| object.get(key).and_then(Value::as_str).map(str::to_owned);
        let (Some(uri), mime) = (string(&object, "uri"), object.get("mimeType").cloned()) else {
            return ResourceContents::Unknown(Value::Object(object));
        };
        let mime_type = match mime {
            None => None,
            Some(Value::String(m)) => Some(m),
            Some(_) => return ResourceContents::Unknown(Value::Object(object)),
        };
        let text = string(&object, "text");
        let blob = string(&object, "blob");
        match (text, blob) {
            (Some(text), None) => {
                for key in ["uri", "mimeType", "text"] {
                    object.remove(key);
                }
                ResourceContents::Text {
                    uri,
                    mime_type,
                    text,
                    extra: object,
                }
            }
            (None, Some(blob)) => {
                for key in ["uri", "mimeType", "blob"] {
                    object.remove(key);
                }
                ResourceContents::Blob {
                    uri,
                    mime_type,
                    blob,
                    extra: object,
                }
            }
            _ => ResourceContents::Unknown(Value::Object(object)),
        }
    }

    /// The contents as JSON.
    pub fn to_value(&self) -> Value {
        let (uri, mime_type, key, data, extra) = match self {
            ResourceContents::Unknown(value) => return value.clone(),
            ResourceContents::Text {
                uri,
                mime_type,
                text,
                extra,
            } => (uri, mime_type, "text", text, extra),
            ResourceContents::Blob {
                uri,
                mime_type,
                blob,
                extra,
            } => (uri, mime_type, "blob", blob, extra),
        };
        let mut object = Map::new();
        object.insert("uri".into(), Value::from(uri.as_str()));
        if let Some(mime_type) = mime_type {
            object.insert("mimeType".into(), Value::from(mime_type.as_str()));
        }
        object.insert(key.into(), Value::from(data.as_str()));
        object.extend(extra.clone());
        Value::Object(object)
    }
}

impl Serialize for ResourceContents {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ResourceContents {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(ResourceContents::from_value)
    }
}
