//! Tools in sampling (2025-11-25): the `tool_use` and `tool_result`
//! content blocks of a sampling conversation, and the [`ToolChoice`] a
//! server makes when it offers the model tools.

use serde_json::{Map, Value};

use super::content::ContentBlock;
use super::extra::Extra;

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

super::string_enum::open_string_enum!(
    /// Whether the model must, may or must not call a tool. Unknown modes are kept.
    ToolChoiceMode {
        /// The model decides (the default).
        Auto => "auto",
        /// The model must call at least one tool.
        Required => "required",
        /// The model must not call a tool.
        None => "none",
    }
);

super::extra::struct_with_extra! {
    /// How the model may use the tools of a `sampling/createMessage`.
    #[derive(Debug, Clone, PartialEq, Default)]
    pub struct ToolChoice {
        /// The mode (absent means `auto`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub mode: Option<ToolChoiceMode>,
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

impl ToolChoice {
    /// The choice `mode`.
    pub fn new(mode: ToolChoiceMode) -> Self {
        Self {
            mode: Some(mode),
            extra: Extra::new(),
        }
    }
}
