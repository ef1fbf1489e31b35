//! What a `completion/complete` completes: its `ref`, read as a
//! [`CompletionReference`] from [`CompleteParams::reference`].

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::extra::Extra;
use super::sampling::CompleteParams;

/// The `ref` of a `completion/complete`: an argument of a prompt, or a
/// variable of a resource template (or resource). Fields this crate does
/// not know are kept in `extra` and written back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum CompletionReference {
    /// `ref/prompt`: an argument of the prompt `name`.
    #[serde(rename = "ref/prompt")]
    Prompt {
        /// The prompt's name.
        name: String,
        /// Other fields (such as `title`), kept.
        #[serde(flatten)]
        extra: Extra,
    },
    /// `ref/resource`: a variable of the resource template (or resource) `uri`.
    #[serde(rename = "ref/resource")]
    Resource {
        /// The template's URI template, or the resource's URI.
        uri: String,
        /// Other fields, kept.
        #[serde(flatten)]
        extra: Extra,
    },
}

impl CompletionReference {
    /// A `ref/prompt` of `name`.
    pub fn prompt(name: impl Into<String>) -> Self {
        Self::Prompt {
            name: name.into(),
            extra: Extra::new(),
        }
    }

    /// A `ref/resource` of `uri`.
    pub fn resource(uri: impl Into<String>) -> Self {
        Self::Resource {
            uri: uri.into(),
            extra: Extra::new(),
        }
    }
}

impl CompleteParams {
    /// The `ref`, typed; `None` when it is neither a `ref/prompt` with a
    /// `name` nor a `ref/resource` with a `uri`.
    pub fn typed_reference(&self) -> Option<CompletionReference> {
        CompletionReference::deserialize(&self.reference).ok()
    }

    /// Replaces the `ref` with `reference`.
    pub fn set_reference(&mut self, reference: &CompletionReference) {
        // A map of strings and JSON values always serializes.
        self.reference = serde_json::to_value(reference).unwrap_or(Value::Null);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn references_read_and_write_back_with_their_other_fields() {
        let mut params = CompleteParams::new(
            json!({"type": "ref/prompt", "name": "greet", "title": "Greet"}),
            json!({"name": "who", "value": "pa"}),
        );
        let Some(CompletionReference::Prompt { name, extra }) = params.typed_reference() else {
            panic!("a prompt reference");
        };
        assert_eq!(
            (name.as_str(), extra["title"].clone()),
            ("greet", json!("Greet"))
        );
        params.set_reference(&CompletionReference::Prompt {
            name: "own".into(),
            extra,
        });
        assert_eq!(
            params.reference,
            json!({"type": "ref/prompt", "name": "own", "title": "Greet"})
        );
        let resource = CompleteParams::new(
            json!({"type": "ref/resource", "uri": "test://t/{id}"}),
            json!({}),
        );
        assert_eq!(
            resource.typed_reference(),
            Some(CompletionReference::resource("test://t/{id}"))
        );
    }

    #[test]
    fn an_unknown_or_incomplete_reference_is_none() {
        for reference in [
            json!({"type": "ref/tool", "name": "x"}),
            json!({"type": "ref/prompt"}),
            json!({"type": "ref/resource", "uri": 3}),
            json!("ref/prompt"),
        ] {
            assert_eq!(
                CompleteParams::new(reference, json!({})).typed_reference(),
                None
            );
        }
    }
}
