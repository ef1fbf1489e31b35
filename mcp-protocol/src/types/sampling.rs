//! Sampling: a server asks the client's model for a message
//! (`sampling/createMessage`): the conversation as [`SamplingMessage`]s,
//! the model preferences, and (2025-11-25) tools the model may call.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use super::content::ContentBlock;
use super::extra::Extra;
use super::role::Role;
use super::tool::Tool;
use super::tool_choice::ToolChoice;

/// What one sampling message says: one content block, or (2025-11-25)
/// several. Written in the shape it came in.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SamplingContent {
    /// One block (every version); boxed, as a block is large next to a `Vec`.
    One(Box<ContentBlock>),
    /// Several blocks (2025-11-25): text with `tool_use` calls, or the
    /// `tool_result`s of those calls.
    Many(Vec<ContentBlock>),
}

impl SamplingContent {
    /// The blocks, one or several.
    pub fn blocks(&self) -> &[ContentBlock] {
        match self {
            SamplingContent::One(block) => std::slice::from_ref(&**block),
            SamplingContent::Many(blocks) => blocks,
        }
    }

    /// The text of the text blocks, joined by newlines; `None` when there
    /// is no text block.
    pub fn text(&self) -> Option<String> {
        let texts: Vec<&str> = self
            .blocks()
            .iter()
            .filter_map(ContentBlock::as_text)
            .collect();
        (!texts.is_empty()).then(|| texts.join("\n"))
    }
}

impl From<ContentBlock> for SamplingContent {
    fn from(block: ContentBlock) -> Self {
        SamplingContent::One(Box::new(block))
    }
}

impl From<Vec<ContentBlock>> for SamplingContent {
    fn from(blocks: Vec<ContentBlock>) -> Self {
        SamplingContent::Many(blocks)
    }
}

impl<'de> Deserialize<'de> for SamplingContent {
    /// An array is several blocks; anything else is one (a block this crate
    /// cannot read is kept as sent, never an error).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::Array(blocks) => blocks
                .into_iter()
                .map(ContentBlock::deserialize)
                .collect::<Result<_, _>>()
                .map(SamplingContent::Many)
                .map_err(serde::de::Error::custom),
            block => ContentBlock::deserialize(block)
                .map(SamplingContent::from)
                .map_err(serde::de::Error::custom),
        }
    }
}

