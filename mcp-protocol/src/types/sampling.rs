//! What a server may ask of a client: roots, sampling, elicitation; and completion.

use serde_json::Value;

use super::extra::Extra;
use super::prompt::Role;

super::extra::struct_with_extra! {
    /// A root the client exposes.
    #[derive(Debug, Clone, PartialEq)]
    pub struct Root {
        /// Its URI (`file://...`).
        pub uri: String,
        /// Its name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub name: Option<String>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

super::extra::struct_with_extra! {
    /// `roots/list` result.
    #[derive(Debug, Clone, PartialEq)]
    pub struct ListRootsResult {
        /// The roots.
        pub roots: Vec<Root>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

super::extra::struct_with_extra! {
    /// `sampling/createMessage` params; the messages are kept raw.
    #[derive(Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct CreateMessageParams {
        /// The conversation.
        pub messages: Vec<Value>,
        /// The most tokens to sample.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub max_tokens: Option<u64>,
        /// A system prompt.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub system_prompt: Option<String>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

super::extra::struct_with_extra! {
    /// `sampling/createMessage` result.
    #[derive(Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct CreateMessageResult {
        /// Who speaks (the assistant).
        pub role: Role,
        /// What was sampled, raw (a content block or several).
        pub content: Value,
        /// The model used.
        pub model: String,
        /// Why sampling stopped.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub stop_reason: Option<String>,
    }
}

super::extra::struct_with_extra! {
    /// `elicitation/create` params: form mode (`requestedSchema`) or URL mode (`url`).
    #[derive(Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct ElicitParams {
        /// `form` or `url` (absent means form).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub mode: Option<String>,
        /// What to ask the user.
        pub message: String,
        /// The form's schema (form mode), kept raw.
        #[serde(
            default,
            deserialize_with = "super::present_field::present",
            skip_serializing_if = "Option::is_none"
        )]
        pub requested_schema: Option<Value>,
        /// The URL to open (URL mode).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub url: Option<String>,
        /// The elicitation's id (URL mode).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub elicitation_id: Option<String>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

super::string_enum::open_string_enum!(
    /// What the user did with an elicitation. Unknown actions are kept.
    ElicitAction {
        /// Submitted the form.
        Accept => "accept",
        /// Said no.
        Decline => "decline",
        /// Dismissed it.
        Cancel => "cancel",
    }
);

super::extra::struct_with_extra! {
    /// `elicitation/create` result.
    #[derive(Debug, Clone, PartialEq)]
    pub struct ElicitResult {
        /// What the user did.
        pub action: ElicitAction,
        /// The submitted form, when accepted.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub content: Option<Extra>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

super::extra::struct_with_extra! {
    /// `notifications/elicitation/complete` params (URL mode, 2025-11-25).
    #[derive(Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct ElicitationCompleteParams {
        /// The elicitation that completed.
        pub elicitation_id: String,
    }
}

super::extra::struct_with_extra! {
    /// `completion/complete` params.
    #[derive(Debug, Clone, PartialEq)]
    pub struct CompleteParams {
        /// What is completed: `{"type": "ref/prompt", "name"}` or `{"type": "ref/resource", "uri"}`.
        #[serde(rename = "ref")]
        pub reference: Value,
        /// The argument: `{"name", "value"}`.
        pub argument: Value,
        /// Values of other arguments.
        #[serde(
            default,
            deserialize_with = "super::present_field::present",
            skip_serializing_if = "Option::is_none"
        )]
        pub context: Option<Value>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

super::extra::struct_with_extra! {
    /// `completion/complete` result.
    #[derive(Debug, Clone, PartialEq)]
    pub struct CompleteResult {
        /// `{"values": [...], "total"?, "hasMore"?}`.
        pub completion: Value,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

impl Root {
    /// A root at `uri` (`file://...`), unnamed.
    pub fn new(uri: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            name: None,
            meta: None,
            extra: Extra::new(),
        }
    }
}

impl ListRootsResult {
    /// A `roots/list` result listing `roots`.
    pub fn new(roots: Vec<Root>) -> Self {
        Self {
            roots,
            meta: None,
            extra: Extra::new(),
        }
    }
}

impl CreateMessageResult {
    /// What the assistant said (`content`, a content block or several, raw)
    /// and the model that said it.
    pub fn new(content: Value, model: impl Into<String>) -> Self {
        Self {
            role: Role::Assistant,
            content,
            model: model.into(),
            stop_reason: None,
            extra: Extra::new(),
        }
    }
}

impl ElicitResult {
    /// The user submitted the form with `content`.
    pub fn accept(content: Extra) -> Self {
        Self::with_action(ElicitAction::Accept, Some(content))
    }

    /// The user said no.
    pub fn decline() -> Self {
        Self::with_action(ElicitAction::Decline, None)
    }

    /// The user dismissed the question.
    pub fn cancel() -> Self {
        Self::with_action(ElicitAction::Cancel, None)
    }

    fn with_action(action: ElicitAction, content: Option<Extra>) -> Self {
        Self {
            action,
            content,
            meta: None,
            extra: Extra::new(),
        }
    }
}

impl CompleteParams {
    /// Completions of `argument` (`{"name", "value"}`) of `reference` (`ref/prompt` or `ref/resource`).
    pub fn new(reference: Value, argument: Value) -> Self {
        Self {
            reference,
            argument,
            context: None,
            meta: None,
            extra: Extra::new(),
        }
    }
}
