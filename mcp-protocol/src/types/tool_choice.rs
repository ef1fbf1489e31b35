//! [`ToolChoice`] (2025-11-25): whether the model must, may or must not
//! call the tools a server offers in `sampling/createMessage`. The
//! `tool_use` and `tool_result` blocks of the conversation are content
//! blocks (`ContentBlock`, in `content`).

use super::extra::Extra;

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

impl ToolChoice {
    /// The choice `mode`.
    pub fn new(mode: ToolChoiceMode) -> Self {
        Self {
            mode: Some(mode),
            extra: Extra::new(),
        }
    }
}
