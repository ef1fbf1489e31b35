//! Completion (`completion/complete`): values for an argument of a prompt
//! or a variable of a resource template, as the user types them.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use super::extra::Extra;

/// The `ref` of a `completion/complete`: an argument of a prompt, or a
/// variable of a resource template (or resource). Fields this crate does
/// not know are kept in `extra` and written back; a `ref` of a type this
/// crate does not know (or a known type without its `name` or `uri`) is
/// kept whole, as sent.
#[derive(Debug, Clone, PartialEq)]
pub enum CompletionReference {
    /// `ref/prompt`: an argument of the prompt `name`.
    Prompt {
        /// The prompt's name.
        name: String,
        /// Other fields (such as `title`), kept.
        extra: Extra,
    },
    /// `ref/resource`: a variable of the resource template (or resource) `uri`.
    Resource {
        /// The template's URI template, or the resource's URI.
        uri: String,
        /// Other fields, kept.
        extra: Extra,
    },
    /// Any other `ref`, kept as sent.
    Unknown(Value),
}

/// The known references as they are written: `type` first.
#[derive(Serialize, Deserialize)]
#[serde(tag = "type")]
enum Known<S, E> {
    #[serde(rename = "ref/prompt")]
    Prompt {
        name: S,
        #[serde(flatten)]
        extra: E,
    },
    #[serde(rename = "ref/resource")]
    Resource {
        uri: S,
        #[serde(flatten)]
        extra: E,
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

    /// The `type` tag (`ref/prompt`, `ref/resource`, or an unknown one's;
    /// empty when it has none).
    pub fn kind(&self) -> &str {
        match self {
            CompletionReference::Prompt { .. } => "ref/prompt",
            CompletionReference::Resource { .. } => "ref/resource",
            CompletionReference::Unknown(value) => {
                value.get("type").and_then(Value::as_str).unwrap_or("")
            }
        }
    }
}

impl Serialize for CompletionReference {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            CompletionReference::Prompt { name, extra } => Known::Prompt { name, extra },
            CompletionReference::Resource { uri, extra } => Known::Resource { uri, extra },
            CompletionReference::Unknown(value) => return value.serialize(serializer),
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for CompletionReference {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Ok(match Known::<String, Extra>::deserialize(&value) {
            Ok(Known::Prompt { name, extra }) => CompletionReference::Prompt { name, extra },
            Ok(Known::Resource { uri, extra }) => CompletionReference::Resource { uri, extra },
            Err(_) => CompletionReference::Unknown(value),
        })
    }
}

super::extra::struct_with_extra! {
    /// The argument being completed: its name, and what the user typed so far.
    #[derive(Debug, Clone, PartialEq)]
    pub struct CompletionArgument {
        /// The argument's name.
        pub name: String,
        /// Its value so far.
        pub value: String,
    }
}

super::extra::struct_with_extra! {
    /// What else is known while completing (2025-06-18).
    #[derive(Debug, Clone, PartialEq, Default)]
    pub struct CompletionContext {
        /// The values of arguments already given, by name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub arguments: Option<BTreeMap<String, String>>,
    }
}

super::extra::struct_with_extra! {
    /// `completion/complete` params.
    #[derive(Debug, Clone, PartialEq)]
    pub struct CompleteParams {
        /// What is completed: an argument of a prompt, or a variable of a resource template.
        #[serde(rename = "ref")]
        pub reference: CompletionReference,
        /// The argument, and its value so far.
        pub argument: CompletionArgument,
        /// Values of other arguments.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub context: Option<CompletionContext>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

super::extra::struct_with_extra! {
    /// The completions of a `completion/complete`.
    #[derive(Debug, Clone, PartialEq, Default)]
    #[serde(rename_all = "camelCase")]
    pub struct Completion {
        /// The values (at most 100).
        pub values: Vec<String>,
        /// How many there are in all, when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub total: Option<u64>,
        /// Whether there are more than these.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub has_more: Option<bool>,
    }
}

super::extra::struct_with_extra! {
    /// `completion/complete` result.
    #[derive(Debug, Clone, PartialEq)]
    pub struct CompleteResult {
        /// The completions.
        pub completion: Completion,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

impl CompletionArgument {
    /// The argument `name`, typed so far as `value`.
    pub fn new(name: impl Into<String>, value: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            value: value.into(),
            extra: Extra::new(),
        }
    }
}

impl CompleteParams {
    /// Completions of `argument` of `reference`.
    pub fn new(reference: CompletionReference, argument: CompletionArgument) -> Self {
        Self {
            reference,
            argument,
            context: None,
            meta: None,
            extra: Extra::new(),
        }
    }
}

impl Completion {
    /// `values`, all there are.
    pub fn new(values: Vec<String>) -> Self {
        Self {
            values,
            ..Self::default()
        }
    }
}

impl CompleteResult {
    /// A result of `completion`.
    pub fn new(completion: Completion) -> Self {
        Self {
            completion,
            meta: None,
            extra: Extra::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn references_read_typed_and_write_back_with_their_other_fields() {
        let value = json!({"ref": {"type": "ref/prompt", "name": "greet", "title": "Greet"},
                           "argument": {"name": "who", "value": "pa"},
                           "context": {"arguments": {"lang": "en"}}});
        let mut params: CompleteParams = serde_json::from_value(value.clone()).unwrap();
        let CompletionReference::Prompt { name, extra } = &params.reference else {
            panic!("a prompt reference");
        };
        assert_eq!((name.as_str(), &extra["title"]), ("greet", &json!("Greet")));
        assert_eq!(params.argument, CompletionArgument::new("who", "pa"));
        assert_eq!(
            params
                .context
                .as_ref()
                .and_then(|c| c.arguments.as_ref())
                .map(|a| &a["lang"]),
            Some(&"en".to_owned())
        );
        assert_eq!(serde_json::to_value(&params).unwrap(), value);
        if let CompletionReference::Prompt { name, .. } = &mut params.reference {
            *name = "own".into();
        }
        assert_eq!(
            serde_json::to_value(&params.reference).unwrap(),
            json!({"type": "ref/prompt", "name": "own", "title": "Greet"})
        );
        let resource: CompletionReference =
            serde_json::from_value(json!({"type": "ref/resource", "uri": "test://t/{id}"}))
                .unwrap();
        assert_eq!(resource, CompletionReference::resource("test://t/{id}"));
    }

    #[test]
    fn an_unknown_or_incomplete_reference_is_kept_as_sent() {
        for reference in [
            json!({"type": "ref/tool", "name": "x"}),
            json!({"type": "ref/prompt"}),
            json!({"type": "ref/resource", "uri": 3}),
            json!("ref/prompt"),
        ] {
            let read: CompletionReference = serde_json::from_value(reference.clone()).unwrap();
            assert!(matches!(read, CompletionReference::Unknown(_)), "{read:?}");
            assert_eq!(serde_json::to_value(&read).unwrap(), reference);
        }
        let tool: CompletionReference =
            serde_json::from_value(json!({"type": "ref/tool"})).unwrap();
        assert_eq!(tool.kind(), "ref/tool");
    }

    #[test]
    fn a_result_reads_its_completion() {
        let value =
            json!({"completion": {"values": ["a", "b"], "total": 9, "hasMore": true, "x": 1}});
        let result: CompleteResult = serde_json::from_value(value.clone()).unwrap();
        assert_eq!(result.completion.values, ["a", "b"]);
        assert_eq!(
            (result.completion.total, result.completion.has_more),
            (Some(9), Some(true))
        );
        assert_eq!(serde_json::to_value(&result).unwrap(), value);
    }
}