super::extra::struct_with_extra! {
    /// One message of a sampling conversation.
    #[derive(Debug, Clone, PartialEq)]
    pub struct SamplingMessage {
        /// Who speaks.
        pub role: Role,
        /// What is said.
        pub content: SamplingContent,
        /// Metadata (2025-11-25).
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

impl SamplingMessage {
    /// `content` (a block or several), said by `role`.
    pub fn new(role: Role, content: impl Into<SamplingContent>) -> Self {
        Self {
            role,
            content: content.into(),
            meta: None,
            extra: Extra::new(),
        }
    }

    /// `text`, said by the user.
    pub fn user_text(text: impl Into<String>) -> Self {
        Self::new(Role::User, ContentBlock::text(text))
    }
}

super::extra::struct_with_extra! {
    /// A hint of a model to use: a name, or part of one (`claude-3-5-sonnet`,
    /// `sonnet`), which the client may map to a model of its own.
    #[derive(Debug, Clone, PartialEq, Default)]
    pub struct ModelHint {
        /// The name, or part of it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub name: Option<String>,
    }
}

super::extra::struct_with_extra! {
    /// What the server would like of the model: hints in order of
    /// preference, and how much cost, speed and intelligence matter (each
    /// from 0 to 1). Advisory: the client chooses.
    #[derive(Debug, Clone, PartialEq, Default)]
    #[serde(rename_all = "camelCase")]
    pub struct ModelPreferences {
        /// Models to consider, in order.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub hints: Option<Vec<ModelHint>>,
        /// How much a low cost matters.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub cost_priority: Option<f64>,
        /// How much a fast answer matters.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub speed_priority: Option<f64>,
        /// How much a capable model matters.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub intelligence_priority: Option<f64>,
    }
}

super::string_enum::open_string_enum!(
    /// Which servers' context the client should add to the prompt
    /// (soft-deprecated in 2025-11-25). Unknown values are kept.
    IncludeContext {
        /// None.
        None => "none",
        /// The asking server's.
        ThisServer => "thisServer",
        /// Every connected server's.
        AllServers => "allServers",
    }
);

super::extra::struct_with_extra! {
    /// `sampling/createMessage` params.
    #[derive(Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct CreateMessageParams {
        /// The conversation.
        pub messages: Vec<SamplingMessage>,
        /// What the server would like of the model.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub model_preferences: Option<ModelPreferences>,
        /// A system prompt.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub system_prompt: Option<String>,
        /// Which servers' context to add.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub include_context: Option<IncludeContext>,
        /// The sampling temperature.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub temperature: Option<f64>,
        /// The most tokens to sample (required by the protocol; read
        /// leniently).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub max_tokens: Option<u64>,
        /// Where to stop.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub stop_sequences: Option<Vec<String>>,
        /// Provider-specific metadata, free JSON.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub metadata: Option<Map<String, Value>>,
        /// Tools the model may call (2025-11-25).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tools: Option<Vec<Tool>>,
        /// How the model may use them (2025-11-25).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tool_choice: Option<ToolChoice>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

impl CreateMessageParams {
    /// Sampling of at most `max_tokens` tokens, continuing `messages`.
    pub fn new(messages: Vec<SamplingMessage>, max_tokens: u64) -> Self {
        Self {
            messages,
            model_preferences: None,
            system_prompt: None,
            include_context: None,
            temperature: None,
            max_tokens: Some(max_tokens),
            stop_sequences: None,
            metadata: None,
            tools: None,
            tool_choice: None,
            meta: None,
            extra: Extra::new(),
        }
    }
}

super::string_enum::open_string_enum!(
    /// Why sampling stopped. Unknown reasons (a provider's own) are kept.
    StopReason {
        /// The model finished its turn.
        EndTurn => "endTurn",
        /// A stop sequence was met.
        StopSequence => "stopSequence",
        /// The token limit was reached.
        MaxTokens => "maxTokens",
        /// The model asks for tool calls (2025-11-25).
        ToolUse => "toolUse",
    }
);

super::extra::struct_with_extra! {
    /// `sampling/createMessage` result: the sampled message, and the model
    /// that said it.
    #[derive(Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct CreateMessageResult {
        /// Who speaks (the assistant).
        pub role: Role,
        /// What was sampled: a block, or several (2025-11-25).
        pub content: SamplingContent,
        /// The model used.
        pub model: String,
        /// Why sampling stopped.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub stop_reason: Option<StopReason>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

impl CreateMessageResult {
    /// What the assistant said (`content`, a block or several) and the
    /// model that said it.
    pub fn new(content: impl Into<SamplingContent>, model: impl Into<String>) -> Self {
        Self {
            role: Role::Assistant,
            content: content.into(),
            model: model.into(),
            stop_reason: None,
            meta: None,
            extra: Extra::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::types::ToolChoiceMode;

    #[test]
    fn a_conversation_with_tools_reads_typed_and_writes_back() {
        let value = json!({
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "Weather in Paris?"}},
                {"role": "assistant", "content": [
                    {"type": "tool_use", "id": "u1", "name": "weather", "input": {"city": "Paris"}}
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "toolUseId": "u1", "content": [{"type": "text", "text": "18C"}]}
                ], "_meta": {"m": 1}}
            ],
            "modelPreferences": {"hints": [{"name": "sonnet"}], "intelligencePriority": 0.8},
            "systemPrompt": "Be brief.",
            "includeContext": "thisServer",
            "temperature": 0.5,
            "maxTokens": 100,
            "stopSequences": ["\n\n"],
            "metadata": {"provider": {"k": true}},
            "tools": [{"name": "weather", "inputSchema": {"type": "object"}}],
            "toolChoice": {"mode": "required"},
            "task": {"ttl": 10}
        });
        let params: CreateMessageParams = serde_json::from_value(value.clone()).unwrap();
        assert_eq!(params.messages.len(), 3);
        assert_eq!(
            params.messages[0].content.text().as_deref(),
            Some("Weather in Paris?")
        );
        let ContentBlock::ToolUse(call) = &params.messages[1].content.blocks()[0] else {
            panic!("a tool_use block");
        };
        assert_eq!(
            (call.name.as_str(), &call.input["city"]),
            ("weather", &json!("Paris"))
        );
        assert!(matches!(
            &params.messages[2].content.blocks()[0],
            ContentBlock::ToolResult(result) if result.tool_use_id == "u1"
        ));
        assert_eq!(params.include_context, Some(IncludeContext::ThisServer));
        assert_eq!(
            params.tool_choice.as_ref().and_then(|c| c.mode.clone()),
            Some(ToolChoiceMode::Required)
        );
        assert_eq!(params.tools.as_ref().map(Vec::len), Some(1));
        assert_eq!(params.extra["task"], json!({"ttl": 10}));
        assert_eq!(serde_json::to_value(&params).unwrap(), value);
    }

    #[test]
    fn a_result_of_one_block_or_several_keeps_its_shape() {
        for value in [
            json!({"role": "assistant", "content": {"type": "text", "text": "hi"},
                   "model": "m", "stopReason": "endTurn"}),
            json!({"role": "assistant", "content": [{"type": "text", "text": "calling"},
                   {"type": "tool_use", "id": "u", "name": "t", "input": {}}],
                   "model": "m", "stopReason": "toolUse", "_meta": {"k": 1}}),
            json!({"role": "assistant", "content": {"type": "hologram"}, "model": "m",
                   "stopReason": "providerSpecific"}),
        ] {
            let result: CreateMessageResult = serde_json::from_value(value.clone()).unwrap();
            assert_eq!(serde_json::to_value(&result).unwrap(), value);
        }
        let several: CreateMessageResult = serde_json::from_value(json!({"role": "assistant",
            "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}], "model": "m"}))
        .unwrap();
        assert_eq!(several.content.text().as_deref(), Some("a\nb"));
        assert_eq!(
            serde_json::to_value(CreateMessageResult::new(ContentBlock::text("x"), "m")).unwrap(),
            json!({"role": "assistant", "content": {"type": "text", "text": "x"}, "model": "m"})
        );
    }
}
