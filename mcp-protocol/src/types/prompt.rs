//! Prompts: definitions, `prompts/list` and `prompts/get`.

use std::collections::BTreeMap;

use super::content::ContentBlock;
use super::extra::Extra;
use super::implementation::Icon;
use super::item_list::ItemList;
use super::lifecycle::CacheScope;
use super::list_result::list_result;
use super::role::Role;

super::extra::struct_with_extra! {
    /// An argument a prompt takes.
    #[derive(Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct PromptArgument {
        /// Its name.
        pub name: String,
        /// A display name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub title: Option<String>,
        /// What it is.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub description: Option<String>,
        /// Whether it must be given.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub required: Option<bool>,
    }
}

super::extra::struct_with_extra! {
    /// A prompt a server offers.
    #[derive(Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct Prompt {
        /// Its name.
        pub name: String,
        /// A display name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub title: Option<String>,
        /// What it is for.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub description: Option<String>,
        /// Its arguments.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub arguments: Option<Vec<PromptArgument>>,
        /// Icons.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub icons: Option<Vec<Icon>>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

impl Prompt {
    /// A prompt called `name`.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            title: None,
            description: None,
            arguments: None,
            icons: None,
            meta: None,
            extra: Extra::new(),
        }
    }

    /// The title, else the name.
    pub fn display_name(&self) -> &str {
        self.title.as_deref().unwrap_or(&self.name)
    }
}

super::extra::struct_with_extra! {
    /// One message of a prompt.
    #[derive(Debug, Clone, PartialEq)]
    pub struct PromptMessage {
        /// Who speaks.
        pub role: Role,
        /// What is said.
        pub content: ContentBlock,
    }
}

list_result!(
    /// `prompts/list` result.
    ListPromptsResult, prompts, "prompts", Prompt
);

super::extra::struct_with_extra! {
    /// `prompts/get` params.
    #[derive(Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct GetPromptParams {
        /// The prompt.
        pub name: String,
        /// Its arguments' values, by name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub arguments: Option<BTreeMap<String, String>>,
        /// Answers to the server's input requests (2026-07-28 retries).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub input_responses: Option<Extra>,
        /// The server's request state, echoed unchanged.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub request_state: Option<String>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

super::extra::struct_with_extra! {
    /// `prompts/get` result.
    #[derive(Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct GetPromptResult {
        /// What the prompt is for.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub description: Option<String>,
        /// The messages.
        pub messages: Vec<PromptMessage>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

impl PromptArgument {
    /// An argument called `name`, which must be given when `required`.
    pub fn new(name: impl Into<String>, required: bool) -> Self {
        Self {
            name: name.into(),
            title: None,
            description: None,
            required: Some(required),
            extra: Extra::new(),
        }
    }
}

impl PromptMessage {
    /// `content`, said by `role`.
    pub fn new(role: Role, content: ContentBlock) -> Self {
        Self {
            role,
            content,
            extra: Extra::new(),
        }
    }
}

impl GetPromptResult {
    /// A prompt of `messages`.
    pub fn new(messages: Vec<PromptMessage>) -> Self {
        Self {
            description: None,
            messages,
            meta: None,
            extra: Extra::new(),
        }
    }
}

impl GetPromptParams {
    /// A get of prompt `name` with `arguments` (values by name).
    pub fn new(name: impl Into<String>, arguments: Option<BTreeMap<String, String>>) -> Self {
        Self {
            name: name.into(),
            arguments,
            input_responses: None,
            request_state: None,
            meta: None,
            extra: Extra::new(),
        }
    }
}
